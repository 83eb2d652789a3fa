//! The tokens of `.la` files and the lexer that produces them.
//!
//! `.la` files look like R and SystemML's DML: `#` comments, `%*%` (also `@`) for the matrix
//! product, `^` for powers, and the keywords `input`, `let`, `output`, `assert`, `scalar`,
//! `nnz` and `sparsity`. Numbers keep their text so that the checker can tell `2` from `2.0`
//! where an integer is needed (powers, sizes).

use crate::diagnostics::{Diagnostic, Span};
use logos::Logos;
use std::fmt;

/// A token with its byte span, the triple the parser consumes.
pub type Spanned = (usize, Token, usize);

/// The tokens of a `.la` file.
#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"#[^\n]*", allow_greedy = true))]
pub enum Token {
    /// `input`
    #[token("input")]
    Input,
    /// `let`
    #[token("let")]
    Let,
    /// `output`
    #[token("output")]
    Output,
    /// `assert`
    #[token("assert")]
    Assert,
    /// `scalar`
    #[token("scalar")]
    Scalar,
    /// `nnz`
    #[token("nnz")]
    Nnz,
    /// `sparsity`
    #[token("sparsity")]
    Sparsity,
    /// A name.
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |l| l.slice().to_string())]
    Ident(String),
    /// A number, as written (`2`, `0.5`, `1e-3`).
    #[regex(r"[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?", |l| l.slice().to_string())]
    Num(String),
    /// `%*%`
    #[token("%*%")]
    MatMul,
    /// `@`
    #[token("@")]
    At,
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `,`
    #[token(",")]
    Comma,
    /// `:`
    #[token(":")]
    Colon,
    /// `=`
    #[token("=")]
    Eq,
    /// `==`
    #[token("==")]
    EqEq,
    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `*`
    #[token("*")]
    Star,
    /// `/`
    #[token("/")]
    Slash,
    /// `^`
    #[token("^")]
    Caret,
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            Token::Ident(s) => return write!(f, "name `{s}`"),
            Token::Num(n) => return write!(f, "number `{n}`"),
            Token::Input => "input",
            Token::Let => "let",
            Token::Output => "output",
            Token::Assert => "assert",
            Token::Scalar => "scalar",
            Token::Nnz => "nnz",
            Token::Sparsity => "sparsity",
            Token::MatMul => "%*%",
            Token::At => "@",
            Token::LParen => "(",
            Token::RParen => ")",
            Token::Comma => ",",
            Token::Colon => ":",
            Token::Eq => "=",
            Token::EqEq => "==",
            Token::Plus => "+",
            Token::Minus => "-",
            Token::Star => "*",
            Token::Slash => "/",
            Token::Caret => "^",
        };
        write!(f, "`{text}`")
    }
}

/// Lexes a whole `.la` file; every unexpected character is reported.
pub fn lex(text: &str) -> Result<Vec<Spanned>, Vec<Diagnostic>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut lexer = Token::lexer(text);
    while let Some(result) = lexer.next() {
        let span = lexer.span();
        match result {
            Ok(tok) => out.push((span.start, tok, span.end)),
            Err(()) => {
                let slice = lexer.slice();
                let hint = if slice == "%" {
                    "the matrix product is `%*%` (or `@`)"
                } else {
                    "not a token of `.la` files"
                };
                errors.push(Diagnostic::error(
                    format!("unexpected character `{}`", slice.escape_debug()),
                    Span::new(span.start, span.end),
                    hint,
                ));
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexes_operators_numbers_and_comments() {
        let toks: Vec<Token> = lex("output y = A %*% t(B) @ C ^ 2 # done\n1e-3 0.5")
            .unwrap()
            .into_iter()
            .map(|(_, t, _)| t)
            .collect();
        assert!(toks.contains(&Token::MatMul));
        assert!(toks.contains(&Token::At));
        assert!(toks.contains(&Token::Num("1e-3".into())));
        assert!(!toks
            .iter()
            .any(|t| matches!(t, Token::Ident(s) if s == "done")));
    }

    #[test]
    fn a_lone_percent_is_explained() {
        let e = lex("A % B").unwrap_err();
        assert!(e[0].label.contains("%*%"), "{}", e[0].label);
    }
}
