//! Index expressions of the generated C: integer polynomials over loop variables and size
//! parameters, with floor division and remainder kept as atoms.
//!
//! Views compose index functions (`join` reads `xs[i / m][i % m]`, `split` reads `xs[i * k + j]`);
//! normalising on construction keeps the printed C short: `(i * 32 + j) / 32` is `i` when `j` is a
//! loop variable below 32. Every atom is non-negative (loop variables, sizes, and division and
//! remainder of non-negative values), which is what the simplifications rely on.

/// `d * (x / d) * m + (x % d) * m` is `x * m`: the first such pair of terms of a normalised
/// sum replaced by that product and the sum normalised again (each step removes a division
/// and a remainder, so it ends), or `None` when there is no such pair. A join of joins reads
/// `xs[(i / 3) / 3][(i / 3) % 3][i % 3]`; flattened back to memory that is `i`.
fn recombined(terms: &[(Vec<Atom>, i64)]) -> Option<Ix> {
    for (i, (mi, ci)) in terms.iter().enumerate() {
        for (pos, a) in mi.iter().enumerate() {
            let Atom::Div(x, d) = a else { continue };
            // The divisor as one monomial `dc * dm`, a factor of the rest of the term.
            let [(dm, dc)] = d.terms.as_slice() else {
                continue;
            };
            if *dc <= 0 || ci % dc != 0 {
                continue;
            }
            let mut rest = mi.clone();
            rest.remove(pos);
            if !dm.iter().all(|f| match rest.iter().position(|r| r == f) {
                Some(at) => {
                    rest.remove(at);
                    true
                }
                None => false,
            }) {
                continue;
            }
            let coefficient = ci / dc;
            let mut remainder = rest.clone();
            remainder.push(Atom::Mod(x.clone(), d.clone()));
            remainder.sort();
            let partner = terms
                .iter()
                .position(|(mj, cj)| *cj == coefficient && *mj == remainder);
            let Some(j) = partner else { continue };
            let whole = Ix::from_terms(vec![(rest, coefficient)]).mul(x);
            let others = terms
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != i && *k != j)
                .map(|(_, t)| t.clone());
            return Some(Ix::from_terms(others.chain(whole.terms).collect()));
        }
    }
    None
}

/// A factor of a monomial.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Atom {
    /// A loop variable, ranging over `0..extent`.
    Loop(String, Box<Ix>),
    /// A size parameter of the entry point (positive).
    Size(String),
    /// Floor division (of a non-negative value by a positive one).
    Div(Box<Ix>, Box<Ix>),
    /// Remainder.
    Mod(Box<Ix>, Box<Ix>),
}

/// A normalised index expression: a sum of monomials (sorted atom lists) with integer
/// coefficients, sorted, without zero coefficients.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Ix {
    terms: Vec<(Vec<Atom>, i64)>,
}

impl Ix {
    /// The constant `c`.
    pub fn constant(c: i64) -> Ix {
        Ix::from_terms(vec![(Vec::new(), c)])
    }

    /// A size parameter.
    pub fn size(name: &str) -> Ix {
        Ix::atom(Atom::Size(name.to_string()))
    }

    /// A loop variable below `extent`.
    pub fn loop_var(name: &str, extent: &Ix) -> Ix {
        Ix::atom(Atom::Loop(name.to_string(), Box::new(extent.clone())))
    }

    fn atom(a: Atom) -> Ix {
        Ix::from_terms(vec![(vec![a], 1)])
    }

    /// The expression of a single atom.
    pub fn from_atom(a: Atom) -> Ix {
        Ix::atom(a)
    }

    /// The constant term (0 when there is none).
    pub fn as_const_part(&self) -> i64 {
        self.terms
            .iter()
            .find(|(m, _)| m.is_empty())
            .map_or(0, |(_, c)| *c)
    }

    fn from_terms(pairs: Vec<(Vec<Atom>, i64)>) -> Ix {
        let mut terms: Vec<(Vec<Atom>, i64)> = Vec::new();
        for (mut m, c) in pairs {
            m.sort();
            match terms.iter_mut().find(|(tm, _)| *tm == m) {
                Some((_, tc)) => *tc += c,
                None => terms.push((m, c)),
            }
        }
        terms.retain(|(_, c)| *c != 0);
        terms.sort();
        match recombined(&terms) {
            Some(ix) => ix,
            None => Ix { terms },
        }
    }

