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
//!   (MCTS-guided equality saturation, PACT'24), in `super::mcts`.
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
}

/// The back-off scheduler's record of one rule.
#[derive(Clone, Copy, Debug, Default)]
struct BanRecord {
    /// Times the rule was banned.
    times_banned: u32,
    /// The first iteration at which it may be searched again.
    banned_until: usize,
}

/// What the schedulers remember between iterations: the back-off bans, the random numbers, and
/// whether the current iteration held matches back.
pub(crate) struct SchedulerState {
    pub(crate) strategy: Strategy,
    pub(crate) rng: XorShiftRng,
    bans: Vec<BanRecord>,
    /// The current iteration (from 0).
    pub(crate) iteration: usize,
    /// Whether this iteration left matches out (sampled, or a rule banned).
    held_back: bool,
    /// Whether this iteration applies every match of every rule: the one after an iteration
    /// that changed nothing but held matches back. The search is saturated only when such an
    /// iteration changes nothing either.
    full: bool,
}

impl SchedulerState {
    /// A fresh state for a search with `rules` rules.
    pub(crate) fn new(strategy: Strategy, rules: usize) -> SchedulerState {
        SchedulerState {
            strategy,
            rng: strategy.rng(),
            bans: vec![BanRecord::default(); rules],
            iteration: 0,
            held_back: false,
            full: false,
        }
    }

    /// Ends an iteration that changed the e-graph or not. Returns whether the search may be
    /// saturated: nothing changed, and nothing was held back.
    pub(crate) fn end_iteration(&mut self, changed: bool) -> bool {
        let saturated = !changed && !self.held_back;
        let stalled = !changed && self.held_back;
        match self.strategy.scheduler {
            // egg's back-off: when nothing changed, the bans are lifted, and the thresholds
            // (doubled at each ban) decide again which rules apply.
            Scheduler::Backoff { .. } if stalled => {
                for b in &mut self.bans {
                    b.banned_until = 0;
                }
            }
            _ => self.full = stalled,
        }
        self.held_back = false;
        self.iteration += 1;
        saturated
    }

    /// Whether rule `r` is banned in the current iteration (back-off only).
    pub(crate) fn banned(&mut self, r: usize) -> bool {
        let banned = !self.full
            && self
                .bans
                .get(r)
                .is_some_and(|b| self.iteration < b.banned_until);
        self.held_back |= banned;
        banned
    }

    /// The indices (ascending) of the matches of rule `r` to apply out of `found`, or `None` for
    /// all of them. Under back-off, a rule with too many matches is banned and gets none.
    pub(crate) fn choose(&mut self, r: usize, found: usize) -> Option<Vec<usize>> {
        if self.full {
            return None;
        }
        let chosen = match self.strategy.scheduler {
            Scheduler::Simple | Scheduler::Mcts { .. } => None,
            Scheduler::Sample(k) => {
                if found <= k {
                    return None;
                }
                let mut picked = rand::seq::index::sample(&mut self.rng, found, k).into_vec();
                picked.sort_unstable();
                Some(picked)
            }
            Scheduler::Backoff {
                match_limit,
                ban_length,
            } => {
                let record = &mut self.bans[r];
                let doubled = |n: usize| {
                    1usize
                        .checked_shl(record.times_banned)
                        .map_or(usize::MAX, |f| n.saturating_mul(f))
                };
                if found <= doubled(match_limit) {
                    return None;
                }
                let ban = doubled(ban_length);
                record.times_banned += 1;
                record.banned_until = self.iteration.saturating_add(1).saturating_add(ban);
                Some(Vec::new())
            }
        };
        self.held_back |= chosen.is_some();
        chosen
    }
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

    #[test]
    fn sampling_keeps_at_most_k_matches_and_depends_only_on_the_seed() {
        let draw = |seed| {
            let mut st = SchedulerState::new(
                Strategy {
                    scheduler: Scheduler::Sample(5),
                    seed,
                },
                1,
            );
            st.choose(0, 100).unwrap()
        };
        let a = draw(7);
        assert_eq!(a.len(), 5);
        assert!(a.windows(2).all(|w| w[0] < w[1]) && a.iter().all(|&i| i < 100));
        assert_eq!(a, draw(7));
        assert_ne!(a, draw(8));
        let mut st = SchedulerState::new(
            Strategy {
                scheduler: Scheduler::Sample(5),
                seed: 0,
            },
            1,
        );
        assert_eq!(
            st.choose(0, 5),
            None,
            "five matches or fewer are all applied"
        );
    }

    #[test]
    fn backoff_bans_a_rule_with_too_many_matches_for_longer_each_time() {
        let mut st = SchedulerState::new(
            Strategy {
                scheduler: Scheduler::Backoff {
                    match_limit: 10,
                    ban_length: 2,
                },
                seed: 0,
            },
            1,
        );
        assert_eq!(st.choose(0, 10), None);
        assert_eq!(st.choose(0, 11), Some(Vec::new()));
        assert!(!st.end_iteration(true));
        assert!(st.banned(0));
        st.end_iteration(true);
        st.end_iteration(true);
        assert!(
            !st.banned(0),
            "banned for 2 iterations after the one that banned it"
        );
        assert_eq!(st.choose(0, 15), None, "the threshold doubled");
        assert_eq!(st.choose(0, 21), Some(Vec::new()));
        st.end_iteration(true);
        assert!(st.banned(0), "the second ban lasts 4 iterations");
        // An iteration that changed nothing while a rule was banned is not saturation: the
        // bans are lifted, and the thresholds decide again.
        assert!(!st.end_iteration(false));
        assert!(!st.banned(0));
        assert_eq!(
            st.choose(0, 1000),
            Some(Vec::new()),
            "over the threshold of 40"
        );
        assert!(!st.end_iteration(false));
        assert_eq!(st.choose(0, 30), None);
        assert!(
            st.end_iteration(false),
            "nothing held back, nothing changed"
        );
    }

    #[test]
    fn after_a_sampled_iteration_that_changed_nothing_every_match_is_applied() {
        let mut st = SchedulerState::new(
            Strategy {
                scheduler: Scheduler::Sample(2),
                seed: 0,
            },
            1,
        );
        assert_eq!(st.choose(0, 5).map(|c| c.len()), Some(2));
        assert!(!st.end_iteration(false), "matches were held back");
        assert_eq!(
            st.choose(0, 5),
            None,
            "the check iteration applies all five"
        );
        assert!(st.end_iteration(false), "saturated");
        assert_eq!(st.choose(0, 5).map(|c| c.len()), Some(2));
    }
}
