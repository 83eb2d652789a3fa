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
//! previous one), and the memory limit every [`APPLICATIONS_PER_MEMORY_CHECK`] applications and
//! between rules. A stopped pass still rebuilds, so the e-graph is always left consistent.
//! Memory is the process's resident set, polled from `/proc` where available.

use crate::egraph::RiseEGraph;
use crate::rewrite::{Assumptions, Matches, Rule};
use crate::schedule::{Scheduler, SchedulerState, Strategy};
use crate::stats::{IterationStats, RuleCounts, SearchStats, Summary};
use std::fmt;
use std::time::{Duration, Instant};

/// When a search must stop. Part of a search's statistics ([`SearchStats::limits`]); the JSON
/// holds `time_ms`, `nodes`, `iterations` and `memory_bytes`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Limits {
    /// Wall-clock time.
    #[serde(rename = "time_ms", serialize_with = "crate::stats::serialize_ms")]
    pub time: Duration,
    /// E-nodes in the e-graph.
    pub nodes: usize,
    /// Iterations.
    pub iterations: usize,
    /// Resident memory of the process, in bytes.
    #[serde(rename = "memory_bytes")]
    pub memory: u64,
    /// Matches applied per rule and iteration (the rest wait for the next iteration).
    #[serde(skip)]
    pub matches_per_rule: usize,
    /// Passes of the reduction rules alone after each pass of every rule (see the module
    /// documentation); 0 turns them off.
    #[serde(skip)]
    pub reduction_passes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            time: Duration::from_secs(10),
            nodes: 1_000_000,
            iterations: 40,
            memory: crate::support::memory::default_limit(),
            matches_per_rule: 1_000_000,
            reduction_passes: 1,
        }
    }
}

/// Why a search stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The goal was reached.
    Goal,
    /// An iteration changed nothing: every rule's consequences are in the e-graph.
    Saturated,
    /// The time limit.
    TimeLimit,
    /// The e-node limit.
    NodeLimit,
    /// The iteration limit.
    IterationLimit,
    /// The memory limit.
    MemoryLimit,
}

impl StopReason {
    /// The name of the limit that stopped the search, if one did.
    pub fn limit_name(self) -> Option<&'static str> {
        match self {
            StopReason::TimeLimit => Some("time"),
            StopReason::NodeLimit => Some("nodes"),
            StopReason::IterationLimit => Some("iterations"),
            StopReason::MemoryLimit => Some("memory"),
            StopReason::Goal | StopReason::Saturated => None,
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.limit_name() {
            Some(l) => write!(f, "{l} limit"),
            None => f.write_str(if *self == StopReason::Goal {
                "goal reached"
            } else {
                "saturated"
            }),
        }
    }
}

/// Applications between two polls of the resident memory.
pub const APPLICATIONS_PER_MEMORY_CHECK: usize = 256;

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

