//! `risec check FILE`: parse and type-check; the entry point's type and the facts it assumes.

use crate::core::print::{program_nat_to_source, program_type_to_source};
use crate::core::TypedProgram;
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

/// A fact the program relies on, for people: a divisibility fact as "`m/4` is a whole
/// number", a difference that must not be negative as "`n ≥ 5`".
pub fn fact_to_source(p: &TypedProgram, fact: &crate::ir::nat::Nat) -> String {
    use crate::ir::nat::{self, Rational};
    if !fact.terms().iter().all(|(_, c)| c.is_integer()) {
        return format!("`{}` is a whole number", program_nat_to_source(p, fact));
    }
    let constant = fact
        .terms()
        .iter()
        .find(|(m, _)| m.factors().is_empty())
        .map_or(0, |(_, c)| c.numer());
    if constant < 0 {
        let rest = nat::sub(fact, &nat::constant(Rational::int(constant)));
        format!("`{} ≥ {}`", program_nat_to_source(p, &rest), -constant)
    } else {
        format!("`{} ≥ 0`", program_nat_to_source(p, fact))
    }
}