    /// The value when constant.
    pub fn as_const(&self) -> Option<i64> {
        match self.terms.as_slice() {
            [] => Some(0),
            [(m, c)] if m.is_empty() => Some(*c),
            _ => None,
        }
    }

    /// The monomials (sorted atom lists) with their non-zero coefficients.
    pub fn terms(&self) -> &[(Vec<Atom>, i64)] {
        &self.terms
    }

    /// `self + other`.
    pub fn add(&self, other: &Ix) -> Ix {
        Ix::from_terms(self.terms.iter().chain(&other.terms).cloned().collect())
    }

    /// `self - other`.
    pub fn sub(&self, other: &Ix) -> Ix {
        self.add(&other.scale(-1))
    }

    /// `c * self`.
    pub fn scale(&self, c: i64) -> Ix {
        Ix::from_terms(self.terms.iter().map(|(m, k)| (m.clone(), k * c)).collect())
    }

    /// `self * other`.
    pub fn mul(&self, other: &Ix) -> Ix {
        let mut out = Vec::new();
        for (m1, c1) in &self.terms {
            for (m2, c2) in &other.terms {
                let mut m = m1.clone();
                m.extend(m2.iter().cloned());
                out.push((m, c1 * c2));
            }
        }
        Ix::from_terms(out)
    }

    /// Whether every coefficient is positive (the value is then non-negative).
    fn non_negative(&self) -> bool {
        self.terms.iter().all(|(_, c)| *c > 0)
    }

    /// An upper bound (inclusive) when one is known.
    pub fn max_value(&self) -> Option<i64> {
        let mut total: i64 = 0;
        for (m, c) in &self.terms {
            if *c < 0 {
                return None;
            }
            let mut term = *c;
            for a in m {
                let bound = match a {
                    Atom::Loop(_, e) => e.as_const()? - 1,
                    Atom::Mod(_, d) => d.as_const()? - 1,
                    Atom::Div(x, d) => x.max_value()? / d.as_const()?,
                    Atom::Size(_) => return None,
                };
                term = term.checked_mul(bound)?;
            }
            total = total.checked_add(term)?;
        }
        Some(total)
    }

    /// Splits into the terms that are multiples of `d` (returned divided by `d`) and the rest.
    fn split_multiples(&self, d: &Ix) -> (Ix, Ix) {
        let (mut q, mut r) = (Vec::new(), Vec::new());
        let divisor = match d.terms.as_slice() {
            [(m, c)] if *c > 0 => Some((m, *c)),
            _ => None,
        };
        for (m, c) in &self.terms {
            let quotient = divisor.and_then(|(dm, dc)| {
                if c % dc != 0 {
                    return None;
                }
                let mut rest = m.clone();
                for a in dm {
                    let pos = rest.iter().position(|x| x == a)?;
                    rest.remove(pos);
                }
                Some((rest, c / dc))
            });
            match quotient {
                Some(t) => q.push(t),
                None => r.push((m.clone(), *c)),
            }
        }
        (Ix::from_terms(q), Ix::from_terms(r))
    }

    /// Whether `0 <= self < d` is provable.
    fn below(&self, d: &Ix) -> bool {
        if !self.non_negative() {
            return false;
        }
        if self.terms.is_empty() {
            return true;
        }
        if let (Some(max), Some(dc)) = (self.max_value(), d.as_const()) {
            return max < dc;
        }
        // A single loop variable whose extent is the divisor.
        matches!(self.terms.as_slice(), [(m, 1)] if matches!(m.as_slice(), [Atom::Loop(_, e)] if **e == *d))
    }

    /// Floor division by a positive `d`.
    pub fn div(&self, d: &Ix) -> Ix {
        if d.as_const() == Some(1) {
            return self.clone();
        }
        if let (Some(a), Some(b)) = (self.as_const(), d.as_const()) {
            if b > 0 && a >= 0 {
                return Ix::constant(a / b);
            }
        }
        let (q, r) = self.split_multiples(d);
        if r.below(d) {
            return q;
        }
        if r.non_negative() {
            // (d*q + r) / d == q + r / d for a non-negative r.
            return q.add(&Ix::atom(Atom::Div(Box::new(r), Box::new(d.clone()))));
        }
        Ix::atom(Atom::Div(Box::new(self.clone()), Box::new(d.clone())))
    }

