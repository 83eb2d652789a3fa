//! Whether a size can exist at all: a divisibility fact `n + 1/2` no natural `n` makes whole,
//! a difference `3 - n - 5` that is negative for every `n`. Such sizes are errors in programs
//! and make a rewrite inapplicable, rather than something to assume.
//!
//! Atoms are taken to range over all natural numbers (opaque operations included), so "cannot"
//! answers are sound: no assignment of the real values can do better.

use super::{checked_lcm, Monomial, Nat, NatAtom};

/// The largest number of residue assignments [`can_be_whole`] tries before giving up and
/// answering "maybe" (true).
const MAX_ASSIGNMENTS: u64 = 1 << 16;

/// Whether some natural values of its atoms make `n` a whole number. `n` with denominator
/// lcm `d` is whole iff `d·n ≡ 0 (mod d)`, which depends on the atoms only modulo `d`, so the
/// residues are tried; with too many of them the answer is true (it may be).
pub fn can_be_whole(n: &Nat) -> bool {
    let d = n
        .terms()
        .iter()
        .map(|(_, c)| c.denom())
        .fold(1i128, |a, b| checked_lcm(a, b).unwrap_or(0));
    if d == 1 {
        return true;
    }
    if d == 0 {
        return true; // the denominators overflow: give the benefit of the doubt
    }
    let mut atoms: Vec<&NatAtom> = n
        .terms()
        .iter()
        .flat_map(|(m, _)| m.factors().iter().map(|(a, _)| a))
        .collect();
    atoms.sort();
    atoms.dedup();
    let combos = (d as u64).checked_pow(atoms.len() as u32);
    if combos.is_none_or(|c| c > MAX_ASSIGNMENTS) {
        return true;
    }
    // d·c for every term: integers, since d is a multiple of every denominator.
    let scaled: Vec<(&Monomial, i128)> = n
        .terms()
        .iter()
        .map(|(m, c)| (m, c.numer() * (d / c.denom())))
        .collect();
    let mut residues = vec![0i128; atoms.len()];
    loop {
        let value = scaled.iter().fold(0i128, |acc, (m, k)| {
            let term = m.factors().iter().fold(k.rem_euclid(d), |t, (a, p)| {
                let r = residues[atoms.binary_search(&a).unwrap_or(0)];
                (0..*p).fold(t, |t, _| (t * r).rem_euclid(d))
            });
            (acc + term).rem_euclid(d)
        });
        if value == 0 {
            return true;
        }
        // The next assignment, as a counter in base d.
        let mut i = 0;
        loop {
            if i == residues.len() {
                return false;
            }
            residues[i] += 1;
            if residues[i] < d {
                break;
            }
            residues[i] = 0;
            i += 1;
        }
    }
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
    use crate::ir::nat::{add, binder, constant, div, lit, mul, sub, Rational};

    #[test]
    fn whole_numbers_that_cannot_be() {
        let n = binder(1);
        // (2n+1)/2 = n + 1/2: never whole.
        let half = div(&add(&mul(&lit(2), &n), &lit(1)), &lit(2));
        assert!(!can_be_whole(&half));
        assert!(can_be_whole(&div(&n, &lit(32))));
        assert!(!can_be_whole(&div(&lit(2), &lit(3))));
        assert!(can_be_whole(&div(&lit(6), &lit(3))));
        // n(n+1)/2 is always whole; n(n+1)/2 + 1/2 never is.
        let tri = div(&mul(&n, &add(&n, &lit(1))), &lit(2));
        assert!(can_be_whole(&tri));
        assert!(!can_be_whole(&add(&tri, &div(&lit(1), &lit(2)))));
        // Two atoms: (m + n)/2 can be; (2m + 4n + 1)/4 cannot.
        let m = binder(2);
        assert!(can_be_whole(&div(&add(&m, &n), &lit(2))));
        let odd = add(&add(&mul(&lit(2), &m), &mul(&lit(4), &n)), &lit(1));
        assert!(!can_be_whole(&div(&odd, &lit(4))));
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
