//! The main job all the way to machine code: each of the seven TVM-schedule versions, found by
//! its sketch (`sketches/matmul/X.sk`), lowered, compiled to C, built with gcc
//! (`-O3 -march=native -fopenmp -Wall -Wextra -Werror`) and run against the naive C loop at
//! non-square sizes with 1 and 2 OpenMP threads (several of the 32×32 tiles and k blocks along
//! every size), and, in the slow group, at 1024³ against the hand-written parallel baseline
//! (itself checked against the naive loop by `tests/suite/codegen_c.rs`).

use std::sync::OnceLock;

const VERSIONS: [&str; 7] = risec_bench::presets::TVM_VERSIONS;

fn kernels() -> &'static risec_bench::Built {
    static EXE: OnceLock<risec_bench::Built> = OnceLock::new();
    EXE.get_or_init(|| crate::common::build_sketch_kernels(&VERSIONS, "sketch-kernels"))
}

fn verify(sizes: (u32, u32, u32), reference: Option<&str>, threads: u32) -> Vec<String> {
    crate::common::verify_kernels(kernels(), sizes, reference, threads)
}

#[test]
fn sketch_versions_match_naive_c_at_non_square_sizes_with_one_and_two_threads() {
    for sizes in [(64, 96, 128), (256, 32, 512)] {
        for threads in [1, 2] {
            let names = verify(sizes, None, threads);
            for v in VERSIONS {
                assert!(
                    names.iter().any(|n| n == v),
                    "{v} was not checked: {names:?}"
                );
            }
        }
    }
}

/// The slow group (`cargo test --release -- --ignored slow_`): 35 s, most of it the naive
/// versions (the baseline sketch's and the C loop) at 1024³. The tiles are at most 32×32 with k
/// split by 4, so the quick test's sizes already run several tiles along every size; this one
/// adds sizes past the caches.
#[test]
#[ignore = "slow: the naive loops at 1024³ (cargo test --release -- --ignored slow_)"]
fn slow_sketch_versions_match_the_parallel_baseline_at_1024() {
    for threads in [1, 2] {
        let names = verify((1024, 1024, 1024), Some("parallel (C)"), threads);
        assert!(names.len() >= VERSIONS.len(), "{names:?}");
    }
}

#[test]
fn the_main_job_writes_c_and_a_header_that_compile() {
    let c = crate::common::compile_matmul_sketch("parallel", "main-job-c");
    let dir = c.parent().unwrap();
    let header = std::fs::read_to_string(dir.join("mm.h")).unwrap();
    assert!(header.contains(
        "int matmul(int m, int n, int k, float *restrict out, const float *restrict a, const float *restrict b);"
    ));
    let source = std::fs::read_to_string(&c).unwrap();
    assert!(source.contains("#pragma omp parallel for"), "{source}");
    crate::common::compile_object(&c, &dir.join("mm.o"));
}
