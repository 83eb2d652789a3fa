//! Criterion benchmarks of the front end (parse + elaborate, as `risec check` runs it) on
//! generated programs, to show how checking time grows with program size:
//!
//! * `chain/N`: N definitions, each using the one before
//!   (`def f_i (x : f32) : f32 = f_{i-1} x + 1.0`); checking must stay near-linear in N;
//! * `flat-sum/N`: one definition whose body is `x + x + … + x` with N terms.
//!
//! ```sh
//! cargo bench --bench frontend
//! cargo bench --bench frontend -- chain --measurement-time 2 --warm-up-time 1
//! ```
//!
//! The passes recurse over the (inlined) entry point, so the benchmarks run on a thread with
//! the stack the `risec` binary gives its compiler thread.

#[path = "common/big_stack.rs"]
mod big_stack;

use criterion::{BenchmarkId, Criterion, Throughput};
use risec_core::diagnostics::SourceFile;
use risec_frontend::load::compile_source;
use std::hint::black_box;

/// `def f_0 … def f_{n-1}`, each calling the one before.
fn chain(n: usize) -> String {
    let mut text = String::from("def f_0 (x : f32) : f32 = x + 1.0\n");
    for i in 1..n {
        text.push_str(&format!(
            "def f_{i} (x : f32) : f32 = f_{} x + 1.0\n",
            i - 1
        ));
    }
    text
}

/// `def sum (x : f32) : f32 = x + x + … + x` with `n` terms.
fn flat_sum(n: usize) -> String {
    format!(
        "def sum (x : f32) : f32 = x{}\n",
        " + x".repeat(n.saturating_sub(1))
    )
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("chain");
    group.sample_size(10);
    for n in [1000, 2000, 3000, 4000, 5000] {
        let file = SourceFile::new("chain.rise", chain(n));
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &file, |b, file| {
            b.iter(|| compile_source(black_box(file), None).expect("the chain checks"))
        });
    }
    group.finish();
    let mut group = c.benchmark_group("flat-sum");
    group.sample_size(10);
    for n in [1000, 10_000, 100_000] {
        let file = SourceFile::new("sum.rise", flat_sum(n));
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &file, |b, file| {
            b.iter(|| compile_source(black_box(file), None).expect("the sum checks"))
        });
    }
    group.finish();
}

fn main() {
    big_stack::run(bench);
}
