//! A campaign's counts: one [`Record`] per run (what it did, its class, its time against its
//! budget), counted by family in a [`Tally`] whose table the campaign prints.

use super::{Case, CaseOutcome, Defect, Family, Finished};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// How a run ended, as the campaign's table counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Class {
    /// A result (checked where it could be).
    Ok,
    /// A search stopped by a limit (not found, budget ran out).
    Limit,
    /// The input was refused with a proper error.
    Error,
    /// risec panicked.
    Panic,
    /// The process died of a signal (out of memory → SIGABRT, stack overflow, SIGSEGV).
    Abort,
    /// The process outlived the watchdog and was killed.
    Hang,
    /// A result that is not true.
    Wrong,
    /// Any other defect (a bad message, an internal error, an ill-typed result, C that does
    /// not compile or is unsafe, a child that exits without a result).
    Other,
}

impl Class {
    /// Whether the run is a defect.
    pub fn is_defect(self) -> bool {
        !matches!(self, Class::Ok | Class::Limit | Class::Error)
    }
}

/// One run of a campaign.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The case's family.
    pub family: Family,
    /// The case's seed.
    pub seed: u64,
    /// What the case was made from.
    pub origin: String,
    /// Its class.
    pub class: Class,
    /// What it did ([`CaseOutcome::name`], or the kind of defect).
    pub outcome: String,
    /// For a defect, what went wrong (the panic's message, the signal and standard error's end,
    /// the wrong value).
    pub detail: String,
    /// Wall time of the budgeted part, in milliseconds (for a hang, the time it was killed at).
    pub elapsed_ms: f64,
    /// The case's time budget, in milliseconds, if it has one.
    pub budget_ms: Option<f64>,
}

impl Record {
    /// The record of a case run in process.
    pub fn of(case: &Case, finished: &Finished, budget: Option<Duration>) -> Record {
        let (class, outcome, detail) = match &finished.result {
            Ok(o) => (o.class(), o.name().to_string(), String::new()),
            Err(d) => (d.class(), defect_name(d).to_string(), d.to_string()),
        };
        Record {
            family: case.family,
            seed: case.seed,
            origin: case.origin.clone(),
            class,
            outcome,
            detail,
            elapsed_ms: finished.elapsed.as_secs_f64() * 1e3,
            budget_ms: budget.map(|b| b.as_secs_f64() * 1e3),
        }
    }

    /// How far the run went past its budget beyond the allowance (10 % + 0.5 s), if it did;
    /// a hang is counted as a hang, not an overshoot.
    pub fn overshoot(&self) -> Option<Duration> {
        let budget = self.budget_ms?;
        let allowed = budget * 1.1 + 500.0;
        (self.class != Class::Hang && self.elapsed_ms > allowed)
            .then(|| Duration::from_secs_f64((self.elapsed_ms - budget) / 1e3))
    }

    /// The command that replays it: `--replay family:seed`.
    pub fn replay(&self) -> String {
        format!(
            "cargo run --release --example fuzz_campaign -- --replay {}:{}",
            self.family, self.seed
        )
    }
}

/// A short name for a defect.
fn defect_name(d: &Defect) -> &'static str {
    match d {
        Defect::Panic(_) => "panic",
        Defect::BadMessage(_) => "bad error message",
        Defect::IllTyped(_) => "ill-typed result",
        Defect::Internal(_) => "internal error",
        Defect::Wrong(_) => "wrong result",
        Defect::C(super::c_check::CDefect::DoesNotCompile(_)) => "C does not compile",
        Defect::C(super::c_check::CDefect::Unsafe { .. }) => "C unsafe",
        Defect::C(super::c_check::CDefect::Wrong { .. }) => "C wrong",
    }
}

/// The counts of one family.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    /// Runs.
    pub runs: usize,
    /// Runs by class.
    pub classes: BTreeMap<Class, usize>,
    /// Runs past their budget by more than 10 % + 0.5 s.
    pub overshoots: usize,
    /// The largest overshoot (time past the budget).
    pub worst_overshoot: Duration,
    /// The case of the largest overshoot: `family:seed`.
    pub worst_case: String,
}

impl Row {
    /// Runs of a class.
    pub fn count(&self, class: Class) -> usize {
        self.classes.get(&class).copied().unwrap_or(0)
    }
}

/// A campaign's counts by family, the outcomes by name, and its defects.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// The counts of each family.
    pub rows: BTreeMap<Family, Row>,
    /// Runs by outcome name ([`CaseOutcome::name`], or the defect's kind).
    pub outcomes: BTreeMap<String, usize>,
    /// The defects' records.
    pub defects: Vec<Record>,
    /// The runs past their budget, worst first when printed.
    pub overshoots: Vec<Record>,
}

