//! The C prelude every generated driver starts with (the benchmark and verification driver,
//! [`crate::driver`], and `risec la --bench`'s): the headers, the seeded input generator, the
//! clock, the median of a run's times and the relative error of a result, written once so that
//! every report means the same by "random inputs", "median" and "error".

/// The prelude's C source. It defines, all `static` (the functions `inline`, so that a driver
/// that does not call one compiles without a warning):
/// * `next_u64()`, `next_float()` (uniform in [-1, 1)), `next_unit()` (uniform in [0, 1)): one
///   xorshift generator, seeded with the same constant in every driver (`rng_state`);
/// * `now_ms()`: the monotonic clock in milliseconds;
/// * `median_ms(times, n)`: the median of `n` times (sorts them; the mean of the middle two for
///   an even `n`);
/// * `rel_error_t`, `rel_error_add(&e, c, r)`, `rel_error_value(&e)`: the relative error of a
///   result `c` against a reference `r`, `max |c - r| / max |r|` over the finite `r`
///   (`max |c - r|` where those are all zeros); an element equal to the reference's (the same
///   infinity, or NaN where the reference has NaN) agrees, and any other NaN or infinity makes
///   the error NaN or infinite.
pub const PRELUDE: &str = r#"#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned long long rng_state = 0x9E3779B97F4A7C15ULL;
static inline unsigned long long next_u64(void) {
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return rng_state;
}
static inline float next_float(void) { return (float)((next_u64() >> 40) & 0xFFFFFF) / 8388608.0f - 1.0f; }
static inline double next_unit(void) { return (double)(next_u64() >> 11) * (1.0 / 9007199254740992.0); }
static inline double now_ms(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}
static inline int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}
static inline double median_ms(double *times, int n) {
    qsort(times, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}
typedef struct { double num, den; } rel_error_t;
static inline void rel_error_add(rel_error_t *e, double c, double r) {
    if (isfinite(r) && fabs(r) > e->den) e->den = fabs(r);
    if (c == r || (c != c && r != r)) return; /* equal: the same number, infinity, or both NaN */
    double d = fabs(c - r);
    if (!(d <= e->num)) e->num = d; /* NaN propagates */
}
static inline double rel_error_value(const rel_error_t *e) { return e->den > 0.0 ? e->num / e->den : e->num; }
"#;

#[cfg(test)]
mod tests {
    use super::PRELUDE;

    #[test]
    fn the_prelude_compiles_warning_free_and_measures_as_documented() {
        let dir = tempfile::tempdir().unwrap();
        let main = format!(
            "{PRELUDE}\nint main(void) {{\n\
             double t[4] = {{4.0, 1.0, 3.0, 2.0}};\n\
             rel_error_t e = {{0.0, 0.0}};\n\
             rel_error_add(&e, 1.5, 2.0); rel_error_add(&e, -4.0, -4.0);\n\
             rel_error_add(&e, NAN, NAN); rel_error_add(&e, INFINITY, INFINITY);\n\
             float f = next_float(); double u = next_unit(); double n0 = now_ms();\n\
             printf(\"%.2f %.3f %d %d %d\\n\", median_ms(t, 4), rel_error_value(&e), f >= -1.0f && f < 1.0f, u >= 0.0 && u < 1.0, n0 >= 0.0);\n\
             return 0; }}\n"
        );
        let src = dir.path().join("p.c");
        std::fs::write(&src, main).unwrap();
        let exe = dir.path().join("p");
        crate::compile::compile_executable(
            &[src],
            &[],
            &exe,
            &["-Wall", "-Wextra", "-Werror"],
            &[],
        )
        .unwrap();
        let out = std::process::Command::new(&exe).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "2.50 0.125 1 1 1\n");
    }
}
