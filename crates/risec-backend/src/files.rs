//! `risec emit-c`: a `.rise` file that is already low-level, compiled to `out.c` and `out.h`.

use super::edges::{Rounding, SizeHandling};
use super::{emit_c, CProgram, CodegenError, CodegenOptions};
use crate::core::sizes::{parse_sizes, SizesError};
use crate::core::TypedProgram;
use crate::diagnostics::{Diagnostic, SourceFile, Span};
use crate::frontend::syntax::lexer::Token;
use crate::support::output::{
    check_not_inputs, check_writable_pair, write_all_atomically, OverwritesInput, WriteError,
};
use std::path::{Path, PathBuf};

/// Why a program could not be compiled to C files. `Display` gives the message `risec emit-c`
/// prints.
#[derive(Debug, thiserror::Error)]
pub enum EmitCError {
    /// The output path is the header's own path (`-o mm.h`): the source would be overwritten
    /// by its header.
    #[error(
        "error: `-o {}`: name the C source (`.c`); its header is written beside it with `.h`",
        path.display()
    )]
    HeaderAsOutput {
        /// The path given.
        path: PathBuf,
    },
    /// The output path names no file (`-o ..`), so there is no header name to derive.
    #[error("error: `{}` is not a file path", path.display())]
    NotAFilePath {
        /// The output path as given.
        path: PathBuf,
    },
    /// The `--size` text does not give the program's sizes.
    #[error(transparent)]
    Sizes(#[from] SizesError),
    /// The C backend cannot compile the program. With the program's source file, the message
    /// points at its definition (and at the primitive it names, when the program compiled is
    /// the one written there), with file:line:col and the line underlined.
    #[error("{}", render_codegen_error(program, source, file.as_ref(), *as_written))]
    Codegen {
        /// The program's entry point.
        program: String,
        /// Why.
        source: CodegenError,
        /// The source file the program was defined in, when known.
        file: Option<SourceFile>,
        /// Whether the program compiled is the one written in `file` (`risec emit-c`), not one
        /// derived from it (the main job's optimised program).
        as_written: bool,
    },
    /// The output or its header is one of the input files (the program, through any path or
    /// link): nothing is written.
    #[error(transparent)]
    OverwritesInput(#[from] OverwritesInput),
    /// The source or the header could not be written (neither is then changed).
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// The header path that goes with a source path: `dir/out.c` → `dir/out.h`.
pub fn header_path(source: &Path) -> std::path::PathBuf {
    source.with_extension("h")
}

/// Checks, before any work, that neither `output` nor its header is one of `inputs` (the
/// program file, the sketch and its imports) and that both can be written (see
/// [`check_writable_pair`]: `-o /dev/null` would make `/dev/null.h`).
pub fn check_outputs(output: &Path, inputs: &[&Path]) -> Result<(), EmitCError> {
    let header = header_path(output);
    check_not_inputs(&[output, &header], inputs)?;
    Ok(check_writable_pair(output, &header)?)
}

/// Options for compiling `program` to be written at `output` (header named after it), with
/// sizes given as `m=…,n=…` text (`None`: symbolic).
pub fn options_for(
    program: &TypedProgram,
    output: Option<&Path>,
    sizes: Option<&str>,
) -> Result<CodegenOptions, EmitCError> {
    if let Some(p) = output.filter(|p| p.file_name().is_some() && header_path(p) == *p) {
        return Err(EmitCError::HeaderAsOutput {
            path: p.to_path_buf(),
        });
    }
    let header_name = match output {
        Some(p) => header_path(p)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| EmitCError::NotAFilePath {
                path: p.to_path_buf(),
            })?,
        None => format!("{}.h", program.name),
    };
    let sizes = match sizes {
        Some(text) => Some(parse_sizes(program, text)?),
        None => None,
    };
    Ok(CodegenOptions {
        sizes,
        header_name,
        function_name: None,
        exact_sizes: false,
        wide_scalars: false,
    })
}

/// Compiles and writes `output` and its header; without `output`, returns the source text.
/// `exact_sizes`: see [`CodegenOptions::exact_sizes`].
pub fn compile_to_files(
    program: &TypedProgram,
    output: Option<&Path>,
    sizes: Option<&str>,
    exact_sizes: bool,
) -> Result<(CProgram, String), EmitCError> {
    let options = CodegenOptions {
        exact_sizes,
        ..options_for(program, output, sizes)?
    };
    let c = emit_c(program, &options).map_err(|source| EmitCError::Codegen {
        program: program.name.clone(),
        source,
        file: None,
        as_written: false,
    })?;
    match output {
        Some(path) => {
            let header = header_path(path);
            check_writable_pair(path, &header)?;
            write_all_atomically(&[(path, &c.source), (&header, &c.header)])?;
            let mut msg = format!(
                "wrote {} and {}: {};\n",
                path.display(),
                header.display(),
                c.signature
            );
            msg.push_str(&size_note(&c.sizes));
            Ok((c, msg))
        }
        None => {
            let text = c.source.clone();
            Ok((c, text))
        }
    }
}

/// A line saying what the function does with sizes that violate the kernel's facts (empty when
/// it relies on none).
pub fn size_note(sizes: &SizeHandling) -> String {
    match sizes {
        SizeHandling::Any => String::new(),
        SizeHandling::RoundedUp(_, Rounding::InKernel) => format!(
            "any positive sizes: the function rounds up sizes the tiles do not divide ({}) inside the kernel, skipping work past the real sizes\n",
            sizes.multiples_text()
        ),
        SizeHandling::RoundedUp(_, Rounding::Copies(why)) => format!(
            "any positive sizes: the function rounds up sizes the tiles do not divide ({}) on zero-padded copies ({why})\n",
            sizes.multiples_text()
        ),
        SizeHandling::Exact(None) => {
            "sizes must satisfy the program's divisibility facts (--exact-sizes): others return 1\n".to_string()
        }
        SizeHandling::Exact(Some(why)) => format!(
            "sizes must satisfy the program's divisibility facts (others return 1): they cannot be rounded up: {why}\n"
        ),
    }
}

impl EmitCError {
    /// Attaches the program's source file (read from `path`; left out when it cannot be read)
    /// to a backend error, so that its message points into it; `as_written`: the program
    /// compiled is the one written there. Other errors are returned as they are.
    pub fn in_source_file(self, path: &Path, as_written: bool) -> EmitCError {
        match self {
            EmitCError::Codegen {
                program, source, ..
            } => {
                let file = std::fs::read_to_string(path)
                    .ok()
                    .map(|text| SourceFile::new(path.display().to_string(), text));
                EmitCError::Codegen {
                    program,
                    source,
                    file,
                    as_written,
                }
            }
            other => other,
        }
    }
}

/// The message of a backend error: with the source file, a diagnostic at the definition of
/// `program` (or at the primitive the message names first, in backquotes, when the program is
/// the one written in the file and uses it there), else a plain line.
fn render_codegen_error(
    program: &str,
    error: &CodegenError,
    file: Option<&SourceFile>,
    as_written: bool,
) -> String {
    let plain = format!("error: `{program}`: {error}");
    let Some(file) = file else { return plain };
    let text = file.text.strip_prefix('\u{feff}').unwrap_or(&file.text);
    let offset = file.text.len() - text.len();
    let Ok(module) = crate::frontend::syntax::parser::parse_module(text) else {
        return plain;
    };
    let Some(def) = module.defs.iter().rev().find(|d| d.name.name == program) else {
        return plain;
    };
    let shift = |s: Span| Span::new(s.start + offset, s.end + offset);
    let message = format!("`{program}`: {error}");
    let primitive = as_written
        .then(|| named_primitive(&error.message))
        .flatten()
        .and_then(|p| {
            let tokens = crate::frontend::syntax::lexer::lex(text).ok()?;
            tokens.iter().find_map(|(start, token, end)| {
                let inside = *start >= def.span.start && *end <= def.span.end;
                matches!(token, Token::Ident(n) if n == p && inside)
                    .then(|| (p, Span::new(*start, *end)))
            })
        });
    let diagnostic = match primitive {
        Some((p, span)) => Diagnostic::error(message, shift(span), format!("`{p}` here"))
            .with_secondary(shift(def.name.span), "in this definition"),
        None => Diagnostic::error(
            message,
            shift(def.name.span),
            "compiled to C from this definition",
        ),
    };
    file.render(&[diagnostic]).trim_end().to_string()
}

/// The first name in backquotes in `message` that is a primitive's.
fn named_primitive(message: &str) -> Option<&str> {
    message
        .split('`')
        .skip(1)
        .step_by(2)
        .find(|w| crate::ir::primitive::Primitive::from_name(w).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::SourceFile;
    use crate::frontend::load::compile_source;

    fn program() -> TypedProgram {
        let text = "def copy {m n : nat} (x : m.n.f32) : m.n.f32 = x";
        compile_source(&SourceFile::new("copy.rise", text), None).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn output_errors_are_typed() {
        let p = program();
        let e = options_for(&p, None, Some("m=1")).unwrap_err();
        assert!(matches!(e, EmitCError::Sizes(SizesError::Missing { .. })));
        let e = options_for(&p, Some(Path::new("..")), None).unwrap_err();
        assert!(matches!(e, EmitCError::NotAFilePath { .. }));
        assert_eq!(e.to_string(), "error: `..` is not a file path");
        let e = options_for(&p, Some(Path::new("out/mm.h")), None).unwrap_err();
        assert!(matches!(e, EmitCError::HeaderAsOutput { .. }), "{e}");
        // A `map` (not `mapSeq`) that writes memory is not low-level: the backend refuses it.
        let text = "def inc {n : nat} (x : n.f32) : n.f32 = map (fun v => v + 1.0) x";
        let inc = compile_source(&SourceFile::new("inc.rise", text), None).unwrap();
        match compile_to_files(&inc, None, None, false) {
            Err(e @ EmitCError::Codegen { .. }) => {
                assert!(e
                    .to_string()
                    .starts_with("error: `inc`: cannot generate C: "))
            }
            other => panic!("{:?}", other.map(|(_, text)| text)),
        }
    }

    #[test]
    fn backend_errors_point_into_the_source_and_name_sizes_as_written() {
        let text = "def helper (v : f32) : f32 = v + 1.0\n\ndef inc {rows : nat} (x : rows.f32) : rows.f32 =\n  x |> map helper\n";
        let file = SourceFile::new("inc.rise", text);
        let inc = compile_source(&file, None).unwrap();
        let e = compile_to_files(&inc, None, None, false).unwrap_err();
        let e = match e {
            EmitCError::Codegen {
                program, source, ..
            } => EmitCError::Codegen {
                program,
                source,
                file: Some(file.clone()),
                as_written: true,
            },
            other => panic!("{other}"),
        };
        let shown = e.to_string();
        assert!(shown.contains("┌─ inc.rise:4:8"), "{shown}");
        assert!(shown.contains("^^^ `map` here"), "{shown}");
        assert!(shown.contains("--- in this definition"), "{shown}");
        // A program derived from the file (the main job's): its definition only.
        let EmitCError::Codegen {
            program,
            source,
            file,
            ..
        } = e
        else {
            unreachable!()
        };
        let derived = EmitCError::Codegen {
            program,
            source,
            file,
            as_written: false,
        };
        let shown = derived.to_string();
        assert!(shown.contains("┌─ inc.rise:3:5"), "{shown}");
        assert!(
            shown.contains("compiled to C from this definition"),
            "{shown}"
        );
        // Messages name the sizes as the source does, never `#0`.
        let text = "def f {n m : nat} (x : n.m.f32) : n.m.f32 = x |> mapSeq (mapSeqUnroll (fun v => v * 2.0))";
        let p = compile_source(&SourceFile::new("t.rise", text), None).unwrap();
        let shown = compile_to_files(&p, None, None, false)
            .unwrap_err()
            .to_string();
        assert!(shown.contains("over m elements"), "{shown}");
        assert!(!shown.contains('#'), "{shown}");
    }
}
