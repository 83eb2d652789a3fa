//! Tests of the interpreter on hand-built core terms.

use super::random::{random_args, random_sizes, random_value, Rng};
use super::*;
use crate::core::{Expr, ExprKind, Literal, TypedProgram};
use crate::ir::nat::{self, Nat};
use crate::ir::primitive::{instantiate, Primitive, Primitive as P};
use crate::ir::types::{
    self, array, f32, fun, idx, instantiate_nat_fun, nat_fun, pair, scalar, vector, ScalarType,
};

// ---- term builders -------------------------------------------------------------------------

fn i32t() -> Type {
    scalar(ScalarType::I32)
}
fn f64t() -> Type {
    scalar(ScalarType::F64)
}
fn i64t() -> Type {
    scalar(ScalarType::I64)
}
fn boolt() -> Type {
    scalar(ScalarType::Bool)
}
fn lit(n: u64) -> Nat {
    nat::lit(n)
}

/// A primitive node instantiated with sizes and types for its scheme's placeholders.
fn prim(p: Primitive, nats: &[Nat], tys: &[Type]) -> Expr {
    Expr::new(ExprKind::Prim(p), instantiate(&p.scheme(), nats, tys))
}
fn app(f: Expr, a: Expr) -> Expr {
    let ty = match f.ty.get() {
        TypeNode::Fun(_, r) => r.clone(),
        _ => panic!("applying a non-function of type {}", f.ty),
    };
    Expr::new(ExprKind::App(Box::new(f), Box::new(a)), ty)
}
fn apps(f: Expr, args: Vec<Expr>) -> Expr {
    args.into_iter().fold(f, app)
}
fn napp(f: Expr, n: Nat) -> Expr {
    let ty = match f.ty.get() {
        TypeNode::NatFun(b) => instantiate_nat_fun(b, &n),
        _ => panic!("nat-applying a non-nat-function"),
    };
    Expr::new(ExprKind::NatApp(Box::new(f), n), ty)
}
fn lam(param: Type, body: Expr) -> Expr {
    let ty = fun(param, body.ty.clone());
    Expr::new(ExprKind::Lambda(Box::new(body)), ty)
}
fn nlam(body: Expr) -> Expr {
    let ty = nat_fun(body.ty.clone());
    Expr::new(ExprKind::NatLambda(Box::new(body)), ty)
}
fn var(i: u32, ty: Type) -> Expr {
    Expr::new(ExprKind::Var(i), ty)
}
fn litf(x: f32) -> Expr {
    Expr::new(ExprKind::Literal(Literal::f32(x)), f32())
}
fn liti(x: i32) -> Expr {
    Expr::new(ExprKind::Literal(Literal::I32(x)), i32t())
}
/// `op a b` for a binary primitive at type `t`.
fn bin(p: Primitive, t: Type, a: Expr, b: Expr) -> Expr {
    apps(prim(p, &[], &[t]), vec![a, b])
}

// ---- value builders ------------------------------------------------------------------------

fn fs(xs: &[f32]) -> Value {
    Value::f32_array(xs)
}
fn is(xs: &[i32]) -> Value {
    Value::array(xs.iter().map(|&x| Value::I32(x)))
}
fn mat(rows: &[&[f32]]) -> Value {
    Value::array(rows.iter().map(|r| fs(r)))
}
fn vecf(xs: &[f32]) -> Value {
    Value::vector(xs.iter().map(|&x| Value::F32(x)))
}
/// A closed term given as a literal array value, typed `n.f32`.
fn data(v: &Value, ty: Type) -> (Expr, Value) {
    (var(0, ty), v.clone())
}
fn run(e: &Expr) -> Result<Value, EvalError> {
    eval(e, &Env::new())
}
/// Evaluates `e` with one free variable (index 0) bound to `x`.
fn run1(e: &Expr, x: Value) -> Result<Value, EvalError> {
    eval(e, &Env::new().with_value(x))
}
fn ok(e: &Expr) -> Value {
    run(e).unwrap_or_else(|err| panic!("evaluation failed: {err}"))
}
fn arr_t(n: u64, t: Type) -> Type {
    array(lit(n), t)
}

