//! The scalars that property checks draw: classes of values and schedules that mix them.
//!
//! Checking a rewrite on inputs in `[-1, 1)` only misses rules that are wrong for large values
//! (`(x + 1e8) - 1e8 =>> x` in `f32`), at thresholds (`select (lt x 1.0) a b =>> a`), at zeros of
//! either sign (`1.0 / (x + 0.0) =>> 1.0 / x`) or for integers that wrap. A [`Scalars`] draws each
//! scalar from one of a few [`ScalarClass`]es, among them the neighbourhoods of the constants the
//! rule itself writes ([`Constants`]); a [`Schedule`] gives the classes of each trial, so that a
//! check is deterministic for its seed. Both the check of user rules (`src/sketch/validate`) and
//! the validation of the rule library (`src/eqsat/rules/validate.rs`) draw their inputs here,
//! through [`super::random::random_args_with`].
//!
//! Every value drawn is finite: a rule is checked for finite values of its variables.

use super::random::Rng;
use crate::ir::types::ScalarType;

/// A class of scalar values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarClass {
    /// Floats that are multiples of 1/32 in `[-1, 1)`, integers in `-8..=8`: sums and products
    /// of a few are exact (the values checks drew before there were classes).
    Small,
    /// Whole numbers up to `2^12` in magnitude (floats too): exact in sums and products of two.
    Integral,
    /// Large magnitudes with random mantissas: `2^10` to `2^31` for `f32` (whose spacing there is
    /// up to 256), to `2^61` for `f64`; integers from `2^10` to the type's limits, a quarter of
    /// them within 4 of the least or greatest value (so that sums and products wrap).
    Large,
    /// Zeros of both signs, `±1`, `±2`, `±1/2` and `±2^-40`; for integers `0`, `±1`, `±2` and
    /// the type's least and greatest values.
    Special,
    /// Around a constant `c` of the rule: `c`, `-c`, `c ± 1`, `c`'s neighbours in the type's
    /// precision (just below and above, so that comparisons with `c` flip), `c·(1 ± 2^-10)`,
    /// `c/2`, `2c`, `0`, and half-way to another constant. Without constants, around `1`.
    Constants,
    /// A value drawn before in the same trial (of the same kind, float or integer), or (three
    /// times out of four) its negation: ties for comparisons, exact cancellation for sums
    /// (`(a + b) + c` with `b = -a`). Small when nothing was drawn yet.
    Repeat,
}

impl ScalarClass {
    /// Every class.
    pub const ALL: [ScalarClass; 6] = [
        ScalarClass::Small,
        ScalarClass::Integral,
        ScalarClass::Large,
        ScalarClass::Special,
        ScalarClass::Constants,
        ScalarClass::Repeat,
    ];
}

/// The scalar constants a rule (or a program) writes, whose neighbourhoods are drawn.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Constants {
    /// Float constants (as written, whatever their type).
    pub floats: Vec<f64>,
    /// Integer constants.
    pub ints: Vec<i64>,
}

impl Constants {
    /// Adds a float constant (once; NaN and infinities are not constants one can write).
    pub fn add_float(&mut self, v: f64) {
        if v.is_finite() && !self.floats.iter().any(|w| w.to_bits() == v.to_bits()) {
            self.floats.push(v);
        }
    }

    /// Adds an integer constant (once).
    pub fn add_int(&mut self, v: i64) {
        if !self.ints.contains(&v) {
            self.ints.push(v);
        }
    }

    /// Adds the constants of a core term's literals.
    pub fn add_literals(&mut self, e: &crate::core::Expr) {
        use crate::core::{ExprKind, Literal};
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            match &e.kind {
                ExprKind::Literal(Literal::F32(b)) => self.add_float(f32::from_bits(*b) as f64),
                ExprKind::Literal(Literal::F64(b)) => self.add_float(f64::from_bits(*b)),
                ExprKind::Literal(Literal::I32(v)) => self.add_int(*v as i64),
                ExprKind::Literal(Literal::I64(v)) => self.add_int(*v),
                ExprKind::Lambda(b) | ExprKind::NatLambda(b) | ExprKind::NatApp(b, _) => {
                    stack.push(b)
                }
                ExprKind::App(f, a) => {
                    stack.push(f);
                    stack.push(a);
                }
                _ => {}
            }
        }
    }
}

