//! The front end: `.rise` text to a typed core program.
//!
//! ```text
//! source ─ syntax::lexer (logos) + syntax::parser (LALRPOP) ─▶ syntax::ast (spans)
//!        ─ elab (names → De Bruijn, inlining, type inference, size facts) ─▶ core::TypedProgram
//! ```
//! [`load`] runs both as one call.

pub mod elab;
pub mod load;
pub mod syntax;
