//! Mutation fuzzing of the whole pipeline (issues 19 and 32): mutated and generated programs,
//! sketch files, `risec prove` goals and `.la` files through the main job, C generation,
//! `prove` and `la`, with budgets drawn at random, and the results checked against the
//! reference interpreter (and a sample of the generated C run under sanitizers).
//!
//! A [`Case`] is drawn from a [`Family`] and a seed, so any finding can be replayed. The
//! families, one module each:
//!
//! * [`sketch`]: the shipped matmul/matvec sketch files, their programs and library, and the
//!   low-level programs, mutated token by token (the campaign of issue 19);
//! * [`offset`]: programs whose sizes have offsets (`n+1`, a stencil's `(n+2).(m+2)` input)
//!   with generated sketch steps that split by 2, 3, 7, 32, 64, 65536, 2²⁰ or 2³¹−1, nested;
//! * [`prove`]: `risec prove` goals, shipped and mutated, with random rule lists (size-taking
//!   rules with large arguments), schedulers, seeds and small limits;
//! * [`la`]: `.la` files, shipped and mutated or generated (sizes up to 10⁹, non-zeros,
//!   assertions true and false, long `let` chains), with random schedulers and limits;
//! * [`budget`]: every shipped program and sketch with random `--time`, `--memory`, `--nodes`,
//!   schedulers and step `limits = {…}`, sometimes under a small address-space limit.
//!
//! [`run_case`] runs a case in process and sorts what happened into an [`CaseOutcome`] (an input
//! refused with an error, a search stopped by a limit, a result checked) or a [`Defect`] (a
//! panic, an error without a message, an internal error, a wrong result, unsafe C).
//! [`isolate`] runs a case in a child process under a watchdog and a memory cap instead, so
//! that a hang or an abort is counted rather than stopping the campaign; [`tally`] counts the
//! runs of a campaign by family. `tests/suite/fuzz.rs` runs a bounded campaign in CI;
//! `examples/fuzz_campaign.rs` runs long ones.

// The stages below this crate, under the names the code uses (`crate::ir::…`).
#[allow(unused_imports)]
use risec::pipeline;
#[allow(unused_imports)]
use risec::*;
#[allow(unused_imports)]
use risec_backend::{self as backend_c, lowlevel};
#[allow(unused_imports)]
use risec_bench as bench;
#[allow(unused_imports)]
use risec_core::{core, diagnostics, interp, ir, support};
#[allow(unused_imports)]
use risec_eqsat as eqsat;
#[allow(unused_imports)]
use risec_frontend as frontend;

pub mod budget;
pub mod c_check;
mod draws;
mod exec;
pub mod isolate;
pub mod la;
pub mod mutate;
pub mod offset;
pub mod prove;
pub mod replay;
pub mod shipped;
pub mod sketch;
pub mod tally;

pub use tally::{Class, Record, Tally};

use crate::eqsat::schedule::Scheduler;
use c_check::{CDefect, CRun};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A family of cases (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Family {
    /// Mutated shipped matmul sketches, programs and low-level programs.
    Sketch,
    /// Offset sizes and large splits.
    Offset,
    /// `risec prove` goals.
    Prove,
    /// `.la` files through `risec la`.
    La,
    /// Random budgets and step limits on the shipped sketches.
    Budget,
}

impl Family {
    /// Every family, in the order of the campaign's table.
    pub const ALL: [Family; 5] = [
        Family::Sketch,
        Family::Offset,
        Family::Prove,
        Family::La,
        Family::Budget,
    ];

    /// The family's name on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            Family::Sketch => "sketch",
            Family::Offset => "offset",
            Family::Prove => "prove",
            Family::La => "la",
            Family::Budget => "budget",
        }
    }

    /// Draws case `seed` of this family.
    pub fn draw(self, seed: u64) -> Case {
        match self {
            Family::Sketch => sketch::draw(seed),
            Family::Offset => offset::draw(seed),
            Family::Prove => prove::draw(seed),
            Family::La => la::draw(seed),
            Family::Budget => budget::draw(seed),
        }
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Family {
    type Err = String;

    fn from_str(text: &str) -> Result<Family, String> {
        Family::ALL
            .into_iter()
            .find(|f| f.name() == text.trim())
            .ok_or_else(|| {
                format!("unknown family `{text}`: expected sketch, offset, prove, la or budget")
            })
    }
}

/// The options a case passes to risec, as on its command line; `None` leaves risec's
/// default (or the campaign's, for the time).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// `--time`: the run's budget (main job), the search's (prove) or each saturation's (la).
    pub time: Option<Duration>,
    /// `--memory` (main job, prove).
    pub memory: Option<u64>,
    /// `--nodes`.
    pub nodes: Option<usize>,
    /// `--iterations` (prove, la).
    pub iterations: Option<usize>,
    /// `--scheduler`.
    pub scheduler: Scheduler,
    /// `--seed`.
    pub seed: u64,
    /// The largest size the interpreter and the C are run at when checking a result.
    pub check_sizes: u64,
    /// An address-space limit (`ulimit -v`) for the process, in bytes: applied when the case
    /// runs in a child process ([`isolate`]), ignored in process.
    pub address_space: Option<u64>,
}

