//! Statistics of a search by equality saturation as plain data, written as JSON with
//! [`serde_json`]: what `risec prove --stats FILE` writes, and what any other search over the
//! [`runner`](crate::eqsat::runner) (the sketch search's `--stats`) can write too.
//!
//! A [`SearchStats`] is built from the runner's [`Report`] and holds, all as numbers:
//!
//! * `limits`: the limits the search ran under ([`LimitStats`]);
//! * `iterations`: one [`IterationStats`] per iteration: e-nodes and e-classes after it, the
//!   rewrites that changed the e-graph (in all and per rule), its time in milliseconds and the
//!   process's resident memory after it;
//! * `summary`: the whole search ([`Summary`]): whether the goal was found, why it stopped, the
//!   totals, the time in milliseconds, the peak resident memory (peak RSS), and the divisibility
//!   facts the rules assumed.
//!
//! [`ProveStats`] adds what `risec prove` searched for (files, entry points, rules) around it.
//! Times are `f64` milliseconds, memory `u64` bytes (`null` where the platform does not tell),
//! and per-rule counts are JSON objects keyed by rule name in the order the rules were given.
//!
//! ```
//! use risec::eqsat::stats::RuleCounts;
//! let counts = RuleCounts(vec![("map-fusion".into(), 3), ("eta".into(), 0)]);
//! assert_eq!(serde_json::to_string(&counts).unwrap(), r#"{"map-fusion":3,"eta":0}"#);
//! ```

use crate::eqsat::runner::{Limits, Report, StopReason};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::io::Write as _;
use std::path::Path;
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

/// The limits a search ran under.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LimitStats {
    /// Wall-clock time limit, in milliseconds.
    pub time_ms: f64,
    /// E-node limit.
    pub nodes: usize,
    /// Iteration limit.
    pub iterations: usize,
    /// Resident-memory limit, in bytes.
    pub memory_bytes: u64,
}

/// What one iteration of a search did.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct IterationStats {
    /// The iteration's number, from 1.
    pub iteration: usize,
    /// E-nodes after the iteration.
    pub nodes: usize,
    /// E-classes after the iteration.
    pub classes: usize,
    /// Rewrites that changed the e-graph in this iteration.
    pub rewrites: u64,
    /// The same per rule (rules with none are left out).
    pub rewrites_per_rule: RuleCounts,
    /// Time the iteration took, in milliseconds.
    pub time_ms: f64,
    /// Resident memory after the iteration, in bytes, when known.
    pub memory_bytes: Option<u64>,
}

/// A whole search in figures.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Whether the goal was reached.
    pub found: bool,
    /// Why the search stopped: `goal reached`, `saturated`, or `<limit> limit`.
    pub stop: String,
    /// The limit that stopped it (`time`, `nodes`, `iterations`, `memory`), if one did.
    pub limit: Option<String>,
    /// The one-line outcome as printed for people.
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
    /// Total time, in milliseconds.
    pub time_ms: f64,
    /// Peak resident memory of the process (peak RSS), in bytes, when known.
    pub peak_memory_bytes: Option<u64>,
    /// Divisibility facts the rules assumed, as sizes that must be whole numbers (`n/32`).
    pub assumed: Vec<String>,
}

/// The statistics of one search: its limits, every iteration, and the summary.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SearchStats {
    /// The limits it ran under.
    pub limits: LimitStats,
    /// One entry per iteration run.
    pub iterations: Vec<IterationStats>,
    /// The whole search.
    pub summary: Summary,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

impl SearchStats {
    /// The statistics of the search that `report` describes, run under `limits` with the rules
    /// named `rules` (in the order given). `message` is the printed outcome and `assumed` the
    /// divisibility facts assumed, as source text.
    pub fn new(
        report: &Report,
        limits: &Limits,
        rules: &[String],
        message: String,
        assumed: Vec<String>,
    ) -> SearchStats {
        let iterations: Vec<IterationStats> = report
            .iterations
            .iter()
            .enumerate()
            .map(|(i, it)| {
                let per_rule = RuleCounts(
                    it.applied
                        .iter()
                        .map(|(name, c)| (name.clone(), *c as u64))
                        .collect(),
                );
                IterationStats {
                    iteration: i + 1,
                    nodes: it.nodes,
                    classes: it.classes,
                    rewrites: per_rule.total(),
                    rewrites_per_rule: per_rule,
                    time_ms: ms(it.time),
                    memory_bytes: it.memory,
                }
            })
            .collect();
        let per_rule = RuleCounts(
            rules
                .iter()
                .map(|name| {
                    let count = iterations
                        .iter()
                        .map(|i| i.rewrites_per_rule.get(name))
                        .sum();
                    (name.clone(), count)
                })
                .collect(),
        );
        let summary = Summary {
            found: report.stop == StopReason::Goal,
            stop: report.stop.to_string(),
            limit: report.stop.limit_name().map(str::to_string),
            message,
            iterations: iterations.len(),
            nodes: report.nodes,
            classes: report.classes,
            rewrites: iterations.iter().map(|i| i.rewrites).sum(),
            rewrites_per_rule: per_rule,
            time_ms: ms(report.time),
            peak_memory_bytes: report.peak_memory,
            assumed,
        };
        SearchStats {
            limits: LimitStats {
                time_ms: ms(limits.time),
                nodes: limits.nodes,
                iterations: limits.iterations,
                memory_bytes: limits.memory,
            },
            iterations,
            summary,
        }
    }
}

