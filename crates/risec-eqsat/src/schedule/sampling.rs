//! The sampling scheduler: at most K matches per rule and iteration, drawn by a seeded random
//! number generator (SPORES §3.1): commutativity and associativity no longer blow up the
//! e-graph, and every match keeps a chance in every iteration. After an iteration that changed
//! nothing but held matches back, the next applies every match: only if that changes nothing
//! either is the search saturated.

use super::{Iteration, RuleScheduler};
use crate::pass::{MatchChoice, PassOutcome};
use rand::SeedableRng;
use rand_xorshift::XorShiftRng;

/// At most `k` matches per rule and iteration, drawn at random.
#[derive(Clone, Debug)]
pub struct Sampling {
    k: usize,
    seed: u64,
    rng: XorShiftRng,
    /// Whether this iteration left matches out.
    held_back: bool,
    /// Whether this iteration applies every match (the one after a stalled iteration).
    full: bool,
}

impl Sampling {
    /// A scheduler keeping at most `k` matches per rule and iteration, drawn from `seed`.
    pub fn new(k: usize, seed: u64) -> Sampling {
        Sampling {
            k,
            seed,
            rng: XorShiftRng::seed_from_u64(seed),
            held_back: false,
            full: false,
        }
    }
}

/// The indices (ascending) of `k` of `found` matches drawn at random, or `None` (all of them)
/// when there are `k` or fewer: the one meaning of `sample(K)`, shared with `risec la`.
pub fn sample_indices(rng: &mut XorShiftRng, k: usize, found: usize) -> Option<Vec<usize>> {
    if found <= k {
        return None;
    }
    let mut picked = rand::seq::index::sample(rng, found, k).into_vec();
    picked.sort_unstable();
    Some(picked)
}

impl MatchChoice for Sampling {
    fn banned(&mut self, _rule: usize) -> bool {
        false
    }

    fn choose(&mut self, _rule: usize, found: usize) -> Option<Vec<usize>> {
        if self.full {
            return None;
        }
        let chosen = sample_indices(&mut self.rng, self.k, found);
        self.held_back |= chosen.is_some();
        chosen
    }
}

impl RuleScheduler for Sampling {
    fn iterate(&mut self, iteration: &mut Iteration) -> PassOutcome {
        iteration.pass_of_every_rule(Some(self))
    }

    fn end_iteration(&mut self, changed: bool) -> bool {
        let saturated = !changed && !self.held_back;
        self.full = !changed && self.held_back;
        self.held_back = false;
        saturated
    }

    fn name(&self) -> String {
        format!("sample({})", self.k)
    }

    fn seed(&self) -> Option<u64> {
        Some(self.seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_keeps_at_most_k_matches_and_depends_only_on_the_seed() {
        let draw = |seed| Sampling::new(5, seed).choose(0, 100).unwrap();
        let a = draw(7);
        assert_eq!(a.len(), 5);
        assert!(a.windows(2).all(|w| w[0] < w[1]) && a.iter().all(|&i| i < 100));
        assert_eq!(a, draw(7));
        assert_ne!(a, draw(8));
        assert_eq!(
            Sampling::new(5, 0).choose(0, 5),
            None,
            "five matches or fewer are all applied"
        );
    }

    #[test]
    fn after_a_sampled_iteration_that_changed_nothing_every_match_is_applied() {
        let mut st = Sampling::new(2, 0);
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
