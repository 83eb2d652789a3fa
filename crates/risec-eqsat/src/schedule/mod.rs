//! Rule schedulers: which matches of which rules an iteration of the saturation loop applies.
//!
//! * [`Scheduler::Simple`]: every match of every rule, every iteration (the default, and the
//!   only one that never hides a rewrite a sketch needs).
//! * [`Scheduler::Backoff`]: egg's back-off: a rule with more matches than its threshold is
//!   banned for a while, and both the threshold and the ban double each time it is banned.
//! * [`Scheduler::Sample`]: at most K matches per rule and iteration, drawn by a seeded random
//!   number generator (SPORES §3.1): commutativity and associativity no longer blow up the
//!   e-graph, and every match keeps a chance in every iteration.
//! * [`Scheduler::Mcts`]: Monte Carlo tree search over sequences of rule applications
//!   (MCTS-guided equality saturation, PACT'24), in [`mcts`].
//!
//! Each is an implementation of [`RuleScheduler`] (in [`simple`], [`backoff`], [`sampling`] and
//! [`mcts`]); the saturation loop ([`crate::runner`]) runs any implementation and knows none of
//! them. [`Scheduler`] is the written form of the built-in ones ([`Strategy::build`]).
//!
//! The normal-form rules (`beta`, `beta-nat`, `eta`: [`crate::rewrite::Rule::is_reduction`])
//! are never sampled or banned: their catch-up passes keep the e-graph free of redex towers (see
//! [`super::runner`]), and a sampled beta would leave them standing.
//!
//! A scheduler is written as in sketch files and on the command line: `simple`, `backoff`,
//! `backoff(LIMIT, BAN)`, `sample(K)`, `mcts(BUDGET, DEPTH)`.
//!
//! ```
//! use risec_eqsat::schedule::Scheduler;
//! let s: Scheduler = "sample(8)".parse().unwrap();
//! assert_eq!(s, Scheduler::Sample(8));
//! assert_eq!(s.to_string(), "sample(8)");
//! ```

pub mod backoff;
pub mod mcts;
pub mod sampling;
pub mod simple;

use crate::egraph::RiseEGraph;
use crate::pass::{LimitWatch, MatchChoice, PassOutcome};
use crate::rewrite::{Assumptions, Rule};
use crate::stats::RuleCounts;
use rand::SeedableRng;
use rand_xorshift::XorShiftRng;
use std::fmt;
use std::str::FromStr;

/// Which matches an iteration applies. See the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Scheduler {
    /// Every match of every rule.
    #[default]
    Simple,
    /// egg's back-off scheduler.
    Backoff {
        /// Matches a rule may have before its first ban (doubled at every ban).
        match_limit: usize,
        /// Iterations of its first ban (doubled at every ban).
        ban_length: usize,
    },
    /// At most this many matches per rule and iteration, drawn at random.
    Sample(usize),
    /// Monte Carlo tree search: per iteration, `budget` simulations of up to `depth` rule
    /// applications, then the best first rule is applied.
    Mcts {
        /// Simulations per applied rule.
        budget: usize,
        /// Rule applications per simulation.
        depth: usize,
    },
}

/// egg's defaults for the back-off scheduler.
pub const BACKOFF_DEFAULT: Scheduler = Scheduler::Backoff {
    match_limit: 1000,
    ban_length: 5,
};

impl Scheduler {
    /// Whether the scheduler draws random numbers (its result depends on the seed).
    pub fn is_random(self) -> bool {
        matches!(self, Scheduler::Sample(_) | Scheduler::Mcts { .. })
    }
}

impl fmt::Display for Scheduler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Scheduler::Simple => f.write_str("simple"),
            Scheduler::Backoff {
                match_limit,
                ban_length,
            } => write!(f, "backoff({match_limit}, {ban_length})"),
            Scheduler::Sample(k) => write!(f, "sample({k})"),
            Scheduler::Mcts { budget, depth } => write!(f, "mcts({budget}, {depth})"),
        }
    }
}

/// A scheduler that does not parse: the message says what is expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown scheduler `{0}`: expected `simple`, `backoff`, `backoff(LIMIT, BAN)`, `sample(K)` \
     or `mcts(BUDGET, DEPTH)` (positive whole numbers)"
)]
pub struct SchedulerError(pub String);

impl FromStr for Scheduler {
    type Err = SchedulerError;

    fn from_str(text: &str) -> Result<Scheduler, SchedulerError> {
        let bad = || SchedulerError(text.to_string());
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let (name, args) = match compact.split_once('(') {
            Some((name, rest)) => {
                let inner = rest.strip_suffix(')').ok_or_else(bad)?;
                let args = inner
                    .split(',')
                    .map(|a| a.parse::<usize>().ok().filter(|&n| n > 0))
                    .collect::<Option<Vec<usize>>>()
                    .ok_or_else(bad)?;
                (name.to_string(), args)
            }
            None => (compact, Vec::new()),
        };
        match (name.as_str(), args.as_slice()) {
            ("simple", []) => Ok(Scheduler::Simple),
            ("backoff", []) => Ok(BACKOFF_DEFAULT),
            ("backoff", &[match_limit, ban_length]) => Ok(Scheduler::Backoff {
                match_limit,
                ban_length,
            }),
            ("sample", &[k]) => Ok(Scheduler::Sample(k)),
            ("mcts", &[budget, depth]) => Ok(Scheduler::Mcts { budget, depth }),
            _ => Err(bad()),
        }
    }
}

