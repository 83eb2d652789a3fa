//! The C driver of the generic benchmark: every kernel of one interface ([`Shape`]) linked into
//! one executable that makes seeded inputs, runs the kernels and reports on standard output,
//! one line per kernel (read with [`crate::bench::harness::parse_lines`]).
//!
//! `driver MODE SIZES… LENGTHS… REST…`: the size parameters' values, then the element counts of
//! the output and of each input (computed by risec, which knows the types), then the mode's
//! arguments:
//!
//! * `dump DIR`: writes the inputs (`DIR/in0.bin`, …) and each kernel's output
//!   (`DIR/k0.bin`, …) as little-endian doubles, and prints `DUMP name rc`; risec compares the
//!   outputs with the reference interpreter's on the same inputs;
//! * `bench THREADS ROUNDS`: verifies every kernel against kernel 0 (the naive lowering in
//!   double precision where the result is floating-point, not timed; else the naive lowering
//!   itself) and times them all, with a `memcpy` of the same number of bytes, in interleaved
//!   rounds (`RESULT name threads rc median min max error`).

use super::shape::Shape;
use std::fmt::Write as _;

/// The name of the copy row: `memcpy` moving the bytes one call reads and writes, in one
/// chunk per thread.
pub const COPY: &str = "copy (memcpy)";

/// The driver's source for kernels `(display name, C function)` of interface `shape`; the
/// first kernel is the reference.
pub fn source(
    shape: &Shape,
    kernels: &[(String, String)],
    precise_reference: bool,
    set_threads_extra: &str,
) -> String {
    let mut s = String::new();
    s.push_str(
        "/* risec generic benchmark driver (generated). */\n\
         #include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\
         #include <time.h>\n#include <omp.h>\n#include <stdint.h>\n\n",
    );
    let _ = writeln!(s, "typedef {};", shape.prototype("(*kernel_fn)"));
    for (_, f) in kernels {
        let _ = writeln!(s, "{};", shape.prototype(f));
    }
    s.push_str("static const struct { const char *name; kernel_fn f; } kernels[] = {\n");
    for (name, f) in kernels {
        let _ = writeln!(s, "    {{\"{}\", {f}}},", name.replace('"', "'"));
    }
    let _ = writeln!(s, "}};\nstatic const int n_kernels = {};", kernels.len());
    let _ = writeln!(
        s,
        "static void set_threads(int t) {{ omp_set_num_threads(t);{set_threads_extra} }}"
    );
    let n_sizes = shape.sizes.len();
    let n_inputs = shape.inputs.len();
    let _ = writeln!(s, "#define N_SIZES {n_sizes}\n#define N_INPUTS {n_inputs}");
    // Kernel 0 is the reference; with a precise one (the naive lowering in double), it is
    // neither timed nor dumped, and the first kernel reported is 1.
    let _ = writeln!(s, "#define FIRST {}", usize::from(precise_reference));
    // The operands' element types, and how a kernel is called.
    let _ = writeln!(s, "typedef {} out_t;", shape.output.c_type());
    // What `out` holds before a kernel runs: a kernel that leaves an element unwritten fails
    // verification.
    let poison = if matches!(shape.output.c_type(), "float" | "double") {
        "NAN"
    } else {
        "12345"
    };
    let _ = writeln!(s, "#define POISON {poison}");
    for (i, input) in shape.inputs.iter().enumerate() {
        let _ = writeln!(s, "typedef {} in{i}_t;", input.c_type());
    }
    let mut args: Vec<String> = (0..n_sizes).map(|i| format!("sz[{i}]")).collect();
    args.push("(o)".into());
    for (i, input) in shape.inputs.iter().enumerate() {
        if input.is_scalar() {
            args.push(format!("((in{i}_t *)in[{i}])[0]"));
        } else {
            args.push(format!("(const in{i}_t *)in[{i}]"));
        }
    }
    let _ = writeln!(s, "#define CALL(f, o) (f)({})", args.join(", "));
    // Filling an input: floats in [-1, 1), integers in [-8, 8).
    s.push_str(RNG);
    s.push_str("static void fill_inputs(void **in, const size_t *len) {\n");
    for (i, input) in shape.inputs.iter().enumerate() {
        let value = if matches!(input.c_type(), "float" | "double") {
            format!("(in{i}_t)next_float()")
        } else {
            format!("(in{i}_t)(next_u64() % 16) - 8")
        };
        let _ = writeln!(
            s,
            "    {{ in{i}_t *p = in[{i}]; for (size_t j = 0; j < len[{}]; j++) p[j] = {value}; }}",
            i + 1
        );
    }
    s.push_str("}\n");
    s.push_str("static size_t in_size(int i) {\n    switch (i) {\n");
    for i in 0..n_inputs {
        let _ = writeln!(s, "    case {i}: return sizeof(in{i}_t);");
    }
    s.push_str("    }\n    return 0;\n}\n");
    s.push_str("static double in_value(int i, size_t j, void **in) {\n    switch (i) {\n");
    for i in 0..n_inputs {
        let _ = writeln!(s, "    case {i}: return (double)((in{i}_t *)in[{i}])[j];");
    }
    s.push_str("    }\n    return 0.0;\n}\n");
    s.push_str(DRIVER_BODY);
    s
}

