//! Every rule of the library, validated against the reference interpreter.
//!
//! Each catalogue rule has a test here with at least one instance program (a template whose
//! `{F}`, `{G}`, `{H}`, `{OP}`, `{ACC}` placeholders are filled from the pools of
//! `risec_eqsat::rules::validate::POOLS`) and 24 trials per instance (`RISEC_VALIDATION_TRIALS`
//! overrides): one round of the rule alone, then every enumerated term of the program's class
//! must evaluate like the original on random sizes (respecting the divisibilities the rule
//! assumed) and random inputs, exactly unless the rule reassociates floating-point arithmetic.
//! The inputs range over small values, integers, large magnitudes, zeros of both signs and
//! the neighbourhoods of the instance's constants (`Schedule::Wide`); a reassociating rule is
//! right only up to rounding, which cancellation among large values magnifies without bound,
//! so it is validated on values whose sums stay exact (`Schedule::ExactSums`): the side
//! condition of its soundness.
//! A rule without a test fails `every_catalogue_rule_is_validated`. Negative tests check that
//! rules do not fire where their side conditions fail.

use risec_core::interp::sampling::Schedule;
use risec_eqsat::rules::validate::{applications, rounds, validate_with, Options};
use risec_eqsat::rules::{self, catalogue};

/// An instance program, and whether it is put in beta-eta normal form first.
struct Instance {
    source: &'static str,
    normalize: bool,
}

/// An instance in normal form (the usual case).
const fn inst(source: &'static str) -> Instance {
    Instance {
        source,
        normalize: true,
    }
}

/// An instance kept as written (for eta and beta, whose left-hand sides are not normal).
const fn raw(source: &'static str) -> Instance {
    Instance {
        source,
        normalize: false,
    }
}

/// Trials per instance; `RISEC_VALIDATION_TRIALS` overrides it (for longer local runs).
fn trials() -> usize {
    std::env::var("RISEC_VALIDATION_TRIALS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(24)
}

/// Rules that reassociate floating-point arithmetic: compared with the default (relative)
/// tolerance, on values whose sums stay exact. Every other rule computes the same operations
/// in the same order and must agree exactly, on every class of values.
const REASSOCIATING: &[&str] = &[
    "blocked-reduce",
    "reduce-lanes",
    "lift-reduce-seq-2",
    "separate-dot-hv",
    "separate-dot-vh",
];

fn check(spec: &str, instances: &[Instance]) {
    let rule = rules::lookup(spec).unwrap_or_else(|e| panic!("{e}"));
    let name = spec.split('(').next().unwrap();
    let exact = !REASSOCIATING.contains(&name);
    for (i, instance) in instances.iter().enumerate() {
        let defaults = Options::default();
        let options = Options {
            rel_tol: if exact { 0.0 } else { defaults.rel_tol },
            abs_tol: if exact { 0.0 } else { defaults.abs_tol },
            values: if exact {
                Schedule::Wide
            } else {
                Schedule::ExactSums
            },
            trials: trials(),
            seed: 1 + 1000 * i as u64,
            normalize: instance.normalize,
            ..Options::default()
        };
        let report =
            validate_with(&rule, instance.source, &options).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report.trials, options.trials);
        assert!(report.rewritten_terms > 0 && report.applications > 0);
    }
}

/// One test per catalogue rule: `test_name: "catalogue name" as "rule spec" => [instances];`.
macro_rules! validations {
    ($($test:ident: $name:literal as $spec:literal => [$($inst:expr),+ $(,)?];)*) => {
        /// The catalogue names that have a validation test.
        const VALIDATED: &[&str] = &[$($name),*];
        $(
            #[test]
            fn $test() {
                check($spec, &[$($inst),+]);
            }
        )*
    };
}

