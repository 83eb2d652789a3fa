//! The main job's middle, behind `risec PROGRAM.rise --sketch FILE.sk` and [`crate::optimize`]:
//! run a loaded program's guide steps ([`crate::sketch::guided`]) under one time budget, lower
//! the result to low-level Rise ([`crate::lowlevel`]), check that it still has the program's
//! type, and print it as Rise source that declares the divisibility facts it relies on. Each step's statistics are a
//! [`SearchStats`]; `--stats` writes them as a [`crate::eqsat::stats::RunStats`].

use crate::core::print::{
    program_nat_to_source, program_to_source_declaring, program_type_to_source,
};
use crate::core::TypedProgram;
use crate::eqsat::stats::SearchStats;
use crate::Error;
use crate::sketch::guided::{self, Progress, SearchOptions};
use crate::sketch::resolve;
use crate::support::budget::Stage;

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

/// Runs loaded guide steps on an elaborated program, then lowers and checks the result.
pub fn optimize_program(
    program: &TypedProgram,
    steps: &[resolve::GuideStep],
    options: &SearchOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Optimized, Error> {
    let outcome =
        guided::run(program, steps, options, progress).map_err(Error::NotFound)?;
    options.budget.check(Stage::Lowering)?;
    let lowered = crate::lowlevel::lower(&outcome.program);
    options.budget.check(Stage::Lowering)?;
    if lowered.term.ty != program.term.ty {
        return Err(Error::Internal(format!(
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
