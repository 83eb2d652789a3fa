//! Choosing the plan: the cost model and a CSE-aware greedy extractor.
//!
//! A plan is made of matrix operations only. Its cost counts every operation it performs once,
//! however many times its result is used: the estimated non-zeros it materialises plus the
//! floating-point operations it takes, where a sparse operand is iterated over its non-zeros
//! (SPORES' nnz-based cost, with the work of each operator added). The extractor is the greedy
//! DAG extractor: each e-class keeps the cheapest set of operations that computes it, and a
//! node's cost is that of the union of its operands' sets, so shared intermediates are paid
//! once (`risec_eqsat::dag_extract`). It is not optimal in general (an ILP is), but it is fast
//! and exact on trees.

use super::check::Func;
use super::guard::{Guard, Limit};
use super::lang::{Kind, LaEGraph, Math};
use crate::eqsat::dag_extract;
use egg::{Id, Language, RecExpr};
use rustc_hash::FxHashMap;

/// The cost of computing `node` once, given its operands' classes; `None` for nodes a plan
/// cannot contain (relational nodes, `bind`, `unbind`, indices, numbers of the relational sort).
pub fn node_cost(egraph: &LaEGraph, class: Id, node: &Math) -> Option<f64> {
    let out = &egraph[class].data;
    let arg = |id: &Id| &egraph[*id].data;
    let size = |id: &Id| arg(id).shape().map_or(1.0, |s| s.size());
    let out_size = out.shape().map_or(1.0, |s| s.size());
    // An operand's non-zeros spread over the result's shape (broadcasting repeats them).
    let spread = |id: &Id| arg(id).nnz * (out_size / size(id).max(1.0));
    let work = match node {
        Math::Var(_) | Math::Lit(_) | Math::Func(_) => return Some(0.0),
        Math::MMul([x, y]) => {
            let (sx, sy) = (arg(x).shape()?, arg(y).shape()?);
            (arg(x).nnz * sy.cols as f64).min(arg(y).nnz * sx.rows as f64)
        }
        Math::Mul([x, y]) => spread(x).min(spread(y)),
        Math::Add([x, y]) => spread(x) + spread(y),
        Math::T(x) | Math::Sum(x) | Math::RowSums(x) | Math::ColSums(x) => arg(x).nnz,
        Math::Map([f, x]) => match arg(f).kind {
            Kind::Func(func) if func.keeps_zero() => arg(x).nnz,
            Kind::Func(Func::Inv) | Kind::Func(_) => out_size,
            _ => return None,
        },
        _ => return None,
    };
    // One more for the operation itself, so that no cycle of free operations is ever cheaper.
    Some(work + out.nnz + 1.0)
}

/// The extracted plan: one expression holding every root, with sharing.
#[derive(Debug, Clone)]
pub struct Extracted {
    /// The plan's nodes (operands before their users).
    pub expr: RecExpr<Math>,
    /// Where each root is in `expr`.
    pub roots: Vec<Id>,
    /// The plan's cost (every operation once).
    pub cost: f64,
    /// The node chosen in each class the plan uses (the ILP's warm start).
    #[cfg_attr(not(feature = "ilp"), allow(dead_code))]
    pub chosen: FxHashMap<Id, Math>,
}

/// Extracts the cheapest plan computing all `roots` together (the greedy DAG extractor of
/// `risec_eqsat::dag_extract`); `None` when a root has no plan made of matrix operations.
/// Under `guard`: when a limit stops the work list, the plan is the cheapest found by then
/// (`None` when some root has none yet), with that limit.
pub fn greedy_dag(
    egraph: &LaEGraph,
    roots: &[Id],
    guard: &Guard,
) -> (Option<Extracted>, Option<Limit>) {
    let choices = dag_extract::greedy_dag(
        egraph,
        |class, node| node_cost(egraph, class, node),
        &mut |units| guard.tick(units),
    );
    (build(egraph, &choices, roots), guard.stopped())
}

/// The plan that the chosen node of each class (`choices`) makes for `roots`, with its cost
/// (each class's operation once); `None` when a root or an operand has no choice, or the
/// choices form a cycle.
pub fn build(egraph: &LaEGraph, choices: &FxHashMap<Id, Math>, roots: &[Id]) -> Option<Extracted> {
    let built = dag_extract::build(egraph, choices, roots)?;
    let cost = built
        .placed
        .keys()
        .map(|class| node_cost(egraph, *class, &choices[class]).unwrap_or(0.0))
        .sum();
    let chosen = built
        .placed
        .keys()
        .map(|c| (*c, choices[c].clone()))
        .collect();
    Some(Extracted {
        expr: built.expr,
        roots: built.roots,
        cost,
        chosen,
    })
}

/// The cost of a given set of operations (each distinct node once), for the input as written.
pub fn dag_cost(egraph: &LaEGraph, nodes: &[(Id, Math)]) -> f64 {
    let mut seen: FxHashMap<Math, ()> = FxHashMap::default();
    let mut total = 0.0;
    for (class, node) in nodes {
        let node = node.clone().map_children(|c| egraph.find(c));
        if seen.insert(node.clone(), ()).is_none() {
            total += node_cost(egraph, egraph.find(*class), &node).unwrap_or(0.0);
        }
    }
    total
}
