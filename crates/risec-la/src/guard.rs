//! Limits that hold inside one iteration of a saturation, and inside extraction.
//!
//! egg's runner checks its time and e-node limits between rules, and knows no memory limit.
//! One rule's search on a large e-graph can take seconds and collect millions of matches
//! (the associativity rules on a class of products: 1.7 million matches, 100 MiB, in 0.2 s),
//! and one rule's application can add far more e-nodes than the limit allows, so a run with
//! `--time 3s` took 4.8 s and one with a 3 GB address space aborted. A [`Guard`] is shared by
//! every rule's searcher and applier ([`guard_rules`]) and by the scheduler
//! ([`GuardedScheduler`]): searches read the clock every [`UNITS_PER_CLOCK`] e-classes or
//! matches and the resident memory every [`CLOCKS_PER_MEMORY`] clock readings, take no more
//! matches than the memory left can hold, and applications stop at the e-node limit. Once a
//! limit is reached, every search and application returns at once and the runner stops with
//! that limit as its reason.

use super::lang::{LaAnalysis, LaEGraph, Math};
use egg::{
    Applier, ENodeOrVar, Id, Language, PatternAst, Rewrite, RewriteScheduler, RunnerLimits,
    RunnerResult, SearchMatches, Searcher, StopReason, Subst, Symbol, Var,
};
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Units of work (e-classes searched, matches found or applied, extraction steps) between
/// two readings of the clock.
pub const UNITS_PER_CLOCK: usize = 256;

/// Clock readings between two readings of the resident memory (a `/proc` read: tens of
/// microseconds, against nanoseconds for the clock).
pub const CLOCKS_PER_MEMORY: usize = 16;

/// Matches applied between two checks of the e-node limit and the clock.
const APPLY_CHUNK: usize = 256;

/// What one match held in a search result takes, in bytes, at most (a `Subst` of up to six
/// variables and its share of the vector): bounds the matches a search may collect by the
/// memory left.
const BYTES_PER_MATCH: u64 = 128;

/// The limit that stopped a saturation or an extraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The deadline passed.
    Time,
    /// The resident memory reached the limit (`used` bytes when it was read).
    Memory {
        /// The resident memory when it was read, in bytes.
        used: u64,
    },
    /// The e-graph reached its e-node limit.
    Nodes,
}

const RUNNING: u8 = 0;
const TIME: u8 = 1;
const MEMORY: u8 = 2;
const NODES: u8 = 3;

/// A deadline, a memory limit and an e-node limit, shared by the searchers, appliers and
/// scheduler of one saturation (or by one extraction). Once one of them is reached it stays
/// reached: [`stopped`](Guard::stopped) says which.
#[derive(Debug)]
pub struct Guard {
    started: Instant,
    /// The deadline, as nanoseconds after `started`.
    deadline: AtomicU64,
    memory: u64,
    nodes: usize,
    state: AtomicU8,
    /// The resident memory read when the memory limit was reached, or at the last reading.
    used: AtomicU64,
    units: AtomicUsize,
    clocks: AtomicUsize,
    /// Merges made since the iteration began (each one work for the rebuild that ends it).
    merges: AtomicUsize,
    /// E-nodes in the e-graph when last read.
    enodes: AtomicUsize,
    /// The rebuild's time, in picoseconds, per e-node and per merge ([`RebuildCost`]).
    rebuild_per_node: AtomicU64,
    rebuild_per_merge: AtomicU64,
}

/// The fewest e-nodes, and merges, of an iteration whose rebuild says what an e-node, and a
/// merge, costs (smaller rebuilds take a millisecond or less, which a busy machine's
/// scheduling can double).
const MEASURED_NODES: usize = 50_000;
const MEASURED_MERGES: usize = 10_000;

/// What the rebuild that ends an iteration costs, as measured on the iterations so far: a pass
/// over every e-class (time per e-node: the cheapest rebuild per e-node so far) and the repair
/// of each merge (per merge: the rest of the costliest rebuild with many merges).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RebuildCost {
    /// Seconds per e-node.
    pub per_node: f64,
    /// Seconds per merge.
    pub per_merge: f64,
}

