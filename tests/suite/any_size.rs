//! Every shipped matmul sketch gives C that takes any m, n, k ≥ 1 (issue 20): sizes the tiles
//! do not divide are rounded up by the generated function (inside the kernel for the
//! register-blocked sketches, on zero-padded copies of the inputs for the TVM versions),
//! checked against the naive lowering (in double precision) over a sweep of awkward sizes with 1 and 2 OpenMP threads;
//! `--exact-sizes` keeps the kernel alone, which refuses them and leaves `out` untouched.

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

/// Whether the exact kernel of `sketch` (one of [`EXACT`]) takes `m×n×k`: whether its tiles
/// (the facts its sketch assumes) divide the sizes.
fn exact_accepts(sketch: &str, (m, n, k): (u32, u32, u32)) -> bool {
    match sketch {
        "parallel" => m % 32 == 0 && n % 32 == 0 && k % 4 == 0,
        "register-blocking" => m % 48 == 0 && n % 512 == 0 && k % 768 == 0,
        _ => unreachable!("{sketch}"),
    }
}

fn kernels() -> &'static risec_bench::Built {
    static EXE: OnceLock<risec_bench::Built> = OnceLock::new();
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
    // The sweep has exact multiples of both exact kernels' tiles and sizes neither takes.
    for s in EXACT {
        assert!(SWEEP.iter().any(|&sizes| exact_accepts(s, sizes)), "{s}");
        assert!(SWEEP.iter().any(|&sizes| !exact_accepts(s, sizes)), "{s}");
    }
    for sizes in SWEEP {
        for threads in [1, 2] {
            let names = verify_accepting(sizes, threads);
            for s in SKETCHES {
                assert!(
                    names.iter().any(|n| n == s),
                    "{s} was not checked at {sizes:?}: {names:?}"
                );
            }
            // An exact kernel runs (and is checked) exactly where its tiles divide the sizes,
            // and refuses the others (`verify_accepting` skips a refusing kernel).
            for s in EXACT {
                let exact = format!("{s} exact");
                assert_eq!(
                    names.contains(&exact),
                    exact_accepts(s, sizes),
                    "{exact} at {sizes:?}"
                );
            }
        }
    }
}

/// Verifies every kernel that accepts the sizes (return code 0) against the naive loop;
/// returns their names.
fn verify_accepting((m, n, k): (u32, u32, u32), threads: u32) -> Vec<String> {
    use risec_bench::REL_ERROR_BOUND;
    let mut names = Vec::new();
    for row in crate::common::check_kernels(kernels(), (m, n, k), None, threads) {
        let (name, rc, err) = (row.name, row.code, row.error);
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
    for (m, n, k) in [(100, 512, 768), (192, 500, 768), (192, 512, 700)] {
        let kernels = crate::common::check_kernels(kernels(), (m, n, k), None, 1);
        for s in EXACT {
            let exact = format!("{s} exact");
            let row = kernels
                .iter()
                .find(|r| r.name == exact)
                .expect("exact kernel");
            if s == "register-blocking" {
                assert_eq!(row.code, 1, "{exact} accepted m={m}, n={n}, k={k}");
                assert!(row.untouched, "{exact} wrote to out although it failed");
            }
        }
        for s in SKETCHES {
            let row = kernels.iter().find(|r| r.name == s).expect("kernel");
            assert_eq!(row.code, 0, "{s} refused m={m}, n={n}, k={k}");
            assert!(!row.untouched, "{s} did not write out");
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
/// under AddressSanitizer and UndefinedBehaviorSanitizer, at ten shapes chosen for the three
/// files' blocks (MR 6 or 8 rows, NR 16 or 32 columns, MC 24, 48 or 96 rows, KC 256 or 768), no
/// access leaves the arrays and every result matches a plain triple loop (in double
/// precision). The shapes keep the cases that 40 random ones from 1 to 300 covered: sizes
/// below one tile, one past a tile, a panel or a row block, exact tiles and blocks, partial
/// panels of rows and of columns together, a partial KC block after a whole one (the AVX-512
/// file's 256), and every size at 300.
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
    // The three files side by side: building with the sanitizers is most of the time.
    std::thread::scope(|s| {
        for sketch in [
            "register-blocking",
            "register-blocking-avx512",
            "register-blocking-any",
        ] {
            s.spawn(move || edges_kernel_under_the_sanitizers(sketch));
        }
    });
}

/// Builds `sketches/matmul/SKETCH.sk`'s C with a driver of the shapes below under the
/// sanitizers and runs it with 1 and 2 threads.
fn edges_kernel_under_the_sanitizers(sketch: &str) {
    let c = crate::common::compile_matmul_sketch(sketch, &format!("asan-{sketch}"));
    let dir = c.parent().unwrap().to_path_buf();
    let main = dir.join("main.c");
    std::fs::write(
        &main,
        r#"#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "mm.h"
static const int shapes[][3] = {
    {1, 1, 1}, {5, 15, 7}, {6, 16, 256}, {7, 17, 257}, {47, 31, 100},
    {49, 33, 299}, {97, 65, 63}, {213, 116, 113}, {24, 280, 14}, {300, 300, 300},
};
int main(void) {
    for (unsigned t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        int m = shapes[t][0], n = shapes[t][1], k = shapes[t][2];
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
    crate::common::succeeds(
        std::process::Command::new("cc")
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
            .arg("-lm"),
        sketch,
    );
    for threads in [1, 2] {
        crate::common::succeeds(
            std::process::Command::new(&exe)
                .env("OMP_NUM_THREADS", threads.to_string())
                .env("ASAN_OPTIONS", "detect_leaks=0"),
            &format!("{sketch}, {threads} thread(s)"),
        );
    }
}
