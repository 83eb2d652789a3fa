//! Random choices the families share: schedulers, budgets, sizes, rule lists.

use crate::eqsat::schedule::Scheduler;
use crate::interp::random::Rng;
use std::time::Duration;

/// The split sizes the families draw (issue 32): small primes, powers of two, 2¹⁶, 2²⁰ and
/// 2³¹−1.
pub(crate) const SPLITS: &[u64] = &[2, 3, 7, 32, 64, 65536, 1 << 20, (1 << 31) - 1];

/// Sizes that are rarer but must be refused or handled: 0, 1, a power of two past 2³², the
/// largest `u64`.
const ODD_SIZES: &[&str] = &["0", "1", "4", "16", "4294967296", "18446744073709551615"];

/// An element of `items`.
pub(crate) fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> &'a T {
    &items[rng.below(items.len() as u64) as usize]
}

/// True with probability `1/n`.
pub(crate) fn one_in(rng: &mut Rng, n: u64) -> bool {
    rng.below(n) == 0
}

/// A number in `lo..=hi`, uniform in its logarithm.
pub(crate) fn log_uniform(rng: &mut Rng, lo: u64, hi: u64) -> u64 {
    let (l, h) = ((lo.max(1) as f64).ln(), (hi.max(lo).max(1) as f64).ln());
    let x = l + (h - l) * (rng.below(1 << 30) as f64 / (1u64 << 30) as f64);
    (x.exp().round() as u64).clamp(lo, hi.max(lo))
}

/// A split size as written in a rule: one of [`SPLITS`], one time in twenty an odd one.
pub(crate) fn split_size(rng: &mut Rng) -> String {
    if one_in(rng, 20) {
        pick(rng, ODD_SIZES).to_string()
    } else {
        pick(rng, SPLITS).to_string()
    }
}

/// A scheduler: `simple` half the time, else back-off (default or drawn), `sample(K)` or
/// `mcts(B, D)`.
pub(crate) fn scheduler(rng: &mut Rng) -> Scheduler {
    match rng.below(8) {
        0..=3 => Scheduler::Simple,
        4 => crate::eqsat::schedule::BACKOFF_DEFAULT,
        5 => Scheduler::Backoff {
            match_limit: log_uniform(rng, 1, 10_000) as usize,
            ban_length: 1 + rng.below(8) as usize,
        },
        6 => Scheduler::Sample(log_uniform(rng, 1, 1000) as usize),
        _ => Scheduler::Mcts {
            budget: 1 + rng.below(16) as usize,
            depth: 1 + rng.below(6) as usize,
        },
    }
}

/// A time budget in `lo_ms..=hi_ms`, uniform in its logarithm.
pub(crate) fn time(rng: &mut Rng, lo_ms: u64, hi_ms: u64) -> Duration {
    Duration::from_millis(log_uniform(rng, lo_ms, hi_ms))
}

/// A size-taking library rule with a drawn argument (`split-join(65536)`), or a rule of the
/// library without one.
pub(crate) fn rule(rng: &mut Rng) -> String {
    let catalogue = crate::eqsat::rules::catalogue();
    let info = pick(rng, catalogue);
    if info.params.is_empty() {
        info.name.to_string()
    } else {
        let args: Vec<String> = info.params.iter().map(|_| split_size(rng)).collect();
        format!("{}({})", info.name, args.join(", "))
    }
}

/// A size-taking rule with a drawn argument: the splits, blocked reductions and vectors.
pub(crate) fn size_rule(rng: &mut Rng) -> String {
    let catalogue = crate::eqsat::rules::catalogue();
    let sized: Vec<_> = catalogue.iter().filter(|r| !r.params.is_empty()).collect();
    let info = pick(rng, &sized);
    let args: Vec<String> = info.params.iter().map(|_| split_size(rng)).collect();
    format!("{}({})", info.name, args.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_uniform_stays_in_range() {
        let mut rng = Rng::new(3);
        for _ in 0..1000 {
            let x = log_uniform(&mut rng, 50, 2000);
            assert!((50..=2000).contains(&x));
        }
        assert_eq!(log_uniform(&mut rng, 7, 7), 7);
    }

    #[test]
    fn rules_parse_or_are_refused_by_name() {
        let mut rng = Rng::new(1);
        for _ in 0..50 {
            let r = size_rule(&mut rng);
            assert!(r.contains('('), "{r}");
        }
    }
}