/// Which classes the trials of a check draw from.
// Only the library's validation (tests, `testkit`) picks a schedule other than the default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schedule {
    /// Every trial draws [`ScalarClass::Small`] values (the behaviour of [`super::random`]).
    Small,
    /// Trial 0 draws small values (a counterexample there reads best); the others cycle through
    /// the classes alone and mixed (each scalar picks its class): see [`WIDE`].
    #[default]
    Wide,
    /// For rules that reassociate floating-point arithmetic, right only up to rounding: small
    /// values, whole numbers up to 16 and special values other than `±2^-40`, whose sums (and
    /// products of a few) stay exact and far from overflow, so that neither cancellation nor
    /// overflow can magnify rounding differences.
    ExactSums,
}

/// The classes of the trials of [`Schedule::Wide`], cycled; an entry of several classes lets
/// each scalar pick one. Classes of few values (constants, special values) are mixed with
/// others, so that two inputs are seldom equal by chance (which hides `a` against `b`).
pub const WIDE: &[&[ScalarClass]] = {
    use ScalarClass::*;
    &[
        &[Small],
        &[Constants, Small],
        &ScalarClass::ALL,
        &[Integral, Repeat],
        &[Large],
        &[Special, Small],
        &[Constants, Integral, Repeat],
        &ScalarClass::ALL,
        &[Large, Small, Repeat, Repeat],
        &[Constants, Special, Large],
        &[Constants, Small],
        &ScalarClass::ALL,
        &[Small, Large, Repeat, Repeat],
        &[Special, Constants, Repeat],
        &[Integral, Large],
    ]
};

/// The classes of the trials of [`Schedule::ExactSums`], cycled.
pub const EXACT_SUMS: &[&[ScalarClass]] = {
    use ScalarClass::*;
    &[
        &[Small],
        &[Integral],
        &[Special],
        &[Small, Integral, Special],
    ]
};

impl Schedule {
    /// How trial `trial` draws its scalars, around `constants`.
    pub fn scalars(self, trial: usize, constants: &Constants) -> Scalars {
        let classes: &[ScalarClass] = match self {
            Schedule::Small => &[ScalarClass::Small],
            Schedule::Wide => WIDE[trial % WIDE.len()],
            Schedule::ExactSums => EXACT_SUMS[trial % EXACT_SUMS.len()],
        };
        Scalars {
            modest: self == Schedule::ExactSums,
            ..Scalars::new(classes, constants)
        }
    }
}

/// How the scalars of one trial are drawn: each picks one of `classes` at random.
#[derive(Clone, Debug)]
pub struct Scalars {
    classes: Vec<ScalarClass>,
    floats: Vec<f64>,
    ints: Vec<i64>,
    /// The floats and the integers drawn so far (for [`ScalarClass::Repeat`]).
    drawn: (Vec<f64>, Vec<i64>),
    /// Whole numbers up to 16 only, and no tiny special values ([`Schedule::ExactSums`]).
    modest: bool,
}

impl Default for Scalars {
    fn default() -> Scalars {
        Scalars::small()
    }
}

impl Scalars {
    /// Small values only: multiples of 1/32 in `[-1, 1)`, integers in `-8..=8`.
    pub fn small() -> Scalars {
        Scalars::new(&[ScalarClass::Small], &Constants::default())
    }

    /// Scalars of the given classes (at least one: none means small), around `constants`.
    pub fn new(classes: &[ScalarClass], constants: &Constants) -> Scalars {
        let classes = if classes.is_empty() {
            vec![ScalarClass::Small]
        } else {
            classes.to_vec()
        };
        let floats = if constants.floats.is_empty() {
            vec![1.0]
        } else {
            constants.floats.clone()
        };
        let ints = if constants.ints.is_empty() {
            vec![1]
        } else {
            constants.ints.clone()
        };
        Scalars {
            classes,
            floats,
            ints,
            drawn: (Vec::new(), Vec::new()),
            modest: false,
        }
    }

    /// The classes drawn from.
    pub fn classes(&self) -> &[ScalarClass] {
        &self.classes
    }

    fn class(&self, rng: &mut Rng) -> ScalarClass {
        match self.classes.as_slice() {
            [one] => *one,
            many => many[rng.below(many.len() as u64) as usize],
        }
    }

