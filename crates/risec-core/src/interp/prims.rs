//! The semantics of every primitive.

use super::eval::{apply, apply2, eval_size};
use super::value::Value;
use super::{EvalError, MAX_ELEMENTS};
use crate::ir::primitive::Primitive;
use crate::ir::types::{Type, TypeNode};
use std::rc::Rc;

/// Where a primitive is applied: the type of its node and the nat environment of that node,
/// to evaluate sizes that cannot be read off the arguments.
pub(crate) struct Site<'a> {
    pub ty: &'a Type,
    pub nat_env: &'a dyn Fn(u32) -> Option<u64>,
}

impl Site<'_> {
    /// The length of the array (or the lane count of the vector) that the primitive returns,
    /// from its type instantiated at the given size arguments.
    fn result_len(&self, prim: Primitive, nats: &[u64]) -> Result<u64, EvalError> {
        let missing = |what: &str| EvalError::Type {
            context: prim.name().into(),
            expected: what.into(),
            found: format!("a node of type {}", self.ty),
        };
        let mut ty = self.ty.clone();
        for _ in nats {
            ty = match ty.get() {
                TypeNode::NatFun(b) => b.clone(),
                _ => return Err(missing("a dependent function type")),
            };
        }
        for _ in 0..prim.value_arity() {
            ty = match ty.get() {
                TypeNode::Fun(_, r) => r.clone(),
                _ => return Err(missing("a function type")),
            };
        }
        let lookup = |i: u32| match nats.len().checked_sub(i as usize + 1) {
            Some(k) => Some(nats[k]),
            None => (self.nat_env)(i - nats.len() as u32),
        };
        match ty.get() {
            TypeNode::Array(n, _) | TypeNode::Vector(n, _) => eval_size(n, &lookup),
            _ => Err(missing("an array or vector result type")),
        }
    }
}

fn type_err(prim: Primitive, expected: &str, found: &Value) -> EvalError {
    EvalError::Type {
        context: prim.name().into(),
        expected: expected.into(),
        found: found.describe(),
    }
}

fn shape(prim: Primitive, message: String) -> EvalError {
    EvalError::Shape {
        prim: prim.name(),
        message,
    }
}

fn array(prim: Primitive, v: &Value) -> Result<&Rc<[Value]>, EvalError> {
    match v {
        Value::Array(xs) => Ok(xs),
        other => Err(type_err(prim, "an array", other)),
    }
}

fn check_len(prim: Primitive, len: u64) -> Result<usize, EvalError> {
    if len > MAX_ELEMENTS {
        return Err(EvalError::TooLarge {
            prim: prim.name(),
            len,
        });
    }
    super::memory::check(len)?;
    Ok(len as usize)
}

fn arr(v: Vec<Value>) -> Value {
    super::memory::account(v.len());
    Value::Array(v.into())
}

