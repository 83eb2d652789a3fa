//! `risec tune PROGRAM --sketch S.sk --size …`: the sketch's tunable parameters (`param NAME =
//! V in [ … ]`) chosen for this machine and shape by measurement. Each batch of choices is
//! searched, compiled into one driver with the incumbent, checked against the reference
//! interpreter at small sizes and against the defaults' C (in double precision) at the tuned
//! sizes, and timed ([`risec_bench`]'s harness); [`search::Search`] picks the batches. Per
//! sketch file, the best choice and the defaults are timed once more side by side, and the
//! result is added to a tuning file ([`risec_bench::tuning`]), which the main job and `risec
//! bench` read with `--tuning`. Several sketch files with the same parameters are one search
//! (the file is a pseudo-parameter, `sketch`).

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
    /// The sketch file whose parameters to tune (`param NAME = V in [ … ]`); with several
    /// (repeat `--sketch`), variants with the same tunable parameters, the file is searched
    /// too, and each gets its record.
    #[arg(long = "sketch", value_name = "FILE.sk", required = true)]
    pub sketch: Vec<String>,
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

/// The name of the pseudo-parameter that says which sketch file a choice is of (only with
/// several `--sketch`).
const SKETCH: &str = "sketch";

/// Everything a batch needs.
struct Tuner<'a> {
    args: &'a TuneArgs,
    /// The sketch files' stems, by index (choices name them in their `sketch` value).
    names: Vec<String>,
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
    /// Each choice's version once searched (or why it has none): the incumbent runs in every
    /// batch, and its sketch search is not repeated.
    versions: std::collections::HashMap<Assignment, Result<Version, String>>,
}

