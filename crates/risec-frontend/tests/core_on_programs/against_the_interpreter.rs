//! `flop_count` against operations counted by the interpreter as it runs the program.
//!
//! The interpreter has no counter of its own; the program is rewritten so that its float
//! values *are* counts: every float literal becomes 0, every float operation `x op y` becomes
//! `x + y + 1` (`neg x` becomes `x + 1`, lane-wise on vectors), and the inputs are all zeros.
//! Run by the interpreter, each float value is then the number of operations executed to
//! compute it, and the sum of the result's floats is the number executed in all, as long as
//! no computed float is used twice (it would be counted once per use), no float comparison
//! decides anything, and no operation is on constants alone (the interpreter counts what
//! `flop_count` folds). The programs below satisfy the first two; `blur` breaks the third on
//! purpose. The loops, their lengths and the nesting of functions are the interpreter's own,
//! at random small sizes.

use risec_core::core::flops::flop_count;
use risec_core::core::{Expr, ExprKind, Literal, TypedProgram};
use risec_core::interp::random::{random_args, random_sizes, Rng};
use risec_core::interp::{run_program, Value};
use risec_core::ir::primitive::Primitive;
use risec_core::ir::types::{fun, ScalarType, Type, TypeNode};
use std::rc::Rc;

/// `f a`.
fn app(f: Expr, a: Expr) -> Expr {
    let ty = match f.ty.get() {
        TypeNode::Fun(_, r) => r.clone(),
        _ => panic!("applying a non-function"),
    };
    Expr::new(ExprKind::App(Box::new(f), Box::new(a)), ty)
}

/// The constant 1 of a float type or a vector of floats.
fn one(t: &Type) -> Expr {
    match t.get() {
        TypeNode::Scalar(ScalarType::F32) => {
            Expr::new(ExprKind::Literal(Literal::f32(1.0)), t.clone())
        }
        TypeNode::Scalar(ScalarType::F64) => {
            Expr::new(ExprKind::Literal(Literal::f64(1.0)), t.clone())
        }
        TypeNode::Vector(_, s) => app(
            Expr::new(
                ExprKind::Prim(Primitive::VectorFromScalar),
                fun(s.clone(), t.clone()),
            ),
            one(s),
        ),
        _ => panic!("not a float type: {t}"),
    }
}

fn is_float(t: &Type) -> bool {
    match t.get() {
        TypeNode::Scalar(s) => matches!(s, ScalarType::F32 | ScalarType::F64),
        TypeNode::Vector(_, s) => is_float(s),
        _ => false,
    }
}

/// The counting replacement of an arithmetic primitive on the float type `t`:
/// `fun x y => x + y + 1`, or `fun x => x + 1` for `neg`.
fn counting_op(prim: Primitive, t: &Type) -> Expr {
    let add = || {
        Expr::new(
            ExprKind::Prim(Primitive::Add),
            fun(t.clone(), fun(t.clone(), t.clone())),
        )
    };
    let var = |i| Expr::new(ExprKind::Var(i), t.clone());
    let lambda = |body: Expr, ty: Type| Expr::new(ExprKind::Lambda(Box::new(body)), ty);
    if prim == Primitive::Neg {
        let body = app(app(add(), var(0)), one(t));
        return lambda(body, fun(t.clone(), t.clone()));
    }
    let body = app(app(add(), app(app(add(), var(1)), var(0))), one(t));
    let inner = lambda(body, fun(t.clone(), t.clone()));
    lambda(inner, fun(t.clone(), fun(t.clone(), t.clone())))
}

/// `e` rewritten so that its float values count the operations that computed them.
fn counting(e: &Expr) -> Expr {
    use Primitive::*;
    let kind = match &e.kind {
        ExprKind::Prim(p @ (Add | Sub | Mul | Div | Neg)) => match e.ty.get() {
            TypeNode::Fun(t, _) if is_float(t) => return counting_op(*p, t),
            _ => e.kind.clone(),
        },
        ExprKind::Literal(Literal::F32(_)) => ExprKind::Literal(Literal::f32(0.0)),
        ExprKind::Literal(Literal::F64(_)) => ExprKind::Literal(Literal::f64(0.0)),
        ExprKind::Lambda(b) => ExprKind::Lambda(Box::new(counting(b))),
        ExprKind::NatLambda(b) => ExprKind::NatLambda(Box::new(counting(b))),
        ExprKind::NatApp(f, n) => ExprKind::NatApp(Box::new(counting(f)), n.clone()),
        ExprKind::App(f, a) => ExprKind::App(Box::new(counting(f)), Box::new(counting(a))),
        ExprKind::Var(_) | ExprKind::Prim(_) | ExprKind::Literal(_) => e.kind.clone(),
    };
    Expr::new(kind, e.ty.clone())
}

