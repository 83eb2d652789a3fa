//! The main job's middle, behind `risec PROGRAM.rise --sketch FILE.sk` and [`crate::optimize`]:
//! run a loaded program's guide steps ([`crate::sketch::guided`]) under one time budget, lower
//! the result to low-level Rise ([`crate::lowlevel`]), check that it still has the program's
//! type, and print it as Rise source that declares the divisibility facts it relies on. Each step's statistics are a
//! [`SearchStats`]; `--stats` writes them as a [`crate::eqsat::stats::RunStats`].
//!
//! The last line of defence: the printed program is type-checked again by the front end,
//! independently of the types the e-graph gave its terms ([`check_result`]), and must give back
//! the term (types included) that is returned for code generation. A program that fails
//! is an [`crate::Error::IllTypedResult`]; nothing is printed or written then.

use crate::core::print::{program_to_source_declaring, program_type_to_source};
use crate::core::TypedProgram;
use crate::diagnostics::SourceFile;
use crate::eqsat::stats::SearchStats;
use crate::frontend::load::{compile_source, FrontEndError};
use crate::sketch::guided::{self, Progress, SearchOptions};
use crate::sketch::resolve;
use crate::Error;

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
    /// With [`SearchOptions::explain`]: per guide step, its name and the rewrites from its
    /// start to its result.
    pub explanations: Vec<(String, Vec<crate::eqsat::explain::ExplanationStep>)>,
    /// What the lowering decided beyond its defaults (`LoweringReport::notes`): values stored
    /// once instead of recomputed in a loop, reductions unrolled.
    pub lowering: Vec<String>,
}

/// Runs loaded guide steps on an elaborated program, then lowers and checks the result.
pub fn optimize_program(
    program: &TypedProgram,
    steps: &[resolve::GuideStep],
    options: &SearchOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Optimized, Error> {
    let outcome = guided::run(program, steps, options, progress).map_err(Error::NotFound)?;
    let (lowered, report) = crate::lowlevel::lower_reporting(&outcome.program, &options.budget)?;
    let source = program_to_source_declaring(&lowered, &lowered.facts);
    check_result(&lowered, program, &source)?;
    let facts = lowered
        .facts
        .iter()
        .map(|f| crate::core::print::divisibility_fact_to_source(&lowered, f))
        .collect();
    let lowering = report.notes(&lowered);
    Ok(Optimized {
        program: lowered,
        source,
        steps: outcome.steps,
        facts,
        explanations: outcome.explanations,
        lowering,
    })
}

/// Why the optimised program failed its final type check.
#[derive(Debug, thiserror::Error)]
pub enum ResultCheckError {
    /// The printed program does not type-check (the diagnostics point into it).
    #[error("the printed program does not type-check:\n{}", .0.render().trim_end())]
    Rejected(Box<FrontEndError>),
    /// It type-checks, with another type than the input program's.
    #[error("it has type `{found}`, not the input program's `{expected}`")]
    WrongType {
        /// The input program's type.
        expected: String,
        /// The optimised program's type.
        found: String,
    },
    /// It type-checks, but the type checker gives its terms other types than the e-graph did
    /// (code generation would use the wrong ones).
    #[error("the type checker gives its terms other types than the search did")]
    Disagrees,
}

/// The name the optimised program has in the messages of its final type check.
pub const RESULT_NAME: &str = "<optimised program>";

/// Type-checks the optimised program's `source` again with the front end: it must check, have
/// `original`'s type, and elaborate to `lowered`'s term (every node's type included; up to
/// beta-eta normal form, when the normaliser's fuel allows).
pub fn check_result(
    lowered: &TypedProgram,
    original: &TypedProgram,
    source: &str,
) -> Result<(), ResultCheckError> {
    let checked = match compile_source(&SourceFile::new(RESULT_NAME, source), None) {
        Ok(checked) => checked,
        // A result nested deeper than the parser reads (a chain of hundreds of functions that
        // the normaliser's fuel did not reduce) cannot be read back; its type is still checked.
        Err(e)
            if e.diagnostics
                .iter()
                .all(|d| d.message == "nesting too deep") =>
        {
            if lowered.term.ty != original.term.ty {
                return Err(ResultCheckError::WrongType {
                    expected: program_type_to_source(original),
                    found: program_type_to_source(lowered),
                });
            }
            return Ok(());
        }
        Err(e) => return Err(ResultCheckError::Rejected(Box::new(e))),
    };
    if checked.term.ty != original.term.ty || lowered.term.ty != original.term.ty {
        let found = if checked.term.ty != original.term.ty {
            &checked
        } else {
            lowered
        };
        return Err(ResultCheckError::WrongType {
            expected: program_type_to_source(original),
            found: program_type_to_source(found),
        });
    }
    // The printer may eta-expand a partial application (a `let` whose body is a function), so
    // the terms are compared in beta-eta normal form, which keeps every node's type.
    if checked.term != lowered.term {
        let normal = crate::core::normalize::program_normal;
        if let (Ok(a), Ok(b)) = (normal(&checked.term), normal(&lowered.term)) {
            if a != b {
                return Err(ResultCheckError::Disagrees);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(source: &str) -> TypedProgram {
        compile_source(&SourceFile::new("p.rise", source), None).unwrap()
    }

    #[test]
    fn a_program_that_prints_and_checks_back_passes() {
        let p = program("def p {n : nat} (xs : n.f32) = xs |> map (fun x => x * 2.0)");
        let source = program_to_source_declaring(&p, &p.facts);
        check_result(&p, &p, &source).unwrap();
    }

    #[test]
    fn an_ill_typed_result_is_refused_with_its_diagnostics() {
        // What the let-out-of-lambda mutant used to print: `x` is an array used as a scalar.
        let p = program(
            "def main {n m : nat} (a : n.m.f32) (b : m.f32) : n.m.f32 = \
             a |> map (fun row => row)",
        );
        let printed = "def main {n m : nat} (a : n.m.f32) (b : m.f32) : n.m.f32 =\n  \
                       let x = b in a |> mapSeq (mapSeq (fun (x0 : f32) => x0 * x))\n";
        let e = check_result(&p, &p, printed).unwrap_err();
        assert!(matches!(&e, ResultCheckError::Rejected(_)), "{e:?}");
        let text = Error::from(e).to_string();
        assert!(
            text.contains("not well typed, so nothing was written"),
            "{text}"
        );
        assert!(text.contains("<optimised program>:2:"), "{text}");
    }

    #[test]
    fn another_type_or_other_terms_are_refused() {
        let p = program("def p (x : f32) = x * 2.0");
        let e = check_result(&p, &p, "def p (x : f32) = (x, x)").unwrap_err();
        assert!(matches!(e, ResultCheckError::WrongType { .. }), "{e:?}");
        let e = check_result(&p, &p, "def p (x : f32) = x + 1.0").unwrap_err();
        assert!(matches!(e, ResultCheckError::Disagrees), "{e:?}");
    }
}
