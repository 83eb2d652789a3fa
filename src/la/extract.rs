//! Choosing the plan: the cost model and a CSE-aware greedy extractor.
//!
//! A plan is made of matrix operations only. Its cost counts every operation it performs once,
//! however many times its result is used: the estimated non-zeros it materialises plus the
//! floating-point operations it takes, where a sparse operand is iterated over its non-zeros
//! (SPORES' nnz-based cost, with the work of each operator added). The extractor is the greedy
//! DAG extractor: each e-class keeps the cheapest set of operations that computes it, and a
//! node's cost is that of the union of its operands' sets, so shared intermediates are paid
//! once. It is not optimal in general (an ILP is), but it is fast and exact on trees.

use super::check::Func;
use super::lang::{Kind, LaEGraph, Math};
use egg::{Id, Language, RecExpr};
use rustc_hash::FxHashMap;
use std::rc::Rc;

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
    Some(work + out.nnz)
}

/// The cheapest way found to compute one class: its node, and the cost of every class in the
/// sub-plan (each once).
#[derive(Clone)]
struct Choice {
    node: Math,
    parts: Rc<FxHashMap<Id, f64>>,
    total: f64,
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
}

/// Extracts the cheapest plan computing all `roots` together; `None` when a root has no
/// plan made of matrix operations.
pub fn greedy_dag(egraph: &LaEGraph, roots: &[Id]) -> Option<Extracted> {
    let mut best: FxHashMap<Id, Choice> = FxHashMap::default();
    // Passes until nothing improves (bounded: each pass is linear in the e-graph).
    for _ in 0..64 {
        let mut changed = false;
        for class in egraph.classes() {
            for node in &class.nodes {
                let Some(own) = node_cost(egraph, class.id, node) else {
                    continue;
                };
                let mut parts: Option<FxHashMap<Id, f64>> = Some(FxHashMap::default());
                for child in node.children() {
                    let child = egraph.find(*child);
                    match (best.get(&child), parts.as_mut()) {
                        (Some(c), Some(p)) if !c.parts.contains_key(&class.id) => {
                            p.extend(c.parts.iter().map(|(k, v)| (*k, *v)));
                        }
                        _ => parts = None,
                    }
                }
                let Some(mut parts) = parts else { continue };
                if parts.contains_key(&class.id) {
                    continue;
                }
                parts.insert(class.id, own);
                let total: f64 = parts.values().sum();
                let better = best
                    .get(&class.id)
                    .is_none_or(|c| total < c.total * (1.0 - 1e-12));
                if better {
                    best.insert(
                        class.id,
                        Choice {
                            node: node.clone(),
                            parts: Rc::new(parts),
                            total,
                        },
                    );
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut expr = RecExpr::default();
    let mut placed: FxHashMap<Id, Id> = FxHashMap::default();
    let mut out_roots = Vec::new();
    let mut cost_parts: FxHashMap<Id, f64> = FxHashMap::default();
    for &root in roots {
        let root = egraph.find(root);
        let choice = best.get(&root)?;
        cost_parts.extend(choice.parts.iter().map(|(k, v)| (*k, *v)));
        out_roots.push(place(egraph, &best, root, &mut expr, &mut placed)?);
    }
    Some(Extracted {
        expr,
        roots: out_roots,
        cost: cost_parts.values().sum(),
    })
}

fn place(
    egraph: &LaEGraph,
    best: &FxHashMap<Id, Choice>,
    class: Id,
    expr: &mut RecExpr<Math>,
    placed: &mut FxHashMap<Id, Id>,
) -> Option<Id> {
    let class = egraph.find(class);
    if let Some(&id) = placed.get(&class) {
        return Some(id);
    }
    let node = best.get(&class)?.node.clone();
    let mut children = Vec::new();
    for c in node.children() {
        children.push(place(egraph, best, *c, expr, placed)?);
    }
    let mut k = 0;
    let node = node.map_children(|_| {
        k += 1;
        children[k - 1]
    });
    let id = expr.add(node);
    placed.insert(class, id);
    Some(id)
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