validations! {
    eta: "eta" as "eta" => [
        raw("def p {n : nat} (y : f32) (xs : n.f32) = xs |> map (fun v => {F} v)"),
        raw("def p (y : f32) = fun (x : f32) => add y x"),
    ];
    beta: "beta" as "beta" => [
        raw("def p {n : nat} (y : f32) (xs : n.f32) = xs |> map (fun v => {F} v)"),
        raw("def p (y : f32) (z : f32) = {OP} y z"),
    ];
    beta_nat: "beta-nat" as "beta-nat" => [
        raw("def p {m : nat} (y : f32) (xs : (4*m).f32) =
               (fun (k : nat) => fun (v : (k*m).f32) => v |> split m |> map (map {F}) |> join) 4 xs"),
    ];
    map_fusion: "map-fusion" as "map-fusion" => [
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> map {F} |> map {G}"),
        inst("def p {n m : nat} (xs : n.m.f32) (y : f32) = xs |> map (map {F}) |> map (map {G})"),
        // Under binders: the first function uses the row (its sum) and y.
        inst("def p {n m : nat} (xs : n.m.f32) (y : f32) =
                xs |> map (fun row => row |> map (fun v => v * reduce (+) y row) |> map {G})"),
    ];
    map_fission: "map-fission" as "map-fission" => [
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> map (fun v => {H} ({G} v))"),
        // gx uses the outer element a: it moves under a new binder.
        inst("def p {n m : nat} (xs : n.f32) (ys : m.f32) (y : f32) =
                xs |> map (fun a => ys |> map (fun b => {H} (a * b)))"),
    ];
    map_eta_abstraction: "map-eta-abstraction" as "map-eta-abstraction" => [
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> map {F}"),
    ];
    eliminate_map_identity: "eliminate-map-identity" as "eliminate-map-identity" => [
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> map {F} |> map (fun v => v)"),
    ];
    map_array: "map-array" as "map-array" => [
        inst("def p {n m : nat} (xs : n.m.f32) (y : f32) = xs |> map (map {F})"),
    ];
    transpose_pair_elimination: "transpose-pair-elimination" as "transpose-pair-elimination" => [
        inst("def p {n m : nat} (xs : n.m.f32) (y : f32) = xs |> map (map {F}) |> transpose |> transpose"),
    ];
    map_transpose: "map-transpose" as "map-transpose" => [
        inst("def p {n m : nat} (xs : n.m.f32) (y : f32) = xs |> map (map {F}) |> transpose"),
    ];
    map_transpose_reverse: "map-transpose-reverse" as "map-transpose-reverse" => [
        inst("def p {n m : nat} (xs : n.m.f32) (y : f32) = xs |> transpose |> map (map {F})"),
    ];
    transpose_around_map_map: "transpose-around-map-map" as "transpose-around-map-map" => [
        inst("def p {n m : nat} (xs : n.m.f32) (y : f32) = xs |> map (map {F})"),
    ];
    transpose_around_map_map_1m: "transpose-around-map-map-1m" as "transpose-around-map-map-1m" => [
        inst("def p {n m k : nat} (xs : n.m.k.f32) (y : f32) = xs |> map (map (map {F}))"),
    ];
    transpose_around_map_map_2m: "transpose-around-map-map-2m" as "transpose-around-map-map-2m" => [
        inst("def p {a b c d : nat} (xs : a.b.c.d.f32) (y : f32) = xs |> map (map (map (map {F})))"),
    ];
    map_map_interchange: "map-map-interchange" as "map-map-interchange" => [
        // The inner function uses the outer element a; the inner array does not.
        inst("def p {n m : nat} (xs : n.f32) (ys : m.f32) (y : f32) =
                xs |> map (fun a => ys |> map (fun b => {F} (a * b + y)))"),
        // Rows against blocks of columns (the n-block split of the register-blocking sketch).
        inst("def p {n m k : nat} (xs : n.k.f32) (ys : m.k.f32) (y : f32) =
                xs |> map (fun r => ys |> map (fun c => zip r c |> map (fun p => fst p * snd p) |> reduce (+) y))"),
    ];
    reduce_seq: "reduce-seq" as "reduce-seq" => [
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> map {F} |> reduce {OP} 0.0"),
    ];
    reduce_seq_map_fusion: "reduce-seq-map-fusion" as "reduce-seq-map-fusion" => [
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> map {F} |> reduceSeq {OP} 1.0"),
    ];
    reduce_seq_map_fission: "reduce-seq-map-fission" as "reduce-seq-map-fission" => [
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> reduceSeq {ACC} 0.5"),
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> reduceSeq (fun acc v => {ACC} acc ({G} v)) y"),
        inst("def p {n m : nat} (xs : n.f32) (rs : m.f32) (y : f32) =
                rs |> map (fun r => xs |> reduceSeq (fun acc v => acc + v * r) y)"),
    ];
    lift_reduce_seq: "lift-reduce-seq" as "lift-reduce-seq" => [
        inst("def p {n m : nat} (xs : n.m.f32) (y : f32) = xs |> map (reduceSeq {OP} 0.5)"),
        inst("def p {n m : nat} (xs : n.m.f32) (y : f32) = xs |> map (reduceSeq (fun acc v => acc + {F} v) y)"),
        inst("def p {n m k : nat} (xss : n.m.f32) (rs : k.f32) (y : f32) =
                rs |> map (fun r => xss |> map (reduceSeq (fun acc v => acc + v * r) y))"),
    ];
    lift_reduce_seq_2: "lift-reduce-seq-2" as "lift-reduce-seq-2" => [
        inst("def p {n m : nat} (xs : n.(f32, m.f32)) (y : f32) =
                xs |> map (fun x => fst x + reduceSeq (fun acc v => acc + {G} v) 0.0 (snd x))"),
    ];
    lift_reduce_seq_3: "lift-reduce-seq-3" as "lift-reduce-seq-3" => [
        inst("def p {n k m : nat} (xs : n.k.(f32, m.f32)) (y : f32) =
                xs |> map (fun x => reduceSeq (fun acc row => zip acc row |> map (fun q => fst q + {G} (snd q)))
                                              (fst (unzip x)) (transpose (snd (unzip x))))"),
    ];
    blocked_reduce: "blocked-reduce" as "blocked-reduce(4)" => [
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> map {F} |> reduce (+) 0.0"),
        inst("def p (xs : 8.f32) (y : f32) = xs |> map {G} |> reduce (fun a b => a * b) 1.0"),
    ];
    reduce_lanes: "reduce-lanes" as "reduce-lanes(4)" => [
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> map {F} |> reduce (+) 0.0"),
        inst("def p {n : nat} (xs : n.f32) (ys : n.f32) = zip xs ys |> map (fun q => fst q * snd q) |> reduce (+) 0.0"),
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> map {F} |> reduce max (-1.0 / 0.0)"),
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> map {F} |> reduce min y"),
    ];
    split_join: "split-join" as "split-join(4)" => [
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> map {F}"),
        inst("def p (xs : 12.f32) (y : f32) = xs |> map {F}"),
        inst("def p {n m : nat} (xs : n.f32) (rs : m.f32) (y : f32) =
                rs |> map (fun r => xs |> map (fun v => v * r + y))"),
    ];
    split_join_1m: "split-join-1m" as "split-join-1m(4)" => [
        inst("def p {n m : nat} (xs : n.m.f32) (y : f32) = xs |> map (map {F})"),
    ];
    split_join_2m: "split-join-2m" as "split-join-2m(2)" => [
        inst("def p {n m k : nat} (xs : n.m.k.f32) (y : f32) = xs |> map (map (map {F}))"),
    ];
    join_split: "join-split" as "join-split(4)" => [
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> map {F}"),
    ];
    split_before_map: "split-before-map" as "split-before-map" => [
        inst("def p {n : nat} (xs : (4*n).f32) (y : f32) = xs |> map {F} |> split 4"),
        inst("def p {n m : nat} (xs : (n*m).f32) (y : f32) = xs |> map {F} |> split m"),
    ];
    store_to_mem: "store-to-mem" as "store-to-mem" => [
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> map {F}"),
    ];
    map_seq: "map-seq" as "map-seq" => [
        inst("def p {n m : nat} (xs : n.m.f32) (y : f32) = xs |> map (map {F})"),
    ];
    map_par: "map-par" as "map-par" => [
        inst("def p {n m : nat} (xs : n.m.f32) (y : f32) = xs |> map (map {F})"),
    ];
    map_seq_unroll: "map-seq-unroll" as "map-seq-unroll" => [
        inst("def p {n : nat} (xs : n.4.f32) (y : f32) = xs |> map (map {F})"),
    ];
    reduce_seq_unroll: "reduce-seq-unroll" as "reduce-seq-unroll" => [
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> reduceSeq {OP} 0.0"),
    ];
    vec_after: "vec-after" as "vec-after(4)" => [
        inst("def p {n : nat} (xs : n.f32) (y : f32) = xs |> map {F}"),
        inst("def p (xs : 8.f32) (y : f32) = xs |> map {F}"),
    ];
    vec_before_map: "vec-before-map" as "vec-before-map(4)" => [
        inst("def p {n : nat} (xs : (4*n).f32) (y : f32) = xs |> map {F} |> asVector 4 |> asScalar"),
        inst("def p {n : nat} (xs : (4*n).f32) (y : f32) = xs |> map {G} |> asVector 4 |> asScalar"),
        // The function uses the outer element r, broadcast with vectorFromScalar.
        inst("def p {n m : nat} (xs : (4*n).f32) (rs : m.f32) (y : f32) =
                rs |> map (fun r => xs |> map (fun v => v * r - y) |> asVector 4 |> asScalar)"),
    ];
    vec_before_map_pair: "vec-before-map-pair" as "vec-before-map-pair(4)" => [
        inst("def p {n : nat} (xs : (4*n).(f32, f32)) (y : f32) =
                xs |> map (fun q => fst q * snd q + {F} (fst q)) |> asVector 4 |> asScalar"),
    ];
    vec_before_map_triple: "vec-before-map-triple" as "vec-before-map-triple(4)" => [
        inst("def p {n : nat} (xs : (4*n).(f32, (f32, f32))) (y : f32) =
                xs |> map (fun q => fst q + fst (snd q) * snd (snd q) - {F} (fst q)) |> asVector 4 |> asScalar"),
    ];
    fst_unzip_zip: "fst-unzip-zip" as "fst-unzip-zip" => [
        inst("def p {n : nat} (xs : n.f32) (ys : n.f32) (y : f32) =
                fst (unzip (zip (xs |> map {F}) ys)) |> map {G}"),
    ];
    snd_unzip_zip: "snd-unzip-zip" as "snd-unzip-zip" => [
        inst("def p {n : nat} (xs : n.f32) (ys : n.(f32, f32)) =
                snd (unzip (zip xs ys)) |> map (fun q => fst q * snd q)"),
    ];
    vec_promote_aligned: "vec-promote-aligned" as "vec-promote-aligned" => [
        inst("def p {n : nat} (xs : (4*n).f32) =
                xs |> asVector 4 |> map (fun v => v * vectorFromScalar 2.0) |> asScalar"),
    ];
    slide_before_map: "slide-before-map" as "slide-before-map" => [
        inst("def p {n : nat} (xs : (n+2).f32) (y : f32) = xs |> map {F} |> slide 3 1"),
    ];
    slide_before_map_map_f: "slide-before-map-map-f" as "slide-before-map-map-f" => [
        inst("def p {n : nat} (xs : (n+2).f32) (y : f32) = xs |> slide 3 1 |> map (map {F})"),
    ];
    map_slide_before_transpose: "map-slide-before-transpose" as "map-slide-before-transpose" => [
        inst("def p {n m : nat} (xs : n.(m+2).f32) (y : f32) = xs |> map (map {F}) |> map (slide 3 1) |> transpose"),
    ];
    separate_dot_hv: "separate-dot-hv" as "separate-dot-hv" => [
        inst(concat!(
            "def dot {k : nat} (a : k.f32) (b : k.f32) : f32 = zip a b |> map (fun p => fst p * snd p) |> reduce (+) 0.0\n",
            "def outer {k : nat} (wv : k.f32) (wh : k.f32) : k.k.f32 = wv |> map (fun a => wh |> map (fun b => a * b))\n",
            "def p (wv : 3.f32) (wh : 3.f32) (nbh : 3.3.f32) = dot (join (outer wv wh)) (join nbh)"
        )),
    ];
    separate_dot_vh: "separate-dot-vh" as "separate-dot-vh" => [
        inst(concat!(
            "def dot {k : nat} (a : k.f32) (b : k.f32) : f32 = zip a b |> map (fun p => fst p * snd p) |> reduce (+) 0.0\n",
            "def outer {k : nat} (wv : k.f32) (wh : k.f32) : k.k.f32 = wv |> map (fun a => wh |> map (fun b => a * b))\n",
            "def p {n m : nat} (wv : 3.f32) (wh : 3.f32) (input : (n+2).(m+2).f32) : n.m.f32 =\n",
            "  input |> map (slide 3 1) |> slide 3 1 |> map transpose\n",
            "        |> map (map (fun nbh => dot (join (outer wv wh)) (join nbh)))"
        )),
    ];
}

#[test]
fn every_catalogue_rule_is_validated() {
    let missing: Vec<&str> = catalogue()
        .iter()
        .map(|r| r.name)
        .filter(|n| !VALIDATED.contains(n))
        .collect();
    assert!(
        missing.is_empty(),
        "rules without a validation: {missing:?}"
    );
    for name in VALIDATED {
        assert!(
            catalogue().iter().any(|r| r.name == *name),
            "{name} is not in the catalogue"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Negative tests: side conditions that must stop a rule.

/// How many matches `spec` rewrites in one round on `source` (placeholders filled with seed 1).
fn fired(spec: &str, source: &str, normalize: bool, allow_assumptions: bool) -> usize {
    let rule = rules::lookup(spec).unwrap();
    let options = Options {
        normalize,
        allow_assumptions,
        ..Options::default()
    };
    applications(&rule, source, &options).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn eta_needs_the_variable_to_be_fresh() {
    assert_eq!(
        fired("eta", "def p = fun (x : f32) => add x x", false, true),
        0
    );
    assert_eq!(
        fired(
            "eta",
            "def p (y : f32) = fun (x : f32) => add y x",
            false,
            true
        ),
        1
    );
}

#[test]
fn map_fission_needs_f_not_to_use_the_element() {
    let src = "def p {n : nat} (xs : n.f32) (y : f32) = xs |> map (fun v => v * (v + y))";
    assert_eq!(fired("map-fission", src, true, true), 0);
    let src = "def p {n : nat} (xs : n.f32) (y : f32) = xs |> map (fun v => y * (v + y))";
    assert_eq!(fired("map-fission", src, true, true), 1);
}

#[test]
fn map_map_interchange_needs_an_inner_array_independent_of_the_outer_element() {
    // The inner map's array is the outer element (`r`), through another map so that the
    // lambda is not eta-reduced away before the search.
    let src = "def p {n : nat} (xs : n.n.f32) (y : f32) = \
               xs |> map (fun r => r |> map (fun v => v + y) |> map (fun v => v * y))";
    assert_eq!(fired("map-map-interchange", src, true, true), 0);
    let src = "def p {n m : nat} (xs : n.f32) (ys : m.f32) (y : f32) = xs |> map (fun a => ys |> map (fun b => a * b))";
    assert_eq!(fired("map-map-interchange", src, true, true), 1);
}

#[test]
fn split_join_needs_divisibility() {
    let src = "def p (xs : 10.f32) (y : f32) = xs |> map (fun v => v + y)";
    assert_eq!(fired("split-join(3)", src, true, true), 0);
    assert_eq!(fired("split-join(5)", src, true, true), 1);
    let symbolic = "def p {n : nat} (xs : n.f32) (y : f32) = xs |> map (fun v => v + y)";
    assert_eq!(
        fired("split-join(3)", symbolic, true, false),
        0,
        "not provable"
    );
    assert_eq!(fired("split-join(3)", symbolic, true, true), 1, "assumed");
    let known = "def p {n : nat} (xs : (3*n).f32) (y : f32) = xs |> map (fun v => v + y)";
    assert_eq!(fired("split-join(3)", known, true, false), 1, "provable");
}

#[test]
fn vec_after_needs_divisibility() {
    let src = "def p (xs : 10.f32) (y : f32) = xs |> map (fun v => v + y)";
    assert_eq!(fired("vec-after(4)", src, true, true), 0);
    let symbolic = "def p {n : nat} (xs : n.f32) (y : f32) = xs |> map (fun v => v + y)";
    assert_eq!(fired("vec-after(4)", symbolic, true, false), 0);
    // xs and map (+ y) xs, with 4 | n assumed.
    assert_eq!(fired("vec-after(4)", symbolic, true, true), 2);
}

#[test]
fn reduce_seq_map_fission_needs_op_free_of_both_binders() {
    let cases = [
        // op = select (lt acc 0.0) uses the accumulator (the check the prototype lacked).
        "fun acc v => select (lt acc 0.0) acc (v * 2.0)",
        // op = select (lt v 0.0) uses the element.
        "fun acc v => select (lt v 0.0) acc (v * 2.0)",
        // gy = acc * v uses the accumulator.
        "fun acc v => acc + acc * v",
    ];
    for op in cases {
        let src = format!("def p {{n : nat}} (xs : n.f32) (y : f32) = xs |> reduceSeq ({op}) y");
        assert_eq!(fired("reduce-seq-map-fission", &src, true, true), 0, "{op}");
    }
    let src =
        "def p {n : nat} (xs : n.f32) (y : f32) = xs |> reduceSeq (fun acc v => acc + v * 2.0) y";
    assert_eq!(fired("reduce-seq-map-fission", src, true, true), 1);
}

#[test]
fn blocked_reduce_needs_a_neutral_initial_value() {
    for (op, init) in [
        ("(+)", "1.0"),
        ("(fun a b => a - b)", "0.0"),
        ("(*)", "0.0"),
    ] {
        let src = format!("def p (xs : 8.f32) (y : f32) = xs |> reduce {op} {init}");
        assert_eq!(
            fired("blocked-reduce(4)", &src, true, true),
            0,
            "{op} {init}"
        );
    }
    for (op, init) in [("(+)", "0.0"), ("(*)", "1.0")] {
        let src = format!("def p (xs : 8.f32) (y : f32) = xs |> reduce {op} {init}");
        assert_eq!(
            fired("blocked-reduce(4)", &src, true, true),
            1,
            "{op} {init}"
        );
    }
}

#[test]
fn lift_reduce_seq_2_needs_g_free_of_the_accumulator() {
    let src = "def p {n m : nat} (xs : n.(f32, m.f32)) (y : f32) =
        xs |> map (fun x => fst x + reduceSeq (fun acc v => acc + acc * v) 0.0 (snd x))";
    assert_eq!(fired("lift-reduce-seq-2", src, true, true), 0);
    let src = "def p {n m : nat} (xs : n.(f32, m.f32)) (y : f32) =
        xs |> map (fun x => fst x + reduceSeq (fun acc v => acc + y * v) 0.0 (snd x))";
    assert_eq!(fired("lift-reduce-seq-2", src, true, true), 1);
}

#[test]
fn vec_before_map_needs_a_vectorisable_function() {
    let src = "def p {n : nat} (xs : (4*n).f32) (y : f32) =
        xs |> map (fun v => select (lt v y) v 0.0) |> asVector 4 |> asScalar";
    assert_eq!(fired("vec-before-map(4)", src, true, true), 0);
    // The lane count must be the rule's.
    let other = "def p {n : nat} (xs : (8*n).f32) (y : f32) =
        xs |> map (fun v => v * y) |> asVector 8 |> asScalar";
    assert_eq!(fired("vec-before-map(4)", other, true, true), 0);
    assert_eq!(fired("vec-before-map(8)", other, true, true), 1);
}

#[test]
fn store_to_mem_does_not_store_what_is_in_memory() {
    // Only xs is stored; toMem xs is already in memory.
    let src = "def p {n : nat} (xs : n.f32) (y : f32) = toMem xs";
    assert_eq!(fired("store-to-mem", src, true, true), 1);
}

#[test]
fn rules_that_match_any_class_stop_growing() {
    let options = Options::default();
    let src = "def p {n : nat} (xs : n.f32) (y : f32) = xs |> map (fun v => v * y) |> toMem";
    // Each alone reaches a fixed point. (Together they do not: store-to-mem adds an identity
    // `fun y => y` at every stored type, whose bound variable join-split then splits into a
    // deeper type, assuming n/16, n/64, …; like split-join, that needs search limits.)
    let sets: [&[&str]; 5] = [
        &["store-to-mem"],
        &["map-array"],
        &["vec-after(4)"],
        &["join-split(4)"],
        &["store-to-mem", "map-array", "vec-after(4)"],
    ];
    for set in sets {
        let rules: Vec<_> = set.iter().map(|s| rules::lookup(s).unwrap()).collect();
        let counts = rounds(&rules, src, &options, 5).unwrap();
        assert!(
            counts[0] > 0 && counts[3..].iter().all(|&c| c == 0),
            "{set:?}: {counts:?}"
        );
    }
}
