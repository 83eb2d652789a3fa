//! Criterion benchmarks of lowering and C generation on generated programs (issue 19), to show
//! that both grow near-linearly with program size (`benches/common/scaling.rs` has the shapes):
//!
//! * `emit-c/flat-sum/N`: C generation for `x + x + … + x` with N terms (`risec emit-c`);
//! * `lower-emit-c/SHAPE/N`: lowering then C generation, as the main job does after its search,
//!   for a `map` body of N terms, a reduction body of N factors, and a chain of N maps.
//!
//! ```sh
//! cargo bench --bench codegen
//! cargo bench --bench codegen -- flat-sum --measurement-time 2 --warm-up-time 1
//! ```
//!
//! `cargo run --release --example codegen_table` prints the same scaling as a table, stage by
//! stage. The passes recurse over the term, so the benchmarks run on a thread with the stack
//! the `risec` binary gives its compiler thread.

#[path = "common/scaling.rs"]
mod scaling;

#[path = "common/big_stack.rs"]
mod big_stack;

use criterion::{BenchmarkId, Criterion, Throughput};
use risec_backend::lowlevel::lower;
use risec_backend::{emit_c, CodegenOptions};
use risec_core::diagnostics::SourceFile;
use risec_frontend::load::compile_source;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let options = CodegenOptions::new("bench.h");
    let mut group = c.benchmark_group("emit-c/flat-sum");
    group.sample_size(10);
    for n in [1000, 10_000, 100_000] {
        let file = SourceFile::new("sum.rise", scaling::flat_sum(n));
        let program = compile_source(&file, None).expect("the sum checks");
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &program, |b, p| {
            b.iter(|| emit_c(black_box(p), &options).expect("C is generated"))
        });
    }
    group.finish();
    for (shape, generate) in scaling::SHAPES {
        let sizes: &[usize] = match shape {
            "flat-sum" => continue,
            "map-chain" => &[250, 500, 1000],
            _ => &[1000, 8000, 20_000],
        };
        let mut group = c.benchmark_group(format!("lower-emit-c/{shape}"));
        group.sample_size(10);
        for &n in sizes {
            let file = SourceFile::new("scaling.rise", generate(n));
            let program = compile_source(&file, None).expect("the program checks");
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::from_parameter(n), &program, |b, p| {
                b.iter(|| emit_c(&lower(black_box(p)), &options).expect("C is generated"))
            });
        }
        group.finish();
    }
}

fn main() {
    big_stack::run(bench);
}
