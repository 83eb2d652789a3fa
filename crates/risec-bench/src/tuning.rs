//! Tuning records: what `risec tune` measured (the machine, the program, the sketch file, the
//! shape, the threads, the parameters it chose and their time), kept as JSON, and the choice
//! of the record that fits a later compilation best ([`TuningFile::best`]).
//!
//! A file holds the records of many machines, programs, sketches and shapes; `risec tune`
//! replaces the record of the same machine, program, sketch, shape and threads, and keeps the
//! others.

use crate::support::machine::Machine;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// One tuning result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Where it was measured.
    pub machine: Machine,
    /// The program's entry point.
    pub program: String,
    /// The sketch file's name (its last path component: records travel with the sketches).
    pub sketch: String,
    /// The sizes, by the program's size parameters.
    pub sizes: BTreeMap<String, u64>,
    /// OpenMP threads.
    pub threads: u32,
    /// The tunable parameters chosen.
    pub params: BTreeMap<String, u64>,
    /// Their median time, in milliseconds.
    pub median_ms: f64,
    /// GFLOP/s at that time, where the program's operations are counted.
    pub gflops: Option<f64>,
    /// The defaults' median time in the same run, in milliseconds.
    pub default_ms: f64,
    /// How many choices were compiled and timed.
    pub tried: usize,
    /// When (RFC 3339, UTC).
    pub date: String,
}

impl Record {
    /// Whether `other` is a measurement of the same machine, program, sketch, shape and threads.
    pub fn same_setting(&self, other: &Record) -> bool {
        self.machine.cpu == other.machine.cpu
            && self.program == other.program
            && self.sketch == other.sketch
            && self.sizes == other.sizes
            && self.threads == other.threads
    }

    /// The parameters as `NAME=V,…` (what `--param` takes).
    pub fn params_text(&self) -> String {
        self.params
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// How far the record's shape is from `sizes`: the sum over the sizes of |ln(a / b)| (0 for
    /// the same shape; a size missing on either side counts as far).
    pub fn shape_distance(&self, sizes: &BTreeMap<String, u64>) -> f64 {
        let names: std::collections::BTreeSet<&String> =
            self.sizes.keys().chain(sizes.keys()).collect();
        names
            .into_iter()
            .map(|n| match (self.sizes.get(n), sizes.get(n)) {
                (Some(&a), Some(&b)) if a > 0 && b > 0 => (a as f64 / b as f64).ln().abs(),
                _ => 10.0,
            })
            .sum()
    }
}

/// The records of a file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TuningFile {
    /// Every record.
    pub records: Vec<Record>,
}

/// Why a tuning file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TuningError {
    /// It could not be read.
    #[error("error: cannot read the tuning file `{path}`: {source}")]
    Read {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// It is not a tuning file.
    #[error("error: `{path}` is not a tuning file (JSON with `records`, as `risec tune` writes): {source}")]
    Parse {
        /// The file.
        path: String,
        /// What the parser said.
        source: serde_json::Error,
    },
}

/// The record [`TuningFile::best`] chose, and how well it fits.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice<'a> {
    /// The record.
    pub record: &'a Record,
    /// Whether it was measured on a machine of another CPU model.
    pub other_machine: bool,
    /// Whether its shape is the one asked for.
    pub exact_shape: bool,
}

impl Choice<'_> {
    /// One line for standard error: which record, and why.
    pub fn describe(&self) -> String {
        let r = self.record;
        let shape: Vec<String> = r.sizes.iter().map(|(n, v)| format!("{n}={v}")).collect();
        format!(
            "tuning: {} from the record of {} at {} with {} thread(s){}{}",
            r.params_text(),
            r.sketch,
            shape.join(","),
            r.threads,
            if self.exact_shape {
                ""
            } else {
                " (the nearest tuned shape)"
            },
            if self.other_machine {
                format!(", measured on another CPU ({})", r.machine.cpu)
            } else {
                String::new()
            }
        )
    }
}

