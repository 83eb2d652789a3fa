//! The C driver that runs kernels: generated versions and hand-written baselines linked into
//! one executable, built with the C compiler the `cc` crate finds.
//!
//! The executable has three modes (its output is one line per kernel, parsed by [`parse_lines`]):
//! * `verify M N K REF`: runs every kernel once on seeded random inputs and prints its
//!   relative error against kernel `REF` (`VERIFY name rc error`);
//! * `sizecheck M N K`: fills `out` with a sentinel, runs every kernel and prints whether it
//!   returned non-zero and left `out` untouched (`SIZECHECK name rc untouched`);
//! * `bench M N K THREADS ROUNDS REF`: verifies every kernel against `REF`, then times all
//!   kernels in interleaved rounds (`RESULT name threads median min max error`), reporting
//!   progress on standard error.

use super::BenchError;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The relative-error bound of verification: `max |c - ref| / max |ref|`.
pub const REL_ERROR_BOUND: f64 = 1e-4;

/// One kernel of the harness: a display name and its C function (matmul signature
/// `int f(int m, int n, int k, float *out, const float *a, const float *b)`).
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The name printed in results.
    pub name: String,
    /// The C function.
    pub function: String,
}

/// The directory of the hand-written baselines: `codegen/baselines` of the repository this
/// crate was built in (two levels above the crate's own folder, `crates/risec-bench`).
pub fn baselines_dir() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = crate_dir
        .parent()
        .and_then(Path::parent)
        .unwrap_or(crate_dir);
    root.join("codegen/baselines")
}

/// The seven versions of the TVM GEMM schedule, in order: the sketch files
/// `sketches/matmul/VERSION.sk` (for the crate's tests, benches and examples).
pub const TVM_VERSIONS: [&str; 7] = [
    "baseline",
    "blocking",
    "vectorization",
    "loop-perm",
    "array-packing",
    "cache-blocks",
    "parallel",
];

/// The hand-written baselines: (display name, C function, source file).
pub const BASELINES: [(&str, &str, &str); 7] = [
    ("naive", "baseline_naive", "naive.c"),
    ("blocking", "baseline_blocking", "blocking.c"),
    ("vectorization", "baseline_vectorization", "vectorization.c"),
    ("loop-perm", "baseline_loop_perm", "loop_perm.c"),
    ("array-packing", "baseline_array_packing", "array_packing.c"),
    ("cache-blocks", "baseline_cache_blocks", "cache_blocks.c"),
    ("parallel", "baseline_parallel", "parallel.c"),
];

/// Whether OpenBLAS's CBLAS header is installed (`libopenblas-dev`).
pub fn openblas_available() -> bool {
    [
        "/usr/include/x86_64-linux-gnu/cblas.h",
        "/usr/include/aarch64-linux-gnu/cblas.h",
        "/usr/include/cblas.h",
        "/usr/include/openblas/cblas.h",
    ]
    .iter()
    .any(|p| Path::new(p).exists())
}

/// The OpenBLAS kernel family to force when OpenBLAS's runtime detection is not told
/// (`OPENBLAS_CORETYPE` unset): on virtual machines whose CPU model is generic it falls back to
/// its slowest kernels ("Prescott"). Chosen from the CPU features (x86-64 only):
/// `SkylakeX` with AVX-512, `Haswell` with AVX2 and FMA.
pub fn openblas_coretype() -> Option<&'static str> {
    if std::env::var_os("OPENBLAS_CORETYPE").is_some() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vl")
        {
            return Some("SkylakeX");
        }
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            return Some("Haswell");
        }
    }
    None
}

/// The driver's `main`, calling `kernels` (declared here, defined in other files).
pub fn driver_source(kernels: &[Kernel], openblas: bool) -> String {
    let mut s = String::new();
    s.push_str(
        "/* risec benchmark and verification driver (generated). */\n\
         #include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n#include <omp.h>\n\n\
         typedef int (*kernel_fn)(int, int, int, float *restrict, const float *restrict, const float *restrict);\n",
    );
    for k in kernels {
        let _ = writeln!(
            s,
            "int {}(int, int, int, float *restrict, const float *restrict, const float *restrict);",
            k.function
        );
    }
    if openblas {
        s.push_str("void baseline_openblas_threads(int threads);\n");
    }
    s.push_str("static const struct { const char *name; kernel_fn f; } kernels[] = {\n");
    for k in kernels {
        let _ = writeln!(s, "    {{\"{}\", {}}},", k.name, k.function);
    }
    let _ = writeln!(s, "}};\nstatic const int n_kernels = {};", kernels.len());
    let _ = writeln!(
        s,
        "static void set_threads(int t) {{ omp_set_num_threads(t);{} }}",
        if openblas {
            " baseline_openblas_threads(t);"
        } else {
            ""
        }
    );
    s.push_str(DRIVER_BODY);
    s
}

