//! `risec verify` and `risec bench` for programs other than the matrix multiplication (issue
//! 21): every version against the reference interpreter at a small size and the naive lowering
//! at the benchmark size, a user's C function as a baseline, OpenBLAS where the program is a
//! BLAS operation, and the errors a user meets.

mod common;

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
    let o = common::risec(&[
        "verify",
        &program,
        "--sketch",
        &sketch,
        "--baseline",
        &format!("hand={good}:good"),
        "--size",
        "n=100000",
    ]);
    let out = common::stdout(&o);
    assert!(o.status.success(), "{out}{}", common::stderr(&o));
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
    let o = common::risec(&[
        "verify",
        &program,
        "--baseline",
        &format!("wrong={wrong}:wrong"),
    ]);
    let err = common::stderr(&o);
    assert!(!o.status.success());
    assert!(err.contains("wrong  WRONG: relative error"), "{err}");
    assert!(err.contains("error: a kernel failed verification"), "{err}");
}

#[test]
fn a_blas_operation_is_timed_beside_openblas_and_the_copy_bandwidth() {
    let d = dir("generic-bench");
    let csv = d.join("dot.csv");
    let o = common::risec(&[
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
    let out = common::stdout(&o);
    assert!(o.status.success(), "{out}{}", common::stderr(&o));
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
fn what_a_user_gets_wrong_is_said_plainly() {
    let d = dir("generic-errors");
    let program = write(&d, "scale.rise", SCALE);
    let o = common::risec(&["bench", &program]);
    assert!(!o.status.success());
    assert!(
        common::stderr(&o).contains(
            "error: `scale` is not a matrix multiplication: give its sizes, as in `--size n=…`"
        ),
        "{}",
        common::stderr(&o)
    );
    let o = common::risec(&["verify", &program, "--baseline", "x=nofile.c"]);
    assert!(
        common::stderr(&o).contains("expected NAME=FILE.c:FUNCTION"),
        "{}",
        common::stderr(&o)
    );
    let o = common::risec(&["verify", &program, "--baseline", "x=nofile.c:f"]);
    assert!(
        common::stderr(&o).contains("no file `nofile.c`"),
        "{}",
        common::stderr(&o)
    );
    let o = common::risec(&["bench", &program, "--size", "n=64", "--plot", "x.svg"]);
    assert!(
        common::stderr(&o).contains("write the results with `--csv`"),
        "{}",
        common::stderr(&o)
    );
}

#[test]
fn a_zero_size_is_an_error_not_a_run_that_checks_nothing() {
    for args in [
        ["verify", "examples/dot.rise", "--check-size", "n=0"],
        ["verify", "examples/dot.rise", "--size", "n=0"],
        ["bench", "examples/dot.rise", "--size", "n=0"],
    ] {
        let o = common::risec(&args);
        let err = common::stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(
                "error: size `n` is 0 in `n=0`: the generated C runs on positive sizes only"
            ),
            "{args:?}: {err}"
        );
    }
}
