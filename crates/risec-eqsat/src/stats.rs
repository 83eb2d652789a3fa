//! Statistics of searches by equality saturation as plain data, one serialisable type per level,
//! written as JSON with [`serde_json`] by `--stats FILE` (of the main job and of `risec prove`):
//!
//! * [`IterationStats`]: one iteration of the saturation loop. The runner (`eqsat::runner`)
//!   builds one per iteration and passes each to its progress hook as it goes.
//! * [`SearchStats`]: one saturation run, what `runner::run` returns: its
//!   limits, every iteration, and the [`Summary`] (why it stopped, totals, time, peak memory,
//!   assumed facts). A guide step of the main job adds its name, its sketch and what extraction
//!   gave; `risec prove` runs one search.
//! * [`RunStats`]: a whole run, what `--stats` writes: what ran ([`RunInput`]), every search in
//!   order, and run-level totals.
//!
//! The JSON (fields in this order; `…` elided):
//!
//! ```text
//! {
//!   "program": "examples/matmul.rise", "sketch": "sketches/matmul/blocking.sk",   main job, or
//!   "start": "a.rise", "goal": "b.rise", "start_entry": "f", "goal_entry": "g",   risec prove
//!   "rules": ["map-fusion", …], "normalized": true,
//!   "found": true,                         every search reached its goal
//!   "steps": [                             one per search (risec prove: exactly one)
//!     {
//!       "name": "split", "sketch": "…",    guide steps only
//!       "limits": {"time_ms", "nodes", "iterations", "memory_bytes"},
//!       "iterations": [{"iteration", "nodes", "classes", "rewrites", "rewrites_per_rule",
//!                       "time_ms", "memory_bytes"}, …],
//!       "summary": {"found", "stop", "limit", "message", "iterations", "nodes", "classes",
//!                   "rewrites", "rewrites_per_rule", "time_ms", "peak_memory_bytes", "assumed"},
//!       "cost": 1234, "step_time_ms": 41.2  guide steps only: the extracted term's cost (when
//!     }                                    found), the step's wall time with extraction
//!   ],
//!   "facts": ["m/32", …],                  main job: the facts the result relies on (none
//!                                          when not found); prove: the facts assumed
//!   "iterations": 14, "rewrites": 5120,    summed over the steps
//!   "time_ms": 480.2,                      the whole run
//!   "peak_memory_bytes": 28311552          peak RSS of the process
//! }
//! ```
//!
//! Times are `f64` milliseconds, memory `u64` bytes (`null` where the platform does not tell),
//! and per-rule counts are JSON objects keyed by rule name in the order the rules were given.
//!
//! ```
//! use risec_eqsat::stats::RuleCounts;
//! let counts = RuleCounts(vec![("map-fusion".into(), 3), ("eta".into(), 0)]);
//! assert_eq!(serde_json::to_string(&counts).unwrap(), r#"{"map-fusion":3,"eta":0}"#);
//! ```

use crate::limits::{Limits, StopReason};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::time::Duration;

/// Rewrites per rule, in a fixed order (the order the rules were given); written as a JSON
/// object from rule name to count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleCounts(pub Vec<(String, u64)>);

impl RuleCounts {
    /// The sum over all rules.
    pub fn total(&self) -> u64 {
        self.0.iter().map(|(_, c)| c).sum()
    }

    /// The count of the rule named `name` (0 when absent).
    pub fn get(&self, name: &str) -> u64 {
        self.0
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, c)| c)
            .sum()
    }

    /// Adds `count` rewrites of `rule`, appending the rule when it is new and `count` is not 0
    /// (so that rules with none are left out of an iteration's tally).
    pub fn add(&mut self, rule: &str, count: u64) {
        if count == 0 {
            return;
        }
        match self.0.iter_mut().find(|(name, _)| name == rule) {
            Some((_, n)) => *n += count,
            None => self.0.push((rule.to_string(), count)),
        }
    }

    /// The totals over `iterations` of every rule of `rules`, in that order, each name once and
    /// rules with none included.
    pub fn totals<'a>(
        rules: impl IntoIterator<Item = &'a str>,
        iterations: &[IterationStats],
    ) -> RuleCounts {
        let mut out: Vec<(String, u64)> = Vec::new();
        for name in rules {
            if !out.iter().any(|(n, _)| n == name) {
                let count = iterations
                    .iter()
                    .map(|i| i.rewrites_per_rule.get(name))
                    .sum();
                out.push((name.to_string(), count));
            }
        }
        RuleCounts(out)
    }
}

