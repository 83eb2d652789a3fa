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
use super::guard::{Guard, Limit};
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
    // One more for the operation itself, so that no cycle of free operations is ever cheaper.
    Some(work + out.nnz + 1.0)
}

/// The most classes a choice tracks; beyond it, operands' costs are added as a tree (shared
/// intermediates counted at each use), which keeps deep plans linear in time and memory.
const MAX_PARTS: usize = 512;

/// The cheapest way found to compute one class: its node, and the cost of every class in the
/// sub-plan (each once).
#[derive(Clone)]
struct Choice {
    node: Math,
    /// `None` past [`MAX_PARTS`]: `total` is then a tree cost.
    parts: Option<Rc<FxHashMap<Id, f64>>>,
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
    /// The node chosen in each class the plan uses (the ILP's warm start).
    #[cfg_attr(not(feature = "ilp"), allow(dead_code))]
    pub chosen: FxHashMap<Id, Math>,
}

/// Extracts the cheapest plan computing all `roots` together; `None` when a root has no
/// plan made of matrix operations. Under `guard`: when a limit stops the work list, the plan
/// is the cheapest found by then (`None` when some root has none yet), with that limit.
pub fn greedy_dag(
    egraph: &LaEGraph,
    roots: &[Id],
    guard: &Guard,
) -> (Option<Extracted>, Option<Limit>) {
    let mut best: FxHashMap<Id, Choice> = FxHashMap::default();
    // A work list: every class once, then the parents of each class whose choice improved.
    let mut queue: std::collections::VecDeque<Id> = egraph.classes().map(|c| c.id).collect();
    let mut queued: rustc_hash::FxHashSet<Id> = queue.iter().copied().collect();
    while let Some(id) = queue.pop_front() {
        queued.remove(&id);
        let class = &egraph[id];
        // A class's work is about its nodes times the parts they merge.
        if guard.tick(class.nodes.len()) {
            break;
        }
        let mut improved = false;
        for node in &class.nodes {
            let Some(own) = node_cost(egraph, class.id, node) else {
                continue;
            };
            let mut children: Vec<&Choice> = Vec::new();
            for child in node.children() {
                match best.get(&egraph.find(*child)) {
                    Some(c) => children.push(c),
                    None => break,
                }
            }
            if children.len() < node.children().len() {
                continue;
            }
            if children
                .iter()
                .any(|c| c.parts.as_ref().is_some_and(|p| p.contains_key(&class.id)))
            {
                // The operand's plan uses this class: a cycle.
                continue;
            }
            let tracked = children.iter().all(|c| c.parts.is_some())
                && children
                    .iter()
                    .map(|c| c.parts.as_ref().map_or(0, |p| p.len()))
                    .sum::<usize>()
                    < MAX_PARTS;
            let (parts, total) = if tracked {
                let mut parts: FxHashMap<Id, f64> = FxHashMap::default();
                for c in &children {
                    if let Some(p) = &c.parts {
                        parts.extend(p.iter().map(|(k, v)| (*k, *v)));
                    }
                }
                if parts.contains_key(&class.id) {
                    continue;
                }
                parts.insert(class.id, own);
                guard.tick(parts.len() / 16);
                let total: f64 = parts.values().sum();
                (Some(Rc::new(parts)), total)
            } else {
                (None, own + children.iter().map(|c| c.total).sum::<f64>())
            };
            let better = best
                .get(&class.id)
                .is_none_or(|c| total < c.total * (1.0 - 1e-9));
            if better {
                best.insert(
                    class.id,
                    Choice {
                        node: node.clone(),
                        parts,
                        total,
                    },
                );
                improved = true;
            }
        }
        if improved {
            for parent in class.parents() {
                let parent = egraph.find(parent);
                if queued.insert(parent) {
                    queue.push_back(parent);
                }
            }
        }
    }
    let choices: FxHashMap<Id, Math> = best.into_iter().map(|(c, b)| (c, b.node)).collect();
    (build(egraph, &choices, roots), guard.stopped())
}

/// The plan that the chosen node of each class (`choices`) makes for `roots`, with its cost
/// (each class's operation once); `None` when a root or an operand has no choice, or the
/// choices form a cycle.
pub fn build(egraph: &LaEGraph, choices: &FxHashMap<Id, Math>, roots: &[Id]) -> Option<Extracted> {
    let mut expr = RecExpr::default();
    let mut placed: FxHashMap<Id, Id> = FxHashMap::default();
    let mut out_roots = Vec::new();
    for &root in roots {
        let mut visiting = rustc_hash::FxHashSet::default();
        out_roots.push(place(
            egraph,
            choices,
            root,
            &mut expr,
            &mut placed,
            &mut visiting,
        )?);
    }
    let cost = placed
        .keys()
        .map(|class| node_cost(egraph, *class, &choices[class]).unwrap_or(0.0))
        .sum();
    let chosen = placed.keys().map(|c| (*c, choices[c].clone())).collect();
    Some(Extracted {
        expr,
        roots: out_roots,
        cost,
        chosen,
    })
}

fn place(
    egraph: &LaEGraph,
    best: &FxHashMap<Id, Math>,
    class: Id,
    expr: &mut RecExpr<Math>,
    placed: &mut FxHashMap<Id, Id>,
    visiting: &mut rustc_hash::FxHashSet<Id>,
) -> Option<Id> {
    let class = egraph.find(class);
    if let Some(&id) = placed.get(&class) {
        return Some(id);
    }
    // Choices made at different times could in principle point at each other; a cycle is no
    // plan (reported as such, never an endless recursion).
    if !visiting.insert(class) {
        return None;
    }
    let node = best.get(&class)?.clone();
    let mut children = Vec::new();
    for c in node.children() {
        children.push(crate::support::stack::guarded(|| {
            place(egraph, best, *c, expr, placed, visiting)
        })?);
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
