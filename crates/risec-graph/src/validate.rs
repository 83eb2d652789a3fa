//! Every rule checked against the reference evaluation on its example graph.
//!
//! The example is loaded into an e-graph and the rule applied once; then every node of each
//! output's class (the original operator and what the rule made equal to it) is taken as the
//! root of a graph, evaluated on random inputs, and compared with the example's own outputs.
//! A rule that does not apply to its example fails too: a check that cannot fail is no check.

use crate::eval::{eval, random_inputs};
use crate::lang::{GraphAnalysis, GraphEGraph, TensorLang};
use crate::rules::Rule;
use egg::Language;
use risec_eqsat::dag_extract;

/// The largest relative difference accepted (the evaluation is in `f64`; the two sides differ
/// only in the order of additions).
pub const TOLERANCE: f64 = 1e-9;

/// Why a rule failed its check.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RuleFailure {
    /// The example does not parse or check.
    #[error("its example graph is not valid: {0}")]
    BadExample(String),
    /// The rule did not change the example's e-graph.
    #[error("it does not apply to its example graph")]
    DoesNotApply,
    /// No node made by the rule could be extracted at an output.
    #[error("nothing it made is an output's alternative")]
    NoAlternative,
    /// A rewritten output differs from the original.
    #[error("output {output} rewritten as {term} differs by {distance:e} (seed {seed})")]
    Differs {
        /// Which output.
        output: usize,
        /// The rewritten graph.
        term: String,
        /// The relative difference.
        distance: f64,
        /// The inputs' seed.
        seed: u64,
    },
}

/// Checks `rule` on its example with inputs drawn from `seeds`.
pub fn check_rule(rule: &Rule, seeds: &[u64]) -> Result<usize, RuleFailure> {
    let file =
        risec_core::diagnostics::SourceFile::new(format!("{}.graph", rule.name), rule.example);
    let graph = crate::parse(&file).map_err(|e| RuleFailure::BadExample(e.to_string()))?;
    let mut egraph = GraphEGraph::new(GraphAnalysis {
        decls: graph.decls.clone(),
        measured: None,
    });
    let root = egraph.add_expr(&graph.expr);
    egraph.rebuild();
    let outputs: Vec<egg::Id> = match egraph[root].nodes.first() {
        Some(TensorLang::Outputs(rs)) => rs.to_vec(),
        _ => return Err(RuleFailure::BadExample("no outputs".into())),
    };
    let originals: Vec<TensorLang> = outputs
        .iter()
        .map(|o| egraph[*o].nodes[0].clone())
        .collect();
    if !rule.apply(&mut egraph, usize::MAX) {
        return Err(RuleFailure::DoesNotApply);
    }
    let choices = dag_extract::greedy_dag(&egraph, |_, _| Some(1.0), &mut |_| false);
    let mut checked = 0;
    for (k, out) in outputs.iter().enumerate() {
        let class = egraph.find(*out);
        for node in egraph[class].nodes.clone() {
            if node.clone().map_children(|c| egraph.find(c))
                == originals[k].clone().map_children(|c| egraph.find(c))
            {
                continue;
            }
            let mut forced = choices.clone();
            forced.insert(class, node.clone());
            let Some(built) = dag_extract::build(&egraph, &forced, &[class]) else {
                continue;
            };
            for &seed in seeds {
                let inputs = random_inputs(&graph.decls, &graph.order, seed);
                let want = &eval(&graph.expr, &inputs)[k];
                let got = &eval(&built.expr, &inputs)[0];
                let distance = got.distance(want);
                if distance.is_nan() || distance > TOLERANCE {
                    return Err(RuleFailure::Differs {
                        output: k,
                        term: built.expr.to_string(),
                        distance,
                        seed,
                    });
                }
            }
            checked += 1;
        }
    }
    if checked == 0 {
        return Err(RuleFailure::NoAlternative);
    }
    Ok(checked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::all;

    #[test]
    fn every_rule_agrees_with_the_reference_evaluation() {
        for rule in all() {
            match check_rule(&rule, &[1, 2, 3]) {
                Ok(n) => assert!(n >= 1),
                Err(e) => panic!("rule `{}`: {e}", rule.name),
            }
        }
    }

    #[test]
    fn a_wrong_rule_is_caught() {
        // relu(x) + relu(y) is not relu(x + y): a rule claiming it must fail its check.
        let wrong = Rule::single_for_tests(
            "wrong-relu-add",
            "input a : 2 x 3\ninput b : 2 x 3\nlet x = relu(a)\nlet y = relu(b)\nlet z = add(x, y)\noutput z",
            egg::rewrite!("wrong-relu-add"; "(add (relu ?a) (relu ?b))" => "(relu (add ?a ?b))"),
        );
        assert!(matches!(
            check_rule(&wrong, &[1, 2]),
            Err(RuleFailure::Differs { .. })
        ));
    }

    #[test]
    fn a_rule_that_does_not_apply_fails() {
        let idle = Rule::single_for_tests(
            "idle",
            "input a : 2 x 3\nlet y = relu(a)\noutput y",
            egg::rewrite!("idle"; "(tanh ?a)" => "?a"),
        );
        assert_eq!(check_rule(&idle, &[1]), Err(RuleFailure::DoesNotApply));
    }
}
