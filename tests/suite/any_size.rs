//! Every shipped matmul sketch gives C that takes any m, n, k ≥ 1 (issue 20): sizes the tiles
//! do not divide are rounded up by the generated function (inside the kernel for the
//! register-blocked sketches, on zero-padded copies of the inputs for the TVM versions),
//! checked against the naive C loop over a sweep of awkward sizes with 1 and 2 OpenMP threads;
//! `--exact-sizes` keeps the kernel alone, which refuses them and leaves `out` untouched.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Every sketch in `sketches/matmul/` that finds a program in well under a second.
const SKETCHES: [&str; 11] = [
    "baseline",
    "blocking",
    "vectorization",
    "loop-perm",
    "array-packing",
    "cache-blocks",
    "parallel",
    "blocking-64x64-k8",
    "register-blocking",
    "register-blocking-avx512",
    "register-blocking-any",
];

/// The versions compiled with `exact_sizes` as well.
const EXACT: [&str; 2] = ["parallel", "register-blocking"];

fn kernels() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let mut specs: Vec<(&str, bool)> = SKETCHES.iter().map(|s| (*s, false)).collect();
        specs.extend(EXACT.iter().map(|s| (*s, true)));
        crate::common::build_sketch_kernels_with(&specs, "any-size")
    })
}

/// 1, primes, one below and above tile multiples (32, 48, 64, 512, 768), skinny shapes (m, n
/// or k of 1), a small real-network shape (a ResNet-50 layer's 49 rows), shapes where only m is
/// not a multiple (its last rows on copies, the others in place), and partial blocks of every
/// kind at once (a partial panel of rows and of columns, a partial KC block after whole ones).
const SWEEP: [(u32, u32, u32); 16] = [
    (1, 1, 1),
    (2, 3, 5),
    (31, 33, 3),
    (33, 31, 5),
    (47, 65, 63),
    (97, 131, 53),
    (1, 64, 100),
    (100, 1, 64),
    (64, 100, 1),
    (49, 513, 767),
    (127, 511, 769),
    (96, 512, 768),
    (100, 64, 64),
    (49, 512, 768),
    (7, 17, 300),
    (97, 33, 257),
];

#[test]
fn every_sketch_matches_naive_c_at_every_size_of_the_sweep() {
    for sizes in SWEEP {
        for threads in [1, 2] {
            // Refusing versions are skipped by the driver's checks below.
            let (m, n, k) = sizes;
            let refusing = crate::common::size_check(
                kernels(),
                (&m.to_string(), &n.to_string(), &k.to_string()),
            );
            let divisible = |name: &str| refusing.iter().any(|(n, rc, _)| n == name && *rc == 0);
            let names = verify_accepting(sizes, threads);
            for s in SKETCHES {
                assert!(
                    names.iter().any(|n| n == s),
                    "{s} was not checked at {sizes:?}: {names:?}"
                );
            }
            for s in EXACT {
                let exact = format!("{s} exact");
                assert_eq!(
                    names.contains(&exact),
                    divisible(&exact),
                    "{exact} at {sizes:?}"
                );
            }
        }
    }
}

/// Verifies every kernel that accepts the sizes (return code 0) against the naive loop;
/// returns their names.
fn verify_accepting((m, n, k): (u32, u32, u32), threads: u32) -> Vec<String> {
    use risec_bench::harness::REL_ERROR_BOUND;
    let mut names = Vec::new();
    for (name, rc, err) in crate::common::verify_lines(kernels(), (m, n, k), "naive (C)", threads) {
        if rc != 0 {
            assert!(
                name.ends_with(" exact") || name.ends_with("(C)"),
                "{name} returned {rc} at {m}x{n}x{k}"
            );
            continue;
        }
        assert!(
            err <= REL_ERROR_BOUND,
            "{name} at {m}x{n}x{k}, {threads} thread(s): relative error {err:e}"
        );
        names.push(name);
    }
    names
}

