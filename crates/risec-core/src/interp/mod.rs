//! The reference interpreter: the semantic ground truth for typed core terms.
//!
//! Rewrite rules and generated C are validated against it, so it aims for clarity and for never
//! panicking: a well-typed term evaluates to a [`Value`]; an ill-typed term, an out-of-range
//! index or a size that does not evaluate to a natural number gives an [`EvalError`].
//!
//! Evaluation first compiles the De Bruijn [`Expr`] into an internal tree (saturated primitive
//! applications are recognised once, lambda bodies are shared by reference counting so closures
//! are cheap), then runs it. Expression variables and sizes live in two persistent environments
//! ([`Env`]); sizes are `u64`s. Sizes a primitive cannot read off its arguments (the length of
//! `generate`, the lane count of `vectorFromScalar`, the row count of `transpose` on an empty
//! array) come from the primitive node's type, evaluated in the nat environment of the node.
//!
//! [`random`] generates data values of a type and sizes for a program, for property testing;
//! [`json`] reads and writes values as JSON (`risec eval --inputs`, `--output json`); [`memory`]
//! bounds the interpreter's memory.

mod eval;
pub mod json;
mod math;
pub mod memory;
mod prims;
pub mod random;
pub mod sampling;
mod value;

#[cfg(test)]
mod tests;

pub use eval::Compiled;
pub use eval::{apply, apply_nat, eval};
pub use value::Function;
pub use value::Value;

use crate::core::Expr;
use crate::core::TypedProgram;
use crate::ir::nat::{self, Nat, NatAtom, NatEvalError};
use crate::ir::types::{Type, TypeNode};
use std::fmt;
use std::rc::Rc;

/// The largest number of elements the interpreter builds into one array or vector; larger
/// sizes are reported as [`EvalError::TooLarge`] instead of exhausting memory.
pub const MAX_ELEMENTS: u64 = 1 << 24;

/// Why evaluation failed.
#[derive(Clone, Debug, PartialEq)]
pub enum EvalError {
    /// `idx` (or an index argument) outside its array.
    IndexOutOfBounds {
        /// The index.
        index: u64,
        /// The length of the array it indexes.
        len: u64,
    },
    /// A size did not evaluate to a natural number.
    Size {
        /// The size, in surface syntax (`#i` for the nat variable with De Bruijn index `i`
        /// unless names are known).
        size: String,
        /// What went wrong.
        error: NatEvalError,
    },
    /// Two arrays that must have the same length do not (`zip`, lane-wise vector arithmetic).
    LengthMismatch {
        /// The primitive.
        prim: &'static str,
        /// The length of the first.
        left: u64,
        /// The length of the second.
        right: u64,
    },
    /// An array does not have the shape a primitive needs (`split 3` of 10 elements, `take 5`
    /// of 4, a ragged matrix passed to `transpose`, …).
    Shape {
        /// The primitive.
        prim: &'static str,
        /// The explanation.
        message: String,
    },
    /// Integer division by zero.
    DivisionByZero,
    /// An expression variable with no value in the environment.
    UnboundVariable {
        /// Its De Bruijn index.
        index: u32,
    },
    /// A value of the wrong kind: only possible for ill-typed terms or mismatched arguments.
    Type {
        /// Where (usually the primitive's name).
        context: String,
        /// What was expected.
        expected: String,
        /// A short description of what was found.
        found: String,
    },
    /// A program was given the wrong number of size or value arguments.
    Arity {
        /// `"size"` or `"value"`.
        what: &'static str,
        /// How many the program takes.
        expected: usize,
        /// How many were given.
        found: usize,
    },
    /// An array longer than [`MAX_ELEMENTS`].
    TooLarge {
        /// Where.
        prim: &'static str,
        /// The requested length.
        len: u64,
    },
    /// The values built exceed the memory budget ([`memory::with_limit`]).
    OutOfMemory {
        /// The budget, in bytes.
        limit: u64,
        /// The memory the evaluation would have used, in bytes.
        needed: u64,
    },
    /// A type has no values to generate (`idx[0]`) or is not a data type.
    NoValue {
        /// The type, in surface syntax.
        ty: String,
    },
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::IndexOutOfBounds { index, len } => {
                write!(f, "index {index} out of bounds for idx[{len}]")
            }
            EvalError::Size { size, error } => match error {
                NatEvalError::NotIntegral(v) => {
                    write!(f, "size {size} evaluates to {v}, which is not a natural number")
                }
                NatEvalError::Negative(v) => write!(f, "size {size} evaluates to {v}, which is negative"),
                other => write!(f, "cannot evaluate size {size}: {other}"),
            },
            EvalError::LengthMismatch { prim, left, right } => {
                write!(f, "arrays of different lengths passed to {prim} ({left} and {right} elements)")
            }
            EvalError::Shape { prim, message } => write!(f, "{prim}: {message}"),
            EvalError::DivisionByZero => write!(f, "integer division by zero"),
            EvalError::UnboundVariable { index } => {
                write!(f, "variable with De Bruijn index {index} has no value in the environment")
            }
            EvalError::Type { context, expected, found } => {
                write!(f, "{context} expects {expected}, got {found}")
            }
            EvalError::Arity { what, expected, found } => {
                write!(f, "the program takes {expected} {what} argument(s), {found} given")
            }
            EvalError::TooLarge { prim, len } => write!(
                f,
                "{prim}: an array of {len} elements is larger than the interpreter allows ({MAX_ELEMENTS})"
            ),
            EvalError::OutOfMemory { limit, needed } => write!(
                f,
                "the values built need more memory than the interpreter's budget of {} \
                 (at least {})",
                crate::support::units::format_bytes(*limit),
                crate::support::units::format_bytes(*needed)
            ),
            EvalError::NoValue { ty } => write!(f, "cannot generate a value of type {ty}"),
        }
    }
}

