//! [`Error`]: every failure of the library API, wrapping each stage's own error type.

use crate::backend_c::CodegenError;
use crate::diagnostics::{Diagnostic, SourceFile};
use crate::frontend::load::LoadError;
use crate::pipeline::ResultCheckError;
use crate::sketch::guided::NotFound;
use crate::sketch::resolve::SketchError;
use crate::support::budget::Exhausted;

/// Any failure of the library API. `Display` gives the message `risec` prints.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A program file could not be read, parsed or type-checked.
    #[error(transparent)]
    Program(#[from] LoadError),
    /// A sketch file could not be read, parsed or resolved against the program.
    #[error(transparent)]
    Sketch(#[from] SketchError),
    /// A guide step's sketch was not satisfied within its limits; says how close it came.
    #[error("{}", .0.message().trim_end())]
    NotFound(NotFound),
    /// The C backend cannot compile the program (it is not low-level, or uses something the
    /// backend does not support).
    #[error(transparent)]
    Codegen(#[from] CodegenError),
    /// The run's time or memory budget ran out outside the searches (whose own limits end
    /// them with [`Error::NotFound`]).
    #[error("error: {0}")]
    Budget(#[from] Exhausted),
    /// The optimised program failed the type check it gets before it is printed or compiled
    /// (a rewrite rule made an ill-typed program); nothing was written.
    #[error(
        "error: the optimised program is not well typed, so nothing was written: {0}\n  \
         (a rewrite rule made it: a user rule trusted with --trust-rule, or a bug in risec)"
    )]
    IllTypedResult(#[from] ResultCheckError),
    /// A bug in risec.
    #[error("error: internal compiler error: {0}")]
    Internal(String),
}

impl Error {
    /// The diagnostics into source files this error carries: for a search that was not
    /// satisfied, the sketch node where the closest partial match stops, in the `.sk` file
    /// (empty for errors that point into no file).
    pub fn diagnostics(&self) -> Vec<(&SourceFile, &Diagnostic)> {
        match self {
            Error::Program(LoadError::Invalid(e)) => {
                e.diagnostics.iter().map(|d| (&e.file, d)).collect()
            }
            Error::IllTypedResult(ResultCheckError::Rejected(e)) => {
                e.diagnostics.iter().map(|d| (&e.file, d)).collect()
            }
            Error::Sketch(e) => e
                .diagnostics
                .iter()
                .flat_map(|(f, ds)| ds.iter().map(move |d| (f, d)))
                .collect(),
            Error::NotFound(nf) => nf
                .diagnosis
                .iter()
                .filter_map(|d| d.located.as_ref().map(|(f, d)| (f, d)))
                .collect(),
            _ => Vec::new(),
        }
    }
}