/// `v` with every float set to 0.
fn zeros(v: &Value) -> Value {
    let all = |xs: &Rc<[Value]>| xs.iter().map(zeros).collect::<Vec<_>>().into();
    match v {
        Value::F32(_) => Value::F32(0.0),
        Value::F64(_) => Value::F64(0.0),
        Value::Array(xs) => Value::Array(all(xs)),
        Value::Vector(xs) => Value::Vector(all(xs)),
        Value::Pair(p) => Value::pair(zeros(&p.0), zeros(&p.1)),
        other => other.clone(),
    }
}

/// The sum of the floats of `v`.
fn sum(v: &Value) -> f64 {
    match v {
        Value::F32(x) => f64::from(*x),
        Value::F64(x) => *x,
        Value::Array(xs) | Value::Vector(xs) => xs.iter().map(sum).sum(),
        Value::Pair(p) => sum(&p.0) + sum(&p.1),
        _ => 0.0,
    }
}

/// The operations the interpreter executes running `p` at `sizes`.
fn interpreted(p: &TypedProgram, sizes: &[u64], rng: &mut Rng) -> u64 {
    let counting_program = TypedProgram {
        term: counting(&p.term),
        ..p.clone()
    };
    let args = random_args(p, sizes, rng)
        .unwrap()
        .iter()
        .map(zeros)
        .collect();
    let total = sum(&run_program(&counting_program, sizes, args).unwrap());
    // Counts stay far below 2^24, where f32 holds every integer exactly.
    assert!(
        total.fract() == 0.0 && total < f64::from(1 << 24),
        "{total}"
    );
    total as u64
}

fn example(path: &str) -> TypedProgram {
    super::example(path)
}

/// Compares at `trials` random sizes up to `max`; `folded` is what the interpreter counts
/// beyond `flop_count` (operations on constants alone).
fn compare(path: &str, max: u64, trials: usize, folded: impl Fn(&[u64]) -> u64) {
    let p = example(path);
    let mut rng = Rng::new(0x5eed ^ path.len() as u64);
    for _ in 0..trials {
        let sizes = random_sizes(&p, max, &mut rng).unwrap();
        let counted = flop_count(&p, &sizes).unwrap();
        assert_eq!(
            interpreted(&p, &sizes, &mut rng),
            counted + folded(&sizes),
            "{path} at {sizes:?}"
        );
    }
}

#[test]
fn high_level_programs_count_what_the_interpreter_executes() {
    for path in [
        "examples/matmul.rise",
        "examples/abt.rise",
        "examples/bmm.rise",
        "examples/dot.rise",
        "examples/axpy.rise",
        "examples/scal.rise",
        "examples/sumsq.rise",
        "examples/matvec.rise",
        "examples/gemvt.rise",
        "examples/fuse-transpose.rise",
        "examples/jacobi1d.rise",
        "examples/jacobi2d.rise",
        "examples/lowlevel/dot.rise",
    ] {
        compare(path, 9, 4, |_| 0);
    }
    // The ReLU compares `v` with 0.0, where `v` is a count of at least 1: the comparison
    // still keeps `v`, as the real one does on positive values.
    compare("examples/mmbr.rise", 9, 4, |_| 0);
    // The interpreter also multiplies the constant weights `outer binomial binomial` for
    // every output element: 9 products that `flop_count` folds.
    compare("examples/blur.rise", 9, 4, |s| 9 * s[0] * s[1]);
}

#[test]
fn lowered_programs_count_what_the_interpreter_executes() {
    // Tiles of 32 need sizes that are multiples of 32: sizes up to 64.
    for file in ["blocking", "loop-perm", "vectorization", "parallel"] {
        compare(&format!("examples/lowlevel/{file}.rise"), 64, 2, |_| 0);
    }
}