impl Serialize for RuleCounts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, count) in &self.0 {
            map.serialize_entry(name, count)?;
        }
        map.end()
    }
}

/// Writes a duration as `f64` milliseconds (the `time_ms` fields).
pub(crate) fn serialize_ms<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64() * 1000.0)
}

fn serialize_opt_ms<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => serialize_ms(d, s),
        None => s.serialize_none(),
    }
}

/// Writes a value as its `Display` text (the stop reason: `goal reached`, `nodes limit`, …).
fn serialize_display<T: std::fmt::Display, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// What one iteration of a search did (also the runner's progress report).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct IterationStats {
    /// The iteration's number, from 1 (0 only in the progress report of the start state, before
    /// the first iteration).
    pub iteration: usize,
    /// E-nodes after the iteration.
    pub nodes: usize,
    /// E-classes after the iteration.
    pub classes: usize,
    /// Rewrites that changed the e-graph in this iteration.
    pub rewrites: u64,
    /// The same per rule, in the order they first changed it (rules with none are left out).
    pub rewrites_per_rule: RuleCounts,
    /// Time the iteration took (JSON: `time_ms`).
    #[serde(rename = "time_ms", serialize_with = "serialize_ms")]
    pub time: Duration,
    /// Resident memory after the iteration, in bytes, when known.
    pub memory_bytes: Option<u64>,
}

/// One search in figures: how it ended and its totals.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Whether the goal was reached (`stop` is `StopReason::Goal`).
    pub found: bool,
    /// Why the search stopped (JSON: `goal reached`, `saturated`, or `<limit> limit`).
    #[serde(serialize_with = "serialize_display")]
    pub stop: StopReason,
    /// The limit that stopped it (`time`, `nodes`, `iterations`, `memory`), if one did.
    pub limit: Option<&'static str>,
    /// The one-line outcome for people: `risec prove`'s headline, a guide step's summary line
    /// (the runner leaves the stop reason here).
    pub message: String,
    /// Iterations run.
    pub iterations: usize,
    /// E-nodes at the end.
    pub nodes: usize,
    /// E-classes at the end.
    pub classes: usize,
    /// Rewrites that changed the e-graph.
    pub rewrites: u64,
    /// The same per rule, every rule given included.
    pub rewrites_per_rule: RuleCounts,
    /// Time of the search (JSON: `time_ms`).
    #[serde(rename = "time_ms", serialize_with = "serialize_ms")]
    pub time: Duration,
    /// Peak resident memory of the process (peak RSS) at the end, in bytes, when known.
    pub peak_memory_bytes: Option<u64>,
    /// Divisibility facts the rules assumed, as sizes that must be whole numbers (`n/32`; the
    /// runner leaves it empty, its caller knows how to print sizes).
    pub assumed: Vec<String>,
}

/// One saturation run (a guide step, or the search of `risec prove`): its limits, every
/// iteration, the summary, and for a guide step what it looked for and what extraction gave.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SearchStats {
    /// The guide step's name (none for `risec prove`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The guide step's sketch, as text (none for `risec prove`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sketch: Option<String>,
    /// The limits it ran under (JSON: `time_ms`, `nodes`, `iterations`, `memory_bytes`).
    pub limits: Limits,
    /// One entry per iteration run.
    pub iterations: Vec<IterationStats>,
    /// How it ended, and its totals.
    pub summary: Summary,
    /// The extracted term's cost under the step's cost model (a guide step whose sketch was
    /// satisfied).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<u64>,
    /// Wall time of the whole guide step: normal form, search and extraction (JSON:
    /// `step_time_ms`).
    #[serde(
        rename = "step_time_ms",
        serialize_with = "serialize_opt_ms",
        skip_serializing_if = "Option::is_none"
    )]
    pub step_time: Option<Duration>,
    /// The scheduler (`simple`, `sample(8)`, …; [`crate::schedule::Scheduler`]).
    pub scheduler: String,
    /// The seed of its random choices, for the schedulers that make some.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