impl RebuildCost {
    /// The estimate from `(e-nodes, merges, rebuild seconds)` of each iteration so far.
    pub fn estimate(iterations: impl Iterator<Item = (usize, usize, f64)> + Clone) -> RebuildCost {
        let per_node = iterations
            .clone()
            .filter(|(nodes, _, _)| *nodes >= MEASURED_NODES)
            .map(|(nodes, _, t)| t / nodes as f64)
            .fold(f64::INFINITY, f64::min);
        let per_node = if per_node.is_finite() { per_node } else { 0.0 };
        let per_merge = iterations
            .filter(|(_, merges, _)| *merges >= MEASURED_MERGES)
            .map(|(nodes, merges, t)| (t - per_node * nodes as f64).max(0.0) / merges as f64)
            .fold(0.0, f64::max);
        RebuildCost {
            per_node,
            per_merge,
        }
    }
}

fn picos(seconds: f64) -> u64 {
    (seconds * 1e12).min(u64::MAX as f64) as u64
}

impl Guard {
    /// A guard with `time` from now, `memory` bytes of resident memory and `nodes` e-nodes.
    pub fn new(time: Duration, memory: u64, nodes: usize) -> Arc<Guard> {
        let guard = Guard {
            started: Instant::now(),
            deadline: AtomicU64::new(nanos(time)),
            memory,
            nodes,
            state: AtomicU8::new(RUNNING),
            used: AtomicU64::new(0),
            units: AtomicUsize::new(0),
            clocks: AtomicUsize::new(0),
            merges: AtomicUsize::new(0),
            enodes: AtomicUsize::new(0),
            rebuild_per_node: AtomicU64::new(0),
            rebuild_per_merge: AtomicU64::new(0),
        };
        guard.read_memory();
        Arc::new(guard)
    }

    /// The limit reached, if one was.
    pub fn stopped(&self) -> Option<Limit> {
        match self.state.load(Ordering::Relaxed) {
            TIME => Some(Limit::Time),
            MEMORY => Some(Limit::Memory {
                used: self.used.load(Ordering::Relaxed),
            }),
            NODES => Some(Limit::Nodes),
            _ => None,
        }
    }

    /// Begins an iteration on an e-graph of `enodes` e-nodes: the rebuild that ends it cannot
    /// be interrupted and costs about `cost`, so the searches and applications stop early
    /// enough to leave 1.5 times that (the rebuild of an iteration that merged a million
    /// classes took 1.4 s).
    pub fn begin_iteration(&self, enodes: usize, cost: RebuildCost) {
        self.merges.store(0, Ordering::Relaxed);
        self.enodes.store(enodes, Ordering::Relaxed);
        self.rebuild_per_node
            .store(picos(cost.per_node), Ordering::Relaxed);
        self.rebuild_per_merge
            .store(picos(cost.per_merge), Ordering::Relaxed);
    }

    /// Whether the deadline has passed, less 1.5 times the time the rebuild needs.
    fn late(&self) -> bool {
        let load = |a: &AtomicUsize| a.load(Ordering::Relaxed) as u64;
        let picos = load(&self.enodes)
            .saturating_mul(self.rebuild_per_node.load(Ordering::Relaxed))
            .saturating_add(
                load(&self.merges).saturating_mul(self.rebuild_per_merge.load(Ordering::Relaxed)),
            );
        let reserve = (picos / 1000).saturating_mul(3) / 2;
        let deadline = self
            .deadline
            .load(Ordering::Relaxed)
            .saturating_sub(reserve);
        nanos(self.started.elapsed()) >= deadline
    }

