//! The equality saturation loop: search every rule, apply every match, rebuild, repeat, until the
//! goal is reached, nothing changes, or a limit (time, e-nodes, iterations, memory) stops it.
//!
//! Every rule is searched and applied in every iteration (no backoff: a scheduler that bans rules
//! can hide exactly the rewrite a sketch needs). Limits are checked after each rule's batch of
//! applications, so the node limit is overshot by at most one rule's batch. Memory is the
//! process's resident set, polled from `/proc` where available.

use crate::egraph::RiseEGraph;
use crate::rewrite::{Assumptions, Rule};
use std::fmt;
use std::time::{Duration, Instant};

/// When a search must stop.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Wall-clock time.
    pub time: Duration,
    /// E-nodes in the e-graph.
    pub nodes: usize,
    /// Iterations.
    pub iterations: usize,
    /// Resident memory of the process, in bytes.
    pub memory: u64,
    /// Matches applied per rule and iteration (the rest wait for the next iteration).
    pub matches_per_rule: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            time: Duration::from_secs(10),
            nodes: 1_000_000,
            iterations: 40,
            memory: 4 << 30,
            matches_per_rule: 1_000_000,
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

/// What one iteration did.
#[derive(Clone, Debug)]
pub struct IterationStats {
    /// E-nodes after the iteration.
    pub nodes: usize,
    /// E-classes after the iteration.
    pub classes: usize,
    /// Rewrites that changed the e-graph, per rule (rules with none are left out).
    pub applied: Vec<(String, usize)>,
    /// Time the iteration took.
    pub time: Duration,
    /// Resident memory after the iteration, when known.
    pub memory: Option<u64>,
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct Report {
    /// Why it stopped.
    pub stop: StopReason,
    /// One entry per iteration run.
    pub iterations: Vec<IterationStats>,
    /// Total time.
    pub time: Duration,
    /// E-nodes at the end.
    pub nodes: usize,
    /// E-classes at the end.
    pub classes: usize,
    /// Peak resident memory of the process, when known.
    pub peak_memory: Option<u64>,
}

impl Report {
    /// Total rewrites that changed the e-graph.
    pub fn rewrites(&self) -> usize {
        self.iterations
            .iter()
            .flat_map(|i| i.applied.iter().map(|(_, n)| n))
            .sum()
    }
}

/// Resident memory of this process in bytes (Linux), or `None`.
pub fn resident_memory() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Peak resident memory of this process in bytes (Linux), or `None`.
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Runs equality saturation on `egraph` with `rules` until `goal` holds or the search stops.
pub fn run(
    egraph: &mut RiseEGraph,
    rules: &[Rule],
    limits: &Limits,
    assumptions: &mut Assumptions,
    goal: &mut dyn FnMut(&RiseEGraph) -> bool,
) -> Report {
    let start = Instant::now();
    egraph.rebuild();
    let mut iterations = Vec::new();
    let stop = loop {
        if goal(egraph) {
            break StopReason::Goal;
        }
        if iterations.len() >= limits.iterations {
            break StopReason::IterationLimit;
        }
        let began = Instant::now();
        let matches: Vec<_> = rules
            .iter()
            .map(|r| r.search(egraph, limits.matches_per_rule))
            .collect();
        let mut applied = Vec::new();
        let mut changed = false;
        let mut limit_hit = None;
        for (rule, ms) in rules.iter().zip(&matches) {
            let mut count = 0;
            for m in ms {
                if let Ok(true) = rule.apply(egraph, m, assumptions) {
                    count += 1;
                }
            }
            if count > 0 {
                changed = true;
                applied.push((rule.name.clone(), count));
            }
            limit_hit = check_limits(egraph, limits, start);
            if limit_hit.is_some() {
                break;
            }
        }
        egraph.rebuild();
        iterations.push(IterationStats {
            nodes: egraph.total_number_of_nodes(),
            classes: egraph.number_of_classes(),
            applied,
            time: began.elapsed(),
            memory: resident_memory(),
        });
        if let Some(reason) = limit_hit {
            break if goal(egraph) {
                StopReason::Goal
            } else {
                reason
            };
        }
        if !changed {
            break if goal(egraph) {
                StopReason::Goal
            } else {
                StopReason::Saturated
            };
        }
    };
    Report {
        stop,
        iterations,
        time: start.elapsed(),
        nodes: egraph.total_number_of_nodes(),
        classes: egraph.number_of_classes(),
        peak_memory: peak_memory(),
    }
}

fn check_limits(egraph: &RiseEGraph, limits: &Limits, start: Instant) -> Option<StopReason> {
    if egraph.total_size() > limits.nodes {
        Some(StopReason::NodeLimit)
    } else if start.elapsed() > limits.time {
        Some(StopReason::TimeLimit)
    } else if resident_memory().is_some_and(|m| m > limits.memory) {
        Some(StopReason::MemoryLimit)
    } else {
        None
    }
}
