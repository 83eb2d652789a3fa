//! Seeded random data values and sizes, for property testing rewrite rules and generated code.
//!
//! Floats are drawn as multiples of 1/32 in `[-1, 1)`: products and sums of a few thousand of
//! them are exact in `f32`, so two ways of associating a reduction usually agree bit for bit,
//! and where they do not, [`Value::approx_eq`] with a small tolerance settles it. The `_with`
//! functions draw scalars from the wider classes of [`super::sampling`] instead (large
//! magnitudes, zeros of both signs, the neighbourhoods of a rule's constants, …), as the checks
//! of rewrite rules do.

use super::program_signature;
use super::sampling::Scalars;
use super::slice_lookup;
use super::value::Value;
use super::{env_lookup, eval_nat_in, EvalError, MAX_ELEMENTS};
use crate::core::TypedProgram;
use crate::ir::types::{ScalarType, Type, TypeNode};

/// A small, fast, seeded pseudo-random number generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator with the given seed; equal seeds give equal sequences.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number uniformly distributed in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        // Multiply-shift: unbiased enough for testing and never loops.
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A number uniformly distributed in `lo..=hi` (`lo` when `hi < lo`).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = (hi as i128 - lo as i128 + 1) as u128;
        if span > u64::MAX as u128 {
            return self.next_u64() as i64;
        }
        (lo as i128 + self.below(span as u64) as i128) as i64
    }

    /// A fair coin.
    pub fn coin(&mut self) -> bool {
        self.next_u64() >> 63 == 1
    }

    /// A float in `[-1, 1)`, a multiple of 1/32.
    pub fn small_float(&mut self) -> f64 {
        self.range(-32, 31) as f64 / 32.0
    }
}

/// A random data value of type `ty`. Sizes in `ty` are evaluated with `nat_env`, indexed by
/// De Bruijn index: `nat_env[0]` is nat index 0, the innermost binder (for a program's
/// parameter types that is the *last* size parameter, so pass the program's sizes reversed, or
/// use [`random_args`]). Floats are multiples of
/// 1/32 in `[-1, 1)`, integers lie in `-8..=8`, `idx[n]` values in `0..n`. Function types,
/// `idx[0]` and arrays longer than [`MAX_ELEMENTS`] are errors.
pub fn random_value(ty: &Type, nat_env: &[u64], rng: &mut Rng) -> Result<Value, EvalError> {
    random_value_with(ty, nat_env, rng, &mut Scalars::small())
}

/// [`random_value`] with the scalars drawn by `scalars` (booleans and indices as there).
pub fn random_value_with(
    ty: &Type,
    nat_env: &[u64],
    rng: &mut Rng,
    scalars: &mut Scalars,
) -> Result<Value, EvalError> {
    let lookup = env_lookup(nat_env);
    let count = value_count(ty, &lookup)?;
    if count > MAX_ELEMENTS {
        return Err(EvalError::TooLarge {
            prim: "random_value",
            len: count,
        });
    }
    gen(ty, &lookup, rng, scalars, &mut 0)
}

/// How many scalars (and indices) a value of `ty` holds, saturating at `u64::MAX`.
fn value_count(ty: &Type, lookup: &dyn Fn(u32) -> Option<u64>) -> Result<u64, EvalError> {
    Ok(match ty.get() {
        TypeNode::Array(n, elem) | TypeNode::Vector(n, elem) => {
            eval_nat_in(n, lookup)?.saturating_mul(value_count(elem, lookup)?.max(1))
        }
        TypeNode::Pair(a, b) => value_count(a, lookup)?.saturating_add(value_count(b, lookup)?),
        _ => 1,
    })
}

