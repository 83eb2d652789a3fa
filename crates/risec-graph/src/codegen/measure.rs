//! The measured cost model: each operator of an e-graph timed once per shape from the C risec
//! generates for it (its kernel, through the same sketch as in the compiled graph), all in one
//! driver; the times are kept in a [`CostTable`] (a JSON file with `--cost-cache`) so that a
//! shape is measured once.

use super::emit::graph_functions;
use super::KernelCache;
use crate::check::Graph;
use crate::lang::{Decl, GraphEGraph, Meta, TensorLang, TensorName};
use egg::{Language, RecExpr, Symbol};
use risec_bench::compile::compile_executable;
use risec_bench::prelude::PRELUDE;
use rustc_hash::FxHashMap;
use std::fmt::Write;
use std::path::Path;
use std::process::Command;

/// Measured times (µs, the median of a few calls) by operator key ([`key`]).
pub type CostTable = FxHashMap<String, f64>;

/// The key of a measurable operator: its name, attributes and operands' shapes, e.g.
/// `conv2d 1 1 relu | 1x192x28x28 96x192x1x1`; `None` for operators that are free (leaves,
/// `split` and its parts, values of weights alone) or that are data movement left to the
/// analytic model (`enlarge`).
pub fn key(egraph: &GraphEGraph, class: egg::Id, node: &TensorLang) -> Option<String> {
    use TensorLang as T;
    let measurable = matches!(
        node,
        T::Matmul(_)
            | T::Conv2d(_)
            | T::Add(_)
            | T::Mul(_)
            | T::Relu(_)
            | T::Tanh(_)
            | T::Sigmoid(_)
            | T::Softmax(_)
            | T::LayerNorm(_)
            | T::Transpose(_)
            | T::MaxPool(_)
            | T::AvgPool(_)
            | T::Concat(_)
    );
    if !measurable || egraph[class].data.constant() {
        return None;
    }
    let mut attrs = Vec::new();
    let mut shapes = Vec::new();
    for c in node.children() {
        match &egraph[*c].data {
            Meta::Num(n) => attrs.push(n.to_string()),
            Meta::Act(a) => attrs.push(a.to_string()),
            Meta::Tensor { shape, .. } => shapes.push(
                shape
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join("x"),
            ),
            _ => return None,
        }
    }
    Some(format!("{} {} | {}", node, attrs.join(" "), shapes.join(" ")).replace("  ", " "))
}

/// How operators are measured.
#[derive(Clone, Copy, Debug)]
pub struct MeasureOptions<'a> {
    /// Calls timed per operator (the median is kept).
    pub rounds: usize,
    /// OpenMP threads.
    pub threads: usize,
    /// The folder of shipped sketches (`None`: the naive lowering).
    pub sketches: Option<&'a Path>,
}

/// A one-operator graph computing `node` (whose operands are the graph's inputs).
fn single(egraph: &GraphEGraph, node: &TensorLang) -> Graph {
    let mut expr = RecExpr::default();
    let mut decls = crate::lang::Decls::default();
    let mut order = Vec::new();
    let mut children = Vec::new();
    for (i, c) in node.children().iter().enumerate() {
        let id = match &egraph[*c].data {
            Meta::Num(n) => expr.add(TensorLang::Num(*n)),
            Meta::Act(a) => expr.add(TensorLang::Act(*a)),
            Meta::Tensor { shape, .. } => {
                let name = Symbol::from(format!("a{i}"));
                decls.insert(
                    name,
                    Decl {
                        shape: shape.clone(),
                        weight: false,
                    },
                );
                order.push(name);
                expr.add(TensorLang::Tensor(TensorName(name)))
            }
            other => unreachable!(
                "a measurable operator's operand is a tensor or an attribute, not {other:?}"
            ),
        };
        children.push(id);
    }
    let mut k = 0;
    let op = node.clone().map_children(|_| {
        k += 1;
        children[k - 1]
    });
    let root = expr.add(op);
    expr.add(TensorLang::Outputs(vec![root].into_boxed_slice()));
    Graph {
        decls,
        order,
        expr,
        outputs: vec!["y".into()],
        names: FxHashMap::default(),
    }
}