#[test]
fn maps_apply_a_function_to_every_element() {
    let xs_t = arr_t(3, f32());
    for p in [P::Map, P::MapSeq, P::MapSeqUnroll, P::MapPar] {
        let inc = lam(f32(), bin(P::Add, f32(), var(0, f32()), litf(1.0)));
        let (xs, xv) = data(&fs(&[1.0, 2.0, 3.5]), xs_t.clone());
        let e = apps(prim(p, &[lit(3)], &[f32(), f32()]), vec![inc, xs]);
        assert_eq!(run1(&e, xv).unwrap(), fs(&[2.0, 3.0, 4.5]), "{}", p.name());
    }
}

#[test]
fn reductions_fold_left_from_the_initial_value() {
    let xs_t = arr_t(3, f32());
    // reduce sub 10 [1, 2, 3] = ((10 - 1) - 2) - 3 = 4
    let (xs, xv) = data(&fs(&[1.0, 2.0, 3.0]), xs_t.clone());
    let e = apps(
        prim(P::Reduce, &[lit(3)], &[f32()]),
        vec![prim(P::Sub, &[], &[f32()]), litf(10.0), xs],
    );
    assert_eq!(run1(&e, xv).unwrap(), Value::F32(4.0));
    // reduceSeq (fun acc x => acc * 10 + x) 0 [1, 2, 3] = 123, with a lambda of two parameters
    for p in [P::ReduceSeq, P::ReduceSeqUnroll] {
        let step = lam(
            i32t(),
            lam(
                i32t(),
                bin(
                    P::Add,
                    i32t(),
                    bin(P::Mul, i32t(), var(1, i32t()), liti(10)),
                    var(0, i32t()),
                ),
            ),
        );
        let (xs, xv) = data(&is(&[1, 2, 3]), arr_t(3, i32t()));
        let e = apps(
            prim(p, &[lit(3)], &[i32t(), i32t()]),
            vec![step, liti(0), xs],
        );
        assert_eq!(run1(&e, xv).unwrap(), Value::I32(123), "{}", p.name());
    }
    // a fold whose accumulator type differs from the element type: count true elements
    let bools = Value::array([true, false, true].map(Value::Bool));
    let step = lam(
        i32t(),
        lam(
            boolt(),
            apps(
                prim(P::Select, &[], &[i32t()]),
                vec![
                    var(0, boolt()),
                    bin(P::Add, i32t(), var(1, i32t()), liti(1)),
                    var(1, i32t()),
                ],
            ),
        ),
    );
    let e = apps(
        prim(P::ReduceSeq, &[lit(3)], &[boolt(), i32t()]),
        vec![step, liti(0), var(0, arr_t(3, boolt()))],
    );
    assert_eq!(run1(&e, bools).unwrap(), Value::I32(2));
}

#[test]
fn pairs_zip_and_unzip() {
    let env = Env::from_slices(&[fs(&[1.0, 2.0]), is(&[3, 4])], &[]);
    let (xs, ys) = (var(1, arr_t(2, f32())), var(0, arr_t(2, i32t())));
    let zipped = apps(prim(P::Zip, &[lit(2)], &[f32(), i32t()]), vec![xs, ys]);
    let expected = Value::array([
        Value::pair(Value::F32(1.0), Value::I32(3)),
        Value::pair(Value::F32(2.0), Value::I32(4)),
    ]);
    assert_eq!(eval(&zipped, &env).unwrap(), expected);
    assert_eq!(eval(&zipped, &env).unwrap().to_string(), "[(1, 3), (2, 4)]");
    let unzipped = app(prim(P::Unzip, &[lit(2)], &[f32(), i32t()]), zipped.clone());
    assert_eq!(
        eval(&unzipped, &env).unwrap(),
        Value::pair(fs(&[1.0, 2.0]), is(&[3, 4]))
    );
    let pair_t = pair(f32(), i32t());
    let p = apps(
        prim(P::MakePair, &[], &[f32(), i32t()]),
        vec![litf(0.5), liti(7)],
    );
    assert_eq!(ok(&p), Value::pair(Value::F32(0.5), Value::I32(7)));
    assert_eq!(
        ok(&app(prim(P::Fst, &[], &[f32(), i32t()]), p.clone())),
        Value::F32(0.5)
    );
    assert_eq!(
        ok(&app(prim(P::Snd, &[], &[f32(), i32t()]), p)),
        Value::I32(7)
    );
    assert!(pair_t.is_data());
}