/// A scheduler with the seed of its random choices: the same strategy on the same input gives
/// the same e-graph, whatever the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Strategy {
    /// The scheduler.
    pub scheduler: Scheduler,
    /// The seed of its random number generator.
    pub seed: u64,
}

impl Strategy {
    /// The random number generator of a search (xorshift: the same numbers on every platform).
    pub fn rng(&self) -> XorShiftRng {
        XorShiftRng::seed_from_u64(self.seed)
    }

    /// A fresh scheduler of this kind for one search.
    pub fn build(&self) -> Box<dyn RuleScheduler> {
        match self.scheduler {
            Scheduler::Simple => Box::new(simple::Simple),
            Scheduler::Backoff {
                match_limit,
                ban_length,
            } => Box::new(backoff::Backoff::new(match_limit, ban_length)),
            Scheduler::Sample(k) => Box::new(sampling::Sampling::new(k, self.seed)),
            Scheduler::Mcts { budget, depth } => {
                Box::new(mcts::Mcts::new(budget, depth, self.seed))
            }
        }
    }
}

/// Decides what each iteration of the saturation loop applies. The loop calls
/// [`iterate`](RuleScheduler::iterate) once per iteration, then
/// [`end_iteration`](RuleScheduler::end_iteration); it checks the goal and the limits itself.
pub trait RuleScheduler {
    /// Runs one iteration on `iteration`'s e-graph (most schedulers: one
    /// [`Iteration::pass_of_every_rule`], perhaps holding some matches back) and returns whether
    /// it changed the e-graph and the limit that stopped it, if one did.
    fn iterate(&mut self, iteration: &mut Iteration) -> PassOutcome;

    /// Ends an iteration that changed the e-graph or not. Returns whether the search may be
    /// saturated: nothing changed and nothing was held back (otherwise the next iteration must
    /// apply what was held back before the loop may call it saturation).
    fn end_iteration(&mut self, changed: bool) -> bool;

    /// The scheduler as written in sketch files and on the command line (for the statistics).
    fn name(&self) -> String;

    /// The seed of its random choices, for the schedulers that make some.
    fn seed(&self) -> Option<u64> {
        None
    }
}

/// One iteration's work: the e-graph, the rules, the limits and what the iteration records.
pub struct Iteration<'a, 'w> {
    pub(crate) egraph: &'a mut RiseEGraph,
    pub(crate) watch: &'a mut LimitWatch<'w>,
    /// Every rule, in the order the search was given them.
    pub(crate) rules: &'a [&'a Rule],
    /// The rules that are not reductions.
    pub(crate) searched: &'a [&'a Rule],
    /// The normal-form rules (beta, beta-nat, eta), never held back.
    pub(crate) reductions: &'a [&'a Rule],
    pub(crate) guide: Option<&'a Guide<'a>>,
    pub(crate) assumptions: &'a mut Assumptions,
    pub(crate) goal: &'a mut dyn FnMut(&RiseEGraph) -> bool,
    pub(crate) applied: &'a mut RuleCounts,
}

impl Iteration<'_, '_> {
    /// One pass of every rule (the matches `choice` keeps, or all of them), then the reduction
    /// rules' catch-up passes. `changed` is the first pass's; `stopped` the last pass's.
    pub fn pass_of_every_rule(&mut self, choice: Option<&mut dyn MatchChoice>) -> PassOutcome {
        let first = self.watch.pass(
            self.egraph,
            self.rules,
            choice,
            self.assumptions,
            self.applied,
        );
        let changed = first.changed;
        let last = self.watch.catch_up(
            self.egraph,
            self.reductions,
            first,
            self.assumptions,
            self.applied,
        );
        PassOutcome {
            changed,
            stopped: last.stopped,
        }
    }

    /// The e-graph the iteration grows.
    pub fn egraph(&self) -> &RiseEGraph {
        self.egraph
    }

    /// Every rule of the search, in order (the indices [`MatchChoice`] sees).
    pub fn rules(&self) -> &[&Rule] {
        self.rules
    }
}

/// How close an e-graph is to a search's goal, for the schedulers that look ahead
/// ([`Scheduler::Mcts`]): the goal's root class, and the progress toward the goal, from 0
/// (nothing of it) to 1 (reached).
pub struct Guide<'a> {
    /// The class the goal is about (the start term's).
    pub root: egg::Id,
    /// Progress toward the goal, in `[0, 1]`.
    pub progress: &'a dyn Fn(&RiseEGraph) -> f64,
    /// What the goal check allocates per e-class id the e-graph has handed out (a sketch
    /// check: a table entry per sketch node), in bytes: the memory limit leaves room for it
    /// (0 for a check that allocates little).
    pub goal_bytes_per_id: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedulers_parse_and_print_back() {
        for text in ["simple", "backoff(1000, 5)", "sample(8)", "mcts(20, 4)"] {
            let s: Scheduler = text.parse().unwrap();
            assert_eq!(s.to_string(), text);
        }
        assert_eq!("backoff".parse::<Scheduler>().unwrap(), BACKOFF_DEFAULT);
        assert_eq!(
            " sample ( 3 ) ".parse::<Scheduler>().unwrap(),
            Scheduler::Sample(3)
        );
        for bad in [
            "sample",
            "sample(0)",
            "sample(-1)",
            "mcts(3)",
            "greedy",
            "sample(2",
        ] {
            assert!(bad.parse::<Scheduler>().is_err(), "{bad}");
        }
    }
}
