//! Criterion benchmarks of sketch-guided search: one per matmul version of `sketches/matmul/`
//! (the seven TVM-schedule steps and the two register-blocked versions), plus the seven TVM
//! steps in a row.
//!
//! Each benchmark times what `risec examples/matmul.rise --sketch sketches/matmul/X.sk` does
//! after reading its inputs: every guide step (fresh e-graph, saturation until the sketch is
//! satisfied, extraction) and the lowering. Parsing and elaborating the program and loading the
//! sketch file happen once, outside the timed part. Peak memory per version is reported by the
//! main job's `--stats` (one process per version), see `sketches/matmul/README.md`.
//!
//! ```sh
//! cargo bench --bench sketches
//! cargo bench --bench sketches -- blocking
//! ```

use criterion::{criterion_group, criterion_main, Criterion};
use risec::pipeline::optimize_program;
use risec_sketch::guided::SearchOptions;
use std::hint::black_box;
use std::path::Path;

/// The seven versions of the TVM GEMM schedule, in order.
const VERSIONS: [&str; 7] = risec_bench::presets::TVM_VERSIONS;

/// The register-blocked (BLIS-style) versions, timed on their own.
const REGISTER_BLOCKED: &[&str] = &["register-blocking", "register-blocking-avx512"];

fn bench(c: &mut Criterion) {
    let program =
        risec_frontend::load::compile_file("examples/matmul.rise", None).expect("matmul checks");
    let options = SearchOptions::default();
    let mut all = Vec::new();
    let mut group = c.benchmark_group("sketch-guided");
    group.sample_size(10);
    for v in VERSIONS.iter().chain(REGISTER_BLOCKED) {
        let path = format!("sketches/matmul/{v}.sk");
        let steps = risec_sketch::resolve::load(Path::new(&path), &program)
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        let once = optimize_program(&program, &steps, &options, &mut |_| {})
            .unwrap_or_else(|_| panic!("{v} is found"));
        let nodes: Vec<String> = once
            .steps
            .iter()
            .map(|s| {
                format!(
                    "{} {}",
                    s.name.as_deref().unwrap_or_default(),
                    s.summary.nodes
                )
            })
            .collect();
        eprintln!("{v}: steps (e-nodes) {}", nodes.join(", "));
        group.bench_function(*v, |b| {
            b.iter(|| black_box(optimize_program(&program, &steps, &options, &mut |_| {}).is_ok()))
        });
        if VERSIONS.contains(v) {
            all.push(steps);
        }
    }
    group.bench_function("all seven", |b| {
        b.iter(|| {
            for steps in &all {
                black_box(optimize_program(&program, steps, &options, &mut |_| {}).is_ok());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