    /// Remainder by a positive `d`.
    pub fn rem(&self, d: &Ix) -> Ix {
        if d.as_const() == Some(1) {
            return Ix::constant(0);
        }
        if let (Some(a), Some(b)) = (self.as_const(), d.as_const()) {
            if b > 0 && a >= 0 {
                return Ix::constant(a % b);
            }
        }
        let (_, r) = self.split_multiples(d);
        if r.below(d) {
            return r;
        }
        let base = if r.non_negative() { r } else { self.clone() };
        Ix::atom(Atom::Mod(Box::new(base), Box::new(d.clone())))
    }

    /// Whether every coefficient is a multiple of `w` (then the value is, too).
    pub fn multiple_of(&self, w: i64) -> bool {
        self.terms.iter().all(|(_, c)| c % w == 0)
    }

    /// Whether a loop variable or size named `name` occurs.
    pub fn mentions(&self, name: &str) -> bool {
        self.terms.iter().any(|(m, _)| {
            m.iter().any(|a| match a {
                Atom::Size(n) | Atom::Loop(n, _) => n == name,
                Atom::Div(x, y) | Atom::Mod(x, y) => x.mentions(name) || y.mentions(name),
            })
        })
    }

    /// The expression in C syntax (`int` arithmetic).
    pub fn to_c(&self) -> String {
        self.write(false, None)
    }

    /// The expression in C syntax with every variable cast to `ty` (`(long long)m * 4`), so
    /// that the arithmetic is done in `ty`.
    pub fn to_c_cast(&self, ty: &str) -> String {
        self.write(false, Some(ty))
    }

    /// The expression in C syntax without parentheses around the whole (a lone quotient
    /// `(i + 3) / 4` rather than `((i + 3) / 4)`), for a value that stands alone.
    pub fn to_c_bare(&self) -> String {
        match self.terms.as_slice() {
            [(m, 1)] => match m.as_slice() {
                [Atom::Div(x, d)] => format!("{} / {}", x.write(true, None), d.write(true, None)),
                [Atom::Mod(x, d)] => format!("{} % {}", x.write(true, None), d.write(true, None)),
                _ => self.to_c(),
            },
            _ => self.to_c(),
        }
    }

    /// Whether the expression has a sum or a product at any depth (`m * n`, `m + 1`,
    /// `(m * n) / 4`): without one it is a size, a difference or a quotient of sizes, and
    /// cannot exceed the largest size.
    pub fn has_sum_or_product(&self) -> bool {
        let positive_terms = self.terms.iter().filter(|(_, c)| *c > 0).count();
        positive_terms >= 2
            || self.terms.iter().any(|(m, c)| {
                // Factors printed: the atoms, and the coefficient unless it is 1 (or alone).
                let coefficient = m.is_empty() || c.unsigned_abs() != 1;
                m.len() + usize::from(coefficient) >= 2
                    || m.iter().any(|a| match a {
                        Atom::Div(x, d) | Atom::Mod(x, d) => {
                            x.has_sum_or_product() || d.has_sum_or_product()
                        }
                        Atom::Loop(..) | Atom::Size(_) => false,
                    })
            })
    }

    fn write(&self, atomic: bool, cast: Option<&str>) -> String {
        if self.terms.is_empty() {
            return "0".into();
        }
        // Positive terms first, then by degree and coefficient (larger strides first), the constant
        // last.
        let mut order: Vec<&(Vec<Atom>, i64)> = self.terms.iter().collect();
        order.sort_by_key(|(m, c)| {
            use std::cmp::Reverse;
            (
                *c < 0,
                m.is_empty(),
                Reverse(m.len()),
                Reverse(c.unsigned_abs()),
            )
        });
        let mut out = String::new();
        for (pos, (m, c)) in order.iter().enumerate() {
            let neg = *c < 0;
            if pos > 0 {
                out.push_str(if neg { " - " } else { " + " });
            } else if neg {
                out.push('-');
            }
            let abs = c.unsigned_abs();
            let mut factors: Vec<String> = m.iter().map(|a| write_atom(a, cast)).collect();
            if m.is_empty() || abs != 1 {
                factors.push(abs.to_string());
            }
            out.push_str(&factors.join(" * "));
        }
        let simple = self.terms.len() == 1
            && (self.terms[0].0.len() + usize::from(self.terms[0].1 != 1)) <= 1
            && self.terms[0].1 >= 0;
        if atomic && !simple {
            format!("({out})")
        } else {
            out
        }
    }
}

