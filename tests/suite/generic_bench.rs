//! `risec verify` and `risec bench` for programs other than the matrix multiplication (issue
//! 21): every version against the reference interpreter at a small size and the naive lowering
//! at the benchmark size, a user's C function as a baseline, OpenBLAS where the program is a
//! BLAS operation, and the errors a user meets.

use std::path::PathBuf;

fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(d: &std::path::Path, name: &str, text: &str) -> String {
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

const SCALE: &str = "def scale {n : nat} (xs : n.f32) : n.f32 = xs |> map (fun x => x * 2.0)\n";
const SCALE_SKETCH: &str = "step s {\n  rules = [map-seq]\n  sketch = contains(mapSeq)\n}\n";

#[test]
fn versions_and_user_baselines_are_checked_against_the_interpreter() {
    let d = dir("generic-verify");
    let program = write(&d, "scale.rise", SCALE);
    let sketch = write(&d, "seq.sk", SCALE_SKETCH);
    let good = write(
        &d,
        "good.c",
        "int good(int n, float *restrict out, const float *restrict xs) {\n\
         for (int i = 0; i < n; i++) out[i] = 2.0f * xs[i];\n  return 0;\n}\n",
    );
    let wrong = write(
        &d,
        "wrong.c",
        "int wrong(int n, float *restrict out, const float *restrict xs) {\n\
         for (int i = 0; i < n; i++) out[i] = 3.0f * xs[i];\n  return 0;\n}\n",
    );
    let o = crate::common::risec(&[
        "verify",
        &program,
        "--sketch",
        &sketch,
        "--baseline",
        &format!("hand={good}:good"),
        "--size",
        "n=100000",
    ]);
    let out = crate::common::stdout(&o);
    assert!(o.status.success(), "{out}{}", crate::common::stderr(&o));
    assert!(out.contains("at n=13"), "{out}");
    // At both sizes, with 1 and 2 threads.
    for name in ["naive", "seq", "hand"] {
        assert_eq!(
            out.lines()
                .filter(|l| l.trim_start().starts_with(name) && l.contains("ok (relative error"))
                .count(),
            4,
            "{name}: {out}"
        );
    }
    // A C function that computes something else is caught, and the command fails.
    let o = crate::common::risec(&[
        "verify",
        &program,
        "--baseline",
        &format!("wrong={wrong}:wrong"),
    ]);
    let err = crate::common::stderr(&o);
    assert!(!o.status.success());
    assert!(err.contains("wrong  WRONG: relative error"), "{err}");
    assert!(err.contains("error: a kernel failed verification"), "{err}");
}

/// A kernel slower than 2 s a call (the naive loops of a large program) is not timed round
/// after round: its check run at the benchmark size is its one sample (the CSV's min, median
/// and max are that one time), whatever `--rounds` says. The baseline sleeps 2.1 s only at the
/// benchmark size; the assertions are on the samples, not on a wall-clock time.
#[test]
fn a_kernel_slower_than_two_seconds_is_timed_once() {
    let d = dir("generic-slow");
    let program = write(&d, "scale.rise", SCALE);
    let slow = write(
        &d,
        "slow.c",
        "#include <time.h>\n\
         int slow(int n, float *restrict out, const float *restrict xs) {\n\
         if (n == 4096) { struct timespec t = {2, 100000000L}; nanosleep(&t, 0); }\n\
         for (int i = 0; i < n; i++) out[i] = 2.0f * xs[i];\n  return 0;\n}\n",
    );
    let csv = d.join("slow.csv");
    let o = crate::common::risec(&[
        "bench",
        &program,
        "--baseline",
        &format!("slow={slow}:slow"),
        "--size",
        "n=4096",
        "--rounds",
        "9",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", crate::common::stderr(&o));
    let text = std::fs::read_to_string(&csv).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let row: Vec<&str> = text
        .lines()
        .find(|l| l.starts_with("\"slow\","))
        .unwrap_or_else(|| panic!("{text}"))
        .split(',')
        .collect();
    let ms = |name: &str| row[col(name)].parse::<f64>().unwrap();
    assert!(ms("median_ms") >= 2000.0, "{text}");
    assert_eq!(ms("min_ms"), ms("max_ms"), "{text}");
    assert_eq!(ms("min_ms"), ms("median_ms"), "{text}");
}

#[test]
fn a_blas_operation_is_timed_beside_openblas_and_the_copy_bandwidth() {
    let d = dir("generic-bench");
    let csv = d.join("dot.csv");
    let o = crate::common::risec(&[
        "bench",
        "examples/dot.rise",
        "--size",
        "n=100000",
        "--threads",
        "1,2",
        "--rounds",
        "3",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    let out = crate::common::stdout(&o);
    assert!(o.status.success(), "{out}{}", crate::common::stderr(&o));
    assert!(
        out.contains("dot at n=100000; 800004 bytes read and written per call"),
        "{out}"
    );
    assert!(out.contains("copy (memcpy)"), "{out}");
    let table = std::fs::read_to_string(&csv).unwrap();
    assert!(
        table.starts_with("kernel,origin,threads,returned,median_ms"),
        "{table}"
    );
    // naive and the copy at 1 and 2 threads, and OpenBLAS where it is installed.
    let rows = table.lines().count() - 1;
    if out.contains("OpenBLAS runs the program as sdot") {
        assert_eq!(rows, 6, "{table}");
    } else {
        assert_eq!(rows, 4, "{table}");
    }
}

#[test]
fn every_program_gets_the_plot() {
    let d = dir("generic-plot");
    let program = write(&d, "scale.rise", SCALE);
    // Every program gets the same report: the plot draws its GFLOP/s.
    let svg = d.join("scale.svg");
    let o = crate::common::risec(&[
        "bench",
        &program,
        "--size",
        "n=64",
        "--rounds",
        "1",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", crate::common::stderr(&o));
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.contains("GFLOP/s"), "{drawn}");
}

/// C functions of `scale`'s signature that each do one thing a kernel must not do, all in one
/// file (several baselines from one file are compiled once).
const MISBEHAVING: &str = "#include <stdlib.h>\n\
    int good(int n, float *restrict out, const float *restrict xs) {\n\
      for (int i = 0; i < n; i++) out[i] = 2.0f * xs[i];\n  return 0;\n}\n\
    int writes_past(int n, float *restrict out, const float *restrict xs) {\n\
      for (int i = 0; i <= n; i++) out[i] = 2.0f * xs[i < n ? i : 0];\n  return 0;\n}\n\
    int writes_before(int n, float *restrict out, const float *restrict xs) {\n\
      for (int i = -1; i < n; i++) out[i] = 2.0f * xs[i < 0 ? 0 : i];\n  return 0;\n}\n\
    int reads_past(int n, float *restrict out, const float *restrict xs) {\n\
      for (int i = 0; i < n; i++) out[i] = 2.0f * xs[i] + 0.0f * xs[i + 16];\n  return 0;\n}\n\
    int changes_input(int n, float *restrict out, const float *restrict xs) {\n\
      for (int i = 0; i < n; i++) { out[i] = 2.0f * xs[i]; ((float *)xs)[i] = 0.0f; }\n  return 0;\n}\n\
    int exits(int n, float *restrict out, const float *restrict xs) { (void)n; (void)out; (void)xs; exit(0); }\n\
    int spins(int n, float *restrict out, const float *restrict xs) {\n\
      (void)out; (void)xs; volatile int go = 1; while (go) n++; return n;\n}\n\
    int refuses(int n, float *restrict out, const float *restrict xs) { (void)n; (void)out; (void)xs; return 1; }\n\
    int wrong_when_large(int n, float *restrict out, const float *restrict xs) {\n\
      for (int i = 0; i < n; i++) out[i] = xs[i] > 100.0f ? xs[i] : 2.0f * xs[i];\n  return 0;\n}\n";

#[test]
fn verify_is_an_oracle_for_what_a_kernel_must_not_do() {
    let d = dir("generic-oracle");
    let program = write(&d, "scale.rise", SCALE);
    let c = write(&d, "misbehaving.c", MISBEHAVING);
    let names = [
        "good",
        "writes_past",
        "writes_before",
        "reads_past",
        "changes_input",
        "exits",
        "spins",
        "refuses",
        "wrong_when_large",
    ];
    let mut args = vec![
        "verify".to_string(),
        program,
        "--threads".into(),
        "1".into(),
    ];
    for n in names {
        args.push("--baseline".into());
        args.push(format!("{n}={c}:{n}"));
    }
    args.extend(["--run-limit".into(), "1s".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = crate::common::risec(&args);
    let err = crate::common::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let line = |name: &str| {
        err.lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no line for {name}: {err}"))
            .to_string()
    };
    assert!(line("good").contains("ok (relative error"), "{err}");
    assert!(line("writes_past").contains("SIGSEGV"), "{err}");
    assert!(
        line("writes_before").contains("wrote before the start of `out`"),
        "{err}"
    );
    assert!(line("reads_past").contains("SIGSEGV"), "{err}");
    assert!(
        line("changes_input").contains("changed its input `xs`"),
        "{err}"
    );
    assert!(
        line("exits").contains("exited (status 0) instead of returning"),
        "{err}"
    );
    assert!(line("spins").contains("ran past the limit of 1s"), "{err}");
    assert!(
        line("refuses").contains("REFUSED the sizes (returned 1"),
        "{err}"
    );
    // Right on [-1, 1) and on whole numbers up to 100; wrong on the wide magnitudes.
    assert!(line("wrong_when_large").contains("WRONG"), "{err}");
    assert!(
        line("wrong_when_large").contains("magnitudes 2^-20 to 2^20"),
        "{err}"
    );
}

#[test]
fn verify_under_the_sanitizers_names_the_bad_access() {
    let d = dir("generic-oracle-sanitized");
    let program = write(&d, "scale.rise", SCALE);
    let c = write(&d, "misbehaving.c", MISBEHAVING);
    let o = crate::common::risec(&[
        "verify",
        &program,
        "--threads",
        "1",
        "--sanitize",
        "--baseline",
        &format!("good={c}:good"),
        "--baseline",
        &format!("reads_past={c}:reads_past"),
    ]);
    let err = crate::common::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("under AddressSanitizer and UBSan"), "{err}");
    assert!(
        err.contains("stopped by a sanitizer") && err.contains("heap-buffer-overflow"),
        "{err}"
    );
    assert!(err.contains("in reads_past"), "{err}");
}
