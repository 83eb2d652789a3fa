//! `core::flops` on the examples: counts derived by hand from the program text, and a check
//! against operations counted while the interpreter runs the programs.

use risec_core::core::flops::{flop_count, has_float_arithmetic};
use risec_core::core::TypedProgram;
use risec_core::diagnostics::SourceFile;
use risec_frontend::load::compile_source;

fn example(path: &str) -> TypedProgram {
    let full = format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&full).unwrap();
    compile_source(&SourceFile::new(path, &text), None).unwrap()
}

fn source(text: &str) -> TypedProgram {
    compile_source(&SourceFile::new("test.rise", text), None).unwrap()
}

/// Checks `flop_count` against `expected(sizes)` at each of `sizes`.
fn check(p: &TypedProgram, sizes: &[&[u64]], expected: impl Fn(&[u64]) -> u64) {
    for s in sizes {
        assert_eq!(flop_count(p, s), Some(expected(s)), "{} at {s:?}", p.name);
    }
}

#[test]
fn matmul_is_2mnk_at_any_sizes() {
    let p = example("examples/matmul.rise");
    let sizes: &[&[u64]] = &[
        &[1, 1, 1],
        &[2, 3, 5],
        &[7, 1, 13],
        &[64, 32, 16],
        &[1000, 3, 77],
        &[0, 4, 4],
    ];
    check(&p, sizes, |s| 2 * s[0] * s[1] * s[2]);
    // A * B^T and batched: 2mnk per product.
    check(&example("examples/abt.rise"), sizes, |s| {
        2 * s[0] * s[1] * s[2]
    });
    check(&example("examples/bmm.rise"), &[&[3, 2, 5, 7]], |s| {
        2 * s[0] * s[1] * s[2] * s[3]
    });
    // 2mnk products and sums, then per output element one bias addition (the ReLU's
    // comparison and select are not counted).
    check(&example("examples/mmbr.rise"), sizes, |s| {
        2 * s[0] * s[1] * s[2] + s[0] * s[1]
    });
}

#[test]
fn every_lowering_of_matmul_counts_as_the_naive_one() {
    // Tiles of 32 x 32 over blocks of 4 along k, with vectors of 8 lanes in
    // `vectorization.rise`: each lane of a vector operation is one operation.
    for file in [
        "array-packing",
        "blocking",
        "cache-blocks",
        "loop-perm",
        "naive",
        "parallel",
        "vectorization",
    ] {
        let p = example(&format!("examples/lowlevel/{file}.rise"));
        check(&p, &[&[32, 64, 8], &[96, 32, 4]], |s| {
            2 * s[0] * s[1] * s[2]
        });
        // Sizes the tiles do not divide break a fact the tiled programs rely on.
        let tiled = file != "naive";
        assert_eq!(flop_count(&p, &[33, 64, 8]).is_none(), tiled, "{file}");
    }
    check(&example("examples/lowlevel/dot.rise"), &[&[9]], |s| {
        2 * s[0]
    });
}

#[test]
fn vector_kernels_count_their_elementwise_operations() {
    let n: &[&[u64]] = &[&[1], &[10], &[1 << 20], &[0]];
    // Products and their sum (n additions from 0.0).
    check(&example("examples/dot.rise"), n, |s| 2 * s[0]);
    // alpha * x + y: one product and one sum per element.
    check(&example("examples/axpy.rise"), n, |s| 2 * s[0]);
    check(&example("examples/scal.rise"), n, |s| s[0]);
    // `select (lt v 0.0) (neg v) v`: the negation (evaluated for every element, as `select`
    // evaluates both branches) and the sum; the comparison is not counted.
    check(&example("examples/asum.rise"), n, |s| 2 * s[0]);
    check(&example("examples/sumsq.rise"), n, |s| 2 * s[0]);
    let mk: &[&[u64]] = &[&[3, 5], &[64, 1], &[1, 64]];
    check(&example("examples/matvec.rise"), mk, |s| 2 * s[0] * s[1]);
    check(&example("examples/gemvt.rise"), mk, |s| 2 * s[0] * s[1]);
    // Two element-wise passes around a transpose.
    check(&example("examples/fuse-transpose.rise"), mk, |s| {
        2 * s[0] * s[1]
    });
}

