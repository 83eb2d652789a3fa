//! `risec prove`: is a goal program reachable from a start program with a given set of rules?
//!
//! Both programs are elaborated, their entry points must have the same type, and both terms are
//! put in beta-eta normal form (unless asked not to). The e-graph is grown from the start term by
//! [`runner::run`] until the goal term is in the start's e-class, the e-graph saturates, or a
//! limit stops the search. [`Problem`] is the prepared search (everything before the timed part,
//! which is what the benchmarks measure), [`Outcome`] what it found, with the text `risec prove`
//! prints and the per-iteration statistics as JSON.
//!
//! ```
//! use risec::prove::{parse_duration, parse_size};
//! assert_eq!(parse_duration("500ms").unwrap(), std::time::Duration::from_millis(500));
//! assert_eq!(parse_size("4GiB").unwrap(), 4 << 30);
//! ```

use crate::core::normalize::program_normal;
use crate::core::print::{program_nat_to_source, program_type_to_source};
use crate::core::{Expr, TypedProgram};
use crate::driver::compile_file;
use crate::egraph::{self, RiseEGraph};
use crate::rewrite::{Assumptions, Rule};
use crate::rules;
use crate::runner::{self, Limits, Report, StopReason};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

/// How to run a proof search.
#[derive(Clone, Debug)]
pub struct ProveOptions {
    /// The rules, comma-separated as `rules::lookup_all` reads them (`map-fusion,split-join(32)`).
    pub rules: String,
    /// Put both terms in beta-eta normal form before the search.
    pub normalize: bool,
    /// When the search must stop.
    pub limits: Limits,
    /// The start file's entry point (default: its last definition).
    pub entry: Option<String>,
    /// The goal file's entry point (default: its last definition).
    pub goal_entry: Option<String>,
    /// Whether rules may assume divisibility facts they cannot prove (they are reported).
    pub assume: bool,
}

impl Default for ProveOptions {
    fn default() -> ProveOptions {
        ProveOptions {
            rules: String::new(),
            normalize: true,
            limits: Limits::default(),
            entry: None,
            goal_entry: None,
            assume: true,
        }
    }
}

/// A prepared search: both programs checked (and normalised), the rules built.
#[derive(Clone, Debug)]
pub struct Problem {
    /// The start program as elaborated.
    pub start: TypedProgram,
    /// The goal program as elaborated.
    pub goal: TypedProgram,
    /// Where the start program came from (a path, or a name given by the caller).
    pub start_path: String,
    /// Where the goal program came from.
    pub goal_path: String,
    /// The term the e-graph is grown from (normalised unless `normalized` is false).
    pub start_term: Expr,
    /// The term the search looks for.
    pub goal_term: Expr,
    /// The rules.
    pub rules: Vec<Rule>,
    /// Whether the terms were normalised.
    pub normalized: bool,
    /// Whether rules may assume divisibility facts.
    pub assume: bool,
}

impl Problem {
    /// Reads, elaborates, checks and normalises both files and builds the rules. Errors are
    /// rendered messages.
    pub fn load(start: &str, goal: &str, options: &ProveOptions) -> Result<Problem, String> {
        let start_program = compile_file(start, options.entry.as_deref())?;
        let goal_program = compile_file(goal, options.goal_entry.as_deref())?;
        Problem::new(start_program, goal_program, start, goal, options)
    }

    /// Prepares a search between two elaborated programs; `start_path` and `goal_path` name them
    /// in messages.
    pub fn new(
        start: TypedProgram,
        goal: TypedProgram,
        start_path: &str,
        goal_path: &str,
        options: &ProveOptions,
    ) -> Result<Problem, String> {
        if start.ty() != goal.ty() {
            return Err(format!(
                "error: the start and the goal have different types\n  \
                 start `{}` ({start_path}) : {}\n  \
                 goal  `{}` ({goal_path}) : {}",
                start.name,
                program_type_to_source(&start),
                goal.name,
                program_type_to_source(&goal)
            ));
        }
        let rules = rules::lookup_all(&options.rules).map_err(|e| format!("error: {e}"))?;
        if rules.is_empty() {
            return Err(
                "error: no rules given: pass them as `--rules map-fusion,map-fission,eta,beta` \
                 (`risec rules` lists them)"
                    .to_string(),
            );
        }
        let prepare = |p: &TypedProgram, path: &str| -> Result<Expr, String> {
            if !options.normalize {
                return Ok(p.term.clone());
            }
            program_normal(&p.term).map_err(|e| {
                format!(
                    "error: cannot normalise `{}` ({path}): {e}; try `--no-normalize`",
                    p.name
                )
            })
        };
        Ok(Problem {
            start_term: prepare(&start, start_path)?,
            goal_term: prepare(&goal, goal_path)?,
            start,
            goal,
            start_path: start_path.to_string(),
            goal_path: goal_path.to_string(),
            rules,
            normalized: options.normalize,
            assume: options.assume,
        })
    }

