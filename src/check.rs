//! `risec check FILE`: parse and type-check; the entry point's type and the facts it assumes.

use crate::core::print::{fact_to_source, program_type_to_source};
use crate::frontend::load::compile_file;

/// `risec check FILE`: the entry point's name and type, and the divisibility facts assumed.
pub fn check(path: &str, entry: Option<&str>) -> Result<String, String> {
    let p = compile_file(path, entry).map_err(|e| e.to_string())?;
    let mut out = format!("{} : {}\n", p.name, program_type_to_source(&p));
    for fact in &p.facts {
        out.push_str(&format!("  assumes {}\n", fact_to_source(&p, fact)));
    }
    Ok(out)
}