/// The statistics `risec prove --stats` writes: what was searched for, and the search.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ProveStats {
    /// The start file.
    pub start: String,
    /// The goal file.
    pub goal: String,
    /// The start's entry point.
    pub start_entry: String,
    /// The goal's entry point.
    pub goal_entry: String,
    /// The rules, as given.
    pub rules: Vec<String>,
    /// Whether the terms were put in beta-eta normal form first.
    pub normalized: bool,
    /// The search (its fields `limits`, `iterations`, `summary` sit beside the ones above).
    #[serde(flatten)]
    pub search: SearchStats,
}

/// `value` as pretty-printed JSON, with a final newline.
pub fn to_json<T: Serialize>(value: &T) -> String {
    // Serialising plain structs with string keys cannot fail.
    let mut text = serde_json::to_string_pretty(value).expect("statistics serialise to JSON");
    text.push('\n');
    text
}

/// Checks, before a search, that `path` can later be written: its folder exists and it is not
/// a folder itself.
pub fn check_writable(path: &Path) -> Result<(), String> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(format!(
            "error: cannot write `{}`: the folder `{}` does not exist",
            path.display(),
            dir.display()
        ));
    }
    if path.is_dir() {
        return Err(format!(
            "error: cannot write `{}`: it is a folder",
            path.display()
        ));
    }
    Ok(())
}

/// Writes `contents` to `path` atomically: into a temporary file beside it, then renamed over
/// it. On failure the temporary file is removed and `path` is left as it was.
pub fn write_atomically(path: &Path, contents: &str) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("error: cannot write `{}`: {e}", path.display());
    let name = path
        .file_name()
        .ok_or_else(|| format!("error: cannot write `{}`: not a file name", path.display()))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp{}", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        file.write_all(contents.as_bytes())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eqsat::runner;

    fn report() -> Report {
        Report {
            stop: StopReason::IterationLimit,
            iterations: vec![
                runner::IterationStats {
                    nodes: 10,
                    classes: 8,
                    applied: vec![("map-fusion".into(), 2), ("eta".into(), 1)],
                    time: Duration::from_millis(3),
                    memory: Some(1 << 20),
                },
                runner::IterationStats {
                    nodes: 14,
                    classes: 9,
                    applied: vec![("map-fusion".into(), 4)],
                    time: Duration::from_micros(1500),
                    memory: None,
                },
            ],
            time: Duration::from_millis(5),
            nodes: 14,
            classes: 9,
            peak_memory: Some(2 << 20),
        }
    }

    #[test]
    fn figures_add_up_and_follow_the_rule_order() {
        let rules = ["eta".to_string(), "map-fusion".into(), "beta".into()];
        let s = SearchStats::new(
            &report(),
            &Limits::default(),
            &rules,
            "not found".into(),
            vec!["n/2".into()],
        );
        assert_eq!(s.iterations.len(), 2);
        assert_eq!(s.iterations[0].iteration, 1);
        assert_eq!(s.iterations[0].rewrites, 3);
        assert_eq!(s.iterations[1].time_ms, 1.5);
        assert_eq!(s.summary.rewrites, 7);
        assert_eq!(
            s.summary.rewrites_per_rule,
            RuleCounts(vec![
                ("eta".into(), 1),
                ("map-fusion".into(), 6),
                ("beta".into(), 0)
            ])
        );
        assert!(!s.summary.found);
        assert_eq!(s.summary.limit.as_deref(), Some("iterations"));
        assert_eq!(s.summary.stop, "iterations limit");
        assert_eq!(s.limits.time_ms, 10_000.0);
    }

    #[test]
    fn json_has_the_documented_fields() {
        let rules = ["map-fusion".to_string(), "eta".into()];
        let search = SearchStats::new(
            &report(),
            &Limits::default(),
            &rules,
            "a \"quoted\"\nmessage".into(),
            Vec::new(),
        );
        let stats = ProveStats {
            start: "a.rise".into(),
            goal: "b.rise".into(),
            start_entry: "f".into(),
            goal_entry: "g".into(),
            rules: rules.to_vec(),
            normalized: true,
            search,
        };
        let json: serde_json::Value = serde_json::from_str(&to_json(&stats)).unwrap();
        assert_eq!(json["start"], "a.rise");
        assert_eq!(json["limits"]["memory_bytes"], 4u64 << 30);
        assert_eq!(json["iterations"][0]["rewrites_per_rule"]["eta"], 1);
        assert_eq!(
            json["iterations"][1]["memory_bytes"],
            serde_json::Value::Null
        );
        assert_eq!(json["summary"]["message"], "a \"quoted\"\nmessage");
        assert_eq!(json["summary"]["peak_memory_bytes"], 2u64 << 20);
        assert_eq!(json["summary"]["rewrites_per_rule"]["map-fusion"], 6);
        let keys: Vec<&String> = json["summary"]["rewrites_per_rule"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys.len(), 2);
    }

    #[test]
    fn atomic_write_replaces_and_cleans_up() {
        let dir = std::env::temp_dir().join(format!("risec-stats-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("stats.json");
        write_atomically(&path, "{}").unwrap();
        write_atomically(&path, "{\"a\": 1}").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\": 1}");
        // A folder in the way: the write fails and leaves no temporary file behind.
        let blocked = dir.join("blocked");
        std::fs::create_dir_all(blocked.join("inner")).unwrap();
        assert!(write_atomically(&blocked, "{}").is_err());
        assert!(check_writable(&blocked).is_err());
        assert!(check_writable(&dir.join("missing/stats.json")).is_err());
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
