//! `risec eval`: runs the reference interpreter on an entry point, with inputs read from a JSON
//! file or generated from a seed, and prints the inputs and the result as text or as JSON.
//!
//! The JSON forms are those of [`crate::interp::json`]: nested lists, as NumPy's `tolist()`
//! writes them. `--output json` prints one object, `{"entry", "sizes", "inputs", "result"}`,
//! and `--inputs FILE` reads either such an object (so a run can be repeated from its own
//! output) or just the inputs, `{"xs": [...], "ys": [...]}`. Inputs the file does not give are
//! generated from the seed; sizes not given with `--size` are taken from the file's `sizes`,
//! else read off the lengths of the input lists.

use crate::core::sizes::{parse_some_sizes, require_all_sizes};
use crate::core::TypedProgram;
use crate::frontend::load::compile_file;
use crate::interp::{self, json, random::Rng};
use crate::ir::types;
use serde_json::{Map, Value as Json};

/// How `risec eval` prints its inputs and result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// `name : type =` and the value on the next line, for people.
    #[default]
    Text,
    /// One JSON object with the sizes, the inputs and the result.
    Json,
}

/// What `risec eval` is asked to do.
#[derive(Clone, Debug)]
pub struct EvalOptions {
    /// Sizes for the entry point's size parameters, as on the command line (`m=4,n=3`).
    pub sizes: String,
    /// The seed of the generated inputs.
    pub seed: u64,
    /// The entry point (default: the last definition).
    pub entry: Option<String>,
    /// A JSON file with (some of) the inputs.
    pub inputs: Option<String>,
    /// The output format.
    pub output: OutputFormat,
    /// The interpreter's memory budget in bytes (`interp::memory::with_limit`).
    pub memory: u64,
}

impl Default for EvalOptions {
    fn default() -> EvalOptions {
        EvalOptions {
            sizes: String::new(),
            seed: 0,
            entry: None,
            inputs: None,
            output: OutputFormat::Text,
            memory: crate::support::memory::default_limit(),
        }
    }
}

/// `risec eval FILE …`: the inputs and the interpreter's result, as text or JSON.
pub fn eval(path: &str, options: &EvalOptions) -> Result<String, String> {
    let p = compile_file(path, options.entry.as_deref()).map_err(|e| e.to_string())?;
    let (param_types, result_type) =
        interp::program_signature(&p).map_err(|e| format!("error: {e}"))?;
    let given = match &options.inputs {
        Some(file) => read_inputs(file, &p)?,
        None => Inputs::default(),
    };
    let mut sizes = parse_some_sizes(&p, &options.sizes).map_err(|e| e.to_string())?;
    for (slot, name) in sizes.iter_mut().zip(&p.size_params) {
        if slot.is_none() {
            *slot = given.sizes.get(name).copied();
        }
    }
    // Read the rest off the input lists (sizes innermost first, as the types index them).
    let mut innermost_first: Vec<Option<u64>> = sizes.iter().rev().copied().collect();
    for (name, ty) in p.value_params.iter().zip(&param_types) {
        if let Some(j) = given.values.get(name) {
            json::infer_sizes(j, ty, &mut innermost_first);
        }
    }
    let sizes: Vec<Option<u64>> = innermost_first.into_iter().rev().collect();
    let sizes = require_all(&p, sizes)?;
    check_facts(&p, &sizes)?;
    interp::memory::with_limit(options.memory, || {
        run(&p, &param_types, &result_type, &sizes, &given, options)
    })
}

