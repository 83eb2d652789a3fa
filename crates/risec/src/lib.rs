//! risec: a compiler for the Rise functional array language.
//!
//! You write a naive program (`matmul.rise`) and *sketches* of the optimised program you want
//! (`blocking.sk`: tiles of 32×32, k split by 4, in this loop order); risec finds an equivalent
//! program of that shape by sketch-guided equality saturation and lowers it to C with OpenMP and
//! vectors. The data path, one name per stage:
//!
//! ```text
//! .rise ─ frontend (syntax: logos + LALRPOP; elab: De Bruijn, type inference) ─▶ core::TypedProgram
//!   ─ sketch::resolve (a .sk file → guide steps)
//!   ─ sketch::guided: per guide step, an eqsat e-graph (egraph, rules, runner) grown until the
//!     step's sketch is satisfied, then sketch-constrained extraction ─▶ high-level Rise
//!   ─ lowlevel (map → mapSeq where written, reduce → reduceSeq, lets hoisted) ─▶ low-level Rise
//!   (pipeline runs these three under one time budget and checks the result's type)
//!   ─ backend_c (views, acceptors, loops) ─▶ C with OpenMP and vector extensions
//!   ─ bench (cc, verify against the naive loop, time against baselines)
//! ```
//!
//! The reference interpreter (`interp`) is the ground truth every rewrite rule and every
//! generated kernel is checked against.
//!
//! # The library API
//!
//! Five calls cover the main job: [`load_program`] reads a program file, [`parse_program`]
//! reads program text you hold, [`load_sketch`] reads a sketch file's guide steps (checking its
//! user rules against the interpreter; [`load_sketch_with`] may trust some), [`optimize`]
//! runs them and lowers the result ([`optimize_with_progress`] also reports every iteration),
//! [`emit_c`] generates C. Every failure is an [`Error`] a caller can
//! match on; its `Display` is the message the `risec` command prints (file:line:col, the source
//! line underlined).
//!
//! ```
//! use risec::{emit_c, load_program, load_sketch, optimize, CodegenOptions, SearchOptions};
//!
//! let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
//! let program = load_program(format!("{root}/examples/matmul.rise"), None)?;
//! let steps = load_sketch(format!("{root}/sketches/matmul/blocking.sk"), &program)?;
//! let optimized = optimize(&program, &steps, &SearchOptions::default())?;
//! assert!(optimized.source.contains("reduceSeq"));
//! let c = emit_c(&optimized.program, &CodegenOptions::new("mm.h"))?;
//! assert!(c.header.contains("int matmul(int m, int n, int k, float *restrict out"));
//! # Ok::<(), risec::Error>(())
//! ```
//!
//! # Where things are
//!
//! | folder or file | what it holds |
//! | --- | --- |
//! | `ir` | what every stage shares: sizes (`nat`), types, primitives, hash-consing |
//! | `frontend` | `.rise` text → typed program: `syntax` (lexer, parser, AST), `elab`, `load` |
//! | `core` | the typed core IR: De Bruijn terms, beta-eta normal form, printer, size assignments (`--size`) |
//! | `interp` | the reference interpreter and random inputs |
//! | `eqsat` | equality saturation: `egraph`, `rewrite`, `rules` (validated), `runner`, `schedule` (and `mcts`), `explain`, `stats`, `prove` |
//! | `sketch` | `.sk` files: syntax, `resolve` (→ guide steps), satisfaction, `extract`, `guided` search |
//! | `pipeline` | program + guide steps → low-level program, under one time budget |
//! | `lowlevel` | high-level Rise → low-level Rise |
//! | `backend_c` | low-level Rise → C (`translate`, `view`, `c_ast`, `function`, `files`) |
//! | `bench` | compile, verify and time kernels against baselines |
//! | `la` | the linear-algebra front end (`risec la`): `.la` files, SPORES' relational equality saturation, plans |
//! | `cli` | the `risec` command line, one file per subcommand |
//! | `diagnostics`, `support` | error rendering; stack growth, units, atomic output files |