impl Default for Settings {
    /// The settings of a case that draws none: risec's defaults, results checked at sizes up
    /// to 24.
    fn default() -> Settings {
        Settings {
            time: None,
            memory: None,
            nodes: None,
            iterations: None,
            scheduler: Scheduler::default(),
            seed: 0,
            check_sizes: 24,
            address_space: None,
        }
    }
}

/// A file a case writes before it runs: its path (relative to the case's folder) and text.
pub type File = (String, String);

/// What a case feeds the pipeline.
#[derive(Clone, Debug)]
pub enum Input {
    /// A program and a sketch file (with the files it imports) through the main job with C
    /// output.
    MainJob {
        /// The program's text.
        program: String,
        /// The sketch file: its path and text.
        sketch: File,
        /// The files beside it (the libraries it imports), at their paths.
        files: Vec<File>,
    },
    /// A low-level program through C generation.
    EmitC {
        /// The program's text.
        program: String,
    },
    /// `risec prove START GOAL --rules RULES`.
    Prove {
        /// The start program's text.
        start: String,
        /// The goal program's text.
        goal: String,
        /// `--rules`.
        rules: String,
        /// Whether both are put in normal form first (no `--no-normalize`).
        normalize: bool,
    },
    /// `risec la FILE.la`.
    La {
        /// The `.la` file's text.
        text: String,
    },
}

/// One fuzzing case.
#[derive(Clone, Debug)]
pub struct Case {
    /// Its family.
    pub family: Family,
    /// The seed it was drawn from.
    pub seed: u64,
    /// What it was made from, and how (`sketch:blocking.sk ×2`).
    pub origin: String,
    /// Its input.
    pub input: Input,
    /// Its options.
    pub settings: Settings,
}

impl Case {
    /// The time the run should keep to (its `--time`, or `default` where it has none), if it
    /// has a budget at all: the main job's whole run, prove's search, and for `la` each
    /// saturation (the outputs' and one per assertion, as counted in the text).
    pub fn budget(&self, default: Duration) -> Option<Duration> {
        let time = self.settings.time.unwrap_or(default);
        match &self.input {
            Input::EmitC { .. } => None,
            Input::MainJob { .. } | Input::Prove { .. } => Some(time),
            Input::La { text } => {
                let starts = |w: &str| {
                    text.lines()
                        .filter(|l| l.trim_start().starts_with(w))
                        .count() as u32
                };
                let outputs = (starts("output") > 0) as u32;
                let assertions = starts("assert");
                Some(time * (outputs + assertions).max(1))
            }
        }
    }

    /// The replay id: `family:seed`.
    pub fn id(&self) -> String {
        format!("{}:{}", self.family, self.seed)
    }
}

/// Draws case `seed` of the `sketch` family (the campaign of issue 19).
pub fn draw(seed: u64) -> Case {
    sketch::draw(seed)
}

/// What a case did, when it did nothing wrong.
#[derive(Clone, Debug, PartialEq)]
pub enum CaseOutcome {
    /// The program was refused with diagnostics.
    ProgramRefused,
    /// The sketch file was refused with diagnostics.
    SketchRefused,
    /// A step found no program within its limits.
    NotFound,
    /// The run's budget ran out outside the searches.
    OutOfBudget,
    /// The back end refused the program with an error.
    CRefused,
    /// C was generated (and not run); the optimised program, where there was one, was not
    /// comparable with the original in the interpreter.
    Generated,
    /// C was generated, and the optimised program agrees with the original in the
    /// interpreter (the result's sizes).
    Interpreted(Vec<u64>),
    /// C was generated and run: its result.
    Ran(CRun),
    /// `risec prove` refused its input (unknown rule, different types, …) with an error.
    ProveRefused,
    /// `risec prove` searched: whether it found the goal, and whether start and goal were
    /// compared in the interpreter (they agreed).
    Proved {
        /// The goal was found.
        found: bool,
        /// Start and goal were evaluated and agreed.
        checked: bool,
    },
    /// `risec la` refused the file with an error.
    LaRefused,
    /// `risec la` ran: its plan (checked against the outputs where they were small enough) and
    /// its assertions.
    La {
        /// Assertions proven (each checked numerically where small enough).
        proven: usize,
        /// Assertions not proven within the limits.
        unproven: usize,
    },
}

