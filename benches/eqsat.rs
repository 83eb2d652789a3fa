//! Criterion benchmarks of equality saturation: one per goal of `examples/goals/`.
//!
//! Each benchmark times the whole search as `risec prove` runs it, from the (normalised) start
//! term: a fresh e-graph, the start term added, saturation until the goal is in the start's
//! e-class or a limit stops it. Parsing, elaboration, normalisation and building the rules happen
//! once, outside the timed part. The limits are `risec prove`'s defaults, so a goal that is not
//! found is timed up to the 10 s time limit; every benchmark first prints what one search found.
//!
//! ```sh
//! cargo bench --bench eqsat                       # all goals
//! cargo bench --bench eqsat -- map-fission-fusion # one goal
//! cargo bench --bench eqsat -- --measurement-time 2 --warm-up-time 1
//! ```

use criterion::{criterion_group, criterion_main, Criterion};
use risec::prove::{Problem, ProveOptions};
use risec::runner::Limits;
use std::hint::black_box;

/// A goal: its files' stem in `examples/goals/`, its rules, and whether to normalise.
struct Goal {
    name: &'static str,
    rules: &'static str,
    normalize: bool,
}

/// The goals, with the rules their files' comments name.
const GOALS: &[Goal] = &[
    Goal {
        name: "map-fission-fusion",
        rules: "map-fusion,map-fission,eta,beta",
        normalize: true,
    },
    Goal {
        // Without normalisation: the normaliser alone would reach the goal.
        name: "lambda-compose-many",
        rules: "eta,beta",
        normalize: false,
    },
    Goal {
        name: "binomial",
        rules: "transpose-pair-elimination,map-fusion,map-fission,slide-before-map,\
                map-slide-before-transpose,slide-before-map-map-f,separate-dot-vh,\
                separate-dot-hv,eta,beta",
        normalize: true,
    },
];

fn load(goal: &Goal, limits: &Limits) -> Problem {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/goals");
    let options = ProveOptions {
        rules: goal.rules.to_string(),
        normalize: goal.normalize,
        limits: limits.clone(),
        ..ProveOptions::default()
    };
    let start = format!("{dir}/{}.start.rise", goal.name);
    let target = format!("{dir}/{}.goal.rise", goal.name);
    Problem::load(&start, &target, &options).unwrap_or_else(|e| panic!("goal {}: {e}", goal.name))
}

fn eqsat(c: &mut Criterion) {
    let limits = Limits::default();
    let mut group = c.benchmark_group("eqsat");
    // Searches take milliseconds to seconds: few samples, each a whole search.
    group.sample_size(10);
    for goal in GOALS {
        let problem = load(goal, &limits);
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
                    outcome.report.nodes,
                    outcome.report.rewrites()
                );
            }
            b.iter(|| black_box(problem.search(&limits)).found)
        });
    }
    group.finish();
}

criterion_group!(benches, eqsat);
criterion_main!(benches);