impl TuningFile {
    /// Reads a file; a missing file is an error (`risec tune` writes one).
    pub fn read(path: &Path) -> Result<TuningFile, TuningError> {
        let text = std::fs::read_to_string(path).map_err(|source| TuningError::Read {
            path: path.display().to_string(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| TuningError::Parse {
            path: path.display().to_string(),
            source,
        })
    }

    /// The file as JSON text.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Adds `record`, replacing one of the same setting.
    pub fn insert(&mut self, record: Record) {
        self.records.retain(|r| !r.same_setting(&record));
        self.records.push(record);
    }

    /// The record for `program` and the sketch file named `sketch` that fits best: measured on
    /// `machine`'s CPU model if any is (else any machine's), then the nearest shape to `sizes`
    /// ([`Record::shape_distance`]; with no sizes, the largest shape tuned), then the threads
    /// nearest `threads`, then the fastest.
    pub fn best(
        &self,
        machine: &Machine,
        program: &str,
        sketch: &str,
        sizes: Option<&BTreeMap<String, u64>>,
        threads: Option<u32>,
    ) -> Option<Choice<'_>> {
        let candidates: Vec<&Record> = self
            .records
            .iter()
            .filter(|r| r.program == program && r.sketch == sketch)
            .collect();
        let here: Vec<&Record> = candidates
            .iter()
            .copied()
            .filter(|r| r.machine.cpu == machine.cpu)
            .collect();
        let other_machine = here.is_empty();
        let pool = if other_machine { candidates } else { here };
        let volume =
            |r: &Record| -> f64 { r.sizes.values().map(|&v| (v.max(1) as f64).ln()).sum() };
        let key = |r: &Record| -> (f64, u32, f64) {
            let shape = match sizes {
                Some(s) => r.shape_distance(s),
                None => -volume(r),
            };
            let threads = threads.map_or(0, |t| r.threads.abs_diff(t));
            (shape, threads, r.median_ms)
        };
        let record = pool.into_iter().min_by(|a, b| {
            key(a)
                .partial_cmp(&key(b))
                .unwrap_or(std::cmp::Ordering::Equal)
        })?;
        Some(Choice {
            record,
            other_machine,
            exact_shape: sizes.is_some_and(|s| *s == record.sizes),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(cpu: &str, m: u64, threads: u32, mr: u64, ms: f64) -> Record {
        Record {
            machine: Machine {
                cpu: cpu.into(),
                features: vec!["avx512f".into()],
                cpus: 2,
                l1d: 48 << 10,
                l2: 1 << 20,
                l3: 32 << 20,
            },
            program: "matmul".into(),
            sketch: "register-blocking-avx512.sk".into(),
            sizes: [("k".into(), 512), ("m".into(), m), ("n".into(), 512)].into(),
            threads,
            params: [("MR".into(), mr), ("NR".into(), 32)].into(),
            median_ms: ms,
            gflops: Some(100.0),
            default_ms: ms * 1.2,
            tried: 9,
            date: "2026-11-28T07:00:00Z".into(),
        }
    }

    fn machine(cpu: &str) -> Machine {
        Machine::from_cpuinfo(&format!("model name : {cpu}\n"), 2)
    }

    fn sizes(m: u64) -> BTreeMap<String, u64> {
        [("k".into(), 512), ("m".into(), m), ("n".into(), 512)].into()
    }

    #[test]
    fn records_round_trip_through_json_and_replace_their_setting() {
        let mut file = TuningFile::default();
        file.insert(record("A", 49, 1, 4, 1.0));
        file.insert(record("A", 1024, 1, 8, 2.0));
        file.insert(record("A", 49, 1, 6, 0.9));
        assert_eq!(file.records.len(), 2);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        std::fs::write(&path, file.to_json()).unwrap();
        let back = TuningFile::read(&path).unwrap();
        assert_eq!(back, file);
        assert_eq!(back.records[1].params_text(), "MR=6,NR=32");
        std::fs::write(&path, "{\"rows\": 1}").unwrap();
        let e = TuningFile::read(&path).unwrap_err().to_string();
        assert!(e.contains("is not a tuning file"), "{e}");
    }

    #[test]
    fn the_nearest_shape_on_this_machine_is_chosen() {
        let mut file = TuningFile::default();
        file.insert(record("A", 49, 1, 4, 1.0));
        file.insert(record("A", 1024, 1, 8, 2.0));
        file.insert(record("A", 1024, 2, 12, 1.1));
        file.insert(record("B", 64, 1, 14, 0.5));
        let a = machine("A");
        let c = file.best(
            &a,
            "matmul",
            "register-blocking-avx512.sk",
            Some(&sizes(49)),
            Some(1),
        );
        let c = c.unwrap();
        assert!(c.exact_shape && !c.other_machine);
        assert_eq!(c.record.params["MR"], 4);
        // 800 rows are nearer 1024 than 49; with 2 threads, the 2-thread record.
        let c = file
            .best(
                &a,
                "matmul",
                "register-blocking-avx512.sk",
                Some(&sizes(800)),
                Some(2),
            )
            .unwrap();
        assert!(!c.exact_shape);
        assert_eq!(c.record.params["MR"], 12);
        // No sizes: the largest shape tuned.
        let c = file
            .best(&a, "matmul", "register-blocking-avx512.sk", None, Some(1))
            .unwrap();
        assert_eq!(c.record.sizes["m"], 1024);
        // Another machine's records when this one has none, said so.
        let c = file
            .best(
                &machine("C"),
                "matmul",
                "register-blocking-avx512.sk",
                Some(&sizes(64)),
                None,
            )
            .unwrap();
        assert!(c.other_machine);
        assert_eq!(c.record.machine.cpu, "B");
        assert!(
            c.describe().contains("measured on another CPU (B)"),
            "{}",
            c.describe()
        );
        assert!(file.best(&a, "matmul", "other.sk", None, None).is_none());
    }
}
