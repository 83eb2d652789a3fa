//! Building the e-graph: which rules are applied, in which order, until the node limit.
//!
//! * [`Strategy::Tensat`]: TENSAT's order — in each iteration, the multi-pattern rules first
//!   (only in the first `multi_iterations` iterations: they explode the e-graph), then every
//!   single-pattern rule in turn; until nothing changes, the node limit or the iteration limit.
//! * [`Strategy::Mcts`]: Monte Carlo tree search over rule applications (Hartmann, He and
//!   Yoneki, PACT'24): before each application, `budget` simulations grow a tree whose nodes
//!   are e-graphs and whose edges are rules; selection stops at a node with probability ½ and
//!   otherwise follows the child of largest UCB1 (`v/n + c·sqrt(ln N / n)`); expansion applies
//!   a random rule not on the node's blacklist (rules that did not change it, or whose pattern
//!   does not occur); a rollout applies up to `depth` random rules, and its reward is the sum of
//!   the cost improvements after each (never negative); the rule of the root's child with the
//!   best mean reward is then applied to the e-graph. It ends when every rule is blacklisted
//!   (saturated), at the node limit or at the time limit.

use crate::extract::best;
use crate::lang::GraphEGraph;
use crate::rules::Rule;
use egg::Id;
use rand::{RngExt, SeedableRng};
use rand_xorshift::XorShiftRng;
use std::time::{Duration, Instant};

/// Moves of the extraction that estimates a rollout's costs (the final extraction tries
/// [`crate::extract::FINAL_MOVES`]): enough to see one merge pay off, few enough that a
/// simulation stays cheap.
pub const REWARD_MOVES: usize = 4;

/// How the e-graph is built. See the module documentation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Strategy {
    /// TENSAT's fixed order.
    Tensat {
        /// Iterations in which the multi-pattern rules are applied.
        multi_iterations: usize,
    },
    /// Monte Carlo tree search.
    Mcts {
        /// Simulations before each applied rule.
        budget: usize,
        /// Rules applied per rollout.
        depth: usize,
        /// UCB1's exploration constant.
        exploration: f64,
    },
}

/// Limits of the construction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// E-nodes: no rule is applied once the e-graph has this many.
    pub nodes: usize,
    /// Iterations of TENSAT's order; rules applied by MCTS.
    pub iterations: usize,
    /// Wall-clock time.
    pub time: Duration,
    /// Merges per application of a multi-pattern rule.
    pub merges: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            nodes: 2000,
            iterations: 30,
            time: Duration::from_secs(60),
            merges: 16,
        }
    }
}

/// Why the construction stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// No rule changes the e-graph.
    Saturated,
    /// The e-graph reached the node limit.
    Nodes,
    /// The iteration limit.
    Iterations,
    /// The time limit.
    Time,
}

/// What the construction did.
#[derive(Clone, Debug)]
pub struct Built {
    /// The rules applied, in order (for TENSAT's order: those that changed the e-graph).
    pub applied: Vec<&'static str>,
    /// Why it stopped.
    pub stop: Stop,
    /// Simulations run (MCTS).
    pub simulations: usize,
}

/// Builds `egraph` (whose root class is `root`) with `rules` by `strategy`.
pub fn construct(
    egraph: &mut GraphEGraph,
    root: Id,
    rules: &[Rule],
    strategy: Strategy,
    limits: &Limits,
    seed: u64,
) -> Built {
    match strategy {
        Strategy::Tensat { multi_iterations } => tensat(egraph, rules, multi_iterations, limits),
        Strategy::Mcts {
            budget,
            depth,
            exploration,
        } => Mcts {
            rules,
            root,
            limits,
            budget,
            depth,
            exploration,
            rng: XorShiftRng::seed_from_u64(seed),
            simulations: 0,
            start: Instant::now(),
        }
        .run(egraph),
    }
}

fn tensat(
    egraph: &mut GraphEGraph,
    rules: &[Rule],
    multi_iterations: usize,
    limits: &Limits,
) -> Built {
    let start = Instant::now();
    let mut applied = Vec::new();
    for iteration in 0..limits.iterations {
        let mut changed = false;
        let order = rules
            .iter()
            .filter(|r| r.is_multi())
            .chain(rules.iter().filter(|r| !r.is_multi()));
        for rule in order {
            if rule.is_multi() && iteration >= multi_iterations {
                continue;
            }
            if egraph.total_number_of_nodes() >= limits.nodes {
                return Built {
                    applied,
                    stop: Stop::Nodes,
                    simulations: 0,
                };
            }
            if start.elapsed() >= limits.time {
                return Built {
                    applied,
                    stop: Stop::Time,
                    simulations: 0,
                };
            }
            if rule.apply(egraph, limits.merges) {
                applied.push(rule.name);
                changed = true;
            }
        }
        if !changed {
            return Built {
                applied,
                stop: Stop::Saturated,
                simulations: 0,
            };
        }
    }
    Built {
        applied,
        stop: Stop::Iterations,
        simulations: 0,
    }
}

/// A node of the search tree: an e-graph reached by a sequence of rules.
struct TreeNode {
    egraph: GraphEGraph,
    /// The rule that led here (index), and the parent.
    rule: Option<usize>,
    children: Vec<usize>,
    /// Rules known not to change this e-graph.
    blacklist: Vec<bool>,
    visits: f64,
    value: f64,
    /// The estimated cost of the best graph in this e-graph.
    cost: f64,
}

struct Mcts<'a> {
    rules: &'a [Rule],
    root: Id,
    limits: &'a Limits,
    budget: usize,
    depth: usize,
    exploration: f64,
    rng: XorShiftRng,
    simulations: usize,
    start: Instant,
}

