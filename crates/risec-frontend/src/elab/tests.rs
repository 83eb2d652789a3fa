//! Elaboration tests: inferred types, De Bruijn structure, and the error messages users see.

use crate::core::print::{program_to_source, program_type_to_source};
use crate::core::{ExprKind, TypedProgram};
use crate::diagnostics::{Diagnostic, SourceFile};
use crate::load::compile_source;

fn check(src: &str) -> TypedProgram {
    let file = SourceFile::new("test.rise", src);
    match compile_source(&file, None) {
        Ok(p) => p,
        Err(e) => panic!("unexpected errors:\n{}", e.render()),
    }
}

fn errors(src: &str) -> (Vec<Diagnostic>, String) {
    let file = SourceFile::new("test.rise", src);
    match compile_source(&file, None) {
        Ok(p) => panic!("expected an error, got {}", program_type_to_source(&p)),
        Err(e) => {
            let text = e.render();
            (e.diagnostics, text)
        }
    }
}

/// The source text a diagnostic's primary span covers.
fn spanned<'a>(src: &'a str, d: &Diagnostic) -> &'a str {
    &src[d.span.start..d.span.end]
}

#[test]
fn matmul_has_the_expected_type() {
    let p = check(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../..",
        "/examples/matmul.rise"
    )));
    assert_eq!(p.name, "matmul");
    assert_eq!(
        program_type_to_source(&p),
        "(m : nat) -> (n : nat) -> (k : nat) -> m.k.f32 -> k.n.f32 -> m.n.f32"
    );
    assert_eq!(p.size_params, ["m", "n", "k"]);
    assert_eq!(p.value_params, ["a", "b"]);
}

#[test]
fn every_example_checks() {
    let dot = check(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../..",
        "/examples/dot.rise"
    )));
    assert_eq!(
        program_type_to_source(&dot),
        "(n : nat) -> n.f32 -> n.f32 -> f32"
    );
    let fuse = check(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../..",
        "/examples/fuse-transpose.rise"
    )));
    assert_eq!(
        program_type_to_source(&fuse),
        "(n : nat) -> (m : nat) -> n.m.f32 -> m.n.f32"
    );
}

#[test]
fn variables_become_de_bruijn_indices() {
    let p = check("def k (x : f32) (y : f32) : f32 = x");
    let ExprKind::Lambda(outer) = &p.term.kind else {
        panic!()
    };
    let ExprKind::Lambda(inner) = &outer.kind else {
        panic!()
    };
    assert_eq!(inner.kind, ExprKind::Var(1));
}

#[test]
fn helpers_are_inlined_with_inferred_sizes() {
    let p = check(
        "def dot {n : nat} (xs : n.f32) (ys : n.f32) : f32 =\n  zip xs ys |> map (fun p => fst p * snd p) |> reduce (+) 0.0\n\
         def mm {m n k : nat} (a : m.k.f32) (b : k.n.f32) : m.n.f32 =\n  a |> map (fun r => transpose b |> map (fun c => dot r c))",
    );
    assert_eq!(p.name, "mm");
    assert_eq!(
        program_type_to_source(&p),
        "(m : nat) -> (n : nat) -> (k : nat) -> m.k.f32 -> k.n.f32 -> m.n.f32"
    );
}

#[test]
fn split_join_with_divisibility_from_annotations() {
    let p = check(
        "def blocks {m : nat} (x : m.f32) : (m/32).32.f32 = split 32 x\n\
         def f {m : nat} (x : (m/32).32.f32) : m.f32 = join x",
    );
    assert_eq!(
        program_type_to_source(&p),
        "(m : nat) -> (m/32).32.f32 -> m.f32"
    );
    assert_eq!(p.facts.len(), 1);
}

#[test]
fn split_of_a_product_length_needs_no_fact() {
    let p = check("def f {n : nat} (x : (4*n).f32) = split 4 x");
    assert_eq!(
        program_type_to_source(&p),
        "(n : nat) -> (4*n).f32 -> n.4.f32"
    );
}

#[test]
fn split_of_a_non_multiple_is_an_error_with_span() {
    let src = "def f {n : nat} (xs : n.f32) = xs |> split 4";
    let (ds, text) = errors(src);
    assert_eq!(ds.len(), 1, "{text}");
    assert!(
        ds[0]
            .message
            .contains("`n` is not provably a multiple of 4"),
        "{text}"
    );
    assert!(spanned(src, &ds[0]).contains("split 4"), "{text}");
    assert!(text.contains("test.rise:1:"), "{text}");
}

#[test]
fn zip_of_different_lengths_is_a_mismatch() {
    let src = "def f {n m : nat} (xs : n.f32) (ys : m.f32) = zip xs ys";
    let (ds, text) = errors(src);
    assert_eq!(ds[0].message, "type mismatch", "{text}");
    assert_eq!(spanned(src, &ds[0]), "ys");
    assert!(
        ds[0].label.contains("expected `n.f32`, found `m.f32`"),
        "{text}"
    );
}