/// Applies `prim` to all of its size arguments `nats` and value arguments `args`. The
/// primitives that need more than a few lines have a function each below.
pub(crate) fn call(
    prim: Primitive,
    site: &Site,
    nats: &[u64],
    args: &[Value],
) -> Result<Value, EvalError> {
    use Primitive::*;
    if nats.len() != prim.nat_arity() || args.len() != prim.value_arity() {
        return Err(EvalError::Type {
            context: prim.name().into(),
            expected: format!(
                "{} size and {} value arguments",
                prim.nat_arity(),
                prim.value_arity()
            ),
            found: format!("{} and {}", nats.len(), args.len()),
        });
    }
    match prim {
        Map | MapSeq | MapSeqUnroll | MapPar => map(prim, &args[0], &args[1]),
        Reduce | ReduceSeq | ReduceSeqUnroll => {
            let f = &args[0];
            let mut acc = args[1].clone();
            for x in array(prim, &args[2])?.iter() {
                acc = apply2(f, acc, x.clone())?;
            }
            Ok(acc)
        }
        Zip => zip(prim, &args[0], &args[1]),
        Unzip => unzip(prim, &args[0]),
        Fst | Snd => match &args[0] {
            Value::Pair(p) => Ok(if prim == Fst {
                p.0.clone()
            } else {
                p.1.clone()
            }),
            other => Err(type_err(prim, "a pair", other)),
        },
        MakePair => Ok(Value::pair(args[0].clone(), args[1].clone())),
        Split => split(prim, site, nats, &args[0]),
        Join => {
            let xss = array(prim, &args[0])?;
            let mut out = Vec::new();
            for xs in xss.iter() {
                out.extend(array(prim, xs)?.iter().cloned());
            }
            Ok(arr(out))
        }
        Transpose => transpose(prim, site, nats, &args[0]),
        Slide => slide(prim, site, nats, &args[0]),
        Pad => pad(prim, nats, &args[0], &args[1]),
        PadClamp => pad_clamp(prim, nats, &args[0]),
        Take | Drop => take_drop(prim, nats[0], &args[0]),
        Generate => {
            let n = check_len(prim, site.result_len(prim, nats)?)?;
            let f = &args[0];
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                out.push(apply(f, Value::Idx(i as u64))?);
            }
            Ok(arr(out))
        }
        Idx => idx(prim, &args[0], &args[1]),
        Let => apply(&args[1], args[0].clone()),
        Add | Sub | Mul | Div => arith(prim, &args[0], &args[1]),
        Neg => neg(&args[0]),
        Lt | Gt => compare(prim, &args[0], &args[1]),
        Eq => Ok(Value::Bool(data_eq(&args[0], &args[1])?)),
        Select => match &args[0] {
            Value::Bool(c) => Ok(if *c { args[1].clone() } else { args[2].clone() }),
            other => Err(type_err(prim, "a bool", other)),
        },
        ToMem => Ok(args[0].clone()),
        AsVector | AsVectorAligned => as_vector(prim, site, nats, &args[0]),
        AsScalar => {
            let xs = array(prim, &args[0])?;
            let mut out = Vec::new();
            for x in xs.iter() {
                match x {
                    Value::Vector(lanes) => out.extend(lanes.iter().cloned()),
                    other => return Err(type_err(prim, "an array of vectors", other)),
                }
            }
            Ok(arr(out))
        }
        VectorFromScalar => {
            let w = check_len(prim, site.result_len(prim, nats)?)?;
            Ok(Value::Vector(vec![args[0].clone(); w].into()))
        }
        Exp | Log | Sqrt | Abs => super::math::unary(prim, &args[0]),
        Max | Min => super::math::extremum(prim, &args[0], &args[1]),
        NatToFloat => super::math::nat_to_float(site, nats[0]),
    }
}

/// `map f xs` (any kind of map): `f` applied to each element, in order.
fn map(prim: Primitive, f: &Value, xs: &Value) -> Result<Value, EvalError> {
    let xs = array(prim, xs)?;
    let mut out = Vec::with_capacity(xs.len());
    for x in xs.iter() {
        out.push(apply(f, x.clone())?);
    }
    Ok(arr(out))
}

/// `zip xs ys`: the pairs of elements at the same positions (the lengths must agree).
fn zip(prim: Primitive, xs: &Value, ys: &Value) -> Result<Value, EvalError> {
    let (xs, ys) = (array(prim, xs)?, array(prim, ys)?);
    if xs.len() != ys.len() {
        return Err(EvalError::LengthMismatch {
            prim: prim.name(),
            left: xs.len() as u64,
            right: ys.len() as u64,
        });
    }
    Ok(arr(xs
        .iter()
        .zip(ys.iter())
        .map(|(x, y)| Value::pair(x.clone(), y.clone()))
        .collect()))
}

/// `unzip xs`: the array of first components and the array of second components.
fn unzip(prim: Primitive, xs: &Value) -> Result<Value, EvalError> {
    let xs = array(prim, xs)?;
    let mut firsts = Vec::with_capacity(xs.len());
    let mut seconds = Vec::with_capacity(xs.len());
    for x in xs.iter() {
        let Value::Pair(p) = x else {
            return Err(type_err(prim, "an array of pairs", x));
        };
        firsts.push(p.0.clone());
        seconds.push(p.1.clone());
    }
    Ok(Value::pair(arr(firsts), arr(seconds)))
}

