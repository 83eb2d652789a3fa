//! End-to-end tests of `risec emit-c` and `risec bench` as a user runs them.

use crate::common::{risec, stderr, stdout};
use std::path::PathBuf;

fn out_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn emit_c_writes_the_source_and_a_matching_header() {
    let dir = out_dir("emit-c");
    let c = dir.join("mm.c");
    let out = risec(&[
        "emit-c",
        "examples/lowlevel/parallel.rise",
        "-o",
        c.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let source = std::fs::read_to_string(&c).unwrap();
    let header = std::fs::read_to_string(dir.join("mm.h")).unwrap();
    assert!(source.contains("#include \"mm.h\""));
    assert!(header.contains(
        "int matmul(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b);"
    ));
    assert!(source.contains("#pragma omp parallel for"));
    assert!(stdout(&out).contains("wrote"));
}

#[test]
fn emit_c_with_sizes_compiles_them_in_and_checks_facts() {
    let out = risec(&[
        "emit-c",
        "examples/lowlevel/blocking.rise",
        "--size",
        "m=64,n=32,k=8",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains(
        "int matmul(float *restrict out, const float *restrict a, const float *restrict b)"
    ));
    let bad = risec(&[
        "emit-c",
        "examples/lowlevel/blocking.rise",
        "--size",
        "m=48,n=32,k=8",
    ]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        stderr(&bad).contains("`m/32` is a whole number"),
        "{}",
        stderr(&bad)
    );
    let missing = risec(&[
        "emit-c",
        "examples/lowlevel/blocking.rise",
        "--size",
        "m=64",
    ]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("missing sizes for n, k"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn emit_c_rejects_a_high_level_program_with_the_reason() {
    let out = risec(&["emit-c", "examples/matmul.rise"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("high-level `map` is in a write position"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bench_prints_the_table_with_baselines() {
    let dir = out_dir("bench");
    let csv = dir.join("r.csv");
    let svg = dir.join("r.svg");
    let out = risec(&[
        "bench",
        "--version",
        "parallel=examples/lowlevel/parallel.rise",
        "--version",
        "blocking=examples/lowlevel/blocking.rise",
        "--size",
        "m=64,n=64,k=64",
        "--threads",
        "1,2",
        "--rounds",
        "2",
        "--csv",
        csv.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let table = stdout(&out);
    for needle in ["kernel", "x twin", "parallel (C)", "naive (C)", "GFLOP/s"] {
        assert!(table.contains(needle), "{needle} missing in\n{table}");
    }
    let rows = std::fs::read_to_string(&csv).unwrap();
    // The naive lowering, 2 versions, 7 baselines, the copy (+ OpenBLAS when installed), for
    // each of 2 thread counts, under a header.
    assert!(rows.lines().count() > 2 * 11, "{rows}");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.contains("<svg"));
    // Every kernel's name is drawn in full, reading downwards from its start below its bars.
    for name in ["parallel", "blocking", "naive (C)", "parallel (C)"] {
        let drawn = svg.split("<text").any(|t| {
            t.contains(r#"text-anchor="start""#)
                && t.contains("rotate(90")
                && t.split('>')
                    .nth(1)
                    .map(|s| s.split('<').next().unwrap().trim())
                    == Some(name)
        });
        assert!(drawn, "`{name}` is not drawn as a name in the plot:\n{svg}");
    }
    assert!(
        stderr(&out).contains("running m=64,n=64,k=64 ("),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains(" of arrays) with 1, 2 thread(s)"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("2 thread(s): verifying against the reference"));
}
