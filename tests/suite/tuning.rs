//! Sketch parameters (`param`, `require`, `budget`), `--param`, `risec tune` and `--tuning`.

use crate::common::{risec, risec_within, stderr, stdout, temp_file};
use std::time::Duration;

const SCALE: &str = "def scale {n : nat} (xs : n.f32) : n.f32 = map (fun x => x * 2.0) xs\n";

/// A sketch whose parameter P = 2 makes its (trusted) rule wrong: tuning must reject it.
const WRONG_FOR_TWO: &str = "\
// P = 1 keeps the program's value; P = 2 doubles it.
param P = 1 in [1, 2]
rule extra : a * b =>> (a * b) * P.0
step s {
  rules = [extra]
  sketch = contains(mul (mul ? ?) ?)
}
";

#[test]
fn parameters_stand_for_their_numbers_in_sketches_rules_and_user_rules() {
    let program = risec::load_program("examples/matmul.rise", None).unwrap();
    let sketch = "sketches/matmul/register-blocking-avx512.sk";
    let defaults = risec::load_sketch_with(sketch, &program, &Default::default()).unwrap();
    let value =
        |l: &risec::LoadedSketch, n: &str| l.params.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
    assert_eq!(value(&defaults, "MR"), Some(8));
    assert_eq!(value(&defaults, "MP"), Some(12), "MC / MR, derived");
    let options = risec::SketchOptions {
        params: vec![("MR".into(), 6), ("MC".into(), 48)],
        ..Default::default()
    };
    let tuned = risec::load_sketch_with(sketch, &program, &options).unwrap();
    assert_eq!(value(&tuned, "MP"), Some(8));
    let tile = tuned.steps.iter().find(|s| s.name == "tile").unwrap();
    let text = tile.sketch.to_string();
    // m/MC, MC/MR and MR (sizes are printed by index: #2 is m).
    for part in ["#2/48.", "8.? ->", "6.? ->", "#2/6."] {
        assert!(text.contains(part), "{part} in {text}");
    }
    assert!(
        tile.rules.iter().any(|r| r.name == "split-join(48)"),
        "rule arguments"
    );
    // The user rule packs A in panels of MR = 6 rows: the search finds `(m/6).k.6.f32`.
    let done = risec::optimize(&program, &tuned.steps, &Default::default()).unwrap();
    let low = risec_core::core::print::program_to_source(&done.program);
    assert!(low.contains("split 6"), "{low}");
}

/// The main job on matmul with the AVX-512 GEMM sketch and `--param PARAMS`.
fn gemm_with(params: &str) -> std::process::Output {
    risec(&[
        "examples/matmul.rise",
        "--sketch",
        "sketches/matmul/register-blocking-avx512.sk",
        "--param",
        params,
    ])
}

