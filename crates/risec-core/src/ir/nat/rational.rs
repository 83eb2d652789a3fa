//! Exact rational numbers for nat coefficients.
//!
//! `m/32` is stored as the monomial `m` with coefficient `1/32`, so `(m/32)*32` normalises back to
//! `m`. Arithmetic is checked: every operation returns `None` on overflow and callers fall back to
//! an opaque representation instead of panicking.

use num_integer::Integer;
use std::cmp::Ordering;
use std::fmt;

/// A reduced fraction `num/den` with `den > 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rational {
    num: i128,
    den: i128,
}

/// The least common multiple of `a` and `b` (0 when either is 0), `None` on overflow.
pub fn checked_lcm(a: i128, b: i128) -> Option<i128> {
    match a.gcd(&b) {
        0 => Some(0),
        g => (a / g).checked_mul(b).and_then(i128::checked_abs),
    }
}

impl Rational {
    /// Zero.
    pub const ZERO: Rational = Rational { num: 0, den: 1 };
    /// One.
    pub const ONE: Rational = Rational { num: 1, den: 1 };

    /// The integer `n`.
    pub fn int(n: i128) -> Rational {
        Rational { num: n, den: 1 }
    }

    /// `num/den` reduced; `None` when `den` is zero or the reduction overflows.
    pub fn new(num: i128, den: i128) -> Option<Rational> {
        if den == 0 {
            return None;
        }
        let g = num.gcd(&den).max(1);
        let (mut num, mut den) = (num / g, den / g);
        if den < 0 {
            num = num.checked_neg()?;
            den = den.checked_neg()?;
        }
        Some(Rational { num, den })
    }

    /// The numerator (sign carrier).
    pub fn numer(self) -> i128 {
        self.num
    }

    /// The denominator, always positive.
    pub fn denom(self) -> i128 {
        self.den
    }

    /// Whether the value is an integer.
    pub fn is_integer(self) -> bool {
        self.den == 1
    }

    /// Whether the value is zero.
    pub fn is_zero(self) -> bool {
        self.num == 0
    }

    /// Checked sum.
    pub fn checked_add(self, o: Rational) -> Option<Rational> {
        let num = self
            .num
            .checked_mul(o.den)?
            .checked_add(o.num.checked_mul(self.den)?)?;
        Rational::new(num, self.den.checked_mul(o.den)?)
    }

    /// Checked negation.
    pub fn checked_neg(self) -> Option<Rational> {
        Some(Rational {
            num: self.num.checked_neg()?,
            den: self.den,
        })
    }

    /// Checked product.
    pub fn checked_mul(self, o: Rational) -> Option<Rational> {
        Rational::new(self.num.checked_mul(o.num)?, self.den.checked_mul(o.den)?)
    }

    /// Checked power `self^e`, by squaring (at most 64 products whatever `e` is); `None` on
    /// overflow.
    pub fn checked_pow(self, mut e: u32) -> Option<Rational> {
        let (mut base, mut acc) = (self, Rational::ONE);
        while e > 0 {
            if e & 1 == 1 {
                acc = acc.checked_mul(base)?;
            }
            e >>= 1;
            if e > 0 {
                base = base.checked_mul(base)?;
            }
        }
        Some(acc)
    }

    /// Checked quotient; `None` for division by zero.
    pub fn checked_div(self, o: Rational) -> Option<Rational> {
        if o.num == 0 {
            return None;
        }
        Rational::new(self.num.checked_mul(o.den)?, self.den.checked_mul(o.num)?)
    }
}

impl PartialOrd for Rational {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rational {
    fn cmp(&self, other: &Self) -> Ordering {
        // Denominators are positive, so cross-multiplication preserves the order; fall back to
        // float comparison in the (practically unreachable) overflow case.
        match (
            self.num.checked_mul(other.den),
            other.num.checked_mul(self.den),
        ) {
            (Some(a), Some(b)) => a.cmp(&b),
            _ => (self.num as f64 / self.den as f64)
                .partial_cmp(&(other.num as f64 / other.den as f64))
                .unwrap_or(Ordering::Equal),
        }
    }
}

impl fmt::Display for Rational {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_lcm_is_none_on_overflow() {
        assert_eq!(checked_lcm(4, 6), Some(12));
        assert_eq!(checked_lcm(0, 6), Some(0));
        assert_eq!(checked_lcm(1, 1), Some(1));
        assert_eq!(checked_lcm(i128::MAX, i128::MAX - 1), None);
    }

    #[test]
    fn powers_are_by_squaring_and_checked() {
        assert_eq!(Rational::int(3).checked_pow(4), Some(Rational::int(81)));
        assert_eq!(Rational::int(7).checked_pow(0), Some(Rational::ONE));
        // Huge exponents of 0 and 1 are answered at once, not by u32::MAX products.
        assert_eq!(Rational::ONE.checked_pow(u32::MAX), Some(Rational::ONE));
        assert_eq!(Rational::ZERO.checked_pow(u32::MAX), Some(Rational::ZERO));
        assert_eq!(
            Rational::int(2).checked_pow(126),
            Some(Rational::int(1 << 126))
        );
        assert_eq!(Rational::int(2).checked_pow(127), None);
        assert_eq!(
            Rational::new(1, 2).unwrap().checked_pow(3),
            Rational::new(1, 8)
        );
    }

    #[test]
    fn reduces_and_normalises_sign() {
        let r = Rational::new(6, -8).unwrap();
        assert_eq!((r.numer(), r.denom()), (-3, 4));
        assert!(Rational::new(1, 0).is_none());
    }

    #[test]
    fn arithmetic_is_exact() {
        let a = Rational::new(1, 32).unwrap();
        assert_eq!(a.checked_mul(Rational::int(32)), Some(Rational::ONE));
        assert_eq!(a.checked_add(a).unwrap(), Rational::new(1, 16).unwrap());
        assert!(Rational::int(i128::MAX)
            .checked_add(Rational::ONE)
            .is_none());
    }
}
