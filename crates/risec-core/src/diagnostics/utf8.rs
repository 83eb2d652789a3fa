//! Source files read as UTF-8 text: a file with invalid bytes is reported as a diagnostic at
//! its first invalid byte (file:line:col, the line shown), like any other error in it.

use super::{Diagnostic, SourceFile, Span};

/// A source file that is not UTF-8 text. `Display` is the rendered diagnostic.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{}", self.render().trim_end())]
pub struct NotUtf8 {
    /// The file, its invalid bytes each replaced by U+FFFD (so that lines and columns before
    /// the first one are those of the file).
    pub file: Box<SourceFile>,
    /// The error, at the first invalid byte.
    pub diagnostic: Box<Diagnostic>,
    /// The byte offset of the first invalid byte in the file.
    pub offset: usize,
}

impl NotUtf8 {
    /// The diagnostic rendered against the file.
    pub fn render(&self) -> String {
        self.file.render(std::slice::from_ref(&*self.diagnostic))
    }
}

/// The source file named `name` with contents `bytes`, or the error at its first byte that is
/// not UTF-8.
pub fn source_from_bytes(name: impl Into<String>, bytes: Vec<u8>) -> Result<SourceFile, NotUtf8> {
    let name = name.into();
    match String::from_utf8(bytes) {
        Ok(text) => Ok(SourceFile::new(name, text)),
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            let bytes = e.as_bytes();
            // `None`: the file ends inside a character.
            let bad = e.utf8_error().error_len();
            let shown: Vec<String> = bytes[offset..offset + bad.unwrap_or(bytes.len() - offset)]
                .iter()
                .map(|b| format!("0x{b:02X}"))
                .collect();
            let label = match bad {
                Some(1) => format!("invalid byte {}", shown[0]),
                Some(_) => format!("invalid bytes {}", shown.join(" ")),
                None => format!("incomplete character at the end ({})", shown.join(" ")),
            };
            // The text up to `offset` is unchanged by the lossy conversion, so the first
            // replacement character is at the same offset (less a byte-order mark, which
            // `SourceFile::new` drops).
            let lossy = String::from_utf8_lossy(bytes).into_owned();
            let whole = lossy.len();
            let file = SourceFile::new(name, lossy);
            let start = offset - (whole - file.text.len());
            let span = Span::new(start, start + char::REPLACEMENT_CHARACTER.len_utf8());
            let diagnostic = Diagnostic::error(
                format!("`{}` is not valid UTF-8 text", file.name),
                span,
                label,
            )
            .with_note("risec reads source files as UTF-8: re-encode the file (e.g. with iconv)");
            Err(NotUtf8 {
                file: Box::new(file),
                diagnostic: Box::new(diagnostic),
                offset,
            })
        }
    }
}

/// Reads the file at `path` as a source file named by its path as given.
pub fn read_source(path: &std::path::Path) -> Result<SourceFile, ReadSourceError> {
    let bytes = std::fs::read(path).map_err(|source| ReadSourceError::Read {
        path: path.display().to_string(),
        source,
    })?;
    Ok(source_from_bytes(path.display().to_string(), bytes)?)
}

/// A source file that could not be read as text.
#[derive(Debug, thiserror::Error)]
pub enum ReadSourceError {
    /// The file could not be read.
    #[error("error: cannot read `{path}`: {source}")]
    Read {
        /// The path as given.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not UTF-8 text.
    #[error(transparent)]
    NotUtf8(#[from] NotUtf8),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_invalid_byte_is_reported_at_its_line_and_column() {
        let bytes = b"def f (x : f32) : f32 =\n  x \xff+ 1.0\xfe\n".to_vec();
        let e = source_from_bytes("bad.rise", bytes).unwrap_err();
        assert_eq!(e.offset, 28);
        let shown = e.to_string();
        assert!(
            shown.starts_with("error: `bad.rise` is not valid UTF-8 text"),
            "{shown}"
        );
        assert!(shown.contains("┌─ bad.rise:2:5"), "{shown}");
        assert!(shown.contains("invalid byte 0xFF"), "{shown}");
    }

    #[test]
    fn columns_count_characters_and_a_byte_order_mark_is_no_column() {
        let mut bytes = "\u{feff}é = ".as_bytes().to_vec();
        bytes.extend([0xc3, 0x28]);
        let e = source_from_bytes("x.sk", bytes).unwrap_err();
        assert!(e.to_string().contains("x.sk:1:5"), "{e}");
        assert!(e.to_string().contains("invalid byte 0xC3"), "{e}");
        let e = source_from_bytes("end.la", b"x = \xe2\x82".to_vec()).unwrap_err();
        assert!(e.to_string().contains("end.la:1:5"), "{e}");
        assert!(e.to_string().contains("incomplete character"), "{e}");
    }

    #[test]
    fn valid_text_is_a_source_file() {
        let f = source_from_bytes("ok.rise", b"def f = 1.0".to_vec()).unwrap();
        assert_eq!(f.text, "def f = 1.0");
    }
}
