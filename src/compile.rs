//! The main job, `risec PROGRAM.rise --sketch FILE.sk [-o OUT]`: the pipeline with progress
//! lines and step summaries on standard error, the result as Rise or C, and `--stats`.

use super::args::{Emit, MainJob};
use crate::eqsat::stats::{RunInput, RunStats, SearchStats};
use crate::support::budget::Stage;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Prints `msg` (an error) on standard error and returns exit status 1.
fn fail(msg: &str) -> ExitCode {
    eprintln!("{}", msg.trim_end_matches('\n'));
    ExitCode::from(1)
}

/// Runs `risec PROGRAM.rise --sketch FILE.sk …` and returns its exit status: the arguments
/// checked, the program and sketch loaded, the outputs checked, the search run, and its
/// result written ([`write_result`]).
pub(super) fn main_job(job: MainJob) -> ExitCode {
    let (program, sketch, emit_c) = match check_arguments(&job) {
        Ok(checked) => checked,
        Err(e) => return fail(&e),
    };
    let started = std::time::Instant::now();
    let memory = job
        .memory
        .unwrap_or_else(crate::support::memory::default_limit);
    let options = crate::sketch::guided::SearchOptions {
        budget: crate::support::budget::Budget::new(job.time, memory),
        strategy: crate::eqsat::schedule::Strategy {
            scheduler: job.scheduler,
            seed: job.seed,
        },
        nodes: job.nodes,
        explain: job.explain.is_some(),
    };
    let quiet = job.quiet;
    let mut progress = |p: &crate::sketch::guided::Progress| {
        if !quiet {
            eprintln!(
                "[{}/{}] step {}: iteration {}, {} e-nodes, {:.1} ms",
                p.index.0,
                p.index.1,
                p.step,
                p.iteration.iteration,
                p.iteration.nodes,
                p.elapsed.as_secs_f64() * 1e3
            );
        }
    };
    let p = match crate::load_program(program, job.entry.as_deref()) {
        Ok(p) => p,
        Err(e) => return fail(&e.to_string()),
    };
    let tuned = match &job.tuning {
        Some(file) => match crate::versions::tuned_params(
            file,
            &p,
            sketch,
            job.size.as_deref(),
            None,
            job.quiet,
        ) {
            Ok(params) => params,
            Err(e) => return fail(&e),
        },
        None => Vec::new(),
    };
    let sketch_options = crate::SketchOptions {
        trusted_rules: job.trust_rule.clone(),
        // `--param` after the record's: it overrides them.
        params: tuned.into_iter().chain(job.param.iter().cloned()).collect(),
        ..Default::default()
    };
    let loaded = crate::load_sketch_with(sketch, &p, &sketch_options).map(|loaded| {
        for w in &loaded.warnings {
            eprint!("{w}");
        }
        (p, loaded.steps, loaded.files)
    });
    let (p, steps, files) = match loaded {
        Ok(loaded) => loaded,
        Err(e) => return fail(&e.to_string()),
    };
    // Loading (checking user rules included) counts against the run's budget.
    if let Err(e) = options.budget.check(Stage::LoadingSketch) {
        return fail(&format!("error: {e}"));
    }
    if let Err(e) = check_outputs(&job, program, &files, emit_c) {
        return fail(&e);
    }
    let result = crate::optimize_with_progress(&p, &steps, &options, &mut progress);
    let total = started.elapsed();
    let stats = Stats {
        job: &job,
        program,
        sketch,
        total,
    };
    match result {
        Ok(done) => write_result(&job, &p, &done, &stats, emit_c, &options),
        Err(crate::Error::NotFound(nf)) => {
            stats.write(&nf.steps, &[], &[]);
            eprint!("{}", nf.message());
            ExitCode::from(2)
        }
        Err(e @ crate::Error::IllTypedResult(_)) => {
            // Nothing is written: not the program, not C, not the statistics.
            fail(&e.to_string())
        }
        Err(e) => fail(&e.to_string()),
    }
}

/// The program and sketch paths, and whether C is written (`--emit c`, or `-o` a `.c` file);
/// or the usage error.
fn check_arguments(job: &MainJob) -> Result<(&str, &str, bool), String> {
    let Some(program) = job.program.as_deref() else {
        return Err("error: no program given\n  usage: risec PROGRAM.rise --sketch FILE.sk [-o OUT]   (see `risec --help`)".into());
    };
    let Some(sketch) = job.sketch.as_deref() else {
        return Err(format!(
            "error: no sketch given: `risec {program} --sketch FILE.sk` (the sketches of sketches/ are examples)"
        ));
    };
    let emit_c = job.emit == Emit::C || job.output.as_deref().is_some_and(|o| o.ends_with(".c"));
    if job.size.is_some() && !emit_c {
        return Err(
            "error: `--size` compiles sizes into C: use it with `--emit c` or `-o OUT.c`".into(),
        );
    }
    Ok((program, sketch, emit_c))
}

