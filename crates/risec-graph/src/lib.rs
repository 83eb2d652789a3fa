//! The tensor-graph front end: `risec graph FILE.graph`.
//!
//! Inference graphs (a network's block: inputs, weights, named operators, outputs) optimised
//! by equality saturation with TASO-style substitutions, the e-graph built either in TENSAT's
//! fixed rule order or by Monte Carlo tree search (the third paper of the project, `../papers`:
//! Hartmann, He and Yoneki, PACT'24), then extracted under a cost model that counts shared
//! values once. The data path, one module per stage:
//!
//! ```text
//! .graph ─ lexer (logos) + parser ─▶ ast ─ check (names, operators, attributes, shapes) ─▶ Graph
//!   ─ lang (e-graph language, shapes and constancy per class) ─ rules (single- and
//!     multi-pattern, each validated: validate) ─ construct (TENSAT order | MCTS) ─▶ e-graph
//!   ─ extract (greedy DAG under cost) ─▶ optimised graph ─ print (.graph text), eval (reference)
//! ```
//!
//! ```
//! use risec_graph as graph;
//!
//! // Two products by weights: the product of the weights is computed once, before inference.
//! let text = "input x : 64 x 256\nweight w1 : 256 x 256\nweight w2 : 256 x 64\n\
//!             let h = matmul(x, w1)\nlet y = matmul(h, w2)\noutput y";
//! let file = risec_core::diagnostics::SourceFile::new("chain.graph", text);
//! let g = graph::parse(&file).unwrap();
//! let opt = graph::optimize(&g, &graph::Options::default()).unwrap();
//! assert!(opt.cost < opt.original_cost);
//! assert!(graph::print(&g, &opt.expr).contains("matmul(w1, w2)"));
//! assert!(graph::check(&g, &opt.expr, 1) < 1e-9);
//! ```

mod ast;
mod check;
pub mod codegen;
pub mod construct;
pub mod cost;
pub mod eval;
pub mod extract;
pub mod lang;
mod lexer;
mod parser;
mod print;
pub mod rules;
mod shape;
pub mod validate;

pub use check::Graph;
pub use construct::{Limits, Stop, Strategy};
pub use print::print;

pub use egg::RecExpr;
use lang::{GraphAnalysis, GraphEGraph, TensorLang};
use risec_core::diagnostics::{Diagnostic, SourceFile};
use std::time::{Duration, Instant};

/// A `.graph` file that could not be read, parsed or checked.
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    /// The file could not be read.
    #[error("error: cannot read `{path}`: {source}")]
    Read {
        /// The path given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not UTF-8 text.
    #[error(transparent)]
    NotUtf8(#[from] risec_core::diagnostics::utf8::NotUtf8),
    /// Parse or check errors, rendered against the file.
    #[error("{}", .file.render(.diagnostics).trim_end())]
    Invalid {
        /// The file.
        file: SourceFile,
        /// What is wrong, each at its place.
        diagnostics: Vec<Diagnostic>,
    },
}

/// Parses and checks `.graph` text.
pub fn parse(file: &SourceFile) -> Result<Graph, GraphError> {
    let invalid = |diagnostics| GraphError::Invalid {
        file: file.clone(),
        diagnostics,
    };
    let stmts = parser::parse_file(&file.text).map_err(invalid)?;
    check::check(&stmts).map_err(invalid)
}

/// Reads, parses and checks the `.graph` file at `path`.
pub fn load(path: &std::path::Path) -> Result<Graph, GraphError> {
    let bytes = std::fs::read(path).map_err(|source| GraphError::Read {
        path: path.display().to_string(),
        source,
    })?;
    parse(&risec_core::diagnostics::utf8::source_from_bytes(
        path.display().to_string(),
        bytes,
    )?)
}

/// How the optimised graph is taken from the e-graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Extractor {
    /// The greedy DAG extractor with moves at split parts ([`extract::best`]).
    #[default]
    Greedy,
    /// Integer linear programming seeded with the greedy graph, within this time (needs the
    /// cargo feature `ilp`).
    Ilp(Duration),
}

/// How a graph is optimised.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// How the e-graph is built.
    pub strategy: Strategy,
    /// How the graph is extracted.
    pub extractor: Extractor,
    /// Its limits.
    pub limits: Limits,
    /// The seed of MCTS.
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            strategy: Strategy::Tensat {
                multi_iterations: 1,
            },
            extractor: Extractor::Greedy,
            limits: Limits::default(),
            seed: 0,
        }
    }
}

/// MCTS as in the paper's experiments: 128 simulations per applied rule, rollouts of 10.
pub const MCTS_DEFAULT: Strategy = Strategy::Mcts {
    budget: 128,
    depth: 10,
    exploration: 0.5,
};

/// An optimised graph.
#[derive(Clone, Debug)]
pub struct Optimized {
    /// The graph; its last node is `outputs`.
    pub expr: RecExpr<TensorLang>,
    /// Its estimated cost (µs, [`cost`]).
    pub cost: f64,
    /// The estimated cost of the graph as written.
    pub original_cost: f64,
    /// E-nodes and e-classes at the end.
    pub enodes: usize,
    /// E-classes at the end.
    pub eclasses: usize,
    /// What the construction did.
    pub built: construct::Built,
    /// Time of the construction and extraction.
    pub time: Duration,
    /// How the graph was extracted, in words (`greedy`; `ilp: optimal, 812 variables, greedy
    /// 730.4 µs`).
    pub extraction: String,
}

