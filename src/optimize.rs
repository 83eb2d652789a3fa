//! The main job, `risec PROGRAM.rise --sketch FILE.sk`: elaborate the program, load the sketch
//! file against it, run the guide steps ([`crate::search`]), lower the result to low-level Rise
//! ([`crate::lower`]), check that it still has the program's type, and print it as Rise source
//! that declares the divisibility facts it relies on. Each step's statistics are a
//! [`SearchStats`]; `--stats` writes them as a [`crate::stats::RunStats`].

use crate::core::print::{
    program_nat_to_source, program_to_source_declaring, program_type_to_source,
};
use crate::core::TypedProgram;
use crate::driver::compile_file;
use crate::search::{self, NotFound, Progress, SearchOptions};
use crate::sketch::resolve;
use crate::stats::SearchStats;
use std::path::Path;

/// A successful optimisation.
#[derive(Clone, Debug)]
pub struct Optimized {
    /// The lowered program, with the facts it relies on.
    pub program: TypedProgram,
    /// The program as Rise source.
    pub source: String,
    /// The statistics of every guide step.
    pub steps: Vec<SearchStats>,
    /// The facts, as source text (`m/32`).
    pub facts: Vec<String>,
}

/// Why the main job failed.
#[derive(Debug)]
pub enum OptimizeError {
    /// Bad input (program or sketch file): rendered diagnostics; exit status 1.
    Input(String),
    /// A step's sketch was never satisfied; exit status 2.
    NotFound(NotFound),
}

/// Runs the main job on files; `progress` sees every iteration of every step.
pub fn optimize(
    program_path: &str,
    sketch_path: &str,
    entry: Option<&str>,
    options: &SearchOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Optimized, OptimizeError> {
    let program = compile_file(program_path, entry).map_err(OptimizeError::Input)?;
    let steps = resolve::load(Path::new(sketch_path), &program)
        .map_err(|e| OptimizeError::Input(e.rendered))?;
    optimize_program(&program, &steps, options, progress)
}

/// Runs loaded guide steps on an elaborated program, then lowers and checks the result.
pub fn optimize_program(
    program: &TypedProgram,
    steps: &[resolve::GuideStep],
    options: &SearchOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Optimized, OptimizeError> {
    let outcome =
        search::run(program, steps, options, progress).map_err(OptimizeError::NotFound)?;
    let lowered = crate::lower::lower(&outcome.program);
    if lowered.term.ty != program.term.ty {
        return Err(OptimizeError::Input(format!(
            "error: internal compiler error: the optimised program has type {}, not {}",
            program_type_to_source(&lowered),
            program_type_to_source(program)
        )));
    }
    let source = program_to_source_declaring(&lowered, &lowered.facts);
    let facts = lowered
        .facts
        .iter()
        .map(|f| program_nat_to_source(&lowered, f))
        .collect();
    Ok(Optimized {
        program: lowered,
        source,
        steps: outcome.steps,
        facts,
    })
}
