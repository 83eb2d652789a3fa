//! The kernel suite (issue 21): vectors gathered from strided memory are reported. That every
//! sketch of `sketches/KERNEL/` gives C that matches the reference interpreter at awkward
//! sizes, under the sanitizers, is `tests/suite/bounds_sweep.rs`.

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
    let o = crate::common::risec(&[
        "emit-c",
        program.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let err = crate::common::stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("warning: `asVector 16` of `a` gathers each vector's 16 lanes"),
        "{err}"
    );
}
