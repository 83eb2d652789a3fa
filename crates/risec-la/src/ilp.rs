//! SPORES' ILP extraction (behind the cargo feature `ilp`): the optimal plan under the cost
//! model, counting every shared operation once, by the integer linear program of
//! `risec_eqsat::ilp_extract` (its model is described there), seeded with the greedy plan, so
//! that the ILP's answer is never worse. On the time limit the best plan found so far is
//! returned.

use super::extract::{build, node_cost, Extracted};
use super::lang::LaEGraph;
use crate::eqsat::ilp_extract;
use egg::Id;
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

/// Extracts the cheapest plan for `roots` by ILP within `time`, seeded with `greedy`.
pub fn extract(egraph: &LaEGraph, roots: &[Id], greedy: &Extracted, time: Duration) -> IlpOutcome {
    let fallback = |variables| IlpOutcome {
        plan: greedy.clone(),
        optimal: false,
        variables,
    };
    let Some(choice) = ilp_extract::extract(
        egraph,
        roots,
        |c, n| node_cost(egraph, c, n),
        &greedy.chosen,
        time,
    ) else {
        return fallback(0);
    };
    let root_ids: Vec<Id> = roots.iter().map(|r| egraph.find(*r)).collect();
    match build(egraph, &choice.choices, &root_ids) {
        Some(plan) if plan.cost <= greedy.cost => IlpOutcome {
            plan,
            optimal: choice.optimal,
            variables: choice.variables,
        },
        _ => fallback(choice.variables),
    }
}
