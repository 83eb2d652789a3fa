//! The greedy DAG extractor, for any egg language: shared values are paid for once.
//!
//! Each e-class keeps the cheapest *set* of classes found to compute it (each with its own
//! node's cost), and a node's cost is the sum over the union of its operands' sets plus its
//! own: a value used twice is counted once, which a tree cost (egg's `Extractor`) does not
//! do. It is not optimal in general (an ILP is), but it is fast and exact on trees; the
//! linear-algebra optimiser (`risec la`) and the tensor-graph optimiser (`risec graph`) both
//! use it. Choices whose operand sets contain the class itself (a cycle) are never taken.

use egg::{Analysis, EGraph, Id, Language, RecExpr};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;
use std::rc::Rc;

/// The most classes a choice tracks; beyond it, operands' costs are added as a tree (shared
/// values counted at each use), which keeps deep programs linear in time and memory.
pub const MAX_PARTS: usize = 512;

/// The cheapest way found to compute one class.
#[derive(Clone)]
struct Choice<L> {
    node: L,
    /// The cost of every class in the sub-program (each once); `None` past [`MAX_PARTS`]:
    /// `total` is then a tree cost.
    parts: Option<Rc<FxHashMap<Id, f64>>>,
    total: f64,
}

/// The node chosen for each class that has one, minimising the DAG cost of each class.
///
/// `cost(class, node)` is the cost of computing `node` once (`None`: never choose it);
/// `stop(units)` is called as work is done and ends the search when it returns true (the
/// choices found by then are returned).
pub fn greedy_dag<L: Language, N: Analysis<L>>(
    egraph: &EGraph<L, N>,
    cost: impl Fn(Id, &L) -> Option<f64>,
    stop: &mut dyn FnMut(usize) -> bool,
) -> FxHashMap<Id, L> {
    let mut best: FxHashMap<Id, Choice<L>> = FxHashMap::default();
    // A work list: every class once, then the parents of each class whose choice improved.
    let mut queue: VecDeque<Id> = egraph.classes().map(|c| c.id).collect();
    let mut queued: FxHashSet<Id> = queue.iter().copied().collect();
    while let Some(id) = queue.pop_front() {
        queued.remove(&id);
        let class = &egraph[id];
        if stop(class.nodes.len()) {
            break;
        }
        let mut improved = false;
        for node in &class.nodes {
            let Some(own) = cost(class.id, node) else {
                continue;
            };
            let children: Option<Vec<&Choice<L>>> = node
                .children()
                .iter()
                .map(|c| best.get(&egraph.find(*c)))
                .collect();
            let Some(children) = children else { continue };
            if children
                .iter()
                .any(|c| c.parts.as_ref().is_some_and(|p| p.contains_key(&class.id)))
            {
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
                parts.insert(class.id, own);
                stop(parts.len() / 16);
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
    best.into_iter().map(|(c, b)| (c, b.node)).collect()
}

/// The program that the chosen node of each class makes for `roots`: one expression with
/// sharing, where each root is in it, and the class each of its nodes came from; `None` when a
/// root or an operand has no choice, or the choices form a cycle.
pub fn build<L: Language, N: Analysis<L>>(
    egraph: &EGraph<L, N>,
    choices: &FxHashMap<Id, L>,
    roots: &[Id],
) -> Option<Built<L>> {
    let mut out = Built {
        expr: RecExpr::default(),
        roots: Vec::new(),
        placed: FxHashMap::default(),
    };
    for &root in roots {
        let mut visiting = FxHashSet::default();
        let id = place(egraph, choices, root, &mut out, &mut visiting)?;
        out.roots.push(id);
    }
    Some(out)
}

/// An extracted program.
#[derive(Clone, Debug)]
pub struct Built<L: Language> {
    /// The nodes, operands before their users.
    pub expr: RecExpr<L>,
    /// Where each root is in `expr`.
    pub roots: Vec<Id>,
    /// For each class used, where its node is in `expr`.
    pub placed: FxHashMap<Id, Id>,
}

fn place<L: Language, N: Analysis<L>>(
    egraph: &EGraph<L, N>,
    best: &FxHashMap<Id, L>,
    class: Id,
    out: &mut Built<L>,
    visiting: &mut FxHashSet<Id>,
) -> Option<Id> {
    let class = egraph.find(class);
    if let Some(&id) = out.placed.get(&class) {
        return Some(id);
    }
    // Choices made at different times could in principle point at each other; a cycle is no
    // program (reported as such, never an endless recursion).
    if !visiting.insert(class) {
        return None;
    }
    let node = best.get(&class)?.clone();
    let mut children = Vec::new();
    for c in node.children() {
        children.push(crate::support::stack::guarded(|| {
            place(egraph, best, *c, out, visiting)
        })?);
    }
    let mut k = 0;
    let node = node.map_children(|_| {
        k += 1;
        children[k - 1]
    });
    let id = out.expr.add(node);
    out.placed.insert(class, id);
    Some(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use egg::{EGraph, SymbolLang};

    #[test]
    fn a_shared_value_is_paid_once() {
        // (f (g a) (g a)) against (h a): g costs 10, f 1, h 15. As a tree, f's side costs
        // 21; as a DAG, 11, cheaper than h's 15.
        let mut eg: EGraph<SymbolLang, ()> = EGraph::default();
        let a = eg.add(SymbolLang::leaf("a"));
        let g = eg.add(SymbolLang::new("g", vec![a]));
        let f = eg.add(SymbolLang::new("f", vec![g, g]));
        let h = eg.add(SymbolLang::new("h", vec![a]));
        eg.union(f, h);
        eg.rebuild();
        let cost = |_: Id, n: &SymbolLang| {
            Some(match n.op.as_str() {
                "g" => 10.0,
                "f" => 1.0,
                "h" => 15.0,
                _ => 0.0,
            })
        };
        let choices = greedy_dag(&eg, cost, &mut |_| false);
        let built = build(&eg, &choices, &[f]).unwrap();
        assert_eq!(built.expr.to_string(), "(f (g a) (g a))");
        assert_eq!(built.expr.as_ref().len(), 3, "g a is one node");
    }

    #[test]
    fn a_cycle_is_never_chosen() {
        // x = (s x) is in the class of x alongside the leaf: the leaf must be chosen.
        let mut eg: EGraph<SymbolLang, ()> = EGraph::default();
        let x = eg.add(SymbolLang::leaf("x"));
        let s = eg.add(SymbolLang::new("s", vec![x]));
        eg.union(x, s);
        eg.rebuild();
        let choices = greedy_dag(&eg, |_, _| Some(1.0), &mut |_| false);
        assert_eq!(build(&eg, &choices, &[x]).unwrap().expr.to_string(), "x");
    }
}