/// Runs `risec tune`; the table, or an error.
pub fn tune(args: &TuneArgs) -> Result<String, String> {
    let started = Instant::now();
    if args.threads == 0 || args.batch == 0 {
        return Err("error: `--threads` and `--batch` must be positive".into());
    }
    let record_path = PathBuf::from(&args.record);
    check_writable(&record_path).map_err(|e| e.to_string())?;
    let inputs: Vec<PathBuf> = std::iter::once(&args.program)
        .chain(&args.sketch)
        .map(PathBuf::from)
        .collect();
    let input_refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    check_not_inputs(&[record_path.as_path()], &input_refs).map_err(|e| e.to_string())?;
    let mut file = if record_path.exists() {
        TuningFile::read(&record_path).map_err(|e| e.to_string())?
    } else {
        TuningFile::default()
    };
    let program = crate::load_program(&args.program, None).map_err(|e| e.to_string())?;
    let sizes = run_sizes(&program, &args.size)?;
    crate::versions::driver_bytes(&program, &sizes)?;
    let small = check_sizes(&program, args.check_size.as_deref())?;
    let machine = Machine::host();
    let options = crate::SketchOptions {
        trusted_rules: args.trust_rule.clone(),
        ..Default::default()
    };
    let (all, tunable) = choices_of(args, &program, &options)?;
    let (dir, _guard) = work_dir(args.keep.as_deref())?;
    let flops = crate::core::flops::flop_count(&program, &sizes);
    let mut tuner = Tuner {
        args,
        names: args.sketch.iter().map(|s| stem(s)).collect(),
        program,
        sizes,
        small,
        dir,
        runs: 0,
        flops,
        reference: None,
        versions: std::collections::HashMap::new(),
    };
    // The first file's defaults are the reference; a sketch that does not load for this
    // program (another program's sketch, a typo) is reported whole, before any search.
    let first = crate::SketchOptions {
        params: params_of(&all[0]),
        ..options.clone()
    };
    if let Err(e) = crate::load_sketch_with(&args.sketch[0], &tuner.program, &first) {
        return Err(e.to_string());
    }
    tuner.reference = tuner.version(&all[0]).ok().map(|v| v.program);

    eprintln!(
        "tuning {} ({}) at {} with {} thread(s) on {}: {} choices of {} within the constraints and budgets",
        args.sketch.join(", "),
        tuner.program.name,
        sizes_text(&tuner.program, &tuner.sizes),
        args.threads,
        machine.cpu,
        all.len(),
        tunable.join(", ")
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
                tuner.label(search.choice(measured[0])),
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
                tuner.label(search.choice(k)),
                score
            );
            bar.set_message(format!(
                "best {} ({score:.3}×)",
                tuner.label(search.choice(k))
            ));
            bar.suspend(|| eprintln!("{line}"));
        }
    }
    bar.finish_and_clear();
    if search.best().is_none() {
        let why: Vec<String> = reasons.values().take(3).cloned().collect();
        return Err(format!(
            "error: no choice compiled and verified; the first failures:\n  {}",
            why.join("\n  ")
        ));
    }
    // Per sketch file, its best choice and its defaults side by side, with twice the rounds:
    // the records' times.
    let mut finalists: Vec<usize> = Vec::new();
    for sketch in 0..args.sketch.len() {
        let of_sketch = |k: &usize| sketch_of(search.choice(*k)) == sketch;
        let best = search.ranking().into_iter().map(|(k, _)| k).find(of_sketch);
        let defaults = (0..search.len()).find(of_sketch);
        for k in best.into_iter().chain(defaults) {
            if !finalists.contains(&k) {
                finalists.push(k);
            }
        }
    }
    let choices: Vec<Assignment> = finalists
        .iter()
        .map(|&k| search.choice(k).clone())
        .collect();
    let outcomes = tuner.run(&choices, args.rounds * 2)?;
    let time_of = |k: usize| {
        finalists
            .iter()
            .position(|&f| f == k)
            .and_then(|i| outcomes[i].as_ref().ok().copied())
    };
    let mut out = table(
        &search,
        &reasons,
        tuner.flops,
        time_of(0).unwrap_or(f64::NAN),
        &tuner,
    );
    let mut fastest: Option<(String, f64)> = None;
    for sketch in 0..args.sketch.len() {
        let of_sketch = |k: &usize| sketch_of(search.choice(*k)) == sketch;
        let Some(best) = search.ranking().into_iter().map(|(k, _)| k).find(of_sketch) else {
            let _ = writeln!(
                out,
                "{}: no choice compiled and verified",
                tuner.names[sketch]
            );
            continue;
        };
        let defaults = (0..search.len()).find(of_sketch).unwrap_or(best);
        let (Some(best_ms), default_ms) = (time_of(best), time_of(defaults)) else {
            return Err(format!(
                "error: the best choice of `{}` failed when run again",
                args.sketch[sketch]
            ));
        };
        let default_ms = default_ms.unwrap_or(f64::NAN);
        let (chosen, chosen_ms) = if best_ms <= default_ms || default_ms.is_nan() {
            (best, best_ms)
        } else {
            (defaults, default_ms)
        };
        let gflops = tuner.flops.map(|f| f as f64 / (chosen_ms * 1e6));
        let record = Record {
            machine: machine.clone(),
            program: tuner.program.name.clone(),
            sketch: file_name(&args.sketch[sketch]),
            sizes: tuner
                .program
                .size_params
                .iter()
                .cloned()
                .zip(tuner.sizes.iter().copied())
                .collect(),
            threads: args.threads,
            params: params_of(search.choice(chosen)).into_iter().collect(),
            median_ms: chosen_ms,
            gflops,
            default_ms,
            tried: (0..search.len())
                .filter(|k| of_sketch(k) && search.was_measured(*k))
                .count(),
            date: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        };
        let _ = writeln!(
            out,
            "chosen{}: {} — {:.4} ms{} against the defaults' {:.4} ms in the same run ({:.2}×); {} of {} choices tried",
            if args.sketch.len() > 1 { format!(" for {}", tuner.names[sketch]) } else { String::new() },
            record.params_text(),
            chosen_ms,
            gflops.map(|g| format!(" ({g:.1} GFLOP/s)")).unwrap_or_default(),
            default_ms,
            default_ms / chosen_ms,
            record.tried,
            (0..search.len()).filter(of_sketch).count(),
        );
        if fastest.as_ref().is_none_or(|(_, t)| chosen_ms < *t) {
            fastest = Some((tuner.names[sketch].clone(), chosen_ms));
        }
        file.insert(record);
    }
    if let (true, Some((name, ms))) = (args.sketch.len() > 1, &fastest) {
        let _ = writeln!(out, "fastest: {name} ({ms:.4} ms)");
    }
    let _ = writeln!(
        out,
        "{} of {} choices tried in {:.0} s",
        search.measured(),
        search.len(),
        started.elapsed().as_secs_f64()
    );
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

    /// The program optimised by the sketch with the parameters of choice `c` (searched once).
    fn version(&mut self, c: &Assignment) -> Result<Version, String> {
        if let Some(known) = self.versions.get(c) {
            return known.clone();
        }
        let found = self.search_version(c);
        self.versions.insert(c.clone(), found.clone());
        found
    }

    /// Runs the sketch's guide steps with the parameters of choice `c`.
    fn search_version(&self, c: &Assignment) -> Result<Version, String> {
        let options = crate::SketchOptions {
            trusted_rules: self.args.trust_rule.clone(),
            params: params_of(c),
            ..Default::default()
        };
        let sketch = &self.args.sketch[sketch_of(c)];
        let loaded = crate::load_sketch_with(sketch, &self.program, &options)
            .map_err(|e| first_line(&e.to_string()))?;
        let done = crate::optimize(&self.program, &loaded.steps, &Default::default())
            .map_err(|e| first_line(&e.to_string()))?;
        Ok(Version {
            name: self.label(c),
            program: done.program,
            exact_sizes: false,
        })
    }
}

