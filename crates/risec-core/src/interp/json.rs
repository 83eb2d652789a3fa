//! Values as JSON, for `risec eval --inputs FILE` and `--output json`: arrays and vectors are
//! nested lists, pairs two-element lists, scalars numbers or booleans, indices non-negative
//! integers. What NumPy's `tolist()` writes and `numpy.array(…)` reads.
//!
//! Reading needs the type, to know which number type (and which lengths) to expect; sizes the
//! caller did not give can be read off the lengths of the lists ([`infer_sizes`]). Writing
//! turns non-finite floats, which JSON cannot hold, into `null`.
//!
//! ```
//! use risec_core::interp::{json, Value};
//! let v = Value::Array(vec![Value::F32(1.5), Value::F32(-2.0)].into());
//! assert_eq!(json::to_json(&v).to_string(), "[1.5,-2.0]");
//! ```

use super::{eval_nat_in, EvalError, Value};
use crate::ir::nat::NatAtom;
use crate::ir::types::{ScalarType, Type, TypeNode};
use serde_json::Value as Json;

/// JSON that is not a value of the type wanted. `Display` gives the message risec prints (after
/// `error: input `).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum JsonError {
    /// The JSON has another shape or number type.
    #[error("`{path}`: expected {expected}, found {found}")]
    Mismatch {
        /// Where (`xs[3][1]`).
        path: String,
        /// What the type wants (`f32`, `a list of 4 elements`).
        expected: String,
        /// A short description of what was found.
        found: String,
    },
    /// A size of the type did not evaluate.
    #[error("`{path}`: {source}")]
    Size {
        /// Where.
        path: String,
        /// Why.
        source: EvalError,
    },
    /// An index is not below its bound.
    #[error("`{path}`: index {index} out of bounds for idx[{bound}]")]
    IndexOutOfBounds {
        /// Where.
        path: String,
        /// The index given.
        index: u64,
        /// The bound of the `idx` type.
        bound: u64,
    },
    /// The type is a function type.
    #[error("`{path}`: a function cannot be given as JSON")]
    Function {
        /// Where.
        path: String,
    },
}

/// `v` as JSON (functions, which have no JSON form, as their description).
pub fn to_json(v: &Value) -> Json {
    let float = |x: f64| serde_json::Number::from_f64(x).map_or(Json::Null, Json::Number);
    match v {
        // Through the shortest decimal text of the f32, so that 0.1f32 reads back as 0.1.
        Value::F32(x) => float(x.to_string().parse().unwrap_or(f64::NAN)),
        Value::F64(x) => float(*x),
        Value::I32(x) => Json::from(*x),
        Value::I64(x) => Json::from(*x),
        Value::Bool(b) => Json::Bool(*b),
        Value::Idx(i) => Json::from(*i),
        Value::Array(xs) | Value::Vector(xs) => Json::Array(xs.iter().map(to_json).collect()),
        Value::Pair(p) => Json::Array(vec![to_json(&p.0), to_json(&p.1)]),
        Value::Fun(f) => Json::String(f.to_string()),
    }
}

/// A short description of a JSON value for messages.
fn describe(j: &Json) -> String {
    match j {
        Json::Null => "null".into(),
        Json::Bool(b) => b.to_string(),
        Json::Number(n) => n.to_string(),
        Json::String(_) => "a string".into(),
        Json::Array(xs) => format!("a list of {} elements", xs.len()),
        Json::Object(_) => "an object".into(),
    }
}

/// Reads `j` as a value of type `ty`, whose sizes are evaluated with `lookup` (De Bruijn
/// indices of the program's size parameters). `path` names the place for messages
/// (`xs[3][1]`).
pub fn from_json(
    j: &Json,
    ty: &Type,
    lookup: &dyn Fn(u32) -> Option<u64>,
    path: &str,
) -> Result<Value, JsonError> {
    let wrong = |expected: &str| JsonError::Mismatch {
        path: path.to_string(),
        expected: expected.to_string(),
        found: describe(j),
    };
    let size = |source| JsonError::Size {
        path: path.to_string(),
        source,
    };
    match ty.get() {
        TypeNode::Scalar(s) => match s {
            ScalarType::F32 => j.as_f64().map(|x| Value::F32(x as f32)),
            ScalarType::F64 => j.as_f64().map(Value::F64),
            ScalarType::I32 => j
                .as_i64()
                .and_then(|x| i32::try_from(x).ok())
                .map(Value::I32),
            ScalarType::I64 => j.as_i64().map(Value::I64),
            ScalarType::Bool => j.as_bool().map(Value::Bool),
        }
        .ok_or_else(|| wrong(s.name())),
        TypeNode::Idx(n) => {
            let n = eval_nat_in(n, lookup).map_err(size)?;
            match j.as_u64() {
                Some(i) if i < n => Ok(Value::Idx(i)),
                Some(index) => Err(JsonError::IndexOutOfBounds {
                    path: path.to_string(),
                    index,
                    bound: n,
                }),
                None => Err(wrong(&format!("an index below {n}"))),
            }
        }
        TypeNode::Array(n, elem) | TypeNode::Vector(n, elem) => {
            let n = eval_nat_in(n, lookup).map_err(size)?;
            let xs = j
                .as_array()
                .ok_or_else(|| wrong(&format!("a list of {n} elements")))?;
            if xs.len() as u64 != n {
                return Err(wrong(&format!("a list of {n} elements")));
            }
            let values = xs
                .iter()
                .enumerate()
                .map(|(i, x)| from_json(x, elem, lookup, &format!("{path}[{i}]")))
                .collect::<Result<Vec<_>, _>>()?;
            super::memory::account(values.len());
            Ok(if matches!(ty.get(), TypeNode::Array(..)) {
                Value::Array(values.into())
            } else {
                Value::Vector(values.into())
            })
        }
        TypeNode::Pair(a, b) => match j.as_array().map(Vec::as_slice) {
            Some([x, y]) => Ok(Value::Pair(std::rc::Rc::new((
                from_json(x, a, lookup, &format!("{path}[0]"))?,
                from_json(y, b, lookup, &format!("{path}[1]"))?,
            )))),
            _ => Err(wrong("a pair written as a list of two elements")),
        },
        TypeNode::Fun(..) | TypeNode::NatFun(..) | TypeNode::Meta(..) => Err(JsonError::Function {
            path: path.to_string(),
        }),
    }
}

