//! Whether a size can exist at all: a divisibility fact `n + 1/2` no natural `n` makes whole,
//! a difference `3 - n - 5` that is negative for every `n`. Such sizes are errors in programs
//! and make a rewrite inapplicable, rather than something to assume.
//!
//! Atoms are taken to range over all natural numbers (opaque operations included), so "cannot"
//! answers are sound: no assignment of the real values can do better.

use super::{checked_lcm, Monomial, Nat, NatAtom};
use num_integer::Integer;

/// The largest number of residue assignments [`wholeness`] tries before giving up and
/// answering [`Wholeness::Maybe`].
const MAX_ASSIGNMENTS: u128 = 1 << 16;

/// Whether some natural values of a size's atoms make it a whole number ([`wholeness`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wholeness {
    /// Some values do, or it was not decided within `MAX_ASSIGNMENTS` (it may be).
    Maybe,
    /// No natural values do (`n + 1/2`).
    Never,
    /// The common denominator of its coefficients is past 2^64 (`(n + 1)/64^11`) or past
    /// 128-bit arithmetic: no 64-bit size but 0 is a multiple of it, so it is refused as
    /// infeasible rather than computed with truncated numbers.
    TooLarge,
}

/// Whether some natural values of its atoms make `n` a whole number. With `d` the common
/// denominator of its coefficients, `n` is whole iff the integer polynomial `P = d·n` is
/// `≡ 0 (mod d)`. Two tests can answer [`Wholeness::Never`], whatever the size of `d`:
///
/// * each monomial but the constant taken as a free value: `Σ kᵢ·vᵢ + k₀ ≡ 0 (mod d)` has a
///   solution iff `gcd(d, k₁, …)` divides `k₀`. `(4n + 1)/2^21` never is whole (`4n + 1` is
///   odd), however large the divisor. When every monomial is one atom to the first power (a
///   linear size), this is the whole answer;
/// * otherwise, residues of the atoms modulo the prime powers `p^e` that divide `d` (by the
///   Chinese remainder theorem, `P ≡ 0 (mod d)` iff it is modulo each of them), at most
///   `MAX_ASSIGNMENTS` assignments for each: past that, modulo a smaller power of `p`,
///   which only shows when there is no solution.
///
/// What neither test refutes is [`Wholeness::Maybe`].
pub fn wholeness(n: &Nat) -> Wholeness {
    let mut d: i128 = 1;
    for (_, c) in n.terms() {
        match checked_lcm(d, c.denom()) {
            Some(l) => d = l,
            None => return Wholeness::TooLarge,
        }
    }
    if d == 1 {
        return Wholeness::Maybe;
    }
    if u64::try_from(d).is_err() {
        return Wholeness::TooLarge;
    }
    // d·c mod d for every term: with c = p/q and q dividing d, d·c = p·(d/q) ≡ (p mod q)·(d/q),
    // which is below d, so nothing overflows.
    let scaled: Vec<(&Monomial, i128)> = n
        .terms()
        .iter()
        .map(|(m, c)| (m, c.numer().rem_euclid(c.denom()) * (d / c.denom())))
        .collect();
    let constant: i128 = scaled
        .iter()
        .filter(|(m, _)| m.is_constant())
        .map(|(_, k)| k)
        .sum();
    let g = scaled
        .iter()
        .filter(|(m, _)| !m.is_constant())
        .fold(d, |g, (_, k)| g.gcd(k));
    if constant % g != 0 {
        return Wholeness::Never;
    }
    let linear = scaled.iter().all(|(m, _)| match m.factors() {
        [] => true,
        [(_, p)] => *p == 1,
        _ => false,
    });
    if linear {
        return Wholeness::Maybe;
    }
    let mut atoms: Vec<&NatAtom> = n
        .terms()
        .iter()
        .flat_map(|(m, _)| m.factors().iter().map(|(a, _)| a))
        .collect();
    atoms.sort();
    atoms.dedup();
    let k = u32::try_from(atoms.len()).unwrap_or(u32::MAX);
    // The moduli q with q^k ≤ MAX_ASSIGNMENTS; there is an atom (the size is not linear), so
    // q ≤ 2^16 and the products of two residues stay far inside i128.
    let fits = |q: u64| {
        u128::from(q)
            .checked_pow(k)
            .is_some_and(|c| c <= MAX_ASSIGNMENTS)
    };
    // Trial division by the primes that fit (d < 2^64 was checked above).
    let (mut rest, mut p) = (d as u64, 2u64);
    while p * p <= rest && fits(p) {
        if rest % p == 0 {
            let mut q = 1;
            while rest % p == 0 {
                rest /= p;
                if fits(q * p) {
                    q *= p;
                }
            }
            if !has_root_modulo(&scaled, &atoms, i128::from(q)) {
                return Wholeness::Never;
            }
        }
        p += if p == 2 { 1 } else { 2 };
    }
    // What is left is 1, a prime (the loop stopped at its square root), or has only prime
    // factors too large to try (then it does not fit either).
    if rest > 1 && fits(rest) && !has_root_modulo(&scaled, &atoms, i128::from(rest)) {
        return Wholeness::Never;
    }
    Wholeness::Maybe
}