    fn stop(&self, code: u8) {
        // The first limit reached is the one reported.
        let _ = self
            .state
            .compare_exchange(RUNNING, code, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Reads the resident memory now; stops at the memory limit when it is reached.
    fn read_memory(&self) -> bool {
        match crate::support::memory::would_exceed(self.memory, 0) {
            Some(used) => {
                self.used.store(used, Ordering::Relaxed);
                self.stop(MEMORY);
                true
            }
            None => {
                let used = crate::support::memory::resident_memory().unwrap_or(0);
                self.used.store(used, Ordering::Relaxed);
                false
            }
        }
    }

    /// Reads the clock (and the memory) now; whether a limit is reached.
    pub fn check(&self) -> bool {
        if self.stopped().is_some() {
            return true;
        }
        if self.late() {
            self.stop(TIME);
            return true;
        }
        self.read_memory()
    }

    /// Counts `units` of work: reads the clock every [`UNITS_PER_CLOCK`] units and the memory
    /// every [`CLOCKS_PER_MEMORY`] clock readings. Whether a limit is reached.
    pub fn tick(&self, units: usize) -> bool {
        if self.stopped().is_some() {
            return true;
        }
        let before = self.units.fetch_add(units, Ordering::Relaxed);
        if before + units < UNITS_PER_CLOCK {
            return false;
        }
        self.units.store(0, Ordering::Relaxed);
        if self.late() {
            self.stop(TIME);
            return true;
        }
        // Large amounts of work read the memory at once.
        let clocks = self
            .clocks
            .fetch_add(1 + units / UNITS_PER_CLOCK, Ordering::Relaxed);
        if clocks + 1 < CLOCKS_PER_MEMORY {
            return false;
        }
        self.clocks.store(0, Ordering::Relaxed);
        self.read_memory()
    }

    /// The most matches a search may still collect: what the memory left at the last reading
    /// holds.
    fn matches_left(&self) -> usize {
        let left = self
            .memory
            .saturating_sub(self.used.load(Ordering::Relaxed));
        usize::try_from(left / BYTES_PER_MATCH).unwrap_or(usize::MAX)
    }

    /// A guard for a part of the work that must leave room to the rest: half the time left and
    /// half the e-node limit, the same memory limit.
    pub fn half(&self) -> Arc<Guard> {
        Guard::new(self.remaining() / 2, self.memory, self.nodes / 2)
    }

    /// When the guard was made (its time counts from then).
    pub fn started(&self) -> Instant {
        self.started
    }

    /// The time left before the deadline.
    pub fn remaining(&self) -> Duration {
        Duration::from_nanos(
            self.deadline
                .load(Ordering::Relaxed)
                .saturating_sub(nanos(self.started.elapsed())),
        )
    }

    /// Whether `egraph` has reached the e-node limit (then the guard stops).
    pub fn full(&self, egraph: &LaEGraph) -> bool {
        let size = egraph.total_size();
        self.enodes.store(size, Ordering::Relaxed);
        if size >= self.nodes {
            self.stop(NODES);
            return true;
        }
        false
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// The rules with their searches and applications under `guard`.
pub fn guard_rules(
    rules: Vec<Rewrite<Math, LaAnalysis>>,
    guard: &Arc<Guard>,
) -> Vec<Rewrite<Math, LaAnalysis>> {
    rules
        .into_iter()
        .map(|rule| {
            let searcher = GuardedSearcher {
                inner: rule.searcher,
                guard: guard.clone(),
            };
            let applier = GuardedApplier {
                inner: rule.applier,
                guard: guard.clone(),
            };
            Rewrite::new(rule.name, searcher, applier).expect("the rule's own variables")
        })
        .collect()
}

type DynSearcher = Arc<dyn Searcher<Math, LaAnalysis> + Sync + Send>;
type DynApplier = Arc<dyn Applier<Math, LaAnalysis> + Sync + Send>;

/// A rule's left-hand side, searched e-class by e-class under a [`Guard`].
struct GuardedSearcher {
    inner: DynSearcher,
    guard: Arc<Guard>,
}

impl Searcher<Math, LaAnalysis> for GuardedSearcher {
    fn search_eclass_with_limit(
        &self,
        egraph: &LaEGraph,
        eclass: Id,
        limit: usize,
    ) -> Option<SearchMatches<'_, Math>> {
        self.inner.search_eclass_with_limit(egraph, eclass, limit)
    }

    fn search_with_limit(&self, egraph: &LaEGraph, limit: usize) -> Vec<SearchMatches<'_, Math>> {
        // Only the classes that hold the pattern's root operator, as egg's own search does.
        let classes: Vec<Id> = match self.inner.get_pattern_ast().and_then(|ast| ast.last()) {
            Some(ENodeOrVar::ENode(node)) => match egraph.classes_for_op(&node.discriminant()) {
                Some(ids) => ids.collect(),
                None => return Vec::new(),
            },
            _ => egraph.classes().map(|c| c.id).collect(),
        };
        let mut out = Vec::new();
        let mut left = limit;
        for id in classes {
            if left == 0 || self.guard.tick(1) {
                break;
            }
            // One class's matches stop where the memory left is full.
            let mut room = self.guard.matches_left();
            if room == 0 && !self.guard.check() {
                // The estimate is spent: the memory as read now.
                room = self.guard.matches_left();
            }
            if room == 0 {
                self.guard.stop(MEMORY);
                break;
            }
            if let Some(m) = self
                .inner
                .search_eclass_with_limit(egraph, id, left.min(room))
            {
                let found = m.substs.len();
                left -= found;
                out.push(m);
                // Until the next reading, count what the matches hold as used.
                self.guard.used.fetch_add(
                    (found as u64).saturating_mul(BYTES_PER_MATCH),
                    Ordering::Relaxed,
                );
                if found == room && !self.guard.check() {
                    // The class may have more matches than the memory left holds: a search
                    // that left some out is not complete, so the run stops here rather than
                    // take the cut for saturation.
                    self.guard.stop(MEMORY);
                    break;
                }
                if self.guard.tick(found) {
                    break;
                }
            }
        }
        if self.guard.stopped().is_some() {
            // Nothing more is applied: the memory goes back at once.
            out.clear();
        }
        out
    }

    fn get_pattern_ast(&self) -> Option<&PatternAst<Math>> {
        self.inner.get_pattern_ast()
    }

    fn vars(&self) -> Vec<Var> {
        self.inner.vars()
    }
}

/// A rule's right-hand side, applied a few hundred matches at a time under a [`Guard`].
struct GuardedApplier {
    inner: DynApplier,
    guard: Arc<Guard>,
}

impl Applier<Math, LaAnalysis> for GuardedApplier {
    fn apply_matches(
        &self,
        egraph: &mut LaEGraph,
        matches: &[SearchMatches<Math>],
        rule_name: Symbol,
    ) -> Vec<Id> {
        let mut added = Vec::new();
        for m in matches {
            if m.substs.len() <= APPLY_CHUNK {
                if self.guard.stopped().is_some() || self.guard.full(egraph) {
                    break;
                }
                let ids = self
                    .inner
                    .apply_matches(egraph, std::slice::from_ref(m), rule_name);
                self.guard.merges.fetch_add(ids.len(), Ordering::Relaxed);
                added.extend(ids);
                self.guard.tick(m.substs.len());
                continue;
            }
            for chunk in m.substs.chunks(APPLY_CHUNK) {
                if self.guard.stopped().is_some() || self.guard.full(egraph) {
                    return added;
                }
                let part = SearchMatches {
                    eclass: m.eclass,
                    substs: chunk.to_vec(),
                    ast: m.ast.clone(),
                };
                let ids = self
                    .inner
                    .apply_matches(egraph, std::slice::from_ref(&part), rule_name);
                self.guard.merges.fetch_add(ids.len(), Ordering::Relaxed);
                added.extend(ids);
                self.guard.tick(chunk.len());
            }
        }
        added
    }

    fn apply_one(
        &self,
        egraph: &mut LaEGraph,
        eclass: Id,
        subst: &Subst,
        searcher_ast: Option<&PatternAst<Math>>,
        rule_name: Symbol,
    ) -> Vec<Id> {
        self.inner
            .apply_one(egraph, eclass, subst, searcher_ast, rule_name)
    }

    fn get_pattern_ast(&self) -> Option<&PatternAst<Math>> {
        self.inner.get_pattern_ast()
    }

    fn vars(&self) -> Vec<Var> {
        self.inner.vars()
    }
}

/// A rule scheduler of the linear-algebra e-graph.
pub type LaScheduler = dyn RewriteScheduler<Math, LaAnalysis>;

/// A scheduler that ends the iteration, and the run, as soon as the [`Guard`] stops.
pub struct GuardedScheduler {
    /// The scheduler that chooses the matches.
    pub inner: Box<LaScheduler>,
    /// The limits.
    pub guard: Arc<Guard>,
}

/// The stop reason egg records when the guard stopped a run (read back by [`Guard::stopped`]).
pub const GUARD_STOP: &str = "guard";

impl RewriteScheduler<Math, LaAnalysis> for GuardedScheduler {
    fn can_stop(&mut self, iteration: usize) -> bool {
        // An iteration cut short by a limit changed little because it was cut short.
        self.guard.stopped().is_none() && self.inner.can_stop(iteration)
    }

    fn search_rewrite<'a>(
        &mut self,
        iteration: usize,
        egraph: &LaEGraph,
        rewrite: &'a Rewrite<Math, LaAnalysis>,
    ) -> Vec<SearchMatches<'a, Math>> {
        self.inner.search_rewrite(iteration, egraph, rewrite)
    }

