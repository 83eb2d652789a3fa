//! Optimal extraction by integer linear programming (behind the cargo feature `ilp`), for any
//! egg language: the cheapest program under a cost, counting every shared node once, with the
//! pure-Rust solver `microlp` (no C++ toolchain, and it has time limits). SPORES' extraction
//! for `risec la`, TENSAT's for `risec graph`.
//!
//! One binary variable per node `x_n` (with a cost, in the classes the roots reach), with
//! * a root's class has a chosen node: `Σ_{n ∈ root} x_n ≥ 1`;
//! * a chosen node's operands have chosen nodes: `x_n ≤ Σ_{m ∈ d} x_m` for each operand
//!   class `d` of `n`;
//! * no cycles: a level `l_c ∈ [0, C]` per class with `l_c ≥ l_d + 1 − (C + 1)(1 − x_n)` for
//!   each operand class `d` of a node `n` in class `c`;
//! * minimise `Σ cost(n) x_n`.
//!
//! A greedy choice seeds the search (a warm start); on the time limit the best choice found
//! so far is returned.

use egg::{Analysis, EGraph, Id, Language};
use microlp::{ComparisonOp, LinearExpr, OptimizationDirection, Problem, SolveOptions, Variable};
use rustc_hash::FxHashMap;
use std::time::Duration;

/// What the solver chose.
#[derive(Clone, Debug)]
pub struct IlpChoice<L> {
    /// The node chosen in each class of the program.
    pub choices: FxHashMap<Id, L>,
    /// Whether the solver proved it optimal.
    pub optimal: bool,
    /// Binary variables of the model.
    pub variables: usize,
}

/// A linear expression with each variable once (a node may be in its own operand's class).
fn combined(mut terms: Vec<(Variable, f64)>) -> LinearExpr {
    terms.sort_by_key(|(v, _)| v.idx());
    let mut expr = LinearExpr::empty();
    let mut k = 0;
    while k < terms.len() {
        let (v, mut c) = terms[k];
        while k + 1 < terms.len() && terms[k + 1].0 == v {
            k += 1;
            c += terms[k].1;
        }
        if c != 0.0 {
            expr.add(v, c);
        }
        k += 1;
    }
    expr
}

/// The cheapest choice for `roots` under `cost` (`None`: a node that may not be chosen)
/// within `time`, seeded with `warm` (a choice per class, e.g. the greedy extractor's); `None`
/// when the model cannot be built (an operand class with no node that has a cost) or the
/// solver finds no solution.
pub fn extract<L: Language, N: Analysis<L>>(
    egraph: &EGraph<L, N>,
    roots: &[Id],
    cost: impl Fn(Id, &L) -> Option<f64>,
    warm: &FxHashMap<Id, L>,
    time: Duration,
) -> Option<IlpChoice<L>> {
    // The classes the roots reach through nodes with a cost, and those nodes.
    let mut classes: Vec<Id> = Vec::new();
    let mut index: FxHashMap<Id, usize> = FxHashMap::default();
    let mut stack: Vec<Id> = roots.iter().map(|r| egraph.find(*r)).collect();
    let mut ops: Vec<(usize, L, f64)> = Vec::new();
    while let Some(c) = stack.pop() {
        if index.contains_key(&c) {
            continue;
        }
        index.insert(c, classes.len());
        classes.push(c);
        for node in &egraph[c].nodes {
            let Some(k) = cost(c, node) else { continue };
            let node = node.clone().map_children(|d| egraph.find(d));
            stack.extend(node.children().iter().copied());
            ops.push((index[&c], node, k));
        }
    }
    let n_classes = classes.len() as f64;
    let mut problem = Problem::new(OptimizationDirection::Minimize);
    let x: Vec<Variable> = ops
        .iter()
        .map(|(_, _, k)| problem.add_binary_var(*k))
        .collect();
    let level: Vec<Variable> = classes
        .iter()
        .map(|_| problem.add_var(0.0, (0.0, n_classes)))
        .collect();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); classes.len()];
    for (k, (c, _, _)) in ops.iter().enumerate() {
        members[*c].push(k);
    }
    for r in roots {
        let c = index[&egraph.find(*r)];
        problem.add_constraint(
            members[c].iter().map(|&k| (x[k], 1.0)),
            ComparisonOp::Ge,
            1.0,
        );
    }
    let big = n_classes + 1.0;
    for (k, (c, node, _)) in ops.iter().enumerate() {
        for d in node.children() {
            let d = *index.get(d)?;
            let mut terms = vec![(x[k], 1.0)];
            terms.extend(members[d].iter().map(|&m| (x[m], -1.0)));
            problem.add_constraint(combined(terms), ComparisonOp::Le, 0.0);
            // l_c - l_d - (C + 1) x_n >= 1 - (C + 1)
            problem.add_constraint(
                combined(vec![(level[*c], 1.0), (level[d], -1.0), (x[k], -big)]),
                ComparisonOp::Ge,
                1.0 - big,
            );
        }
    }
    // The warm start: its nodes, and levels by depth.
    let warm: FxHashMap<Id, L> = warm
        .iter()
        .map(|(c, n)| (egraph.find(*c), n.clone().map_children(|d| egraph.find(d))))
        .collect();
    fn depth_of<L: Language>(
        chosen: &FxHashMap<Id, L>,
        c: Id,
        depth: &mut FxHashMap<Id, f64>,
        guard: usize,
    ) -> f64 {
        if let Some(&d) = depth.get(&c) {
            return d;
        }
        // A warm choice with a cycle gets no meaningful depth; the guard ends the recursion.
        let d = match chosen.get(&c) {
            Some(n) if guard > 0 => n
                .children()
                .iter()
                .map(|k| 1.0 + depth_of(chosen, *k, depth, guard - 1))
                .fold(0.0, f64::max),
            _ => 0.0,
        };
        depth.insert(c, d);
        d
    }
    let mut start: Vec<(Variable, f64)> = Vec::new();
    for (k, (c, node, _)) in ops.iter().enumerate() {
        start.push((
            x[k],
            if warm.get(&classes[*c]) == Some(node) {
                1.0
            } else {
                0.0
            },
        ));
    }
    let mut depth = FxHashMap::default();
    for (c, class) in classes.iter().enumerate() {
        let d =
            crate::support::stack::guarded(|| depth_of(&warm, *class, &mut depth, classes.len()));
        start.push((level[c], d.min(n_classes)));
    }
    let mut options = SolveOptions::default();
    options.time_limit = Some(time);
    options.warm_start = Some(start);
    let outcome = problem.solve_with(options).ok()?;
    let optimal = matches!(
        outcome.termination_reason(),
        microlp::TerminationReason::ProvenOptimal
    );
    let solution = outcome.solution()?;
    let mut choices: FxHashMap<Id, L> = FxHashMap::default();
    for (k, (c, node, _)) in ops.iter().enumerate() {
        if solution.var_value(x[k]) > 0.5 {
            choices.entry(classes[*c]).or_insert_with(|| node.clone());
        }
    }
    Some(IlpChoice {
        choices,
        optimal,
        variables: ops.len(),
    })
}
