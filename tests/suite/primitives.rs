//! Every primitive, written in source syntax, elaborated and run by the reference interpreter on
//! concrete inputs, against results computed by hand.

use risec_core::diagnostics::SourceFile;
use risec_core::interp::{run_program, Value};
use risec_frontend::load::compile_source;

/// Compiles `src`, runs it with the given sizes and `f32` vector arguments, and renders the result.
fn run(src: &str, sizes: &[u64], args: Vec<Value>) -> String {
    let file = SourceFile::new("prim.rise", src);
    let p = compile_source(&file, None).unwrap_or_else(|e| panic!("{src}\n{}", e.render()));
    match run_program(&p, sizes, args) {
        Ok(v) => v.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

fn v(xs: &[f32]) -> Value {
    Value::f32_array(xs)
}

fn m(rows: usize, cols: usize, xs: &[f32]) -> Value {
    Value::f32_matrix(rows, cols, xs).unwrap()
}

#[test]
fn high_level_primitives() {
    let x = || v(&[1.0, 2.0, 3.0, 4.0]);
    let cases: Vec<(&str, &[u64], Vec<Value>, &str)> = vec![
        (
            "def f {n : nat} (x : n.f32) = x |> map (fun a => a * 2.0)",
            &[4],
            vec![x()],
            "[2, 4, 6, 8]",
        ),
        (
            "def f {n : nat} (x : n.f32) = x |> reduce (+) 10.0",
            &[4],
            vec![x()],
            "20",
        ),
        (
            "def f {n : nat} (x : n.f32) = zip x x",
            &[2],
            vec![v(&[1.0, 2.0])],
            "[(1, 1), (2, 2)]",
        ),
        (
            "def f {n : nat} (x : n.f32) = zip x x |> unzip",
            &[2],
            vec![v(&[1.0, 2.0])],
            "([1, 2], [1, 2])",
        ),
        (
            "def f (x : f32) = fst (x, x + 1.0) + snd (x, x + 1.0)",
            &[],
            vec![Value::F32(1.0)],
            "3",
        ),
        (
            "def f (x : f32) = makePair x 2.0",
            &[],
            vec![Value::F32(1.0)],
            "(1, 2)",
        ),
        (
            "def f {n : nat} (x : (2*n).f32) = split 2 x",
            &[2],
            vec![x()],
            "[[1, 2], [3, 4]]",
        ),
        (
            "def f {n : nat} (x : (2*n).f32) = split 2 x |> join",
            &[2],
            vec![x()],
            "[1, 2, 3, 4]",
        ),
        (
            "def f {n m : nat} (x : n.m.f32) = transpose x",
            &[2, 2],
            vec![m(2, 2, &[1.0, 2.0, 3.0, 4.0])],
            "[[1, 3], [2, 4]]",
        ),
        (
            "def f {n : nat} (x : (n+2).f32) = slide 3 1 x",
            &[2],
            vec![x()],
            "[[1, 2, 3], [2, 3, 4]]",
        ),
        (
            "def f {n : nat} (x : (2*n+1).f32) = slide 3 2 x",
            &[1],
            vec![v(&[1.0, 2.0, 3.0])],
            "[[1, 2, 3]]",
        ),
        (
            "def f {n : nat} (x : n.f32) = pad 1 2 0.0 x",
            &[2],
            vec![v(&[5.0, 6.0])],
            "[0, 5, 6, 0, 0]",
        ),
        (
            "def f {n : nat} (x : n.f32) = padClamp 2 1 x",
            &[2],
            vec![v(&[5.0, 6.0])],
            "[5, 5, 5, 6, 6]",
        ),
        (
            "def f {n : nat} (x : (n+1).f32) = take 1 x",
            &[3],
            vec![x()],
            "[1]",
        ),
        (
            "def f {n : nat} (x : (n+1).f32) = drop 1 x",
            &[3],
            vec![x()],
            "[2, 3, 4]",
        ),
        (
            "def f {n : nat} (x : n.f32) = generate (fun (i : idx[n]) => idx i x * 10.0)",
            &[4],
            vec![x()],
            "[10, 20, 30, 40]",
        ),
        (
            "def f (x : f32) = let y = x * 3.0 in y + y",
            &[],
            vec![Value::F32(2.0)],
            "12",
        ),
        (
            "def f (x : f32) = (x - 1.0) / 2.0 * -x",
            &[],
            vec![Value::F32(3.0)],
            "-3",
        ),
        (
            "def f (x : f32) = select (lt x 2.0) 1.0 0.0",
            &[],
            vec![Value::F32(1.0)],
            "1",
        ),
        (
            "def f (x : f32) = (gt x 2.0, eq x 1.0)",
            &[],
            vec![Value::F32(1.0)],
            "(false, true)",
        ),
        (
            "def f (x : i32) = x * 7i32 - 1i32",
            &[],
            vec![Value::I32(2)],
            "13",
        ),
        (
            "def f (x : f64) = x / 4.0",
            &[],
            vec![Value::F64(1.0)],
            "0.25",
        ),
    ];
    for (src, sizes, args, expected) in cases {
        assert_eq!(run(src, sizes, args), expected, "{src}");
    }
}

#[test]
fn low_level_primitives() {
    let x = || v(&[1.0, 2.0, 3.0, 4.0]);
    let cases: Vec<(&str, &[u64], Vec<Value>, &str)> = vec![
        ("def f {n : nat} (x : n.f32) = x |> mapSeq (fun a => a + 1.0)", &[4], vec![x()], "[2, 3, 4, 5]"),
        ("def f {n : nat} (x : n.f32) = x |> mapSeqUnroll (fun a => a + 1.0)", &[4], vec![x()], "[2, 3, 4, 5]"),
        ("def f {n : nat} (x : n.f32) = x |> mapPar (fun a => a + 1.0)", &[4], vec![x()], "[2, 3, 4, 5]"),
        ("def f {n : nat} (x : n.f32) = x |> reduceSeq (fun acc a => acc - a) 0.0", &[4], vec![x()], "-10"),
        ("def f {n : nat} (x : n.f32) = x |> reduceSeqUnroll (fun acc a => acc * a) 1.0", &[4], vec![x()], "24"),
        ("def f {n : nat} (x : n.f32) = toMem x", &[4], vec![x()], "[1, 2, 3, 4]"),
        ("def f {n : nat} (x : (n*2).f32) = asVector 2 x", &[2], vec![x()], "[<1, 2>, <3, 4>]"),
        ("def f {n : nat} (x : (n*2).f32) = asVectorAligned 2 x |> asScalar", &[2], vec![x()], "[1, 2, 3, 4]"),
        (
            "def f {n : nat} (x : (n*2).f32) = x |> asVector 2 |> map (fun w => w * vectorFromScalar 3.0) |> asScalar",
            &[2],
            vec![x()],
            "[3, 6, 9, 12]",
        ),
    ];
    for (src, sizes, args, expected) in cases {
        assert_eq!(run(src, sizes, args), expected, "{src}");
    }
}

#[test]
fn math_primitives() {
    let x = || v(&[1.0, 4.0, 9.0, 16.0]);
    let cases: Vec<(&str, &[u64], Vec<Value>, &str)> = vec![
        ("def f {n : nat} (x : n.f32) = x |> map sqrt", &[4], vec![x()], "[1, 2, 3, 4]"),
        ("def f {n : nat} (x : n.f32) = x |> map (fun a => exp (a - a) + log 1.0)", &[4], vec![x()], "[1, 1, 1, 1]"),
        ("def f {n : nat} (x : n.f32) = x |> map (fun a => abs (5.0 - a))", &[4], vec![x()], "[4, 1, 4, 11]"),
        ("def f {n : nat} (x : n.f32) = x |> reduce max (-1.0 / 0.0)", &[4], vec![x()], "16"),
        ("def f {n : nat} (x : n.f32) = x |> reduce min (1.0 / 0.0)", &[4], vec![x()], "1"),
        ("def f {n : nat} (x : n.f32) = (x |> reduce (+) 0.0) / natToFloat n", &[4], vec![x()], "7.5"),
        ("def f {n : nat} (x : n.f32) = natToFloat (n * n + 1)", &[4], vec![x()], "17"),
        ("def f (x : f32) = (sqrt (-1.0 * x), (log (0.0 * x), exp (100.0 * x)))", &[], vec![Value::F32(1.0)], "(NaN, (-inf, inf))"),
        (
            "def f {n : nat} (x : (n*2).f32) = x |> asVector 2 |> map (fun w => max w (vectorFromScalar 5.0)) |> asScalar",
            &[2],
            vec![x()],
            "[5, 5, 9, 16]",
        ),
    ];
    for (src, sizes, args, expected) in cases {
        assert_eq!(run(src, sizes, args), expected, "{src}");
    }
}

#[test]
fn matmul_by_hand() {
    let src = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/matmul.rise"));
    let a = m(2, 4, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    let b = m(
        4,
        3,
        &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0],
    );
    // row i of a times b: [a0 + a3, a1 + a3, a2 + a3]
    assert_eq!(
        run(src, &[2, 3, 4], vec![a, b]),
        "[[5, 6, 7], [13, 14, 15]]"
    );
}

#[test]
fn runtime_errors_are_reported() {
    let src = "def f {n : nat} (x : n.f32) = generate (fun (i : idx[n]) => idx i x)";
    assert_eq!(run(src, &[2], vec![v(&[1.0, 2.0])]), "[1, 2]");
    let wrong_shape = run("def f {n : nat} (x : n.f32) = x", &[3], vec![v(&[1.0])]);
    assert!(wrong_shape.starts_with("error:"), "{wrong_shape}");
}
