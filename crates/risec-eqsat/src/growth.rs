//! Growth workloads of equality saturation: the programs the growth benchmark, the
//! `eqsat_table` example and the engine's tests run, so that they all measure the same thing.
//!
//! * A *chain of k* is `map (fun x => fk (… (f1 x)))` with `f1 … fk : f32 -> f32` as program
//!   parameters, searched with `map-fusion, map-fission, eta, beta` for its reversed chain, a
//!   goal of the same type that these rules cannot reach (composition order is meaning): the
//!   search explores everything the rules reach and the e-graph's growth is what is measured.
//! * The shipped goals of `examples/goals/`, with the rules their files name.

use crate::diagnostics::SourceFile;
use crate::frontend::load::compile_source;
use crate::prove::{Problem, ProveError, ProveOptions};

/// The rules of the chain workloads.
pub const CHAIN_RULES: &str = "map-fusion,map-fission,eta,beta";

/// Source of a program `name` over `k` mapped function parameters applying them in `order`.
fn chain_source(name: &str, k: usize, order: impl Iterator<Item = usize>) -> String {
    let params: Vec<String> = (1..=k).map(|i| format!("(f{i} : f32 -> f32)")).collect();
    let mut body = "x".to_string();
    for i in order {
        body = format!("f{i} ({body})");
    }
    format!(
        "def {name} {{n : nat}} {} : n.f32 -> n.f32 =\n  map (fun x => {body})\n",
        params.join(" ")
    )
}

/// The start of the chain of `k`: `map (fun x => fk (… (f1 x)))`.
pub fn chain_start(k: usize) -> String {
    chain_source("chain", k, 1..=k)
}

/// The unreachable goal of the chain of `k`: the functions applied in reverse order.
pub fn chain_goal(k: usize) -> String {
    chain_source("reversed", k, (1..=k).rev())
}

/// The prepared search of the chain of `k` (`k` ≥ 2, so that the goal differs from the start).
pub fn chain_problem(k: usize) -> Problem {
    let compile = |name: &str, text: String| {
        compile_source(&SourceFile::new(name, text), None)
            .unwrap_or_else(|e| panic!("chain program does not compile:\n{}", e.render()))
    };
    let options = ProveOptions {
        rules: CHAIN_RULES.to_string(),
        ..ProveOptions::default()
    };
    Problem::new(
        compile("chain.rise", chain_start(k)),
        compile("reversed.rise", chain_goal(k)),
        "chain.rise",
        "reversed.rise",
        &options,
    )
    .unwrap_or_else(|e| panic!("chain of {k}: {e}"))
}

/// A shipped goal: its files' stem in `examples/goals/`, its rules, and whether to normalise.
#[derive(Clone, Copy, Debug)]
pub struct Goal {
    /// `examples/goals/{name}.start.rise` and `.goal.rise`.
    pub name: &'static str,
    /// The rules its files name.
    pub rules: &'static str,
    /// Whether the terms are put in beta-eta normal form first.
    pub normalize: bool,
}

const BINOMIAL_RULES: &str = "transpose-pair-elimination,map-fusion,map-fission,slide-before-map,\
     map-slide-before-transpose,slide-before-map-map-f,separate-dot-vh,separate-dot-hv,eta,beta";

/// Every goal of `examples/goals/`.
pub const GOALS: &[Goal] = &[
    Goal {
        name: "map-fission-fusion",
        rules: CHAIN_RULES,
        normalize: true,
    },
    Goal {
        // Without normalisation: the normaliser alone would reach the goal.
        name: "lambda-compose-many",
        rules: "eta,beta",
        normalize: false,
    },
    Goal {
        name: "binomial",
        rules: BINOMIAL_RULES,
        normalize: true,
    },
    Goal {
        name: "binomial-parametric",
        rules: BINOMIAL_RULES,
        normalize: true,
    },
];

impl Goal {
    /// Loads the goal's files from the folder `goals_dir`.
    pub fn problem(&self, goals_dir: &str) -> Result<Problem, ProveError> {
        let options = ProveOptions {
            rules: self.rules.to_string(),
            normalize: self.normalize,
            ..ProveOptions::default()
        };
        let start = format!("{goals_dir}/{}.start.rise", self.name);
        let goal = format!("{goals_dir}/{}.goal.rise", self.name);
        Problem::load(&start, &goal, &options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_compile_with_the_goal_differing_from_the_start() {
        for k in 2..=5 {
            let p = chain_problem(k);
            assert_ne!(p.start_term, p.goal_term);
            assert_eq!(p.rules.len(), 4);
        }
        assert!(chain_start(3).contains("map (fun x => f3 (f2 (f1 (x))))"));
    }
}