#[test]
fn split_join_transpose() {
    let xs = var(0, arr_t(6, f32()));
    let xv = fs(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let split = app(napp(prim(P::Split, &[lit(3)], &[f32()]), lit(2)), xs);
    let splitv = mat(&[&[1.0, 2.0], &[3.0, 4.0], &[5.0, 6.0]]);
    assert_eq!(run1(&split, xv.clone()).unwrap(), splitv);
    let joined = app(prim(P::Join, &[lit(3), lit(2)], &[f32()]), split.clone());
    assert_eq!(run1(&joined, xv.clone()).unwrap(), xv);
    let tr = app(prim(P::Transpose, &[lit(3), lit(2)], &[f32()]), split);
    assert_eq!(
        run1(&tr, xv).unwrap(),
        mat(&[&[1.0, 3.0, 5.0], &[2.0, 4.0, 6.0]])
    );
    // transpose of an empty matrix: the row count of the result comes from the type (0.3 -> 3.0)
    let empty = app(
        prim(P::Transpose, &[lit(0), lit(3)], &[f32()]),
        var(0, arr_t(0, arr_t(3, f32()))),
    );
    assert_eq!(
        run1(&empty, Value::array([])).unwrap(),
        Value::array(vec![Value::array([]); 3])
    );
    // join of an empty array
    let ej = app(
        prim(P::Join, &[lit(0), lit(4)], &[f32()]),
        var(0, arr_t(0, arr_t(4, f32()))),
    );
    assert_eq!(run1(&ej, Value::array([])).unwrap(), Value::array([]));
}

#[test]
fn slide_pad_take_drop() {
    let xs = var(0, arr_t(5, f32()));
    let xv = fs(&[1.0, 2.0, 3.0, 4.0, 5.0]);
    // slide 3 1: n = 3 windows
    let s = app(
        napp(napp(prim(P::Slide, &[lit(3)], &[f32()]), lit(3)), lit(1)),
        xs.clone(),
    );
    assert_eq!(
        run1(&s, xv.clone()).unwrap(),
        mat(&[&[1.0, 2.0, 3.0], &[2.0, 3.0, 4.0], &[3.0, 4.0, 5.0]])
    );
    // slide 1 2 on 5 elements: 2*n + 1 - 2 = 5, n = 3
    let s = app(
        napp(napp(prim(P::Slide, &[lit(3)], &[f32()]), lit(1)), lit(2)),
        xs.clone(),
    );
    assert_eq!(
        run1(&s, xv.clone()).unwrap(),
        mat(&[&[1.0], &[3.0], &[5.0]])
    );
    // pad 1 2 with 0
    let p = apps(
        napp(napp(prim(P::Pad, &[lit(5)], &[f32()]), lit(1)), lit(2)),
        vec![litf(0.0), xs.clone()],
    );
    assert_eq!(
        run1(&p, xv.clone()).unwrap(),
        fs(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 0.0])
    );
    // padClamp 2 1
    let p = app(
        napp(napp(prim(P::PadClamp, &[lit(5)], &[f32()]), lit(2)), lit(1)),
        xs.clone(),
    );
    assert_eq!(
        run1(&p, xv.clone()).unwrap(),
        fs(&[1.0, 1.0, 1.0, 2.0, 3.0, 4.0, 5.0, 5.0])
    );
    let t = app(napp(prim(P::Take, &[lit(3)], &[f32()]), lit(2)), xs.clone());
    assert_eq!(run1(&t, xv.clone()).unwrap(), fs(&[1.0, 2.0]));
    let d = app(napp(prim(P::Drop, &[lit(3)], &[f32()]), lit(2)), xs);
    assert_eq!(run1(&d, xv).unwrap(), fs(&[3.0, 4.0, 5.0]));
}