const DRIVER_BODY: &str = r#"
static unsigned long long rng_state;
static float next_float(void) {
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return (float)((rng_state >> 40) & 0xFFFFFF) / 8388608.0f - 1.0f; /* [-1, 1) */
}
static double now_ms(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static double rel_error(const float *c, const float *r, size_t len) {
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < len; i++) {
        double d = fabs((double)c[i] - (double)r[i]);
        if (!(d <= num)) num = d; /* NaN propagates */
        if (fabs((double)r[i]) > den) den = fabs((double)r[i]);
    }
    return den > 0.0 ? num / den : num;
}
static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}
static int find_kernel(const char *name) {
    for (int i = 0; i < n_kernels; i++) if (strcmp(kernels[i].name, name) == 0) return i;
    return -1;
}
static float *aligned_floats(size_t n) { return aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64); }

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: %s verify|sizecheck|bench M N K ...\n", argv[0]); return 2; }
    const char *mode = argv[1];
    int m = atoi(argv[2]), n = atoi(argv[3]), k = atoi(argv[4]);
    size_t la = (size_t)m * k, lb = (size_t)k * n, lc = (size_t)m * n;
    /* 64-byte aligned, as performance-minded callers allocate matrices (rows of a vector). */
    float *a = aligned_floats(la), *b = aligned_floats(lb);
    float *c = aligned_floats(lc), *ref = aligned_floats(lc);
    if (!a || !b || !c || !ref) { fprintf(stderr, "out of memory\n"); return 2; }
    rng_state = 0x9E3779B97F4A7C15ULL;
    for (size_t i = 0; i < la; i++) a[i] = next_float();
    for (size_t i = 0; i < lb; i++) b[i] = next_float();
    if (strcmp(mode, "sizecheck") == 0) {
        for (int i = 0; i < n_kernels; i++) {
            for (size_t j = 0; j < lc; j++) c[j] = 12345.0f;
            int rc = kernels[i].f(m, n, k, c, a, b);
            int untouched = 1;
            for (size_t j = 0; j < lc; j++) if (c[j] != 12345.0f) untouched = 0;
            printf("SIZECHECK %s %d %d\n", kernels[i].name, rc, untouched);
        }
        return 0;
    }
    const char *ref_name = strcmp(mode, "bench") == 0 ? (argc > 7 ? argv[7] : "naive") : (argc > 5 ? argv[5] : "naive");
    int r = find_kernel(ref_name);
    if (r < 0) { fprintf(stderr, "no reference kernel %s\n", ref_name); return 2; }
    /* bench: argv[5] lists thread counts ("1,2"), run in turn on one reference, computed once. */
    int thread_list[64], n_threads = 0;
    if (strcmp(mode, "bench") == 0 && argc > 5) {
        for (const char *p = argv[5]; *p && n_threads < 64; ) {
            thread_list[n_threads++] = atoi(p);
            while (*p && *p != ',') p++;
            if (*p == ',') p++;
        }
    }
    if (n_threads == 0) thread_list[n_threads++] = 0;
    if (thread_list[0] > 0) set_threads(thread_list[0]);
    fprintf(stderr, "computing the reference (%s, %dx%dx%d)...\n", ref_name, m, n, k);
    double ref_t0 = now_ms();
    if (kernels[r].f(m, n, k, ref, a, b) != 0) { fprintf(stderr, "reference %s failed on these sizes\n", ref_name); return 2; }
    double ref_ms = now_ms() - ref_t0;
    double *errors = calloc(n_kernels, sizeof(double));
    int *rcs = calloc(n_kernels, sizeof(int));
    int rounds = argc > 6 ? atoi(argv[6]) : 5;
    if (rounds < 1) rounds = 1;
    /* Room for every round plus the reference's own run, its first sample. */
    int stride = rounds + 1;
    double *times = calloc((size_t)n_kernels * stride, sizeof(double));
    int *samples = calloc(n_kernels, sizeof(int));
    for (int ti = 0; ti < n_threads; ti++) {
        int threads = thread_list[ti];
        if (threads > 0) set_threads(threads);
        if (strcmp(mode, "bench") == 0)
            fprintf(stderr, "%d thread(s): verifying against the reference...\n", threads);
        for (int i = 0; i < n_kernels; i++) {
            if (i == r) { rcs[i] = 0; errors[i] = 0.0; if (strcmp(mode, "verify") == 0) printf("VERIFY %s 0 %.3e\n", kernels[i].name, 0.0); continue; }
            for (size_t j = 0; j < lc; j++) c[j] = NAN;
            rcs[i] = kernels[i].f(m, n, k, c, a, b);
            errors[i] = rcs[i] == 0 ? rel_error(c, ref, lc) : INFINITY;
            if (strcmp(mode, "verify") == 0) printf("VERIFY %s %d %.3e\n", kernels[i].name, rcs[i], errors[i]);
        }
        if (strcmp(mode, "verify") == 0) return 0;
        memset(samples, 0, sizeof(int) * n_kernels);
        /* The reference's run is its first sample at the first thread count. A reference slower
         * than 2 s (the naive loop at large sizes, sequential code) is not run again: it has a
         * row for the first thread count only. */
        int ref_again = ref_ms <= 2000.0;
        if (ti == 0) { times[(size_t)r * stride] = ref_ms; samples[r] = 1; }
        for (int round = 0; round < rounds; round++) {
            fprintf(stderr, "\r%d thread(s): round %d/%d   ", threads, round + 1, rounds);
            for (int i = 0; i < n_kernels; i++) {
                if (rcs[i] != 0) continue;
                if (i == r && !ref_again) continue;
                /* Any other kernel slower than 2 s is timed once as well. */
                if (samples[i] > 0 && times[(size_t)i * stride] > 2000.0) continue;
                /* With several threads, let the previous kernel's idle workers (OpenBLAS's spin
                 * for about 0.1 s) go to sleep first, so that they do not compete with this one. */
                if (threads > 1) { struct timespec pause = {0, 200000000L}; nanosleep(&pause, NULL); }
                double t0 = now_ms();
                kernels[i].f(m, n, k, c, a, b);
                times[(size_t)i * stride + samples[i]++] = now_ms() - t0;
            }
        }
        fprintf(stderr, "\n");
        for (int i = 0; i < n_kernels; i++) {
            if (samples[i] == 0 && rcs[i] == 0) continue;
            double *t = &times[(size_t)i * stride];
            int ns = samples[i] > 0 ? samples[i] : 1;
            qsort(t, ns, sizeof(double), cmp_double);
            double median = ns % 2 ? t[ns / 2] : (t[ns / 2 - 1] + t[ns / 2]) / 2;
            printf("RESULT %s %d %d %.4f %.4f %.4f %.3e\n", kernels[i].name, threads, rcs[i], median, t[0], t[ns - 1], errors[i]);
        }
        fflush(stdout);
    }
    return 0;
}
"#;

