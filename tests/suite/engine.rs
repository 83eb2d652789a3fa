//! The equality-saturation engine's guarantees (issue 8), checked on counts, never on time:
//! bounded growth on the chain workloads, every shipped goal still found within today's
//! e-nodes and iterations, idempotent rule applications, and limits that hold.

use risec_core::support::memory::resident_memory;
use risec_eqsat::egraph::{self, RiseEGraph};
use risec_eqsat::growth::{chain_problem, GOALS};
use risec_eqsat::limits::{Limits, StopReason};
use risec_eqsat::rewrite::Assumptions;
use risec_eqsat::runner;
use std::time::Duration;

fn iterations(n: usize) -> Limits {
    Limits {
        iterations: n,
        time: Duration::from_secs(3600),
        ..Limits::default()
    }
}

fn goals_dir() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/examples/goals")
}

#[test]
fn the_chain_of_three_stays_under_2000_enodes_for_20_iterations() {
    let out = chain_problem(3).search(&iterations(20));
    assert!(!out.found());
    assert!(matches!(
        out.search.summary.stop,
        StopReason::IterationLimit | StopReason::Saturated
    ));
    for (i, it) in out.search.iterations.iter().enumerate() {
        assert!(
            it.nodes <= 2000,
            "iteration {}: {} e-nodes",
            i + 1,
            it.nodes
        );
    }
}

#[test]
fn chains_of_four_and_five_grow_at_most_polynomially() {
    for k in [4, 5] {
        let out = chain_problem(k).search(&iterations(24));
        let nodes: Vec<usize> = out.search.iterations.iter().map(|i| i.nodes).collect();
        assert_eq!(
            nodes.len(),
            24,
            "chain of {k} stopped early: {:?}",
            out.search.summary.stop
        );
        // Doubling the iterations at most triples the e-graph (exponential growth, as before
        // issue 8, multiplied it by thousands between iterations 12 and 24).
        assert!(
            nodes[23] <= 3 * nodes[11],
            "chain of {k}: {} e-nodes after 12 iterations, {} after 24",
            nodes[11],
            nodes[23]
        );
    }
}

/// E-nodes and iterations each shipped goal needed before issue 8 (`eqsat_table goals`).
const BEFORE: &[(&str, usize, usize)] = &[
    ("map-fission-fusion", 183, 3),
    ("lambda-compose-many", 175, 5),
    ("binomial", 2385, 14),
    ("binomial-parametric", 22148, 11),
];

#[test]
fn every_shipped_goal_is_found_with_no_more_enodes_or_iterations_than_before() {
    for goal in GOALS {
        let problem = goal.problem(goals_dir()).unwrap();
        let out = problem.search(&iterations(40));
        assert!(out.found(), "{}: {}", goal.name, out.headline());
        let &(_, nodes, iters) = BEFORE
            .iter()
            .find(|b| b.0 == goal.name)
            .unwrap_or_else(|| panic!("no figures for goal {}", goal.name));
        assert!(
            out.search.summary.nodes <= nodes,
            "{}: {} e-nodes",
            goal.name,
            out.search.summary.nodes
        );
        assert!(
            out.search.iterations.len() <= iters,
            "{}: {} iterations",
            goal.name,
            out.search.iterations.len()
        );
    }
    // Every start/goal pair has its figures (the tiling goals are sketch examples, tested in
    // tests/suite/search_strategies.rs).
    let files = std::fs::read_dir(goals_dir())
        .unwrap()
        .filter(|f| {
            let name = f.as_ref().unwrap().file_name().into_string().unwrap();
            name.ends_with(".start.rise") || name.ends_with(".goal.rise")
        })
        .count();
    assert_eq!(files, 2 * GOALS.len());
}

#[test]
fn a_second_application_of_the_same_match_adds_no_enode() {
    // Grow the chain of three a few iterations, then apply every match of every rule twice,
    // with a rebuild in between: the second application must find everything in place.
    let problem = chain_problem(3);
    let mut eg = RiseEGraph::default();
    egraph::add_expr(&mut eg, &problem.start_term);
    let mut assumptions = Assumptions::default();
    runner::run(
        &mut eg,
        &problem.rules,
        &iterations(6),
        &mut assumptions,
        &mut |_| false,
        &mut |_| {},
    );
    let mut applied = 0;
    for rule in &problem.rules {
        for m in rule.search(&eg, usize::MAX) {
            let _ = rule.apply(&mut eg, &m, &mut assumptions);
            eg.rebuild();
            let before = eg.total_size();
            let second = rule.apply(&mut eg, &m, &mut assumptions);
            assert_eq!(second, Ok(false), "{} changed the e-graph twice", rule.name);
            assert_eq!(eg.total_size(), before, "{} added e-nodes twice", rule.name);
            applied += 1;
        }
    }
    assert!(applied > 50, "only {applied} matches");
}

/// Every rule of the library on the chain of five: a search that cannot finish.
fn unbounded() -> risec_eqsat::prove::Problem {
    let chain = chain_problem(5);
    let rules: Vec<String> = risec_eqsat::rules::catalogue()
        .iter()
        .map(|r| {
            let args: Vec<&str> = r.params.iter().map(|_| "32").collect();
            if args.is_empty() {
                r.name.to_string()
            } else {
                format!("{}({})", r.name, args.join(","))
            }
        })
        .collect();
    let options = risec_eqsat::prove::ProveOptions {
        rules: rules.join(","),
        ..Default::default()
    };
    risec_eqsat::prove::Problem::new(chain.start, chain.goal, "chain", "reversed", &options)
        .unwrap()
}

#[test]
fn the_node_limit_holds_within_ten_percent() {
    let problem = unbounded();
    for limit in [5_000, 40_000] {
        let limits = Limits {
            nodes: limit,
            ..iterations(100)
        };
        let out = problem.search(&limits);
        assert_eq!(out.search.summary.stop, StopReason::NodeLimit);
        assert!(
            out.search.summary.nodes <= limit + limit / 10,
            "{} e-nodes",
            out.search.summary.nodes
        );
        // The limit stopped a batch that would have gone far beyond it.
        assert!(
            out.search.summary.nodes >= limit / 2,
            "{} e-nodes",
            out.search.summary.nodes
        );
    }
}

#[test]
fn a_spent_time_limit_stops_before_anything_is_applied() {
    let out = unbounded().search(&Limits {
        time: Duration::ZERO,
        ..Limits::default()
    });
    assert_eq!(out.search.summary.stop, StopReason::TimeLimit);
    assert!(out.search.iterations.is_empty());
    assert_eq!(out.search.summary.rewrites, 0);
}

#[test]
fn a_memory_limit_below_the_resident_set_stops_before_anything_is_applied() {
    let Some(rss) = resident_memory() else {
        return; // no /proc: nothing to measure
    };
    let out = unbounded().search(&Limits {
        memory: rss / 2,
        ..Limits::default()
    });
    assert_eq!(out.search.summary.stop, StopReason::MemoryLimit);
    assert_eq!(out.search.summary.rewrites, 0);
}