#[test]
fn generate_and_idx_under_a_nat_lambda() {
    // fun (n : nat) => fun (xs : n.f32) => generate (fun (i : idx[n]) => idx i xs)
    let n = nat::index(0);
    let xs_t = array(n.clone(), f32());
    let body = app(
        prim(P::Generate, std::slice::from_ref(&n), &[f32()]),
        lam(
            idx(n.clone()),
            apps(
                prim(P::Idx, std::slice::from_ref(&n), &[f32()]),
                vec![var(0, idx(n.clone())), var(1, xs_t.clone())],
            ),
        ),
    );
    let term = nlam(lam(xs_t, body));
    let f = apply_nat(&ok(&term), 4).unwrap();
    let xv = fs(&[4.0, 3.0, 2.0, 1.0]);
    assert_eq!(apply(&f, xv.clone()).unwrap(), xv);
    // generate the indices themselves: the length comes from the type at n = 5
    let gen = nlam(app(
        prim(P::Generate, &[nat::index(0)], &[idx(nat::index(0))]),
        lam(idx(nat::index(0)), var(0, idx(nat::index(0)))),
    ));
    let v = apply_nat(&ok(&gen), 5).unwrap();
    assert_eq!(v.to_string(), "[0, 1, 2, 3, 4]");
    assert_eq!(v.as_array().unwrap()[3], Value::Idx(3));
    // the same through a nat application node inside the term
    assert_eq!(ok(&napp(gen, lit(2))).to_string(), "[0, 1]");
}

#[test]
fn let_and_partial_application() {
    // let 3 (fun x => x * x)
    let sq = lam(f32(), bin(P::Mul, f32(), var(0, f32()), var(0, f32())));
    let e = apps(prim(P::Let, &[], &[f32(), f32()]), vec![litf(3.0), sq]);
    assert_eq!(ok(&e), Value::F32(9.0));
    // let (split 2) (fun s => s xs): a partially applied primitive as a value
    let split2 = napp(prim(P::Split, &[lit(2)], &[f32()]), lit(2));
    let s_t = split2.ty.clone();
    let body = lam(
        s_t.clone(),
        app(var(0, s_t.clone()), var(1, arr_t(4, f32()))),
    );
    let e = apps(
        prim(P::Let, &[], &[s_t, arr_t(2, arr_t(2, f32()))]),
        vec![split2, body],
    );
    assert_eq!(
        run1(&e, fs(&[1.0, 2.0, 3.0, 4.0])).unwrap(),
        mat(&[&[1.0, 2.0], &[3.0, 4.0]])
    );
    // a bare primitive applied through `apply` and `apply_nat`
    let split = ok(&prim(P::Split, &[lit(3)], &[f32()]));
    assert!(split.is_function());
    let s = apply_nat(&split, 1).unwrap();
    assert_eq!(
        apply(&s, fs(&[1.0, 2.0, 3.0])).unwrap(),
        mat(&[&[1.0], &[2.0], &[3.0]])
    );
    let add = ok(&prim(P::Add, &[], &[f32()]));
    let add1 = apply(&add, Value::F32(1.0)).unwrap();
    assert_eq!(apply(&add1, Value::F32(2.0)).unwrap(), Value::F32(3.0));
    assert_eq!(add1.to_string(), "<add 1>");
}

#[test]
fn scalar_arithmetic() {
    let cases: Vec<(Primitive, Value, Value, Value)> = vec![
        (P::Add, Value::F32(1.5), Value::F32(2.0), Value::F32(3.5)),
        (P::Sub, Value::F64(1.5), Value::F64(2.0), Value::F64(-0.5)),
        (P::Mul, Value::I32(-3), Value::I32(4), Value::I32(-12)),
        (P::Div, Value::I32(-7), Value::I32(2), Value::I32(-3)),
        (P::Div, Value::I64(9), Value::I64(2), Value::I64(4)),
        (P::Div, Value::F32(1.0), Value::F32(4.0), Value::F32(0.25)),
        (
            P::Add,
            Value::I32(i32::MAX),
            Value::I32(1),
            Value::I32(i32::MIN),
        ),
        (
            P::Div,
            Value::I32(i32::MIN),
            Value::I32(-1),
            Value::I32(i32::MIN),
        ),
        (P::Lt, Value::F32(1.0), Value::F32(2.0), Value::Bool(true)),
        (P::Gt, Value::I64(1), Value::I64(2), Value::Bool(false)),
        (P::Eq, Value::I32(2), Value::I32(2), Value::Bool(true)),
        (
            P::Eq,
            Value::Bool(true),
            Value::Bool(false),
            Value::Bool(false),
        ),
        (P::Eq, fs(&[1.0, 2.0]), fs(&[1.0, 2.0]), Value::Bool(true)),
    ];
    for (p, a, b, expected) in cases {
        let t = match a.scalar_type() {
            Some(s) => scalar(s),
            None => arr_t(2, f32()),
        };
        let e = bin(p, t.clone(), var(1, t.clone()), var(0, t));
        let env = Env::from_slices(&[a.clone(), b.clone()], &[]);
        assert_eq!(eval(&e, &env).unwrap(), expected, "{} {a} {b}", p.name());
    }
    let neg = app(prim(P::Neg, &[], &[i32t()]), liti(i32::MIN));
    assert_eq!(ok(&neg), Value::I32(i32::MIN));
    let neg = app(
        prim(P::Neg, &[], &[f64t()]),
        Expr::new(ExprKind::Literal(Literal::f64(2.5)), f64t()),
    );
    assert_eq!(ok(&neg), Value::F64(-2.5));
    let i64lit = Expr::new(ExprKind::Literal(Literal::I64(5)), i64t());
    assert_eq!(
        ok(&app(prim(P::Neg, &[], &[i64t()]), i64lit)),
        Value::I64(-5)
    );
    let sel = apps(
        prim(P::Select, &[], &[f32()]),
        vec![
            bin(P::Lt, f32(), litf(3.0), litf(2.0)),
            litf(1.0),
            litf(2.0),
        ],
    );
    assert_eq!(ok(&sel), Value::F32(2.0));
    let tm = app(
        prim(P::ToMem, &[], &[arr_t(2, f32())]),
        var(0, arr_t(2, f32())),
    );
    assert_eq!(run1(&tm, fs(&[1.0, 2.0])).unwrap(), fs(&[1.0, 2.0]));
}