/// `split k xs`: rows of `k` elements (`k` must divide the length; `split 0` of an empty
/// array gives as many empty rows as the type says).
fn split(prim: Primitive, site: &Site, nats: &[u64], xs: &Value) -> Result<Value, EvalError> {
    let k = nats[0];
    let xs = array(prim, xs)?;
    let len = xs.len() as u64;
    if k == 0 {
        if len != 0 {
            return Err(shape(
                prim,
                format!("split 0 of an array of {len} elements"),
            ));
        }
        let m = check_len(prim, site.result_len(prim, nats)?)?;
        return Ok(arr(vec![arr(Vec::new()); m]));
    }
    if len % k != 0 {
        return Err(shape(
            prim,
            format!("{k} does not divide the length {len} of the array"),
        ));
    }
    Ok(arr(xs
        .chunks(k as usize)
        .map(|c| arr(c.to_vec()))
        .collect()))
}

/// `transpose xss`: columns become rows (the rows must have one length; with no rows, the
/// column count is the type's).
fn transpose(prim: Primitive, site: &Site, nats: &[u64], xss: &Value) -> Result<Value, EvalError> {
    let rows = array(prim, xss)?;
    let rows: Vec<&Rc<[Value]>> = rows
        .iter()
        .map(|r| array(prim, r))
        .collect::<Result<_, _>>()?;
    let m = match rows.first() {
        Some(r) => r.len(),
        None => check_len(prim, site.result_len(prim, nats)?)?,
    };
    if let Some(bad) = rows.iter().find(|r| r.len() != m) {
        return Err(shape(
            prim,
            format!("rows of {m} and {} elements (not a matrix)", bad.len()),
        ));
    }
    Ok(arr((0..m)
        .map(|j| arr(rows.iter().map(|r| r[j].clone()).collect()))
        .collect()))
}

/// `slide sz sp xs`: the windows of `sz` elements every `sp` elements (they must fit the
/// length exactly).
fn slide(prim: Primitive, site: &Site, nats: &[u64], xs: &Value) -> Result<Value, EvalError> {
    let (sz, sp) = (nats[0], nats[1]);
    let xs = array(prim, xs)?;
    let len = xs.len() as u64;
    // len = sp*n + sz - sp
    let n = if sp == 0 {
        if len != sz {
            return Err(shape(
                prim,
                format!("slide {sz} 0 of an array of {len} elements"),
            ));
        }
        check_len(prim, site.result_len(prim, nats)?)? as u64
    } else {
        let total = len.saturating_add(sp);
        if total < sz || (total - sz) % sp != 0 || total == u64::MAX {
            return Err(shape(
                prim,
                format!(
                    "an array of {len} elements cannot be cut into windows of {sz} with step {sp}"
                ),
            ));
        }
        (total - sz) / sp
    };
    check_len(prim, n.saturating_mul(sz))?;
    let (sz, sp) = (sz as usize, sp as usize);
    Ok(arr((0..n as usize)
        .map(|i| arr(xs[i * sp..i * sp + sz].to_vec()))
        .collect()))
}

/// `pad l r x xs`: `l` copies of `x`, the elements of `xs`, `r` copies of `x`.
fn pad(prim: Primitive, nats: &[u64], x: &Value, xs: &Value) -> Result<Value, EvalError> {
    let (l, r) = (nats[0], nats[1]);
    let xs = array(prim, xs)?;
    check_len(prim, l.saturating_add(r).saturating_add(xs.len() as u64))?;
    let mut out = Vec::with_capacity(xs.len() + (l + r) as usize);
    out.extend(std::iter::repeat_n(x.clone(), l as usize));
    out.extend(xs.iter().cloned());
    out.extend(std::iter::repeat_n(x.clone(), r as usize));
    Ok(arr(out))
}