    /// Runs the search: a fresh e-graph holding the start term, grown until the goal term is in
    /// the start's e-class or the search stops.
    pub fn search(&self, limits: &Limits) -> Outcome {
        let mut egraph = RiseEGraph::default();
        let root = egraph::add_expr(&mut egraph, &self.start_term);
        let mut assumptions = Assumptions {
            facts: self.start.facts.clone(),
            allow_new: self.assume,
            assumed: Vec::new(),
        };
        let goal = &self.goal_term;
        let mut reached =
            |eg: &RiseEGraph| egraph::lookup(eg, goal).is_some_and(|g| eg.find(g) == eg.find(root));
        let report = runner::run(
            &mut egraph,
            &self.rules,
            limits,
            &mut assumptions,
            &mut reached,
        );
        Outcome {
            found: report.stop == StopReason::Goal,
            report,
            limits: limits.clone(),
            start_name: self.start.name.clone(),
            goal_name: self.goal.name.clone(),
            start_path: self.start_path.clone(),
            goal_path: self.goal_path.clone(),
            rules: self.rules.iter().map(|r| r.name.clone()).collect(),
            normalized: self.normalized,
            assumed: assumptions
                .assumed
                .iter()
                .map(|n| program_nat_to_source(&self.start, n))
                .collect(),
        }
    }
}

/// Loads both files and runs the search ([`Problem::load`], then [`Problem::search`]).
pub fn prove(start: &str, goal: &str, options: &ProveOptions) -> Result<Outcome, String> {
    Ok(Problem::load(start, goal, options)?.search(&options.limits))
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Whether the goal is in the start's e-class.
    pub found: bool,
    /// The runner's report: why it stopped, and every iteration's statistics.
    pub report: Report,
    /// The limits it ran under.
    pub limits: Limits,
    /// The start's entry point.
    pub start_name: String,
    /// The goal's entry point.
    pub goal_name: String,
    /// The start file.
    pub start_path: String,
    /// The goal file.
    pub goal_path: String,
    /// The rules' names, as given.
    pub rules: Vec<String>,
    /// Whether the terms were normalised.
    pub normalized: bool,
    /// Divisibility facts the rules assumed, as sizes that must be whole numbers (`n/32`).
    pub assumed: Vec<String>,
}

impl Outcome {
    /// The first line: `found: …` or `not found: …`, naming the limit that stopped the search.
    pub fn headline(&self) -> String {
        let n = self.report.iterations.len();
        let after = format!("after {n} iteration{}", if n == 1 { "" } else { "s" });
        match self.report.stop {
            StopReason::Goal => format!(
                "found: `{}` is equivalent to `{}` (reached {after})",
                self.goal_name, self.start_name
            ),
            StopReason::Saturated => format!(
                "not found: the e-graph saturated {after}; the goal is not reachable with these rules"
            ),
            reason => {
                let (limit, flag) = match reason {
                    StopReason::TimeLimit => (
                        format!("time limit ({})", format_duration_limit(self.limits.time)),
                        "--time",
                    ),
                    StopReason::NodeLimit => (
                        format!("e-node limit ({} e-nodes)", self.limits.nodes),
                        "--nodes",
                    ),
                    StopReason::IterationLimit => (
                        format!("iteration limit ({})", self.limits.iterations),
                        "--iterations",
                    ),
                    _ => (
                        format!("memory limit ({})", format_bytes(self.limits.memory)),
                        "--memory",
                    ),
                };
                format!("not found: the {limit} stopped the search {after} (raise it with {flag})")
            }
        }
    }

    /// Rewrites per rule over the whole search, in the order the rules were given.
    pub fn rewrites_per_rule(&self) -> Vec<(String, usize)> {
        self.rules
            .iter()
            .map(|name| {
                let count = self
                    .report
                    .iterations
                    .iter()
                    .flat_map(|i| i.applied.iter())
                    .filter(|(r, _)| r == name)
                    .map(|(_, c)| c)
                    .sum();
                (name.clone(), count)
            })
            .collect()
    }

