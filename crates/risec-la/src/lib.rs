//! The linear-algebra front end: `risec la FILE.la`.
//!
//! SPORES' optimiser (`../papers`: relational equality saturation) on its own e-graph
//! language. The data path, one module per stage:
//!
//! ```text
//! .la ─ lexer (logos) + parser (LALRPOP, grammar/la.lalrpop) ─▶ ast
//!   ─ check (names, shapes, sparsity; - / ^ written with * + and functions) ─▶ LaProgram
//!   ─ lower (each term as matrices and as relations, equal) ─▶ e-graph (lang: one language,
//!     two sorts, with schema / shape / nnz / constant facts per class)
//!   ─ optimize: saturate with rules (R_EQ + lifting), extract (cost model, greedy DAG) ─▶ plan
//!   ─ print (plan as .la text), eval (dense evaluation: the plan against the input)
//!   ─ codegen (the plan as C through Rise) or python (the plan as a NumPy/SciPy or Dask module)
//! ```
//!
//! ```
//! use risec_la as la;
//!
//! let file = risec::SourceFile::new("pnmf.la", "input W : 1000 x 10\ninput H : 10 x 1000\noutput s = sum(W %*% H)");
//! let program = la::parse(&file).unwrap();
//! let plan = la::optimize(&program, &la::LaOptions::default()).unwrap();
//! assert!(plan.plan_cost < plan.original_cost / 10.0);
//! assert!(matches!(la::check_plan(&program, &plan, 1), la::Check::Agrees(_)));
//! ```

// The stages below this crate, under the names the code uses (`crate::ir::…`).
#[allow(unused_imports)]
use risec_backend::{self as backend_c, lowlevel};
#[allow(unused_imports)]
use risec_bench as bench;
#[allow(unused_imports)]
use risec_core::{core, diagnostics, interp, ir, support};
#[allow(unused_imports)]
use risec_eqsat as eqsat;
#[allow(unused_imports)]
use risec_frontend as frontend;

mod ast;
mod check;
pub mod codegen;
mod eval;
mod extract;
mod guard;
#[cfg(feature = "ilp")]
mod ilp;
mod lang;
mod lexer;
mod lower;
mod optimize;
mod parser;
mod print;
pub mod python;
mod rules;

pub use check::{Assertion, Func, Input, LaProgram, Shape};
pub use optimize::{
    check_assertion, check_plan, check_plan_within, optimize, prove, Check, Extractor, LaOptions,
    LaPlan, OptimizeError, Proof, SaturationStats,
};
pub use print::number;

use crate::diagnostics::{Diagnostic, SourceFile};

/// A `.la` file that could not be read, parsed or checked.
#[derive(Debug, thiserror::Error)]
pub enum LaError {
    /// The file could not be read.
    #[error("error: cannot read `{path}`: {source}")]
    Read {
        /// The path given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not UTF-8 text: a diagnostic at its first invalid byte.
    #[error(transparent)]
    NotUtf8(#[from] crate::diagnostics::utf8::NotUtf8),
    /// Parse or check errors, rendered against the file.
    #[error("{}", .file.render(.diagnostics).trim_end())]
    Invalid {
        /// The file.
        file: SourceFile,
        /// What is wrong, each at its place.
        diagnostics: Vec<Diagnostic>,
    },
}

/// Parses and checks `.la` text.
pub fn parse(file: &SourceFile) -> Result<LaProgram, LaError> {
    let invalid = |diagnostics| LaError::Invalid {
        file: file.clone(),
        diagnostics,
    };
    let stmts = parser::parse_file(&file.text).map_err(invalid)?;
    check::check(file, &stmts).map_err(invalid)
}

/// Reads, parses and checks the `.la` file at `path`.
pub fn load(path: &std::path::Path) -> Result<LaProgram, LaError> {
    let bytes = std::fs::read(path).map_err(|source| LaError::Read {
        path: path.display().to_string(),
        source,
    })?;
    parse(&crate::diagnostics::utf8::source_from_bytes(
        path.display().to_string(),
        bytes,
    )?)
}
