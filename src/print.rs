//! `risec print FILE`: the elaborated core term as Rise source.

use crate::core::print::program_to_source;
use crate::frontend::load::compile_file;

/// `risec print FILE`: the elaborated core term as Rise source.
pub fn print(path: &str, entry: Option<&str>) -> Result<String, String> {
    let p = compile_file(path, entry).map_err(|e| e.to_string())?;
    Ok(program_to_source(&p))
}