    fn search_rewrites<'a>(
        &mut self,
        iteration: usize,
        egraph: &LaEGraph,
        rewrites: &[&'a Rewrite<Math, LaAnalysis>],
        limits: &RunnerLimits,
    ) -> RunnerResult<Vec<Vec<SearchMatches<'a, Math>>>> {
        let mut matches = Vec::with_capacity(rewrites.len());
        for rw in rewrites {
            matches.push(self.inner.search_rewrite(iteration, egraph, rw));
            if self.guard.stopped().is_some() {
                return Err(StopReason::Other(GUARD_STOP.into()));
            }
            limits.check_limits(iteration, egraph)?;
        }
        Ok(matches)
    }

    fn apply_rewrite(
        &mut self,
        iteration: usize,
        egraph: &mut LaEGraph,
        rewrite: &Rewrite<Math, LaAnalysis>,
        matches: Vec<SearchMatches<Math>>,
    ) -> usize {
        if self.guard.stopped().is_some() {
            return 0;
        }
        self.inner
            .apply_rewrite(iteration, egraph, rewrite, matches)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spent_guard_stops_at_the_first_check() {
        let g = Guard::new(Duration::ZERO, u64::MAX, usize::MAX);
        assert!(g.check());
        assert_eq!(g.stopped(), Some(Limit::Time));
    }

    #[test]
    fn ticks_read_the_clock_within_a_few_hundred_units() {
        let g = Guard::new(Duration::ZERO, u64::MAX, usize::MAX);
        let stopped = (0..UNITS_PER_CLOCK).position(|_| g.tick(1));
        assert!(stopped.is_some());
    }

    #[test]
    fn the_rebuild_cost_separates_the_pass_over_the_classes_from_the_merges() {
        // 0.1 µs per e-node and 1 µs per merge.
        let runs = [
            (100_000, 0, 0.01),
            (100_000, 10_000, 0.02),
            (200_000, 100, 0.0201),
            // Too small to say anything.
            (1_000, 0, 0.01),
        ];
        let cost = RebuildCost::estimate(runs.iter().copied());
        assert!((cost.per_node - 1e-7).abs() < 1e-9, "{cost:?}");
        assert!((cost.per_merge - 1e-6).abs() < 1e-8, "{cost:?}");
        // Few merges say nothing of the time per merge.
        let cost = RebuildCost::estimate([(100_000, 10, 0.5)].into_iter());
        assert_eq!(cost.per_merge, 0.0);
    }

    #[test]
    fn the_deadline_leaves_room_for_the_rebuild() {
        let g = Guard::new(Duration::from_secs(3600), u64::MAX, usize::MAX);
        assert!(!g.check());
        // A rebuild of a million e-nodes at 10 ms each: 10,000 s, past the hour.
        g.begin_iteration(
            1_000_000,
            RebuildCost {
                per_node: 1e-2,
                per_merge: 0.0,
            },
        );
        assert!(g.check());
        assert_eq!(g.stopped(), Some(Limit::Time));
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn the_memory_limit_is_read_when_the_guard_is_made() {
        let g = Guard::new(Duration::MAX, 1, usize::MAX);
        assert!(matches!(g.stopped(), Some(Limit::Memory { .. })));
        // The first limit reached is the one reported.
        g.stop(TIME);
        assert!(matches!(g.stopped(), Some(Limit::Memory { .. })));
    }
}
