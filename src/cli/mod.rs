//! The subcommands of the `risec` binary as library functions returning their output text, so
//! that tests can run them without spawning processes. Errors are fully rendered messages.

pub mod bench;
mod eval;

pub use eval::{eval, parse_sizes, EvalOptions, OutputFormat, DEFAULT_MEMORY};

use crate::core::print::{program_nat_to_source, program_to_source, program_type_to_source};
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

/// `risec print FILE`: the elaborated core term as Rise source.
pub fn print(path: &str, entry: Option<&str>) -> Result<String, String> {
    let p = compile_file(path, entry).map_err(|e| e.to_string())?;
    Ok(program_to_source(&p))
}

/// `risec rules`: every rule of the library as an aligned table: its name with parameters and
/// its description, and under them its shape (`lhs =>> rhs`).
pub fn rules() -> String {
    let catalogue = crate::eqsat::rules::catalogue();
    let signatures: Vec<String> = catalogue.iter().map(|r| r.signature()).collect();
    let width = signatures
        .iter()
        .map(|s| s.chars().count())
        .chain(["rule".len()])
        .max()
        .unwrap_or(0);
    let mut out = format!(
        "{:<width$}  description\n{:<width$}    shape\n\n",
        "rule", ""
    );
    for (info, signature) in catalogue.iter().zip(&signatures) {
        out.push_str(&format!("{signature:<width$}  {}\n", info.doc));
        out.push_str(&format!("{:<width$}    {}\n", "", info.shape));
    }
    out.push_str(&format!(
        "\n{} rules. Pass them to `risec prove --rules`, comma-separated, with size arguments \
         where they take some: `--rules map-fusion,split-join(32)`.\n",
        catalogue.len()
    ));
    out
}

/// What `risec prove` prints, and whether the goal was found (exit status 0, else 2).
#[derive(Clone, Debug)]
pub struct ProveOutput {
    /// The outcome's summary ([`crate::eqsat::prove::Outcome::summary`]).
    pub text: String,
    /// Whether the goal was found.
    pub found: bool,
}

/// `risec prove START GOAL --rules …`: searches for GOAL from START and writes the statistics to
/// `stats` (as JSON, atomically) when given. Errors (unreadable files, unknown rules, different
/// types, an unwritable statistics file) are rendered messages.
pub fn prove(
    start: &str,
    goal: &str,
    options: &crate::eqsat::prove::ProveOptions,
    stats: Option<&str>,
) -> Result<ProveOutput, String> {
    if let Some(path) = stats {
        // Fail before a long search rather than after it.
        crate::eqsat::stats::check_writable(std::path::Path::new(path))?;
    }
    let outcome = crate::eqsat::prove::prove(start, goal, options)?;
    let text = outcome.summary();
    if let Some(path) = stats {
        crate::eqsat::stats::write_atomically(
            std::path::Path::new(path),
            &crate::eqsat::stats::to_json(&outcome.stats()),
        )
        .map_err(|e| format!("{text}{e}"))?;
    }
    Ok(ProveOutput {
        text,
        found: outcome.found,
    })
}