    /// A random scalar of a numeric type `s` as `f64` (an integer for integer types; `bool`
    /// is not numeric: use [`Rng::coin`]).
    fn number(&mut self, s: ScalarType, rng: &mut Rng) -> Number {
        let class = self.class(rng);
        let int = matches!(s, ScalarType::I32 | ScalarType::I64);
        let earlier = if int {
            self.drawn.1.len()
        } else {
            self.drawn.0.len()
        };
        if class == ScalarClass::Repeat && earlier > 0 {
            let i = rng.below(earlier as u64) as usize;
            // Negations (cancellations) three times out of four, ties the fourth.
            let flip = rng.below(4) != 0;
            return if int {
                let v = self.drawn.1[i];
                Number::Int(if flip { v.wrapping_neg() } else { v })
            } else {
                let v = self.drawn.0[i];
                Number::Float(if flip { -v } else { v })
            };
        }
        let v = match s {
            ScalarType::I32 => Number::Int(self.int(class, 32, rng)),
            ScalarType::I64 => Number::Int(self.int(class, 64, rng)),
            ScalarType::F64 => Number::Float(self.float(class, false, rng)),
            _ => Number::Float(self.float(class, true, rng)),
        };
        // Only a trial that may repeat keeps its draws.
        if self.classes.contains(&ScalarClass::Repeat) {
            match v {
                Number::Int(v) => self.drawn.1.push(v),
                Number::Float(v) => self.drawn.0.push(v),
            }
        }
        v
    }

    /// A random `f32`.
    pub fn f32(&mut self, rng: &mut Rng) -> f32 {
        match self.number(ScalarType::F32, rng) {
            Number::Float(v) => v as f32,
            Number::Int(v) => v as f32,
        }
    }

    /// A random `f64`.
    pub fn f64(&mut self, rng: &mut Rng) -> f64 {
        match self.number(ScalarType::F64, rng) {
            Number::Float(v) => v,
            Number::Int(v) => v as f64,
        }
    }

    /// A random `i32`.
    pub fn i32(&mut self, rng: &mut Rng) -> i32 {
        match self.number(ScalarType::I32, rng) {
            Number::Int(v) => v as i32,
            Number::Float(v) => v as i32,
        }
    }

    /// A random `i64`.
    pub fn i64(&mut self, rng: &mut Rng) -> i64 {
        match self.number(ScalarType::I64, rng) {
            Number::Int(v) => v,
            Number::Float(v) => v as i64,
        }
    }

    /// A float of `class`, representable in `f32` when `single`.
    fn float(&self, class: ScalarClass, single: bool, rng: &mut Rng) -> f64 {
        let round = |v: f64| if single { v as f32 as f64 } else { v };
        match class {
            ScalarClass::Small | ScalarClass::Repeat => rng.small_float(),
            ScalarClass::Integral => {
                let k = rng.range(1, if self.modest { 4 } else { 12 });
                rng.range(-(1 << k), 1 << k) as f64
            }
            ScalarClass::Large => {
                let top = if single { 30 } else { 60 };
                let e = rng.range(10, top) as i32;
                let mantissa = 1.0 + rng.below(1 << 52) as f64 / (1u64 << 52) as f64;
                let v = mantissa * 2f64.powi(e);
                round(if rng.coin() { -v } else { v })
            }
            ScalarClass::Special => {
                let tiny = 1.0 / (1u64 << 40) as f64;
                let special = [
                    0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, tiny, -tiny,
                ];
                let n = if self.modest { 10 } else { special.len() };
                special[rng.below(n as u64) as usize]
            }
            ScalarClass::Constants => {
                let c = round(self.floats[rng.below(self.floats.len() as u64) as usize]);
                let (below, above) = if single {
                    let c = c as f32;
                    (c.next_down() as f64, c.next_up() as f64)
                } else {
                    (c.next_down(), c.next_up())
                };
                let other = round(self.floats[rng.below(self.floats.len() as u64) as usize]);
                let v = match rng.below(13) {
                    // Between two constants (a threshold between them flips there).
                    12 => c + (other - c) / 2.0,
                    0 | 1 => c,
                    2 => -c,
                    3 => c + 1.0,
                    4 => c - 1.0,
                    5 | 6 => below,
                    7 | 8 => above,
                    9 => c * (1.0 + 1.0 / 1024.0),
                    10 => c * (1.0 - 1.0 / 1024.0),
                    _ => match rng.below(3) {
                        0 => c / 2.0,
                        1 => c * 2.0,
                        _ => 0.0,
                    },
                };
                let v = round(v);
                if v.is_finite() {
                    v
                } else {
                    c
                }
            }
        }
    }

