//! The search of `risec tune`, without I/O: which choices of a sketch's parameters to measure
//! next, and which is best so far.
//!
//! It is a hill climb on the grid of candidates with random restarts of one batch: the first
//! batch is the defaults and their neighbours (each tunable parameter one candidate up or down,
//! skipping over choices that break a constraint); each later batch is the unmeasured
//! neighbours of the best choice so far, filled up with random unmeasured choices. Times from
//! different runs are made comparable through the incumbent, which every batch measures again:
//! a choice's score is its time over the incumbent's in the same run, times the incumbent's
//! score (the defaults score 1). The search stops when the best choice's neighbourhood is
//! measured and a batch brought no better choice, when every choice is measured, or when the
//! caller's budget runs out.

use rand::{RngExt, SeedableRng};
use rand_xorshift::XorShiftRng;
use risec_sketch::params::Assignment;

/// The state of a search.
pub struct Search {
    /// Every choice within the constraints and budgets.
    choices: Vec<Assignment>,
    /// Per tunable parameter, its values among the choices, ascending.
    axes: Vec<Vec<u64>>,
    /// Per choice: its score once measured (`Some(None)`: it failed).
    scores: Vec<Option<Option<f64>>>,
    /// The index of the best choice so far.
    best: usize,
    /// Whether the last batch improved the best choice.
    improved: bool,
    rng: XorShiftRng,
}

impl Search {
    /// A search over `choices`, whose first is the defaults (see
    /// [`risec_sketch::params::ParamSpace::choices`]).
    pub fn new(choices: Vec<Assignment>, seed: u64) -> Search {
        let width = choices.first().map_or(0, Vec::len);
        let axes = (0..width)
            .map(|i| {
                let mut vs: Vec<u64> = choices.iter().map(|c| c[i].1).collect();
                vs.sort_unstable();
                vs.dedup();
                vs
            })
            .collect();
        Search {
            scores: vec![None; choices.len()],
            choices,
            axes,
            best: 0,
            improved: true,
            rng: XorShiftRng::seed_from_u64(seed),
        }
    }

    /// The choice at `i`.
    pub fn choice(&self, i: usize) -> &Assignment {
        &self.choices[i]
    }

    /// How many choices there are.
    pub fn len(&self) -> usize {
        self.choices.len()
    }

    /// Whether there is no choice at all.
    pub fn is_empty(&self) -> bool {
        self.choices.is_empty()
    }

    /// How many have been measured (or failed).
    pub fn measured(&self) -> usize {
        self.scores.iter().filter(|s| s.is_some()).count()
    }

    /// Whether choice `i` has been measured (or failed).
    pub fn was_measured(&self, i: usize) -> bool {
        self.scores[i].is_some()
    }

    /// The best choice so far and its score, once one is measured.
    pub fn best(&self) -> Option<(usize, f64)> {
        self.scores[self.best].flatten().map(|s| (self.best, s))
    }