/// `padClamp l r xs`: `l` copies of the first element, the elements, `r` copies of the last.
fn pad_clamp(prim: Primitive, nats: &[u64], xs: &Value) -> Result<Value, EvalError> {
    let (l, r) = (nats[0], nats[1]);
    let xs = array(prim, xs)?;
    check_len(prim, l.saturating_add(r).saturating_add(xs.len() as u64))?;
    let (Some(first), Some(last)) = (xs.first(), xs.last()) else {
        if l + r == 0 {
            return Ok(arr(Vec::new()));
        }
        return Err(shape(prim, "cannot clamp-pad an empty array".into()));
    };
    let mut out = Vec::with_capacity(xs.len() + (l + r) as usize);
    out.extend(std::iter::repeat_n(first.clone(), l as usize));
    out.extend(xs.iter().cloned());
    out.extend(std::iter::repeat_n(last.clone(), r as usize));
    Ok(arr(out))
}

/// `take n xs` (the first `n` elements) or `drop n xs` (all but them).
fn take_drop(prim: Primitive, n: u64, xs: &Value) -> Result<Value, EvalError> {
    let xs = array(prim, xs)?;
    if n > xs.len() as u64 {
        return Err(shape(
            prim,
            format!("{n} elements of an array of {}", xs.len()),
        ));
    }
    let n = n as usize;
    Ok(arr(if prim == Primitive::Take {
        xs[..n].to_vec()
    } else {
        xs[n..].to_vec()
    }))
}

/// `idx i xs`: element `i` of `xs` (an error past its end).
fn idx(prim: Primitive, i: &Value, xs: &Value) -> Result<Value, EvalError> {
    let xs = array(prim, xs)?;
    let i = match i {
        Value::Idx(i) => *i,
        other => return Err(type_err(prim, "an index", other)),
    };
    match usize::try_from(i).ok().and_then(|i| xs.get(i)) {
        Some(x) => Ok(x.clone()),
        None => Err(EvalError::IndexOutOfBounds {
            index: i,
            len: xs.len() as u64,
        }),
    }
}

/// `asVector w xs`: vectors of `w` consecutive elements (`w` must divide the length; `w = 0`
/// of an empty array gives as many empty vectors as the type says).
fn as_vector(prim: Primitive, site: &Site, nats: &[u64], xs: &Value) -> Result<Value, EvalError> {
    let w = nats[0];
    let xs = array(prim, xs)?;
    let len = xs.len() as u64;
    if w == 0 {
        if len != 0 {
            return Err(shape(
                prim,
                format!("vectors of 0 lanes from an array of {len} elements"),
            ));
        }
        let m = check_len(prim, site.result_len(prim, nats)?)?;
        return Ok(arr(vec![Value::Vector(Vec::new().into()); m]));
    }
    if len % w != 0 {
        return Err(shape(
            prim,
            format!("{w} lanes do not divide the length {len} of the array"),
        ));
    }
    Ok(arr(xs
        .chunks(w as usize)
        .map(|c| Value::Vector(c.into()))
        .collect()))
}

/// Lane-wise application of a binary scalar operation to two vectors.
fn lanes(
    prim: Primitive,
    a: &[Value],
    b: &[Value],
    op: impl Fn(&Value, &Value) -> Result<Value, EvalError>,
) -> Result<Value, EvalError> {
    if a.len() != b.len() {
        return Err(EvalError::LengthMismatch {
            prim: prim.name(),
            left: a.len() as u64,
            right: b.len() as u64,
        });
    }
    let out: Result<Vec<Value>, EvalError> = a.iter().zip(b).map(|(x, y)| op(x, y)).collect();
    Ok(Value::Vector(out?.into()))
}