/// Generates or reads the inputs, runs the program and renders the output.
fn run(
    p: &TypedProgram,
    param_types: &[types::Type],
    result_type: &types::Type,
    sizes: &[u64],
    given: &Inputs,
    options: &EvalOptions,
) -> Result<String, String> {
    let env = sizes_innermost_first(sizes);
    let lookup = |i: u32| env.get(i as usize).copied();
    let mut rng = Rng::new(options.seed);
    let mut args = Vec::new();
    for (name, ty) in p.value_params.iter().zip(param_types) {
        let value = match given.values.get(name) {
            Some(j) => json::from_json(j, ty, &lookup, name)
                .map_err(|e| format!("error: input {e} (type `{}`)", show(p, ty)))?,
            None => interp::random::random_value(ty, &env, &mut rng)
                .map_err(|e| format!("error: cannot generate input `{name}`: {e}"))?,
        };
        args.push(value);
    }
    let result = interp::run_program(p, sizes, args.clone())
        .map_err(|e| format!("error: evaluation failed: {e}"))?;
    Ok(match options.output {
        OutputFormat::Text => {
            let mut out = String::new();
            for ((name, ty), value) in p.value_params.iter().zip(param_types).zip(&args) {
                out.push_str(&format!("{name} : {} =\n  {value}\n", show(p, ty)));
            }
            out.push_str(&format!(
                "result : {} =\n  {result}\n",
                show(p, result_type)
            ));
            out
        }
        OutputFormat::Json => {
            let sizes: Map<String, Json> = p
                .size_params
                .iter()
                .zip(sizes)
                .map(|(n, v)| (n.clone(), Json::from(*v)))
                .collect();
            let inputs: Map<String, Json> = p
                .value_params
                .iter()
                .zip(&args)
                .map(|(n, v)| (n.clone(), json::to_json(v)))
                .collect();
            let out = serde_json::json!({
                "entry": p.name,
                "sizes": sizes,
                "inputs": inputs,
                "result": json::to_json(&result),
            });
            format!("{out}\n")
        }
    })
}

/// A type of the program's signature as source text.
fn show(p: &TypedProgram, ty: &types::Type) -> String {
    let mut names = p.size_params.clone();
    types::to_source(ty, &mut names, &crate::ir::nat::default_atom_name)
}

/// What an inputs file gives.
#[derive(Default)]
struct Inputs {
    /// Values by parameter name.
    values: Map<String, Json>,
    /// Sizes by name.
    sizes: std::collections::HashMap<String, u64>,
}

/// Reads `--inputs FILE`: `{"x": …}`, or `risec eval --output json`'s object.
fn read_inputs(path: &str, p: &TypedProgram) -> Result<Inputs, String> {
    let file = crate::diagnostics::utf8::read_source(std::path::Path::new(path))
        .map_err(|e| e.to_string())?;
    let json: Json = serde_json::from_str(&file.text)
        .map_err(|e| format!("error: `{path}` is not valid JSON: {e}"))?;
    let Json::Object(mut top) = json else {
        return Err(format!(
            "error: `{path}` must hold a JSON object from parameter names to values, as in \
             {{\"{}\": [1.0, 2.0]}}",
            p.value_params.first().map_or("x", String::as_str)
        ));
    };
    let mut sizes = std::collections::HashMap::new();
    let values = match top.remove("inputs") {
        Some(Json::Object(values)) => {
            if let Some(Json::Object(given)) = top.remove("sizes") {
                for (name, v) in given {
                    let v = v.as_u64().ok_or_else(|| {
                        format!("error: `{path}`: size `{name}` must be a natural number")
                    })?;
                    sizes.insert(name, v);
                }
            }
            values
        }
        Some(_) => return Err(format!("error: `{path}`: `inputs` must be an object")),
        None => top,
    };
    if let Some(unknown) = values.keys().find(|k| !p.value_params.contains(k)) {
        return Err(format!(
            "error: `{path}` gives `{unknown}`, which is not a parameter of `{}`; its parameters are: {}",
            p.name,
            p.value_params.join(", ")
        ));
    }
    Ok(Inputs { values, sizes })
}

/// The nat environment for the program body: index 0 is the last size parameter.
fn sizes_innermost_first(sizes: &[u64]) -> Vec<u64> {
    sizes.iter().rev().copied().collect()
}

/// Every size, or an error naming the missing ones; sizes beyond the interpreter's limit on
/// elements are errors too.
fn require_all(p: &TypedProgram, values: Vec<Option<u64>>) -> Result<Vec<u64>, String> {
    let values = require_all_sizes(p, values).map_err(|e| e.to_string())?;
    for (name, v) in p.size_params.iter().zip(&values) {
        if *v > interp::MAX_ELEMENTS {
            return Err(format!(
                "error: size `{name}={v}` is larger than the interpreter's limit of {}",
                interp::MAX_ELEMENTS
            ));
        }
    }
    Ok(values)
}

/// Reports a size assignment that violates a divisibility fact the program relies on.
fn check_facts(p: &TypedProgram, sizes: &[u64]) -> Result<(), String> {
    let Some(fact) = p.violated_fact(sizes) else {
        return Ok(());
    };
    let assignment: Vec<String> = p
        .size_params
        .iter()
        .zip(sizes)
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    Err(format!(
        "error: the program assumes {}, which is false for {}",
        crate::core::print::fact_to_source(p, fact),
        assignment.join(",")
    ))
}
