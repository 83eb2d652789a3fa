//! What stops a search: its [`Limits`] (time, e-nodes, iterations, memory) and the
//! [`StopReason`] it ends with.

use std::fmt;
use std::time::Duration;

/// When a search must stop. Part of a search's statistics ([`crate::stats::SearchStats::limits`]); the JSON
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
