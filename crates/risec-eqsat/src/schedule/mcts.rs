//! Monte Carlo tree search over rule applications (MCTS-guided equality saturation, PACT'24),
//! adapted to guided search: [`super::Scheduler::Mcts`], implemented by [`Mcts`].
//!
//! One iteration of the saturation loop applies one rule (every match of it, then the
//! normal-form rules' catch-up passes). Which rule is decided by `budget` simulations from the
//! current e-graph over a tree whose edges are rule choices:
//!
//! 1. **selection**: from the root, the child with the best UCT value (mean reward plus
//!    [`EXPLORATION`] `· sqrt(ln N / n)`) while every rule of a node has been tried;
//! 2. **expansion**: an untried rule of the node, drawn at random, is applied to a clone of the
//!    e-graph; a rule that changes nothing (no match, or nothing new) is pruned from that node
//!    for good, and another is drawn;
//! 3. **rollout**: random rules until the simulation has made `depth` applications;
//! 4. **backpropagation** of the reward along the path.
//!
//! Then the root's most visited child's rule is applied to the real e-graph. A simulation whose
//! e-graph reaches the goal ends the search at once: that e-graph (grown from the real one by the
//! same sound rewrites) becomes the real one.
//!
//! # The reward
//!
//! `progress + 0.1 · cost decrease − 0.05 · log2(growth)`, on the simulation's final e-graph:
//!
//! * *progress* toward the goal, in `[0, 1]` ([`super::Guide`]): for a sketch step, how
//!   much of the sketch the root's closest partial match satisfies (its sketch nodes matched in
//!   order and at all, over twice the sketch's size: `risec_sketch::closest`); for
//!   `risec prove`, the share of the goal's subterms already in the e-graph. Guided search wants
//!   a program of a given shape, not the smallest one, so the shape comes first;
//! * *cost decrease*: how much smaller the root's smallest term got, relative to the start
//!   (extraction's own measure, so that among rules that bring the sketch equally close, those
//!   that simplify win);
//! * *growth*: the e-nodes of the simulation's e-graph over the real one's. A rule that only
//!   grows the e-graph costs every later iteration time and memory, which is what MCTS is for.

use super::{Guide, Iteration, RuleScheduler};
use crate::egraph::RiseEGraph;
use crate::limits::StopReason;
use crate::pass::{LimitWatch, PassOutcome};
use crate::rewrite::{Assumptions, Rule};
use crate::stats::RuleCounts;
use rand::{RngExt, SeedableRng};
use rand_xorshift::XorShiftRng;

/// The exploration constant of UCT (rewards are about `[0, 1]`).
pub const EXPLORATION: f64 = std::f64::consts::FRAC_1_SQRT_2;

/// Weight of the decrease of the root's smallest term in the reward.
const COST_WEIGHT: f64 = 0.1;

/// Weight of the e-graph's growth (log2 of the ratio of e-nodes) in the reward.
const GROWTH_WEIGHT: f64 = 0.05;

/// Bytes one e-node takes with its share of the classes and hash tables, a little above what
/// `cargo run --release --example eqsat_table -- memory` measures: what a simulation's copy of
/// the e-graph is assumed to need.
const BYTES_PER_ENODE: u64 = 400;

/// The MCTS scheduler: per iteration, `simulations` simulations of up to `depth` rule
/// applications, then the best first rule is applied.
#[derive(Clone, Debug)]
pub struct Mcts {
    simulations: usize,
    depth: usize,
    seed: u64,
    rng: XorShiftRng,
}

impl Mcts {
    /// A scheduler running `simulations` simulations of `depth` applications per iteration, its
    /// random choices drawn from `seed`.
    pub fn new(simulations: usize, depth: usize, seed: u64) -> Mcts {
        Mcts {
            simulations,
            depth,
            seed,
            rng: XorShiftRng::seed_from_u64(seed),
        }
    }
}

impl RuleScheduler for Mcts {
    fn iterate(&mut self, iteration: &mut Iteration) -> PassOutcome {
        let search = Search {
            rules: iteration.searched,
            reductions: iteration.reductions,
            simulations: self.simulations,
            depth: self.depth,
            guide: iteration.guide,
        };
        search.step(
            iteration.egraph,
            iteration.watch,
            &mut self.rng,
            iteration.assumptions,
            iteration.goal,
            iteration.applied,
        )
    }