impl Tuner<'_> {
    /// A choice as `NAME=V NAME=V`, after the sketch file's stem when there are several.
    fn label(&self, c: &Assignment) -> String {
        let params = params_of(c)
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        if self.names.len() > 1 {
            format!("{} {params}", self.names[sketch_of(c)])
        } else {
            params
        }
    }
}

/// Every choice to search and the tunable parameters' names: the first sketch file's defaults
/// first; with several files, each choice starts with [`SKETCH`], the file's index.
fn choices_of(
    args: &TuneArgs,
    program: &TypedProgram,
    options: &crate::SketchOptions,
) -> Result<(Vec<Assignment>, Vec<String>), String> {
    let several = args.sketch.len() > 1;
    let mut all: Vec<Assignment> = Vec::new();
    let mut names: Option<Vec<String>> = None;
    for (index, sketch) in args.sketch.iter().enumerate() {
        let space = crate::sketch::resolve::parameter_space(Path::new(sketch), program, options)
            .map_err(|e| e.to_string())?;
        let tunable: Vec<String> = space.tunable().iter().map(|s| s.to_string()).collect();
        if tunable.is_empty() {
            return Err(format!(
                "error: `{sketch}` has no tunable parameters: declare them as `param NAME = DEFAULT in [C, …]` (docs/sketches.md)"
            ));
        }
        match &names {
            Some(first) if *first != tunable => {
                return Err(format!(
                    "error: `{sketch}` tunes {} but `{}` tunes {}: sketches tuned together need the same parameters",
                    tunable.join(", "),
                    args.sketch[0],
                    first.join(", ")
                ))
            }
            _ => names = Some(tunable.clone()),
        }
        let defaults: Assignment = space
            .evaluate(&[])
            .map_err(|e| format!("error: the defaults of `{sketch}`: {e}"))?
            .into_iter()
            .filter(|(n, _)| tunable.contains(n))
            .collect();
        let choices = space.choices();
        if choices.is_empty() && !several {
            return Err(format!(
                "error: no choice of `{sketch}`'s candidates meets its constraints and budgets on this machine"
            ));
        }
        let tag = |c: Assignment| -> Assignment {
            if several {
                std::iter::once((SKETCH.to_string(), index as u64))
                    .chain(c)
                    .collect()
            } else {
                c
            }
        };
        all.push(tag(defaults.clone()));
        all.extend(choices.into_iter().filter(|c| *c != defaults).map(tag));
    }
    Ok((all, names.unwrap_or_default()))
}

/// The index of the sketch file a choice is of.
fn sketch_of(c: &Assignment) -> usize {
    c.iter()
        .find(|(n, _)| n == SKETCH)
        .map_or(0, |(_, v)| *v as usize)
}

/// A choice's parameter values, without [`SKETCH`].
fn params_of(c: &Assignment) -> Assignment {
    c.iter().filter(|(n, _)| n != SKETCH).cloned().collect()
}

/// A sketch file's stem (`register-blocking-avx512`).
fn stem(path: &str) -> String {
    Path::new(path)
        .file_stem()
        .map_or_else(|| path.to_string(), |f| f.to_string_lossy().into_owned())
}

/// The index of the version named `name` among `versions` (by [`Tuner::label`]).
fn index_of(versions: &[Option<Version>], name: &str) -> Option<usize> {
    versions
        .iter()
        .position(|v| v.as_ref().is_some_and(|v| v.name == name))
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
    tuner: &Tuner,
) -> String {
    let mut out = String::new();
    let ranking = search.ranking();
    let width = ranking
        .iter()
        .map(|(k, _)| tuner.label(search.choice(*k)).len())
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
            tuner.label(search.choice(*k)),
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
            tuner.label(search.choice(k)),
            reasons.get(&k).map_or("", String::as_str)
        );
    }
    let _ = writeln!(
        out,
        "(est. ms: each choice's time relative to the best one in its run, scaled to the defaults' time in the final run)"
    );
    out
}