/// Why a graph could not be optimised.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OptimizeError {
    /// Extraction found no graph (never for a checked graph: the original is in the e-graph).
    #[error("no graph could be extracted")]
    NoGraph,
    /// `Extractor::Ilp` in a build without the feature `ilp`.
    #[error(
        "this risec was built without the ILP extractor (cargo build --release --features ilp)"
    )]
    NoIlp,
}

/// Optimises `graph` with every rule of [`rules::all`] under the analytic cost model.
pub fn optimize(graph: &Graph, options: &Options) -> Result<Optimized, OptimizeError> {
    let start = Instant::now();
    let (egraph, root, built) = saturate(graph, options);
    finish(graph, &egraph, root, built, start, options.extractor)
}

/// [`optimize`], then every operator of the final e-graph timed from its own C (those not in
/// `table` yet, compiled in `dir`) and the graph extracted again under the measured times:
/// the costs reported are sums of measured times (µs). The construction itself (MCTS's
/// rewards) uses the analytic model: a rollout extracts thousands of times, and looking a
/// measured time up costs more than computing an estimate.
pub fn optimize_measured(
    graph: &Graph,
    options: &Options,
    measure: &codegen::measure::MeasureOptions,
    table: &mut codegen::measure::CostTable,
    dir: &std::path::Path,
) -> Result<Optimized, String> {
    let start = Instant::now();
    let (mut egraph, root, built) = saturate(graph, options);
    codegen::measure::measure(&egraph, table, measure, dir)?;
    egraph.analysis.measured = Some(std::rc::Rc::new(table.clone()));
    finish(graph, &egraph, root, built, start, options.extractor).map_err(|e| e.to_string())
}

/// The e-graph of `graph` built by `options`' strategy under the analytic cost model.
fn saturate(graph: &Graph, options: &Options) -> (GraphEGraph, egg::Id, construct::Built) {
    let mut egraph = GraphEGraph::new(GraphAnalysis {
        decls: graph.decls.clone(),
        measured: None,
    });
    let root = egraph.add_expr(&graph.expr);
    egraph.rebuild();
    let rules = rules::all();
    let built = construct::construct(
        &mut egraph,
        root,
        &rules,
        options.strategy,
        &options.limits,
        options.seed,
    );
    (egraph, root, built)
}

fn finish(
    graph: &Graph,
    egraph: &GraphEGraph,
    root: egg::Id,
    built: construct::Built,
    start: Instant,
    extractor: Extractor,
) -> Result<Optimized, OptimizeError> {
    let original_cost = extract::cost_of(egraph, &graph.expr);
    let root = egraph.find(root);
    let best = extract::best(egraph, root, extract::FINAL_MOVES).ok_or(OptimizeError::NoGraph)?;
    let (best, extraction) = match extractor {
        Extractor::Greedy => (best, "greedy".to_string()),
        #[cfg(feature = "ilp")]
        Extractor::Ilp(time) => {
            let greedy_cost = best.cost;
            let (best, optimal, variables) = extract::ilp(egraph, root, best, time);
            let words = if optimal {
                "optimal"
            } else {
                "not proven optimal"
            };
            (
                best,
                format!("ilp: {words}, {variables} variables, greedy {greedy_cost:.1} µs"),
            )
        }
        #[cfg(not(feature = "ilp"))]
        Extractor::Ilp(_) => return Err(OptimizeError::NoIlp),
    };
    // Extraction is greedy: the graph as written is the fallback, never a worse one.
    let (expr, cost) = if best.cost <= original_cost {
        (best.expr, best.cost)
    } else {
        (graph.expr.clone(), original_cost)
    };
    Ok(Optimized {
        expr,
        cost,
        original_cost,
        extraction,
        enodes: egraph.total_number_of_nodes(),
        eclasses: egraph.number_of_classes(),
        built,
        time: start.elapsed(),
    })
}

/// The most arithmetic operations the reference evaluation is run for (`check`, `--bench`):
/// beyond it, evaluating the graph in plain f64 loops would take minutes.
pub const REFERENCE_LIMIT: f64 = 2e9;

/// About how many arithmetic operations the reference evaluation of `graph` takes (a product
/// or convolution: its output times its reduction; any other operator: its output).
pub fn reference_work(graph: &Graph) -> f64 {
    let mut metas: Vec<lang::Meta> = Vec::new();
    let mut work = 0.0;
    for node in graph.expr.as_ref() {
        let m = shape::infer(node, &|id| &metas[usize::from(id)], &graph.decls)
            .unwrap_or(lang::Meta::Outputs);
        let out: f64 = m
            .shape()
            .map_or(0.0, |s| s.iter().map(|d| *d as f64).product());
        let per = match node {
            TensorLang::Matmul([_, a, _]) => metas[usize::from(*a)]
                .shape()
                .and_then(|s| s.last())
                .map_or(1.0, |k| *k as f64),
            TensorLang::Conv2d([_, _, _, _, w]) => metas[usize::from(*w)]
                .shape()
                .map_or(1.0, |s| s[1..].iter().map(|d| *d as f64).product()),
            _ => 1.0,
        };
        work += out * per;
        metas.push(m);
    }
    work
}

/// The largest relative difference between `graph`'s outputs and `expr`'s on random inputs
/// (seeded), by the reference evaluation.
pub fn check(graph: &Graph, expr: &RecExpr<TensorLang>, seed: u64) -> f64 {
    let inputs = eval::random_inputs(&graph.decls, &graph.order, seed);
    let want = eval::eval(&graph.expr, &inputs);
    let got = eval::eval(expr, &inputs);
    if want.len() != got.len() {
        return f64::INFINITY;
    }
    want.iter()
        .zip(&got)
        .map(|(w, g)| g.distance(w))
        .fold(0.0, f64::max)
}