    /// An integer of `class` that fits in `bits` (32 or 64) bits.
    fn int(&self, class: ScalarClass, bits: u32, rng: &mut Rng) -> i64 {
        let (min, max) = if bits == 32 {
            (i32::MIN as i64, i32::MAX as i64)
        } else {
            (i64::MIN, i64::MAX)
        };
        let fit = |v: i64| if bits == 32 { v as i32 as i64 } else { v };
        match class {
            ScalarClass::Small | ScalarClass::Repeat => rng.range(-8, 8),
            ScalarClass::Integral => {
                let k = rng.range(1, if self.modest { 4 } else { 12 });
                rng.range(-(1 << k), 1 << k)
            }
            // A quarter of them next to the type's limits, where sums and products wrap.
            ScalarClass::Large if rng.below(4) == 0 => {
                let d = rng.below(4) as i64;
                if rng.coin() {
                    max - d
                } else {
                    min + d
                }
            }
            ScalarClass::Large => {
                let e = rng.range(10, bits as i64 - 2) as u32;
                let v = (1i64 << e) + rng.below(1u64 << e) as i64;
                if rng.coin() {
                    -v
                } else {
                    v
                }
            }
            ScalarClass::Special => {
                let n = if self.modest { 5 } else { 7 };
                [0, 1, -1, 2, -2, min, max][rng.below(n) as usize]
            }
            ScalarClass::Constants => {
                let c = fit(self.ints[rng.below(self.ints.len() as u64) as usize]);
                fit(match rng.below(7) {
                    0 | 1 => c,
                    2 => c.wrapping_neg(),
                    3 => c.wrapping_add(1),
                    4 => c.wrapping_sub(1),
                    5 => c / 2,
                    _ => c.wrapping_mul(2),
                })
            }
        }
    }
}

/// A number drawn for some scalar type.
enum Number {
    Float(f64),
    Int(i64),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(classes: &[ScalarClass], constants: &Constants, n: usize) -> Vec<f32> {
        let mut s = Scalars::new(classes, constants);
        let mut rng = Rng::new(5);
        (0..n).map(|_| s.f32(&mut rng)).collect()
    }

    #[test]
    fn small_draws_are_the_old_ones() {
        let mut s = Scalars::small();
        let (mut a, mut b) = (Rng::new(9), Rng::new(9));
        for _ in 0..100 {
            assert_eq!(s.f32(&mut a), b.small_float() as f32);
            assert_eq!(s.i64(&mut a), b.range(-8, 8));
        }
    }

    #[test]
    fn constants_are_drawn_with_their_neighbours() {
        let c = Constants {
            floats: vec![1.0],
            ints: vec![],
        };
        let vs = draws(&[ScalarClass::Constants], &c, 400);
        for want in [1.0f32, -1.0, 2.0, 0.0, 1.0f32.next_up(), 1.0f32.next_down()] {
            assert!(vs.contains(&want), "{want} not drawn: {vs:?}");
        }
    }

    #[test]
    fn wide_draws_cover_large_negative_zero_and_integral_values() {
        let vs = draws(&ScalarClass::ALL, &Constants::default(), 2000);
        assert!(vs.iter().all(|v| v.is_finite()));
        assert!(vs.iter().any(|v| v.abs() > 1e8));
        assert!(vs.iter().any(|v| *v == 0.0 && v.is_sign_negative()));
        assert!(vs
            .iter()
            .any(|v| v.fract() == 0.0 && v.abs() > 100.0 && v.abs() < 5000.0));
        let mut s = Scalars::new(&[ScalarClass::Large], &Constants::default());
        let mut rng = Rng::new(1);
        let ints: Vec<i32> = (0..200).map(|_| s.i32(&mut rng)).collect();
        assert!(ints.iter().any(|v| v.unsigned_abs() > 1 << 30), "{ints:?}");
        assert!(
            ints.contains(&i32::MAX) || ints.contains(&i32::MIN),
            "{ints:?}"
        );
        // Repeats: ties and negations of earlier draws.
        let vs = draws(
            &[ScalarClass::Large, ScalarClass::Repeat],
            &Constants::default(),
            50,
        );
        assert!(vs
            .iter()
            .enumerate()
            .any(|(i, v)| vs[..i].contains(v) || vs[..i].contains(&-v)));
    }

    #[test]
    fn schedules_are_deterministic_and_start_small() {
        let c = Constants::default();
        assert_eq!(
            Schedule::Wide.scalars(0, &c).classes(),
            &[ScalarClass::Small]
        );
        assert_eq!(
            Schedule::Wide.scalars(2, &c).classes(),
            Schedule::Wide.scalars(2 + WIDE.len(), &c).classes()
        );
        let mut rng = Rng::new(3);
        for t in 0..EXACT_SUMS.len() {
            let mut s = Schedule::ExactSums.scalars(t, &c);
            assert!(!s.classes().contains(&ScalarClass::Large));
            assert!(!s.classes().contains(&ScalarClass::Constants));
            for _ in 0..100 {
                let v = s.f32(&mut rng);
                assert!(
                    v == 0.0 || (v.abs() >= 1.0 / 32.0 && v.abs() <= 16.0),
                    "{v}"
                );
                assert!(s.i32(&mut rng).abs() <= 16);
            }
        }
    }
}
