//! The main job end to end: every shipped sketch produces a low-level program that checks again
//! with the program's type and computes what the naive program computes (reference interpreter,
//! m = n = k = 64, inputs that make every f32 sum exact), plus the errors a user can hit.

use crate::common::{risec, stderr, stdout, temp_file};
use risec::{load_program, load_sketch, optimize, Optimized};
use risec_core::core::print::program_type_to_source;
use risec_core::core::TypedProgram;
use risec_core::diagnostics::SourceFile;
use risec_core::interp::{self, random::Rng};
use risec_sketch::guided::SearchOptions;

/// Runs the main job, and checks the printed program, its C and the search's figures against
/// the snapshots in `tests/snapshots/` (`cargo insta review` or `INSTA_UPDATE=always` after an
/// intended change).
fn run(program: &str, sketch: &str) -> Optimized {
    let loaded = load_program(program, None).and_then(|p| {
        let steps = load_sketch(sketch, &p)?;
        optimize(&p, &steps, &SearchOptions::default())
    });
    let out = match loaded {
        Ok(o) => o,
        Err(e) => panic!("{sketch}: {e}"),
    };
    let stem = |p: &str| {
        std::path::Path::new(p)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let name = format!("{}-{}", stem(program), stem(sketch));
    let figures: String = out
        .steps
        .iter()
        .map(|s| {
            format!(
                "step {}: {} iterations, {} e-nodes, {} e-classes, cost {:?}\n",
                s.name.as_deref().unwrap_or(""),
                s.summary.iterations,
                s.summary.nodes,
                s.summary.classes,
                s.cost
            )
        })
        .collect();
    let c = risec::emit_c(
        &out.program,
        &risec::CodegenOptions::new(&format!("{name}.h")),
    )
    .unwrap_or_else(|e| panic!("{sketch}: {e}"));
    // The snapshots keep the names and folder they had as their own test binary
    // (`tests/snapshots/sketches__NAME.*.snap`).
    insta::with_settings!({
        snapshot_path => "../snapshots",
        prepend_module_to_snapshot => false,
    }, {
        insta::assert_snapshot!(format!("sketches__{name}.rise"), out.source);
        insta::assert_snapshot!(format!("sketches__{name}.c"), c.source);
        insta::assert_snapshot!(format!("sketches__{name}.search"), figures);
    });
    out
}

/// Checks the printed result again and compares it with the original in the interpreter, on
/// the inputs of seeds 0 and 1.
fn verify(program: &str, out: &Optimized, sizes: &[u64]) -> TypedProgram {
    verify_with_seeds(program, out, sizes, 0..2)
}

/// [`verify`] on the inputs of `seeds`.
fn verify_with_seeds(
    program: &str,
    out: &Optimized,
    sizes: &[u64],
    seeds: std::ops::Range<u64>,
) -> TypedProgram {
    let original = risec_frontend::load::compile_file(program, None).unwrap();
    let reparsed =
        risec_frontend::load::compile_source(&SourceFile::new("out.rise", &out.source), None)
            .unwrap_or_else(|e| panic!("result does not check:\n{}\n{}", e.render(), out.source));
    assert_eq!(
        program_type_to_source(&reparsed),
        program_type_to_source(&original)
    );
    for seed in seeds {
        let args = interp::random::random_args(&original, sizes, &mut Rng::new(seed)).unwrap();
        let want = interp::run_program(&original, sizes, args.clone()).unwrap();
        let got = interp::run_program(&reparsed, sizes, args.clone()).unwrap();
        let lowered = interp::run_program(&out.program, sizes, args).unwrap();
        assert_eq!(format!("{got}"), format!("{want}"), "{}", out.source);
        assert_eq!(format!("{lowered}"), format!("{want}"));
    }
    assert!(
        risec_backend::lowlevel::remaining_high_level(&out.program.term).is_empty(),
        "{}",
        out.source
    );
    reparsed
}

fn verify_matmul(sketch: &str) -> Optimized {
    let out = run("examples/matmul.rise", sketch);
    verify("examples/matmul.rise", &out, &[64, 64, 64]);
    out
}

#[test]
fn baseline_is_found_and_verified() {
    let out = verify_matmul("sketches/matmul/baseline.sk");
    assert!(out.source.contains("reduceSeq"));
    assert!(out.facts.is_empty(), "{:?}", out.facts);
}

#[test]
fn blocking_is_found_and_verified_and_reports_only_the_facts_it_needs() {
    let out = verify_matmul("sketches/matmul/blocking.sk");
    let mut facts = out.facts.clone();
    facts.sort();
    assert_eq!(facts, ["k/4", "m/32", "n/32"]);
    assert_eq!(out.steps.len(), 2);
    assert!(out.steps.iter().all(|s| s.summary.found));
}

/// Checks a TVM-schedule version: found, verified, with the primitives its step introduces.
fn check_version(name: &str, must_contain: &[&str]) {
    let out = verify_matmul(&format!("sketches/matmul/{name}.sk"));
    for p in must_contain {
        assert!(out.source.contains(p), "{name} lacks {p}:\n{}", out.source);
    }
    assert!(out.steps.len() <= 4, "{name} has {} steps", out.steps.len());
}

#[test]
fn vectorization_is_found_and_verified() {
    check_version("vectorization", &["asVector 32", "asScalar", "<32>f32"]);
}

#[test]
fn loop_perm_is_found_and_verified() {
    check_version("loop-perm", &["asVector 32", "<32>f32"]);
}

#[test]
fn array_packing_is_found_and_verified() {
    check_version(
        "array-packing",
        &[
            "toMem (transpose b |> split 32 |> mapPar transpose)",
            "asVector 32",
        ],
    );
}

#[test]
fn cache_blocks_is_found_and_verified() {
    check_version("cache-blocks", &["toMem", "reduceSeqUnroll", "asVector 32"]);
}

#[test]
fn parallel_is_found_and_verified() {
    check_version(
        "parallel",
        &["toMem", "reduceSeqUnroll", "a |> split 32 |> mapPar"],
    );
}

/// A register-blocked version (BLIS's loops): found in at most six steps and verified in the
/// interpreter at the smallest sizes its blocks divide, on one seed's inputs: at 48×512×768
/// the interpreter runs 19 M multiply-adds per program, three programs per seed (the C of these
/// versions is checked against the naive loop at many sizes by tests/suite/register_blocking.rs
/// and tests/suite/any_size.rs). One test per file, so that they run side by side.
fn check_register_blocked(name: &str, vector: &str, sizes: [u64; 3]) {
    let out = run(
        "examples/matmul.rise",
        &format!("sketches/matmul/{name}.sk"),
    );
    verify_with_seeds("examples/matmul.rise", &out, &sizes, 0..1);
    for p in ["toMem", "mapPar", "mapSeqUnroll", "reduceSeq", vector] {
        assert!(out.source.contains(p), "{name} lacks {p}:\n{}", out.source);
    }
    assert!(out.steps.len() <= 6, "{name} has {} steps", out.steps.len());
}

#[test]
fn register_blocking_is_found_and_verified() {
    check_register_blocked("register-blocking", "<8>f32", [48, 512, 768]);
}

#[test]
fn register_blocking_avx512_is_found_and_verified() {
    check_register_blocked("register-blocking-avx512", "<16>f32", [96, 32, 256]);
}

#[test]
fn register_blocking_any_is_found_and_verified() {
    check_register_blocked("register-blocking-any", "<8>f32", [24, 16, 5]);
}

#[test]
fn register_blocking_avx512_whole_k_is_found_and_verified() {
    check_register_blocked("register-blocking-avx512-whole-k", "<16>f32", [96, 32, 5]);
}

#[test]
fn other_tile_sizes_need_no_code_change() {
    let out = verify_matmul("sketches/matmul/blocking-64x64-k8.sk");
    let mut facts = out.facts.clone();
    facts.sort();
    assert_eq!(facts, ["k/8", "m/64", "n/64"]);
}

#[test]
fn matmul_written_differently_gets_the_same_shape() {
    let out = run(
        "tests/sketches/matmul-with-dot.rise",
        "sketches/matmul/blocking.sk",
    );
    verify("tests/sketches/matmul-with-dot.rise", &out, &[64, 64, 64]);
}

#[test]
fn a_matrix_vector_product_can_be_blocked() {
    let out = run("examples/matvec.rise", "sketches/matvec/blocking.sk");
    verify("examples/matvec.rise", &out, &[64, 64]);
    assert!(out.source.contains("split 32"), "{}", out.source);
}

#[test]
fn the_binary_prints_the_program_and_writes_stats() {
    let stats = temp_file("blocking-stats.json", b"");
    let o = risec(&[
        "examples/matmul.rise",
        "--sketch",
        "sketches/matmul/blocking.sk",
        "--stats",
        stats.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("def matmul"), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(err.contains("[1/2] step split: iteration 1"), "{err}");
    assert!(
        err.contains("step reorder") && err.contains("found in"),
        "{err}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(json["found"], true);
    assert_eq!(json["steps"][0]["name"], "split");
    assert!(json["steps"][0]["summary"]["nodes"].as_u64().unwrap() > 1000);
    assert!(
        json["steps"][1]["summary"]["rewrites_per_rule"]["lift-reduce-seq"]
            .as_u64()
            .is_some()
    );
    let facts: Vec<&str> = json["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(facts.len(), 3, "{facts:?}");
    let quiet = risec(&[
        "examples/matmul.rise",
        "--sketch",
        "sketches/matmul/baseline.sk",
        "-q",
    ]);
    assert!(quiet.status.success());
    assert_eq!(stderr(&quiet), "");
}

#[test]
fn malformed_sketches_are_reported_with_place_and_suggestion() {
    let bad = temp_file(
        "bad.sk",
        b"def f(n) = contains((map : ? -> n.? -> ?) ?)\nstep s {\n  rules = [map-fision]\n  sketch = f(m, ?)\n}\n",
    );
    let o = risec(&["examples/matmul.rise", "--sketch", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("bad.sk:3:12"), "{err}");
    assert!(
        err.contains("unknown rule or rule set `map-fision`"),
        "{err}"
    );
    assert!(err.contains("did you mean `map-fission`?"), "{err}");
    assert!(err.contains("`f` takes 1 argument(s), 2 given"), "{err}");
    assert_eq!(err.matches("error:").count(), 2, "{err}");
    let syntax = temp_file("syntax.sk", b"step s { sketch = map ( }\n");
    let o = risec(&["examples/matmul.rise", "--sketch", syntax.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("syntax.sk:1:25"), "{}", stderr(&o));
    assert!(stderr(&o).contains("^ expected"), "{}", stderr(&o));
}

#[test]
fn ill_typed_user_rules_are_rejected_by_name() {
    let bad = temp_file(
        "badrule.sk",
        b"rule wrong : map f xs => f\nstep s { rules = [wrong] sketch = ? }\n",
    );
    let o = risec(&["examples/matmul.rise", "--sketch", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("rule `wrong` is not well typed"),
        "{}",
        stderr(&o)
    );
    let good = temp_file(
        "goodrule.sk",
        b"rule my-fusion : map f (map g xs) => map (fun x => f (g x)) xs\n\
          step s { rules = [my-fusion, reduce-seq] sketch = contains(reduceSeq) }\n",
    );
    let o = risec(&[
        "examples/matmul.rise",
        "--sketch",
        good.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn an_unsatisfiable_sketch_exits_2_and_writes_nothing() {
    let sk = temp_file(
        "never.sk",
        b"import \"../../../sketches/matmul/lib.sk\"\n\
          step impossible {\n  rules = [reduce-seq]\n  limits = { iterations = 3 }\n\
          sketch = containsMap(m, containsMapPar(n, ?))\n}\n",
    );
    // The import is relative to the sketch file, which lives in the target directory.
    let text = std::fs::read_to_string(&sk).unwrap();
    let lib = std::fs::canonicalize("sketches/matmul/lib.sk").unwrap();
    std::fs::write(
        &sk,
        text.replace("../../../sketches/matmul/lib.sk", lib.to_str().unwrap()),
    )
    .unwrap();
    let out = temp_file("never.rise", b"stale");
    std::fs::remove_file(&out).unwrap();
    let o = risec(&[
        "examples/matmul.rise",
        "--sketch",
        sk.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("step `impossible`"), "{err}");
    assert!(err.contains("saturated") || err.contains("limit"), "{err}");
    assert!(err.contains("e-nodes"), "{err}");
    assert!(err.contains("closest partial match"), "{err}");
    assert!(!out.exists());
}
