//! The math primitives in the interpreter: values, edge values (zeros of both signs, infinities,
//! NaN, values out of the functions' domains), `f32` computed in `f32`, vectors lane by lane,
//! and `natToFloat`.

use super::*;

/// `p x` on an `f32`, a bit pattern (NaN compares by being NaN).
fn unary32(p: Primitive, x: f32) -> f32 {
    let e = app(prim(p, &[], &[f32()]), var(0, f32()));
    match run1(&e, Value::F32(x)).unwrap() {
        Value::F32(y) => y,
        other => panic!("{}: {other}", p.name()),
    }
}

fn unary64(p: Primitive, x: f64) -> f64 {
    let e = app(prim(p, &[], &[f64t()]), var(0, f64t()));
    match run1(&e, Value::F64(x)).unwrap() {
        Value::F64(y) => y,
        other => panic!("{}: {other}", p.name()),
    }
}

fn binary32(p: Primitive, a: f32, b: f32) -> f32 {
    let e = bin(p, f32(), var(1, f32()), var(0, f32()));
    let env = Env::from_slices(&[Value::F32(a), Value::F32(b)], &[]);
    match eval(&e, &env).unwrap() {
        Value::F32(y) => y,
        other => panic!("{}: {other}", p.name()),
    }
}

/// The same float, NaN included, and the same sign of zero.
fn same(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

#[test]
fn exp_and_log_in_f32() {
    let inf = f32::INFINITY;
    let cases = [
        (P::Exp, 0.0, 1.0),
        (P::Exp, -0.0, 1.0),
        (P::Exp, 100.0, inf),
        (P::Exp, -200.0, 0.0),
        (P::Exp, -inf, 0.0),
        (P::Exp, inf, inf),
        (P::Log, 1.0, 0.0),
        (P::Log, 0.0, -inf),
        (P::Log, -0.0, -inf),
        (P::Log, inf, inf),
        (P::Log, -1.0, f32::NAN),
        (P::Exp, f32::NAN, f32::NAN),
    ];
    for (p, x, want) in cases {
        let got = unary32(p, x);
        assert!(same(got, want), "{} {x}: {got}, wanted {want}", p.name());
    }
    // Computed in f32: the f32 function's result, not the f64 one's rounded.
    for x in [0.3f32, -7.25, 42.0, 1e-3] {
        assert_eq!(unary32(P::Exp, x).to_bits(), x.exp().to_bits());
        assert_eq!(unary32(P::Log, x.abs()).to_bits(), x.abs().ln().to_bits());
    }
}

#[test]
fn sqrt_and_abs_keep_zeros_and_sqrt_of_a_negative_is_nan() {
    let inf = f32::INFINITY;
    let cases = [
        (P::Sqrt, 4.0, 2.0),
        (P::Sqrt, 2.0, std::f32::consts::SQRT_2),
        (P::Sqrt, 0.0, 0.0),
        (P::Sqrt, -0.0, -0.0),
        (P::Sqrt, inf, inf),
        (P::Sqrt, -1.0, f32::NAN),
        (P::Abs, -2.5, 2.5),
        (P::Abs, 2.5, 2.5),
        (P::Abs, -0.0, 0.0),
        (P::Abs, -inf, inf),
        (P::Abs, f32::MIN, f32::MAX),
    ];
    for (p, x, want) in cases {
        let got = unary32(p, x);
        assert!(same(got, want), "{} {x}: {got}, wanted {want}", p.name());
    }
    assert!(unary32(P::Abs, f32::NAN).is_nan());
}

#[test]
fn max_and_min_ignore_a_nan_operand() {
    let nan = f32::NAN;
    let cases = [
        (P::Max, 1.0, 2.0, 2.0),
        (P::Max, 2.0, 1.0, 2.0),
        (P::Max, -1.0, -2.0, -1.0),
        (P::Max, nan, 1.0, 1.0),
        (P::Max, 1.0, nan, 1.0),
        (P::Max, -f32::INFINITY, -3.0, -3.0),
        (P::Min, 1.0, 2.0, 1.0),
        (P::Min, 2.0, 1.0, 1.0),
        (P::Min, nan, 1.0, 1.0),
        (P::Min, 1.0, nan, 1.0),
        (P::Min, f32::INFINITY, 3.0, 3.0),
        // Of two equal operands (zeros of both signs), the second.
        (P::Max, 0.0, -0.0, -0.0),
        (P::Max, -0.0, 0.0, 0.0),
        (P::Min, 0.0, -0.0, -0.0),
    ];
    for (p, a, b, want) in cases {
        let got = binary32(p, a, b);
        assert!(
            same(got, want),
            "{} {a} {b}: {got}, wanted {want}",
            p.name()
        );
    }
    assert!(binary32(P::Max, nan, nan).is_nan());
}

#[test]
fn f64_math_is_computed_in_f64() {
    assert_eq!(unary64(P::Exp, 1.0), 1.0f64.exp());
    assert_eq!(unary64(P::Log, 1e300), 1e300f64.ln());
    // exp 100 overflows f32 but not f64.
    assert!(unary64(P::Exp, 100.0).is_finite());
    assert_eq!(unary64(P::Sqrt, 2.0), std::f64::consts::SQRT_2);
    assert_eq!(unary64(P::Abs, -0.5), 0.5);
    let e = bin(P::Min, f64t(), var(1, f64t()), var(0, f64t()));
    let env = Env::from_slices(&[Value::F64(-1.0), Value::F64(3.0)], &[]);
    assert_eq!(eval(&e, &env).unwrap(), Value::F64(-1.0));
}

#[test]
fn math_on_vectors_is_lane_by_lane() {
    let v4 = vector(lit(4), f32());
    let x = vecf(&[1.0, -4.0, 0.0, 9.0]);
    let e = app(
        prim(P::Abs, &[], std::slice::from_ref(&v4)),
        var(0, v4.clone()),
    );
    assert_eq!(run1(&e, x.clone()).unwrap(), vecf(&[1.0, 4.0, 0.0, 9.0]));
    let e = app(
        prim(P::Sqrt, &[], std::slice::from_ref(&v4)),
        var(0, v4.clone()),
    );
    let got = run1(&e, x.clone()).unwrap().to_string();
    assert_eq!(got, "<1, NaN, 0, 3>");
    let e = app(
        prim(P::Exp, &[], std::slice::from_ref(&v4)),
        var(0, v4.clone()),
    );
    let want: Vec<f32> = [1.0f32, -4.0, 0.0, 9.0].iter().map(|x| x.exp()).collect();
    assert_eq!(run1(&e, x.clone()).unwrap(), vecf(&want));
    let e = bin(P::Max, v4.clone(), var(1, v4.clone()), var(0, v4.clone()));
    let env = Env::from_slices(&[x.clone(), vecf(&[2.0, -5.0, f32::NAN, 1.0])], &[]);
    assert_eq!(eval(&e, &env).unwrap(), vecf(&[2.0, -4.0, 0.0, 9.0]));
    let e = bin(P::Min, v4.clone(), var(1, v4.clone()), var(0, v4));
    assert_eq!(eval(&e, &env).unwrap(), vecf(&[1.0, -5.0, 0.0, 1.0]));
}

#[test]
fn math_on_other_types_is_an_error_not_a_panic() {
    let e = app(prim(P::Exp, &[], &[i32t()]), liti(3));
    assert!(matches!(run(&e), Err(EvalError::Type { .. })));
    let e = bin(P::Max, i32t(), liti(1), liti(2));
    assert!(matches!(run(&e), Err(EvalError::Type { .. })));
    let v2 = vector(lit(2), f32());
    let v3 = vector(lit(3), f32());
    let e = bin(P::Max, v2.clone(), var(1, v2), var(0, v3));
    let env = Env::from_slices(&[vecf(&[1.0, 2.0]), vecf(&[1.0, 2.0, 3.0])], &[]);
    assert!(matches!(
        eval(&e, &env),
        Err(EvalError::LengthMismatch { .. })
    ));
}

#[test]
fn nat_to_float_converts_a_size_to_the_result_type() {
    let to32 = napp(prim(P::NatToFloat, &[], &[f32()]), lit(7));
    assert_eq!(ok(&to32), Value::F32(7.0));
    let to64 = napp(prim(P::NatToFloat, &[], &[f64t()]), lit(1 << 40));
    assert_eq!(ok(&to64), Value::F64((1u64 << 40) as f64));
    // A size of the context: `fun (n : nat) => natToFloat (n * 2)`.
    let twice = nat::mul(&nat::index(0), &lit(2));
    let e = nlam(napp(prim(P::NatToFloat, &[], &[f32()]), twice));
    assert_eq!(apply_nat(&ok(&e), 5).unwrap(), Value::F32(10.0));
    // Rounded to the nearest f32: 2^24 + 1 is not an f32.
    let big = napp(prim(P::NatToFloat, &[], &[f32()]), lit((1 << 24) + 1));
    assert_eq!(ok(&big), Value::F32(16_777_216.0));
    // Partially applied, it waits for its size.
    let e = nlam(napp(prim(P::NatToFloat, &[], &[f32()]), nat::index(0)));
    let f = ok(&e);
    assert_eq!(apply_nat(&f, 0).unwrap(), Value::F32(0.0));
    // A result type that is not a float is an error.
    let bad = napp(prim(P::NatToFloat, &[], &[i32t()]), lit(1));
    assert!(matches!(run(&bad), Err(EvalError::Type { .. })));
}
