//! `risec emit-c`: a `.rise` file that is already low-level, compiled to `out.c` and `out.h`.

use super::{emit_c, CProgram, CodegenError, CodegenOptions};
use crate::core::sizes::{parse_sizes, SizesError};
use crate::core::TypedProgram;
use crate::support::output::{check_not_inputs, write_all_atomically, OverwritesInput, WriteError};
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
    /// The C backend cannot compile the program.
    #[error("error: `{program}`: {source}")]
    Codegen {
        /// The program's entry point.
        program: String,
        /// Why.
        source: CodegenError,
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

/// Checks that neither `output` nor its header is one of `inputs` (the program file, the sketch
/// and its imports), before any work.
pub fn check_outputs(output: &Path, inputs: &[&Path]) -> Result<(), EmitCError> {
    Ok(check_not_inputs(&[output, &header_path(output)], inputs)?)
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
    })
}

/// Compiles and writes `output` and its header; without `output`, returns the source text.
pub fn compile_to_files(
    program: &TypedProgram,
    output: Option<&Path>,
    sizes: Option<&str>,
) -> Result<(CProgram, String), EmitCError> {
    let options = options_for(program, output, sizes)?;
    let c = emit_c(program, &options).map_err(|source| EmitCError::Codegen {
        program: program.name.clone(),
        source,
    })?;
    match output {
        Some(path) => {
            let header = header_path(path);
            write_all_atomically(&[(path, &c.source), (&header, &c.header)])?;
            let msg = format!(
                "wrote {} and {}: {};\n",
                path.display(),
                header.display(),
                c.signature
            );
            Ok((c, msg))
        }
        None => {
            let text = c.source.clone();
            Ok((c, text))
        }
    }
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
        match compile_to_files(&inc, None, None) {
            Err(e @ EmitCError::Codegen { .. }) => {
                assert!(e.to_string().starts_with("error: `inc`: cannot generate C: "))
            }
            other => panic!("{:?}", other.map(|(_, text)| text)),
        }
    }
}