/// Reads sizes off `j`, a value of type `ty`: where an array's length is a size parameter by
/// itself (`n.f32`, not `(n/2).f32`) whose value in `sizes` (indexed by De Bruijn index) is
/// still unknown, the list's length becomes its value. Lists that are not what the type wants
/// are left for [`from_json`] to report.
pub fn infer_sizes(j: &Json, ty: &Type, sizes: &mut [Option<u64>]) {
    match ty.get() {
        TypeNode::Array(n, elem) | TypeNode::Vector(n, elem) => {
            let Some(xs) = j.as_array() else { return };
            if let Some(NatAtom::Index(i)) = n.as_atom() {
                if let Some(slot @ None) = sizes.get_mut(*i as usize) {
                    *slot = Some(xs.len() as u64);
                }
            }
            if let Some(first) = xs.first() {
                infer_sizes(first, elem, sizes);
            }
        }
        TypeNode::Pair(a, b) => {
            if let Some([x, y]) = j.as_array().map(Vec::as_slice) {
                infer_sizes(x, a, sizes);
                infer_sizes(y, b, sizes);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::nat;
    use crate::ir::types::{array, f32, pair, scalar};
    use serde_json::json;

    fn no_sizes(_: u32) -> Option<u64> {
        None
    }

    #[test]
    fn values_round_trip() {
        let ty = array(
            nat::lit(2),
            pair(f32(), array(nat::lit(3), scalar(ScalarType::I32))),
        );
        let j = json!([[0.1, [1, -2, 3]], [2.5, [4, 5, 6]]]);
        let v = from_json(&j, &ty, &no_sizes, "x").unwrap();
        assert_eq!(to_json(&v), j);
        assert_eq!(v.to_string(), "[(0.1, [1, -2, 3]), (2.5, [4, 5, 6])]");
    }

    #[test]
    fn mistakes_name_the_place() {
        let ty = array(nat::lit(2), array(nat::lit(2), f32()));
        let e = from_json(&json!([[1, 2], [3]]), &ty, &no_sizes, "xs").unwrap_err();
        assert_eq!(
            e,
            JsonError::Mismatch {
                path: "xs[1]".into(),
                expected: "a list of 2 elements".into(),
                found: "a list of 1 elements".into()
            }
        );
        assert_eq!(
            e.to_string(),
            "`xs[1]`: expected a list of 2 elements, found a list of 1 elements"
        );
        let e = from_json(&json!([[1, 2], [3, "a"]]), &ty, &no_sizes, "xs").unwrap_err();
        assert_eq!(e.to_string(), "`xs[1][1]`: expected f32, found a string");
        let i32s = array(nat::lit(1), scalar(ScalarType::I32));
        let e = from_json(&json!([1.5]), &i32s, &no_sizes, "k").unwrap_err();
        assert!(e.to_string().contains("expected i32"), "{e}");
        let idx = crate::ir::types::idx(nat::lit(3));
        let e = from_json(&json!(3), &idx, &no_sizes, "i").unwrap_err();
        assert!(matches!(
            e,
            JsonError::IndexOutOfBounds {
                index: 3,
                bound: 3,
                ..
            }
        ));
        assert_eq!(e.to_string(), "`i`: index 3 out of bounds for idx[3]");
        let unbound = array(nat::index(0), f32());
        let e = from_json(&json!([1.0]), &unbound, &no_sizes, "xs").unwrap_err();
        assert!(matches!(e, JsonError::Size { .. }), "{e:?}");
        let fun = crate::ir::types::fun(f32(), f32());
        let e = from_json(&json!(1), &fun, &no_sizes, "f").unwrap_err();
        assert_eq!(e.to_string(), "`f`: a function cannot be given as JSON");
    }

    #[test]
    fn sizes_are_read_off_list_lengths() {
        // n.m.f32 with m = index 0, n = index 1.
        let ty = array(nat::index(1), array(nat::index(0), f32()));
        let mut sizes = [None, None];
        infer_sizes(&json!([[1, 2, 3], [4, 5, 6]]), &ty, &mut sizes);
        assert_eq!(sizes, [Some(3), Some(2)]);
        let half = array(nat::div(&nat::index(0), &nat::lit(2)), f32());
        let mut sizes = [None];
        infer_sizes(&json!([1, 2]), &half, &mut sizes);
        assert_eq!(sizes, [None]);
    }

    #[test]
    fn non_finite_floats_are_null() {
        assert_eq!(to_json(&Value::F32(f32::NAN)), Json::Null);
    }
}
