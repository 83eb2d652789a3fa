//! The register-blocked GEMM (`sketches/matmul/register-blocking*.sk`, BLIS's loop structure)
//! all the way to machine code: found by its sketch, compiled to C, built with gcc
//! (`-O3 -march=native -fopenmp -Wall -Wextra -Werror`) and run against the naive C loop with 1
//! and 2 OpenMP threads (against the naive lowering in double precision) at sizes both files' blocks divide (m by 96, n by 512, k by 768), with
//! several blocks along each size (sizes the blocks do not divide, under the sanitizers, are
//! `tests/suite/bounds_sweep.rs`).

use std::sync::OnceLock;

const VERSIONS: [&str; 2] = ["register-blocking", "register-blocking-avx512"];

fn kernels() -> &'static risec_bench::Built {
    static EXE: OnceLock<risec_bench::Built> = OnceLock::new();
    EXE.get_or_init(|| crate::common::build_sketch_kernels(&VERSIONS, "register-blocking"))
}

fn verify_all(sizes: (u32, u32, u32), reference: Option<&str>, threads: u32) {
    let names = crate::common::verify_kernels(kernels(), sizes, reference, threads);
    for v in VERSIONS {
        assert!(
            names.iter().any(|n| n == v),
            "{v} was not checked: {names:?}"
        );
    }
}

/// Several blocks along each size: 192 rows are 2 or 4 row blocks (MC 96 or 48), 1024 columns
/// 2 column blocks (NC 512), k = 1536 2 or 6 KC blocks (768 or 256). The naive loop is most of
/// the time (0.15 G multiply-adds a second), so the large size runs with 2 threads only.
#[test]
fn register_blocked_versions_match_naive_c_with_one_and_two_threads() {
    for threads in [1, 2] {
        verify_all((192, 512, 768), None, threads);
    }
    verify_all((192, 1024, 1536), None, 2);
}

/// The generated C keeps the structure readable: a micro-kernel whose unrolled statements name
/// the Rise primitives they come from, the element of A broadcast (`{s, s, …}`), packed copies
/// made once per call, and the row-block loop run by OpenMP.
#[test]
fn the_micro_kernel_is_recognisable_in_the_c() {
    let c = crate::common::compile_matmul_sketch("register-blocking", "register-blocking-c");
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
    // Two packed copies, allocated once, outside every loop: in the kernel, and in the edges
    // kernel (sizes the tiles do not divide, rounded up inside it).
    assert_eq!(source.matches("= rise_temp_get(").count(), 4, "{source}");
    assert!(source.contains("static int matmul_edges("), "{source}");
}

/// The packed copies are kept between calls: a second call at other sizes (larger in m and k, so
/// the kept buffers of A and B are replaced; then smaller, so they are reused), a call after
/// `matmul_release_temporaries`, and a build that allocates them on every call all match a
/// plain triple loop.
#[test]
fn temporaries_kept_between_calls_give_the_same_results() {
    let c = crate::common::compile_matmul_sketch("register-blocking", "register-blocking-kept");
    let dir = c.parent().unwrap().to_path_buf();
    let main = dir.join("main.c");
    std::fs::write(
        &main,
        r#"#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "mm.h"
static int check(int m, int n, int k) {
    float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n);
    float *c = malloc(sizeof(float) * m * n);
    for (int i = 0; i < m * k; i++) a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    for (int i = 0; i < k * n; i++) b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    if (matmul(m, n, k, c, a, b) != 0) return 1;
    double worst = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double r = 0;
            for (int p = 0; p < k; p++) r += (double)a[i * k + p] * b[p * n + j];
            double e = fabs(r - c[i * n + j]);
            if (e > worst) worst = e;
        }
    free(a); free(b); free(c);
    return worst > 1e-3;
}
int main(void) {
    int bad = check(48, 512, 768) + check(96, 512, 1536) + check(48, 512, 768);
    matmul_release_temporaries();
    bad += check(96, 512, 768);
    if (bad) puts("mismatch");
    return bad != 0;
}
"#,
    )
    .unwrap();
    for define in ["-DRISE_KEEP", "-DRISE_FRESH_TEMPORARIES"] {
        let exe = dir.join(format!("mm{define}"));
        crate::common::succeeds(
            std::process::Command::new("cc")
                .args([
                    "-O2",
                    "-march=native",
                    "-fopenmp",
                    "-Wall",
                    "-Wextra",
                    "-Werror",
                    define,
                ])
                .arg(&c)
                .arg(&main)
                .arg("-o")
                .arg(&exe)
                .arg("-lm"),
            "cc",
        );
        crate::common::succeeds(&mut std::process::Command::new(&exe), define);
    }
}

/// The innermost loops of the assembly `asm` (AT&T syntax, gcc's `.L` labels) that contain
/// FMA instructions: the lines from a label to the backward jump to it, for each such range
/// that holds no smaller one.
fn innermost_fma_loops(asm: &str) -> Vec<Vec<&str>> {
    let lines: Vec<&str> = asm.lines().map(str::trim).collect();
    let mut loops: Vec<(usize, usize)> = Vec::new();
    for (end, line) in lines.iter().enumerate() {
        let mut words = line.split_whitespace();
        let (Some(jump), Some(target), None) = (words.next(), words.next(), words.next()) else {
            continue;
        };
        if !jump.starts_with('j') || !target.starts_with(".L") {
            continue;
        }
        let label = format!("{target}:");
        let Some(start) = lines[..end].iter().rposition(|l| *l == label) else {
            continue;
        };
        if lines[start..end].iter().any(|l| l.starts_with("vfmadd")) {
            loops.push((start, end));
        }
    }
    let innermost: Vec<Vec<&str>> = loops
        .iter()
        .filter(|(s, e)| {
            !loops
                .iter()
                .any(|(s2, e2)| (s2, e2) != (s, e) && s <= s2 && e2 <= e)
        })
        .map(|(s, e)| lines[*s..=*e].to_vec())
        .collect();
    assert!(
        !innermost.is_empty(),
        "no loop with FMA instructions in the assembly"
    );
    innermost
}

