//! Runtime values of the interpreter.

use super::eval::Node;
use super::{env_lookup, eval_nat_in, Env, EvalError, List};
use crate::core::Literal;
use crate::ir::primitive::Primitive;
use crate::ir::types::{ScalarType, Type, TypeNode};
use std::fmt;
use std::rc::Rc;

/// A runtime value. Arrays, pairs, vectors and functions are reference counted, so cloning a
/// value is O(1).
#[derive(Clone, Debug)]
pub enum Value {
    /// An `f32`.
    F32(f32),
    /// An `f64`.
    F64(f64),
    /// An `i32`.
    I32(i32),
    /// An `i64`.
    I64(i64),
    /// A `bool`.
    Bool(bool),
    /// A value of type `idx[n]`.
    Idx(u64),
    /// A value of type `n.t`.
    Array(Rc<[Value]>),
    /// A value of type `(s, t)`.
    Pair(Rc<(Value, Value)>),
    /// A value of type `<w>t`: the lanes.
    Vector(Rc<[Value]>),
    /// A function: a closure, a size closure, or a partially applied primitive.
    Fun(Function),
}

/// A function value. Opaque: apply it with [`super::apply`] or [`super::apply_nat`].
#[derive(Clone)]
pub struct Function(pub(crate) Rc<FunKind>);

/// The kinds of function values.
pub(crate) enum FunKind {
    /// `fun x => body` with its captured environment.
    Closure { body: Rc<Node>, env: Env },
    /// `fun (n : nat) => body` with its captured environment.
    NatClosure { body: Rc<Node>, env: Env },
    /// A primitive waiting for more size or value arguments.
    Prim(PrimFn),
}

/// A partially applied primitive. `ty` is the type of the primitive node and `nat_env` the nat
/// environment of that node, kept to evaluate sizes that only the type knows.
#[derive(Clone)]
pub(crate) struct PrimFn {
    pub prim: Primitive,
    pub ty: Type,
    pub nat_env: List<u64>,
    pub nats: Vec<u64>,
    pub args: Vec<Value>,
}

impl fmt::Debug for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            FunKind::Closure { .. } => write!(f, "<function>"),
            FunKind::NatClosure { .. } => write!(f, "<size function>"),
            FunKind::Prim(p) => {
                write!(f, "<{}", p.prim.name())?;
                for n in &p.nats {
                    write!(f, " {n}")?;
                }
                for a in &p.args {
                    match a {
                        Value::Array(_) | Value::Pair(_) | Value::Vector(_) | Value::Fun(_) => {
                            write!(f, " ({})", a.describe())?
                        }
                        scalar => write!(f, " {scalar}")?,
                    }
                }
                write!(f, ">")
            }
        }
    }
}

impl Value {
    /// The value of a literal.
    pub fn from_literal(l: Literal) -> Value {
        match l {
            Literal::F32(bits) => Value::F32(f32::from_bits(bits)),
            Literal::F64(bits) => Value::F64(f64::from_bits(bits)),
            Literal::I32(v) => Value::I32(v),
            Literal::I64(v) => Value::I64(v),
            Literal::Bool(b) => Value::Bool(b),
        }
    }

    /// An array of the given elements.
    pub fn array(elems: impl IntoIterator<Item = Value>) -> Value {
        Value::Array(elems.into_iter().collect::<Vec<_>>().into())
    }

    /// An array of `f32`s.
    pub fn f32_array(xs: &[f32]) -> Value {
        Value::array(xs.iter().map(|&x| Value::F32(x)))
    }

    /// A row-major matrix of `f32`s (`rows.cols.f32`) from a flat slice; `None` when the slice
    /// does not hold exactly `rows * cols` elements.
    pub fn f32_matrix(rows: usize, cols: usize, flat: &[f32]) -> Option<Value> {
        if rows.checked_mul(cols)? != flat.len() {
            return None;
        }
        Some(Value::array(
            (0..rows).map(|r| Value::f32_array(&flat[r * cols..(r + 1) * cols])),
        ))
    }

    /// The pair `(a, b)`.
    pub fn pair(a: Value, b: Value) -> Value {
        Value::Pair(Rc::new((a, b)))
    }

