//! The equality saturation loop: search every rule, apply every match, rebuild, repeat, until the
//! goal is reached, nothing changes, or a limit (time, e-nodes, iterations, memory) stops it.
//!
//! By default every rule is searched and every match applied in every iteration: a scheduler
//! that bans rules or samples matches can hide exactly the rewrite a sketch needs. The other
//! schedulers ([`super::schedule`]: back-off, sampling, Monte Carlo tree search) are there for
//! searches that this grows too fast; [`run_with`] takes one.
//!
//! # Reductions catch up before the next iteration
//!
//! Each iteration is one pass of every rule followed by [`Limits::reduction_passes`] passes of
//! the *reduction* rules alone ([`Rule::is_reduction`]: beta, nat beta, eta).
//!
//! Root cause of the exponential growth this fixes (issue 8): rules whose right-hand side wraps
//! or applies a pattern variable create administrative redexes. `map-fusion` builds
//! `fun x => f (g x)`, which is a beta redex as soon as `g` (or `f`) is a lambda, and
//! `map-fission` of `map (fun x => f x)` introduces `map (fun x => x)`, which every later fusion
//! turns into `(fun y => y) (g x)`. Beta and eta reduce such a redex one iteration after it was
//! created, but in that same iteration the structural rules already match the new class and
//! shift or substitute its only representative, the unreduced one (extraction-based shifting
//! copies the smallest term, and the reduct is not yet in the class). Every iteration thus
//! wrapped one more redex layer around shifted copies of recently created classes: the
//! e-graph held ever deeper towers of unreduced copies of the same few programs, each new
//! class a fresh target for fusion and fission, and it doubled per iteration (chain of 3
//! mapped functions, four rules: 459,684 e-nodes after 20 iterations; the same algorithm
//! rebuilt on egg 0.11 outside risec grows identically). With one reduction pass between the
//! passes of all rules, every class that a structural rule extracts from already holds its
//! reduct, the towers never form, and growth is linear (320 e-nodes after 20 iterations).
//!
//! # Limits hold
//!
//! The e-node limit is checked after every single application (the e-graph then stops growing
//! within one right-hand side of the limit), the time limit between applications and every few
//! hundred e-classes inside a search (leaving room for the final rebuild, estimated from the
//! previous one), and the memory limit every [`crate::pass::APPLICATIONS_PER_MEMORY_CHECK`] applications and
//! between rules. A stopped pass still rebuilds, so the e-graph is always left consistent.
//! Memory is the process's resident set, polled from `/proc` where available.

use crate::egraph::RiseEGraph;
use crate::limits::{Limits, StopReason};
use crate::pass::LimitWatch;
use crate::rewrite::{Assumptions, Rule};
use crate::schedule::{Guide, Iteration, RuleScheduler, Strategy};
use crate::stats::{IterationStats, RuleCounts, SearchStats, Summary};
use std::time::{Duration, Instant};

/// Runs equality saturation on `egraph` with `rules` until `goal` holds or the search stops, and
/// returns the search's statistics (the stop reason is `summary.stop`; `summary.message` is the
/// stop reason's text and `summary.assumed` empty, for the caller to fill in).
///
/// `goal` only says whether the goal is reached: it is checked on the e-graph as given and after
/// every iteration. `progress` is the hook that watches the search: it sees the e-graph as given
/// (iteration 0: e-nodes and e-classes, no rewrites) and then every iteration's statistics as
/// soon as the iteration ends, each time just before `goal` is checked on that e-graph.
pub fn run(
    egraph: &mut RiseEGraph,
    rules: &[Rule],
    limits: &Limits,
    assumptions: &mut Assumptions,
    goal: &mut dyn FnMut(&RiseEGraph) -> bool,
    progress: &mut dyn FnMut(&IterationStats),
) -> SearchStats {
    run_with(
        egraph,
        rules,
        limits,
        &Strategy::default(),
        None,
        assumptions,
        goal,
        progress,
    )
}

/// [`run`] with a scheduler ([`Strategy`]) and, for the schedulers that look ahead, a measure
/// of progress toward the goal.
#[allow(clippy::too_many_arguments)]
pub fn run_with(
    egraph: &mut RiseEGraph,
    rules: &[Rule],
    limits: &Limits,
    strategy: &Strategy,
    guide: Option<&Guide>,
    assumptions: &mut Assumptions,
    goal: &mut dyn FnMut(&RiseEGraph) -> bool,
    progress: &mut dyn FnMut(&IterationStats),
) -> SearchStats {
    let mut scheduler = strategy.build();
    run_scheduled(
        egraph,
        rules,
        limits,
        scheduler.as_mut(),
        guide,
        assumptions,
        goal,
        progress,
    )
}