fn gen(
    ty: &Type,
    lookup: &dyn Fn(u32) -> Option<u64>,
    rng: &mut Rng,
    scalars: &mut Scalars,
    budget: &mut u64,
) -> Result<Value, EvalError> {
    *budget += 1;
    if *budget > MAX_ELEMENTS {
        return Err(EvalError::TooLarge {
            prim: "random_value",
            len: *budget,
        });
    }
    Ok(match ty.get() {
        TypeNode::Scalar(s) => match s {
            ScalarType::F32 => Value::F32(scalars.f32(rng)),
            ScalarType::F64 => Value::F64(scalars.f64(rng)),
            ScalarType::I32 => Value::I32(scalars.i32(rng)),
            ScalarType::I64 => Value::I64(scalars.i64(rng)),
            ScalarType::Bool => Value::Bool(rng.coin()),
        },
        TypeNode::Idx(n) => {
            let n = eval_nat_in(n, lookup)?;
            if n == 0 {
                return Err(EvalError::NoValue { ty: ty.to_string() });
            }
            Value::Idx(rng.below(n))
        }
        TypeNode::Array(n, elem) | TypeNode::Vector(n, elem) => {
            let n = eval_nat_in(n, lookup)?;
            if n > MAX_ELEMENTS {
                return Err(EvalError::TooLarge {
                    prim: "random_value",
                    len: n,
                });
            }
            let elems = (0..n)
                .map(|_| gen(elem, lookup, rng, scalars, budget))
                .collect::<Result<Vec<_>, _>>()?;
            if matches!(ty.get(), TypeNode::Array(..)) {
                Value::Array(elems.into())
            } else {
                Value::Vector(elems.into())
            }
        }
        TypeNode::Pair(a, b) => Value::pair(
            gen(a, lookup, rng, scalars, budget)?,
            gen(b, lookup, rng, scalars, budget)?,
        ),
        TypeNode::Fun(..) | TypeNode::NatFun(_) | TypeNode::Meta(..) => {
            return Err(EvalError::NoValue { ty: ty.to_string() })
        }
    })
}

/// Whether every size in a data type evaluates, and no `idx[0]` occurs (so values exist).
fn sizes_ok(ty: &Type, lookup: &dyn Fn(u32) -> Option<u64>) -> bool {
    match ty.get() {
        TypeNode::Scalar(_) => true,
        TypeNode::Idx(n) => eval_nat_in(n, lookup).is_ok_and(|n| n > 0),
        TypeNode::Array(n, e) | TypeNode::Vector(n, e) => {
            eval_nat_in(n, lookup).is_ok_and(|n| n <= MAX_ELEMENTS) && sizes_ok(e, lookup)
        }
        TypeNode::Pair(a, b) | TypeNode::Fun(a, b) => sizes_ok(a, lookup) && sizes_ok(b, lookup),
        TypeNode::NatFun(_) | TypeNode::Meta(..) => true,
    }
}

/// Random sizes for a program's size parameters, outermost first, each in `1..=max`, such that
/// every divisibility fact holds and every size in the parameter and result types evaluates to
/// a natural number (half of the draws are powers of two, which satisfy most facts). Errors
/// when 1000 draws find none.
pub fn random_sizes(p: &TypedProgram, max: u64, rng: &mut Rng) -> Result<Vec<u64>, EvalError> {
    let max = max.max(1);
    let (params, result) = program_signature(p)?;
    let pow2: Vec<u64> = (0..63)
        .map(|e| 1u64 << e)
        .take_while(|&v| v <= max)
        .collect();
    let mut last_err = None;
    for _ in 0..1000 {
        let sizes: Vec<u64> = (0..p.size_params.len())
            .map(|_| {
                if rng.coin() {
                    pow2[rng.below(pow2.len() as u64) as usize]
                } else {
                    1 + rng.below(max)
                }
            })
            .collect();
        let ok = {
            let lookup = slice_lookup(&sizes);
            match p
                .facts
                .iter()
                .try_for_each(|f| eval_nat_in(f, &lookup).map(|_| ()))
            {
                Err(e) => {
                    last_err = Some(e);
                    false
                }
                Ok(()) => params.iter().chain([&result]).all(|t| sizes_ok(t, &lookup)),
            }
        };
        if ok {
            return Ok(sizes);
        }
    }
    Err(last_err.unwrap_or_else(|| EvalError::NoValue {
        ty: format!("sizes for {} up to {max}", p.name),
    }))
}

/// Random arguments for every value parameter of a program, at `sizes` given in the order of
/// the program's size parameters (outermost first, as for [`super::run_program`]).
pub fn random_args(
    p: &TypedProgram,
    sizes: &[u64],
    rng: &mut Rng,
) -> Result<Vec<Value>, EvalError> {
    random_args_with(p, sizes, rng, &mut Scalars::small())
}

/// [`random_args`] with the scalars drawn by `scalars` (see [`super::sampling`]).
pub fn random_args_with(
    p: &TypedProgram,
    sizes: &[u64],
    rng: &mut Rng,
    scalars: &mut Scalars,
) -> Result<Vec<Value>, EvalError> {
    let (params, _) = program_signature(p)?;
    let nat_env: Vec<u64> = sizes.iter().rev().copied().collect();
    params
        .iter()
        .map(|t| random_value_with(t, &nat_env, rng, scalars))
        .collect()
}
