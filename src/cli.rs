//! The subcommands of the `risec` binary as library functions returning their output text, so
//! that tests can run them without spawning processes. Errors are fully rendered messages.

use crate::core::print::{program_nat_to_source, program_to_source, program_type_to_source};
use crate::core::TypedProgram;
use crate::driver::compile_file;
use crate::interp::{self, random::Rng, Value};
use crate::types;

/// `risec check FILE`: the entry point's name and type, and the divisibility facts assumed.
pub fn check(path: &str, entry: Option<&str>) -> Result<String, String> {
    let p = compile_file(path, entry)?;
    let mut out = format!("{} : {}\n", p.name, program_type_to_source(&p));
    for fact in &p.facts {
        out.push_str(&format!(
            "  assumes `{}` is a whole number\n",
            program_nat_to_source(&p, fact)
        ));
    }
    Ok(out)
}

/// `risec print FILE`: the elaborated core term as Rise source.
pub fn print(path: &str, entry: Option<&str>) -> Result<String, String> {
    let p = compile_file(path, entry)?;
    Ok(program_to_source(&p))
}

/// `risec eval FILE --size m=4,… --seed S`: random inputs, the interpreter's result.
pub fn eval(path: &str, sizes: &str, seed: u64, entry: Option<&str>) -> Result<String, String> {
    let p = compile_file(path, entry)?;
    let sizes = parse_sizes(&p, sizes)?;
    check_facts(&p, &sizes)?;
    let (param_types, result_type) =
        interp::program_signature(&p).map_err(|e| format!("error: {e}"))?;
    let mut rng = Rng::new(seed);
    let mut out = String::new();
    let mut args = Vec::new();
    let mut names = p.size_params.clone();
    for ((name, ty), i) in p.value_params.iter().zip(&param_types).zip(0..) {
        let value = interp::random::random_value(ty, &sizes_innermost_first(&sizes), &mut rng)
            .map_err(|e| format!("error: cannot generate input `{name}`: {e}"))?;
        let shown = types::to_source(ty, &mut names, &crate::nat::default_atom_name);
        out.push_str(&format!("{name} : {shown} =\n{}\n", value_text(&value, i)));
        args.push(value);
    }
    let result = interp::run_program(&p, &sizes, args)
        .map_err(|e| format!("error: evaluation failed: {e}"))?;
    let shown = types::to_source(&result_type, &mut names, &crate::nat::default_atom_name);
    out.push_str(&format!("result : {shown} =\n{}\n", value_text(&result, 0)));
    Ok(out)
}

fn value_text(v: &Value, _i: usize) -> String {
    format!("  {v}")
}

/// The nat environment for the program body: index 0 is the last size parameter.
fn sizes_innermost_first(sizes: &[u64]) -> Vec<u64> {
    sizes.iter().rev().copied().collect()
}

/// Parses `m=4,n=3` into values for the program's size parameters, in declaration order.
pub fn parse_sizes(p: &TypedProgram, text: &str) -> Result<Vec<u64>, String> {
    let mut values: Vec<Option<u64>> = vec![None; p.size_params.len()];
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, value) = item.split_once('=').ok_or_else(|| {
            format!("error: `--size {item}`: expected NAME=VALUE, as in `--size m=4,n=3`")
        })?;
        let (name, value) = (name.trim(), value.trim());
        let slot = p
            .size_params
            .iter()
            .position(|s| s == name)
            .ok_or_else(|| {
                format!(
                    "error: `{}` has no size parameter `{name}`; its size parameters are: {}",
                    p.name,
                    p.size_params.join(", ")
                )
            })?;
        let v: u64 = value.parse().map_err(|e: std::num::ParseIntError| {
            if *e.kind() == std::num::IntErrorKind::PosOverflow {
                format!(
                    "error: size `{name}={value}` is too large (the largest is {})",
                    u64::MAX
                )
            } else {
                format!("error: size `{name}={value}`: expected a natural number")
            }
        })?;
        if values[slot].is_some() {
            return Err(format!(
                "error: `--size` gives `{name}` twice; give each size once, as in `--size {}`",
                p.size_params
                    .iter()
                    .map(|n| format!("{n}=…"))
                    .collect::<Vec<_>>()
                    .join(",")
            ));
        }
        if v > interp::MAX_ELEMENTS {
            return Err(format!(
                "error: size `{name}={v}` is larger than the interpreter's limit of {}",
                interp::MAX_ELEMENTS
            ));
        }
        values[slot] = Some(v);
    }
    let missing: Vec<&str> = p
        .size_params
        .iter()
        .zip(&values)
        .filter(|(_, v)| v.is_none())
        .map(|(n, _)| n.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "error: missing sizes for {}: pass them as `--size {}`",
            missing.join(", "),
            p.size_params
                .iter()
                .map(|n| format!("{n}=…"))
                .collect::<Vec<_>>()
                .join(",")
        ));
    }
    Ok(values.into_iter().map(|v| v.unwrap_or(0)).collect())
}

/// Reports a size assignment that violates a divisibility fact the program relies on.
fn check_facts(p: &TypedProgram, sizes: &[u64]) -> Result<(), String> {
    let env = sizes_innermost_first(sizes);
    for fact in &p.facts {
        let ok = fact.eval(&|a| match a {
            crate::nat::NatAtom::Index(i) => env.get(*i as usize).copied(),
            _ => None,
        });
        if ok.is_err() {
            let assignment: Vec<String> = p
                .size_params
                .iter()
                .zip(sizes)
                .map(|(n, v)| format!("{n}={v}"))
                .collect();
            return Err(format!(
                "error: the program assumes `{}` is a whole number, which is false for {}",
                program_nat_to_source(p, fact),
                assignment.join(",")
            ));
        }
    }
    Ok(())
}

/// `risec rules`: every rule of the library as an aligned table: its name with parameters and
/// its description, and under them its shape (`lhs =>> rhs`).
pub fn rules() -> String {
    let catalogue = crate::rules::catalogue();
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
    /// The outcome's summary ([`crate::prove::Outcome::summary`]).
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
    options: &crate::prove::ProveOptions,
    stats: Option<&str>,
) -> Result<ProveOutput, String> {
    if let Some(path) = stats {
        // Fail before a long search rather than after it.
        crate::stats::check_writable(std::path::Path::new(path))?;
    }
    let outcome = crate::prove::prove(start, goal, options)?;
    let text = outcome.summary();
    if let Some(path) = stats {
        crate::stats::write_atomically(
            std::path::Path::new(path),
            &crate::stats::to_json(&outcome.stats()),
        )
        .map_err(|e| format!("{text}{e}"))?;
    }
    Ok(ProveOutput {
        text,
        found: outcome.found,
    })
}
