//! `risec emit-c`: a `.rise` file that is already low-level, compiled to `out.c` and `out.h`.

use super::{emit_c, CProgram, CodegenError, CodegenOptions};
use crate::core::TypedProgram;
use crate::support::output::{write_all_atomically, WriteError};
use std::path::{Path, PathBuf};

/// Why a program could not be compiled to C files. `Display` gives the message `risec emit-c`
/// prints.
#[derive(Debug, thiserror::Error)]
pub enum EmitCError {
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
    /// The source or the header could not be written (neither is then changed).
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// Sizes given as text (`m=1024,n=512`) that are not values for every size parameter.
/// `Display` gives the message risec prints.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SizesError {
    /// An item is not `NAME=VALUE`.
    #[error("error: `--size {item}`: expected NAME=VALUE, as in `--size m=1024,n=1024`")]
    NotAnAssignment {
        /// The item (`m1024`).
        item: String,
    },
    /// The program has no size parameter of this name.
    #[error(
        "error: `{program}` has no size parameter `{name}`; its size parameters are: {}",
        params.join(", ")
    )]
    UnknownParameter {
        /// The program's entry point.
        program: String,
        /// The name given.
        name: String,
        /// The program's size parameters.
        params: Vec<String>,
    },
    /// A value is not a whole number.
    #[error("error: size `{item}`: expected a positive whole number")]
    NotANumber {
        /// The item (`m=ten`).
        item: String,
    },
    /// Some size parameters were given no value.
    #[error(
        "error: missing sizes for {}: `--size` must give every size parameter",
        missing.join(", ")
    )]
    Missing {
        /// Their names, in declaration order.
        missing: Vec<String>,
    },
}

/// The header path that goes with a source path: `dir/out.c` → `dir/out.h`.
pub fn header_path(source: &Path) -> std::path::PathBuf {
    source.with_extension("h")
}

/// Options for compiling `program` to be written at `output` (header named after it), with
/// sizes given as `m=…,n=…` text (`None`: symbolic).
pub fn options_for(
    program: &TypedProgram,
    output: Option<&Path>,
    sizes: Option<&str>,
) -> Result<CodegenOptions, EmitCError> {
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

/// Parses `m=1024,n=512` into values for every size parameter, in declaration order.
pub fn parse_sizes(program: &TypedProgram, text: &str) -> Result<Vec<u64>, SizesError> {
    let mut values: Vec<Option<u64>> = vec![None; program.size_params.len()];
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| SizesError::NotAnAssignment {
                item: item.to_string(),
            })?;
        let slot = program
            .size_params
            .iter()
            .position(|s| s == name.trim())
            .ok_or_else(|| SizesError::UnknownParameter {
                program: program.name.clone(),
                name: name.trim().to_string(),
                params: program.size_params.clone(),
            })?;
        let v: u64 = value.trim().parse().map_err(|_| SizesError::NotANumber {
            item: item.to_string(),
        })?;
        values[slot] = Some(v);
    }
    let missing: Vec<String> = program
        .size_params
        .iter()
        .zip(&values)
        .filter(|(_, v)| v.is_none())
        .map(|(n, _)| n.clone())
        .collect();
    if !missing.is_empty() {
        return Err(SizesError::Missing { missing });
    }
    Ok(values.into_iter().flatten().collect())
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
    fn sizes_errors_are_typed() {
        let p = program();
        assert_eq!(parse_sizes(&p, " n=3, m=2 ").unwrap(), [2, 3]);
        let e = parse_sizes(&p, "m2").unwrap_err();
        assert_eq!(e, SizesError::NotAnAssignment { item: "m2".into() });
        assert_eq!(
            e.to_string(),
            "error: `--size m2`: expected NAME=VALUE, as in `--size m=1024,n=1024`"
        );
        let e = parse_sizes(&p, "q=1").unwrap_err();
        assert!(matches!(&e, SizesError::UnknownParameter { name, .. } if name == "q"));
        assert_eq!(
            e.to_string(),
            "error: `copy` has no size parameter `q`; its size parameters are: m, n"
        );
        assert!(matches!(
            parse_sizes(&p, "m=two"),
            Err(SizesError::NotANumber { .. })
        ));
        let e = parse_sizes(&p, "n=4").unwrap_err();
        assert_eq!(e, SizesError::Missing { missing: vec!["m".into()] });
        assert_eq!(
            e.to_string(),
            "error: missing sizes for m: `--size` must give every size parameter"
        );
        let e = options_for(&p, None, Some("m=1")).unwrap_err();
        assert!(matches!(e, EmitCError::Sizes(SizesError::Missing { .. })));
        let e = options_for(&p, Some(Path::new("..")), None).unwrap_err();
        assert!(matches!(e, EmitCError::NotAFilePath { .. }));
        assert_eq!(e.to_string(), "error: `..` is not a file path");
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