#[test]
fn vectors() {
    let xs = var(0, arr_t(4, f32()));
    let xv = fs(&[1.0, 2.0, 3.0, 4.0]);
    for p in [P::AsVector, P::AsVectorAligned] {
        let v = app(napp(prim(p, &[lit(2)], &[f32()]), lit(2)), xs.clone());
        let got = run1(&v, xv.clone()).unwrap();
        assert_eq!(got.to_string(), "[<1, 2>, <3, 4>]");
        let back = app(prim(P::AsScalar, &[lit(2), lit(2)], &[f32()]), v);
        assert_eq!(run1(&back, xv.clone()).unwrap(), xv);
    }
    // lane-wise arithmetic and broadcast with the lane count from the type
    let v4 = vector(lit(4), f32());
    let bcast = app(prim(P::VectorFromScalar, &[lit(4)], &[f32()]), litf(2.0));
    assert_eq!(ok(&bcast), vecf(&[2.0; 4]));
    let e = bin(P::Mul, v4.clone(), var(0, v4.clone()), bcast.clone());
    assert_eq!(
        run1(&e, vecf(&[1.0, 2.0, 3.0, 4.0])).unwrap(),
        vecf(&[2.0, 4.0, 6.0, 8.0])
    );
    let e = bin(P::Sub, v4.clone(), var(0, v4.clone()), bcast);
    assert_eq!(
        run1(&e, vecf(&[1.0, 2.0, 3.0, 4.0])).unwrap(),
        vecf(&[-1.0, 0.0, 1.0, 2.0])
    );
    let e = app(prim(P::Neg, &[], std::slice::from_ref(&v4)), var(0, v4));
    assert_eq!(
        run1(&e, vecf(&[1.0, -2.0, 0.5, 4.0])).unwrap(),
        vecf(&[-1.0, 2.0, -0.5, -4.0])
    );
    // vectorFromScalar with a symbolic lane count under a nat lambda
    let w = nat::index(0);
    let e = nlam(app(prim(P::VectorFromScalar, &[w], &[i32t()]), liti(7)));
    assert_eq!(apply_nat(&ok(&e), 3).unwrap().to_string(), "<7, 7, 7>");
}