/// Checks, before the search, that no output replaces an input (the program, the sketch file
/// or a file it imports, `files`) and that every output can be written.
fn check_outputs(
    job: &MainJob,
    program: &str,
    files: &[PathBuf],
    emit_c: bool,
) -> Result<(), String> {
    // No output may replace an input: the program, the sketch file or a file it imports.
    let mut outputs: Vec<PathBuf> = Vec::new();
    if let Some(out) = &job.output {
        outputs.push(out.into());
        if emit_c {
            outputs.push(crate::backend_c::files::header_path(Path::new(out)));
        }
    }
    outputs.extend(job.stats.iter().map(PathBuf::from));
    outputs.extend(job.explain.iter().map(PathBuf::from));
    let outputs: Vec<&Path> = outputs.iter().map(|o| o.as_path()).collect();
    let inputs: Vec<&Path> = std::iter::once(Path::new(program))
        .chain(files.iter().map(|f| f.as_path()))
        .collect();
    crate::support::output::check_not_inputs(&outputs, &inputs).map_err(|e| e.to_string())?;
    // Unwritable outputs fail now rather than after the search; a C file that is a device or
    // a FIFO needs a header that is one too (see `check_writable_pair`).
    outputs
        .iter()
        .try_for_each(|o| crate::support::output::check_writable(o))
        .and_then(|()| match (&job.output, emit_c) {
            (Some(out), true) => {
                let out = Path::new(out);
                let header = crate::backend_c::files::header_path(out);
                crate::support::output::check_writable_pair(out, &header)
            }
            _ => Ok(()),
        })
        .map_err(|e| e.to_string())
}

/// What `--stats FILE` writes: the run's input, its steps' statistics, the facts the result
/// relies on, and the total time.
struct Stats<'a> {
    job: &'a MainJob,
    program: &'a str,
    sketch: &'a str,
    total: Duration,
}

impl Stats<'_> {
    /// Writes the statistics of `steps` (and the result's `facts` and the lowering's
    /// decisions) with `--stats`; `false` (the error printed) when the file cannot be written.
    fn write(&self, steps: &[SearchStats], facts: &[String], lowering: &[String]) -> bool {
        if let Some(path) = &self.job.stats {
            let input = RunInput::Sketch {
                program: self.program.to_string(),
                sketch: self.sketch.to_string(),
            };
            let mut stats = RunStats::new(input, steps.to_vec(), facts.to_vec(), self.total);
            stats.lowering = lowering.to_vec();
            let text = crate::eqsat::stats::to_json(&stats);
            if let Err(e) = crate::support::output::write_atomically(Path::new(path), &text) {
                eprintln!("{e}");
                return false;
            }
        }
        true
    }
}

/// After a successful search: the step summaries and the total (unless `--quiet`), the
/// statistics and the explanation, then the result as C or as Rise.
fn write_result(
    job: &MainJob,
    p: &crate::core::TypedProgram,
    done: &crate::pipeline::Optimized,
    stats: &Stats,
    emit_c: bool,
    options: &crate::sketch::guided::SearchOptions,
) -> ExitCode {
    if !job.quiet {
        for s in &done.steps {
            eprintln!("{}", s.step_line());
        }
        eprintln!(
            "total {:.1} ms; the result relies on: {}",
            stats.total.as_secs_f64() * 1e3,
            if done.facts.is_empty() {
                "no divisibility facts".to_string()
            } else {
                done.facts.join(", ")
            }
        );
    }
    if !stats.write(&done.steps, &done.facts, &done.lowering) {
        return ExitCode::from(1);
    }
    if let Some(path) = &job.explain {
        let text = explanation_text(p, &done.explanations);
        if let Err(e) = crate::support::output::write_atomically(Path::new(path), &text) {
            return fail(&e.to_string());
        }
    }
    if emit_c {
        return write_c(job, stats.program, done, options);
    }
    match &job.output {
        Some(path) => match crate::support::output::write_atomically(Path::new(path), &done.source)
        {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&e.to_string()),
        },
        None => {
            print!("{}", done.source);
            ExitCode::SUCCESS
        }
    }
}

/// The result compiled to C (within what is left of the budget): written to `-o` and its
/// header, or printed; the compiler's warnings printed.
fn write_c(
    job: &MainJob,
    program: &str,
    done: &crate::pipeline::Optimized,
    options: &crate::sketch::guided::SearchOptions,
) -> ExitCode {
    let out = job.output.as_deref().map(Path::new);
    let size = job.size.as_deref();
    let generated = options
        .budget
        .check(Stage::GeneratingC)
        .map_err(|e| format!("error: {e}"))
        .and_then(|()| {
            crate::backend_c::files::compile_to_files(&done.program, out, size, job.exact_sizes)
                .inspect(|(c, _)| super::print_codegen_warnings(&c.warnings))
                .map_err(|e| e.in_source_file(Path::new(program), false).to_string())
        });
    match generated {
        Ok((_, text)) => {
            if out.is_none() {
                print!("{text}");
            } else if !job.quiet {
                eprint!("{text}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e),
    }
}

/// What `--explain FILE` writes: per step, the rewrites from its start to its result.
fn explanation_text(
    program: &crate::core::TypedProgram,
    explanations: &[(String, Vec<crate::eqsat::explain::ExplanationStep>)],
) -> String {
    let show = |e: &crate::core::Expr, b: &[crate::eqsat::explain::Binder]| {
        crate::eqsat::explain::subterm_text(program, e, b)
    };
    let mut out = String::new();
    for (step, rewrites) in explanations {
        out.push_str(&format!(
            "step `{step}`: {} from its start to its result\n",
            crate::eqsat::explain::count(rewrites.len())
        ));
        out.push_str(&crate::eqsat::explain::render(rewrites, &show));
    }
    out
}
