//! LALRPOP's parse errors as [`Diagnostic`]s, for the grammars that share this shape of
//! message: "unexpected TOKEN" at the token, labelled with what was expected there in words.

use super::{Diagnostic, Span};
use lalrpop_util::ParseError;
use std::fmt::Display;

/// How a grammar's expected tokens read in a label.
pub struct Expected<'a> {
    /// The tokens that start the grammar's main phrase (an expression, a sketch): when all are
    /// expected, they are named together as `phrase`.
    pub phrase_start: &'a [&'a str],
    /// The name of that phrase (`a sketch`, `an expression`).
    pub phrase: &'a str,
    /// A token's words where they are not the token itself in backquotes (`Ident`: `a name`).
    pub words: fn(&str) -> Option<&'static str>,
    /// The label of a token after the end of a complete file.
    pub after_end: &'a str,
    /// The label of text that is no token.
    pub invalid: &'a str,
}

impl Expected<'_> {
    /// `expected one of: …` in words.
    pub fn describe(&self, expected: &[String]) -> String {
        let phrase = self
            .phrase_start
            .iter()
            .all(|t| expected.iter().any(|e| e == t));
        let mut shown: Vec<String> = Vec::new();
        if phrase {
            shown.push(self.phrase.to_string());
        }
        for e in expected {
            if phrase && self.phrase_start.contains(&e.as_str()) {
                continue;
            }
            let readable = match (self.words)(e) {
                Some(w) => w.to_string(),
                None => format!("`{}`", e.trim_matches('"')),
            };
            if !shown.contains(&readable) {
                shown.push(readable);
            }
        }
        match shown.len() {
            0 => "unexpected here".to_string(),
            1 => format!("expected {}", shown[0]),
            _ => format!("expected one of: {}", shown.join(", ")),
        }
    }

    /// The diagnostic of a parse error in `source`; `note` may add a note for an unexpected
    /// token given what was expected.
    pub fn diagnostic<T: Display>(
        &self,
        source: &str,
        error: ParseError<usize, T, Diagnostic>,
        note: impl Fn(&T, &[String]) -> Option<&'static str>,
    ) -> Diagnostic {
        match error {
            ParseError::User { error } => error,
            ParseError::UnrecognizedEof { expected, .. } => Diagnostic::error(
                "unexpected end of file",
                Span::new(source.len(), source.len()),
                self.describe(&expected),
            ),
            ParseError::UnrecognizedToken {
                token: (start, token, end),
                expected,
            } => {
                let d = Diagnostic::error(
                    format!("unexpected {token}"),
                    Span::new(start, end),
                    self.describe(&expected),
                );
                match note(&token, &expected) {
                    Some(n) => d.with_note(n),
                    None => d,
                }
            }
            ParseError::ExtraToken {
                token: (start, token, end),
            } => Diagnostic::error(
                format!("unexpected {token}"),
                Span::new(start, end),
                self.after_end,
            ),
            ParseError::InvalidToken { location } => {
                Diagnostic::error("invalid token", Span::new(location, location), self.invalid)
            }
        }
    }
}