/// Whether some residues modulo `q` of `atoms` make `Σ k·m ≡ 0 (mod q)` over `scaled`, which
/// depends on the atoms only modulo `q` (every `q^atoms` assignment is tried; `q ≤ 2^16`).
fn has_root_modulo(scaled: &[(&Monomial, i128)], atoms: &[&NatAtom], q: i128) -> bool {
    let mut residues = vec![0i128; atoms.len()];
    loop {
        let value = scaled.iter().fold(0i128, |acc, (m, k)| {
            let term = m.factors().iter().fold(k.rem_euclid(q), |t, (a, p)| {
                let r = residues[atoms.binary_search(&a).unwrap_or(0)];
                (t * pow_mod(r, *p, q)).rem_euclid(q)
            });
            (acc + term).rem_euclid(q)
        });
        if value == 0 {
            return true;
        }
        // The next assignment, as a counter in base q.
        let mut i = 0;
        loop {
            if i == residues.len() {
                return false;
            }
            residues[i] += 1;
            if residues[i] < q {
                break;
            }
            residues[i] = 0;
            i += 1;
        }
    }
}

/// Whether some natural values of the atoms make `a` and `b` whole numbers together: false
/// when both are over the same single atom, linearly (`(n + 2)/7` and `(n + 4)/7`), and the
/// residue classes they need it in are disjoint. Each may be possible alone ([`wholeness`]):
/// a program relying on both still runs at no size. Other shapes are not compared (true).
pub fn can_both_be_whole(a: &Nat, b: &Nat) -> bool {
    match (congruence(a), congruence(b)) {
        (Some((x, r, m)), Some((y, s, k))) if x == y => {
            // x ≡ r (mod m) and x ≡ s (mod k) have a common solution iff r ≡ s (mod gcd).
            let g = m.gcd(&k);
            r % g == s % g
        }
        _ => true,
    }
}

/// For a size `(c·x + e)/d` over one atom `x` that can be whole: its atom and the residue
/// class `x ≡ r (mod m)` that makes it whole. `None` for other shapes.
fn congruence(n: &Nat) -> Option<(&NatAtom, u128, u128)> {
    let mut d: i128 = 1;
    for (_, c) in n.terms() {
        d = checked_lcm(d, c.denom())?;
    }
    if d == 1 || u64::try_from(d).is_err() {
        return None;
    }
    // d·n ≡ a·x + b (mod d), with 0 ≤ a, b < d (as in `wholeness`).
    let (mut atom, mut a, mut b) = (None, 0i128, 0i128);
    for (m, c) in n.terms() {
        let k = c.numer().rem_euclid(c.denom()) * (d / c.denom());
        match m.factors() {
            [] => b = k,
            [(x, 1)] if atom.is_none() => (atom, a) = (Some(x), k),
            _ => return None,
        }
    }
    let x = atom?;
    let g = a.gcd(&d);
    if b % g != 0 {
        return None;
    }
    // (a/g)·x ≡ -b/g (mod d/g), with a/g invertible modulo d/g.
    let m = (d / g) as u128;
    let rhs = ((d - b) / g) as u128 % m;
    let inverse = inverse_modulo((a / g) as u128 % m, m)?;
    // Both below m < 2^64: the product is below 2^128.
    Some((x, rhs * inverse % m, m))
}