#[test]
fn parameter_errors_name_the_constraint_and_the_place() {
    let out = gemm_with("MR=7");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("the parameters break `require MC % MR == 0` (MC = 96, MR = 7)"),
        "{err}"
    );
    assert!(err.contains("register-blocking-avx512.sk:"), "{err}");
    assert!(err.contains("with --param MR=7"), "{err}");
    let out = gemm_with("MP=4");
    assert!(
        stderr(&out).contains("`MP` is derived from others"),
        "{}",
        stderr(&out)
    );
    let out = gemm_with("QQ=4");
    // Only that error: the steps are not resolved without the parameters.
    assert!(!stderr(&out).contains("unknown rule"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no parameter `QQ` (its parameters: MR, NR, KC, MC)"),
        "{}",
        stderr(&out)
    );
    let out = risec(&["examples/matmul.rise", "--sketch", "x.sk", "--param", "MR"]);
    assert!(
        stderr(&out).contains("expected NAME=VALUE"),
        "{}",
        stderr(&out)
    );
    // A budget is a warning; a value computed from an undeclared name is an error at it.
    let sk = temp_file(
        "budget.sk",
        b"param A = 40 in [8, 40]\nbudget A <= VECTOR_REGISTERS\nstep s { sketch = ? }\n",
    );
    let out = risec(&["examples/matmul.rise", "--sketch", sk.to_str().unwrap()]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("warning: the parameters exceed the budget `budget A <= VECTOR_REGISTERS` (A = 40, VECTOR_REGISTERS = "), "{err}");
    assert!(err.contains("budget.sk:2:1"), "{err}");
    let sk = temp_file(
        "undeclared.sk",
        b"param A = 4\nparam B = A + C\nstep s { sketch = ? }\n",
    );
    let out = risec(&["examples/matmul.rise", "--sketch", sk.to_str().unwrap()]);
    let err = stderr(&out);
    assert!(
        err.contains("`C` is not a parameter declared before this point"),
        "{err}"
    );
    assert!(err.contains("undeclared.sk:2:15"), "{err}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn tuning_rejects_a_wrong_choice_records_the_best_and_is_used_by_later_runs() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tuning-e2e");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("scale.rise");
    std::fs::write(&program, SCALE).unwrap();
    let sketch = dir.join("wrong.sk");
    std::fs::write(&sketch, WRONG_FOR_TWO).unwrap();
    let record = dir.join("t.json");
    let (p, s, r) = (
        program.to_str().unwrap(),
        sketch.to_str().unwrap(),
        record.to_str().unwrap(),
    );
    let out = risec_within(
        &[
            "tune",
            p,
            "--sketch",
            s,
            "--trust-rule",
            "extra",
            "--size",
            "n=4096",
            "--batch",
            "2",
            "--rounds",
            "1",
            "--record",
            r,
        ],
        Duration::from_secs(300),
    );
    let text = stdout(&out);
    assert!(out.status.success(), "{text}\n{}", stderr(&out));
    assert!(
        text.contains("failed: P=2: against the interpreter at n=13: WRONG"),
        "{text}"
    );
    assert!(text.contains("chosen: P=1"), "{text}");
    let file = risec_bench::tuning::TuningFile::read(&record).unwrap();
    assert_eq!(file.records.len(), 1);
    let rec = &file.records[0];
    assert_eq!(rec.params["P"], 1);
    assert_eq!(rec.sizes["n"], 4096);
    assert_eq!(
        (rec.program.as_str(), rec.sketch.as_str()),
        ("scale", "wrong.sk")
    );
    assert!(rec.median_ms > 0.0 && rec.tried == 2);
    // The main job uses the record (and says so); `--param` overrides it.
    let out = risec(&[p, "--sketch", s, "--trust-rule", "extra", "--tuning", r]);
    assert!(stdout(&out).contains("x * 2.0 * 1.0"), "{}", stdout(&out));
    assert!(stderr(&out).contains("tuning: P=1 from the record of wrong.sk at n=4096"));
    let out = risec(&[
        p,
        "--sketch",
        s,
        "--trust-rule",
        "extra",
        "--tuning",
        r,
        "--param",
        "P=2",
    ]);
    assert!(stdout(&out).contains("x * 2.0 * 2.0"), "{}", stdout(&out));
    // A record's parameter that the sketch no longer declares is left out, with a warning.
    let mut edited = file.clone();
    edited.records[0].params.insert("Z".into(), 3);
    let edited_path = dir.join("edited.json");
    std::fs::write(&edited_path, edited.to_json()).unwrap();
    let e = edited_path.to_str().unwrap();
    let out = risec(&[p, "--sketch", s, "--trust-rule", "extra", "--tuning", e]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("sets `Z`, which `") && stderr(&out).contains("ignored"),
        "{}",
        stderr(&out)
    );
    // `risec bench` runs the tuned version beside the defaults.
    let out = risec(&[
        "bench",
        p,
        "--sketch",
        s,
        "--trust-rule",
        "extra",
        "--tuning",
        r,
        "--size",
        "n=4096",
        "--rounds",
        "1",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("wrong (tuned)"), "{}", stdout(&out));
}

#[test]
fn several_sketch_files_are_tuned_together_each_with_its_record() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tuning-several");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let program = write("scale.rise", SCALE);
    let wrong = write("wrong.sk", WRONG_FOR_TWO);
    // The same parameter, which this variant does not use: both of its choices are right.
    let plain = write("plain.sk", "param P = 1 in [1, 2]\nstep s { sketch = ? }\n");
    let other = write("other.sk", "param Q = 1 in [1, 2]\nstep s { sketch = ? }\n");
    let record = dir.join("t.json");
    let r = record.to_str().unwrap();
    let args = |sketches: &[&str]| {
        let mut a = vec!["tune", &program];
        for s in sketches {
            a.extend(["--sketch", s]);
        }
        a.extend([
            "--trust-rule",
            "extra",
            "--size",
            "n=4096",
            "--batch",
            "3",
            "--rounds",
            "1",
            "--record",
            r,
        ]);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let a = args(&[&wrong, &plain]);
    let out = risec_within(
        &a.iter().map(String::as_str).collect::<Vec<_>>(),
        Duration::from_secs(300),
    );
    let text = stdout(&out);
    assert!(out.status.success(), "{text}\n{}", stderr(&out));
    assert!(text.contains("failed: wrong P=2"), "{text}");
    assert!(text.contains("chosen for wrong: P=1"), "{text}");
    assert!(text.contains("chosen for plain: P="), "{text}");
    assert!(text.contains("fastest: "), "{text}");
    let file = risec_bench::tuning::TuningFile::read(&record).unwrap();
    let sketches: Vec<&str> = file.records.iter().map(|r| r.sketch.as_str()).collect();
    assert_eq!(sketches, ["wrong.sk", "plain.sk"]);
    // Variants with other parameters cannot be searched together.
    let a = args(&[&wrong, &other]);
    let out = risec(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("need the same parameters"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn tune_refuses_another_programs_sketch_and_arrays_larger_than_memory_before_any_search() {
    let record = temp_file("refused.json", b"{\"records\": []}");
    let r = record.to_str().unwrap();
    let sketch = "sketches/matmul/register-blocking-avx512.sk";
    // The matmul sketch names `n`, which the matrix-vector product does not have: the whole
    // diagnostic, with the place in the sketch's library.
    let out = risec(&[
        "tune",
        "examples/matvec.rise",
        "--sketch",
        sketch,
        "--size",
        "m=64,k=64",
        "--record",
        r,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("unknown size `n`") && err.contains("lib.sk:"),
        "{err}"
    );
    assert!(!err.contains("batch 1"), "{err}");
    let out = risec(&[
        "tune",
        "examples/matmul.rise",
        "--sketch",
        sketch,
        "--size",
        "m=200000,n=200000,k=200000",
        "--record",
        r,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("more than this machine's"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_sketch_without_tunable_parameters_is_refused_by_tune() {
    let out = risec(&[
        "tune",
        "examples/matmul.rise",
        "--sketch",
        "sketches/matmul/parallel.sk",
        "--size",
        "m=64,n=64,k=64",
        "--record",
        temp_file("unused.json", b"{\"records\": []}")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("has no tunable parameters"),
        "{}",
        stderr(&out)
    );
}
