//! `risec emit-c FILE [-o OUT.c]`: a program that is already low-level, compiled to C.

use crate::backend_c::files::{check_outputs, compile_to_files};
use crate::frontend::load::compile_file;
use std::path::Path;

/// Compiles the entry point of `file` to C; with `output`, writes `OUT.c` and `OUT.h` and
/// returns what was written, else returns the C source. `sizes` (`m=1024,…`) compiles sizes in;
/// `exact_sizes`: see [`crate::CodegenOptions::exact_sizes`].
pub fn emit_c(
    file: &str,
    output: Option<&str>,
    sizes: Option<&str>,
    entry: Option<&str>,
    exact_sizes: bool,
) -> Result<String, String> {
    if let Some(out) = output {
        check_outputs(Path::new(out), &[Path::new(file)]).map_err(|e| e.to_string())?;
    }
    let program = compile_file(file, entry).map_err(|e| e.to_string())?;
    compile_to_files(&program, output.map(Path::new), sizes, exact_sizes)
        .map(|(c, text)| {
            super::print_codegen_warnings(&c.warnings);
            text
        })
        .map_err(|e| e.in_source_file(Path::new(file), true).to_string())
}