#![warn(missing_docs)]

pub mod pipeline;

mod error;

// The stage crates, under the names the code uses (`crate::sketch::…`).
#[allow(unused_imports)]
use risec_backend::{self as backend_c, lowlevel};
#[allow(unused_imports)]
use risec_core::{core, diagnostics, interp, ir, support};
use risec_eqsat as eqsat;
use risec_frontend as frontend;
use risec_sketch as sketch;

pub use crate::backend_c::{CProgram, CodegenError, CodegenOptions};
pub use crate::core::TypedProgram;
pub use crate::diagnostics::{Diagnostic, SourceFile, Span};
pub use crate::eqsat::explain::{Binder, ExplanationStep};
pub use crate::eqsat::limits::{Limits, StopReason};
pub use crate::eqsat::schedule::{Scheduler, SchedulerError, Strategy};
pub use crate::eqsat::stats;
pub use crate::frontend::load::{FrontEndError, LoadError};
pub use crate::pipeline::{Optimized, ResultCheckError};
pub use crate::sketch::guided::{NotFound, Progress, SearchOptions};
pub use crate::sketch::resolve::{GuideStep, LoadedSketch, SketchError, SketchOptions};
pub use crate::sketch::validate::{Counterexample, RuleCheckError};
pub use crate::support::budget::{Budget, Exhausted, Stage};
pub use error::Error;

use std::path::Path;

/// Reads, parses and type-checks the `.rise` file at `path`; the entry point is the definition
/// named `entry`, or the file's last one.
pub fn load_program(path: impl AsRef<Path>, entry: Option<&str>) -> Result<TypedProgram, Error> {
    Ok(frontend::load::compile_file(path, entry)?)
}

/// Parses and type-checks program text held in memory (the file's name is used in messages).
pub fn parse_program(file: &SourceFile, entry: Option<&str>) -> Result<TypedProgram, Error> {
    frontend::load::compile_source(file, entry).map_err(|e| Error::Program(e.into()))
}

/// Reads the sketch file at `path` with its imports and resolves its guide steps against
/// `program` (whose size parameters the sketches may name). Every user rule (`rule NAME : …`)
/// is checked against the reference interpreter on random instances; a wrong one is an error
/// with a counterexample.
pub fn load_sketch(
    path: impl AsRef<Path>,
    program: &TypedProgram,
) -> Result<Vec<GuideStep>, Error> {
    Ok(sketch::resolve::load(path.as_ref(), program)?)
}

/// [`load_sketch`] with options: `options.trusted_rules` names user rules that are not checked
/// against the reference interpreter (`risec … --trust-rule NAME`); the result's `warnings`
/// say so, one line each, for the caller to show.
pub fn load_sketch_with(
    path: impl AsRef<Path>,
    program: &TypedProgram,
    options: &SketchOptions,
) -> Result<LoadedSketch, Error> {
    Ok(sketch::resolve::load_with(path.as_ref(), program, options)?)
}

/// Runs the guide steps on `program` (each a fresh e-graph grown until its sketch is satisfied,
/// all steps within `options.budget`), then lowers the result to low-level Rise.
pub fn optimize(
    program: &TypedProgram,
    steps: &[GuideStep],
    options: &SearchOptions,
) -> Result<Optimized, Error> {
    optimize_with_progress(program, steps, options, &mut |_| {})
}

/// [`optimize`], calling `progress` after every iteration of every guide step (what `risec`'s
/// progress lines print).
pub fn optimize_with_progress(
    program: &TypedProgram,
    steps: &[GuideStep],
    options: &SearchOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Optimized, Error> {
    pipeline::optimize_program(program, steps, options, progress)
}

/// Compiles a low-level program (the result of `optimize`, or a program written with
/// `mapSeq`, `reduceSeq`, `toMem`, …) to a C function and its header.
pub fn emit_c(program: &TypedProgram, options: &CodegenOptions) -> Result<CProgram, Error> {
    Ok(backend_c::emit_c(program, options)?)
}
