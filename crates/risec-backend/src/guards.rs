//! The checks at the entry of the generated function, written so that they cannot overflow:
//! every size fact the program relies on (`m/32` whole, `n - 2` not negative) and every element
//! count (at most `INT_MAX`, the index type's range).
//!
//! A check is evaluated in `long long` as written (`(long long)m * (long long)n > INT_MAX`) when
//! a static bound shows that no intermediate result can leave `long long`'s range for any sizes
//! of `1..=INT_MAX` (what the positivity check before them and the `int` parameters ensure),
//! and no divisor can be zero. Otherwise it is evaluated with the `rise_size_*` helpers
//! ([`CHECKED_HELPERS`]), which return `LLONG_MAX` for a result `long long` cannot hold (and for
//! a division by zero), so that `m * n * k` at 2,097,152 each reads as too large instead of
//! wrapping to a negative count.

use super::c_ast::CExpr;
use super::ix::{Atom, Ix};

/// The largest value of a size parameter (a C `int`).
const SIZE_BOUND: u128 = i32::MAX as u128;

/// The largest magnitude `long long` holds.
const LONG_LONG_BOUND: u128 = i64::MAX as u128;

/// The C helpers of the checked form: overflow (and division by zero) gives `LLONG_MAX`, which
/// propagates, and which every count check reads as too large. Guarded (`RISE_SIZE_HELPERS`), so
/// that several kernels' C can share a file.
pub const CHECKED_HELPERS: &str =
    "/* Size arithmetic of the checks on entry: LLONG_MAX stands for a value out of range. */
#ifndef RISE_SIZE_HELPERS
#define RISE_SIZE_HELPERS
static inline long long rise_size_add(long long a, long long b) {
    long long r = 0;
    if (a == LLONG_MAX || b == LLONG_MAX || __builtin_add_overflow(a, b, &r)) return LLONG_MAX;
    return r;
}
static inline long long rise_size_mul(long long a, long long b) {
    long long r = 0;
    if (a == LLONG_MAX || b == LLONG_MAX || __builtin_mul_overflow(a, b, &r)) return LLONG_MAX;
    return r;
}
static inline long long rise_size_div(long long a, long long b) {
    return a == LLONG_MAX || b == LLONG_MAX || a < 0 || b <= 0 ? LLONG_MAX : a / b;
}
static inline long long rise_size_mod(long long a, long long b) {
    return a == LLONG_MAX || b == LLONG_MAX || a < 0 || b <= 0 ? LLONG_MAX : a % b;
}
#endif

";

/// A bound on the magnitude of `ix` and of every intermediate result of its evaluation in
/// `long long` as [`CExpr::WideIndex`] writes it, for sizes in `1..=INT_MAX`; `None` when the
/// bound exceeds `long long` or a divisor may be zero.
fn bound(ix: &Ix) -> Option<u128> {
    let mut total: u128 = 0;
    for (atoms, c) in ix.terms() {
        let mut term = u128::from(c.unsigned_abs());
        for a in atoms {
            term = term.checked_mul(atom_bound(a)?.max(1))?;
        }
        total = total.checked_add(term)?;
    }
    (total <= LONG_LONG_BOUND).then_some(total)
}

fn atom_bound(a: &Atom) -> Option<u128> {
    match a {
        Atom::Size(_) => Some(SIZE_BOUND),
        Atom::Loop(_, extent) => bound(extent),
        Atom::Div(x, d) => {
            let (bx, _) = (bound(x)?, bound(d)?);
            Some(bx / u128::try_from(positive_lower_bound(d)?).ok()?)
        }
        Atom::Mod(x, d) => {
            let (bx, bd) = (bound(x)?, bound(d)?);
            positive_lower_bound(d)?;
            Some(bx.min(bd))
        }
    }
}

/// A positive lower bound of `d` when it is provably positive: a positive constant, or a sum of
/// sizes and their products with positive coefficients (sizes are at least 1).
fn positive_lower_bound(d: &Ix) -> Option<i64> {
    if let Some(c) = d.as_const() {
        return (c > 0).then_some(c);
    }
    let sizes_only = d
        .terms()
        .iter()
        .all(|(atoms, c)| *c > 0 && atoms.iter().all(|a| matches!(a, Atom::Size(_))));
    sizes_only.then_some(1)
}

/// Whether the value of `ix` is provably non-negative (every coefficient is positive).
fn non_negative(ix: &Ix) -> bool {
    ix.terms().iter().all(|(_, c)| *c > 0)
}

/// `ix` in C, evaluated in `long long`: as written when that cannot overflow, else with the
/// checked helpers; the flag says which.
pub fn wide_c(ix: &Ix) -> (String, bool) {
    match bound(ix) {
        Some(_) => (CExpr::WideIndex(ix.clone()).to_c(), false),
        None => (checked_c(ix), true),
    }
}

fn checked_c(ix: &Ix) -> String {
    let mut sum: Option<String> = None;
    for (atoms, c) in ix.terms() {
        let mut product: Option<String> = None;
        let factors = atoms
            .iter()
            .map(checked_atom)
            .chain((atoms.is_empty() || *c != 1).then(|| format!("{c}LL")));
        for f in factors {
            product = Some(match product {
                None => f,
                Some(p) => format!("rise_size_mul({p}, {f})"),
            });
        }
        let term = product.unwrap_or_else(|| "0LL".into());
        sum = Some(match sum {
            None => term,
            Some(s) => format!("rise_size_add({s}, {term})"),
        });
    }
    sum.unwrap_or_else(|| "0LL".into())
}