    /// Saturated when no rule changes anything (MCTS holds no matches back).
    fn end_iteration(&mut self, changed: bool) -> bool {
        !changed
    }

    fn name(&self) -> String {
        format!("mcts({}, {})", self.simulations, self.depth)
    }

    fn seed(&self) -> Option<u64> {
        Some(self.seed)
    }
}

/// One MCTS decision: the rules it chooses among and how much it looks ahead.
struct Search<'a> {
    /// The rules the tree chooses among (the normal-form rules follow every application).
    rules: &'a [&'a Rule],
    /// The normal-form rules.
    reductions: &'a [&'a Rule],
    /// Simulations per decision.
    simulations: usize,
    /// Rule applications per simulation.
    depth: usize,
    /// Progress toward the goal (the reward's main term).
    guide: Option<&'a Guide<'a>>,
}

/// A node of the search tree: the state after the rules on the path from the root.
struct Node {
    /// The rule applied to reach it (unused at the root).
    rule: usize,
    children: Vec<usize>,
    /// Rules not yet tried here.
    untried: Vec<usize>,
    visits: u32,
    total: f64,
}

impl Node {
    fn new(rule: usize, rules: usize) -> Node {
        Node {
            rule,
            children: Vec::new(),
            untried: (0..rules).collect(),
            visits: 0,
            total: 0.0,
        }
    }

    fn mean(&self) -> f64 {
        self.total / f64::from(self.visits.max(1))
    }
}

/// A simulation's e-graph, with its own facts, counts and measurements.
struct Simulation<'b> {
    egraph: RiseEGraph,
    assumptions: Assumptions,
    applied: RuleCounts,
    budget: LimitWatch<'b>,
}

