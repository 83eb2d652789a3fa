//! Timing a plan against the outputs as written, both as risec C: the two functions, a driver
//! that makes random inputs (sparse ones in CSR, with their declared non-zeros), checks that
//! both compute the same outputs, and times each (median of `rounds` calls), on the C prelude
//! of every risec driver (`risec_bench::prelude`: the same generator, clock, median and
//! relative error as `risec bench`).

use super::{c_file, written};
use crate::bench::compile::compile_executable;
use crate::bench::prelude::PRELUDE;
use crate::check::LaProgram;
use crate::optimize::LaPlan;
use std::fmt::Write;
use std::path::Path;
use std::process::Command;

/// What a benchmark measured.
#[derive(Clone, Debug)]
pub struct Timing {
    /// Median time of the outputs as written, in milliseconds.
    pub original_ms: f64,
    /// Median time of the plan, in milliseconds.
    pub plan_ms: f64,
    /// The largest difference between the two functions' outputs, relative to their scale.
    pub error: f64,
    /// Calls timed per function.
    pub rounds: usize,
}

/// The driver's C source.
fn driver(program: &LaProgram, rounds: usize) -> String {
    let mut c = String::from("/* risec la benchmark driver (generated). */\n");
    c.push_str(PRELUDE);
    c.push_str(
        r#"#include "original.h"
#include "plan.h"

/* Inputs uniform in [0.5, 1.5): no cancellation, so the relative error measures the plan. */
static float *la_dense(long long n) {
    float *a = malloc(sizeof(float) * (size_t)n);
    if (!a) { printf("FAIL out of memory\n"); exit(1); }
    for (long long i = 0; i < n; i++) a[i] = 1.0f + 0.5f * next_float();
    return a;
}
/* Random CSR with about nnz non-zeros spread evenly over the rows, in random columns. */
static la_csr la_sparse(int rows, int cols, long long nnz) {
    la_csr a; memset(&a, 0, sizeof a);
    a.rows = rows; a.cols = cols; a.owns_structure = 1;
    a.rowptr = malloc(sizeof(int) * ((size_t)rows + 1));
    a.col = malloc(sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
    a.val = malloc(sizeof(float) * (size_t)(nnz > 0 ? nnz : 1));
    if (!a.rowptr || !a.col || !a.val) { printf("FAIL out of memory\n"); exit(1); }
    long long p = 0;
    for (int i = 0; i < rows; i++) {
        a.rowptr[i] = (int)p;
        long long count = nnz / rows + (i < nnz % rows ? 1 : 0);
        if (count > cols) count = cols;
        double width = (double)cols / (double)(count > 0 ? count : 1);
        for (long long t = 0; t < count; t++) {
            /* One column in each of count disjoint slots: distinct and increasing. */
            int lo = (int)floor((double)t * width), hi = (int)floor((double)(t + 1) * width);
            if (hi > cols) hi = cols;
            if (hi <= lo) hi = lo + 1;
            int j = lo + (int)(next_unit() * (hi - lo));
            if (j >= hi) j = hi - 1;
            a.col[p] = j; a.val[p] = 1.0f + 0.5f * next_float(); p++;
        }
    }
    a.rowptr[rows] = (int)p; a.nnz = (int)p;
    return a;
}
static double la_error(const float *a, const float *b, long long n) {
    rel_error_t e = {0.0, 0.0};
    for (long long i = 0; i < n; i++) rel_error_add(&e, (double)b[i], (double)a[i]);
    return rel_error_value(&e);
}

int main(int argc, char **argv) {
"#,
    );
    let _ = writeln!(
        c,
        "    int rounds = argc > 1 ? atoi(argv[1]) : {rounds};\n    if (rounds < 1) rounds = 1;"
    );
    let mut args = Vec::new();
    for input in &program.inputs {
        let (r, k) = (input.shape.rows, input.shape.cols);
        if input.is_sparse() {
            let _ = writeln!(
                c,
                "    la_csr in_{} = la_sparse({r}, {k}, {}LL);",
                input.name, input.nnz as u64
            );
            args.push(format!("&in_{}", input.name));
        } else {
            let _ = writeln!(c, "    float *in_{} = la_dense({}LL);", input.name, r * k);
            args.push(format!("in_{}", input.name));
        }
    }
    let mut original_args = args.clone();
    let mut plan_args = args;
    let mut compare = String::new();
    for (name, term) in &program.outputs {
        let n = term.shape.rows * term.shape.cols;
        let _ = writeln!(
            c,
            "    float *o_{name} = la_dense({n}LL), *p_{name} = la_dense({n}LL);"
        );
        original_args.push(format!("o_{name}"));
        plan_args.push(format!("p_{name}"));
        let _ = writeln!(
            compare,
            "    {{ double e = la_error(o_{name}, p_{name}, {n}LL); if (e > err || e != e) err = e; }}\n    printf(\"VALUE {name} %.6e %.6e\\n\", o_{name}[0], p_{name}[0]);"
        );
    }
    let (oa, pa) = (original_args.join(", "), plan_args.join(", "));
    let _ = write!(
        c,
        r#"    if (la_original({oa}) || la_plan({pa})) {{ printf("FAIL a function returned an error\n"); return 1; }}
    double err = 0.0;
{compare}    printf("ERROR %.3e\n", err);
    double *t = malloc(sizeof(double) * (size_t)rounds);
    for (int r = 0; r < rounds; r++) {{ double t0 = now_ms(); la_original({oa}); t[r] = now_ms() - t0; }}
    printf("TIME original %.4f\n", median_ms(t, rounds));
    for (int r = 0; r < rounds; r++) {{ double t0 = now_ms(); la_plan({pa}); t[r] = now_ms() - t0; }}
    printf("TIME plan %.4f\n", median_ms(t, rounds));
    return 0;
}}
"#
    );
    c
}