    /// What `risec prove` prints: the headline and the search's figures.
    pub fn summary(&self) -> String {
        let r = &self.report;
        let per_rule: Vec<String> = self
            .rewrites_per_rule()
            .iter()
            .filter(|(_, c)| *c > 0)
            .map(|(n, c)| format!("{n} {c}"))
            .collect();
        let per_rule = if per_rule.is_empty() {
            String::new()
        } else {
            format!(" ({})", per_rule.join(", "))
        };
        let mut out = format!("{}\n", self.headline());
        let mut line = |label: &str, value: String| {
            let _ = writeln!(out, "  {label:<12} {value}");
        };
        line("iterations", r.iterations.len().to_string());
        line("e-nodes", r.nodes.to_string());
        line("e-classes", r.classes.to_string());
        line("rewrites", format!("{}{per_rule}", r.rewrites()));
        line("time", format_duration(r.time));
        line(
            "peak memory",
            r.peak_memory.map_or_else(|| "unknown".into(), format_bytes),
        );
        // Assumptions can pile up (`n/2`, `n/4`, …): show the first few.
        const SHOWN: usize = 4;
        for fact in self.assumed.iter().take(SHOWN) {
            line("assumed", format!("`{fact}` is a whole number"));
        }
        if self.assumed.len() > SHOWN {
            line(
                "assumed",
                format!(
                    "… and {} more divisibility facts (--stats lists them all)",
                    self.assumed.len() - SHOWN
                ),
            );
        }
        out
    }

    /// The per-iteration statistics and the summary as a JSON document.
    pub fn stats_json(&self) -> String {
        let r = &self.report;
        let mut out = String::from("{\n");
        let _ = writeln!(out, "  \"start\": {},", json_string(&self.start_path));
        let _ = writeln!(out, "  \"goal\": {},", json_string(&self.goal_path));
        let _ = writeln!(out, "  \"start_entry\": {},", json_string(&self.start_name));
        let _ = writeln!(out, "  \"goal_entry\": {},", json_string(&self.goal_name));
        let rules: Vec<String> = self.rules.iter().map(|r| json_string(r)).collect();
        let _ = writeln!(out, "  \"rules\": [{}],", rules.join(", "));
        let _ = writeln!(out, "  \"normalized\": {},", self.normalized);
        let l = &self.limits;
        let _ = writeln!(
            out,
            "  \"limits\": {{\"time_s\": {}, \"nodes\": {}, \"iterations\": {}, \"memory_bytes\": {}}},",
            l.time.as_secs_f64(),
            l.nodes,
            l.iterations,
            l.memory
        );
        out.push_str("  \"iterations\": [");
        for (i, it) in r.iterations.iter().enumerate() {
            let applied: Vec<String> = it
                .applied
                .iter()
                .map(|(name, c)| format!("{}: {c}", json_string(name)))
                .collect();
            let total: usize = it.applied.iter().map(|(_, c)| c).sum();
            let _ = write!(
                out,
                "{}\n    {{\"iteration\": {}, \"nodes\": {}, \"classes\": {}, \"rewrites\": {}, \
                 \"rewrites_per_rule\": {{{}}}, \"time_s\": {}, \"memory_bytes\": {}}}",
                if i == 0 { "" } else { "," },
                i + 1,
                it.nodes,
                it.classes,
                total,
                applied.join(", "),
                it.time.as_secs_f64(),
                json_opt(it.memory)
            );
        }
        out.push_str(if r.iterations.is_empty() {
            "],\n"
        } else {
            "\n  ],\n"
        });
        let per_rule: Vec<String> = self
            .rewrites_per_rule()
            .iter()
            .map(|(name, c)| format!("{}: {c}", json_string(name)))
            .collect();
        let assumed: Vec<String> = self.assumed.iter().map(|a| json_string(a)).collect();
        let _ = write!(
            out,
            "  \"summary\": {{\"found\": {}, \"stop\": {}, \"limit\": {}, \"message\": {}, \
             \"iterations\": {}, \"nodes\": {}, \"classes\": {}, \"rewrites\": {}, \
             \"rewrites_per_rule\": {{{}}}, \"time_s\": {}, \"peak_memory_bytes\": {}, \
             \"assumed\": [{}]}}\n}}\n",
            self.found,
            json_string(&r.stop.to_string()),
            r.stop.limit_name().map_or("null".into(), json_string),
            json_string(&self.headline()),
            r.iterations.len(),
            r.nodes,
            r.classes,
            r.rewrites(),
            per_rule.join(", "),
            r.time.as_secs_f64(),
            json_opt(r.peak_memory),
            assumed.join(", ")
        );
        out
    }
}

/// `s` as a JSON string literal, with quotes, backslashes and control characters escaped.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_opt(v: Option<u64>) -> String {
    v.map_or("null".into(), |v| v.to_string())
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

/// Splits `10s` into its number and its unit.
fn number_and_unit(text: &str) -> Option<(f64, &str)> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: String = number.chars().filter(|&c| c != '_').collect();
    if number.is_empty() || number.starts_with('.') || number.ends_with('.') {
        return None;
    }
    let value: f64 = number.parse().ok()?;
    value.is_finite().then_some((value, unit.trim()))
}