impl Search<'_> {
    /// Decides on a rule by simulation and applies it to `egraph` (or adopts a simulation's
    /// e-graph that reached the goal). `changed` is false when no rule changes anything.
    fn step(
        &self,
        egraph: &mut RiseEGraph,
        budget: &mut LimitWatch,
        rng: &mut XorShiftRng,
        assumptions: &mut Assumptions,
        goal: &mut dyn FnMut(&RiseEGraph) -> bool,
        applied: &mut RuleCounts,
    ) -> PassOutcome {
        let start_nodes = egraph.total_number_of_nodes().max(1);
        let start_size = self.guide.map(|g| egraph[g.root].data.size);
        if self.rules.is_empty() {
            return PassOutcome {
                changed: false,
                stopped: None,
            };
        }
        let mut tree = vec![Node::new(usize::MAX, self.rules.len())];
        // A limit that cut the simulations short: without a finished decision, the search
        // stops on it (it must not look saturated).
        let mut halted = None;
        // A simulation holds a second e-graph: it must fit beside the real one.
        let copy_bytes = egraph.total_size() as u64 * BYTES_PER_ENODE;
        for _ in 0..self.simulations {
            halted = budget.exceeded(egraph).or_else(|| {
                crate::support::memory::would_exceed(budget.limits().memory, copy_bytes)
                    .map(|_| StopReason::MemoryLimit)
            });
            if halted.is_some() {
                break;
            }
            let mut sim = Simulation {
                egraph: egraph.clone(),
                assumptions: assumptions.clone(),
                applied: RuleCounts::default(),
                budget: budget.clone(),
            };
            let (path, stopped) = self.descend(&mut tree, &mut sim, rng);
            if stopped.is_some() {
                halted = stopped;
                break;
            }
            let progress = self.guide.map_or(0.0, |g| (g.progress)(&sim.egraph));
            if (self.guide.is_none() || progress >= 1.0 - 1e-9)
                && sim.budget.check_goal(&sim.egraph, goal)
            {
                *egraph = sim.egraph;
                *assumptions = sim.assumptions;
                for (rule, count) in &sim.applied.0 {
                    applied.add(rule, *count);
                }
                *budget = sim.budget;
                return PassOutcome {
                    changed: true,
                    stopped: None,
                };
            }
            let mut reward = progress;
            if let (Some(g), Some(size)) = (self.guide, start_size) {
                let now = sim.egraph[sim.egraph.find(g.root)].data.size;
                reward += COST_WEIGHT * (f64::from(size) - f64::from(now)) / f64::from(size);
            }
            let growth = sim.egraph.total_number_of_nodes() as f64 / start_nodes as f64;
            reward -= GROWTH_WEIGHT * growth.max(1.0).log2();
            for &n in &path {
                tree[n].visits += 1;
                tree[n].total += reward;
            }
        }
        let best = tree[0]
            .children
            .iter()
            .copied()
            .max_by(|&a, &b| {
                (tree[a].visits, tree[a].mean())
                    .partial_cmp(&(tree[b].visits, tree[b].mean()))
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .map(|c| tree[c].rule);
        // No first move changed anything: saturated, unless a limit stopped the simulations.
        let Some(rule) = best else {
            return PassOutcome {
                changed: false,
                stopped: halted,
            };
        };
        self.apply(rule, egraph, budget, assumptions, applied)
    }

    /// Selection, expansion and rollout of one simulation; returns the tree path it took and
    /// whether a limit stopped it.
    fn descend(
        &self,
        tree: &mut Vec<Node>,
        sim: &mut Simulation,
        rng: &mut XorShiftRng,
    ) -> (Vec<usize>, Option<StopReason>) {
        let mut path = vec![0];
        let mut node = 0;
        let mut depth = 0;
        while depth < self.depth {
            // Expansion: untried rules in random order until one changes the e-graph.
            let mut expanded = false;
            while !tree[node].untried.is_empty() {
                let i = rng.random_range(0..tree[node].untried.len());
                let rule = tree[node].untried.swap_remove(i);
                let out = self.simulate(rule, sim);
                if out.stopped.is_some() {
                    // Not known to change nothing: it stays to be tried.
                    tree[node].untried.push(rule);
                    return (path, out.stopped);
                }
                if out.changed {
                    let child = tree.len();
                    tree.push(Node::new(rule, self.rules.len()));
                    tree[node].children.push(child);
                    path.push(child);
                    depth += 1;
                    expanded = true;
                    break;
                }
            }
            if expanded {
                break;
            }
            // Selection: every rule here has been tried.
            let Some(child) = self.select(tree, node) else {
                break;
            };
            let out = self.simulate(tree[child].rule, sim);
            if out.stopped.is_some() {
                return (path, out.stopped);
            }
            path.push(child);
            node = child;
            depth += 1;
        }
        // Rollout.
        while depth < self.depth {
            let rule = rng.random_range(0..self.rules.len());
            let out = self.simulate(rule, sim);
            if out.stopped.is_some() {
                return (path, out.stopped);
            }
            depth += 1;
        }
        (path, None)
    }

    /// The child of `node` with the best UCT value.
    fn select(&self, tree: &[Node], node: usize) -> Option<usize> {
        let parent = f64::from(tree[node].visits.max(1)).ln();
        let uct = |c: usize| {
            let n = f64::from(tree[c].visits.max(1));
            tree[c].mean() + EXPLORATION * (parent / n).sqrt()
        };
        tree[node].children.iter().copied().max_by(|&a, &b| {
            uct(a)
                .partial_cmp(&uct(b))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
    }

    fn simulate(&self, rule: usize, sim: &mut Simulation) -> PassOutcome {
        self.apply(
            rule,
            &mut sim.egraph,
            &mut sim.budget,
            &mut sim.assumptions,
            &mut sim.applied,
        )
    }

    /// Applies every match of rule `rule`, then the normal-form rules' catch-up passes.
    fn apply(
        &self,
        rule: usize,
        egraph: &mut RiseEGraph,
        budget: &mut LimitWatch,
        assumptions: &mut Assumptions,
        applied: &mut RuleCounts,
    ) -> PassOutcome {
        let first = budget.pass(egraph, &[self.rules[rule]], None, assumptions, applied);
        let changed = first.changed;
        let last = budget.catch_up(egraph, self.reductions, first, assumptions, applied);
        PassOutcome {
            changed,
            stopped: last.stopped,
        }
    }
}