fn checked_atom(a: &Atom) -> String {
    match a {
        Atom::Size(n) | Atom::Loop(n, _) => format!("(long long){n}"),
        Atom::Div(x, d) => format!("rise_size_div({}, {})", checked_c(x), checked_c(d)),
        Atom::Mod(x, d) => format!("rise_size_mod({}, {})", checked_c(x), checked_c(d)),
    }
}

/// The part of `ix` made of its positive terms: printed first, they bound every partial result
/// of its `int` evaluation inside the function (the negative terms follow).
fn positive_part(ix: &Ix) -> Ix {
    let mut out = Ix::constant(0);
    for (atoms, c) in ix.terms().iter().filter(|(_, c)| *c > 0) {
        let mut term = Ix::constant(*c);
        for a in atoms {
            term = term.mul(&atom_ix(a));
        }
        out = out.add(&term);
    }
    out
}

fn atom_ix(a: &Atom) -> Ix {
    match a {
        Atom::Size(n) => Ix::size(n),
        Atom::Loop(n, e) => Ix::loop_var(n, e),
        Atom::Div(x, d) => x.div(d),
        Atom::Mod(x, d) => x.rem(d),
    }
}

/// The checks of a fact `numerator / denominator` (a whole, non-negative number), as lines of
/// C that return 1 when it does not hold (3 when its value is out of range); `text` says what
/// the program assumes. A fact that holds for all sizes gives no line.
pub fn fact_lines(numerator: &Ix, denominator: i64, text: &str) -> (Vec<String>, bool) {
    let signed = !non_negative(numerator);
    if !signed && denominator == 1 {
        return (Vec::new(), false);
    }
    let (value, checked) = wide_c(numerator);
    let mut lines = Vec::new();
    if checked {
        lines.push(format!("    if ({value} == LLONG_MAX) return 3;"));
    }
    let mut conditions = Vec::new();
    if signed {
        conditions.push(format!("{value} < 0"));
    }
    if denominator != 1 {
        let wrapped = if checked { value } else { format!("({value})") };
        conditions.push(format!("{wrapped} % {denominator} != 0"));
    }
    lines.push(format!(
        "    if ({}) return 1; /* assumes {text} */",
        conditions.join(" || ")
    ));
    (lines, checked)
}

/// The conditions (C, `||`-joined by the caller) under which an array of `count` elements is
/// too large for `int` indices: its count, or the sum of its positive terms when it has
/// negative ones, above `INT_MAX`. `None` when it cannot be (a constant, a lone size, a
/// difference or quotient of sizes).
pub fn count_condition(count: &Ix) -> Option<(String, bool)> {
    if count.as_const().is_some() || !count.has_sum_or_product() {
        return None;
    }
    let checked_part = if non_negative(count) {
        count.clone()
    } else {
        positive_part(count)
    };
    if checked_part.as_const().is_some() {
        return None;
    }
    let (value, checked) = wide_c(&checked_part);
    Some((format!("{value} > INT_MAX"), checked))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_of_two_sizes_stay_as_written_and_of_three_are_checked() {
        let (m, n, k) = (Ix::size("m"), Ix::size("n"), Ix::size("k"));
        let two = m.mul(&n);
        assert_eq!(
            count_condition(&two),
            Some(("(long long)m * (long long)n > INT_MAX".into(), false))
        );
        // A quotient by a constant keeps the bound: k * (n/16) * 16 fits.
        let q = k.mul(&n.div(&Ix::constant(16))).scale(16);
        assert!(!count_condition(&q).unwrap().1);
        let three = m.mul(&n).mul(&k);
        let (c, checked) = count_condition(&three).unwrap();
        assert!(checked);
        assert_eq!(
            c,
            "rise_size_mul(rise_size_mul((long long)k, (long long)m), (long long)n) > INT_MAX"
        );
    }

    #[test]
    fn differences_are_checked_for_sign_and_counts_by_their_positive_part() {
        let n = Ix::size("n");
        let minus2 = n.sub(&Ix::constant(2));
        let (lines, _) = fact_lines(&minus2, 1, "`n ≥ 2`");
        assert_eq!(
            lines,
            ["    if ((long long)n - 2 < 0) return 1; /* assumes `n ≥ 2` */"]
        );
        let (lines, _) = fact_lines(&n, 32, "`n/32` is a whole number");
        assert_eq!(
            lines,
            ["    if (((long long)n) % 32 != 0) return 1; /* assumes `n/32` is a whole number */"]
        );
        assert!(fact_lines(&n.add(&Ix::constant(1)), 1, "").0.is_empty());
        let square = minus2.mul(&minus2);
        assert_eq!(
            count_condition(&square).unwrap().0,
            "(long long)n * (long long)n + 4 > INT_MAX"
        );
        assert_eq!(count_condition(&minus2), None);
    }

    #[test]
    fn symbolic_divisors_are_checked() {
        let (m, n) = (Ix::size("m"), Ix::size("n"));
        let q = m.mul(&n).div(&n.sub(&Ix::constant(2)));
        let (text, checked) = wide_c(&q);
        assert!(checked, "{text}");
        assert!(text.starts_with("rise_size_div("), "{text}");
    }
}
