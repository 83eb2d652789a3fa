//! The tokens of `.graph` files and the lexer that produces them.
//!
//! A `.graph` file is a list of statements, one per line by convention (line breaks are
//! white space): `input`, `weight`, `let`, `output`, names, numbers, `x` between dimensions,
//! `#` comments to the end of the line.

use logos::Logos;
use risec_core::diagnostics::{Diagnostic, Span};
use std::fmt;

/// A token with its byte span.
pub type Spanned = (usize, Token, usize);

/// The tokens of a `.graph` file.
#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"#[^\n]*", allow_greedy = true))]
pub enum Token {
    /// `input`
    #[token("input")]
    Input,
    /// `weight`
    #[token("weight")]
    Weight,
    /// `let`
    #[token("let")]
    Let,
    /// `output`
    #[token("output")]
    Output,
    /// A name (also `x` between dimensions, and glued forms such as `x64`).
    #[regex(r"[A-Za-z_][A-Za-z0-9_.]*", |l| l.slice().to_string())]
    Ident(String),
    /// A non-negative integer.
    #[regex(r"[0-9]+", |l| l.slice().to_string())]
    Num(String),
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
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            Token::Ident(s) => return write!(f, "name `{s}`"),
            Token::Num(n) => return write!(f, "number `{n}`"),
            Token::Input => "input",
            Token::Weight => "weight",
            Token::Let => "let",
            Token::Output => "output",
            Token::LParen => "(",
            Token::RParen => ")",
            Token::Comma => ",",
            Token::Colon => ":",
            Token::Eq => "=",
        };
        write!(f, "`{text}`")
    }
}

/// Lexes a whole `.graph` file; every unexpected character is reported.
pub fn lex(text: &str) -> Result<Vec<Spanned>, Vec<Diagnostic>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut lexer = Token::lexer(text);
    while let Some(result) = lexer.next() {
        let span = lexer.span();
        match result {
            Ok(tok) => out.push((span.start, tok, span.end)),
            Err(()) => errors.push(Diagnostic::error(
                format!("unexpected character `{}`", lexer.slice().escape_debug()),
                Span::new(span.start, span.end),
                "not a token of `.graph` files (names, whole numbers, `( ) , : =`, `#` comments)",
            )),
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
    fn lexes_statements_and_skips_comments() {
        let toks: Vec<Token> = lex("input x : 4 x 8 # an input\nlet y = relu(x)")
            .unwrap()
            .into_iter()
            .map(|(_, t, _)| t)
            .collect();
        assert_eq!(toks[0], Token::Input);
        assert!(toks.contains(&Token::Num("8".into())));
        assert!(!toks
            .iter()
            .any(|t| matches!(t, Token::Ident(s) if s == "an")));
        assert!(toks.contains(&Token::Let));
    }

    #[test]
    fn a_stray_character_is_an_error_at_its_place() {
        let e = lex("let y = relu(x) + z").unwrap_err();
        assert_eq!(e[0].span, Span::new(16, 17));
    }
}
