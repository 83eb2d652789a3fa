//! The main job, `risec PROGRAM.rise --sketch FILE.sk [-o OUT]`: the pipeline with progress
//! lines and step summaries on standard error, the result as Rise or C, and `--stats`.

use super::args::{Emit, MainJob};
use crate::support::budget::Stage;
use std::process::ExitCode;

/// Runs `risec PROGRAM.rise --sketch FILE.sk …` and returns its exit status.
pub(super) fn main_job(job: MainJob) -> ExitCode {
    use crate::eqsat::stats::{RunInput, RunStats, SearchStats};
    let fail = |msg: &str| {
        eprintln!("{}", msg.trim_end_matches('\n'));
        ExitCode::from(1)
    };
    let Some(program) = job.program.as_deref() else {
        return fail("error: no program given\n  usage: risec PROGRAM.rise --sketch FILE.sk [-o OUT]   (see `risec --help`)");
    };
    let Some(sketch) = job.sketch.as_deref() else {
        return fail(&format!(
            "error: no sketch given: `risec {program} --sketch FILE.sk` (the sketches of sketches/ are examples)"
        ));
    };
    let emit_c = job.emit == Emit::C || job.output.as_deref().is_some_and(|o| o.ends_with(".c"));
    if job.size.is_some() && !emit_c {
        return fail("error: `--size` compiles sizes into C: use it with `--emit c` or `-o OUT.c`");
    }
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
    let sketch_options = crate::SketchOptions {
        trusted_rules: job.trust_rule.clone(),
    };
    let loaded = crate::load_program(program, job.entry.as_deref()).and_then(|p| {
        let loaded = crate::load_sketch_with(sketch, &p, &sketch_options)?;
        for w in &loaded.warnings {
            eprint!("{w}");
        }
        Ok((p, loaded.steps, loaded.files))
    });
    let (p, steps, files) = match loaded {
        Ok(loaded) => loaded,
        Err(e) => return fail(&e.to_string()),
    };
    // Loading (checking user rules included) counts against the run's budget.
    if let Err(e) = options.budget.check(Stage::LoadingSketch) {
        return fail(&format!("error: {e}"));
    }
    // No output may replace an input: the program, the sketch file or a file it imports.
    let mut outputs: Vec<std::path::PathBuf> = Vec::new();
    if let Some(out) = &job.output {
        outputs.push(out.into());
        if emit_c {
            outputs.push(crate::backend_c::files::header_path(std::path::Path::new(
                out,
            )));
        }
    }
    outputs.extend(job.stats.iter().map(std::path::PathBuf::from));
    outputs.extend(job.explain.iter().map(std::path::PathBuf::from));
    let outputs: Vec<&std::path::Path> = outputs.iter().map(|o| o.as_path()).collect();
    let inputs: Vec<&std::path::Path> = std::iter::once(std::path::Path::new(program))
        .chain(files.iter().map(|f| f.as_path()))
        .collect();
    if let Err(e) = crate::support::output::check_not_inputs(&outputs, &inputs) {
        return fail(&e.to_string());
    }
    // Unwritable outputs fail now rather than after the search; a C file that is a device or
    // a FIFO needs a header that is one too (see `check_writable_pair`).
    let writable = outputs
        .iter()
        .try_for_each(|o| crate::support::output::check_writable(o))
        .and_then(|()| match (&job.output, emit_c) {
            (Some(out), true) => {
                let out = std::path::Path::new(out);
                let header = crate::backend_c::files::header_path(out);
                crate::support::output::check_writable_pair(out, &header)
            }
            _ => Ok(()),
        });
    if let Err(e) = writable {
        return fail(&e.to_string());
    }
    let result = crate::optimize_with_progress(&p, &steps, &options, &mut progress);
    let total = started.elapsed();
    let total_ms = total.as_secs_f64() * 1e3;
    let write_stats = |steps: &[SearchStats], facts: &[String]| {
        if let Some(path) = &job.stats {
            let input = RunInput::Sketch {
                program: program.to_string(),
                sketch: sketch.to_string(),
            };
            let stats = RunStats::new(input, steps.to_vec(), facts.to_vec(), total);
            let text = crate::eqsat::stats::to_json(&stats);
            if let Err(e) =
                crate::support::output::write_atomically(std::path::Path::new(path), &text)
            {
                eprintln!("{e}");
                return false;
            }
        }
        true
    };
    match result {
        Ok(done) => {
            if !quiet {
                for s in &done.steps {
                    eprintln!("{}", s.step_line());
                }
                eprintln!(
                    "total {:.1} ms; the result relies on: {}",
                    total_ms,
                    if done.facts.is_empty() {
                        "no divisibility facts".to_string()
                    } else {
                        done.facts.join(", ")
                    }
                );
            }
            if !write_stats(&done.steps, &done.facts) {
                return ExitCode::from(1);
            }
            if let Some(path) = &job.explain {
                let text = explanation_text(&p, &done.explanations);
                if let Err(e) =
                    crate::support::output::write_atomically(std::path::Path::new(path), &text)
                {
                    return fail(&e.to_string());
                }
            }
            if emit_c {
                let out = job.output.as_deref().map(std::path::Path::new);
                let size = job.size.as_deref();
                let generated = options
                    .budget
                    .check(Stage::GeneratingC)
                    .map_err(|e| format!("error: {e}"))
                    .and_then(|()| {
                        crate::backend_c::files::compile_to_files(
                            &done.program,
                            out,
                            size,
                            job.exact_sizes,
                        )
                        .inspect(|(c, _)| super::print_codegen_warnings(&c.warnings))
                        .map_err(|e| {
                            e.in_source_file(std::path::Path::new(program), false)
                                .to_string()
                        })
                    });
                return match generated {
                    Ok((_, text)) => {
                        if out.is_none() {
                            print!("{text}");
                        } else if !quiet {
                            eprint!("{text}");
                        }
                        ExitCode::SUCCESS
                    }
                    Err(e) => fail(&e),
                };
            }
            match &job.output {
                Some(path) => {
                    match crate::support::output::write_atomically(
                        std::path::Path::new(path),
                        &done.source,
                    ) {
                        Ok(()) => ExitCode::SUCCESS,
                        Err(e) => fail(&e.to_string()),
                    }
                }
                None => {
                    print!("{}", done.source);
                    ExitCode::SUCCESS
                }
            }
        }
        Err(crate::Error::NotFound(nf)) => {
            write_stats(&nf.steps, &[]);
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