#[test]
fn a_program_without_float_arithmetic_has_no_count() {
    let t = example("examples/transpose.rise");
    assert!(!has_float_arithmetic(&t.term));
    assert_eq!(flop_count(&t, &[4, 5]), None);
    // Integer arithmetic is not counted: an integer program has no count either.
    let ints = source("def r {n : nat} (x : n.i32) : i32 = x |> map (fun v => v * 2i32 - 1i32) |> reduce (+) 0i32");
    assert!(!has_float_arithmetic(&ints.term));
    assert_eq!(flop_count(&ints, &[8]), None);
    // ... and next to float arithmetic it adds nothing.
    let mixed = source(
        "def r {n : nat} (x : n.i32) (y : n.f32) : (i32, f32) = \
         makePair (x |> map (fun v => v * v) |> reduce (+) 0i32) (y |> reduce (+) 0.0)",
    );
    assert_eq!(flop_count(&mixed, &[8]), Some(8));
}

#[test]
fn stencils_count_their_window_arithmetic() {
    // jacobi1d: per output element `reduce (+) 0.0` over a window of 3 (3 additions) and one
    // multiplication by 1/3: 4n.
    check(&example("examples/jacobi1d.rise"), &[&[1], &[30]], |s| {
        4 * s[0]
    });
    // jacobi2d: per output element `dot (join cross) (join nbh)`, 9 products and 9 additions;
    // the weights `cross` are built without arithmetic: 18nm.
    let nm: &[&[u64]] = &[&[1, 1], &[4, 7], &[100, 3]];
    check(&example("examples/jacobi2d.rise"), nm, |s| 18 * s[0] * s[1]);
    // blur: the same dot product, 18nm; the weights `outer binomial binomial` (9 products of
    // constants per output element as written) are constant-folded and not counted.
    check(&example("examples/blur.rise"), nm, |s| 18 * s[0] * s[1]);
    // unsharp: per output element `centre` is `middle (map middle nbh)`, where `middle` sums
    // one element from 0.0 (1 addition): 3 + 1 = 4 additions; then
    // `centre + 0.5 * (centre - dot …)`: the dot product's 18, a subtraction, a product and a
    // sum: 4 + 18 + 3 = 25nm (`centre` is let-bound: computed once).
    check(&example("examples/unsharp.rise"), nm, |s| 25 * s[0] * s[1]);
}

#[test]
fn harris_counts_each_stage_once() {
    // The gradients ix and iy are 3x3 stencils over the (n+2) x (m+2) interior: 18 each per
    // element (their weights, outer products of constants, are folded). The three products
    // ix*ix, ix*iy, iy*iy: 1 each per element of (n+2) x (m+2). The three window sums sxx, sxy,
    // syy: 18 each per element of n x m. The response, per element of n x m:
    // det = a*c - b*b (3), trace = a + c (1), det - 0.04*trace*trace (3): 7. In all
    // (2*18 + 3)(n+2)(m+2) + (3*18 + 7)nm = 39(n+2)(m+2) + 61nm. `let` shares ix and iy.
    check(
        &example("examples/harris.rise"),
        &[&[1, 1], &[5, 9], &[64, 48]],
        |s| 39 * (s[0] + 2) * (s[1] + 2) + 61 * s[0] * s[1],
    );
}

#[test]
fn functions_count_once_per_application() {
    // `f` applied twice per element: 2 * (1 product + 1 sum).
    let twice = source(
        "def p {n : nat} (xs : n.f32) : n.f32 = \
         let f = fun (x : f32) => x * x + 1.0 in xs |> map (fun v => f (f v))",
    );
    assert_eq!(flop_count(&twice, &[10]), Some(40));
    // Never applied: nothing (but the program has float arithmetic: 0, not `None`).
    let unused =
        source("def p {n : nat} (xs : n.f32) : n.f32 = let f = fun (x : f32) => x * x in xs");
    assert_eq!(flop_count(&unused, &[10]), Some(0));
    // A let-bound value is computed once, however often it is used.
    let shared = source(
        "def p {n : nat} (xs : n.f32) : f32 = \
         let s = xs |> reduce (+) 0.0 in s * s + s",
    );
    assert_eq!(flop_count(&shared, &[10]), Some(12));
    // `generate` runs its function n times; index arithmetic is free.
    let gen = source(
        "def p {n : nat} (xs : n.f32) : n.f32 = generate (fun (i : idx[n]) => idx i xs * 2.0)",
    );
    assert_eq!(flop_count(&gen, &[6]), Some(6));
}

