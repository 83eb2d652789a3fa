//! Extraction: the cheapest graph in the e-graph under the cost model, shared values paid once.
//!
//! The greedy DAG extractor (`risec_eqsat::dag_extract`) chooses each class's node by the cost
//! of the operators it needs, counting a value shared by its operands once — the paper's
//! shared-subgraph cost function serves the same end. What no per-class choice can see is a
//! value shared by *different* classes: after `merge-matmuls`, `q` and `k` are each cheaper as
//! their own narrow product than as a part of the wide one, and only both together are cheaper
//! as parts. So the greedy choice is improved by moves: a class of the chosen graph switches to
//! a node that reads one part of a `split`; what that node needs is taken as already paid, the
//! rest is chosen again greedily, and the move is kept when the whole graph's cost (each
//! operator once) falls. The moves repeat until none helps.

use crate::cost::node_cost;
use crate::lang::{GraphEGraph, TensorLang};
use egg::{Id, Language, RecExpr};
use risec_eqsat::dag_extract;
use rustc_hash::{FxHashMap, FxHashSet};

/// An extracted graph and its estimated cost (µs).
#[derive(Clone, Debug)]
pub struct Extracted {
    /// The graph; its last node is the root (`outputs`).
    pub expr: RecExpr<TensorLang>,
    /// The estimated cost: each operator once.
    pub cost: f64,
    /// The node chosen in each class of the graph.
    pub choices: FxHashMap<Id, TensorLang>,
}

/// Moves tried by the final extraction ([`best`]).
pub const FINAL_MOVES: usize = 64;

/// The cheapest graph found computing class `root` with at most `max_moves` moves tried;
/// `None` when it has none (never for an e-graph made from a checked graph: the original is
/// always there).
pub fn best(egraph: &GraphEGraph, root: Id, max_moves: usize) -> Option<Extracted> {
    let cost = |c: Id, n: &TensorLang| node_cost(egraph, c, n);
    let mut choices = dag_extract::greedy_dag(egraph, cost, &mut |_| false);
    let mut current = total(egraph, &choices, root)?;
    let mut moves = 0;
    'improve: while moves < max_moves {
        let built = dag_extract::build(egraph, &choices, &[root])?;
        let mut classes: Vec<Id> = built.placed.keys().copied().collect();
        classes.sort();
        for class in classes {
            for node in &egraph[class].nodes {
                let reads_a_part =
                    node.children().iter().any(|c| {
                        egraph[*c]
                            .nodes
                            .iter()
                            .any(|n| matches!(n, TensorLang::Split0(_) | TensorLang::Split1(_)))
                    }) || matches!(node, TensorLang::Split0(_) | TensorLang::Split1(_));
                if !reads_a_part || choices.get(&class) == Some(node) || cost(class, node).is_none()
                {
                    continue;
                }
                moves += 1;
                let Some(next) = switch(egraph, &choices, class, node) else {
                    continue;
                };
                if let Some(t) = total(egraph, &next, root) {
                    if t < current * (1.0 - 1e-9) {
                        choices = next;
                        current = t;
                        continue 'improve;
                    }
                }
                if moves >= max_moves {
                    break 'improve;
                }
            }
        }
        break;
    }
    let built = dag_extract::build(egraph, &choices, &[root])?;
    Some(Extracted {
        expr: built.expr,
        cost: current,
        choices,
    })
}

/// The choices after `class` switches to `node`: what `node` needs is free, the rest chosen
/// again greedily.
fn switch(
    egraph: &GraphEGraph,
    choices: &FxHashMap<Id, TensorLang>,
    class: Id,
    node: &TensorLang,
) -> Option<FxHashMap<Id, TensorLang>> {
    let mut forced = choices.clone();
    forced.insert(class, node.clone());
    let needed = dag_extract::build(egraph, &forced, node.children())?;
    let mut free: FxHashSet<(Id, TensorLang)> = needed
        .placed
        .keys()
        .map(|c| (*c, forced[c].clone()))
        .collect();
    free.insert((class, node.clone()));
    let cost = |c: Id, n: &TensorLang| {
        if free.contains(&(c, n.clone())) {
            Some(0.0)
        } else if c == class {
            None
        } else {
            node_cost(egraph, c, n)
        }
    };
    Some(dag_extract::greedy_dag(egraph, cost, &mut |_| false))
}

/// The cost of the graph the choices make for `root`, each operator once.
fn total(egraph: &GraphEGraph, choices: &FxHashMap<Id, TensorLang>, root: Id) -> Option<f64> {
    let built = dag_extract::build(egraph, choices, &[root])?;
    Some(
        built
            .placed
            .keys()
            .map(|c| node_cost(egraph, *c, &choices[c]).unwrap_or(0.0))
            .sum(),
    )
}

/// The estimated cost of a graph as written (each node once).
pub fn cost_of(egraph: &GraphEGraph, expr: &RecExpr<TensorLang>) -> f64 {
    let mut classes: Vec<Id> = Vec::with_capacity(expr.as_ref().len());
    let mut seen = FxHashSet::default();
    let mut total = 0.0;
    for node in expr.as_ref() {
        let n = node.clone().map_children(|c| classes[usize::from(c)]);
        let class = egraph
            .lookup(n.clone())
            .expect("the graph is in the e-graph");
        classes.push(class);
        if seen.insert(n.clone()) {
            total += node_cost(egraph, class, &n).unwrap_or(0.0);
        }
    }
    total
}

/// The optimal graph by integer linear programming within `time` (TENSAT's extraction),
/// seeded with `greedy`; `greedy` itself when the solver finds nothing cheaper. Whether the
/// solver proved its answer optimal, and its variables.
#[cfg(feature = "ilp")]
pub fn ilp(
    egraph: &GraphEGraph,
    root: Id,
    greedy: Extracted,
    time: std::time::Duration,
) -> (Extracted, bool, usize) {
    let cost = |c: Id, n: &TensorLang| node_cost(egraph, c, n);
    let Some(choice) =
        risec_eqsat::ilp_extract::extract(egraph, &[root], cost, &greedy.choices, time)
    else {
        return (greedy, false, 0);
    };
    match (
        dag_extract::build(egraph, &choice.choices, &[root]),
        total(egraph, &choice.choices, root),
    ) {
        (Some(built), Some(t)) if t <= greedy.cost => (
            Extracted {
                expr: built.expr,
                cost: t,
                choices: choice.choices,
            },
            choice.optimal,
            choice.variables,
        ),
        _ => (greedy, false, choice.variables),
    }
}

#[cfg(all(test, feature = "ilp"))]
mod ilp_tests {
    use crate::{optimize, parse, Extractor, Options};
    use risec_core::diagnostics::SourceFile;

    #[test]
    fn the_ilp_proves_the_inception_modules_graph_optimal_and_is_never_worse_than_greedy() {
        let text = include_str!("../../../examples/graphs/inception.graph");
        let g = parse(&SourceFile::new("inception.graph", text)).unwrap();
        let greedy = optimize(&g, &Options::default()).unwrap();
        let ilp = optimize(
            &g,
            &Options {
                extractor: Extractor::Ilp(std::time::Duration::from_secs(30)),
                ..Options::default()
            },
        )
        .unwrap();
        assert!(ilp.cost <= greedy.cost, "{} > {}", ilp.cost, greedy.cost);
        assert!(
            ilp.extraction.starts_with("ilp: optimal"),
            "{}",
            ilp.extraction
        );
        assert!(crate::check(&g, &ilp.expr, 2) < 1e-9);
    }
}