/// Compiles the outputs as written and `plan` into `dir` (matrix products with `matmul_sketch`
/// when given), runs the driver and returns what it measured; errors are messages (a compiler failure, a function error, a wrong result).
pub fn run(
    program: &LaProgram,
    plan: &LaPlan,
    rounds: usize,
    dir: &Path,
    matmul_sketch: Option<&Path>,
) -> Result<Timing, String> {
    let (expr, roots) = written(program);
    let original = c_file(
        "la_original",
        "original.h",
        &expr,
        &roots,
        program,
        matmul_sketch,
    )?;
    let optimised = c_file(
        "la_plan",
        "plan.h",
        &plan.expr,
        &plan.roots,
        program,
        matmul_sketch,
    )?;
    let write = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).map_err(|e| format!("cannot write {name}: {e}"))
    };
    write("original.c", &original.source)?;
    write("original.h", &original.header)?;
    write("plan.c", &optimised.source)?;
    write("plan.h", &optimised.header)?;
    write("driver.c", &driver(program, rounds))?;
    let exe = dir.join("la_bench");
    compile_executable(
        &["original.c", "plan.c", "driver.c"].map(|f| dir.join(f)),
        &[dir.to_path_buf()],
        &exe,
        &[],
        &[],
    )
    .map_err(|e| e.to_string())?;
    let out = Command::new(&exe)
        .arg(rounds.to_string())
        .output()
        .map_err(|e| format!("cannot run the benchmark: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |tag: &str| -> Option<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(tag))
            .and_then(|v| v.trim().parse().ok())
    };
    match (
        field("TIME original "),
        field("TIME plan "),
        field("ERROR "),
    ) {
        (Some(original_ms), Some(plan_ms), Some(error)) => Ok(Timing {
            original_ms,
            plan_ms,
            error,
            rounds,
        }),
        _ => Err(format!(
            "the benchmark failed: {}{}",
            text.trim(),
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}
