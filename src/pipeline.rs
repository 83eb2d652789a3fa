//! The main job, `risec PROGRAM.rise --sketch FILE.sk`: elaborate the program, load the sketch
//! file against it, run the guide steps ([`crate::sketch::guided`]), lower the result to low-level Rise
//! ([`crate::lowlevel`]), check that it still has the program's type, and print it as Rise source
//! that declares the divisibility facts it relies on.

use crate::core::print::{
    program_nat_to_source, program_to_source_declaring, program_type_to_source,
};
use crate::core::TypedProgram;
use crate::frontend::load::{compile_file, LoadError};
use crate::sketch::guided::{self, NotFound, Progress, SearchOptions, StepStats};
use crate::sketch::resolve::{self, SketchError};
use serde::Serialize;
use std::path::Path;

/// A successful optimisation.
#[derive(Clone, Debug)]
pub struct Optimized {
    /// The lowered program, with the facts it relies on.
    pub program: TypedProgram,
    /// The program as Rise source.
    pub source: String,
    /// One record per guide step.
    pub steps: Vec<StepStats>,
    /// The facts, as source text (`m/32`).
    pub facts: Vec<String>,
}

/// Why the main job failed. `Display` gives the message `risec` prints.
#[derive(Debug, thiserror::Error)]
pub enum OptimizeError {
    /// The program file did not load (exit status 1).
    #[error(transparent)]
    Program(#[from] LoadError),
    /// The sketch file did not load (exit status 1).
    #[error(transparent)]
    Sketch(#[from] SketchError),
    /// A step's sketch was never satisfied (exit status 2).
    #[error("{}", .0.message().trim_end())]
    NotFound(NotFound),
    /// A bug in risec: the optimised program lost the program's type (exit status 1).
    #[error("error: internal compiler error: {0}")]
    Internal(String),
}

/// The `--stats` file.
#[derive(Serialize)]
pub struct StatsFile<'a> {
    /// The program file.
    pub program: &'a str,
    /// The sketch file.
    pub sketch: &'a str,
    /// Whether every step was satisfied.
    pub found: bool,
    /// Per step.
    pub steps: &'a [StepStats],
    /// Divisibility facts the extracted result relies on (empty when not found).
    pub facts: &'a [String],
    /// Wall time of the whole job in milliseconds.
    pub total_ms: f64,
}

/// Runs the main job on files.
pub fn optimize(
    program_path: &str,
    sketch_path: &str,
    entry: Option<&str>,
    options: &SearchOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Optimized, OptimizeError> {
    let program = compile_file(program_path, entry)?;
    let steps = resolve::load(Path::new(sketch_path), &program)?;
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
        guided::run(program, steps, options, progress).map_err(OptimizeError::NotFound)?;
    let lowered = crate::lowlevel::lower(&outcome.program);
    if lowered.term.ty != program.term.ty {
        return Err(OptimizeError::Internal(format!(
            "the optimised program has type {}, not {}",
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

/// A one-line summary of a step for the final report.
pub fn step_summary(s: &StepStats) -> String {
    let rewrites: usize = s.rewrites.values().sum();
    format!(
        "step {:<12} {} in {} iterations, {} e-nodes, {} e-classes, {} rewrites, {:.1} ms{}",
        s.name,
        if s.found { "found" } else { "NOT found" },
        s.iterations,
        s.nodes,
        s.classes,
        rewrites,
        s.time_ms,
        s.peak_rss
            .map(|b| format!(", peak RSS {:.1} MiB", b as f64 / (1 << 20) as f64))
            .unwrap_or_default()
    )
}