/// `add`, `sub`, `mul`, `div` on two scalars of the same type, or lane-wise on two vectors.
/// Integer arithmetic wraps; integer division truncates towards zero, and by zero is an error.
fn arith(prim: Primitive, a: &Value, b: &Value) -> Result<Value, EvalError> {
    use Primitive::*;
    macro_rules! float {
        ($x:expr, $y:expr) => {
            match prim {
                Add => $x + $y,
                Sub => $x - $y,
                Mul => $x * $y,
                _ => $x / $y,
            }
        };
    }
    macro_rules! int {
        ($x:expr, $y:expr) => {
            match prim {
                Add => $x.wrapping_add($y),
                Sub => $x.wrapping_sub($y),
                Mul => $x.wrapping_mul($y),
                _ if $y == 0 => return Err(EvalError::DivisionByZero),
                _ => $x.wrapping_div($y),
            }
        };
    }
    Ok(match (a, b) {
        (Value::F32(x), Value::F32(y)) => Value::F32(float!(x, y)),
        (Value::F64(x), Value::F64(y)) => Value::F64(float!(x, y)),
        (Value::I32(x), Value::I32(y)) => Value::I32(int!(x, *y)),
        (Value::I64(x), Value::I64(y)) => Value::I64(int!(x, *y)),
        (Value::Vector(xs), Value::Vector(ys)) => {
            return lanes(prim, xs, ys, |x, y| arith(prim, x, y))
        }
        _ => {
            return Err(EvalError::Type {
                context: prim.name().into(),
                expected: "two numbers of the same type (or two vectors of them)".into(),
                found: format!("{} and {}", a.describe(), b.describe()),
            })
        }
    })
}

/// `neg` on a scalar or lane-wise on a vector (integers wrap).
fn neg(a: &Value) -> Result<Value, EvalError> {
    Ok(match a {
        Value::F32(x) => Value::F32(-x),
        Value::F64(x) => Value::F64(-x),
        Value::I32(x) => Value::I32(x.wrapping_neg()),
        Value::I64(x) => Value::I64(x.wrapping_neg()),
        Value::Vector(xs) => {
            Value::Vector(xs.iter().map(neg).collect::<Result<Vec<_>, _>>()?.into())
        }
        other => {
            return Err(type_err(
                Primitive::Neg,
                "a number or a vector of numbers",
                other,
            ))
        }
    })
}

/// `lt` and `gt` on two numbers (or indices) of the same type.
fn compare(prim: Primitive, a: &Value, b: &Value) -> Result<Value, EvalError> {
    let ord = match (a, b) {
        (Value::F32(x), Value::F32(y)) => x.partial_cmp(y),
        (Value::F64(x), Value::F64(y)) => x.partial_cmp(y),
        (Value::I32(x), Value::I32(y)) => Some(x.cmp(y)),
        (Value::I64(x), Value::I64(y)) => Some(x.cmp(y)),
        (Value::Idx(x), Value::Idx(y)) => Some(x.cmp(y)),
        _ => {
            return Err(EvalError::Type {
                context: prim.name().into(),
                expected: "two numbers of the same type".into(),
                found: format!("{} and {}", a.describe(), b.describe()),
            })
        }
    };
    let wanted = if prim == Primitive::Lt {
        std::cmp::Ordering::Less
    } else {
        std::cmp::Ordering::Greater
    };
    Ok(Value::Bool(ord == Some(wanted)))
}

/// `eq`: structural equality of two data values of the same type (floats by `==`).
fn data_eq(a: &Value, b: &Value) -> Result<bool, EvalError> {
    let mismatch = || EvalError::Type {
        context: "eq".into(),
        expected: "two data values of the same type".into(),
        found: format!("{} and {}", a.describe(), b.describe()),
    };
    match (a, b) {
        (Value::Array(xs), Value::Array(ys)) | (Value::Vector(xs), Value::Vector(ys)) => {
            if xs.len() != ys.len() {
                return Err(mismatch());
            }
            for (x, y) in xs.iter().zip(ys.iter()) {
                if !data_eq(x, y)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        (Value::Pair(p), Value::Pair(q)) => Ok(data_eq(&p.0, &q.0)? && data_eq(&p.1, &q.1)?),
        (Value::Fun(_), _) | (_, Value::Fun(_)) => Err(mismatch()),
        _ if std::mem::discriminant(a) == std::mem::discriminant(b) => Ok(a == b),
        _ => Err(mismatch()),
    }
}