#[test]
fn unbound_names_are_reported_where_written() {
    let src = "def f (x : f32) : f32 = x + y";
    let (ds, _) = errors(src);
    assert_eq!(ds[0].message, "unknown name `y`");
    assert_eq!(spanned(src, &ds[0]), "y");
    let src = "def f (x : q.f32) = x";
    let (ds, _) = errors(src);
    assert_eq!(ds[0].message, "unknown size `q`");
    assert_eq!(spanned(src, &ds[0]), "q");
}

#[test]
fn wrong_arity_is_reported() {
    let src = "def f (x : f32) : f32 = add x x x";
    let (ds, text) = errors(src);
    assert_eq!(ds[0].message, "too many arguments", "{text}");
    assert_eq!(spanned(src, &ds[0]), "add x x");
    let src = "def f (x : f32) = x x";
    let (ds, _) = errors(src);
    assert_eq!(ds[0].message, "not a function");
    let src = "def f {n : nat} (xs : n.f32) = split xs";
    let (ds, text) = errors(src);
    assert_eq!(ds[0].message, "expected a size argument", "{text}");
    assert_eq!(spanned(src, &ds[0]), "xs");
}

#[test]
fn result_annotation_mismatch() {
    let src = "def f (x : f32) : f64 = x";
    let (ds, text) = errors(src);
    assert!(
        ds[0].label.contains("expected `f64`, found `f32`"),
        "{text}"
    );
}

#[test]
fn float_literals_default_to_f32_and_follow_annotations() {
    let p = check("def f (x : f64) = x + 1.0");
    assert_eq!(program_type_to_source(&p), "f64 -> f64");
    let p = check("def c = 2.0");
    assert_eq!(program_type_to_source(&p), "f32");
}

#[test]
fn arithmetic_needs_numbers() {
    let src = "def f {n : nat} (x : n.f32) = x + x";
    let (ds, text) = errors(src);
    assert!(ds[0].message.contains("`add` is not defined"), "{text}");
    // The type is shown with the size names as written, never internal indices (`#0.f32`).
    let src = "def f {n m : nat} (x : n.m.f32) : n.m.f32 = x |> map (fun v => v * 2.0)";
    let (ds, text) = errors(src);
    assert_eq!(ds[0].message, "`mul` is not defined on `m.f32`", "{text}");
}

#[test]
fn nat_lambdas_and_dependent_types() {
    let p = check("def f = fun (n : nat) => fun (x : n.f32) => x");
    assert_eq!(program_type_to_source(&p), "(n : nat) -> n.f32 -> n.f32");
    let p = check(
        "def g {m : nat} (x : (2*m).f32) = (fun (k : nat) => fun (y : (k*2).f32) => split 2 y) m x",
    );
    assert_eq!(
        program_type_to_source(&p),
        "(m : nat) -> (2*m).f32 -> m.2.f32"
    );
}

#[test]
fn later_definitions_cannot_be_used() {
    let src = "def f (x : f32) : f32 = g x\ndef g (x : f32) : f32 = x";
    let (ds, text) = errors(src);
    assert!(
        ds[0].message.contains("`g` is not defined before this use"),
        "{text}"
    );
}

#[test]
fn errors_in_unused_helpers_are_reported_once() {
    let src = "def h (x : f32) : f32 = x + zz\ndef main (x : f32) : f32 = h x";
    let (ds, text) = errors(src);
    assert_eq!(ds.len(), 1, "{text}");
    assert_eq!(ds[0].message, "unknown name `zz`");
}

#[test]
fn unresolvable_types_are_reported() {
    let src = "def f = fun x => x";
    let (ds, text) = errors(src);
    assert_eq!(
        ds[0].message, "cannot infer the type of this expression",
        "{text}"
    );
}

#[test]
fn vectors_compose_and_infer() {
    let p = check(
        "def v {n : nat} (x : (n*4).f32) : (n*4).f32 =\n  x |> asVector 4 |> map (fun v => v * vectorFromScalar 2.0) |> asScalar",
    );
    assert_eq!(
        program_type_to_source(&p),
        "(n : nat) -> (4*n).f32 -> (4*n).f32"
    );
}

