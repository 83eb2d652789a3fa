//! `risec tune PROGRAM --sketch S.sk --size …`: the sketch's tunable parameters (`param NAME =
//! V in [ … ]`) chosen for this machine and shape by measurement. Each batch of choices is
//! searched, compiled into one driver with the incumbent, checked against the reference
//! interpreter at small sizes and against the naive lowering at the tuned sizes, and timed
//! ([`risec_bench`]'s harness); [`search::Search`] picks the batches. The best choice and the
//! defaults are timed once more side by side, and the result is added to a tuning file
//! ([`risec_bench::tuning`]), which the main job and `risec bench` read with `--tuning`.

pub mod search;

use crate::core::TypedProgram;
use crate::support::machine::Machine;
use crate::support::output::{check_not_inputs, check_writable, write_atomically};
use crate::versions::{check_sizes, run_sizes, sizes_text, work_dir};
use indicatif::{ProgressBar, ProgressStyle};
use risec_bench::tuning::{Record, TuningFile};
use risec_bench::{Kernels, Oracle, Version};
use risec_sketch::params::Assignment;
use search::Search;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The arguments of `risec tune`.
#[derive(clap::Args, Clone, Debug)]
pub struct TuneArgs {
    /// The program (`.rise`).
    pub program: String,
    /// The sketch file whose parameters to tune (`param NAME = V in [ … ]`).
    #[arg(long, value_name = "FILE.sk")]
    pub sketch: String,
    /// The shape to tune for, e.g. `m=1024,n=1024,k=1024`.
    #[arg(long)]
    pub size: String,
    /// OpenMP threads the kernels run with.
    #[arg(long, default_value_t = 1)]
    pub threads: u32,
    /// Stop starting new batches after this long (searching, compiling, checking and timing
    /// included), e.g. `5m`, `90s`.
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = crate::support::units::parse_duration)]
    pub budget: Duration,
    /// Choices compiled and timed together in one driver.
    #[arg(long, default_value_t = 6)]
    pub batch: usize,
    /// Timed rounds per batch (the median is compared; the final comparison has twice as many).
    #[arg(long, default_value_t = 5, value_parser = super::args::parse_rounds::<u32>)]
    pub rounds: u32,
    /// Seed of the random choices that fill batches.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Add the result to this tuning file (created if missing; a record of the same machine,
    /// program, sketch, shape and threads is replaced).
    #[arg(long, value_name = "FILE.json", default_value = "tuning.json")]
    pub record: String,
    /// Sizes of the check against the reference interpreter [default: a small size the
    /// program's facts allow].
    #[arg(long, value_name = "SIZES")]
    pub check_size: Option<String>,
    /// Keep the generated C and drivers in this directory.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<String>,
    /// Do not check the sketch's user rule NAME against the interpreter (repeatable).
    #[arg(long = "trust-rule", value_name = "NAME")]
    pub trust_rule: Vec<String>,
}

/// What one choice gave in a run.
type Outcome = Result<f64, String>;

/// Everything a batch needs.
struct Tuner<'a> {
    args: &'a TuneArgs,
    program: TypedProgram,
    sizes: Vec<u64>,
    small: Vec<u64>,
    dir: PathBuf,
    runs: usize,
    flops: Option<u64>,
    /// The defaults' program: the reference at the tuned sizes (see
    /// [`risec_bench::Kernels::reference`]); the defaults are checked against the interpreter
    /// in the first batch.
    reference: Option<TypedProgram>,
}

