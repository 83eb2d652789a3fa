//! SPORES' ILP extraction (behind the cargo feature `ilp`): the optimal plan under the cost
//! model, counting every shared operation once, by integer linear programming with the
//! pure-Rust solver `microlp` (chosen over HiGHS: no C++ toolchain, and it has time limits).
//!
//! One binary variable per matrix operation `x_n` (in the classes the roots reach), with
//! * a root's class has a chosen operation: `Σ_{n ∈ root} x_n ≥ 1`;
//! * a chosen operation's operands have chosen operations: `x_n ≤ Σ_{m ∈ d} x_m` for each
//!   operand class `d` of `n`;
//! * no cycles: a level `l_c ∈ [0, C]` per class with `l_c ≥ l_d + 1 - (C + 1)(1 - x_n)` for
//!   each operand class `d` of an operation `n` in class `c`;
//! * minimise `Σ cost(n) x_n`.
//!
//! The greedy plan seeds the search (a warm start), so the ILP's answer is never worse. On
//! the time limit the best plan found so far is returned.

use super::extract::{build, node_cost, Extracted};
use super::lang::{LaEGraph, Math};
use egg::{Id, Language};
use microlp::{ComparisonOp, LinearExpr, OptimizationDirection, Problem, SolveOptions, Variable};
use rustc_hash::FxHashMap;
use std::time::Duration;

/// How the ILP ended.
#[derive(Clone, Debug)]
pub struct IlpOutcome {
    /// The plan (the greedy one when the solver found nothing better).
    pub plan: Extracted,
    /// Whether the solver proved the plan optimal.
    pub optimal: bool,
    /// Binary variables of the model.
    pub variables: usize,
}

/// A linear expression with each variable once (an operation may be in its own operand's
/// class).
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

/// Extracts the cheapest plan for `roots` by ILP within `time`, seeded with `greedy`.
pub fn extract(egraph: &LaEGraph, roots: &[Id], greedy: &Extracted, time: Duration) -> IlpOutcome {
    // The classes the roots reach through matrix operations, and those operations.
    let mut classes: Vec<Id> = Vec::new();
    let mut index: FxHashMap<Id, usize> = FxHashMap::default();
    let mut stack: Vec<Id> = roots.iter().map(|r| egraph.find(*r)).collect();
    let mut ops: Vec<(usize, Math, f64)> = Vec::new();
    while let Some(c) = stack.pop() {
        if index.contains_key(&c) {
            continue;
        }
        index.insert(c, classes.len());
        classes.push(c);
        for node in &egraph[c].nodes {
            let Some(cost) = node_cost(egraph, c, node) else {
                continue;
            };
            let node = node.clone().map_children(|d| egraph.find(d));
            stack.extend(node.children().iter().copied());
            ops.push((index[&c], node, cost));
        }
    }
    let fallback = |variables| IlpOutcome {
        plan: greedy.clone(),
        optimal: false,
        variables,
    };
    let n_classes = classes.len() as f64;
    let mut problem = Problem::new(OptimizationDirection::Minimize);
    let x: Vec<Variable> = ops
        .iter()
        .map(|(_, _, cost)| problem.add_binary_var(*cost))
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
    for (k, (c, node, _)) in ops.iter().enumerate() {
        for d in node.children() {
            let Some(&d) = index.get(d) else {
                return fallback(ops.len());
            };
            let mut terms = vec![(x[k], 1.0)];
            terms.extend(members[d].iter().map(|&m| (x[m], -1.0)));
            problem.add_constraint(combined(terms), ComparisonOp::Le, 0.0);
            // l_c - l_d - (C + 1) x_n >= 1 - (C + 1)
            let big = n_classes + 1.0;
            problem.add_constraint(
                combined(vec![(level[*c], 1.0), (level[d], -1.0), (x[k], -big)]),
                ComparisonOp::Ge,
                1.0 - big,
            );
        }
    }
    // The greedy plan as the starting incumbent: its operations, and levels by depth.
    let mut warm: Vec<(Variable, f64)> = Vec::new();
    let mut depth: FxHashMap<Id, f64> = FxHashMap::default();
    fn depth_of(
        egraph: &LaEGraph,
        chosen: &FxHashMap<Id, Math>,
        c: Id,
        depth: &mut FxHashMap<Id, f64>,
    ) -> f64 {
        if let Some(&d) = depth.get(&c) {
            return d;
        }
        let d = chosen.get(&c).map_or(0.0, |n| {
            n.children()
                .iter()
                .map(|k| 1.0 + depth_of(egraph, chosen, egraph.find(*k), depth))
                .fold(0.0, f64::max)
        });
        depth.insert(c, d);
        d
    }
    for (k, (c, node, _)) in ops.iter().enumerate() {
        let class = classes[*c];
        let chosen = greedy
            .chosen
            .get(&class)
            .map(|n| n.clone().map_children(|d| egraph.find(d)));
        warm.push((
            x[k],
            if chosen.as_ref() == Some(node) {
                1.0
            } else {
                0.0
            },
        ));
    }
    for (c, class) in classes.iter().enumerate() {
        let d = depth_of(egraph, &greedy.chosen, *class, &mut depth);
        warm.push((level[c], d.min(n_classes)));
    }
    let mut options = SolveOptions::default();
    options.time_limit = Some(time);
    options.warm_start = Some(warm);
    let Ok(outcome) = problem.solve_with(options) else {
        return fallback(ops.len());
    };
    let optimal = matches!(
        outcome.termination_reason(),
        microlp::TerminationReason::ProvenOptimal
    );
    let Some(solution) = outcome.solution() else {
        return fallback(ops.len());
    };
    let mut choices: FxHashMap<Id, Math> = FxHashMap::default();
    for (k, (c, node, _)) in ops.iter().enumerate() {
        if solution.var_value(x[k]) > 0.5 {
            choices.entry(classes[*c]).or_insert_with(|| node.clone());
        }
    }
    let root_ids: Vec<Id> = roots.iter().map(|r| egraph.find(*r)).collect();
    match build(egraph, &choices, &root_ids) {
        Some(plan) if plan.cost <= greedy.cost => IlpOutcome {
            plan,
            optimal,
            variables: ops.len(),
        },
        _ => fallback(ops.len()),
    }
}
