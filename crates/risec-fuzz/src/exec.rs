//! Running one case in process, as the `risec` command it stands for would: the main job (C
//! output), `emit-c`, `prove` or `la`, with the case's settings; then checking its result.

use super::c_check::{self, CRun};
use super::{Case, CaseOptions, CaseOutcome, Clock, Defect, Input, Settings};
use crate::backend_c::{CProgram, CodegenOptions};
use crate::core::TypedProgram;
use crate::diagnostics::SourceFile;
use crate::eqsat::schedule::Strategy;
use crate::support::budget::{Budget, Stage};
use crate::Error;
use risec::SearchOptions;
use std::path::{Path, PathBuf};

/// An error message a user may see: must say something, and nothing internal.
fn check_message(text: &str) -> Result<(), Defect> {
    if text.contains("internal compiler error") {
        return Err(Defect::Internal(text.to_string()));
    }
    let internal = text.contains("#0") || text.contains("#1") || text.contains("internal");
    if text.trim().is_empty() || internal {
        return Err(Defect::BadMessage(text.to_string()));
    }
    Ok(())
}

/// An error that is a proper refusal, checked for its message.
fn refused(e: Error, outcome: CaseOutcome) -> Result<CaseOutcome, Defect> {
    if let Error::Internal(m) = &e {
        return Err(Defect::Internal(m.clone()));
    }
    let text = match &e {
        Error::Program(crate::LoadError::Invalid(f)) => f.render(),
        Error::Sketch(s) => s.render(),
        other => other.to_string(),
    };
    check_message(&text)?;
    Ok(outcome)
}

/// An error given as its message.
fn refused_with(text: &str, outcome: CaseOutcome) -> Result<CaseOutcome, Defect> {
    check_message(text)?;
    Ok(outcome)
}

/// A fresh folder for the case's files.
fn fresh_dir(dir: &Path) -> Result<(), Defect> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| Defect::Internal(format!("{}: {e}", dir.display())))
}

/// Writes `text` at `path` under `dir` (creating folders; `..` stays under `dir`).
fn write(dir: &Path, path: &str, text: &str) -> Result<PathBuf, Defect> {
    let target = dir.join(path.replace("..", "__"));
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Defect::Internal(e.to_string()))?;
    }
    std::fs::write(&target, text).map_err(|e| Defect::Internal(e.to_string()))?;
    Ok(target)
}

/// The memory budget of a case: its `--memory`, or risec's default (which respects `ulimit -v`).
fn memory(settings: &Settings) -> u64 {
    settings
        .memory
        .unwrap_or_else(crate::support::memory::default_limit)
}

/// Runs `case`; `clock` is stopped when risec's own work is done, before the checks.
pub(super) fn run(
    case: &Case,
    options: &CaseOptions,
    clock: &mut Clock,
) -> Result<CaseOutcome, Defect> {
    let parse = |text: &str| crate::parse_program(&SourceFile::new("fuzz.rise", text), None);
    let settings = &case.settings;
    let time = settings.time.unwrap_or(options.time);
    let dir = options.dir.join("case");
    match &case.input {
        Input::EmitC { program } => {
            let program = match parse(program) {
                Ok(p) => p,
                Err(e) => return refused(e, CaseOutcome::ProgramRefused),
            };
            let c = match crate::emit_c(&program, &CodegenOptions::default()) {
                Ok(c) => c,
                Err(e) => return refused(e, CaseOutcome::CRefused),
            };
            clock.stop();
            check_c(&c, &program, &program, options, case)
        }
        Input::MainJob {
            program,
            sketch,
            files,
        } => {
            // The run's budget starts before the sketch is loaded, as on the command line.
            let budget = Budget::new(time, memory(settings));
            let program = match parse(program) {
                Ok(p) => p,
                Err(e) => return refused(e, CaseOutcome::ProgramRefused),
            };
            fresh_dir(&dir)?;
            for (path, text) in files {
                write(&dir, path, text)?;
            }
            let sketch_file = write(&dir, &sketch.0, &sketch.1)?;
            let steps = match crate::load_sketch(&sketch_file, &program) {
                Ok(s) => s,
                Err(e) => return refused(e, CaseOutcome::SketchRefused),
            };
            if budget.check(Stage::LoadingSketch).is_err() {
                return Ok(CaseOutcome::OutOfBudget);
            }
            let search = SearchOptions {
                budget,
                strategy: Strategy {
                    scheduler: settings.scheduler,
                    seed: settings.seed,
                },
                nodes: settings.nodes,
                explain: false,
            };
            let optimized = match crate::optimize(&program, &steps, &search) {
                Ok(o) => o,
                Err(Error::NotFound(_)) => return Ok(CaseOutcome::NotFound),
                Err(Error::Budget(_)) => return Ok(CaseOutcome::OutOfBudget),
                Err(e @ Error::IllTypedResult(_)) => return Err(Defect::IllTyped(e.to_string())),
                Err(e) => return refused(e, CaseOutcome::CRefused),
            };
            let c = match crate::emit_c(&optimized.program, &CodegenOptions::default()) {
                Ok(c) => c,
                Err(e) => return refused(e, CaseOutcome::CRefused),
            };
            clock.stop();
            // Under a small address-space limit the C compiler may fail for want of memory:
            // the result is checked in the interpreter only.
            if options.run_c && case.settings.address_space.is_none() {
                return check_c(&c, &optimized.program, &program, options, case);
            }
            let checked = c_check::interpret_against(
                &optimized.program,
                &program,
                settings.check_sizes,
                case.seed,
            )?;
            Ok(match checked {
                CRun::Matched(sizes) => CaseOutcome::Interpreted(sizes),
                _ => CaseOutcome::Generated,
            })
        }
        Input::Prove {
            start,
            goal,
            rules,
            normalize,
        } => {
            fresh_dir(&dir)?;
            let start_path = write(&dir, "start.rise", start)?;
            let goal_path = write(&dir, "goal.rise", goal)?;
            let defaults = crate::eqsat::limits::Limits::default();
            let prove_options = crate::eqsat::prove::ProveOptions {
                rules: rules.clone(),
                normalize: *normalize,
                limits: crate::eqsat::limits::Limits {
                    time,
                    nodes: settings.nodes.unwrap_or(defaults.nodes),
                    iterations: settings.iterations.unwrap_or(defaults.iterations),
                    memory: memory(settings),
                    ..defaults
                },
                strategy: Strategy {
                    scheduler: settings.scheduler,
                    seed: settings.seed,
                },
                ..Default::default()
            };
            let path = |p: &Path| p.display().to_string();
            let outcome =
                crate::eqsat::prove::prove(&path(&start_path), &path(&goal_path), &prove_options);
            clock.stop();
            let outcome = match outcome {
                Ok(o) => o,
                Err(e) => return refused_with(&e.to_string(), CaseOutcome::ProveRefused),
            };
            if !outcome.found() {
                return Ok(CaseOutcome::Proved {
                    found: false,
                    checked: false,
                });
            }
            let assumed = &outcome.search.summary.assumed;
            let checked = super::prove::check_goal(start, goal, assumed, 24, case.seed)
                .map_err(|e| Defect::Wrong(format!("prove found a goal that is not equal: {e}")))?;
            Ok(CaseOutcome::Proved {
                found: true,
                checked,
            })
        }
        Input::La { text } => run_la(text, settings, time, clock),
    }
}

