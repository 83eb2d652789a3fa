//! Criterion benchmarks of equality saturation: one per goal of `examples/goals/`, and the growth
//! workloads of issue 8 (chains of 3, 4 and 5 mapped function parameters under
//! `map-fusion, map-fission, eta, beta`, 25 iterations of a search that cannot finish).
//!
//! Each benchmark times the whole search as `risec prove` runs it, from the (normalised) start
//! term: a fresh e-graph, the start term added, saturation until the goal is in the start's
//! e-class or a limit stops it. Parsing, elaboration, normalisation and building the rules happen
//! once, outside the timed part. Every benchmark first prints what one search found; the growth
//! benchmarks print their e-nodes per iteration (`cargo run --release --example eqsat_table --
//! growth` prints them next to the engine without reduction passes).
//!
//! ```sh
//! cargo bench --bench eqsat                       # everything
//! cargo bench --bench eqsat -- map-fission-fusion # one goal
//! cargo bench --bench eqsat -- growth             # the chains
//! cargo bench --bench eqsat -- --measurement-time 2 --warm-up-time 1
//! ```

use criterion::{criterion_group, criterion_main, Criterion};
use risec_eqsat::growth::{chain_problem, Goal, GOALS};
use risec_eqsat::limits::Limits;
use risec_eqsat::prove::Problem;
use std::hint::black_box;

fn load(goal: &Goal) -> Problem {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/goals");
    goal.problem(dir)
        .unwrap_or_else(|e| panic!("goal {}: {e}", goal.name))
}

fn eqsat(c: &mut Criterion) {
    let limits = Limits::default();
    let mut group = c.benchmark_group("eqsat");
    // Searches take milliseconds to seconds: few samples, each a whole search.
    group.sample_size(10);
    for goal in GOALS {
        let problem = load(goal);
        // Criterion calls the routine once per sample; say what the search finds only once (and
        // only for benchmarks that are not filtered out).
        let mut reported = false;
        group.bench_function(goal.name, |b| {
            if !reported {
                reported = true;
                let outcome = problem.search(&limits);
                eprintln!(
                    "{}: {} ({} e-nodes, {} rewrites)",
                    goal.name,
                    outcome.headline(),
                    outcome.search.summary.nodes,
                    outcome.search.summary.rewrites
                );
            }
            b.iter(|| black_box(problem.search(&limits)).found())
        });
    }
    group.finish();
}

fn growth(c: &mut Criterion) {
    let limits = Limits {
        iterations: 25,
        ..Limits::default()
    };
    let mut group = c.benchmark_group("growth");
    group.sample_size(10);
    for k in [3, 4, 5] {
        let problem = chain_problem(k);
        let mut reported = false;
        group.bench_function(format!("chain-{k}"), |b| {
            if !reported {
                reported = true;
                let outcome = problem.search(&limits);
                let nodes: Vec<usize> = outcome.search.iterations.iter().map(|i| i.nodes).collect();
                eprintln!(
                    "chain of {k}: e-nodes per iteration {nodes:?} ({})",
                    outcome.search.summary.stop
                );
            }
            b.iter(|| black_box(problem.search(&limits)).search.summary.nodes)
        });
    }
    group.finish();
}

criterion_group!(benches, eqsat, growth);
criterion_main!(benches);