impl SearchStats {
    /// The one-line summary of a guide step that the main job prints after its search
    /// (`step split found in 5 iterations, …`).
    pub fn step_line(&self) -> String {
        let s = &self.summary;
        format!(
            "step {:<12} {} in {} iterations, {} e-nodes, {} e-classes, {} rewrites, {:.1} ms{}",
            self.name.as_deref().unwrap_or_default(),
            if s.found { "found" } else { "NOT found" },
            s.iterations,
            s.nodes,
            s.classes,
            s.rewrites,
            self.step_time.unwrap_or(s.time).as_secs_f64() * 1e3,
            s.peak_memory_bytes
                .map(|b| format!(", peak RSS {:.1} MiB", b as f64 / (1 << 20) as f64))
                .unwrap_or_default()
        )
    }
}

/// What a run ran on (written at the top of the JSON, beside the [`RunStats`] fields).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum RunInput {
    /// The main job: `risec PROGRAM --sketch FILE`.
    Sketch {
        /// The program file.
        program: String,
        /// The sketch file.
        sketch: String,
    },
    /// `risec prove START GOAL`.
    Prove {
        /// The start file.
        start: String,
        /// The goal file.
        goal: String,
        /// The start's entry point.
        start_entry: String,
        /// The goal's entry point.
        goal_entry: String,
        /// The rules, as given.
        rules: Vec<String>,
        /// Whether the terms were put in beta-eta normal form first.
        normalized: bool,
    },
}

/// A whole run, what `--stats FILE` writes: what ran, every search, and the run's totals.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RunStats {
    /// What ran (its fields sit beside the others in the JSON).
    #[serde(flatten)]
    pub input: RunInput,
    /// Whether every search reached its goal.
    pub found: bool,
    /// Every search, in order (the main job stops at the first whose sketch is not satisfied).
    pub steps: Vec<SearchStats>,
    /// Main job: the divisibility facts the result relies on (none when not found); `risec
    /// prove`: the facts the rules assumed.
    pub facts: Vec<String>,
    /// Iterations of all steps together.
    pub iterations: usize,
    /// Rewrites of all steps together.
    pub rewrites: u64,
    /// Wall time of the whole run (JSON: `time_ms`).
    #[serde(rename = "time_ms", serialize_with = "serialize_ms")]
    pub time: Duration,
    /// The largest peak resident memory the steps measured, in bytes, when known.
    pub peak_memory_bytes: Option<u64>,
    /// Main job: what the lowering after the steps decided beyond its defaults (values stored
    /// once instead of recomputed in a loop, reductions unrolled), one line each; left out
    /// of the JSON when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lowering: Vec<String>,
}

impl RunStats {
    /// A run of `steps` on `input` that took `time`, with the totals summed over the steps.
    pub fn new(
        input: RunInput,
        steps: Vec<SearchStats>,
        facts: Vec<String>,
        time: Duration,
    ) -> RunStats {
        RunStats {
            input,
            found: steps.iter().all(|s| s.summary.found),
            iterations: steps.iter().map(|s| s.summary.iterations).sum(),
            rewrites: steps.iter().map(|s| s.summary.rewrites).sum(),
            peak_memory_bytes: steps
                .iter()
                .filter_map(|s| s.summary.peak_memory_bytes)
                .max(),
            steps,
            facts,
            time,
            lowering: Vec::new(),
        }
    }
}