impl Tally {
    /// Counts a case run in process (the test's campaign).
    pub fn add(&mut self, case: &Case, result: &Result<CaseOutcome, Defect>) {
        let finished = Finished {
            result: result.clone(),
            elapsed: Duration::ZERO,
        };
        self.record(Record::of(case, &finished, None));
    }

    /// Counts a run.
    pub fn record(&mut self, record: Record) {
        let row = self.rows.entry(record.family).or_default();
        row.runs += 1;
        *row.classes.entry(record.class).or_default() += 1;
        if let Some(over) = record.overshoot() {
            row.overshoots += 1;
            if over > row.worst_overshoot {
                row.worst_overshoot = over;
                row.worst_case = format!("{}:{}", record.family, record.seed);
            }
            self.overshoots.push(record.clone());
        }
        *self.outcomes.entry(record.outcome.clone()).or_default() += 1;
        if record.class.is_defect() {
            self.defects.push(record);
        }
    }

    /// Runs in all families.
    pub fn runs(&self) -> usize {
        self.rows.values().map(|r| r.runs).sum()
    }

    /// Runs with this outcome name.
    pub fn count(&self, outcome: &str) -> usize {
        self.outcomes.get(outcome).copied().unwrap_or(0)
    }

    /// The table: one line per family and a total (runs, ok, limit, errors, panics, aborts,
    /// hangs, wrong results, other defects, budget overshoots with the worst), then the
    /// outcomes by name.
    pub fn table(&self) -> String {
        use Class::*;
        let columns = [Ok, Limit, Error, Panic, Abort, Hang, Wrong, Other];
        let mut out = String::from(
            "| family | runs | ok | limit | errors | panics | aborts | hangs | wrong | other | overshoots (worst) |\n\
             | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        );
        let mut total = Row::default();
        let line = |name: &str, row: &Row| {
            let counts: Vec<String> = columns.iter().map(|c| row.count(*c).to_string()).collect();
            let worst = if row.overshoots > 0 {
                format!(
                    "{} ({:.2} s, {})",
                    row.overshoots,
                    row.worst_overshoot.as_secs_f64(),
                    row.worst_case
                )
            } else {
                "0".to_string()
            };
            format!(
                "| {name} | {} | {} | {worst} |\n",
                row.runs,
                counts.join(" | ")
            )
        };
        for (family, row) in &self.rows {
            out.push_str(&line(family.name(), row));
            total.runs += row.runs;
            for (c, n) in &row.classes {
                *total.classes.entry(*c).or_default() += n;
            }
            total.overshoots += row.overshoots;
            if row.worst_overshoot > total.worst_overshoot {
                total.worst_overshoot = row.worst_overshoot;
                total.worst_case = row.worst_case.clone();
            }
        }
        out.push_str(&line("**total**", &total));
        out.push('\n');
        for (name, n) in &self.outcomes {
            out.push_str(&format!("{n:>9}  {name}\n"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(class: Class, elapsed_ms: f64, budget_ms: Option<f64>) -> Record {
        Record {
            family: Family::Offset,
            seed: 7,
            origin: String::new(),
            class,
            outcome: "x".into(),
            detail: String::new(),
            elapsed_ms,
            budget_ms,
        }
    }

    #[test]
    fn overshoots_allow_ten_percent_and_half_a_second() {
        assert_eq!(record(Class::Ok, 829.0, Some(300.0)).overshoot(), None);
        let over = record(Class::Ok, 900.0, Some(300.0)).overshoot().unwrap();
        assert_eq!(over, Duration::from_millis(600));
        assert_eq!(record(Class::Hang, 9000.0, Some(300.0)).overshoot(), None);
        assert_eq!(record(Class::Ok, 9000.0, None).overshoot(), None);
    }

    #[test]
    fn the_table_counts_by_family_and_class() {
        let mut t = Tally::default();
        t.record(record(Class::Ok, 1.0, Some(300.0)));
        t.record(record(Class::Hang, 1.0, Some(300.0)));
        t.record(record(Class::Ok, 2000.0, Some(300.0)));
        assert_eq!(t.runs(), 3);
        assert_eq!(t.defects.len(), 1);
        assert_eq!(t.rows[&Family::Offset].overshoots, 1);
        let table = t.table();
        assert!(
            table.contains("| offset | 3 | 2 | 0 | 0 | 0 | 0 | 1 | 0 | 0 | 1 (1.70 s, offset:7) |"),
            "{table}"
        );
    }
}
