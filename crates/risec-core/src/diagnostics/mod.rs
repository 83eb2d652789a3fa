//! Compiler errors with source positions, rendered in the codespan-reporting style.
//!
//! Every pass reports problems as [`Diagnostic`]s: a message, a primary span with a label (what
//! was expected there), optional secondary spans and notes. [`SourceFile::render`] turns them into
//! `error: … --> file:line:col` text with the source line underlined.

mod excerpt;
pub mod parse_error;
pub mod utf8;

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::term::{self, Config};
use excerpt::Excerpt;

/// A byte range in a source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// As a range, for diagnostics.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start..self.end
    }
}

/// How serious a diagnostic is: an error stops the command, a warning does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Severity {
    /// The input is wrong: nothing is produced.
    #[default]
    Error,
    /// The input is accepted, but something in it deserves a look.
    Warning,
}

impl Severity {
    /// The word that starts the rendered diagnostic (`error`, `warning`).
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }

    fn to_codespan(self) -> codespan_reporting::diagnostic::Severity {
        match self {
            Severity::Error => codespan_reporting::diagnostic::Severity::Error,
            Severity::Warning => codespan_reporting::diagnostic::Severity::Warning,
        }
    }
}

/// One compiler error or warning, at a place in a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The headline: what went wrong.
    pub message: String,
    /// Where it went wrong.
    pub span: Span,
    /// What was expected at `span`, shown under the underline.
    pub label: String,
    /// Related places, each with its own label.
    pub secondary: Vec<(Span, String)>,
    /// Extra lines of explanation.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span` with a headline and a label.
    pub fn error(message: impl Into<String>, span: Span, label: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            label: label.into(),
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// A warning at `span` with a headline and a label.
    pub fn warning(message: impl Into<String>, span: Span, label: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(message, span, label)
        }
    }

    /// Adds a secondary labelled span.
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}

/// A named source text, for rendering diagnostics against.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name shown in `--> name:line:col`.
    pub name: String,
    /// The text.
    pub text: String,
}

impl SourceFile {
    /// A source file from its name and contents. A UTF-8 byte-order mark at the start of the
    /// text is dropped (as rustc does), so that it is neither a token nor a column.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let mut text = text.into();
        if text.starts_with('\u{FEFF}') {
            text.drain(..'\u{FEFF}'.len_utf8());
        }
        SourceFile {
            name: name.into(),
            text,
        }
    }

    /// The 1-based line and column of byte `offset` (columns count characters).
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = self.clamp(offset);
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, before[line_start..].chars().count() + 1)
    }

    /// Clamps a byte offset into the text, on a character boundary.
    fn clamp(&self, offset: usize) -> usize {
        let mut o = offset.min(self.text.len());
        while !self.text.is_char_boundary(o) {
            o -= 1;
        }
        o
    }

    /// Renders diagnostics as plain text (no colours), each distinct one once (the same
    /// message at the same place is one diagnostic, however many passes found it).
    pub fn render(&self, diagnostics: &[Diagnostic]) -> String {
        let config = Config::default();
        let mut out = String::new();
        let mut shown: Vec<(&str, Span)> = Vec::new();
        for d in diagnostics {
            if shown.contains(&(d.message.as_str(), d.span)) {
                continue;
            }
            shown.push((d.message.as_str(), d.span));
            let clamp = |s: Span| {
                let start = self.clamp(s.start);
                start..self.clamp(s.end).max(start)
            };
            let spans: Vec<_> = std::iter::once(d.span)
                .chain(d.secondary.iter().map(|(s, _)| *s))
                .map(clamp)
                .collect();
            let file = Excerpt::new(&self.name, &self.text, &spans);
            let cut = |r: &std::ops::Range<usize>| file.to_excerpt(r.start)..file.to_excerpt(r.end);
            let mut labels = vec![Label::primary((), cut(&spans[0])).with_message(&d.label)];
            labels.extend(
                d.secondary
                    .iter()
                    .zip(&spans[1..])
                    .map(|((_, l), s)| Label::secondary((), cut(s)).with_message(l)),
            );
            let cs = CsDiagnostic::new(d.severity.to_codespan())
                .with_message(&d.message)
                .with_labels(labels)
                .with_notes(d.notes.clone());
            if term::emit_to_string(&mut out, &config, &file, &cs).is_err() {
                // Rendering can only fail on spans outside the file, which clamping prevents;
                // fall back to a plain line rather than losing the error.
                let (line, col) = self.line_col(d.span.start);
                out.push_str(&format!(
                    "{}: {}\n  --> {}:{line}:{col}\n",
                    d.severity.word(),
                    d.message,
                    self.name
                ));
            }
        }
        out
    }
}

/// Renders a diagnostic that has no place in a source file (about generated C, say) the way
/// placed ones are rendered: `warning: MESSAGE`, then `= NOTE` lines.
pub fn render_unplaced(severity: Severity, message: &str, notes: &[String]) -> String {
    let mut out = format!("{}: {message}\n", severity.word());
    for note in notes {
        out.push_str(&format!("  = {note}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_are_rendered_like_errors() {
        let src = SourceFile::new("s.sk", "rule r : a =>> b\n");
        let d = Diagnostic::warning("rule `r` is trusted", Span::new(5, 6), "not checked")
            .with_note("it is not checked against the reference interpreter");
        let text = src.render(&[d]);
        assert!(text.starts_with("warning: rule `r` is trusted"), "{text}");
        assert!(text.contains("s.sk:1:6"), "{text}");
        assert!(text.contains("^ not checked"), "{text}");
        assert!(text.contains("= it is not checked"), "{text}");
        assert_eq!(
            render_unplaced(Severity::Warning, "lanes gathered", &["a note".into()]),
            "warning: lanes gathered\n  = a note\n"
        );
    }

    #[test]
    fn renders_file_line_column_and_underline() {
        let src = SourceFile::new("prog.rise", "def f = \n  x + y\n");
        let d = Diagnostic::error("unknown name `y`", Span::new(15, 16), "not defined");
        let text = src.render(&[d]);
        assert!(text.contains("error: unknown name `y`"), "{text}");
        assert!(text.contains("prog.rise:2:7"), "{text}");
        assert!(text.contains("^ not defined"), "{text}");
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        let src = SourceFile::new("bom.rise", "\u{FEFF}def f = y");
        assert_eq!(src.text, "def f = y");
        let text = src.render(&[Diagnostic::error(
            "unknown name `y`",
            Span::new(8, 9),
            "here",
        )]);
        assert!(text.contains("bom.rise:1:9"), "{text}");
        // Only at the start: elsewhere it stays (and the lexer reports it).
        assert!(SourceFile::new("x", "a\u{FEFF}").text.ends_with('\u{FEFF}'));
    }

    #[test]
    fn the_same_diagnostic_is_rendered_once() {
        let src = SourceFile::new("x.rise", "def f = y + y");
        let d = Diagnostic::error("unknown name `y`", Span::new(8, 9), "not defined");
        let other = Diagnostic::error("unknown name `y`", Span::new(12, 13), "not defined");
        let text = src.render(&[d.clone(), d, other]);
        assert_eq!(text.matches("error: unknown name `y`").count(), 2, "{text}");
    }

    #[test]
    fn out_of_range_spans_do_not_panic() {
        let src = SourceFile::new("x.rise", "é");
        let text = src.render(&[Diagnostic::error("eof", Span::new(1, 99), "here")]);
        assert!(text.contains("error: eof"));
    }
}