impl std::error::Error for EvalError {}

/// A persistent singly linked list: cheap to extend and to share between closures.
#[derive(Debug)]
pub(crate) struct Cons<T> {
    pub(crate) head: T,
    pub(crate) tail: List<T>,
}

pub(crate) type List<T> = Option<Rc<Cons<T>>>;

fn list_get<T>(mut list: &List<T>, index: u32) -> Option<&T> {
    let mut i = index;
    while let Some(cell) = list {
        if i == 0 {
            return Some(&cell.head);
        }
        i -= 1;
        list = &cell.tail;
    }
    None
}

fn list_len<T>(mut list: &List<T>) -> usize {
    let mut n = 0;
    while let Some(cell) = list {
        n += 1;
        list = &cell.tail;
    }
    n
}

/// The evaluation environment: values of expression variables and values of sizes, each by
/// De Bruijn index (index 0 is the innermost binder). Cloning and extending are O(1).
#[derive(Clone, Debug, Default)]
pub struct Env {
    values: List<Value>,
    nats: List<u64>,
}

impl Env {
    /// The empty environment (for closed terms).
    pub fn new() -> Env {
        Env::default()
    }

    /// An environment binding `values` and `sizes`, each given outermost first: the last
    /// element of each slice gets De Bruijn index 0.
    pub fn from_slices(values: &[Value], sizes: &[u64]) -> Env {
        let mut env = Env::new();
        for v in values {
            env = env.with_value(v.clone());
        }
        for &n in sizes {
            env = env.with_nat(n);
        }
        env
    }

    /// This environment with `v` bound as expression index 0 (the others shift up by one).
    pub fn with_value(&self, v: Value) -> Env {
        Env {
            values: Some(Rc::new(Cons {
                head: v,
                tail: self.values.clone(),
            })),
            nats: self.nats.clone(),
        }
    }

    /// This environment with `n` bound as nat index 0 (the others shift up by one).
    pub fn with_nat(&self, n: u64) -> Env {
        Env {
            values: self.values.clone(),
            nats: Some(Rc::new(Cons {
                head: n,
                tail: self.nats.clone(),
            })),
        }
    }

    /// The value of expression variable `index`.
    pub fn value(&self, index: u32) -> Option<&Value> {
        list_get(&self.values, index)
    }

    /// The value of nat variable `index`.
    pub fn nat(&self, index: u32) -> Option<u64> {
        list_get(&self.nats, index).copied()
    }

    /// How many expression variables are bound.
    pub fn num_values(&self) -> usize {
        list_len(&self.values)
    }

    /// How many size variables are bound.
    pub fn num_nats(&self) -> usize {
        list_len(&self.nats)
    }

    /// Evaluates a size in this environment's nat context.
    pub fn eval_nat(&self, n: &Nat) -> Result<u64, EvalError> {
        eval_nat_in(n, &|i| self.nat(i))
    }
}