/// Measures every operator of `egraph` not yet in `table`, in one driver compiled in `dir`;
/// how many were measured.
pub fn measure(
    egraph: &GraphEGraph,
    table: &mut CostTable,
    options: &MeasureOptions,
    dir: &Path,
) -> Result<usize, String> {
    let mut todo: Vec<(String, TensorLang)> = Vec::new();
    for class in egraph.classes() {
        for node in &class.nodes {
            if let Some(k) = key(egraph, class.id, node) {
                if !table.contains_key(&k) && !todo.iter().any(|(t, _)| *t == k) {
                    todo.push((k, node.clone()));
                }
            }
        }
    }
    if todo.is_empty() {
        return Ok(0);
    }
    let mut cache = KernelCache::default();
    let mut prototypes = String::new();
    let mut bodies = String::new();
    let mut kernels = std::collections::BTreeSet::new();
    let mut driver = String::new();
    for (j, (_, node)) in todo.iter().enumerate() {
        let g = single(egraph, node);
        let f = graph_functions(&format!("m{j}"), &g, &g.expr)?;
        prototypes.push_str(&f.prototypes);
        bodies.push_str(&f.source);
        kernels.extend(f.kernels);
        let sizes: Vec<usize> = g
            .order
            .iter()
            .map(|s| g.decls[s].shape.iter().product())
            .collect();
        let out: usize = egraph[egraph
            .lookup(node.clone())
            .ok_or("the operator is in the e-graph")?]
        .data
        .shape()
        .map_or(0, |s| s.iter().product());
        let _ = writeln!(driver, "    {{");
        let mut args = Vec::new();
        for (i, n) in sizes.iter().enumerate() {
            let _ = writeln!(driver, "        float *x{i} = malloc(sizeof(float) * {n}ULL); for (long long q = 0; q < {n}LL; q++) x{i}[q] = next_float();");
            args.push(format!("x{i}"));
        }
        let _ = writeln!(
            driver,
            "        float *y = malloc(sizeof(float) * {out}ULL);"
        );
        args.push("y".into());
        let a = args.join(", ");
        let _ = writeln!(
            driver,
            "        m{j}_state *s = m{j}_prepare();\n        if (!s || m{j}(s, {a})) {{ printf(\"FAIL {j}\\n\"); return 1; }}\n        for (int r = 0; r < rounds; r++) {{ double t0 = now_ms(); m{j}(s, {a}); t[r] = now_ms() - t0; }}\n        printf(\"OP {j} %.6f\\n\", 1000.0 * median_ms(t, rounds));\n        m{j}_release(s); free(y);"
        );
        for i in 0..sizes.len() {
            let _ = writeln!(driver, "        free(x{i});");
        }
        let _ = writeln!(driver, "    }}");
    }
    let mut source = format!("{PRELUDE}\n{prototypes}\n{}\n", super::RUNTIME_C);
    for k in &kernels {
        if !cache.contains_key(k) {
            let compiled = k.c_source(options.sketches)?;
            cache.insert(*k, compiled);
        }
        super::append_static(&mut source, &cache[k].0);
    }
    source.push_str(&bodies);
    let _ = write!(
        source,
        "\nint main(int argc, char **argv) {{\n    int rounds = argc > 1 ? atoi(argv[1]) : 5; if (rounds < 1) rounds = 1;\n    double *t = malloc(sizeof(double) * (size_t)rounds);\n{driver}    return 0;\n}}\n"
    );
    std::fs::write(dir.join("measure.c"), &source)
        .map_err(|e| format!("cannot write measure.c: {e}"))?;
    let exe = dir.join("measure");
    compile_executable(
        &[dir.join("measure.c")],
        &[dir.to_path_buf()],
        &exe,
        &[],
        &[],
    )
    .map_err(|e| e.to_string())?;
    let out = Command::new(&exe)
        .arg(options.rounds.max(1).to_string())
        .env("OMP_NUM_THREADS", options.threads.max(1).to_string())
        .output()
        .map_err(|e| format!("cannot run the measurements: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut measured = 0;
    for line in text.lines() {
        let mut w = line.split_whitespace();
        if let (Some("OP"), Some(j), Some(us)) = (w.next(), w.next(), w.next()) {
            if let (Ok(j), Ok(us)) = (j.parse::<usize>(), us.parse::<f64>()) {
                if let Some((k, _)) = todo.get(j) {
                    table.insert(k.clone(), us);
                    measured += 1;
                }
            }
        }
    }
    if measured < todo.len() {
        return Err(format!(
            "the measurements failed: {}{}",
            text.trim(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(measured)
}