/// `v⁻¹ mod m` for `v` coprime to `m` (`m ≥ 1`), by the extended Euclidean algorithm.
fn inverse_modulo(v: u128, m: u128) -> Option<u128> {
    if m == 1 {
        return Some(0);
    }
    let (mut r0, mut r1) = (m as i128, v as i128);
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    (r0 == 1).then(|| t0.rem_euclid(m as i128) as u128)
}

/// `r^p mod d` by squaring, for `0 ≤ r < d ≤ 2^16`.
fn pow_mod(r: i128, mut p: u32, d: i128) -> i128 {
    let (mut base, mut acc) = (r, 1 % d);
    while p > 0 {
        if p & 1 == 1 {
            acc = acc * base % d;
        }
        base = base * base % d;
        p >>= 1;
    }
    acc
}

/// Whether `n` is at least 0 for every natural value of its atoms: every coefficient is
/// non-negative (monomials of naturals are).
pub fn is_nonnegative(n: &Nat) -> bool {
    n.terms().iter().all(|(_, c)| c.numer() >= 0)
}

/// Whether some natural values of its atoms make `n` at least 0: false when its constant is
/// negative and no other term can be positive.
pub fn can_be_nonnegative(n: &Nat) -> bool {
    let constant = n
        .terms()
        .iter()
        .find(|(m, _)| m.factors().is_empty())
        .map_or(0, |(_, c)| c.numer());
    constant >= 0
        || n.terms()
            .iter()
            .any(|(m, c)| !m.factors().is_empty() && c.numer() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::nat::{add, binder, constant, div, lit, mul, pow, sub, Rational};

    #[test]
    fn whole_numbers_that_cannot_be() {
        let n = binder(1);
        // (2n+1)/2 = n + 1/2: never whole.
        let half = div(&add(&mul(&lit(2), &n), &lit(1)), &lit(2));
        assert_eq!(wholeness(&half), Wholeness::Never);
        assert_eq!(wholeness(&div(&n, &lit(32))), Wholeness::Maybe);
        assert_eq!(wholeness(&div(&lit(2), &lit(3))), Wholeness::Never);
        assert_eq!(wholeness(&div(&lit(6), &lit(3))), Wholeness::Maybe);
        // n(n+1)/2 is always whole; n(n+1)/2 + 1/2 never is.
        let tri = div(&mul(&n, &add(&n, &lit(1))), &lit(2));
        assert_eq!(wholeness(&tri), Wholeness::Maybe);
        assert_eq!(
            wholeness(&add(&tri, &div(&lit(1), &lit(2)))),
            Wholeness::Never
        );
        // Two atoms: (m + n)/2 can be; (2m + 4n + 1)/4 cannot.
        let m = binder(2);
        assert_eq!(wholeness(&div(&add(&m, &n), &lit(2))), Wholeness::Maybe);
        let odd = add(&add(&mul(&lit(2), &m), &mul(&lit(4), &n)), &lit(1));
        assert_eq!(wholeness(&div(&odd, &lit(4))), Wholeness::Never);
    }

    #[test]
    fn large_divisors_of_sizes_that_cannot_be_multiples_are_never_whole() {
        // Past 2^16 residues the answer used to be "maybe": `(4n + 1)/2^21`, what splits by
        // 1048576 and 2 of `4n + 1` need, was assumed, and anything followed from it.
        let n = binder(1);
        let m = binder(2);
        let big = |e: &Nat, d: u64| div(e, &lit(d));
        let four_n_plus = |c| add(&mul(&lit(4), &n), &lit(c));
        assert_eq!(wholeness(&big(&four_n_plus(1), 1 << 21)), Wholeness::Never);
        assert_eq!(
            wholeness(&big(&four_n_plus(65535), 1 << 20)),
            Wholeness::Never
        );
        let two_n_plus = |c| add(&mul(&lit(2), &n), &lit(c));
        assert_eq!(wholeness(&big(&two_n_plus(1), 1 << 19)), Wholeness::Never);
        assert_eq!(
            wholeness(&big(&two_n_plus(7), 64 * 64 * 64)),
            Wholeness::Never
        );
        assert_eq!(
            wholeness(&big(&two_n_plus(1), 2147483647)),
            Wholeness::Maybe
        );
        // Those that can be stay possible: n = 2^19 - 1, and 4n + 4 ≡ 0 (mod 2^20).
        assert_eq!(wholeness(&big(&two_n_plus(2), 1 << 20)), Wholeness::Maybe);
        assert_eq!(wholeness(&big(&four_n_plus(4), 1 << 20)), Wholeness::Maybe);
        assert_eq!(
            wholeness(&big(&add(&n, &lit(1)), 1 << 40)),
            Wholeness::Maybe
        );
        // Two atoms: 2m + 6n + 3 is odd; 2m + 3n + 1 is a multiple of anything for some m, n.
        let odd = add(&add(&mul(&lit(2), &m), &mul(&lit(6), &n)), &lit(3));
        assert_eq!(wholeness(&big(&odd, 1 << 20)), Wholeness::Never);
        let any = add(&add(&mul(&lit(2), &m), &mul(&lit(3), &n)), &lit(1));
        assert_eq!(wholeness(&big(&any, 1 << 20)), Wholeness::Maybe);
    }

    #[test]
    fn polynomials_are_tried_modulo_the_prime_powers_of_the_divisor() {
        let n = binder(1);
        let sq1 = add(&mul(&n, &n), &lit(1));
        // n² + 1 is 1 or 2 modulo 4 and modulo 3: never a multiple of 3·2^20, though there are
        // too many residues modulo that to try them all.
        assert_eq!(wholeness(&div(&sq1, &lit(3 << 20))), Wholeness::Never);
        assert_eq!(wholeness(&div(&sq1, &lit(1 << 30))), Wholeness::Never);
        // n² + 1 is a multiple of 5 (n = 2) and of 2 (n odd), not of 10·3.
        assert_eq!(wholeness(&div(&sq1, &lit(10))), Wholeness::Maybe);
        assert_eq!(wholeness(&div(&sq1, &lit(30))), Wholeness::Never);
        // n(n + 1) is a multiple of 2^30 (n = 2^30).
        let pronic = mul(&n, &add(&n, &lit(1)));
        assert_eq!(wholeness(&div(&pronic, &lit(1 << 30))), Wholeness::Maybe);
        // Modulo a large prime nothing is tried: it may be.
        assert_eq!(wholeness(&div(&sq1, &lit(2147483647))), Wholeness::Maybe);
    }

    #[test]
    fn sizes_that_need_disjoint_residues_cannot_both_be_whole() {
        // Splits by 7 of `n + 2` and of `n + 4`, as of two stencils' sizes: each is possible,
        // both together are not (n ≡ 5 and n ≡ 3 modulo 7).
        let n = binder(1);
        let m = binder(2);
        let by = |e: &Nat, d: u64| div(e, &lit(d));
        let plus = |x: &Nat, c: u64| add(x, &lit(c));
        assert!(!can_both_be_whole(
            &by(&plus(&n, 2), 7),
            &by(&plus(&n, 4), 7)
        ));
        assert!(can_both_be_whole(
            &by(&plus(&n, 2), 7),
            &by(&plus(&n, 9), 7)
        ));
        // n ≡ 0 (mod 4) and n ≡ 1 (mod 6) disagree modulo 2; n ≡ 0 (mod 4) and n ≡ 1 (mod 3)
        // agree (n = 4).
        assert!(!can_both_be_whole(&by(&n, 4), &by(&plus(&n, 5), 6)));
        assert!(can_both_be_whole(&by(&n, 4), &by(&plus(&n, 2), 3)));
        // (2n + 2)/4 needs n odd, n/2 n even; (3n + 1)/2^40 is solvable and taken modulo it.
        let two_n_2 = plus(&mul(&lit(2), &n), 2);
        assert!(!can_both_be_whole(&by(&two_n_2, 4), &by(&n, 2)));
        let three_n_1 = plus(&mul(&lit(3), &n), 1);
        assert!(!can_both_be_whole(&by(&three_n_1, 1 << 40), &by(&n, 2)));
        assert!(can_both_be_whole(
            &by(&three_n_1, 1 << 40),
            &by(&plus(&n, 1), 2)
        ));
        // Other atoms, or other shapes, are not compared.
        assert!(can_both_be_whole(
            &by(&plus(&n, 2), 7),
            &by(&plus(&m, 4), 7)
        ));
        assert!(can_both_be_whole(
            &by(&add(&n, &m), 2),
            &by(&plus(&n, 1), 2)
        ));
        assert!(can_both_be_whole(
            &by(&mul(&n, &n), 2),
            &by(&plus(&n, 1), 2)
        ));
    }

    #[test]
    fn denominators_past_64_bits_are_too_large_at_once() {
        // (n + 1)/64^11: the denominator is 2^66. It used to be cast to u64 (0), pass the
        // guard on the number of assignments, and count residues towards 2^66.
        let n = binder(1);
        let mut q = add(&n, &lit(1));
        for _ in 0..11 {
            q = div(&q, &lit(64));
        }
        assert_eq!(q.terms()[0].1.denom(), 1 << 66);
        assert_eq!(wholeness(&q), Wholeness::TooLarge);
        // n/2^100 + 1/3^60: the lcm of the denominators overflows 128 bits.
        let a = mul(&n, &constant(Rational::new(1, 1 << 100).unwrap()));
        let b = constant(Rational::new(1, 3i128.pow(60)).unwrap());
        assert_eq!(wholeness(&add(&a, &b)), Wholeness::TooLarge);
        // 64^10 = 2^60 fits: too many residues to try, so it may be whole.
        let mut r = add(&n, &lit(1));
        for _ in 0..10 {
            r = div(&r, &lit(64));
        }
        assert_eq!(wholeness(&r), Wholeness::Maybe);
    }

    #[test]
    fn huge_powers_and_numerators_are_checked_quickly() {
        let n = binder(1);
        // n^(64^3): the power is taken by squaring, modulo 2. (n^k + 1)/2 is whole for odd
        // n; n^k + 1/2 never is.
        let big = pow(&pow(&pow(&n, &lit(64)), &lit(64)), &lit(64));
        assert_eq!(big.terms()[0].0.factors()[0].1, 1 << 18);
        assert_eq!(
            wholeness(&div(&add(&big, &lit(1)), &lit(2))),
            Wholeness::Maybe
        );
        let half = div(&lit(1), &lit(2));
        assert_eq!(wholeness(&add(&big, &half)), Wholeness::Never);
        // A numerator near i128::MAX times d/q (here 2) does not overflow: n·(2^127 - 1)/3 +
        // 1/2 has d = 6, and 2·(2^127 - 1)·n + 3 is odd.
        let huge = constant(Rational::new(i128::MAX, 3).unwrap());
        assert_eq!(wholeness(&add(&mul(&n, &huge), &half)), Wholeness::Never);
        assert_eq!(wholeness(&mul(&n, &huge)), Wholeness::Maybe);
        assert_eq!(wholeness(&huge), Wholeness::Never);
    }

    #[test]
    fn signs() {
        let n = binder(1);
        assert!(is_nonnegative(&add(&n, &lit(3))));
        assert!(!is_nonnegative(&sub(&n, &lit(5))));
        assert!(can_be_nonnegative(&sub(&n, &lit(5))));
        assert!(!can_be_nonnegative(&sub(&sub(&lit(3), &n), &lit(5))));
        assert!(!can_be_nonnegative(&constant(Rational::int(-1))));
        assert!(can_be_nonnegative(&lit(0)));
    }
}
