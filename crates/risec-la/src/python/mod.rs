//! Plans as Python modules (`risec la --emit python`): the plan (or the outputs as written)
//! for NumPy/SciPy on one machine or for Dask on a cluster, so that users take it into the
//! tools they already run.
//!
//! A module has one function per output and `compute`, which computes every output with each
//! shared intermediate once. Every function takes the inputs, in their order of declaration,
//! as arguments (NumPy arrays, anything `scipy.sparse` converts for a sparse input, or Dask
//! arrays for the Dask target), checks their shapes, and returns NumPy arrays (a value the
//! plan keeps sparse as a `scipy.sparse` CSR array). A plan
//! is straight-line code: one statement per operation, calling the small runtime of its
//! target (`numpy_runtime.py`, `dask_runtime.py`, copied into the module), which knows which
//! operations keep a sparse value sparse.
//!
//! ```
//! use risec_la as la;
//!
//! let file = risec::SourceFile::new("pnmf.la", "input W : 100 x 10\ninput H : 10 x 100\noutput s = sum(W %*% H)");
//! let program = la::parse(&file).unwrap();
//! let plan = la::optimize(&program, &la::LaOptions::default()).unwrap();
//! let module = la::python::module(&program, &plan.expr, &plan.roots, la::python::Target::Numpy, &la::python::Header::plan(&plan));
//! assert!(module.contains("def s(W, H):") && module.contains("def compute(W, H):"));
//! ```

pub mod bench;

use crate::check::LaProgram;
use crate::lang::Math;
use egg::{Id, Language, RecExpr};
use rustc_hash::FxHashSet;
use std::fmt::Write;

/// What a module runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// NumPy and `scipy.sparse` (CSR), in this process.
    Numpy,
    /// `dask.array`, on the Dask scheduler in use (a `dask.distributed` client when one is
    /// active), with sparse inputs as chunks of `scipy.sparse` CSR arrays.
    Dask,
}

impl Target {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Target::Numpy => "numpy",
            Target::Dask => "dask",
        }
    }

    fn runtime(self) -> &'static str {
        match self {
            Target::Numpy => include_str!("numpy_runtime.py"),
            Target::Dask => include_str!("dask_runtime.py"),
        }
    }
}

impl std::str::FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Target, String> {
        match s {
            "numpy" => Ok(Target::Numpy),
            "dask" => Ok(Target::Dask),
            _ => Err(format!("`{s}` is not a Python target (numpy, dask)")),
        }
    }
}

/// What the module's docstring says it holds.
#[derive(Clone, Debug)]
pub struct Header {
    /// `the optimised plan` or `the outputs as written`.
    pub what: String,
    /// The plan as `.la` text, quoted in the docstring (empty for the outputs as written).
    pub text: String,
    /// The cost model's line, if any.
    pub cost: String,
}

impl Header {
    /// The header of a plan's module.
    pub fn plan(plan: &crate::LaPlan) -> Header {
        Header {
            what: "the optimised plan".into(),
            text: plan.text.clone(),
            cost: format!(
                "estimated cost (risec's model): {:.2e} as written -> {:.2e}",
                plan.original_cost, plan.plan_cost
            ),
        }
    }

    /// The header of the outputs as written.
    pub fn original() -> Header {
        Header {
            what: "the outputs as written (not optimised, for comparison)".into(),
            text: String::new(),
            cost: String::new(),
        }
    }
}

/// Python's reserved words and the names the module defines itself: a `.la` name among them
/// gets a trailing `_`.
const RESERVED: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "compute", "INPUTS", "OUTPUTS", "TARGET",
];

/// The Python name of a `.la` name: unchanged unless it starts with `_la` (the runtime's and
/// the temporaries' prefix: then `v` goes in front) or is reserved or taken (then `_` is
/// appended until it is free).
fn python_name(name: &str, taken: &FxHashSet<String>) -> String {
    let mut out = name.to_string();
    if out.starts_with("_la") {
        out.insert(0, 'v');
    }
    while RESERVED.contains(&out.as_str()) || taken.contains(&out) {
        out.push('_');
    }
    out
}