    /// A vector of the given lanes.
    pub fn vector(lanes: impl IntoIterator<Item = Value>) -> Value {
        Value::Vector(lanes.into_iter().collect::<Vec<_>>().into())
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(xs) => Some(xs),
            _ => None,
        }
    }

    /// The lanes, if this is a vector.
    pub fn as_vector(&self) -> Option<&[Value]> {
        match self {
            Value::Vector(xs) => Some(xs),
            _ => None,
        }
    }

    /// The components, if this is a pair.
    pub fn as_pair(&self) -> Option<(&Value, &Value)> {
        match self {
            Value::Pair(p) => Some((&p.0, &p.1)),
            _ => None,
        }
    }

    /// The number, if this is an `f32`.
    pub fn as_f32(&self) -> Option<f32> {
        match self {
            Value::F32(x) => Some(*x),
            _ => None,
        }
    }

    /// The number, if this is an `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::F64(x) => Some(*x),
            _ => None,
        }
    }

    /// The number, if this is an `i32`.
    pub fn as_i32(&self) -> Option<i32> {
        match self {
            Value::I32(x) => Some(*x),
            _ => None,
        }
    }

    /// The number, if this is an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::I64(x) => Some(*x),
            _ => None,
        }
    }

    /// The boolean, if this is a `bool`.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The index, if this is an `idx[n]` value.
    pub fn as_idx(&self) -> Option<u64> {
        match self {
            Value::Idx(i) => Some(*i),
            _ => None,
        }
    }

    /// Whether this is a function value.
    pub fn is_function(&self) -> bool {
        matches!(self, Value::Fun(_))
    }

    /// The scalar type, if this is a scalar.
    pub fn scalar_type(&self) -> Option<ScalarType> {
        Some(match self {
            Value::F32(_) => ScalarType::F32,
            Value::F64(_) => ScalarType::F64,
            Value::I32(_) => ScalarType::I32,
            Value::I64(_) => ScalarType::I64,
            Value::Bool(_) => ScalarType::Bool,
            _ => return None,
        })
    }

    /// The leaves of a data value (scalars and indices) in row-major order, as a C buffer
    /// would hold them: arrays and vectors element by element, pairs first then second.
    pub fn flatten(&self, out: &mut Vec<Value>) {
        match self {
            Value::Array(xs) | Value::Vector(xs) => xs.iter().for_each(|x| x.flatten(out)),
            Value::Pair(p) => {
                p.0.flatten(out);
                p.1.flatten(out);
            }
            leaf => out.push(leaf.clone()),
        }
    }

    /// A short description for error messages: small values in full, large ones by shape.
    pub fn describe(&self) -> String {
        match self {
            Value::Array(xs) if xs.len() > 8 => format!("an array of {} elements", xs.len()),
            Value::Vector(xs) if xs.len() > 8 => format!("a vector of {} lanes", xs.len()),
            Value::Pair(_) | Value::Array(_) | Value::Vector(_) => {
                let s = self.to_string();
                if s.len() > 80 {
                    match self {
                        Value::Pair(_) => "a pair".to_string(),
                        Value::Array(xs) => format!("an array of {} elements", xs.len()),
                        _ => "a vector".to_string(),
                    }
                } else {
                    s
                }
            }
            Value::Fun(f) => format!("the function {f}"),
            Value::Idx(i) => format!("index {i}"),
            scalar => format!("{} {scalar}", scalar.scalar_type().map_or("", |s| s.name())),
        }
    }

    /// Compares two data values, floats with tolerance: `|a - b| <= abs_tol + rel_tol *
    /// max(|a|, |b|)`; NaNs equal NaNs and infinities equal themselves. Integers, booleans and
    /// indices must be equal, shapes must agree, functions are never equal.
    pub fn approx_eq(&self, other: &Value, rel_tol: f64, abs_tol: f64) -> bool {
        fn close(a: f64, b: f64, rel: f64, abs: f64) -> bool {
            if a.is_nan() || b.is_nan() {
                return a.is_nan() && b.is_nan();
            }
            if a.is_infinite() || b.is_infinite() {
                return a == b;
            }
            (a - b).abs() <= abs + rel * a.abs().max(b.abs())
        }
        match (self, other) {
            (Value::F32(a), Value::F32(b)) => close(*a as f64, *b as f64, rel_tol, abs_tol),
            (Value::F64(a), Value::F64(b)) => close(*a, *b, rel_tol, abs_tol),
            (Value::Array(a), Value::Array(b)) | (Value::Vector(a), Value::Vector(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b.iter())
                        .all(|(x, y)| x.approx_eq(y, rel_tol, abs_tol))
            }
            (Value::Pair(a), Value::Pair(b)) => {
                a.0.approx_eq(&b.0, rel_tol, abs_tol) && a.1.approx_eq(&b.1, rel_tol, abs_tol)
            }
            (Value::Fun(_), _) | (_, Value::Fun(_)) => false,
            (a, b) => a == b,
        }
    }

    /// Checks that a data value has the given data type; sizes in `ty` are evaluated with
    /// `nat_env`, indexed by De Bruijn index (`nat_env[0]` is nat index 0, the innermost
    /// binder; for a program's parameter types that is the last size parameter).
    pub fn check_type(&self, ty: &Type, nat_env: &[u64]) -> Result<(), EvalError> {
        check(self, ty, &env_lookup(nat_env))
    }
}

