//! The math primitives: `exp`, `log`, `sqrt`, `abs`, `max` and `min` on floats (lane by lane on
//! vectors), and `natToFloat`.
//!
//! An `f32` is computed in `f32` (Rust's `f32::exp` and `f32::ln` call the C library's `expf` and
//! `logf`, as the generated C does; `sqrt` and `abs` are exact). Out of their domains the
//! functions give what IEEE 754 and C give: `log` of a negative number and `sqrt` of a negative
//! number are NaN, `log 0` is -inf, `exp` overflows to inf (above about 88.7 in `f32`) and
//! underflows to 0. `max a b` is `a` when `a > b` or `b` is NaN, else `b` (and `min` with `<`):
//! a NaN operand gives the other operand (C's `fmax`), and of two zeros of different signs the
//! second is returned. The generated C computes exactly this.

use super::prims::Site;
use super::value::Value;
use super::EvalError;
use crate::ir::primitive::Primitive;
use crate::ir::types::{ScalarType, TypeNode};

fn type_err(prim: Primitive, expected: &str, found: String) -> EvalError {
    EvalError::Type {
        context: prim.name().into(),
        expected: expected.into(),
        found,
    }
}

/// `exp`, `log`, `sqrt` or `abs` of a float, or lane by lane of a vector of floats.
pub(crate) fn unary(prim: Primitive, a: &Value) -> Result<Value, EvalError> {
    use Primitive::*;
    macro_rules! apply {
        ($x:expr) => {
            match prim {
                Exp => $x.exp(),
                Log => $x.ln(),
                Sqrt => $x.sqrt(),
                _ => $x.abs(),
            }
        };
    }
    Ok(match a {
        Value::F32(x) => Value::F32(apply!(x)),
        Value::F64(x) => Value::F64(apply!(x)),
        Value::Vector(xs) => Value::Vector(
            xs.iter()
                .map(|x| unary(prim, x))
                .collect::<Result<Vec<_>, _>>()?
                .into(),
        ),
        other => {
            return Err(type_err(
                prim,
                "a float or a vector of floats",
                other.describe(),
            ))
        }
    })
}

/// `max a b` or `min a b` of two floats of the same type, or lane by lane of two vectors.
pub(crate) fn extremum(prim: Primitive, a: &Value, b: &Value) -> Result<Value, EvalError> {
    macro_rules! pick {
        ($x:expr, $y:expr) => {{
            let first = if prim == Primitive::Max {
                $x > $y
            } else {
                $x < $y
            };
            if first || $y.is_nan() {
                $x
            } else {
                $y
            }
        }};
    }
    Ok(match (a, b) {
        (Value::F32(x), Value::F32(y)) => Value::F32(pick!(*x, *y)),
        (Value::F64(x), Value::F64(y)) => Value::F64(pick!(*x, *y)),
        (Value::Vector(xs), Value::Vector(ys)) => {
            if xs.len() != ys.len() {
                return Err(EvalError::LengthMismatch {
                    prim: prim.name(),
                    left: xs.len() as u64,
                    right: ys.len() as u64,
                });
            }
            Value::Vector(
                xs.iter()
                    .zip(ys.iter())
                    .map(|(x, y)| extremum(prim, x, y))
                    .collect::<Result<Vec<_>, _>>()?
                    .into(),
            )
        }
        _ => {
            return Err(type_err(
                prim,
                "two floats of the same type (or two vectors of them)",
                format!("{} and {}", a.describe(), b.describe()),
            ))
        }
    })
}

/// `natToFloat k`: the size `k` as the float type of the node's result (rounded to the nearest
/// float when it has more digits than the type holds).
pub(crate) fn nat_to_float(site: &Site, k: u64) -> Result<Value, EvalError> {
    let prim = Primitive::NatToFloat;
    let TypeNode::NatFun(result) = site.ty.get() else {
        return Err(type_err(
            prim,
            "a dependent function type",
            format!("a node of type {}", site.ty),
        ));
    };
    match result.get() {
        TypeNode::Scalar(ScalarType::F32) => Ok(Value::F32(k as f32)),
        TypeNode::Scalar(ScalarType::F64) => Ok(Value::F64(k as f64)),
        _ => Err(type_err(
            prim,
            "an f32 or f64 result",
            format!("a node of type {}", site.ty),
        )),
    }
}
