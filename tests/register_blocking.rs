//! The register-blocked GEMM (`sketches/matmul/register-blocking*.sk`, BLIS's loop structure)
//! all the way to machine code: found by its sketch, compiled to C, built with gcc
//! (`-O3 -march=native -fopenmp -Wall -Wextra -Werror`) and run against the naive C loop with 1
//! and 2 OpenMP threads at sizes its blocks divide (m by 96, n by 16 or 32, k by 256), including
//! 192×512×768, and at 1536³ against the hand-written parallel baseline (itself checked against
//! the naive loop by `tests/codegen_c.rs`).

mod common;

use common::{risec, stderr};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const VERSIONS: [&str; 2] = ["register-blocking", "register-blocking-avx512"];

fn kernels() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| common::build_sketch_kernels(&VERSIONS, "register-blocking"))
}

fn verify_all(sizes: (u32, u32, u32), reference: &str, threads: u32) {
    let names = common::verify_kernels(kernels(), sizes, reference, threads);
    for v in VERSIONS {
        assert!(
            names.iter().any(|n| n == v),
            "{v} was not checked: {names:?}"
        );
    }
}

#[test]
fn register_blocked_versions_match_naive_c_with_one_and_two_threads() {
    for sizes in [(192, 512, 768), (96, 32, 256), (288, 96, 512)] {
        for threads in [1, 2] {
            verify_all(sizes, "naive (C)", threads);
        }
    }
}

#[test]
fn register_blocked_versions_match_the_parallel_baseline_at_1536() {
    for threads in [1, 2] {
        verify_all((1536, 1536, 1536), "parallel (C)", threads);
    }
}

/// The generated C keeps the structure readable: a micro-kernel whose unrolled statements name
/// the Rise primitives they come from, the element of A broadcast (`{s, s, …}`), packed copies
/// made once per call, and the row-block loop run by OpenMP.
#[test]
fn the_micro_kernel_is_recognisable_in_the_c() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("register-blocking-c");
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join("mm.c");
    let o = risec(&[
        "examples/matmul.rise",
        "--sketch",
        "sketches/matmul/register-blocking.sk",
        "-o",
        c.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let source = std::fs::read_to_string(&c).unwrap();
    for expected in [
        "// mapSeqUnroll: iteration 5",
        "// reduceSeq: initialise the accumulator",
        "{s11, s11, s11, s11, s11, s11, s11, s11}",
        "#pragma omp parallel for",
        "// toMem: materialised into",
    ] {
        assert!(source.contains(expected), "`{expected}` not in:\n{source}");
    }
    // The tile is only ever accessed as vectors of 8 (filled, updated and emptied): a row
    // copied as 16 lanes and updated as 8 keeps gcc from promoting it to registers.
    assert!(!source.contains("f32x16"), "{source}");
    // Two packed copies, allocated once, outside every loop.
    assert_eq!(source.matches("= rise_temp_alloc(").count(), 2, "{source}");
}