/// How close an e-graph is to a search's goal, for the schedulers that look ahead
/// ([`Scheduler::Mcts`]): the goal's root class, and the progress toward the goal, from 0
/// (nothing of it) to 1 (reached).
pub struct Guide<'a> {
    /// The class the goal is about (the start term's).
    pub root: egg::Id,
    /// Progress toward the goal, in `[0, 1]`.
    pub progress: &'a dyn Fn(&RiseEGraph) -> f64,
    /// What the goal check allocates per e-class id the e-graph has handed out (a sketch
    /// check: a table entry per sketch node), in bytes: the memory limit leaves room for it
    /// (0 for a check that allocates little).
    pub goal_bytes_per_id: u64,
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
    let mut budget = Budget {
        start: Instant::now(),
        limits,
        last_rebuild: Duration::ZERO,
        rebuild_per_node: Duration::ZERO,
        largest_rebuild: 0,
        nodes_at_rebuild: 0,
        memo_at_rebuild: 0,
        last_goal: Duration::ZERO,
        last_goal_nodes: 0,
        goal_bytes_per_id: guide.map_or(0, |g| g.goal_bytes_per_id),
    };
    budget.rebuild(egraph);
    let reductions: Vec<&Rule> = rules.iter().filter(|r| r.is_reduction()).collect();
    let searched: Vec<&Rule> = rules.iter().filter(|r| !r.is_reduction()).collect();
    let all: Vec<&Rule> = rules.iter().collect();
    let mut scheduling = SchedulerState::new(*strategy, rules.len());
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
        if budget.goal_over_memory(egraph) {
            break StopReason::MemoryLimit;
        }
        if budget.check_goal(egraph, goal) {
            break StopReason::Goal;
        }
        if iterations.len() >= limits.iterations {
            break StopReason::IterationLimit;
        }
        if let Some(reason) = budget.exceeded(egraph) {
            break reason;
        }
        let began = Instant::now();
        let mut applied = RuleCounts::default();
        let (outcome, changed) = match strategy.scheduler {
            Scheduler::Mcts {
                budget: simulations,
                depth,
            } => {
                let search = crate::mcts::Search {
                    rules: &searched,
                    reductions: &reductions,
                    simulations,
                    depth,
                    guide,
                };
                let outcome = search.step(
                    egraph,
                    &mut budget,
                    &mut scheduling.rng,
                    assumptions,
                    goal,
                    &mut applied,
                );
                let changed = outcome.changed;
                (outcome, changed)
            }
            _ => {
                let mut outcome = budget.pass(
                    egraph,
                    &all,
                    Some(&mut scheduling),
                    assumptions,
                    &mut applied,
                );
                let changed = outcome.changed;
                outcome = budget.catch_up(egraph, &reductions, outcome, assumptions, &mut applied);
                (outcome, changed)
            }
        };
        let may_be_saturated = scheduling.end_iteration(changed);
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
            break if !budget.goal_over_memory(egraph) && budget.check_goal(egraph, goal) {
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
            break if budget.goal_over_memory(egraph) {
                StopReason::MemoryLimit
            } else if budget.check_goal(egraph, goal) {
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
        time: budget.start.elapsed(),
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
        scheduler: strategy.scheduler.to_string(),
        seed: strategy.scheduler.is_random().then_some(strategy.seed),
    }
}

/// What one pass (search every rule of a set, apply every match, rebuild) did.
pub(crate) struct PassOutcome {
    /// Whether some application changed the e-graph.
    pub(crate) changed: bool,
    /// The limit that interrupted the pass, if one did.
    pub(crate) stopped: Option<StopReason>,
}

/// The limits of one search and the clock they are measured on. A simulation of the Monte Carlo
/// tree search runs on a clone of the e-graph with a clone of the budget (the same clock and
/// limits, its own measurements of the e-graph it grows).
#[derive(Clone)]
pub(crate) struct Budget<'a> {
    start: Instant,
    pub(crate) limits: &'a Limits,
    /// How long the last rebuild took: a stopped pass must leave time for its own.
    last_rebuild: Duration,
    /// Rebuild time per added e-node, measured on the rebuild with the most added e-nodes so
    /// far (small rebuilds are dominated by fixed costs and would overstate it).
    rebuild_per_node: Duration,
    /// E-nodes added before that rebuild.
    largest_rebuild: usize,
    /// E-nodes in the classes after the last rebuild.
    nodes_at_rebuild: usize,
    /// Size of egg's hash-cons memo after the last rebuild: every e-node added since then
    /// grows it by one.
    memo_at_rebuild: usize,
    /// How long the last goal check took.
    last_goal: Duration,
    /// E-nodes of the e-graph it checked.
    last_goal_nodes: usize,
    /// What the goal check allocates per e-class id ([`Guide::goal_bytes_per_id`]).
    goal_bytes_per_id: u64,
}

