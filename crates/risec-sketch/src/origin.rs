//! Where the nodes of a resolved sketch are written: definitions are expanded when a `.sk` file
//! is resolved, so one node of a step's [`Sketch`](super::Sketch) may come from the body of a
//! definition in an imported file, reached through calls in the step. [`SketchOrigins`] keeps,
//! for every node, the place it is written and the calls it was expanded through, so that a
//! diagnostic can point at the node in the step's own file (the call that brought it in) and
//! name the definition's text as well.

use crate::diagnostics::{Diagnostic, SourceFile};
use crate::frontend::syntax::ast::Span;
use std::sync::Arc;

/// A place in one of the loaded files: the file's index in [`SketchOrigins::files`] and a span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The file, an index into [`SketchOrigins::files`].
    pub file: usize,
    /// The text.
    pub span: Span,
}

/// Where one node of a resolved sketch is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The node's own text (inside a definition's body if it comes from one).
    pub at: Place,
    /// The definition calls it was expanded through, outermost first (empty for a node written
    /// in the step itself).
    pub calls: Vec<Place>,
}

/// The origins of every node of one step's sketch, in post-order (children before their node,
/// left to right), with the files they point into. Empty when unknown (a sketch not read from
/// a file).
#[derive(Clone, Debug, Default)]
pub struct SketchOrigins {
    /// The loaded files (the step's file and its imports).
    pub files: Arc<[SourceFile]>,
    /// The index of the step's own file in `files`.
    pub main: usize,
    /// One origin per sketch node, in post-order.
    pub nodes: Vec<Origin>,
}

impl SketchOrigins {
    /// The origin of the node with post-order index `i`, if known.
    pub fn get(&self, i: usize) -> Option<&Origin> {
        self.nodes.get(i)
    }

    /// The place to underline for node `i`: the node itself when the step writes it, else the
    /// call in the step that expanded into it (the definition's body is the same for every
    /// call; the call says which one).
    pub fn primary(&self, i: usize) -> Option<Place> {
        let o = self.get(i)?;
        Some(*o.calls.first().unwrap_or(&o.at))
    }

    /// A diagnostic at node `i` (see [`Self::primary`]) with `message` and `label`; when the
    /// node is written inside a definition, a secondary label (same file) or a note (another
    /// file) shows where. `None` when the node's origin is unknown.
    pub fn diagnostic(
        &self,
        i: usize,
        message: &str,
        label: &str,
    ) -> Option<(&SourceFile, Diagnostic)> {
        let o = self.get(i)?;
        let primary = self.primary(i)?;
        let file = self.files.get(primary.file)?;
        let mut d = Diagnostic::error(message, primary.span, label);
        if o.at != primary {
            let text = self
                .files
                .get(o.at.file)
                .and_then(|f| f.text.get(o.at.span.range()))
                .map(one_line)
                .unwrap_or_default();
            if o.at.file == primary.file {
                d = d.with_secondary(o.at.span, "the part of the definition with no match");
            } else if let Some(f) = self.files.get(o.at.file) {
                let (line, col) = f.line_col(o.at.span.start);
                d = d.with_note(format!(
                    "the part with no match is `{text}`, in the definition at {}:{line}:{col}",
                    f.name
                ));
            }
        }
        Some((file, d))
    }
}

/// `text` on one line, with runs of white space collapsed and long text cut.
fn one_line(text: &str) -> String {
    let s = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(77).collect();
        format!("{cut}…")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origins() -> SketchOrigins {
        let main = SourceFile::new("main.sk", "step s { sketch = foo(4, ?) }\n");
        let lib = SourceFile::new(
            "lib.sk",
            "def foo(n, f) = contains((map : ? -> n.? -> ?) f)\n",
        );
        SketchOrigins {
            files: vec![main, lib].into(),
            main: 0,
            nodes: vec![
                Origin {
                    at: Place {
                        file: 0,
                        span: Span::new(25, 26),
                    },
                    calls: Vec::new(),
                },
                Origin {
                    at: Place {
                        file: 1,
                        span: Span::new(25, 46),
                    },
                    calls: vec![Place {
                        file: 0,
                        span: Span::new(18, 24),
                    }],
                },
            ],
        }
    }

    #[test]
    fn a_node_of_the_step_is_underlined_where_it_is() {
        let o = origins();
        assert_eq!(o.primary(0).map(|p| p.span), Some(Span::new(25, 26)));
        let (file, d) = o.diagnostic(0, "no match", "here").unwrap();
        let text = file.render(&[d]);
        assert!(text.contains("main.sk:1:26"), "{text}");
    }

    #[test]
    fn a_node_from_an_imported_definition_points_at_the_call() {
        let o = origins();
        let (file, d) = o.diagnostic(1, "no match", "here").unwrap();
        let text = file.render(&[d]);
        assert!(text.contains("main.sk:1:19"), "{text}");
        assert!(text.contains("^^^^^^ here"), "{text}");
        assert!(
            text.contains("`(map : ? -> n.? -> ?)`, in the definition at lib.sk:1:26"),
            "{text}"
        );
        assert!(o.diagnostic(2, "x", "y").is_none());
    }
}