/// Runs `risec tune`; the table, or an error.
pub fn tune(args: &TuneArgs) -> Result<String, String> {
    let started = Instant::now();
    if args.threads == 0 || args.batch == 0 {
        return Err("error: `--threads` and `--batch` must be positive".into());
    }
    let record_path = PathBuf::from(&args.record);
    check_writable(&record_path).map_err(|e| e.to_string())?;
    let inputs = [PathBuf::from(&args.program), PathBuf::from(&args.sketch)];
    let input_refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    check_not_inputs(&[record_path.as_path()], &input_refs).map_err(|e| e.to_string())?;
    let mut file = if record_path.exists() {
        TuningFile::read(&record_path).map_err(|e| e.to_string())?
    } else {
        TuningFile::default()
    };
    let program = crate::load_program(&args.program, None).map_err(|e| e.to_string())?;
    let sizes = run_sizes(&program, &args.size)?;
    let small = check_sizes(&program, args.check_size.as_deref())?;
    let machine = Machine::host();
    let options = crate::SketchOptions {
        trusted_rules: args.trust_rule.clone(),
        ..Default::default()
    };
    let space =
        crate::sketch::resolve::parameter_space(Path::new(&args.sketch), &program, &options)
            .map_err(|e| e.to_string())?;
    if space.tunable().is_empty() {
        return Err(format!(
            "error: `{}` has no tunable parameters: declare them as `param NAME = DEFAULT in [C, …]` (docs/sketches.md)",
            args.sketch
        ));
    }
    let choices = space.choices();
    if choices.is_empty() {
        return Err(format!(
            "error: no choice of `{}`'s candidates meets its constraints and budgets on this machine",
            args.sketch
        ));
    }
    let defaults: Assignment = space
        .evaluate(&[])
        .map_err(|e| format!("error: the defaults of `{}`: {e}", args.sketch))?
        .into_iter()
        .filter(|(n, _)| space.tunable().contains(&n.as_str()))
        .collect();
    let mut all = vec![defaults.clone()];
    all.extend(choices.into_iter().filter(|c| *c != defaults));
    let (dir, _guard) = work_dir(args.keep.as_deref())?;
    let flops = crate::core::flops::flop_count(&program, &sizes);
    let mut tuner = Tuner {
        args,
        program,
        sizes,
        small,
        dir,
        runs: 0,
        flops,
        reference: None,
    };
    tuner.reference = tuner.version(&defaults).ok().map(|v| v.program);
    eprintln!(
        "tuning {} ({}) at {} with {} thread(s) on {}: {} choices of {} within the constraints and budgets",
        args.sketch,
        tuner.program.name,
        sizes_text(&tuner.program, &tuner.sizes),
        args.threads,
        machine.cpu,
        all.len(),
        space.tunable().join(", ")
    );
    let mut search = Search::new(all, args.seed);
    let mut reasons: BTreeMap<usize, String> = BTreeMap::new();
    let bar = ProgressBar::new(search.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{elapsed:>4} [{bar:30}] {pos}/{len} choices · {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut last_batch = Duration::ZERO;
    loop {
        // The next batch and the final comparison (about one batch) must fit the budget.
        if started.elapsed() + 2 * last_batch > args.budget {
            bar.suspend(|| {
                eprintln!(
                    "the budget ({}) is spent",
                    humantime::format_duration(args.budget)
                )
            });
            break;
        }
        let incumbent = search.best().map(|(k, _)| k);
        let batch = search.next_batch(args.batch);
        if batch.is_empty() {
            break;
        }
        let batch_started = Instant::now();
        let mut measured: Vec<usize> = incumbent.into_iter().collect();
        measured.extend(&batch);
        let choices: Vec<Assignment> = measured.iter().map(|&k| search.choice(k).clone()).collect();
        let outcomes = tuner.run(&choices, args.rounds)?;
        let incumbent_ms = incumbent.and_then(|_| outcomes[0].as_ref().ok().copied());
        let run: Vec<(usize, Option<f64>)> = measured
            .iter()
            .zip(&outcomes)
            .skip(usize::from(incumbent.is_some()))
            .map(|(&k, o)| (k, o.as_ref().ok().copied()))
            .collect();
        for (&k, o) in measured.iter().zip(&outcomes) {
            if let Err(why) = o {
                reasons.insert(k, why.clone());
            }
        }
        if incumbent.is_some() && incumbent_ms.is_none() {
            return Err(format!(
                "error: the best choice so far ({}) failed when run again: {}",
                text(search.choice(measured[0])),
                outcomes[0].as_ref().err().cloned().unwrap_or_default()
            ));
        }
        search.record(&run, incumbent_ms);
        last_batch = batch_started.elapsed();
        bar.set_position(search.measured() as u64);
        if let Some((k, score)) = search.best() {
            let line = format!(
                "batch {}: {} choice(s) in {:.1} s; best {} ({:.3}× the defaults' time)",
                tuner.runs,
                batch.len(),
                last_batch.as_secs_f64(),
                text(search.choice(k)),
                score
            );
            bar.set_message(format!("best {} ({score:.3}×)", text(search.choice(k))));
            bar.suspend(|| eprintln!("{line}"));
        }
    }
    bar.finish_and_clear();
    let Some((best, _)) = search.best() else {
        let why: Vec<String> = reasons.values().take(3).cloned().collect();
        return Err(format!(
            "error: no choice compiled and verified; the first failures:\n  {}",
            why.join("\n  ")
        ));
    };
    // The best and the defaults side by side, with twice the rounds: the record's times.
    let mut finalists = vec![search.choice(best).clone()];
    if best != 0 {
        finalists.push(search.choice(0).clone());
    }
    let outcomes = tuner.run(&finalists, args.rounds * 2)?;
    let best_ms = outcomes[0]
        .clone()
        .map_err(|e| format!("error: the best choice failed when run again: {e}"))?;
    let default_ms = match outcomes.get(1) {
        Some(o) => o.as_ref().ok().copied().unwrap_or(f64::NAN),
        None => best_ms,
    };
    let (chosen, chosen_ms) = if best_ms <= default_ms || default_ms.is_nan() {
        (search.choice(best).clone(), best_ms)
    } else {
        (search.choice(0).clone(), default_ms)
    };
    let gflops = tuner.flops.map(|f| f as f64 / (chosen_ms * 1e6));
    let record = Record {
        machine: machine.clone(),
        program: tuner.program.name.clone(),
        sketch: file_name(&args.sketch),
        sizes: tuner
            .program
            .size_params
            .iter()
            .cloned()
            .zip(tuner.sizes.iter().copied())
            .collect(),
        threads: args.threads,
        params: chosen.iter().cloned().collect(),
        median_ms: chosen_ms,
        gflops,
        default_ms,
        tried: search.measured(),
        date: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
    };
    let mut out = table(&search, &reasons, tuner.flops, default_ms);
    let _ = writeln!(
        out,
        "chosen: {} — {:.4} ms{} against the defaults' {:.4} ms in the same run ({:.2}×); {} of {} choices tried in {:.0} s",
        record.params_text(),
        chosen_ms,
        gflops.map(|g| format!(" ({g:.1} GFLOP/s)")).unwrap_or_default(),
        default_ms,
        default_ms / chosen_ms,
        search.measured(),
        search.len(),
        started.elapsed().as_secs_f64()
    );
    file.insert(record);
    write_atomically(&record_path, &file.to_json()).map_err(|e| e.to_string())?;
    let _ = writeln!(out, "wrote {}", record_path.display());
    Ok(out)
}

impl Tuner<'_> {
    /// Searches, compiles, checks and times `choices` together; each one's median time or why
    /// it has none.
    fn run(&mut self, choices: &[Assignment], rounds: u32) -> Result<Vec<Outcome>, String> {
        self.runs += 1;
        let mut outcomes: Vec<Outcome> = Vec::new();
        let mut versions = Vec::new();
        for c in choices {
            match self.version(c) {
                Ok(v) => {
                    outcomes.push(Err("no time reported".into()));
                    versions.push(Some(v));
                }
                Err(e) => {
                    outcomes.push(Err(e));
                    versions.push(None);
                }
            }
        }
        // Built, checked and timed; a kernel that fails a check is left out and the rest run
        // again.
        loop {
            let live: Vec<Version> = versions.iter().flatten().cloned().collect();
            if live.is_empty() {
                return Ok(outcomes);
            }
            let dir = self.dir.join(format!("run{}", self.runs));
            let built = risec_bench::build(
                &Kernels {
                    program: &self.program,
                    versions: &live,
                    user: &[],
                    openblas: false,
                    sanitize: false,
                    libs: &[],
                    extra_flags: &[],
                    reference: self.reference.as_ref(),
                },
                &dir,
            )
            .map_err(|e| e.to_string())?;
            let checked = risec_bench::verify(
                &built,
                &self.program,
                &self.small,
                &Oracle::new(self.args.threads),
                &dir,
            )
            .map_err(|e| e.to_string())?;
            let mut dropped = false;
            for c in checked.iter().filter(|c| !c.verdict.passed()) {
                if let Some(i) = index_of(&versions, &c.name) {
                    outcomes[i] = Err(format!(
                        "against the interpreter at {}: {}",
                        sizes_text(&self.program, &self.small),
                        c.verdict.text()
                    ));
                    versions[i] = None;
                    dropped = true;
                }
            }
            if dropped {
                continue;
            }
            match risec_bench::measure::bench_with(
                &built,
                &self.sizes,
                &[self.args.threads],
                rounds,
                risec_bench::process::Stderr::Captured,
            ) {
                Ok(report) => {
                    for row in &report.rows {
                        if let Some(i) = index_of(&versions, &row.name) {
                            outcomes[i] = if row.code == 0 {
                                Ok(row.median_ms)
                            } else {
                                Err(format!("returned {} at the tuned sizes", row.code))
                            };
                        }
                    }
                    return Ok(outcomes);
                }
                Err(risec_bench::BenchError::WrongResult { kernel, error }) => {
                    let i = index_of(&versions, &kernel).ok_or_else(|| {
                        format!("error: `{kernel}` computes a wrong result (relative error {error:.3e})")
                    })?;
                    outcomes[i] = Err(format!(
                        "wrong result at the tuned sizes (relative error {error:.3e})"
                    ));
                    versions[i] = None;
                }
                Err(e) => return Err(e.to_string()),
            }
        }
    }

    /// The program optimised by the sketch with the parameters of choice `c`.
    fn version(&self, c: &Assignment) -> Result<Version, String> {
        let options = crate::SketchOptions {
            trusted_rules: self.args.trust_rule.clone(),
            params: c.clone(),
            ..Default::default()
        };
        let loaded = crate::load_sketch_with(&self.args.sketch, &self.program, &options)
            .map_err(|e| first_line(&e.to_string()))?;
        let done = crate::optimize(&self.program, &loaded.steps, &Default::default())
            .map_err(|e| first_line(&e.to_string()))?;
        Ok(Version {
            name: text(c),
            program: done.program,
            exact_sizes: false,
        })
    }
}

/// The index of the version named `name` among `versions` (by [`text`]).
fn index_of(versions: &[Option<Version>], name: &str) -> Option<usize> {
    versions
        .iter()
        .position(|v| v.as_ref().is_some_and(|v| v.name == name))
}

/// A choice as `NAME=V NAME=V`.
fn text(c: &Assignment) -> String {
    c.iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_string()
}

/// The last component of a path, as records name sketch files.
pub fn file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |f| f.to_string_lossy().into_owned())
}