/// [`run`] with any [`RuleScheduler`]: the loop asks it to run each iteration and whether an
/// iteration that changed nothing is saturation; it knows nothing else of it.
#[allow(clippy::too_many_arguments)]
pub fn run_scheduled(
    egraph: &mut RiseEGraph,
    rules: &[Rule],
    limits: &Limits,
    scheduler: &mut dyn RuleScheduler,
    guide: Option<&Guide>,
    assumptions: &mut Assumptions,
    goal: &mut dyn FnMut(&RiseEGraph) -> bool,
    progress: &mut dyn FnMut(&IterationStats),
) -> SearchStats {
    let mut watch = LimitWatch::new(limits, guide.map_or(0, |g| g.goal_bytes_per_id));
    watch.rebuild(egraph);
    let reductions: Vec<&Rule> = rules.iter().filter(|r| r.is_reduction()).collect();
    let searched: Vec<&Rule> = rules.iter().filter(|r| !r.is_reduction()).collect();
    let all: Vec<&Rule> = rules.iter().collect();
    let mut iterations: Vec<IterationStats> = Vec::new();
    progress(&IterationStats {
        iteration: 0,
        nodes: egraph.total_number_of_nodes(),
        classes: egraph.number_of_classes(),
        rewrites: 0,
        rewrites_per_rule: RuleCounts::default(),
        time: Duration::ZERO,
        memory_bytes: crate::support::memory::resident_memory(),
    });
    let stop = loop {
        if watch.goal_over_memory(egraph) {
            break StopReason::MemoryLimit;
        }
        if watch.check_goal(egraph, goal) {
            break StopReason::Goal;
        }
        if iterations.len() >= limits.iterations {
            break StopReason::IterationLimit;
        }
        if let Some(reason) = watch.exceeded(egraph) {
            break reason;
        }
        let began = Instant::now();
        let mut applied = RuleCounts::default();
        let outcome = scheduler.iterate(&mut Iteration {
            egraph,
            watch: &mut watch,
            rules: &all,
            searched: &searched,
            reductions: &reductions,
            guide,
            assumptions,
            goal,
            applied: &mut applied,
        });
        let changed = outcome.changed;
        let may_be_saturated = scheduler.end_iteration(changed);
        let done = IterationStats {
            iteration: iterations.len() + 1,
            nodes: egraph.total_number_of_nodes(),
            classes: egraph.number_of_classes(),
            rewrites: applied.total(),
            rewrites_per_rule: applied,
            time: began.elapsed(),
            memory_bytes: crate::support::memory::resident_memory(),
        };
        progress(&done);
        iterations.push(done);
        if let Some(reason) = outcome.stopped {
            // No goal check that would pass the memory limit (its tables abort the process
            // where the address space is limited).
            break if !watch.goal_over_memory(egraph) && watch.check_goal(egraph, goal) {
                StopReason::Goal
            } else {
                reason
            };
        }
        if !changed && !may_be_saturated {
            // Matches were held back (sampled out, or their rule banned): the next iteration
            // applies every match, and only if that changes nothing either is it saturation.
            continue;
        }
        if !changed {
            break if watch.goal_over_memory(egraph) {
                StopReason::MemoryLimit
            } else if watch.check_goal(egraph, goal) {
                StopReason::Goal
            } else {
                StopReason::Saturated
            };
        }
    };
    let summary = Summary {
        found: stop == StopReason::Goal,
        stop,
        limit: stop.limit_name(),
        message: stop.to_string(),
        iterations: iterations.len(),
        nodes: egraph.total_number_of_nodes(),
        classes: egraph.number_of_classes(),
        rewrites: iterations.iter().map(|i| i.rewrites).sum(),
        rewrites_per_rule: RuleCounts::totals(rules.iter().map(|r| r.name.as_str()), &iterations),
        time: watch.elapsed(),
        peak_memory_bytes: crate::support::memory::peak_memory(),
        assumed: Vec::new(),
    };
    SearchStats {
        name: None,
        sketch: None,
        limits: limits.clone(),
        iterations,
        summary,
        cost: None,
        step_time: None,
        scheduler: scheduler.name(),
        seed: scheduler.seed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::SourceFile;

    #[test]
    fn command_line_defaults_are_the_runner_defaults() {
        // `risec prove` writes its defaults as text: `--time 10s`, and the memory default is
        // the process's.
        let defaults = Limits::default();
        assert_eq!(
            crate::support::units::parse_duration("10s").unwrap(),
            defaults.time
        );
        assert_eq!(crate::support::memory::default_limit(), defaults.memory);
    }

    /// Runs map fission on a one-map program with a goal check that allocates `goal_bytes`
    /// per e-class id; returns why the search stopped and how often the goal was checked.
    fn search_with_goal_bytes(goal_bytes: u64) -> (StopReason, usize) {
        let src = "def f {n : nat} (xs : n.f32) : n.f32 = xs |> map (fun x => x * 2.0)";
        let p =
            crate::frontend::load::compile_source(&SourceFile::new("t.rise", src), None).unwrap();
        let mut eg = RiseEGraph::default();
        let term = crate::core::normalize::program_normal(&p.term).unwrap();
        let root = crate::egraph::add_expr(&mut eg, &term);
        let rules = crate::rules::lookup_all("map-fission").unwrap();
        let progress = |_: &RiseEGraph| 0.0;
        let guide = Guide {
            root,
            progress: &progress,
            goal_bytes_per_id: goal_bytes,
        };
        let mut checks = 0;
        let stats = run_with(
            &mut eg,
            &rules,
            &Limits::default(),
            &Strategy::default(),
            Some(&guide),
            &mut Assumptions::default(),
            &mut |_| {
                checks += 1;
                false
            },
            &mut |_| {},
        );
        (stats.summary.stop, checks)
    }

    #[test]
    fn no_goal_check_passes_the_memory_limit() {
        // A sketch check's tables for every e-class id: far past any memory limit here.
        let (stop, checks) = search_with_goal_bytes(u64::MAX / 4);
        assert_eq!((stop, checks), (StopReason::MemoryLimit, 0));
        // A check that allocates little is made, and the search ends on its own.
        let (stop, checks) = search_with_goal_bytes(0);
        assert_ne!(stop, StopReason::MemoryLimit);
        assert!(checks > 0);
    }
}
