//! Criterion benchmark of the matrix-multiplication kernels at 256x256x256 (one thread unless
//! OMP_NUM_THREADS says otherwise): the generated versions in `codegen/generated/` (from
//! `examples/lowlevel/*.rise`) next to their hand-written twins in `codegen/baselines/`, all
//! compiled by `build.rs` through `cc`.

use criterion::{criterion_group, criterion_main, Criterion};
// The kernels are linked into the risec library by build.rs; naming the crate links it in.
use risec as _;

type Kernel = unsafe extern "C" fn(i32, i32, i32, *mut f32, *const f32, *const f32) -> i32;

extern "C" {
    fn baseline_naive(m: i32, n: i32, k: i32, out: *mut f32, a: *const f32, b: *const f32) -> i32;
    fn baseline_blocking(
        m: i32,
        n: i32,
        k: i32,
        out: *mut f32,
        a: *const f32,
        b: *const f32,
    ) -> i32;
    fn baseline_vectorization(
        m: i32,
        n: i32,
        k: i32,
        out: *mut f32,
        a: *const f32,
        b: *const f32,
    ) -> i32;
    fn baseline_loop_perm(
        m: i32,
        n: i32,
        k: i32,
        out: *mut f32,
        a: *const f32,
        b: *const f32,
    ) -> i32;
    fn baseline_array_packing(
        m: i32,
        n: i32,
        k: i32,
        out: *mut f32,
        a: *const f32,
        b: *const f32,
    ) -> i32;
    fn baseline_cache_blocks(
        m: i32,
        n: i32,
        k: i32,
        out: *mut f32,
        a: *const f32,
        b: *const f32,
    ) -> i32;
    fn baseline_parallel(
        m: i32,
        n: i32,
        k: i32,
        out: *mut f32,
        a: *const f32,
        b: *const f32,
    ) -> i32;
    fn rise_naive(m: i32, n: i32, k: i32, out: *mut f32, a: *const f32, b: *const f32) -> i32;
    fn rise_blocking(m: i32, n: i32, k: i32, out: *mut f32, a: *const f32, b: *const f32) -> i32;
    fn rise_vectorization(
        m: i32,
        n: i32,
        k: i32,
        out: *mut f32,
        a: *const f32,
        b: *const f32,
    ) -> i32;
    fn rise_loop_perm(m: i32, n: i32, k: i32, out: *mut f32, a: *const f32, b: *const f32) -> i32;
    fn rise_array_packing(
        m: i32,
        n: i32,
        k: i32,
        out: *mut f32,
        a: *const f32,
        b: *const f32,
    ) -> i32;
    fn rise_cache_blocks(
        m: i32,
        n: i32,
        k: i32,
        out: *mut f32,
        a: *const f32,
        b: *const f32,
    ) -> i32;
    fn rise_parallel(m: i32, n: i32, k: i32, out: *mut f32, a: *const f32, b: *const f32) -> i32;
}

fn kernels() -> Vec<(&'static str, Kernel)> {
    vec![
        ("naive/rise", rise_naive as Kernel),
        ("naive/c", baseline_naive as Kernel),
        ("blocking/rise", rise_blocking as Kernel),
        ("blocking/c", baseline_blocking as Kernel),
        ("vectorization/rise", rise_vectorization as Kernel),
        ("vectorization/c", baseline_vectorization as Kernel),
        ("loop-perm/rise", rise_loop_perm as Kernel),
        ("loop-perm/c", baseline_loop_perm as Kernel),
        ("array-packing/rise", rise_array_packing as Kernel),
        ("array-packing/c", baseline_array_packing as Kernel),
        ("cache-blocks/rise", rise_cache_blocks as Kernel),
        ("cache-blocks/c", baseline_cache_blocks as Kernel),
        ("parallel/rise", rise_parallel as Kernel),
        ("parallel/c", baseline_parallel as Kernel),
    ]
}

fn matmul(c: &mut Criterion) {
    const S: usize = 256;
    let a: Vec<f32> = (0..S * S)
        .map(|i| ((i * 7919) % 2048) as f32 / 1024.0 - 1.0)
        .collect();
    let b: Vec<f32> = (0..S * S)
        .map(|i| ((i * 104729) % 2048) as f32 / 1024.0 - 1.0)
        .collect();
    let mut reference = vec![0f32; S * S];
    let s = S as i32;
    // SAFETY: the buffers hold S*S floats, as the kernels' signature requires at these sizes.
    unsafe { baseline_naive(s, s, s, reference.as_mut_ptr(), a.as_ptr(), b.as_ptr()) };
    let mut group = c.benchmark_group("matmul-256");
    group.sample_size(20);
    for (name, f) in kernels() {
        let mut out = vec![0f32; S * S];
        // SAFETY: as above.
        let rc = unsafe { f(s, s, s, out.as_mut_ptr(), a.as_ptr(), b.as_ptr()) };
        let err = out
            .iter()
            .zip(&reference)
            .map(|(x, y)| (x - y).abs())
            .fold(0f32, f32::max);
        assert!(
            rc == 0 && err < 1e-3,
            "{name} is wrong: rc {rc}, max error {err}"
        );
        group.bench_function(name, |bench| {
            // SAFETY: as above.
            bench.iter(|| unsafe { f(s, s, s, out.as_mut_ptr(), a.as_ptr(), b.as_ptr()) })
        });
    }
    group.finish();
}

criterion_group!(benches, matmul);
criterion_main!(benches);