#[test]
fn printing_then_parsing_gives_the_same_term() {
    for src in [
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../..", "/examples/matmul.rise")),
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../..", "/examples/dot.rise")),
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../..", "/examples/fuse-transpose.rise")),
        "def f {n : nat} (x : (n*4).f32) : (n*4).f32 = x |> asVector 4 |> map (fun v => v * vectorFromScalar 2.0) |> asScalar",
        "def g (x : f64) = let y = x * 2.0 in (y, -y)",
        "def h {n : nat} (x : (n+2).f32) = x |> slide 3 1 |> map (reduce (+) 0.0) |> pad 1 1 0.0",
        "def s {m : nat} (x : m.f32) : (m/32).32.f32 = split 32 x",
        "def t = fun (n : nat) => generate (fun (i : idx[n]) => 1.5e-3)",
        "def r {n : nat} (x : n.i32) = x |> reduceSeq (fun a y => a + y) 0i32",
    ] {
        let first = check(src);
        let printed = program_to_source(&first);
        let second = check(&printed);
        assert_eq!(first.term, second.term, "round trip changed the term:\n{src}\nprinted as\n{printed}");
        assert_eq!(program_to_source(&second), printed);
    }
}

#[test]
fn math_functions_take_floats_and_vectors_of_floats() {
    let p = check("def f (x : f32) (y : f32) = max (exp x) (log (sqrt (abs y)))");
    assert_eq!(program_type_to_source(&p), "f32 -> f32 -> f32");
    let p = check("def f (x : f64) = min x 1.0");
    assert_eq!(program_type_to_source(&p), "f64 -> f64");
    let p = check("def f (v : <8>f32) = exp (max v (vectorFromScalar 0.0))");
    assert_eq!(program_type_to_source(&p), "<8>f32 -> <8>f32");
    let p = check("def f {n : nat} (xs : n.f32) = xs |> reduce max (-1.0 / 0.0)");
    assert_eq!(program_type_to_source(&p), "(n : nat) -> n.f32 -> f32");
    // A literal operand alone is an f32.
    let p = check("def c = sqrt 2.0");
    assert_eq!(program_type_to_source(&p), "f32");
}

#[test]
fn math_functions_on_other_types_are_errors_at_the_function() {
    for (src, message, at) in [
        (
            "def f (x : i32) = exp x",
            "`exp` is not defined on `i32`",
            "exp",
        ),
        (
            "def f {n : nat} (x : n.f32) =\n  max x x",
            "`max` is not defined on `n.f32`",
            "max",
        ),
        (
            "def f (x : <4>i32) = abs x",
            "`abs` is not defined on `<4>i32`",
            "abs",
        ),
        (
            "def f (x : bool) = min x x",
            "`min` is not defined on `bool`",
            "min",
        ),
    ] {
        let (ds, text) = errors(src);
        assert_eq!(ds[0].message, message, "{text}");
        assert_eq!(spanned(src, &ds[0]), at, "{text}");
        let line = src[..ds[0].span.start].matches('\n').count() + 1;
        assert!(text.contains(&format!("test.rise:{line}:")), "{text}");
    }
    let (ds, text) = errors("def f (x : f32) (y : f64) = max x y");
    assert!(
        ds[0].label.contains("expected `f32`, found `f64`"),
        "{text}"
    );
    let (ds, text) = errors("def f (x : f32) = exp x x");
    assert_eq!(ds[0].message, "too many arguments", "{text}");
}

#[test]
fn nat_to_float_takes_a_size_and_gives_a_float() {
    let p = check("def mean {n : nat} (xs : n.f32) = (xs |> reduce (+) 0.0) / natToFloat n");
    assert_eq!(program_type_to_source(&p), "(n : nat) -> n.f32 -> f32");
    let p = check("def c {n : nat} : f64 = natToFloat (n * 2 + 1)");
    assert_eq!(program_type_to_source(&p), "(n : nat) -> f64");
    // An f32 unless the context says otherwise.
    let p = check("def c = natToFloat 3");
    assert_eq!(program_type_to_source(&p), "f32");
    let src = "def c (x : f32) = natToFloat x";
    let (ds, text) = errors(src);
    assert_eq!(ds[0].message, "expected a size argument", "{text}");
    assert!(text.contains("test.rise:1:30"), "{text}");
    let src = "def c {n : nat} : i32 = natToFloat n";
    let (ds, text) = errors(src);
    assert_eq!(
        ds[0].message, "`natToFloat` gives an `f32` or an `f64`, not `i32`",
        "{text}"
    );
    assert_eq!(spanned(src, &ds[0]), "natToFloat", "{text}");
}

#[test]
fn math_functions_print_back_to_source_that_checks_the_same() {
    for src in [
        "def f (x : f32) (y : f32) = max (exp x) (min (log y) (sqrt (abs y)))",
        "def mean {n : nat} (xs : n.f64) = (xs |> reduce (+) 0.0) / natToFloat n",
        "def g {n : nat} (xs : n.f32) = xs |> map (fun x => x * natToFloat (n + 1))",
    ] {
        let p = check(src);
        let printed = program_to_source(&p);
        let again = check(&printed);
        assert_eq!(again.term, p.term, "{printed}");
    }
    let p = check("def c {n : nat} : f64 = natToFloat n");
    assert!(
        program_to_source(&p).contains("(natToFloat n : f64)"),
        "{}",
        program_to_source(&p)
    );
}