/// Sizes that break one of the facts (100 rows, which neither 48 nor 96 divides; 500 columns;
/// k = 700) make the exact kernels return 1 without writing to `out`; the rounding versions
/// and the naive loop take them.
#[test]
fn exact_kernels_refuse_sizes_the_tiles_do_not_divide_and_leave_out_untouched() {
    for (m, n, k) in [
        ("100", "512", "768"),
        ("192", "500", "768"),
        ("192", "512", "700"),
    ] {
        let kernels = crate::common::size_check(kernels(), (m, n, k));
        for s in EXACT {
            let exact = format!("{s} exact");
            let (_, rc, untouched) = kernels.iter().find(|k| k.0 == exact).expect("exact kernel");
            if s == "register-blocking" {
                assert_eq!(*rc, 1, "{exact} accepted m={m}, n={n}, k={k}");
                assert!(untouched, "{exact} wrote to out although it failed");
            }
        }
        for s in SKETCHES {
            let (_, rc, untouched) = kernels.iter().find(|k| k.0 == s).expect("kernel");
            assert_eq!(*rc, 0, "{s} refused m={m}, n={n}, k={k}");
            assert!(!untouched, "{s} did not write out");
        }
    }
}

#[test]
fn the_generated_function_says_how_it_treats_sizes() {
    let c = crate::common::compile_matmul_sketch("blocking", "any-size-doc");
    let header = std::fs::read_to_string(c.with_extension("h")).unwrap();
    assert!(
        header.contains("Takes any positive sizes") && header.contains("m to a multiple of 32"),
        "{header}"
    );
}

#[test]
fn a_program_zero_padding_would_change_keeps_its_checks_and_says_why() {
    // A product over blocks of 4: padding with zeros would make it 0, so sizes that 4 does not
    // divide are refused (the function returns 1), and risec says why.
    let program = crate::common::temp_file(
        "prod.rise",
        b"def prod {n : nat} (xs : n.f32) : f32 = xs |> reduce (fun a b => a * b) 1.0\n",
    );
    let sketch = crate::common::temp_file(
        "prod.sk",
        b"step s {\n  rules = [reduce-seq, blocked-reduce(4)]\n  \
          sketch = contains((reduceSeq : ? -> ? -> (n/4).? -> ?) ?)\n}\n",
    );
    let c = program.with_extension("c");
    let o = crate::common::risec(&[
        program.to_str().unwrap(),
        "--sketch",
        sketch.to_str().unwrap(),
        "-o",
        c.to_str().unwrap(),
    ]);
    let err = crate::common::stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("they cannot be rounded up")
            && err.contains("whose operator does not ignore zeros"),
        "{err}"
    );
    let source = std::fs::read_to_string(&c).unwrap();
    assert!(source.contains("% 4 != 0) return 1;"), "{source}");
    assert!(!source.contains("_tiles("), "{source}");
}

#[test]
fn exact_sizes_keeps_the_kernel_alone_and_says_so() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("exact-sizes");
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join("mm.c");
    let o = crate::common::risec(&[
        "examples/matmul.rise",
        "--sketch",
        "sketches/matmul/blocking.sk",
        "--exact-sizes",
        "-o",
        c.to_str().unwrap(),
    ]);
    let err = crate::common::stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("(--exact-sizes): others return 1"), "{err}");
    let source = std::fs::read_to_string(&c).unwrap();
    assert!(
        source.contains("% 32 != 0) return 1;") && !source.contains("_tiles("),
        "{source}"
    );
}

/// Which way each sketch rounds sizes up: inside the kernel where the checks stay out of the hot
/// loops (the register-blocked GEMMs), on copies where the kernel reads `A` inside its k loop
/// (the TVM versions), and the CLI says which with the reason.
#[test]
fn register_blocked_kernels_round_up_inside_the_kernel_and_the_tvm_versions_on_copies() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rounding-way");
    std::fs::create_dir_all(&dir).unwrap();
    for (sketch, inside) in [
        ("register-blocking", true),
        ("register-blocking-avx512", true),
        ("register-blocking-any", true),
        ("parallel", false),
        ("blocking", false),
    ] {
        let c = dir.join(format!("{sketch}.c"));
        let o = crate::common::risec(&[
            "examples/matmul.rise",
            "--sketch",
            &format!("sketches/matmul/{sketch}.sk"),
            "-o",
            c.to_str().unwrap(),
        ]);
        let err = crate::common::stderr(&o);
        assert!(o.status.success(), "{err}");
        let source = std::fs::read_to_string(&c).unwrap();
        if inside {
            assert!(
                err.contains("inside the kernel, skipping work past the real sizes"),
                "{sketch}: {err}"
            );
            assert!(
                source.contains("return matmul_edges(m, n, k, out, a, b);"),
                "{sketch}"
            );
            assert!(!source.contains("calloc("), "{sketch}: no copies");
        } else {
            assert!(
                err.contains("on zero-padded copies (`a` is read inside a reduction loop"),
                "{sketch}: {err}"
            );
            assert!(!source.contains("matmul_edges"), "{sketch}");
        }
    }
}

