//! The C driver of the generic benchmark: every kernel of one interface ([`Shape`]) linked into
//! one executable that makes seeded inputs, runs the kernels and reports on standard output,
//! one line per kernel (read with [`crate::compile::parse_lines`]).
//!
//! `driver MODE SIZES… LENGTHS… REST…`: the size parameters' values, then the element counts of
//! the output and of each input (computed by risec, which knows the types), then the mode's
//! arguments:
//!
//! * `dump DIR WHICH CLASS LAYOUT`: the verification mode. Draws the inputs of value class
//!   `CLASS` ([`ValueClass`]) into arrays with guard zones laid out as `LAYOUT` says
//!   ([`Layout`]); with `WHICH` = `inputs` writes them (`DIR/in0.bin`, …, little-endian
//!   doubles), else runs the kernels `WHICH` names (indices, comma-separated, in order) or
//!   every kernel (`all`), writes each
//!   output (`DIR/k0.bin`, …) and prints `DUMP name rc guards`, where `guards` is `ok` or the
//!   damage found after the call (`wrote-before-out`, `wrote-after-in0`, `changed-in1`,
//!   `wrote-out-on-refusal`, comma-separated). Before each call it prints `START index`, so
//!   that a crash is attributed. risec compares the outputs with the reference interpreter's
//!   on the same inputs;
//! * `check THREADS REF WHICH`: runs the kernels `WHICH` names (indices, comma-separated, or
//!   `all`) once with `THREADS` threads against kernel `REF` (0: the reference `bench` uses),
//!   and prints `CHECK name rc untouched error` (`untouched`: 1 when `out` holds what it held
//!   before the call; a kernel that refuses the sizes must leave it so);
//! * `bench THREADS ROUNDS`: verifies every kernel against kernel 0 (the naive lowering in
//!   double precision where the result is floating-point, not timed; else the naive lowering
//!   itself) and times them all, with a `memcpy` of the same number of bytes, in interleaved
//!   rounds (`RESULT name threads rc median min max error`).

use crate::prelude::PRELUDE;
use crate::shape::Shape;
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
    constants: &[f64],
) -> String {
    let mut s = String::new();
    s.push_str("/* risec benchmark and verification driver (generated). */\n");
    s.push_str(PRELUDE);
    s.push_str("#include <omp.h>\n#include <sys/mman.h>\n#include <unistd.h>\n\n");
    let _ = writeln!(s, "typedef {};", shape.prototype("(*kernel_fn)"));
    for (_, f) in kernels {
        let _ = writeln!(s, "{};", shape.prototype(f));
    }
    // `openmp`: whether the kernel runs on OpenMP's threads (OpenBLAS has threads of its own).
    s.push_str(
        "static const struct { const char *name; kernel_fn f; int openmp; } kernels[] = {\n",
    );
    for (name, f) in kernels {
        let openmp = i32::from(f != crate::blas::FUNCTION);
        let _ = writeln!(s, "    {{\"{}\", {f}, {openmp}}},", name.replace('"', "'"));
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
    // The program's own constants, which the wide class draws near.
    let listed: Vec<String> = constants
        .iter()
        .filter(|c| c.is_finite())
        .map(|c| format!("{c:e}"))
        .collect();
    let _ = writeln!(
        s,
        "static const double program_constants[] = {{{}}};\nstatic const int n_constants = {};",
        if listed.is_empty() {
            "0.0".to_string()
        } else {
            listed.join(", ")
        },
        listed.len()
    );
    s.push_str(VALUES);
    s.push_str("static void fill_inputs(void **in, const size_t *len, int cls) {\n");
    for (i, input) in shape.inputs.iter().enumerate() {
        let integral = i32::from(!matches!(input.c_type(), "float" | "double"));
        let _ = writeln!(
            s,
            "    {{ in{i}_t *p = in[{i}]; for (size_t j = 0; j < len[{}]; j++) p[j] = (in{i}_t)draw_value(cls, {integral}); }}",
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
    s.push_str(GUARDED);
    s.push_str(DRIVER_BODY);
    s
}

/// The kinds of inputs verification draws, each from its own seed: a kernel must agree with
/// the interpreter on every one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueClass {
    /// Floats uniform in [-1, 1), integers in [-8, 8): what the benchmark times.
    Uniform = 0,
    /// Whole numbers in [-100, 100] (exact sums: a misplaced element shows).
    Integral = 1,
    /// Magnitudes from 2⁻²⁰ to 2²⁰ of either sign, with one value in four special: ±0, ±1, the
    /// program's own constants and those ± 1 (integers in [-1000, 1000]).
    Wide = 2,
}

impl ValueClass {
    /// Every class, in the order verification runs them.
    pub const ALL: [ValueClass; 3] = [ValueClass::Uniform, ValueClass::Integral, ValueClass::Wide];

    /// What the inputs are, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            ValueClass::Uniform => "uniform in [-1, 1)",
            ValueClass::Integral => "integers in [-100, 100]",
            ValueClass::Wide => "magnitudes 2^-20 to 2^20, ±0, ±1, the program's constants ± 1",
        }
    }
}