impl Budget<'_> {
    /// Whether the time is up, leaving room for the rebuild that must follow and the goal
    /// check after it.
    pub(crate) fn out_of_time(&self, egraph: &RiseEGraph) -> bool {
        self.start.elapsed() + self.rebuild_estimate(egraph) + self.goal_estimate(egraph)
            >= self.limits.time
    }

    /// How long the goal check after the next rebuild would take: the last check's time,
    /// grown with the square of the e-graph's growth since (a sketch check visits every e-node
    /// once per sketch node, and its fixpoints take more rounds on larger e-graphs).
    fn goal_estimate(&self, egraph: &RiseEGraph) -> Duration {
        let growth = self.nodes(egraph) as f64 / self.last_goal_nodes.max(1) as f64;
        self.last_goal.mul_f64(growth.max(1.0).powi(2))
    }

    /// Checks the goal on `egraph`, measuring how long the check takes.
    pub(crate) fn check_goal(
        &mut self,
        egraph: &RiseEGraph,
        goal: &mut dyn FnMut(&RiseEGraph) -> bool,
    ) -> bool {
        let began = Instant::now();
        let reached = goal(egraph);
        self.last_goal = began.elapsed();
        self.last_goal_nodes = egraph.total_number_of_nodes();
        reached
    }

    /// How long rebuilding now would take: rebuild time grows with the e-nodes added since the
    /// last rebuild, at the rate measured on the largest rebuild so far, with half as much again
    /// for safety (and at least as long as the last rebuild).
    fn rebuild_estimate(&self, egraph: &RiseEGraph) -> Duration {
        let added = egraph.total_size().saturating_sub(self.memo_at_rebuild) as u32;
        (self.rebuild_per_node * added * 3 / 2).max(self.last_rebuild)
    }

    /// An upper bound on the e-nodes the classes will hold after the next rebuild, which only
    /// removes duplicates: the count after the last rebuild plus every node added since. (The
    /// memo alone overstates it by up to 2x on large e-graphs: it keeps entries of nodes that
    /// rebuilding made identical to others.)
    pub(crate) fn nodes(&self, egraph: &RiseEGraph) -> usize {
        self.nodes_at_rebuild + egraph.total_size().saturating_sub(self.memo_at_rebuild)
    }

    fn over_nodes(&self, egraph: &RiseEGraph) -> bool {
        self.nodes(egraph) >= self.limits.nodes
    }

    /// Rebuilds the e-graph and takes the measurements the limits are checked against.
    fn rebuild(&mut self, egraph: &mut RiseEGraph) {
        let added = egraph.total_size().saturating_sub(self.memo_at_rebuild);
        let rebuilding = Instant::now();
        egraph.rebuild();
        self.last_rebuild = rebuilding.elapsed();
        if added >= self.largest_rebuild.max(1000) {
            self.largest_rebuild = added;
            self.rebuild_per_node = self.last_rebuild / added as u32;
        }

        self.nodes_at_rebuild = egraph.total_number_of_nodes();
        self.memo_at_rebuild = egraph.total_size();
    }

    /// Whether the resident memory, plus what egg's hash tables are about to allocate when
    /// they next grow ([`crate::egraph::imminent_growth`]), reaches the memory limit.
    fn over_memory(&self, egraph: &RiseEGraph) -> bool {
        let growth = crate::egraph::imminent_growth(egraph) as u64;
        let extra = growth.saturating_add(self.goal_bytes(egraph));
        crate::support::memory::would_exceed(self.limits.memory, extra).is_some()
    }

    /// What the goal check would allocate on `egraph`: its tables have an entry per e-class id
    /// ever handed out (a step with a 2 GiB limit under a 3 GB address space aborted in the
    /// sketch check of an e-graph of 2.7 million e-nodes).
    fn goal_bytes(&self, egraph: &RiseEGraph) -> u64 {
        self.goal_bytes_per_id
            .saturating_mul(egraph.nodes().len() as u64)
    }

    /// Whether the goal check would take the process past the memory limit.
    pub(crate) fn goal_over_memory(&self, egraph: &RiseEGraph) -> bool {
        self.goal_bytes_per_id > 0
            && crate::support::memory::would_exceed(self.limits.memory, self.goal_bytes(egraph))
                .is_some()
    }

    /// The first limit that is reached, if any.
    pub(crate) fn exceeded(&self, egraph: &RiseEGraph) -> Option<StopReason> {
        if self.over_nodes(egraph) {
            Some(StopReason::NodeLimit)
        } else if self.out_of_time(egraph) {
            Some(StopReason::TimeLimit)
        } else if self.over_memory(egraph) {
            Some(StopReason::MemoryLimit)
        } else {
            None
        }
    }

    /// The reduction passes that follow a pass of all rules (see the module documentation),
    /// as long as the previous pass changed something and no limit stopped it; returns the
    /// last pass's outcome.
    pub(crate) fn catch_up(
        &mut self,
        egraph: &mut RiseEGraph,
        reductions: &[&Rule],
        mut outcome: PassOutcome,
        assumptions: &mut Assumptions,
        applied: &mut RuleCounts,
    ) -> PassOutcome {
        for _ in 0..self.limits.reduction_passes {
            if outcome.stopped.is_some() || !outcome.changed || reductions.is_empty() {
                break;
            }
            outcome = self.pass(egraph, reductions, None, assumptions, applied);
        }
        outcome
    }

    /// Searches every rule of `rules`, applies the matches (those the scheduler chooses, when
    /// one is given: rule `i` of `rules` is the scheduler's rule `i`), and rebuilds, stopping as
    /// soon as a limit is reached. Rewrites that changed the e-graph are added to `applied`.
    pub(crate) fn pass(
        &mut self,
        egraph: &mut RiseEGraph,
        rules: &[&Rule],
        mut scheduling: Option<&mut SchedulerState>,
        assumptions: &mut Assumptions,
        applied: &mut RuleCounts,
    ) -> PassOutcome {
        let mut stopped = None;
        let mut all_matches = Vec::with_capacity(rules.len());
        for (r, rule) in rules.iter().enumerate() {
            let mut scheduled = scheduling.as_deref_mut().filter(|_| !rule.is_reduction());
            if scheduled.as_mut().is_some_and(|s| s.banned(r)) {
                all_matches.push(Matches::default());
                continue;
            }
            let mut checks = 0usize;
            let mut interrupted = None;
            let found = rule.search_compact(egraph, self.limits.matches_per_rule, &mut || {
                checks += 1;
                interrupted = if self.out_of_time(egraph) {
                    Some(StopReason::TimeLimit)
                } else if checks % 16 == 0 && self.over_memory(egraph) {
                    Some(StopReason::MemoryLimit)
                } else {
                    None
                };
                interrupted.is_some()
            });
            match found {
                Some(ms) => all_matches.push(match scheduled.and_then(|s| s.choose(r, ms.len())) {
                    Some(chosen) => ms.select(&chosen),
                    None => ms,
                }),
                None => {
                    stopped = interrupted;
                    break;
                }
            }
            if self.over_memory(egraph) {
                stopped = Some(StopReason::MemoryLimit);
                break;
            }
        }
        let mut changed = false;
        if stopped.is_none() {
            // Each rule's matches are freed once applied: the e-graph grows while the later
            // rules apply, and the peak is at the end of the pass.
            'rules: for (rule, ms) in rules.iter().zip(std::mem::take(&mut all_matches)) {
                let mut count = 0;
                for k in 0..ms.len() {
                    if let Ok(true) = rule.apply(egraph, &ms.get(k), assumptions) {
                        count += 1;
                    }
                    stopped = if self.over_nodes(egraph) {
                        Some(StopReason::NodeLimit)
                    } else if self.out_of_time(egraph) {
                        Some(StopReason::TimeLimit)
                    } else if k % APPLICATIONS_PER_MEMORY_CHECK == APPLICATIONS_PER_MEMORY_CHECK - 1
                        && self.over_memory(egraph)
                    {
                        Some(StopReason::MemoryLimit)
                    } else {
                        None
                    };
                    if stopped.is_some() {
                        applied.add(&rule.name, count);
                        changed |= count > 0;
                        break 'rules;
                    }
                }
                applied.add(&rule.name, count);
                changed |= count > 0;
                if self.over_memory(egraph) {
                    stopped = Some(StopReason::MemoryLimit);
                    break;
                }
            }
        }
        drop(all_matches);
        self.rebuild(egraph);
        PassOutcome { changed, stopped }
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