/// `value` as pretty-printed JSON, with a final newline.
pub fn to_json<T: Serialize>(value: &T) -> String {
    // Serialising plain structs with string keys cannot fail.
    let mut text = serde_json::to_string_pretty(value).expect("statistics serialise to JSON");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iteration(iteration: usize, nodes: usize, applied: &[(&str, u64)]) -> IterationStats {
        let mut per_rule = RuleCounts::default();
        for (rule, n) in applied {
            per_rule.add(rule, *n);
        }
        IterationStats {
            iteration,
            nodes,
            classes: nodes - 1,
            rewrites: per_rule.total(),
            rewrites_per_rule: per_rule,
            time: Duration::from_micros(1500),
            memory_bytes: (iteration == 1).then_some(1 << 20),
        }
    }

    fn search() -> SearchStats {
        let iterations = vec![
            iteration(1, 10, &[("map-fusion", 2), ("eta", 1), ("eta", 0)]),
            iteration(2, 14, &[("map-fusion", 4)]),
        ];
        let stop = StopReason::IterationLimit;
        SearchStats {
            name: None,
            sketch: None,
            limits: Limits::default(),
            summary: Summary {
                found: false,
                stop,
                limit: stop.limit_name(),
                message: "a \"quoted\"\nmessage".into(),
                iterations: iterations.len(),
                nodes: 14,
                classes: 13,
                rewrites: 7,
                rewrites_per_rule: RuleCounts::totals(
                    ["map-fusion", "eta", "map-fusion"],
                    &iterations,
                ),
                time: Duration::from_millis(5),
                peak_memory_bytes: Some(2 << 20),
                assumed: vec!["n/2".into()],
            },
            iterations,
            cost: None,
            step_time: None,
            scheduler: "simple".into(),
            seed: None,
        }
    }

    #[test]
    fn rule_counts_add_up_and_follow_the_rule_order() {
        let s = search();
        assert_eq!(s.iterations[0].rewrites, 3);
        assert_eq!(
            s.iterations[0].rewrites_per_rule,
            RuleCounts(vec![("map-fusion".into(), 2), ("eta".into(), 1)])
        );
        assert_eq!(
            s.summary.rewrites_per_rule,
            RuleCounts(vec![("map-fusion".into(), 6), ("eta".into(), 1)])
        );
        let run = RunStats::new(
            RunInput::Sketch {
                program: "p.rise".into(),
                sketch: "s.sk".into(),
            },
            vec![s.clone(), s],
            Vec::new(),
            Duration::from_millis(12),
        );
        assert!(!run.found);
        assert_eq!((run.iterations, run.rewrites), (4, 14));
        assert_eq!(run.peak_memory_bytes, Some(2 << 20));
    }

    #[test]
    fn json_has_the_documented_fields() {
        let stats = RunStats::new(
            RunInput::Prove {
                start: "a.rise".into(),
                goal: "b.rise".into(),
                start_entry: "f".into(),
                goal_entry: "g".into(),
                rules: vec!["map-fusion".into(), "eta".into()],
                normalized: true,
            },
            vec![search()],
            vec!["n/2".into()],
            Duration::from_millis(6),
        );
        let json: serde_json::Value = serde_json::from_str(&to_json(&stats)).unwrap();
        assert_eq!(json["start"], "a.rise");
        assert_eq!(json["normalized"], true);
        assert_eq!(json["found"], false);
        assert_eq!(json["time_ms"], 6.0);
        assert_eq!(json["iterations"], 2);
        let step = &json["steps"][0];
        assert!(step.get("name").is_none() && step.get("cost").is_none());
        assert_eq!(step["limits"]["memory_bytes"], 4u64 << 30);
        assert_eq!(step["limits"]["time_ms"], 10_000.0);
        assert!(step["limits"].get("reduction_passes").is_none());
        assert_eq!(step["iterations"][0]["iteration"], 1);
        assert_eq!(step["iterations"][0]["rewrites_per_rule"]["eta"], 1);
        assert_eq!(step["iterations"][1]["time_ms"], 1.5);
        assert_eq!(
            step["iterations"][1]["memory_bytes"],
            serde_json::Value::Null
        );
        let summary = &step["summary"];
        assert_eq!(summary["stop"], "iterations limit");
        assert_eq!(summary["limit"], "iterations");
        assert_eq!(summary["message"], "a \"quoted\"\nmessage");
        assert_eq!(summary["peak_memory_bytes"], 2u64 << 20);
        assert_eq!(summary["rewrites_per_rule"]["map-fusion"], 6);
        assert_eq!(summary["assumed"][0], "n/2");
        let keys: Vec<&String> = summary["rewrites_per_rule"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys.len(), 2);
    }

    #[test]
    fn a_guide_step_writes_its_name_sketch_and_extraction() {
        let mut s = search();
        s.name = Some("split".into());
        s.sketch = Some("contains(map)".into());
        s.cost = Some(42);
        s.step_time = Some(Duration::from_millis(8));
        let json: serde_json::Value = serde_json::from_str(&to_json(&s)).unwrap();
        assert_eq!(json["name"], "split");
        assert_eq!(json["cost"], 42);
        assert_eq!(json["step_time_ms"], 8.0);
        assert!(s.step_line().starts_with(
            "step split        NOT found in 2 iterations, 14 e-nodes, 13 e-classes, 7 rewrites, 8.0 ms"
        ));
    }
}