fn write_atom(a: &Atom, cast: Option<&str>) -> String {
    match (a, cast) {
        (Atom::Size(n) | Atom::Loop(n, _), None) => n.clone(),
        (Atom::Size(n) | Atom::Loop(n, _), Some(ty)) => format!("({ty}){n}"),
        (Atom::Div(x, d), _) => format!("({} / {})", x.write(true, cast), d.write(true, cast)),
        (Atom::Mod(x, d), _) => format!("({} % {})", x.write(true, cast), d.write(true, cast)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A join of joins read back flat: `((k/3)/3)*9 + ((k/3)%3)*3 + k%3` is `k`, also inside a
    /// larger sum and with the digits of a symbolic extent.
    #[test]
    fn quotient_and_remainder_digits_recombine() {
        let k = Ix::loop_var("k", &Ix::size("n"));
        let three = Ix::constant(3);
        let digits = |k: &Ix| {
            k.div(&three)
                .div(&three)
                .scale(9)
                .add(&k.div(&three).rem(&three).scale(3))
                .add(&k.rem(&three))
        };
        assert_eq!(digits(&k), k);
        let base = Ix::size("c").scale(144);
        assert_eq!(base.add(&digits(&k)), base.add(&k));
        let w = Ix::size("w");
        let flat = k.div(&w).mul(&w).add(&k.rem(&w));
        assert_eq!(flat, k);
        // Not a pair: the remainder's coefficient does not match.
        let other = k.div(&three).scale(3).add(&k.rem(&three).scale(2));
        assert_ne!(other, k);
    }

    #[test]
    fn split_then_join_indices_simplify() {
        let i = Ix::loop_var("i", &Ix::size("m"));
        let j = Ix::loop_var("j", &Ix::constant(32));
        let flat = i.scale(32).add(&j);
        assert_eq!(flat.div(&Ix::constant(32)), i);
        assert_eq!(flat.rem(&Ix::constant(32)), j);
        assert_eq!(flat.to_c(), "i * 32 + j");
    }

    #[test]
    fn symbolic_divisor_with_loop_below_it() {
        let n = Ix::size("n");
        let i = Ix::loop_var("i", &Ix::size("m"));
        let j = Ix::loop_var("j", &n);
        let flat = i.mul(&n).add(&j);
        assert_eq!(flat.div(&n), i);
        assert_eq!(flat.rem(&n), j);
    }

    #[test]
    fn unknown_remainders_stay_atoms() {
        let i = Ix::loop_var("i", &Ix::size("m"));
        let q = i.add(&Ix::constant(3)).div(&Ix::constant(4));
        assert_eq!(q.to_c(), "((i + 3) / 4)");
        assert_eq!(
            i.scale(8)
                .add(&Ix::constant(4))
                .div(&Ix::constant(4))
                .to_c(),
            "i * 2 + 1"
        );
        assert_eq!(i.rem(&Ix::constant(4)).to_c(), "(i % 4)");
        assert!(i.scale(8).multiple_of(8));
        assert_eq!(Ix::constant(-2).add(&i).to_c(), "i - 2");
    }

    #[test]
    fn casts_bare_quotients_and_sums_are_read_from_the_structure() {
        let (m, n) = (Ix::size("m"), Ix::size("n"));
        let q = m.mul(&n).add(&Ix::constant(3)).div(&Ix::constant(4));
        assert_eq!(q.to_c(), "((m * n + 3) / 4)");
        assert_eq!(q.to_c_bare(), "(m * n + 3) / 4");
        assert_eq!(
            q.to_c_cast("long long"),
            "(((long long)m * (long long)n + 3) / 4)"
        );
        assert!(q.has_sum_or_product());
        assert!(!m.div(&Ix::constant(32)).has_sum_or_product());
        assert!(!m.sub(&Ix::constant(1)).has_sum_or_product());
        assert!(m.scale(2).has_sum_or_product());
        assert!(m.add(&n).has_sum_or_product());
    }
}