/// `risec la`: the plan of the outputs (checked as the command checks it), then each
/// assertion; a proven assertion is checked numerically.
fn run_la(
    text: &str,
    settings: &Settings,
    time: std::time::Duration,
    clock: &mut Clock,
) -> Result<CaseOutcome, Defect> {
    use risec_la as la;
    let program = match la::parse(&SourceFile::new("fuzz.la", text)) {
        Ok(p) => p,
        Err(e) => return refused_with(&e.to_string(), CaseOutcome::LaRefused),
    };
    let defaults = la::LaOptions::default();
    let options = la::LaOptions {
        time,
        nodes: settings.nodes.unwrap_or(defaults.nodes),
        iterations: settings.iterations.unwrap_or(defaults.iterations),
        scheduler: settings.scheduler,
        seed: settings.seed,
        extractor: la::Extractor::Greedy,
        ..defaults
    };
    if !program.outputs.is_empty() {
        let plan = match la::optimize(&program, &options) {
            Ok(p) => p,
            Err(e) => return refused_with(&e.to_string(), CaseOutcome::LaRefused),
        };
        if let la::Check::Differs(name, e) = la::check_plan(&program, &plan, settings.seed) {
            return Err(Defect::Wrong(format!(
                "the plan of output `{name}` differs from the output as written (relative difference {e:.1e})"
            )));
        }
    }
    let mut proven = Vec::new();
    let mut unproven = 0;
    for assertion in &program.assertions {
        match la::prove(&program, assertion, &options) {
            Ok(p) if p.proven => proven.push(assertion),
            Ok(_) => unproven += 1,
            Err(e) => return refused_with(&e.to_string(), CaseOutcome::LaRefused),
        }
    }
    clock.stop();
    for assertion in &proven {
        if let la::Check::Differs(_, e) = la::check_assertion(&program, assertion, settings.seed) {
            return Err(Defect::Wrong(format!(
                "line {}: `{}` proven, but its sides differ numerically (relative difference {e:.1e})",
                assertion.line, assertion.text
            )));
        }
    }
    Ok(CaseOutcome::La {
        proven: proven.len(),
        unproven,
    })
}

/// Generates C for `lowered` and, if asked, runs it against `reference`.
fn check_c(
    c: &CProgram,
    lowered: &TypedProgram,
    reference: &TypedProgram,
    options: &CaseOptions,
    case: &Case,
) -> Result<CaseOutcome, Defect> {
    if !options.run_c {
        return Ok(CaseOutcome::Generated);
    }
    let dir: &Path = &options.dir.join("c");
    Ok(CaseOutcome::Ran(c_check::run_against_interpreter(
        c,
        lowered,
        reference,
        case.settings.check_sizes,
        case.seed,
        dir,
    )?))
}