#[test]
fn a_deep_term_is_counted_without_overflowing_the_stack() {
    // A 100,000-term sum is a tree 100,000 levels deep. Parsing it needs a large stack (as
    // the command line gives the compiler); the count runs on the test's own.
    let terms = vec!["x"; 100_000].join(" + ");
    let text = format!("def p (x : f32) : f32 = {terms}");
    let p = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || source(&text))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(flop_count(&p, &[]), Some(99_999));
}

#[test]
fn eta_reduced_programs_count_as_written() {
    // Optimised programs may lose their parameters' lambdas (`fun x => map f x` is `map f`).
    let p = example("examples/scal.rise");
    let reduced = TypedProgram {
        term: risec_core::core::normalize::beta_eta_normal(&p.term).unwrap(),
        ..p.clone()
    };
    assert_ne!(reduced.term, p.term);
    assert_eq!(flop_count(&reduced, &[12]), Some(12));
}

#[test]
fn constant_operations_are_folded() {
    // `2.0 * 3.0` is computed once by any compiler; `x * …` is not.
    let p = source("def p {n : nat} (xs : n.f32) : n.f32 = xs |> map (fun x => x * (2.0 * 3.0))");
    assert_eq!(flop_count(&p, &[5]), Some(5));
    // A reduction over constants is a constant.
    let c = source(
        "def p {n : nat} (xs : n.f32) : n.f32 = \
         let w = generate (fun (i : idx[4]) => 0.5) |> reduce (+) 0.0 in xs |> map (fun x => x * w)",
    );
    assert_eq!(flop_count(&c, &[5]), Some(5));
    // The accumulator is one loop-carried value: with an input in it, every step counts, the
    // first one too (`acc * 2.0` is not folded when acc starts as the constant 1.0).
    let r = source(
        "def p {n : nat} (xs : n.f32) : f32 = xs |> reduce (fun acc x => acc * 2.0 + x) 1.0",
    );
    assert_eq!(flop_count(&r, &[7]), Some(14));
}

#[test]
fn sizes_that_do_not_fit_have_no_count() {
    let p = example("examples/matmul.rise");
    assert_eq!(flop_count(&p, &[2, 3]), None);
    assert_eq!(flop_count(&p, &[2, 3, 4, 5]), None);
    // 2 * 2^30 * 2^30 * 2^30 does not fit in 64 bits; 2 * 2^20 * 2^20 * 2^20 does.
    assert_eq!(flop_count(&p, &[1 << 30, 1 << 30, 1 << 30]), None);
    assert_eq!(flop_count(&p, &[1 << 20, 1 << 20, 1 << 20]), Some(1 << 61));
    // Sizes that break a divisibility fact: `split 4` needs 4 to divide n.
    let split =
        source("def p {n : nat} (xs : n.f32) : (n/4).f32 = xs |> split 4 |> map (reduce (+) 0.0)");
    assert_eq!(flop_count(&split, &[12]), Some(12));
    assert_eq!(flop_count(&split, &[6]), None);
}

mod against_the_interpreter;

#[test]
fn math_functions_count_one_per_lane_and_sizes_as_floats_nothing() {
    let mn: &[&[u64]] = &[&[1, 1], &[3, 5], &[64, 100]];
    // softmax, per element: the maximum, the difference and its exp, the sum, the quotient;
    // the initial `-1.0 / 0.0` is a constant.
    check(&example("examples/softmax.rise"), mn, |s| 5 * s[0] * s[1]);
    // layernorm, per row: the sum and its quotient by `natToFloat n` (n + 1), the squared
    // deviations as written (two differences and a product) summed and divided (4n + 1), the
    // square root of the variance plus epsilon (2, let-bound: once), and per element a
    // difference and a quotient (2n).
    check(&example("examples/layernorm.rise"), mn, |s| {
        s[0] * (7 * s[1] + 4)
    });
    let v = source(
        "def v {n : nat} (x : (n*8).f32) : (n*8).f32 = \
         x |> asVector 8 |> map (fun w => max (exp w) (abs w)) |> asScalar",
    );
    check(&v, &[&[1], &[5]], |s| 3 * 8 * s[0]);
    // Math on constants is folded; a size as a float is not an operation.
    let c = source("def c {n : nat} (x : f32) : f32 = x * (sqrt 2.0 + natToFloat n)");
    assert!(has_float_arithmetic(&c.term));
    assert_eq!(flop_count(&c, &[7]), Some(1));
    let only_exp = source("def e (x : f64) : f64 = exp x");
    assert!(has_float_arithmetic(&only_exp.term));
    assert_eq!(flop_count(&only_exp, &[]), Some(1));
}
