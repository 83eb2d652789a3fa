//! `risec emit-c`: a `.rise` file that is already low-level, compiled to `out.c` and `out.h`.

use super::{emit_c, CProgram, CodegenOptions};
use crate::core::TypedProgram;
use crate::support::output::write_all_atomically;
use std::path::Path;

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
) -> Result<CodegenOptions, String> {
    let header_name = match output {
        Some(p) => header_path(p)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| format!("error: `{}` is not a file path", p.display()))?,
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
pub fn parse_sizes(program: &TypedProgram, text: &str) -> Result<Vec<u64>, String> {
    let mut values: Vec<Option<u64>> = vec![None; program.size_params.len()];
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, value) = item.split_once('=').ok_or_else(|| {
            format!("error: `--size {item}`: expected NAME=VALUE, as in `--size m=1024,n=1024`")
        })?;
        let slot = program
            .size_params
            .iter()
            .position(|s| s == name.trim())
            .ok_or_else(|| {
                format!(
                    "error: `{}` has no size parameter `{}`; its size parameters are: {}",
                    program.name,
                    name.trim(),
                    program.size_params.join(", ")
                )
            })?;
        let v: u64 = value
            .trim()
            .parse()
            .map_err(|_| format!("error: size `{item}`: expected a positive whole number"))?;
        values[slot] = Some(v);
    }
    let missing: Vec<&str> = program
        .size_params
        .iter()
        .zip(&values)
        .filter(|(_, v)| v.is_none())
        .map(|(n, _)| n.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "error: missing sizes for {}: `--size` must give every size parameter",
            missing.join(", ")
        ));
    }
    Ok(values.into_iter().flatten().collect())
}

/// Compiles and writes `output` and its header; without `output`, returns the source text.
pub fn compile_to_files(
    program: &TypedProgram,
    output: Option<&Path>,
    sizes: Option<&str>,
) -> Result<(CProgram, String), String> {
    let options = options_for(program, output, sizes)?;
    let c = emit_c(program, &options).map_err(|e| format!("error: `{}`: {e}", program.name))?;
    match output {
        Some(path) => {
            let header = header_path(path);
            write_all_atomically(&[(path, &c.source), (&header, &c.header)])
                .map_err(|e| e.to_string())?;
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
