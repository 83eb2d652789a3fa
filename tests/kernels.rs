//! The kernel suite (issue 21): every sketch of `sketches/KERNEL/` gives C that matches the
//! reference interpreter at awkward sizes (blocks and vector lanes that do not divide them)
//! and the naive lowering at a larger awkward size, with 1 and 2 OpenMP threads.

mod common;

/// (program, sketches, check sizes, larger sizes).
const KERNELS: &[(&str, &[&str], &str, &str)] = &[
    (
        "examples/dot.rise",
        &["sketches/dot/vectorized.sk", "sketches/dot/parallel.sk"],
        "n=1000",
        "n=200003",
    ),
    (
        "examples/sumsq.rise",
        &["sketches/sumsq/parallel.sk"],
        "n=1000",
        "n=200003",
    ),
    (
        "examples/axpy.rise",
        &["sketches/axpy/parallel.sk"],
        "n=1000",
        "n=200003",
    ),
    (
        "examples/abt.rise",
        &["sketches/abt/register-blocking-avx512.sk"],
        "m=37,n=41,k=43",
        "m=200,n=301,k=257",
    ),
    (
        "examples/matvec.rise",
        &[
            "sketches/matvec/blocking.sk",
            "sketches/matvec/vectorized.sk",
        ],
        "m=37,k=53",
        "m=301,k=1003",
    ),
    (
        "examples/blur.rise",
        &[
            "sketches/blur/separated.sk",
            "sketches/blur/scanline.sk",
            "sketches/blur/parallel.sk",
        ],
        "n=13,m=17",
        "n=301,m=203",
    ),
    (
        "examples/scal.rise",
        &["sketches/scal/parallel.sk"],
        "n=1000",
        "n=200003",
    ),
    (
        "examples/asum.rise",
        &["sketches/asum/parallel.sk"],
        "n=1000",
        "n=200003",
    ),
    ("examples/transpose.rise", &[], "n=37,m=45", "n=301,m=203"),
    (
        "examples/unsharp.rise",
        &["sketches/unsharp/parallel.sk"],
        "n=13,m=17",
        "n=301,m=203",
    ),
    (
        "examples/harris.rise",
        &["sketches/harris/parallel.sk", "sketches/harris/fused.sk"],
        "n=13,m=17",
        "n=301,m=203",
    ),
    (
        "examples/jacobi1d.rise",
        &["sketches/jacobi1d/parallel.sk"],
        "n=1000",
        "n=200003",
    ),
    (
        "examples/jacobi2d.rise",
        &["sketches/jacobi2d/parallel.sk"],
        "n=13,m=17",
        "n=301,m=203",
    ),
];

#[test]
fn every_kernel_sketch_matches_the_interpreter_at_awkward_sizes() {
    for (program, sketches, check, size) in KERNELS {
        let mut args = vec!["verify", *program];
        for s in *sketches {
            args.push("--sketch");
            args.push(s);
        }
        args.extend(["--check-size", check, "--size", size, "--threads", "1,2"]);
        let o = common::risec(&args);
        let out = common::stdout(&o);
        let err = common::stderr(&o);
        assert!(o.status.success(), "{program}: {out}{err}");
        // No shipped sketch gathers vector lanes from strided memory.
        assert!(!err.contains("warning:"), "{program}: {err}");
        // Every version (and the naive lowering), at both sizes, with 1 and 2 threads.
        let versions = sketches.len() + 1;
        assert_eq!(
            out.matches("ok (relative error").count(),
            2 * 2 * versions,
            "{program}: {out}"
        );
    }
}

#[test]
fn gathered_vectors_are_reported_as_a_warning() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("kernels-gather");
    std::fs::create_dir_all(&dir).unwrap();
    let program = dir.join("columns.rise");
    std::fs::write(
        &program,
        "def f {k : nat} (a : (16*k).16.f32) : 16.(16*k).f32 =\n  \
         a |> transpose |> mapSeq (fun col => col |> asVector 16 |> mapSeq (fun v => v + v) |> asScalar)\n",
    )
    .unwrap();
    let out = dir.join("columns.c");
    let o = common::risec(&[
        "emit-c",
        program.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let err = common::stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("warning: `asVector 16` of `a` gathers each vector's 16 lanes"),
        "{err}"
    );
}
