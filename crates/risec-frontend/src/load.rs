//! The front of the pipeline as one call: source text → parsed → elaborated typed program.
//!
//! Used by the library API, the command line and tests; errors come back as diagnostics together
//! with the source they refer to, ready to render.

use crate::core::TypedProgram;
use crate::diagnostics::{Diagnostic, SourceFile};
use crate::elab;
use crate::syntax::parser;

/// A front-end failure: the diagnostics and the file they point into. Its `Display` is the
/// rendered diagnostics.
#[derive(Debug, thiserror::Error)]
#[error("{}", self.render().trim_end())]
pub struct FrontEndError {
    /// The source the diagnostics refer to.
    pub file: SourceFile,
    /// What went wrong (at least one).
    pub diagnostics: Vec<Diagnostic>,
}

impl FrontEndError {
    /// The diagnostics rendered as text with file:line:col and underlined source lines.
    pub fn render(&self) -> String {
        self.file.render(&self.diagnostics)
    }
}

/// Parses and elaborates `file`, returning the entry definition (`entry`, or the last one).
pub fn compile_source(
    file: &SourceFile,
    entry: Option<&str>,
) -> Result<TypedProgram, FrontEndError> {
    let fail = |diagnostics| FrontEndError {
        file: file.clone(),
        diagnostics,
    };
    let module = parser::parse_module(&file.text).map_err(fail)?;
    elab::elaborate(&module, entry).map_err(fail)
}

/// Why a program file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("error: cannot read `{path}`: {source}")]
    Read {
        /// The path as given.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not UTF-8 text: a diagnostic at its first invalid byte.
    #[error(transparent)]
    NotUtf8(#[from] crate::diagnostics::utf8::NotUtf8),
    /// The text does not parse or type-check: diagnostics into the file.
    #[error(transparent)]
    Invalid(#[from] FrontEndError),
}

impl LoadError {
    /// The diagnostics (empty when the file could not be read at all).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            LoadError::Invalid(e) => &e.diagnostics,
            LoadError::NotUtf8(e) => std::slice::from_ref(&*e.diagnostic),
            LoadError::Read { .. } => &[],
        }
    }
}

/// Reads `path` and compiles it.
pub fn compile_file(
    path: impl AsRef<std::path::Path>,
    entry: Option<&str>,
) -> Result<TypedProgram, LoadError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| LoadError::Read {
        path: name.clone(),
        source,
    })?;
    let file = crate::diagnostics::utf8::source_from_bytes(name, bytes)?;
    Ok(compile_source(&file, entry)?)
}

/// The typed term of a program written in a test (this crate's and the stages' above it);
/// panics with the rendered diagnostics if it does not compile.
pub fn test_term(source: &str) -> crate::core::Expr {
    let file = SourceFile::new("test.rise", source);
    match compile_source(&file, None) {
        Ok(p) => p.term,
        Err(e) => panic!("test program does not compile:\n{}", e.render()),
    }
}