impl Mcts<'_> {
    fn cost(&self, egraph: &GraphEGraph) -> f64 {
        best(egraph, self.root, REWARD_MOVES).map_or(f64::INFINITY, |e| e.cost)
    }

    fn node(&self, egraph: GraphEGraph, rule: Option<usize>) -> TreeNode {
        let blacklist = self.rules.iter().map(|r| !r.occurs(&egraph)).collect();
        let cost = self.cost(&egraph);
        TreeNode {
            egraph,
            rule,
            children: Vec::new(),
            blacklist,
            visits: 0.0,
            value: 0.0,
            cost,
        }
    }

    fn out_of_time(&self) -> bool {
        self.start.elapsed() >= self.limits.time
    }

    fn run(mut self, egraph: &mut GraphEGraph) -> Built {
        let mut applied = Vec::new();
        for _ in 0..self.limits.iterations {
            if egraph.total_number_of_nodes() >= self.limits.nodes {
                return self.built(applied, Stop::Nodes);
            }
            if self.out_of_time() {
                return self.built(applied, Stop::Time);
            }
            let Some(rule) = self.search(egraph.clone()) else {
                return self.built(applied, Stop::Saturated);
            };
            self.rules[rule].apply(egraph, self.limits.merges);
            applied.push(self.rules[rule].name);
        }
        self.built(applied, Stop::Iterations)
    }

    fn built(&self, applied: Vec<&'static str>, stop: Stop) -> Built {
        Built {
            applied,
            stop,
            simulations: self.simulations,
        }
    }

    /// One search from `egraph`: the rule to apply, `None` when every rule is blacklisted.
    fn search(&mut self, egraph: GraphEGraph) -> Option<usize> {
        let mut tree = vec![self.node(egraph, None)];
        for _ in 0..self.budget {
            if self.out_of_time() {
                break;
            }
            // Selection.
            let mut path = vec![0];
            loop {
                let at = *path.last().expect("the root");
                let open: Vec<usize> = tree[at]
                    .children
                    .iter()
                    .copied()
                    .filter(|c| !self.saturated(&tree[*c]))
                    .collect();
                if open.is_empty() || self.rng.random::<f64>() < 0.5 {
                    break;
                }
                let n = tree[at].visits.max(1.0);
                let ucb = |c: &usize| {
                    let t = &tree[*c];
                    if t.visits == 0.0 {
                        f64::INFINITY
                    } else {
                        t.value / t.visits + self.exploration * (n.ln() / t.visits).sqrt()
                    }
                };
                let next = open
                    .into_iter()
                    .max_by(|a, b| ucb(a).total_cmp(&ucb(b)))
                    .expect("open children");
                path.push(next);
            }
            // Expansion.
            let at = *path.last().expect("the root");
            let tried: Vec<usize> = tree[at]
                .children
                .iter()
                .filter_map(|c| tree[*c].rule)
                .collect();
            let candidates: Vec<usize> = (0..self.rules.len())
                .filter(|r| !tree[at].blacklist[*r] && !tried.contains(r))
                .collect();
            if candidates.is_empty() {
                if at == 0 && tree[0].children.is_empty() {
                    return None;
                }
                self.backpropagate(&mut tree, &path, 0.0);
                self.simulations += 1;
                continue;
            }
            let rule = candidates[self.rng.random_range(0..candidates.len())];
            let mut next = tree[at].egraph.clone();
            let changed = self.rules[rule].apply(&mut next, self.limits.merges);
            if !changed {
                tree[at].blacklist[rule] = true;
                continue;
            }
            let child = self.node(next, Some(rule));
            let parent_cost = tree[at].cost;
            tree.push(child);
            let id = tree.len() - 1;
            tree[at].children.push(id);
            path.push(id);
            // Simulation.
            let reward = (parent_cost - tree[id].cost).max(0.0) + self.rollout(&tree[id]);
            self.simulations += 1;
            self.backpropagate(&mut tree, &path, reward);
        }
        let best = tree[0].children.iter().copied().max_by(|a, b| {
            let mean = |c: usize| tree[c].value / tree[c].visits.max(1.0);
            mean(*a)
                .total_cmp(&mean(*b))
                .then(tree[*a].visits.total_cmp(&tree[*b].visits))
        })?;
        tree[best].rule
    }

    fn saturated(&self, node: &TreeNode) -> bool {
        node.blacklist.iter().all(|b| *b)
            || node.egraph.total_number_of_nodes() >= self.limits.nodes
    }

    /// Random rules from `from`: the sum of the cost improvements after each.
    fn rollout(&mut self, from: &TreeNode) -> f64 {
        let mut egraph = from.egraph.clone();
        let mut cost = from.cost;
        let mut blacklist = from.blacklist.clone();
        let mut reward = 0.0;
        for _ in 0..self.depth {
            if egraph.total_number_of_nodes() >= self.limits.nodes || self.out_of_time() {
                break;
            }
            let open: Vec<usize> = (0..self.rules.len()).filter(|r| !blacklist[*r]).collect();
            if open.is_empty() {
                break;
            }
            let rule = open[self.rng.random_range(0..open.len())];
            if !self.rules[rule].apply(&mut egraph, self.limits.merges) {
                blacklist[rule] = true;
                continue;
            }
            let now = self.cost(&egraph);
            reward += (cost - now).max(0.0);
            cost = now;
        }
        reward
    }

    fn backpropagate(&self, tree: &mut [TreeNode], path: &[usize], reward: f64) {
        for &n in path {
            tree[n].visits += 1.0;
            tree[n].value += reward;
        }
    }
}
