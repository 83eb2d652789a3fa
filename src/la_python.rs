//! `risec la --emit python` and `--bench --target numpy|dask`: the command line of
//! `risec_la::python` (docs/la.md, "Python: NumPy/SciPy and Dask").

use crate::la::LaArgs;
use indicatif::{ProgressBar, ProgressStyle};
use risec_la::python::{self, bench::PythonBench, Header, Target};
use risec_la::{LaPlan, LaProgram};
use std::path::Path;

/// What the arguments ask of the Python targets.
pub struct PythonRequest {
    /// `--emit python`: the target of the module.
    pub emit: Option<Target>,
    /// `--bench --target numpy|dask`: how to run it.
    pub bench: Option<PythonBench>,
}

impl PythonRequest {
    /// Reads and checks the Python options: a target `c` with `--emit python`, or Dask
    /// options without the Dask target, are errors.
    pub fn from_args(args: &LaArgs) -> Result<PythonRequest, String> {
        let target = match args.target.as_deref() {
            None | Some("c") => None,
            Some(t) => Some(t.parse::<Target>()?),
        };
        let emit = match (args.emit.as_str(), args.target.as_deref()) {
            ("python", Some("c")) => {
                return Err("error: `--emit python` needs `--target numpy` or `--target dask`, not `c` (C is written with `-o FILE.c`)".into())
            }
            ("python", _) => Some(target.unwrap_or(Target::Numpy)),
            _ => None,
        };
        if target.is_some() && emit.is_none() && !args.bench {
            return Err("error: `--target` needs `--emit python` or `--bench`".into());
        }
        if args.inputs.is_some() && !(args.bench && target.is_some()) {
            return Err("error: `--inputs` goes with `--bench --target numpy|dask`".into());
        }
        let dask_only = args.dask_scheduler.is_some() || args.worker_memory.is_some();
        if dask_only && !(args.bench && target == Some(Target::Dask)) {
            return Err(
                "error: `--dask-scheduler` and `--worker-memory` go with `--bench --target dask`"
                    .into(),
            );
        }
        if args.workers == 0 {
            return Err("error: `--workers 0`: a cluster needs at least one worker".into());
        }
        let bench = match target {
            Some(target) if args.bench => Some(PythonBench {
                target,
                python: python_path(
                    args.python
                        .clone()
                        .or_else(|| std::env::var("RISEC_PYTHON").ok())
                        .unwrap_or_else(|| "python3".into()),
                ),
                rounds: args.rounds,
                seed: args.seed,
                scheduler: args.dask_scheduler.clone(),
                workers: args.workers,
                worker_memory: args.worker_memory,
                skip_original: args.plan_only,
                original_timeout: args.original_time,
                inputs: args.inputs.clone().map(|d| {
                    std::env::current_dir()
                        .map(|cwd| cwd.join(&d))
                        .unwrap_or_else(|_| d.into())
                }),
            }),
            _ => None,
        };
        Ok(PythonRequest { emit, bench })
    }
}

/// The interpreter's path: a relative path with a folder in it (`.venv/bin/python`) made
/// absolute, since the driver runs in a directory of its own; a bare name is looked up on the
/// `PATH` as usual.
fn python_path(given: String) -> std::path::PathBuf {
    let path = std::path::PathBuf::from(given);
    if path.is_relative() && path.components().count() > 1 {
        if let Ok(dir) = std::env::current_dir() {
            return dir.join(path);
        }
    }
    path
}

/// The module's text: the plan, or the outputs as written with `original`.
pub fn module(program: &LaProgram, plan: &LaPlan, target: Target, original: bool) -> String {
    if original {
        let (expr, roots) = risec_la::codegen::written(program);
        python::module(program, &expr, &roots, target, &Header::original())
    } else {
        python::module(
            program,
            &plan.expr,
            &plan.roots,
            target,
            &Header::plan(plan),
        )
    }
}

/// Checks, before any work, that `path` can be written and is not the `.la` file.
pub fn check_output(path: &str, la_file: &str) -> Result<(), String> {
    let path = Path::new(path);
    crate::support::output::check_not_inputs(&[path], &[Path::new(la_file)])
        .map_err(|e| e.to_string())?;
    crate::support::output::check_writable(path).map_err(|e| e.to_string())
}

/// Writes the module to `path` (all or nothing).
pub fn write_module(
    path: &str,
    program: &LaProgram,
    plan: &LaPlan,
    target: Target,
    original: bool,
) -> Result<(), String> {
    let text = module(program, plan, target, original);
    crate::support::output::write_atomically(Path::new(path), &text).map_err(|e| e.to_string())
}

/// `--bench --target numpy|dask`: the line printed.
pub fn bench_line(
    program: &LaProgram,
    plan: &LaPlan,
    bench: &PythonBench,
) -> Result<String, String> {
    let dir = crate::support::cleanup::WorkDir::new()
        .map_err(|e| format!("error: cannot make a directory: {e}"))?;
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{elapsed:>4} {spinner} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar.set_message(format!("starting {}", bench.python.display()));
    let timing = python::bench::run(program, plan, bench, dir.path(), |step| {
        bar.set_message(describe(step, bench.rounds))
    });
    bar.finish_and_clear();
    let t = timing.map_err(|e| e.to_string())?;
    let bad = |e: f64| e.is_nan() || e > 1e-3;
    if bad(t.plan_error) {
        return Err(format!(
            "error: internal compiler error: the plan differs from the plan run by NumPy (relative difference {:.1e})",
            t.plan_error
        ));
    }
    if let Some(e) = t.evaluator_error.filter(|e| *e > 1e-9) {
        return Err(format!(
            "error: internal compiler error: the plan's Python differs from risec's evaluator (relative difference {e:.1e})"
        ));
    }
    let times = match &t.original {
        None => format!("plan {:.3} ms (as written not timed)", t.plan_ms),
        Some(Ok((ms, e))) if bad(*e) => {
            return Err(format!(
                "error: the outputs as written differ from the plan (relative difference {e:.1e}, {ms:.3} ms)"
            ))
        }
        Some(Ok((ms, _))) => format!(
            "as written {ms:.3} ms, plan {:.3} ms, {}",
            t.plan_ms,
            crate::la::speed_up(*ms, t.plan_ms)
        ),
        Some(Err(why)) => format!("as written failed ({why}), plan {:.3} ms", t.plan_ms),
    };
    let checked = match t.evaluator_error {
        Some(e) => format!("; float64 plan agrees with risec's evaluator within {e:.1e}"),
        None => String::new(),
    };
    Ok(format!(
        "benchmark ({}, float32, {}, median of {} calls): {times} (plan agrees with NumPy within {:.1e}{checked})",
        bench.target.name(),
        t.versions,
        t.rounds,
        t.plan_error
    ))
}

/// A driver's progress step in words.
fn describe(step: &str, rounds: usize) -> String {
    let mut words = step.split_whitespace();
    match (words.next(), words.next()) {
        (Some("inputs"), _) => "inputs made; the reference (the plan on NumPy)".into(),
        (Some("reference"), _) => "reference computed; timing".into(),
        (Some("placed"), _) => "inputs placed on the workers; timing".into(),
        (Some(label), Some(call)) => format!("{label}: call {call} done ({rounds} timed)"),
        _ => step.to_string(),
    }
}
