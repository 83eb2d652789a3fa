//! egg's back-off scheduler: a rule with more matches than its threshold is banned for a while,
//! and both the threshold and the ban double each time it is banned. An iteration that changed
//! nothing while a rule was banned is not saturation: the bans are lifted, and the thresholds
//! decide again.

use super::{Iteration, RuleScheduler};
use crate::pass::{MatchChoice, PassOutcome};

/// The back-off scheduler's record of one rule.
#[derive(Clone, Copy, Debug, Default)]
struct BanRecord {
    /// Times the rule was banned.
    times_banned: u32,
    /// The first iteration at which it may be searched again.
    banned_until: usize,
}

/// The back-off scheduler with its bans.
#[derive(Clone, Debug)]
pub struct Backoff {
    match_limit: usize,
    ban_length: usize,
    /// One record per rule (grown as rules are seen).
    bans: Vec<BanRecord>,
    /// The current iteration (from 0).
    iteration: usize,
    /// Whether this iteration left a rule out.
    held_back: bool,
}

impl Backoff {
    /// A scheduler that bans a rule with more than `match_limit` matches for `ban_length`
    /// iterations, both doubled at each ban of that rule.
    pub fn new(match_limit: usize, ban_length: usize) -> Backoff {
        Backoff {
            match_limit,
            ban_length,
            bans: Vec::new(),
            iteration: 0,
            held_back: false,
        }
    }

    fn record(&mut self, rule: usize) -> &mut BanRecord {
        if self.bans.len() <= rule {
            self.bans.resize(rule + 1, BanRecord::default());
        }
        &mut self.bans[rule]
    }
}

impl MatchChoice for Backoff {
    fn banned(&mut self, rule: usize) -> bool {
        let banned = self
            .bans
            .get(rule)
            .is_some_and(|b| self.iteration < b.banned_until);
        self.held_back |= banned;
        banned
    }

    /// All matches, or none when the rule has more than its threshold: then it is banned.
    fn choose(&mut self, rule: usize, found: usize) -> Option<Vec<usize>> {
        let (match_limit, ban_length, iteration) =
            (self.match_limit, self.ban_length, self.iteration);
        let record = self.record(rule);
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
        record.banned_until = iteration.saturating_add(1).saturating_add(ban);
        self.held_back = true;
        Some(Vec::new())
    }
}

impl RuleScheduler for Backoff {
    fn iterate(&mut self, iteration: &mut Iteration) -> PassOutcome {
        iteration.pass_of_every_rule(Some(self))
    }

    fn end_iteration(&mut self, changed: bool) -> bool {
        let saturated = !changed && !self.held_back;
        if !changed && self.held_back {
            for b in &mut self.bans {
                b.banned_until = 0;
            }
        }
        self.held_back = false;
        self.iteration += 1;
        saturated
    }

    fn name(&self) -> String {
        format!("backoff({}, {})", self.match_limit, self.ban_length)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_bans_a_rule_with_too_many_matches_for_longer_each_time() {
        let mut st = Backoff::new(10, 2);
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
}