#[test]
fn errors_are_reported_not_panics() {
    let zip = apps(
        prim(P::Zip, &[lit(3)], &[f32(), f32()]),
        vec![var(1, arr_t(3, f32())), var(0, arr_t(3, f32()))],
    );
    let env = Env::from_slices(&[fs(&[1.0, 2.0, 3.0]), fs(&[1.0, 2.0])], &[]);
    let err = eval(&zip, &env).unwrap_err();
    assert_eq!(
        err.to_string(),
        "arrays of different lengths passed to zip (3 and 2 elements)"
    );
    // idx 7 of 4 elements (the index is a free variable, so its type is not checked)
    let e = apps(
        prim(P::Idx, &[lit(4)], &[f32()]),
        vec![var(1, idx(lit(4))), var(0, arr_t(4, f32()))],
    );
    let env = Env::from_slices(&[Value::Idx(7), fs(&[0.0; 4])], &[]);
    assert_eq!(
        eval(&e, &env).unwrap_err().to_string(),
        "index 7 out of bounds for idx[4]"
    );
    // integer division by zero
    let e = bin(P::Div, i32t(), liti(1), liti(0));
    assert_eq!(run(&e).unwrap_err(), EvalError::DivisionByZero);
    // split 4 of 6 elements, take 5 of 3, padClamp of nothing
    let s = app(
        napp(prim(P::Split, &[lit(2)], &[f32()]), lit(4)),
        var(0, arr_t(8, f32())),
    );
    assert!(matches!(
        run1(&s, fs(&[0.0; 6])),
        Err(EvalError::Shape { prim: "split", .. })
    ));
    let t = app(
        napp(prim(P::Take, &[lit(0)], &[f32()]), lit(5)),
        var(0, arr_t(5, f32())),
    );
    assert!(matches!(
        run1(&t, fs(&[0.0; 3])),
        Err(EvalError::Shape { prim: "take", .. })
    ));
    let p = app(
        napp(napp(prim(P::PadClamp, &[lit(0)], &[f32()]), lit(1)), lit(1)),
        var(0, arr_t(0, f32())),
    );
    assert!(run1(&p, Value::array([])).is_err());
    // slide windows that do not fit
    let s = app(
        napp(napp(prim(P::Slide, &[lit(2)], &[f32()]), lit(3)), lit(2)),
        var(0, arr_t(4, f32())),
    );
    assert!(run1(&s, fs(&[0.0; 4])).is_err());
    // absurd sizes given to a bare primitive value
    let slide = ok(&prim(P::Slide, &[lit(2)], &[f32()]));
    let s = apply_nat(&apply_nat(&slide, u64::MAX).unwrap(), u64::MAX).unwrap();
    assert!(apply(&s, fs(&[0.0; 4])).is_err());
    let pad = ok(&prim(P::PadClamp, &[lit(2)], &[f32()]));
    let p = apply_nat(&apply_nat(&pad, u64::MAX).unwrap(), u64::MAX).unwrap();
    assert!(matches!(
        apply(&p, fs(&[0.0; 2])),
        Err(EvalError::TooLarge { .. })
    ));
    assert!(apply_nat(&p, 1).is_err());
    // ill-typed terms: unbound variable, adding a float to an int, applying a number
    assert_eq!(
        run(&var(2, f32())).unwrap_err(),
        EvalError::UnboundVariable { index: 2 }
    );
    let bad = apps(prim(P::Add, &[], &[f32()]), vec![litf(1.0), liti(1)]);
    assert!(matches!(run(&bad), Err(EvalError::Type { .. })));
    assert!(apply(&Value::F32(1.0), Value::F32(2.0)).is_err());
    assert!(apply_nat(&Value::F32(1.0), 2).is_err());
    assert!(apply_nat(&ok(&lam(f32(), var(0, f32()))), 2).is_err());
    let map_of_scalar = apps(
        prim(P::Map, &[lit(1)], &[f32(), f32()]),
        vec![prim(P::Neg, &[], &[f32()]), litf(1.0)],
    );
    assert!(matches!(run(&map_of_scalar), Err(EvalError::Type { .. })));
    // an unbound size: generate whose length is a free nat variable
    let g = app(
        prim(P::Generate, &[nat::index(0)], &[idx(nat::index(0))]),
        lam(idx(nat::index(0)), var(0, idx(nat::index(0)))),
    );
    assert!(matches!(run(&g), Err(EvalError::Size { .. })));
    // a size that is not a natural number: n/2 at n = 3
    let g = app(
        prim(P::Generate, &[nat::div(&nat::index(0), &lit(2))], &[f32()]),
        lam(idx(nat::index(0)), litf(0.0)),
    );
    let err = eval(&g, &Env::new().with_nat(3)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "size #0/2 evaluates to 3/2, which is not a natural number"
    );
    // a huge size is refused instead of exhausting memory
    let g = app(
        prim(P::VectorFromScalar, &[lit(1 << 40)], &[f32()]),
        litf(0.0),
    );
    assert!(matches!(run(&g), Err(EvalError::TooLarge { .. })));
}

mod math;
mod programs;