/// The edges kernels read and write the caller's arrays at their real sizes through checks:
/// under AddressSanitizer and UndefinedBehaviorSanitizer, at 40 seeded random shapes from 1 to
/// 300 along each size (partial tiles, panels and KC blocks of every kind), no access leaves the
/// arrays and every result matches a plain triple loop (in double precision).
#[test]
fn edges_kernels_stay_inside_the_arrays_under_the_sanitizers() {
    let sanitizers_work = std::process::Command::new("cc")
        .args(["-fsanitize=address,undefined", "-x", "c", "-", "-o"])
        .arg(std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("asan-probe"))
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(b"int main(void) { return 0; }\n")?;
            child.wait()
        })
        .is_ok_and(|s| s.success());
    assert!(
        sanitizers_work,
        "cc cannot build with -fsanitize=address,undefined"
    );
    for sketch in [
        "register-blocking",
        "register-blocking-avx512",
        "register-blocking-any",
    ] {
        let c = crate::common::compile_matmul_sketch(sketch, &format!("asan-{sketch}"));
        let dir = c.parent().unwrap().to_path_buf();
        let main = dir.join("main.c");
        std::fs::write(
            &main,
            r#"#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "mm.h"
static unsigned long long state = 88172645463325252ULL;
static int draw(int top) { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return 1 + (int)(state % (unsigned long long)top); }
int main(void) {
    for (int t = 0; t < 40; t++) {
        int m = draw(300), n = draw(300), k = draw(300);
        float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n);
        float *c = malloc(sizeof(float) * m * n);
        for (int i = 0; i < m * k; i++) a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
        for (int i = 0; i < k * n; i++) b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
        if (matmul(m, n, k, c, a, b) != 0) { printf("%dx%dx%d refused\n", m, n, k); return 1; }
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double r = 0;
                for (int p = 0; p < k; p++) r += (double)a[i * k + p] * b[p * n + j];
                if (fabs(r - c[i * n + j]) > 1e-3) { printf("%dx%dx%d wrong at %d,%d\n", m, n, k, i, j); return 1; }
            }
        free(a); free(b); free(c);
    }
    matmul_release_temporaries();
    return 0;
}
"#,
        )
        .unwrap();
        // Compiled for this machine: on a CPU without AVX-512, gcc splits the AVX-512 file's
        // 16-lane vectors into narrower ones.
        let exe = dir.join("mm-asan");
        let cc = std::process::Command::new("cc")
            .args([
                "-O1",
                "-g",
                "-march=native",
                "-fopenmp",
                "-fsanitize=address,undefined",
                "-fno-sanitize-recover=all",
                "-fno-omit-frame-pointer",
            ])
            .arg(&c)
            .arg(&main)
            .arg("-o")
            .arg(&exe)
            .arg("-lm")
            .output()
            .unwrap();
        assert!(
            cc.status.success(),
            "{sketch}: {}",
            String::from_utf8_lossy(&cc.stderr)
        );
        for threads in [1, 2] {
            let run = std::process::Command::new(&exe)
                .env("OMP_NUM_THREADS", threads.to_string())
                .env("ASAN_OPTIONS", "detect_leaks=0")
                .output()
                .unwrap();
            assert!(
                run.status.success(),
                "{sketch}, {threads} thread(s): {}{}",
                String::from_utf8_lossy(&run.stdout),
                String::from_utf8_lossy(&run.stderr)
            );
        }
    }
}