/// How verification lays out every array: guard zones catch the accesses a kernel makes
/// outside the arrays it was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Each array ends against an inaccessible page (a read or write past its end faults) and
    /// starts after canary bytes (a write before it is found after the call).
    End = 0,
    /// Each array starts right after an inaccessible page (a read or write before it faults)
    /// and is followed by canary bytes.
    Start = 1,
    /// On the heap, exactly the array: for builds with AddressSanitizer, which puts red zones
    /// around every allocation and reports any access to them.
    Heap = 2,
}

/// Drawing the inputs of a value class (after the program's constants).
const VALUES: &str = r#"static double draw_value(int cls, int integral) {
    if (cls == 1) return (double)((long long)(next_u64() % 201) - 100);
    if (cls == 2) {
        if (integral) return (double)((long long)(next_u64() % 2001) - 1000);
        if (next_u64() % 4 == 0) {
            int pick = (int)(next_u64() % (unsigned long long)(4 + 3 * n_constants));
            switch (pick) {
            case 0: return 0.0;
            case 1: return -0.0;
            case 2: return 1.0;
            case 3: return -1.0;
            }
            pick -= 4;
            return program_constants[pick / 3] + (double)(pick % 3 - 1);
        }
        double mantissa = 1.0 + (double)((next_u64() >> 40) & 0xFFFFFF) / 16777216.0;
        int exponent = (int)(next_u64() % 41) - 20;
        return (next_u64() & 1 ? -1.0 : 1.0) * ldexp(mantissa, exponent);
    }
    return integral ? (double)((long long)(next_u64() % 16) - 8) : (double)next_float();
}
"#;

/// Arrays with guard zones ([`Layout`]) and the check after a call.
const GUARDED: &str = r#"
#define CANARY_MIN 256
typedef struct { unsigned char *p, *lo, *hi; size_t bytes, lo_len, hi_len; } guarded_t;
static unsigned char canary_at(size_t i) { return (unsigned char)(0xA5u ^ (unsigned)(i * 29u)); }
static void fill_canary(unsigned char *c, size_t n) { for (size_t i = 0; i < n; i++) c[i] = canary_at(i); }
static int canary_intact(const unsigned char *c, size_t n) {
    for (size_t i = 0; i < n; i++) if (c[i] != canary_at(i)) return 0;
    return 1;
}
static int guarded_alloc(guarded_t *g, size_t bytes, int layout) {
    memset(g, 0, sizeof *g);
    g->bytes = bytes;
    if (layout == 2) {
        /* Exactly the array: AddressSanitizer's own red zones surround it. */
        g->p = malloc(bytes > 0 ? bytes : 1);
        if (!g->p) return 1;
    } else {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        size_t span = (bytes + CANARY_MIN + page - 1) / page * page;
        unsigned char *m = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return 1;
        if (layout == 0) {
            if (mprotect(m + span, page, PROT_NONE) != 0) return 1;
            g->p = m + span - bytes;
            g->lo = m; g->lo_len = span - bytes;
        } else {
            if (mprotect(m, page, PROT_NONE) != 0) return 1;
            g->p = m + page;
            g->hi = g->p + bytes; g->hi_len = span - bytes;
        }
    }
    if (g->lo) fill_canary(g->lo, g->lo_len);
    if (g->hi) fill_canary(g->hi, g->hi_len);
    return 0;
}
/* Appends what a call damaged of `g` (named `name`) to `report`. */
static void guard_report(const guarded_t *g, const char *name, char *report, size_t cap) {
    char part[64];
    if (g->lo && !canary_intact(g->lo, g->lo_len)) {
        snprintf(part, sizeof part, "%swrote-before-%s", report[0] ? "," : "", name);
        strncat(report, part, cap - strlen(report) - 1);
    }
    if (g->hi && !canary_intact(g->hi, g->hi_len)) {
        snprintf(part, sizeof part, "%swrote-after-%s", report[0] ? "," : "", name);
        strncat(report, part, cap - strlen(report) - 1);
    }
}
"#;

