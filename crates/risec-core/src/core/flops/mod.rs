//! Floating-point operation counts: how many float operations one run of a program performs
//! at given sizes, the numerator of the GFLOP/s a benchmark reports.
//!
//! [`flop_count`] counts the program *as written*, under Rise's naive (strict) semantics, the
//! conventional count: a dot product is 2n, matrix multiplication as `map`/`map`/`reduce (+)`
//! of products is 2·m·n·k, a 3×3 stencil with fixed weights is 18 per output element. The count
//! depends only on the sizes, never on the data.
//!
//! **What one execution costs.**
//! * `add`, `sub`, `mul`, `div` and `neg` on `f32` or `f64` cost 1; on a vector `<w>f32` they
//!   cost w (one per lane). The math functions `exp`, `log`, `sqrt`, `abs`, `max` and `min`
//!   count the same way, 1 per float lane each, although a call of `exp` or `log` takes many
//!   instructions: the count is of operations the program asks for, not of machine work.
//! * Everything else costs 0: the same primitives on integers (`i32`, `i64`) and all index
//!   arithmetic; `natToFloat` (a conversion of a size, known before the inputs are read);
//!   comparisons (`lt`, `gt`, `eq`, on floats too) and `select`, following the
//!   usual convention that only arithmetic is counted; and every primitive that only moves or
//!   views data (`zip`, `unzip`, `fst`, `snd`, `makePair`, `split`, `join`, `transpose`, `slide`,
//!   `pad`, `padClamp`, `take`, `drop`, `idx`, `toMem`, `asVector`, `asVectorAligned`,
//!   `asScalar`, `vectorFromScalar`, `let`).
//! * Constant folding: an operation none of whose operands depends on the program's value
//!   parameters costs 0, as a compiler computes it once (the weights of a stencil built as
//!   `outer binomial binomial`, `2.0 * 3.0`). Dependence is followed through pairs, arrays and
//!   functions; a value chosen by an input-dependent `idx` index or `select` condition is
//!   input-dependent; a reduction's accumulator is one loop-carried value, input-dependent at
//!   every step when it is at any (`reduce (fun acc x => acc * 2.0 + x) 1.0 xs` costs 2n).
//!
//! **How many executions.** Terms are evaluated strictly, as the interpreter does, each time
//! their enclosing code runs:
//! * `map f xs` (and `mapSeq`, `mapSeqUnroll`, `mapPar`) runs `f` len(xs) times;
//! * `generate f : n.t` runs `f` n times;
//! * `reduce f init xs` (and `reduceSeq`, `reduceSeqUnroll`) runs `f` len(xs) times: a sum of n
//!   elements from an initial value costs n additions (with `0.0` as the initial value too);
//! * a lambda's body runs once per application, and an argument is evaluated once, however
//!   often the body uses it (`let`, and the helper definitions the front end inlines as applied
//!   lambdas, share their values); a lambda never applied costs nothing;
//! * `select` evaluates both of its branches, so both are counted.
//!
//! Lengths come from the types, evaluated at the given sizes; nothing is unrolled, so counting
//! takes time proportional to the program's length, not to its sizes.

mod count;
mod prims;
mod value;

use super::{Expr, ExprKind, TypedProgram};
use crate::ir::primitive::Primitive;
use crate::ir::types::TypeNode;
use count::Counter;
use value::{Dep, Env, Val};

/// The floating-point operations one call of `program`, as written, performs at these sizes
/// (given in the order of `program.size_params`), counted as the module documentation says.
///
/// `None` when the program has no float arithmetic at all (no `add`, `sub`, `mul`, `div`,
/// `neg` or math function on a float type anywhere: `transpose`, integer programs), when the sizes are not one
/// per size parameter or break a divisibility fact the program relies on, when a size does not
/// evaluate to a natural number, when the count does not fit in 64 bits, when a value
/// parameter is a function, or when the term is not one the counter can follow (ill-typed, or
/// too costly to run abstractly). `Some(0)` is a program with float arithmetic that performs
/// none at these sizes (an empty array, or only constants).
pub fn flop_count(program: &TypedProgram, sizes: &[u64]) -> Option<u64> {
    if sizes.len() != program.size_params.len()
        || program.violated_fact(sizes).is_some()
        || !has_float_arithmetic(&program.term)
    {
        return None;
    }
    let mut counter = Counter::new();
    let mut f: Val = counter.eval(&program.term, &Env::new()).ok()?;
    for &n in sizes {
        f = counter.apply_nat(f, n).ok()?;
    }
    for _ in &program.value_params {
        f = counter.apply(f, Val::Data(Dep::Input)).ok()?;
    }
    Some(counter.total())
}

/// Whether `term` contains float arithmetic: an `add`, `sub`, `mul`, `div`, `neg`, `exp`,
/// `log`, `sqrt`, `abs`, `max` or `min` node on `f32`, `f64` or a vector of them.
pub fn has_float_arithmetic(term: &Expr) -> bool {
    use Primitive::*;
    let mut stack = vec![term];
    while let Some(e) = stack.pop() {
        match &e.kind {
            ExprKind::Lambda(b) | ExprKind::NatLambda(b) | ExprKind::NatApp(b, _) => stack.push(b),
            ExprKind::App(f, a) => {
                stack.push(f);
                stack.push(a);
            }
            ExprKind::Prim(Add | Sub | Mul | Div | Neg | Exp | Log | Sqrt | Abs | Max | Min) => {
                if let TypeNode::Fun(operand, _) = e.ty.get() {
                    if prims::is_float(operand) {
                        return true;
                    }
                }
            }
            ExprKind::Var(_) | ExprKind::Prim(_) | ExprKind::Literal(_) => {}
        }
    }
    false
}