/// The Python names of the inputs (the functions' parameters, `INPUTS`' keys) and of the
/// outputs (their functions, `compute`'s keys).
pub fn python_names(program: &LaProgram, roots: &[(String, Id)]) -> (Vec<String>, Vec<String>) {
    let mut taken = FxHashSet::default();
    let mut name = |n: &str| {
        let p = python_name(n, &taken);
        taken.insert(p.clone());
        p
    };
    let inputs = program.inputs.iter().map(|i| name(&i.name)).collect();
    let outputs = roots.iter().map(|(n, _)| name(n)).collect();
    (inputs, outputs)
}

/// The Python module computing `roots` of `expr` (a plan's, or [`crate::codegen::written`]'s)
/// on `target`.
pub fn module(
    program: &LaProgram,
    expr: &RecExpr<Math>,
    roots: &[(String, Id)],
    target: Target,
    header: &Header,
) -> String {
    let (params, functions) = python_names(program, roots);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\"\"\"{} of `{}`, generated by `risec la --emit python --target {}`: do not edit.\n",
        capitalise(&header.what),
        program.file.name,
        target.name()
    );
    out.push_str("Inputs (arguments of every function, in this order):\n");
    for (input, p) in program.inputs.iter().zip(&params) {
        let sparse = if input.is_sparse() {
            format!(
                ", sparse (about {} non-zeros): a scipy.sparse matrix or array, or anything scipy.sparse.csr_array accepts",
                input.nnz.round()
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "    {p}: {} x {}{sparse}",
            input.shape.rows, input.shape.cols
        );
    }
    out.push_str("Outputs (NumPy arrays, or scipy.sparse CSR arrays where the plan keeps them sparse; a\nscalar is 1 x 1), one function each, and `compute` for all:\n");
    for ((_, term), f) in program.outputs.iter().zip(&functions) {
        let _ = writeln!(out, "    {f}: {} x {}", term.shape.rows, term.shape.cols);
    }
    if !header.text.is_empty() {
        out.push_str("\nThe plan, in `.la` form:\n\n");
        for line in header.text.lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
    if !header.cost.is_empty() {
        let _ = writeln!(out, "\n{}", header.cost);
    }
    out.push_str("\"\"\"\n\n");
    out.push_str(target.runtime());
    let _ = writeln!(out, "\n# --- the plan\n\nTARGET = {:?}", target.name());
    out.push_str("INPUTS = {\n");
    for (input, p) in program.inputs.iter().zip(&params) {
        let _ = writeln!(
            out,
            "    {p:?}: {{\"shape\": ({}, {}), \"nnz\": {}, \"sparse\": {}}},",
            input.shape.rows,
            input.shape.cols,
            input.nnz.round() as u64,
            if input.is_sparse() { "True" } else { "False" }
        );
    }
    out.push_str("}\nOUTPUTS = {\n");
    for ((_, term), f) in program.outputs.iter().zip(&functions) {
        let _ = writeln!(
            out,
            "    {f:?}: ({}, {}),",
            term.shape.rows, term.shape.cols
        );
    }
    out.push_str("}\n");
    let nodes = expr.as_ref();
    let all: Vec<(String, Id)> = functions
        .iter()
        .zip(roots)
        .map(|(f, (_, r))| (f.clone(), *r))
        .collect();
    for (f, root) in &all {
        let _ = write!(out, "\n\ndef {f}({}):\n", params.join(", "));
        let _ = writeln!(out, "    \"\"\"The output `{f}`.\"\"\"");
        body(
            &mut out,
            nodes,
            program,
            &params,
            std::slice::from_ref(&(f.clone(), *root)),
            false,
        );
    }
    let _ = write!(out, "\n\ndef compute({}):\n", params.join(", "));
    out.push_str("    \"\"\"Every output, each shared intermediate computed once: a dict from the output's\n    name to its value.\"\"\"\n");
    body(&mut out, nodes, program, &params, &all, true);
    out
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// One function's statements: the inputs checked, one statement per operation that `roots`
/// need (in the expression's order, which is a topological order), the result returned (one
/// value, or a dict when there are several roots).
fn body(
    out: &mut String,
    nodes: &[Math],
    program: &LaProgram,
    params: &[String],
    roots: &[(String, Id)],
    as_dict: bool,
) {
    for (input, p) in program.inputs.iter().zip(params) {
        let _ = writeln!(
            out,
            "    {p} = _la_input({p}, {:?}, ({}, {}), {})",
            input.name,
            input.shape.rows,
            input.shape.cols,
            if input.is_sparse() { "True" } else { "False" }
        );
    }
    let mut needed = vec![false; nodes.len()];
    for (_, r) in roots {
        needed[usize::from(*r)] = true;
    }
    for i in (0..nodes.len()).rev() {
        if needed[i] {
            for c in nodes[i].children() {
                needed[usize::from(*c)] = true;
            }
        }
    }
    let mut names: Vec<Option<String>> = vec![None; nodes.len()];
    let mut temp = 0;
    for (i, node) in nodes.iter().enumerate() {
        if !needed[i] {
            continue;
        }
        let arg = |id: &Id| {
            names[usize::from(*id)]
                .clone()
                .unwrap_or_else(|| "None".into())
        };
        let value = match node {
            Math::Var(v) => {
                let k = program
                    .inputs
                    .iter()
                    .position(|input| input.name == v.as_str());
                names[i] = Some(
                    k.map(|k| params[k].clone())
                        .unwrap_or_else(|| v.to_string()),
                );
                continue;
            }
            Math::Lit(l) => {
                names[i] = Some(float_literal(l.0.value()));
                continue;
            }
            Math::Func(_) => continue,
            Math::MMul([a, b]) => format!("_la_mm({}, {})", arg(a), arg(b)),
            Math::Mul([a, b]) => format!("_la_mul({}, {})", arg(a), arg(b)),
            Math::Add([a, b]) => format!("_la_add({}, {})", arg(a), arg(b)),
            Math::T(a) => format!("_la_t({})", arg(a)),
            Math::Sum(a) => format!("_la_sum({})", arg(a)),
            Math::RowSums(a) => format!("_la_rowsums({})", arg(a)),
            Math::ColSums(a) => format!("_la_colsums({})", arg(a)),
            Math::Map([f, a]) => {
                let name = match &nodes[usize::from(*f)] {
                    Math::Func(func) => func.name(),
                    other => unreachable!("a plan maps functions only, not {other}"),
                };
                format!("_la_{name}({})", arg(a))
            }
            other => unreachable!("a plan holds matrix operations only, not {other}"),
        };
        temp += 1;
        let name = format!("_la_t{temp}");
        let _ = writeln!(out, "    {name} = {value}");
        names[i] = Some(name);
    }
    let value = |r: &Id| names[usize::from(*r)].clone().unwrap_or_default();
    match roots {
        [(_, r)] if !as_dict => {
            let _ = writeln!(out, "    return _la_results([{}])[0]", value(r));
        }
        _ => {
            let list: Vec<String> = roots.iter().map(|(_, r)| value(r)).collect();
            let keys: Vec<String> = roots.iter().map(|(n, _)| format!("{n:?}")).collect();
            let _ = writeln!(
                out,
                "    return dict(zip([{}], _la_results([{}])))",
                keys.join(", "),
                list.join(", ")
            );
        }
    }
}

/// A number as a Python float literal (a Python number: it keeps the arrays' dtype).
fn float_literal(v: f64) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else if v.is_nan() {
        "float(\"nan\")".into()
    } else if v > 0.0 {
        "float(\"inf\")".into()
    } else {
        "float(\"-inf\")".into()
    }
}
