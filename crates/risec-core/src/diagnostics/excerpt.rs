//! Source excerpts for rendering: long lines are cut down to the parts around the places a
//! diagnostic points at, as rustc does, so that an error in a 40 KB generated line shows a few
//! dozen characters of it rather than all of them. Line and column numbers stay those of the
//! real file.

use codespan_reporting::files::{self, Files, SimpleFile};
use std::ops::Range;

/// Lines longer than this many bytes are cut.
pub(super) const MAX_LINE: usize = 160;

/// Bytes of context kept on each side of a label's start and end on a cut line.
const CONTEXT: usize = 48;

/// What replaces the cut parts of a line.
const ELLIPSIS: &str = "…";

/// A piece of the original text kept in the excerpt.
#[derive(Clone, Copy, Debug)]
struct Piece {
    /// Where it starts in the original text.
    original: usize,
    /// Where it starts in the excerpt.
    excerpt: usize,
    /// Its length in bytes.
    len: usize,
}

/// The text of a file with its long lines cut, and the map back to the original.
pub(super) struct Excerpt<'a> {
    /// The original text (for column numbers).
    original: &'a str,
    /// The excerpt, as a file for codespan-reporting.
    file: SimpleFile<&'a str, String>,
    /// The kept pieces, in order.
    pieces: Vec<Piece>,
}

/// `offset` moved down to a character boundary of `text`.
fn floor_char(text: &str, offset: usize) -> usize {
    let mut o = offset.min(text.len());
    while !text.is_char_boundary(o) {
        o -= 1;
    }
    o
}

/// `offset` moved up to a character boundary of `text`.
fn ceil_char(text: &str, offset: usize) -> usize {
    let mut o = offset.min(text.len());
    while !text.is_char_boundary(o) {
        o += 1;
    }
    o
}

impl<'a> Excerpt<'a> {
    /// The excerpt of `text` for labels at `spans` (byte ranges of `text`).
    pub(super) fn new(name: &'a str, text: &'a str, spans: &[Range<usize>]) -> Excerpt<'a> {
        let mut out = String::with_capacity(text.len().min(64 * 1024));
        let mut pieces = Vec::new();
        let mut keep = |out: &mut String, range: Range<usize>| {
            pieces.push(Piece {
                original: range.start,
                excerpt: out.len(),
                len: range.len(),
            });
            out.push_str(&text[range]);
        };
        let mut line_start = 0;
        for line in text.split_inclusive('\n') {
            let content_end = line_start + line.trim_end_matches(['\n', '\r']).len();
            let line_end = line_start + line.len();
            if content_end - line_start <= MAX_LINE {
                keep(&mut out, line_start..line_end);
            } else {
                // Windows around every label start and end on this line.
                let mut windows: Vec<Range<usize>> = spans
                    .iter()
                    .flat_map(|s| [s.start, s.end])
                    .filter(|&o| o >= line_start && o <= content_end)
                    .map(|o| {
                        floor_char(text, o.saturating_sub(CONTEXT).max(line_start))
                            ..ceil_char(text, (o + CONTEXT).min(content_end))
                    })
                    .collect();
                if windows.is_empty() {
                    windows.push(
                        line_start..ceil_char(text, (line_start + 2 * CONTEXT).min(content_end)),
                    );
                }
                windows.sort_by_key(|w| w.start);
                let mut merged: Vec<Range<usize>> = Vec::new();
                for w in windows {
                    match merged.last_mut() {
                        Some(last) if w.start <= last.end => last.end = last.end.max(w.end),
                        _ => merged.push(w),
                    }
                }
                let mut at = line_start;
                for w in merged {
                    if w.start > at {
                        out.push_str(ELLIPSIS);
                    }
                    keep(&mut out, w.clone());
                    at = w.end;
                }
                if at < content_end {
                    out.push_str(ELLIPSIS);
                }
                keep(&mut out, content_end..line_end);
            }
            line_start = line_end;
        }
        Excerpt {
            original: text,
            file: SimpleFile::new(name, out),
            pieces,
        }
    }

    /// Where original byte `offset` is in the excerpt (offsets in cut parts move to the
    /// nearest kept piece's end).
    pub(super) fn to_excerpt(&self, offset: usize) -> usize {
        let i = self.pieces.partition_point(|p| p.original <= offset);
        match i.checked_sub(1).map(|i| self.pieces[i]) {
            Some(p) => p.excerpt + (offset - p.original).min(p.len),
            None => 0,
        }
    }

    /// Where excerpt byte `offset` came from in the original.
    fn to_original(&self, offset: usize) -> usize {
        let i = self.pieces.partition_point(|p| p.excerpt <= offset);
        match i.checked_sub(1).map(|i| self.pieces[i]) {
            Some(p) => p.original + (offset - p.excerpt).min(p.len),
            None => 0,
        }
    }
}

impl<'a> Files<'a> for Excerpt<'a> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, _id: ()) -> Result<&'a str, files::Error> {
        Ok(self.file.name())
    }

    fn source(&'a self, _id: ()) -> Result<&'a str, files::Error> {
        Ok(self.file.source())
    }

    fn line_index(&'a self, id: (), byte_index: usize) -> Result<usize, files::Error> {
        Files::line_index(&self.file, id, byte_index)
    }

    fn line_range(&'a self, id: (), line_index: usize) -> Result<Range<usize>, files::Error> {
        Files::line_range(&self.file, id, line_index)
    }

    /// The column in the original line, counted in characters from 1.
    fn column_number(
        &'a self,
        _id: (),
        _line_index: usize,
        byte_index: usize,
    ) -> Result<usize, files::Error> {
        let offset = self.to_original(byte_index).min(self.original.len());
        let line_start = self.original[..offset].rfind('\n').map_or(0, |i| i + 1);
        Ok(self.original[line_start..offset].chars().count() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_kept_whole() {
        let text = "def f = x\n  + y\n";
        let e = Excerpt::new("f", text, std::slice::from_ref(&(8..9)));
        assert_eq!(e.file.source(), text);
        assert_eq!(e.to_excerpt(12), 12);
    }

    #[test]
    fn long_lines_keep_the_labelled_parts() {
        let line = format!("def f = {}y{}", "x + ".repeat(2000), " + x".repeat(2000));
        let text = format!("// first\n{line}\nnext\n");
        let at = text.find('y').unwrap();
        let e = Excerpt::new("f", &text, std::slice::from_ref(&(at..at + 1)));
        let shown = e.file.source();
        assert!(shown.len() < 200, "{shown}");
        assert!(shown.starts_with("// first\n…"), "{shown}");
        assert!(shown.ends_with("…\nnext\n"), "{shown}");
        let y = e.to_excerpt(at);
        assert_eq!(&shown[y..y + 1], "y");
        let line_index = e.line_index((), y).unwrap();
        assert_eq!(line_index, 1);
        assert_eq!(
            e.column_number((), line_index, y).unwrap(),
            8 + 4 * 2000 + 1
        );
    }
}
