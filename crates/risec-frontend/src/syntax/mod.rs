//! The surface syntax: tokens ([`lexer`]), the tree ([`ast`]) and the parser ([`parser`]).

pub mod ast;
pub mod lexer;
pub mod parser;