const DRIVER_BODY: &str = r#"
static double rel_error(const out_t *c, const out_t *r, size_t len) {
    rel_error_t e = {0.0, 0.0};
    for (size_t i = 0; i < len; i++) rel_error_add(&e, (double)c[i], (double)r[i]);
    return rel_error_value(&e);
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
/* Whether `o` still holds the poison bit for bit (a refusing kernel leaves `out` untouched). */
static int poisoned(const out_t *o, size_t len) {
    out_t p = (out_t)POISON;
    for (size_t j = 0; j < len; j++) if (memcmp(&o[j], &p, sizeof p) != 0) return 0;
    return 1;
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

/* dump DIR WHICH CLASS LAYOUT: see the module documentation of driver.rs. */
static int dump(int argc, char **argv, int rest, const int *sz, const size_t *len) {
    if (argc < rest + 4) return 2;
    const char *dir = argv[rest], *which = argv[rest + 1];
    int cls = atoi(argv[rest + 2]), layout = atoi(argv[rest + 3]);
    for (int c = 0; c < cls; c++) rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    guarded_t gin[N_INPUTS + 1], gout;
    void *in[N_INPUTS + 1];
    for (int i = 0; i < N_INPUTS; i++) {
        if (guarded_alloc(&gin[i], len[i + 1] * in_size(i), layout)) { fprintf(stderr, "out of memory\n"); return 2; }
        in[i] = gin[i].p;
    }
    fill_inputs(in, len, cls);
    if (guarded_alloc(&gout, len[0] * sizeof(out_t), layout)) { fprintf(stderr, "out of memory\n"); return 2; }
    out_t *out = (out_t *)gout.p;
    char path[4096];
    if (strcmp(which, "inputs") == 0) {
        inputs_for_dump = in;
        for (int i = 0; i < N_INPUTS; i++) {
            snprintf(path, sizeof path, "%s/in%d.bin", dir, i);
            input_for_dump = i;
            if (write_doubles(path, len[i + 1], in_at, NULL)) { fprintf(stderr, "cannot write %s\n", path); return 2; }
        }
        return 0;
    }
    /* Copies of the inputs: a kernel must not change them. */
    void *saved[N_INPUTS + 1];
    for (int i = 0; i < N_INPUTS; i++) {
        saved[i] = malloc(gin[i].bytes + 1);
        if (!saved[i]) { fprintf(stderr, "out of memory\n"); return 2; }
        memcpy(saved[i], in[i], gin[i].bytes);
    }
    /* `all`, or the kernels' indices, comma-separated, in the order to run them. */
    int order[n_kernels + 1], n_order = 0;
    if (strcmp(which, "all") == 0) {
        for (int k = FIRST; k < n_kernels; k++) order[n_order++] = k;
    } else {
        for (const char *p = which; *p && n_order < n_kernels; ) {
            int k = atoi(p);
            if (k >= FIRST && k < n_kernels) order[n_order++] = k;
            while (*p && *p != ',') p++;
            if (*p == ',') p++;
        }
    }
    for (int o = 0; o < n_order; o++) {
        int k = order[o];
        poison(out, len[0]);
        printf("START %d\n", k);
        fflush(stdout);
        int rc = CALL(kernels[k].f, out);
        char report[1024] = "";
        char name[32];
        guard_report(&gout, "out", report, sizeof report);
        for (int i = 0; i < N_INPUTS; i++) {
            snprintf(name, sizeof name, "in%d", i);
            guard_report(&gin[i], name, report, sizeof report);
            if (memcmp(saved[i], in[i], gin[i].bytes) != 0) {
                snprintf(name, sizeof name, "%schanged-in%d", report[0] ? "," : "", i);
                strncat(report, name, sizeof report - strlen(report) - 1);
                memcpy(in[i], saved[i], gin[i].bytes);
            }
        }
        if (rc != 0 && !poisoned(out, len[0])) strncat(report, report[0] ? ",wrote-out-on-refusal" : "wrote-out-on-refusal", sizeof report - strlen(report) - 1);
        /* Repair the canaries for the next kernel. */
        if (gout.lo) fill_canary(gout.lo, gout.lo_len);
        if (gout.hi) fill_canary(gout.hi, gout.hi_len);
        for (int i = 0; i < N_INPUTS; i++) {
            if (gin[i].lo) fill_canary(gin[i].lo, gin[i].lo_len);
            if (gin[i].hi) fill_canary(gin[i].hi, gin[i].hi_len);
        }
        snprintf(path, sizeof path, "%s/k%d.bin", dir, k);
        if (rc == 0 && write_doubles(path, len[0], out_at, out)) { fprintf(stderr, "cannot write %s\n", path); return 2; }
        printf("DUMP %s %d %s\n", kernels[k].name, rc, report[0] ? report : "ok");
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2 + N_SIZES + 1 + N_INPUTS) { fprintf(stderr, "usage: %s dump|check|bench SIZES LENGTHS ...\n", argv[0]); return 2; }
    const char *mode = argv[1];
    int sz[N_SIZES + 1];
    for (int i = 0; i < N_SIZES; i++) sz[i] = atoi(argv[2 + i]);
    size_t len[N_INPUTS + 1];
    for (int i = 0; i <= N_INPUTS; i++) len[i] = (size_t)strtoull(argv[2 + N_SIZES + i], NULL, 10);
    int rest = 2 + N_SIZES + 1 + N_INPUTS;
    if (strcmp(mode, "dump") == 0) return dump(argc, argv, rest, sz, len);
    /* The buffers live as long as the process, held by `static` pointers: LeakSanitizer (in
     * builds with `--sanitize`) counts them as reachable at exit, and reports only what the
     * kernels themselves leak. */
    static void *in[N_INPUTS + 1];
    size_t bytes = len[0] * sizeof(out_t);
    for (int i = 0; i < N_INPUTS; i++) {
        in[i] = aligned_bytes(len[i + 1] * in_size(i));
        if (!in[i]) { fprintf(stderr, "out of memory\n"); return 2; }
        bytes += len[i + 1] * in_size(i);
    }
    fill_inputs(in, len, 0);
    static out_t *out, *ref;
    out = aligned_bytes(len[0] * sizeof(out_t));
    ref = aligned_bytes(len[0] * sizeof(out_t));
    if (!out || !ref) { fprintf(stderr, "out of memory\n"); return 2; }
    /* bench THREADS ROUNDS, check THREADS */
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
    static char *copy_src, *copy_dst;
    copy_src = aligned_bytes(copy_bytes);
    copy_dst = aligned_bytes(copy_bytes);
    if (!copy_src || !copy_dst) { fprintf(stderr, "out of memory\n"); return 2; }
    memset(copy_src, 1, copy_bytes);
    memset(copy_dst, 0, copy_bytes);
    int n_rows = n_kernels + 1; /* the kernels, then the copy */
    static double *errors, *times;
    static int *rcs, *samples;
    errors = calloc(n_rows, sizeof(double));
    rcs = calloc(n_rows, sizeof(int));
    int stride = rounds + 1;
    times = calloc((size_t)n_rows * stride, sizeof(double));
    samples = calloc(n_rows, sizeof(int));
    set_threads(thread_list[0]);
    /* `check` with a reference kernel of its own does not need kernel 0's result. */
    int own_reference = strcmp(mode, "check") == 0 && argc > rest + 1 && atoi(argv[rest + 1]) != 0;
    if (!own_reference) fprintf(stderr, "computing the reference (%s)...\n", kernels[0].name);
    if (!own_reference) poison(ref, len[0]);
    double ref_t0 = now_ms();
    if (!own_reference) rcs[0] = CALL(kernels[0].f, ref);
    double ref_ms = now_ms() - ref_t0;
    if (rcs[0] != 0) { fprintf(stderr, "the reference %s returned %d on these sizes\n", kernels[0].name, rcs[0]); return 2; }
    if (strcmp(mode, "check") == 0) {
        /* check THREADS REF WHICH: see the module documentation of driver.rs. */
        int refk = argc > rest + 1 ? atoi(argv[rest + 1]) : 0;
        const char *which = argc > rest + 2 ? argv[rest + 2] : "all";
        if (refk < 0 || refk >= n_kernels) { fprintf(stderr, "no kernel %d\n", refk); return 2; }
        if (refk != 0) {
            poison(ref, len[0]);
            int rc = CALL(kernels[refk].f, ref);
            if (rc != 0) { fprintf(stderr, "the reference %s returned %d on these sizes\n", kernels[refk].name, rc); return 2; }
        }
        for (int k = FIRST; k < n_kernels; k++) {
            if (strcmp(which, "all") != 0) {
                int listed = 0;
                for (const char *p = which; *p; ) {
                    if (atoi(p) == k) listed = 1;
                    while (*p && *p != ',') p++;
                    if (*p == ',') p++;
                }
                if (!listed) continue;
            }
            int rc = 0;
            double err = 0.0;
            int untouched = 1;
            if (k != refk) {
                poison(out, len[0]);
                printf("START %d\n", k);
                fflush(stdout);
                rc = CALL(kernels[k].f, out);
                untouched = poisoned(out, len[0]);
                err = rc == 0 ? rel_error(out, ref, len[0]) : INFINITY;
            }
            printf("CHECK %s %d %d %.3e\n", kernels[k].name, rc, untouched, err);
            fflush(stdout);
        }
        return 0;
    }
    for (int ti = 0; ti < n_threads; ti++) {
        int threads = thread_list[ti];
        set_threads(threads);
        fprintf(stderr, "%d thread(s): verifying against the reference...\n", threads);
        memset(samples, 0, sizeof(int) * n_rows);
        for (int k = 1; k < n_kernels; k++) {
            poison(out, len[0]);
            printf("START %d\n", k);
            fflush(stdout);
            double t0 = now_ms();
            rcs[k] = CALL(kernels[k].f, out);
            double took = now_ms() - t0;
            printf("DONE %d\n", k);
            errors[k] = rcs[k] == 0 ? rel_error(out, ref, len[0]) : INFINITY;
            /* A call slower than 2 s (the naive loops at large sizes) is timed by this run
             * alone: the rounds do not call it again. */
            if (rcs[k] == 0 && took > 2000.0) { times[(size_t)k * stride] = took; samples[k] = 1; }
        }
        int ref_again = ref_ms <= 2000.0;
        if (ti == 0 && FIRST == 0) { times[0] = ref_ms; samples[0] = 1; }
        for (int round = 0; round < rounds; round++) {
            fprintf(stderr, "\r%d thread(s): round %d/%d   ", threads, round + 1, rounds);
            for (int k = FIRST; k < n_rows; k++) {
                if (k < n_kernels && rcs[k] != 0) continue;
                if (k == 0 && !ref_again) continue;
                if (samples[k] > 0 && times[(size_t)k * stride] > 2000.0) continue;
                if (threads > 1) {
                    struct timespec pause = {0, 200000000L};
                    nanosleep(&pause, NULL);
                    /* Wake the OpenMP team again (for a kernel on OpenMP's threads: OpenBLAS has
                     * its own, which OpenMP's spinning would slow), untimed, and keep every
                     * thread busy for 5 ms:
                     * after the pause they sleep, and on a VM the first parallel call after
                     * that waited 4-8 ms for the other virtual CPU (measured on the 2-core
                     * development VM: a 1 MiB parallel memcpy took 4-8 ms after a 200 ms
                     * pause, 0.04 ms after this). */
                    if (k >= n_kernels || kernels[k].openmp) {
                        #pragma omp parallel
                        { double spin = now_ms(); while (now_ms() - spin < 5.0) __asm__ volatile("" ::: "memory"); }
                    }
                }
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
            double median = median_ms(t, ns); /* sorts t */
            printf("RESULT %s %d %d %.5f %.5f %.5f %.3e\n", name, threads, k < n_kernels ? rcs[k] : 0, median, t[0], t[ns - 1], errors[k]);
        }
        fflush(stdout);
    }
    return 0;
}
"#;