/// Parses a duration: a number and a unit (`ms`, `s`, `m` or `min`, `h`): `10s`, `500ms`,
/// `2m`, `1.5s`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = || {
        format!("`{text}` is not a duration: write a number and a unit (ms, s, m, h), as in `10s`, `500ms` or `2m`")
    };
    let (value, unit) = number_and_unit(text).ok_or_else(bad)?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" | "sec" => value,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        "" => {
            return Err(format!(
                "`{text}` needs a unit: `{text}s` (seconds), `{text}ms` or `{text}m`"
            ))
        }
        _ => return Err(bad()),
    };
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("`{text}` is too long a duration"))
}

/// Parses a size in bytes: a number and a unit (`B`, `KiB`, `MiB`, `GiB`, `TiB`, or the decimal
/// `KB`, `MB`, `GB`, `TB`; case does not matter): `4GiB`, `512MiB`, `1.5GiB`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let bad = || {
        format!(
            "`{text}` is not a size: write a number and a unit (B, KiB, MiB, GiB, TiB, KB, MB, GB), \
             as in `4GiB` or `512MiB`"
        )
    };
    let (value, unit) = number_and_unit(text).ok_or_else(bad)?;
    let scale: f64 = match unit.to_ascii_lowercase().as_str() {
        "b" => 1.0,
        "kib" | "k" => 1024.0,
        "mib" | "m" => 1024.0 * 1024.0,
        "gib" | "g" => 1024.0 * 1024.0 * 1024.0,
        "tib" | "t" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        "" => {
            return Err(format!(
                "`{text}` needs a unit, as in `{text}MiB` or `{text}GiB`"
            ))
        }
        _ => return Err(bad()),
    };
    let bytes = (value * scale).round();
    if bytes >= u64::MAX as f64 {
        return Err(format!("`{text}` is too large a size"));
    }
    Ok(bytes as u64)
}

/// A measured time for people: `2.41 ms`, `35.2 ms`, `1.24 s`.
pub fn format_duration(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", d.as_secs_f64())
    }
}

/// A time limit as it would be written on the command line: `10s`, `500ms`, `2m`.
pub fn format_duration_limit(d: Duration) -> String {
    let nanos = d.as_nanos();
    if nanos > 0 && nanos % 60_000_000_000 == 0 {
        format!("{}m", nanos / 60_000_000_000)
    } else if nanos % 1_000_000_000 == 0 {
        format!("{}s", nanos / 1_000_000_000)
    } else if nanos % 1_000_000 == 0 {
        format!("{}ms", nanos / 1_000_000)
    } else {
        format!("{}s", d.as_secs_f64())
    }
}

/// A number of bytes for people: `4 GiB`, `5.2 MiB`, `512 B`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut unit = 0;
    let mut scale = 1u64;
    while unit + 1 < UNITS.len() && bytes >= scale * 1024 {
        unit += 1;
        scale *= 1024;
    }
    if bytes % scale == 0 {
        format!("{} {}", bytes / scale, UNITS[unit])
    } else {
        format!("{:.1} {}", bytes as f64 / scale as f64, UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(
            parse_duration(" 1.5s ").unwrap(),
            Duration::from_millis(1500)
        );
        assert_eq!(parse_duration("1h").unwrap(), Duration::from_secs(3600));
        assert!(parse_duration("10").unwrap_err().contains("needs a unit"));
        for bad in ["", "s", "10x", "-1s", "1.s", ".5s", "1e3s", "ten seconds"] {
            assert!(
                parse_duration(bad).unwrap_err().contains("not a duration"),
                "{bad}"
            );
        }
        for d in ["10s", "500ms", "2m", "1500ms", "0s"] {
            assert_eq!(format_duration_limit(parse_duration(d).unwrap()), d);
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4GiB").unwrap(), 4 << 30);
        assert_eq!(parse_size("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_size("512 mib").unwrap(), 512 << 20);
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        assert_eq!(parse_size("2GB").unwrap(), 2_000_000_000);
        assert_eq!(parse_size("100B").unwrap(), 100);
        assert!(parse_size("4").unwrap_err().contains("needs a unit"));
        assert!(parse_size("4XB").unwrap_err().contains("not a size"));
        assert!(parse_size("99999999999TiB")
            .unwrap_err()
            .contains("too large"));
        assert_eq!(format_bytes(4 << 30), "4 GiB");
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(5_452_595), "5.2 MiB");
    }

    #[test]
    fn command_line_defaults_are_the_runner_defaults() {
        // `risec prove` writes its defaults as text: `--time 10s --memory 4GiB`.
        assert_eq!(parse_duration("10s").unwrap(), Limits::default().time);
        assert_eq!(parse_size("4GiB").unwrap(), Limits::default().memory);
    }

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(
            json_string("a\"b\\c\nd\u{1}é"),
            "\"a\\\"b\\\\c\\nd\\u0001é\""
        );
    }

    #[test]
    fn atomic_write_replaces_and_cleans_up() {
        let dir = std::env::temp_dir().join(format!("risec-prove-test-{}", std::process::id()));
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