/// Compiles C files into an executable with the C compiler `cc` finds, at `-O3
/// -march=native -fopenmp`, plus `extra_flags` (tests add `-Wall -Wextra -Werror`). Several
/// files are compiled side by side, one per core, then linked.
pub fn compile_executable(
    sources: &[PathBuf],
    include_dirs: &[PathBuf],
    output: &Path,
    extra_flags: &[&str],
    libs: &[&str],
) -> Result<(), BenchError> {
    let target = env!("RISEC_TARGET");
    let compiler = cc::Build::new()
        .target(target)
        .host(target)
        .opt_level(3)
        .debug(false)
        .cargo_metadata(false)
        .cargo_warnings(false)
        .emit_rerun_if_env_changed(false)
        .try_get_compiler()
        .map_err(BenchError::NoCompiler)?;
    let command = |args: &[&std::ffi::OsStr]| -> Command {
        let mut cmd: Command = compiler.to_command();
        cmd.args(["-march=native", "-fopenmp"]);
        cmd.args(extra_flags);
        for dir in include_dirs {
            cmd.arg("-I").arg(dir);
        }
        cmd.args(args);
        cmd
    };
    // Each source into an object file beside the executable, side by side.
    let objects: Vec<PathBuf> = sources
        .iter()
        .enumerate()
        .map(|(i, _)| output.with_extension(format!("{i}.o")))
        .collect();
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, sources.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failure: std::sync::Mutex<Option<BenchError>> = std::sync::Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= sources.len() || failure.lock().map_or(true, |f| f.is_some()) {
                    break;
                }
                let mut cmd = command(&[
                    "-c".as_ref(),
                    sources[i].as_os_str(),
                    "-o".as_ref(),
                    objects[i].as_os_str(),
                ]);
                if let Err(e) = run_compiler(&mut cmd) {
                    if let Ok(mut f) = failure.lock() {
                        f.get_or_insert(e);
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    let mut link: Vec<&std::ffi::OsStr> = objects.iter().map(|o| o.as_os_str()).collect();
    link.extend(["-o".as_ref(), output.as_os_str(), "-lm".as_ref()]);
    let lib_args: Vec<String> = libs.iter().map(|l| format!("-l{l}")).collect();
    link.extend(lib_args.iter().map(std::ffi::OsStr::new));
    let linked = run_compiler(&mut command(&link));
    for o in &objects {
        let _ = std::fs::remove_file(o);
    }
    linked
}

/// Runs a compiler command; its standard error is the error's when it fails.
fn run_compiler(cmd: &mut Command) -> Result<(), BenchError> {
    let result = cmd.output().map_err(BenchError::CompilerNotRun)?;
    if result.status.success() {
        return Ok(());
    }
    Err(BenchError::CompilerFailed {
        command: format!(
            "{} {}",
            cmd.get_program().to_string_lossy(),
            cmd.get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        ),
        stderr: String::from_utf8_lossy(&result.stderr).into_owned(),
    })
}

/// A line of the driver's output, split into words after its tag.
pub fn parse_lines<'s>(stdout: &'s str, tag: &str) -> Vec<Vec<&'s str>> {
    stdout
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            (words.next() == Some(tag)).then(|| words.collect())
        })
        .collect()
}