/// The table of measured choices (best first, at most 12) and failures.
fn table(
    search: &Search,
    reasons: &BTreeMap<usize, String>,
    flops: Option<u64>,
    default_ms: f64,
) -> String {
    let mut out = String::new();
    let ranking = search.ranking();
    let width = ranking
        .iter()
        .map(|(k, _)| text(search.choice(*k)).len())
        .max()
        .unwrap_or(10)
        .max(10);
    let _ = writeln!(
        out,
        "{:<width$}  {:>10}  {:>9}  {:>8}",
        "choice", "est. ms", "GFLOP/s", "speed-up"
    );
    for (k, score) in ranking.iter().take(12) {
        let ms = score * default_ms;
        let gflops = flops
            .map(|f| format!("{:.1}", f as f64 / (ms * 1e6)))
            .unwrap_or_else(|| "-".into());
        let _ = writeln!(
            out,
            "{:<width$}  {:>10.4}  {:>9}  {:>7.2}×{}",
            text(search.choice(*k)),
            ms,
            gflops,
            1.0 / score,
            if *k == 0 { "  (defaults)" } else { "" }
        );
    }
    if ranking.len() > 12 {
        let _ = writeln!(out, "… and {} more", ranking.len() - 12);
    }
    for k in search.failed() {
        let _ = writeln!(
            out,
            "failed: {}: {}",
            text(search.choice(k)),
            reasons.get(&k).map_or("", String::as_str)
        );
    }
    let _ = writeln!(
        out,
        "(est. ms: each choice's time relative to the best one in its run, scaled to the defaults' time in the final run)"
    );
    out
}