/// Evaluates a size, looking up nat De Bruijn indices with `lookup`.
pub fn eval_nat_in(n: &Nat, lookup: &dyn Fn(u32) -> Option<u64>) -> Result<u64, EvalError> {
    if let Some(v) = n.as_integer() {
        if let Ok(v) = u64::try_from(v) {
            return Ok(v);
        }
    }
    n.eval(&|a| match a {
        NatAtom::Index(i) => lookup(*i),
        _ => None,
    })
    .map_err(|error| EvalError::Size {
        size: n.to_string(),
        error,
    })
}

/// A nat environment as a slice indexed by De Bruijn index: `nat_env[i]` is nat index `i`
/// (innermost first).
pub(crate) fn env_lookup(nat_env: &[u64]) -> impl Fn(u32) -> Option<u64> + '_ {
    move |i| nat_env.get(i as usize).copied()
}

/// A lookup for a slice of sizes given outermost first (the last one is nat index 0).
pub fn slice_lookup(sizes: &[u64]) -> impl Fn(u32) -> Option<u64> + '_ {
    move |i| sizes.len().checked_sub(i as usize + 1).map(|k| sizes[k])
}

/// The types of a program's value parameters and of its result, in the context of its size
/// parameters (after stripping `size_params.len()` nat binders and `value_params.len()` arrows).
pub fn program_signature(p: &TypedProgram) -> Result<(Vec<Type>, Type), EvalError> {
    let bad = |what: &str| EvalError::Type {
        context: format!("program {}", p.name),
        expected: what.to_string(),
        found: format!("type {}", p.term.ty),
    };
    let mut ty = p.term.ty.clone();
    for _ in 0..p.size_params.len() {
        ty = match ty.get() {
            TypeNode::NatFun(b) => b.clone(),
            _ => return Err(bad("a size parameter for every name in size_params")),
        };
    }
    let mut params = Vec::with_capacity(p.value_params.len());
    for _ in 0..p.value_params.len() {
        ty = match ty.get() {
            TypeNode::Fun(a, r) => {
                params.push(a.clone());
                r.clone()
            }
            _ => return Err(bad("a value parameter for every name in value_params")),
        };
    }
    Ok((params, ty))
}

/// Rewrites a size error so that it names the program's size parameters instead of `#i`.
fn name_sizes(err: EvalError, n: &Nat, names: &[String]) -> EvalError {
    match err {
        EvalError::Size { error, .. } => {
            let size = crate::ir::types::nat_to_source(n, names, &nat::default_atom_name, false);
            EvalError::Size { size, error }
        }
        other => other,
    }
}

/// Runs a whole program: applies its size parameters to `sizes` (outermost first) and its value
/// parameters to `args`. The divisibility facts the type checker relied on are checked first
/// (`m/32` with `m = 80` is an error), then each argument against its parameter's type.
pub fn run_program(p: &TypedProgram, sizes: &[u64], args: Vec<Value>) -> Result<Value, EvalError> {
    if sizes.len() != p.size_params.len() {
        return Err(EvalError::Arity {
            what: "size",
            expected: p.size_params.len(),
            found: sizes.len(),
        });
    }
    if args.len() != p.value_params.len() {
        return Err(EvalError::Arity {
            what: "value",
            expected: p.value_params.len(),
            found: args.len(),
        });
    }
    let lookup = slice_lookup(sizes);
    for fact in &p.facts {
        eval_nat_in(fact, &lookup).map_err(|e| name_sizes(e, fact, &p.size_params))?;
    }
    if let Ok((params, _)) = program_signature(p) {
        let nat_env: Vec<u64> = sizes.iter().rev().copied().collect();
        for ((ty, arg), name) in params.iter().zip(&args).zip(&p.value_params) {
            if ty.is_data() {
                arg.check_type(ty, &nat_env).map_err(|e| match e {
                    EvalError::Type {
                        expected, found, ..
                    } => EvalError::Type {
                        context: format!("parameter {name}"),
                        expected,
                        found,
                    },
                    other => other,
                })?;
            }
        }
    }
    let mut f = eval(&p.term, &Env::new())?;
    for &n in sizes {
        f = apply_nat(&f, n)?;
    }
    for a in args {
        f = apply(&f, a)?;
    }
    Ok(f)
}

/// Evaluates an open term with `values` for its free expression variables and `sizes` for its
/// free nat variables, both outermost first: [`eval()`] with [`Env::from_slices`].
pub fn eval_with(expr: &Expr, values: &[Value], sizes: &[u64]) -> Result<Value, EvalError> {
    eval(expr, &Env::from_slices(values, sizes))
}