/// The seeded generator of the inputs (before the generated filling code that calls it).
const RNG: &str = r#"static unsigned long long rng_state = 0x9E3779B97F4A7C15ULL;
static unsigned long long next_u64(void) {
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return rng_state;
}
static float next_float(void) { return (float)((next_u64() >> 40) & 0xFFFFFF) / 8388608.0f - 1.0f; }
"#;

const DRIVER_BODY: &str = r#"
static double now_ms(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static double rel_error(const out_t *c, const out_t *r, size_t len) {
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
/* memcpy in one chunk per thread: the bandwidth the threads of the kernels have. */
static void parallel_copy(char *dst, const char *src, size_t bytes) {
    int parts = omp_get_max_threads();
    size_t chunk = (bytes + parts - 1) / parts;
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < parts; i++) {
        size_t at = (size_t)i * chunk;
        if (at < bytes) memcpy(dst + at, src + at, at + chunk <= bytes ? chunk : bytes - at);
    }
}
static void *aligned_bytes(size_t n) { return aligned_alloc(64, (n + 63) / 64 * 64 + 64); }
static void poison(out_t *o, size_t len) {
    for (size_t j = 0; j < len; j++) o[j] = (out_t)POISON;
}
static int write_doubles(const char *path, size_t len, double (*get)(size_t, const void *), const void *ctx) {
    FILE *f = fopen(path, "wb");
    if (!f) return 1;
    for (size_t j = 0; j < len; j++) { double v = get(j, ctx); fwrite(&v, sizeof v, 1, f); }
    return fclose(f);
}
static double out_at(size_t j, const void *ctx) { return (double)((const out_t *)ctx)[j]; }
static void **inputs_for_dump;
static int input_for_dump;
static double in_at(size_t j, const void *ctx) { (void)ctx; return in_value(input_for_dump, j, inputs_for_dump); }

int main(int argc, char **argv) {
    if (argc < 2 + N_SIZES + 1 + N_INPUTS) { fprintf(stderr, "usage: %s dump|bench SIZES LENGTHS ...\n", argv[0]); return 2; }
    const char *mode = argv[1];
    int sz[N_SIZES + 1];
    for (int i = 0; i < N_SIZES; i++) sz[i] = atoi(argv[2 + i]);
    size_t len[N_INPUTS + 1];
    for (int i = 0; i <= N_INPUTS; i++) len[i] = (size_t)strtoull(argv[2 + N_SIZES + i], NULL, 10);
    int rest = 2 + N_SIZES + 1 + N_INPUTS;
    void *in[N_INPUTS + 1];
    size_t bytes = len[0] * sizeof(out_t);
    for (int i = 0; i < N_INPUTS; i++) {
        in[i] = aligned_bytes(len[i + 1] * in_size(i));
        if (!in[i]) { fprintf(stderr, "out of memory\n"); return 2; }
        bytes += len[i + 1] * in_size(i);
    }
    fill_inputs(in, len);
    out_t *out = aligned_bytes(len[0] * sizeof(out_t));
    out_t *ref = aligned_bytes(len[0] * sizeof(out_t));
    if (!out || !ref) { fprintf(stderr, "out of memory\n"); return 2; }
    if (strcmp(mode, "dump") == 0) {
        if (argc <= rest) return 2;
        char path[4096];
        inputs_for_dump = in;
        for (int i = 0; i < N_INPUTS; i++) {
            snprintf(path, sizeof path, "%s/in%d.bin", argv[rest], i);
            input_for_dump = i;
            if (write_doubles(path, len[i + 1], in_at, NULL)) { fprintf(stderr, "cannot write %s\n", path); return 2; }
        }
        for (int k = FIRST; k < n_kernels; k++) {
            poison(out, len[0]);
            int rc = CALL(kernels[k].f, out);
            snprintf(path, sizeof path, "%s/k%d.bin", argv[rest], k);
            if (rc == 0 && write_doubles(path, len[0], out_at, out)) { fprintf(stderr, "cannot write %s\n", path); return 2; }
            printf("DUMP %s %d\n", kernels[k].name, rc);
        }
        return 0;
    }
    /* bench THREADS ROUNDS */
    int thread_list[64], n_threads = 0;
    if (argc > rest) {
        for (const char *p = argv[rest]; *p && n_threads < 64; ) {
            thread_list[n_threads++] = atoi(p);
            while (*p && *p != ',') p++;
            if (*p == ',') p++;
        }
    }
    if (n_threads == 0) thread_list[n_threads++] = 1;
    int rounds = argc > rest + 1 ? atoi(argv[rest + 1]) : 5;
    if (rounds < 1) rounds = 1;
    /* The copy row moves the same bytes: reads half of them and writes the other half. */
    size_t copy_bytes = bytes / 2 > 0 ? bytes / 2 : 1;
    char *copy_src = aligned_bytes(copy_bytes), *copy_dst = aligned_bytes(copy_bytes);
    if (!copy_src || !copy_dst) { fprintf(stderr, "out of memory\n"); return 2; }
    memset(copy_src, 1, copy_bytes);
    memset(copy_dst, 0, copy_bytes);
    int n_rows = n_kernels + 1; /* the kernels, then the copy */
    double *errors = calloc(n_rows, sizeof(double));
    int *rcs = calloc(n_rows, sizeof(int));
    int stride = rounds + 1;
    double *times = calloc((size_t)n_rows * stride, sizeof(double));
    int *samples = calloc(n_rows, sizeof(int));
    set_threads(thread_list[0]);
    fprintf(stderr, "computing the reference (%s)...\n", kernels[0].name);
    poison(ref, len[0]);
    double ref_t0 = now_ms();
    rcs[0] = CALL(kernels[0].f, ref);
    double ref_ms = now_ms() - ref_t0;
    if (rcs[0] != 0) { fprintf(stderr, "the reference %s returned %d on these sizes\n", kernels[0].name, rcs[0]); return 2; }
    for (int ti = 0; ti < n_threads; ti++) {
        int threads = thread_list[ti];
        set_threads(threads);
        fprintf(stderr, "%d thread(s): verifying against the reference...\n", threads);
        for (int k = 1; k < n_kernels; k++) {
            poison(out, len[0]);
            rcs[k] = CALL(kernels[k].f, out);
            errors[k] = rcs[k] == 0 ? rel_error(out, ref, len[0]) : INFINITY;
        }
        memset(samples, 0, sizeof(int) * n_rows);
        int ref_again = ref_ms <= 2000.0;
        if (ti == 0 && FIRST == 0) { times[0] = ref_ms; samples[0] = 1; }
        for (int round = 0; round < rounds; round++) {
            fprintf(stderr, "\r%d thread(s): round %d/%d   ", threads, round + 1, rounds);
            for (int k = FIRST; k < n_rows; k++) {
                if (k < n_kernels && rcs[k] != 0) continue;
                if (k == 0 && !ref_again) continue;
                if (samples[k] > 0 && times[(size_t)k * stride] > 2000.0) continue;
                if (threads > 1) { struct timespec pause = {0, 200000000L}; nanosleep(&pause, NULL); }
                double t0 = now_ms();
                if (k < n_kernels) CALL(kernels[k].f, out);
                else parallel_copy(copy_dst, copy_src, copy_bytes);
                times[(size_t)k * stride + samples[k]++] = now_ms() - t0;
            }
        }
        fprintf(stderr, "\n");
        for (int k = FIRST; k < n_rows; k++) {
            const char *name = k < n_kernels ? kernels[k].name : "copy (memcpy)";
            if (samples[k] == 0) {
                if (k < n_kernels && rcs[k] != 0) printf("RESULT %s %d %d 0 0 0 inf\n", name, threads, rcs[k]);
                continue;
            }
            double *t = &times[(size_t)k * stride];
            int ns = samples[k];
            qsort(t, ns, sizeof(double), cmp_double);
            double median = ns % 2 ? t[ns / 2] : (t[ns / 2 - 1] + t[ns / 2]) / 2;
            printf("RESULT %s %d %d %.5f %.5f %.5f %.3e\n", name, threads, k < n_kernels ? rcs[k] : 0, median, t[0], t[ns - 1], errors[k]);
        }
        fflush(stdout);
    }
    return 0;
}
"#;