impl CaseOutcome {
    /// A short name, for the campaign's counts.
    pub fn name(&self) -> &'static str {
        match self {
            CaseOutcome::ProgramRefused => "program refused with diagnostics",
            CaseOutcome::SketchRefused => "sketch file refused with diagnostics",
            CaseOutcome::NotFound => "search found nothing within its limits",
            CaseOutcome::OutOfBudget => "run budget ran out",
            CaseOutcome::CRefused => "back end refused with an error",
            CaseOutcome::Generated => "C generated (not run)",
            CaseOutcome::Interpreted(_) => "C generated, result agrees in the interpreter",
            CaseOutcome::Ran(CRun::Matched(_)) => "C run: matches the interpreter",
            CaseOutcome::Ran(CRun::Refused(_)) => "C run: refused the sizes (non-zero return)",
            CaseOutcome::Ran(CRun::NotComparable(_)) => "C run: not comparable",
            CaseOutcome::ProveRefused => "prove: refused with an error",
            CaseOutcome::Proved {
                found: true,
                checked: true,
            } => "prove: found, start and goal agree",
            CaseOutcome::Proved { found: true, .. } => "prove: found (not comparable)",
            CaseOutcome::Proved { found: false, .. } => "prove: not found within the limits",
            CaseOutcome::LaRefused => "la: refused with an error",
            CaseOutcome::La { unproven: 0, .. } => "la: plan, every assertion proven",
            CaseOutcome::La { .. } => "la: plan, an assertion not proven",
        }
    }

    /// Its class in the campaign's table: a refusal is an error, a search stopped by a limit
    /// is a limit, everything else ok.
    pub fn class(&self) -> Class {
        match self {
            CaseOutcome::ProgramRefused
            | CaseOutcome::SketchRefused
            | CaseOutcome::CRefused
            | CaseOutcome::ProveRefused
            | CaseOutcome::LaRefused => Class::Error,
            CaseOutcome::NotFound
            | CaseOutcome::OutOfBudget
            | CaseOutcome::Proved { found: false, .. } => Class::Limit,
            _ => Class::Ok,
        }
    }
}

/// Something a case must never do.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Defect {
    /// risec panicked.
    #[error("panic: {0}")]
    Panic(String),
    /// An error whose message says nothing, or names internal things.
    #[error("a bad error message: {0:?}")]
    BadMessage(String),
    /// The optimised program failed the type check before output (a rule made it ill-typed).
    #[error("an ill-typed result: {0}")]
    IllTyped(String),
    /// An internal compiler error.
    #[error("internal error: {0}")]
    Internal(String),
    /// A result that is not true: an optimised program that computes something else than the
    /// original in the interpreter, a `prove` goal or a proven `.la` assertion that differs
    /// numerically from its start, a `.la` plan that differs from its outputs.
    #[error("wrong result: {0}")]
    Wrong(String),
    /// Generated C that is wrong.
    #[error(transparent)]
    C(#[from] CDefect),
}

impl Defect {
    /// Its class in the campaign's table.
    pub fn class(&self) -> Class {
        match self {
            Defect::Panic(_) => Class::Panic,
            Defect::Wrong(_) | Defect::C(CDefect::Wrong { .. }) => Class::Wrong,
            _ => Class::Other,
        }
    }
}

/// How a case runs.
#[derive(Clone, Debug)]
pub struct CaseOptions {
    /// The time budget of a case that draws none.
    pub time: Duration,
    /// Whether to compile and run the C (under sanitizers) when some is generated.
    pub run_c: bool,
    /// Where to write files (sketches for loading, C for running).
    pub dir: PathBuf,
}

/// A case run in process: its result and the wall time of the part its budget covers (the
/// command risec runs, without the checks that follow).
#[derive(Debug)]
pub struct Finished {
    /// What it did.
    pub result: Result<CaseOutcome, Defect>,
    /// The wall time up to its result (or its panic).
    pub elapsed: Duration,
}

/// Runs `case` in process, catching panics.
pub fn run_case(case: &Case, options: &CaseOptions) -> Result<CaseOutcome, Defect> {
    run_case_timed(case, options).result
}

/// [`run_case`], timing the budgeted part.
pub fn run_case_timed(case: &Case, options: &CaseOptions) -> Finished {
    let mut clock = Clock::start();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        exec::run(case, options, &mut clock)
    }));
    let result = match result {
        Ok(r) => r,
        Err(payload) => {
            clock.stop();
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(Defect::Panic(msg))
        }
    };
    Finished {
        result,
        elapsed: clock.elapsed(),
    }
}

/// The wall time of a case's budgeted part: started with the case, stopped (once) before the
/// checks that follow risec's own work.
#[derive(Debug)]
pub(crate) struct Clock {
    started: Instant,
    stopped: Option<Duration>,
}

impl Clock {
    fn start() -> Clock {
        Clock {
            started: Instant::now(),
            stopped: None,
        }
    }

    /// Stops the clock (a second call changes nothing).
    pub(crate) fn stop(&mut self) {
        if self.stopped.is_none() {
            self.stopped = Some(self.started.elapsed());
            isolate::announce_checks();
        }
    }

    fn elapsed(&self) -> Duration {
        self.stopped.unwrap_or_else(|| self.started.elapsed())
    }
}