fn check(v: &Value, ty: &Type, lookup: &dyn Fn(u32) -> Option<u64>) -> Result<(), EvalError> {
    let mismatch = |expected: String| EvalError::Type {
        context: "value".into(),
        expected,
        found: v.describe(),
    };
    match (ty.get(), v) {
        (TypeNode::Scalar(s), _) if v.scalar_type() == Some(*s) => Ok(()),
        (TypeNode::Idx(n), Value::Idx(i)) => {
            let n = eval_nat_in(n, lookup)?;
            if *i < n {
                Ok(())
            } else {
                Err(EvalError::IndexOutOfBounds { index: *i, len: n })
            }
        }
        (TypeNode::Array(n, elem), Value::Array(xs))
        | (TypeNode::Vector(n, elem), Value::Vector(xs)) => {
            let n = eval_nat_in(n, lookup)?;
            if xs.len() as u64 != n {
                return Err(mismatch(format!("{n} elements of type {elem}")));
            }
            xs.iter().try_for_each(|x| check(x, elem, lookup))
        }
        (TypeNode::Pair(a, b), Value::Pair(p)) => {
            check(&p.0, a, lookup)?;
            check(&p.1, b, lookup)
        }
        _ => Err(mismatch(format!("a value of type {ty}"))),
    }
}

impl PartialEq for Value {
    /// Exact structural equality (floats by `==`); functions are equal only to themselves.
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::F32(a), Value::F32(b)) => a == b,
            (Value::F64(a), Value::F64(b)) => a == b,
            (Value::I32(a), Value::I32(b)) => a == b,
            (Value::I64(a), Value::I64(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Idx(a), Value::Idx(b)) => a == b,
            (Value::Array(a), Value::Array(b)) | (Value::Vector(a), Value::Vector(b)) => a == b,
            (Value::Pair(a), Value::Pair(b)) => a == b,
            (Value::Fun(a), Value::Fun(b)) => Rc::ptr_eq(&a.0, &b.0),
            _ => false,
        }
    }
}

impl From<f32> for Value {
    fn from(x: f32) -> Value {
        Value::F32(x)
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::F64(x)
    }
}

impl From<i32> for Value {
    fn from(x: i32) -> Value {
        Value::I32(x)
    }
}

impl From<i64> for Value {
    fn from(x: i64) -> Value {
        Value::I64(x)
    }
}

impl From<bool> for Value {
    fn from(x: bool) -> Value {
        Value::Bool(x)
    }
}

impl fmt::Display for Value {
    /// Nested, readable form: `[[1, 2.5], [3, 4]]`, `(a, b)`, `<1, 2, 3, 4>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list(f: &mut fmt::Formatter<'_>, open: &str, xs: &[Value], close: &str) -> fmt::Result {
            f.write_str(open)?;
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{x}")?;
            }
            f.write_str(close)
        }
        match self {
            Value::F32(x) => write!(f, "{x}"),
            Value::F64(x) => write!(f, "{x}"),
            Value::I32(x) => write!(f, "{x}"),
            Value::I64(x) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Idx(i) => write!(f, "{i}"),
            Value::Array(xs) => list(f, "[", xs, "]"),
            Value::Vector(xs) => list(f, "<", xs, ">"),
            Value::Pair(p) => write!(f, "({}, {})", p.0, p.1),
            Value::Fun(func) => write!(f, "{func}"),
        }
    }
}
