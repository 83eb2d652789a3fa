//! Criterion benchmark of the matrix-multiplication kernels at 256x256x256 (one thread unless
//! OMP_NUM_THREADS says otherwise): the generated versions in `codegen/generated/` (the main
//! job's C for `sketches/matmul/*.sk`) next to their hand-written twins in `codegen/baselines/`, all
//! compiled by `build.rs` through `cc`.

use criterion::{criterion_group, criterion_main, Criterion};
// The kernels are linked into the risec library by build.rs; naming the crate links it in.
use risec_cli as _;

type Kernel = unsafe extern "C" fn(i32, i32, i32, *mut f32, *const f32, *const f32) -> i32;

/// Declares each version's generated kernel (`rise_X`) and hand-written twin (`baseline_X`),
/// all with the signature of [`Kernel`], and lists them in order as `("X/rise", …), ("X/c", …)`.
macro_rules! kernel_pairs {
    ($($version:literal => $rise:ident, $c:ident;)*) => {
        extern "C" {
            $(
                fn $rise(m: i32, n: i32, k: i32, out: *mut f32, a: *const f32, b: *const f32) -> i32;
                fn $c(m: i32, n: i32, k: i32, out: *mut f32, a: *const f32, b: *const f32) -> i32;
            )*
        }

        fn kernels() -> Vec<(&'static str, Kernel)> {
            vec![$(
                (concat!($version, "/rise"), $rise as Kernel),
                (concat!($version, "/c"), $c as Kernel),
            )*]
        }
    };
}

kernel_pairs! {
    "naive" => rise_naive, baseline_naive;
    "blocking" => rise_blocking, baseline_blocking;
    "vectorization" => rise_vectorization, baseline_vectorization;
    "loop-perm" => rise_loop_perm, baseline_loop_perm;
    "array-packing" => rise_array_packing, baseline_array_packing;
    "cache-blocks" => rise_cache_blocks, baseline_cache_blocks;
    "parallel" => rise_parallel, baseline_parallel;
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
