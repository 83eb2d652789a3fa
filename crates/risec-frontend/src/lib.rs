//! The front end: `.rise` text to a typed core program.
//!
//! ```text
//! source ─ syntax::lexer (logos) + syntax::parser (LALRPOP) ─▶ syntax::ast (spans)
//!        ─ elab (names → De Bruijn, inlining, type inference, size facts) ─▶ core::TypedProgram
//! ```
//! [`load`] runs both as one call.

// The stages below this crate, under the names the code uses (`crate::ir::…`).
#[allow(unused_imports)]
use risec_core::{core, diagnostics, interp, ir, support};

pub mod elab;
pub mod load;
pub mod syntax;