    /// The measured choices, best first: (index, score).
    pub fn ranking(&self) -> Vec<(usize, f64)> {
        let mut r: Vec<(usize, f64)> = self
            .scores
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.flatten().map(|s| (i, s)))
            .collect();
        r.sort_by(|a, b| a.1.total_cmp(&b.1));
        r
    }

    /// The choices that failed.
    pub fn failed(&self) -> Vec<usize> {
        (0..self.len())
            .filter(|&i| self.scores[i] == Some(None))
            .collect()
    }

    /// The neighbours of choice `i`: each parameter moved to the nearest value up or down that
    /// gives a choice (at most three values away), the others kept.
    pub fn neighbours(&self, i: usize) -> Vec<usize> {
        let c = &self.choices[i];
        let mut out = Vec::new();
        for (axis, values) in self.axes.iter().enumerate() {
            let at = values.iter().position(|v| *v == c[axis].1).unwrap_or(0);
            for dir in [-1i64, 1] {
                for step in 1..=3i64 {
                    let j = at as i64 + dir * step;
                    let Some(&v) = usize::try_from(j).ok().and_then(|j| values.get(j)) else {
                        break;
                    };
                    let mut n = c.clone();
                    n[axis].1 = v;
                    if let Some(k) = self.choices.iter().position(|x| *x == n) {
                        out.push(k);
                        break;
                    }
                }
            }
        }
        out
    }

    /// The next choices to measure (at most `size`; none when the search is over). The
    /// incumbent is not among them: the caller measures it beside them.
    pub fn next_batch(&mut self, size: usize) -> Vec<usize> {
        if self.measured() == 0 {
            let mut batch = vec![0];
            batch.extend(self.neighbours(0));
            batch.truncate(size.max(1));
            self.fill(&mut batch, size);
            return batch;
        }
        let mut batch: Vec<usize> = self
            .neighbours(self.best)
            .into_iter()
            .filter(|&k| self.scores[k].is_none())
            .collect();
        batch.dedup();
        batch.truncate(size);
        if batch.is_empty() && !self.improved {
            return Vec::new();
        }
        self.fill(&mut batch, size);
        batch
    }

    /// Adds random unmeasured choices to `batch` up to `size`.
    fn fill(&mut self, batch: &mut Vec<usize>, size: usize) {
        let mut open: Vec<usize> = (0..self.len())
            .filter(|k| self.scores[*k].is_none() && !batch.contains(k))
            .collect();
        while batch.len() < size && !open.is_empty() {
            let k = self.rng.random_range(0..open.len());
            batch.push(open.swap_remove(k));
        }
    }

    /// Records one run: each choice's median time (`None`: it failed) and, when it was
    /// measured in the run, the incumbent's time there. The first run's times are relative to
    /// the defaults' (choice 0), which it must include.
    pub fn record(&mut self, run: &[(usize, Option<f64>)], incumbent_ms: Option<f64>) {
        let (reference_ms, reference_score) = match (incumbent_ms, self.best()) {
            (Some(t), Some((_, s))) => (t, s),
            _ => match run.iter().find(|(k, _)| *k == 0) {
                Some((_, Some(t))) => (*t, 1.0),
                // The defaults failed: the first choice that did not is the reference.
                _ => match run.iter().find_map(|(k, t)| t.map(|t| (*k, t))) {
                    Some((_, t)) => (t, 1.0),
                    None => (1.0, f64::INFINITY),
                },
            },
        };
        let before = self.best().map(|(_, s)| s);
        for &(k, t) in run {
            self.scores[k] = Some(t.map(|t| t / reference_ms * reference_score));
        }
        if let Some((k, _)) = self.ranking().first() {
            self.best = *k;
        }
        self.improved = match (before, self.best()) {
            (Some(b), Some((_, s))) => s < b,
            _ => true,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 7 × 7 grid of choices (A, B in 1..=7) without (4, 4), defaults (1, 1) first.
    fn grid() -> Vec<Assignment> {
        let mut out = vec![vec![("A".to_string(), 1), ("B".to_string(), 1)]];
        for a in 1..=7 {
            for b in 1..=7 {
                if (a, b) != (1, 1) && (a, b) != (4, 4) {
                    out.push(vec![("A".to_string(), a), ("B".to_string(), b)]);
                }
            }
        }
        out
    }

    fn time(c: &Assignment) -> f64 {
        let (a, b) = (c[0].1 as f64, c[1].1 as f64);
        10.0 + (a - 5.0).powi(2) + (b - 6.0).powi(2)
    }

    #[test]
    fn neighbours_step_over_missing_choices() {
        let s = Search::new(grid(), 0);
        let i = s
            .choices
            .iter()
            .position(|c| c[0].1 == 3 && c[1].1 == 4)
            .unwrap();
        let ns: Vec<(u64, u64)> = s
            .neighbours(i)
            .iter()
            .map(|&k| (s.choice(k)[0].1, s.choice(k)[1].1))
            .collect();
        // (4, 4) is not a choice: A moves on to 5.
        assert_eq!(ns, [(2, 4), (5, 4), (3, 3), (3, 5)]);
    }

    #[test]
    fn the_climb_finds_the_minimum_and_stops() {
        let mut s = Search::new(grid(), 7);
        let mut runs = 0;
        loop {
            let incumbent = s.best().map(|(k, _)| k);
            let batch = s.next_batch(4);
            if batch.is_empty() {
                break;
            }
            runs += 1;
            // Each run is 1.5× slower than the last (another machine load): scores must not care.
            let slow = 1.5f64.powi(runs);
            let run: Vec<(usize, Option<f64>)> = batch
                .iter()
                .map(|&k| (k, Some(time(s.choice(k)) * slow)))
                .collect();
            s.record(&run, incumbent.map(|k| time(s.choice(k)) * slow));
            assert!(runs < 40, "the search does not stop");
        }
        let (best, score) = s.best().unwrap();
        assert_eq!((s.choice(best)[0].1, s.choice(best)[1].1), (5, 6));
        assert!((score - 10.0 / time(&grid()[0])).abs() < 1e-9, "{score}");
        assert!(s.measured() < s.len(), "it measured every choice");
    }

    #[test]
    fn failures_are_kept_apart() {
        let mut s = Search::new(grid(), 1);
        let batch = s.next_batch(3);
        let run: Vec<(usize, Option<f64>)> = batch
            .iter()
            .enumerate()
            .map(|(n, &k)| (k, (n != 1).then(|| time(s.choice(k)))))
            .collect();
        s.record(&run, None);
        assert_eq!(s.failed(), [batch[1]]);
        assert_eq!(s.ranking().len(), 2);
    }
}