fn check_k_loop(version: &str, body: &[&str], register: &str, tile_vectors: usize, rows: usize) {
    let shown = body.join("\n");
    let fmas: Vec<&str> = body
        .iter()
        .copied()
        .filter(|l| l.starts_with("vfmadd"))
        .collect();
    assert_eq!(
        fmas.len(),
        tile_vectors,
        "{version}: FMAs in the k loop:\n{shown}"
    );
    let accumulators: std::collections::BTreeSet<&str> = fmas
        .iter()
        .map(|l| l.rsplit(',').next().unwrap().trim())
        .collect();
    assert_eq!(
        accumulators.len(),
        tile_vectors,
        "{version}: each tile vector has its own register:\n{shown}"
    );
    assert!(
        accumulators.iter().all(|a| a.starts_with(register)),
        "{version}: accumulators are {register} registers:\n{shown}"
    );
    let broadcasts = body
        .iter()
        .filter(|l| l.starts_with("vbroadcastss"))
        .count();
    assert_eq!(broadcasts, rows, "{version}: broadcasts of A:\n{shown}");
    for line in body {
        let last_operand = line.rsplit(',').next().unwrap_or("");
        assert!(
            !line.contains("%rsp") && !line.contains("%rbp") && !last_operand.contains('('),
            "{version}: the k loop spills or stores (`{line}`):\n{shown}"
        );
    }
    // One jump: the loop's own, back to its start.
    let jumps = body.iter().filter(|l| l.starts_with('j')).count();
    assert_eq!(jumps, 1, "{version}: branches in the k loop:\n{shown}");
}

/// The dense layer's epilogue in the GEMM's loop nest (`sketches/mmbr/fused-avx512.sk`): the
/// only temporaries are the packed copies of A and B (no m×n product), and the output is
/// written once per tile, after the tile's k loop, with the bias added and the ReLU applied.
#[test]
fn the_fused_epilogue_writes_each_tile_once_from_its_accumulator() {
    let c = crate::common::compile_example_sketch("mmbr", "fused-avx512", "mmbr-fused-c");
    let source = std::fs::read_to_string(&c).unwrap();
    // Two packed copies in the kernel and two in the edges kernel.
    assert_eq!(source.matches("= rise_temp_get(").count(), 4, "{source}");
    let kernel = &source[source.find("static int mmbr_tiles(").unwrap()..];
    let kernel = &kernel[..kernel.find("static int mmbr_edges(").unwrap()];
    let k_loop = kernel
        .match_indices("< k; ")
        .map(|(i, _)| i)
        .find(|&i| {
            kernel[i..]
                .lines()
                .next()
                .unwrap()
                .ends_with("// reduceSeq")
        })
        .expect("the tile's k loop");
    let writes: Vec<usize> = kernel.match_indices("out[").map(|(i, _)| i).collect();
    assert!(!writes.is_empty(), "{kernel}");
    for w in writes {
        assert!(w > k_loop, "`out` written before the k loop:\n{kernel}");
        let line = &kernel[w..w + kernel[w..].find('\n').unwrap()];
        assert!(line.contains("bias[") && line.contains("< 0.0f"), "{line}");
    }
}

/// What the C compiler makes of the micro-kernel: its k loop holds the whole MR×NR tile in
/// vector registers (one FMA per tile vector, each into its own register), broadcasts one
/// element of A per tile row, and touches no stack, stores nothing and has no branch but the
/// loop's own; in the kernel and in every version of it in the edges kernel (sizes the tiles
/// do not divide: edge tiles are filled and emptied with checks, but the k loop has none).
/// Compiled with gcc for a fixed target per file, so the check does not depend on the machine
/// running the tests.
#[test]
fn the_tile_stays_in_registers_in_the_assembly() {
    for (kernel, version, march, register, tile_vectors, rows) in [
        ("matmul", "register-blocking", "haswell", "%ymm", 12, 6),
        (
            "matmul",
            "register-blocking-avx512",
            "skylake-avx512",
            "%zmm",
            16,
            8,
        ),
        (
            "matmul",
            "register-blocking-avx512-whole-k",
            "skylake-avx512",
            "%zmm",
            16,
            8,
        ),
        ("matmul", "register-blocking-any", "haswell", "%ymm", 12, 6),
        ("mmbr", "fused-avx512", "skylake-avx512", "%zmm", 16, 8),
    ] {
        let c = crate::common::compile_example_sketch(kernel, version, &format!("{version}-asm"));
        let asm_path = c.with_extension("s");
        let gcc = std::process::Command::new("gcc")
            .args(["-O3", &format!("-march={march}"), "-fopenmp", "-S", "-o"])
            .arg(&asm_path)
            .arg(&c)
            .output()
            .expect("gcc is needed to compile the generated C");
        assert!(
            gcc.status.success(),
            "{}",
            String::from_utf8_lossy(&gcc.stderr)
        );
        let asm = std::fs::read_to_string(&asm_path).unwrap();
        let loops = innermost_fma_loops(&asm);
        // The kernel's k loop, and at least one in the edges kernel.
        assert!(loops.len() >= 2, "{version}: {} k loops", loops.len());
        for body in loops {
            check_k_loop(version, &body, register, tile_vectors, rows);
        }
    }
}
