//! One pass of a set of rules over the e-graph (search every rule, apply the matches, rebuild)
//! under a search's limits, and the [`LimitWatch`] that keeps them: the time, e-node and memory
//! limits hold inside a pass (see [`crate::runner`]'s module documentation).

use crate::egraph::RiseEGraph;
use crate::limits::{Limits, StopReason};
use crate::rewrite::{Assumptions, Matches, Rule};
use crate::stats::RuleCounts;
use std::time::{Duration, Instant};

/// Applications between two polls of the resident memory.
pub const APPLICATIONS_PER_MEMORY_CHECK: usize = 256;

/// Which matches of a pass are applied: the hook of the schedulers that hold matches back
/// (back-off bans rules, sampling keeps some matches). Rule indices are those of the pass's rules.
pub trait MatchChoice {
    /// Whether rule `rule` is left out of this pass.
    fn banned(&mut self, rule: usize) -> bool;
    /// The indices (ascending) of rule `rule`'s `found` matches to apply, or `None` for all.
    fn choose(&mut self, rule: usize, found: usize) -> Option<Vec<usize>>;
}

/// What one pass (search every rule of a set, apply every match, rebuild) did.
pub struct PassOutcome {
    /// Whether some application changed the e-graph.
    pub changed: bool,
    /// The limit that interrupted the pass, if one did.
    pub stopped: Option<StopReason>,
}

/// The limits of one search and the clock they are measured on, with what the limits are
/// checked against (the last rebuild's and goal check's times and sizes). A simulation of the
/// Monte Carlo tree search runs on a clone of the e-graph with a clone of the watch (the same
/// clock and limits, its own measurements of the e-graph it grows).
#[derive(Clone)]
pub struct LimitWatch<'a> {
    start: Instant,
    limits: &'a Limits,
    /// How long the last rebuild took: a stopped pass must leave time for its own.
    last_rebuild: Duration,
    /// Rebuild time per added e-node, measured on the rebuild with the most added e-nodes so
    /// far (small rebuilds are dominated by fixed costs and would overstate it).
    rebuild_per_node: Duration,
    /// E-nodes added before that rebuild.
    largest_rebuild: usize,
    /// E-nodes in the classes after the last rebuild.
    nodes_at_rebuild: usize,
    /// Size of egg's hash-cons memo after the last rebuild: every e-node added since then
    /// grows it by one.
    memo_at_rebuild: usize,
    /// How long the last goal check took.
    last_goal: Duration,
    /// E-nodes of the e-graph it checked.
    last_goal_nodes: usize,
    /// What the goal check allocates per e-class id ([`crate::schedule::Guide::goal_bytes_per_id`]).
    goal_bytes_per_id: u64,
}

impl<'a> LimitWatch<'a> {
    /// A watch over `limits` whose clock starts now; `goal_bytes_per_id` is what the goal check
    /// allocates per e-class id ([`crate::schedule::Guide::goal_bytes_per_id`]).
    pub fn new(limits: &'a Limits, goal_bytes_per_id: u64) -> LimitWatch<'a> {
        LimitWatch {
            start: Instant::now(),
            limits,
            last_rebuild: Duration::ZERO,
            rebuild_per_node: Duration::ZERO,
            largest_rebuild: 0,
            nodes_at_rebuild: 0,
            memo_at_rebuild: 0,
            last_goal: Duration::ZERO,
            last_goal_nodes: 0,
            goal_bytes_per_id,
        }
    }

    /// The time since the watch started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The limits it keeps.
    pub fn limits(&self) -> &Limits {
        self.limits
    }

    /// Whether the time is up, leaving room for the rebuild that must follow and the goal
    /// check after it.
    pub(crate) fn out_of_time(&self, egraph: &RiseEGraph) -> bool {
        self.start.elapsed() + self.rebuild_estimate(egraph) + self.goal_estimate(egraph)
            >= self.limits.time
    }

    /// How long the goal check after the next rebuild would take: the last check's time,
    /// grown with the square of the e-graph's growth since (a sketch check visits every e-node
    /// once per sketch node, and its fixpoints take more rounds on larger e-graphs).
    fn goal_estimate(&self, egraph: &RiseEGraph) -> Duration {
        let growth = self.nodes(egraph) as f64 / self.last_goal_nodes.max(1) as f64;
        self.last_goal.mul_f64(growth.max(1.0).powi(2))
    }

    /// Checks the goal on `egraph`, measuring how long the check takes.
    pub(crate) fn check_goal(
        &mut self,
        egraph: &RiseEGraph,
        goal: &mut dyn FnMut(&RiseEGraph) -> bool,
    ) -> bool {
        let began = Instant::now();
        let reached = goal(egraph);
        self.last_goal = began.elapsed();
        self.last_goal_nodes = egraph.total_number_of_nodes();
        reached
    }

    /// How long rebuilding now would take: rebuild time grows with the e-nodes added since the
    /// last rebuild, at the rate measured on the largest rebuild so far, with half as much again
    /// for safety (and at least as long as the last rebuild).
    fn rebuild_estimate(&self, egraph: &RiseEGraph) -> Duration {
        let added = egraph.total_size().saturating_sub(self.memo_at_rebuild) as u32;
        (self.rebuild_per_node * added * 3 / 2).max(self.last_rebuild)
    }

    /// An upper bound on the e-nodes the classes will hold after the next rebuild, which only
    /// removes duplicates: the count after the last rebuild plus every node added since. (The
    /// memo alone overstates it by up to 2x on large e-graphs: it keeps entries of nodes that
    /// rebuilding made identical to others.)
    pub(crate) fn nodes(&self, egraph: &RiseEGraph) -> usize {
        self.nodes_at_rebuild + egraph.total_size().saturating_sub(self.memo_at_rebuild)
    }

    fn over_nodes(&self, egraph: &RiseEGraph) -> bool {
        self.nodes(egraph) >= self.limits.nodes
    }

    /// Rebuilds the e-graph and takes the measurements the limits are checked against.
    pub(crate) fn rebuild(&mut self, egraph: &mut RiseEGraph) {
        let added = egraph.total_size().saturating_sub(self.memo_at_rebuild);
        let rebuilding = Instant::now();
        egraph.rebuild();
        self.last_rebuild = rebuilding.elapsed();
        if added >= self.largest_rebuild.max(1000) {
            self.largest_rebuild = added;
            self.rebuild_per_node = self.last_rebuild / added as u32;
        }

        self.nodes_at_rebuild = egraph.total_number_of_nodes();
        self.memo_at_rebuild = egraph.total_size();
    }

    /// Whether the resident memory, plus what egg's hash tables are about to allocate when
    /// they next grow ([`crate::egraph::imminent_growth`]), reaches the memory limit.
    fn over_memory(&self, egraph: &RiseEGraph) -> bool {
        let growth = crate::egraph::imminent_growth(egraph) as u64;
        let extra = growth.saturating_add(self.goal_bytes(egraph));
        crate::support::memory::would_exceed(self.limits.memory, extra).is_some()
    }

    /// What the goal check would allocate on `egraph`: its tables have an entry per e-class id
    /// ever handed out (a step with a 2 GiB limit under a 3 GB address space aborted in the
    /// sketch check of an e-graph of 2.7 million e-nodes).
    fn goal_bytes(&self, egraph: &RiseEGraph) -> u64 {
        self.goal_bytes_per_id
            .saturating_mul(egraph.nodes().len() as u64)
    }

    /// Whether the goal check would take the process past the memory limit.
    pub(crate) fn goal_over_memory(&self, egraph: &RiseEGraph) -> bool {
        self.goal_bytes_per_id > 0
            && crate::support::memory::would_exceed(self.limits.memory, self.goal_bytes(egraph))
                .is_some()
    }

    /// The first limit that is reached, if any.
    pub(crate) fn exceeded(&self, egraph: &RiseEGraph) -> Option<StopReason> {
        if self.over_nodes(egraph) {
            Some(StopReason::NodeLimit)
        } else if self.out_of_time(egraph) {
            Some(StopReason::TimeLimit)
        } else if self.over_memory(egraph) {
            Some(StopReason::MemoryLimit)
        } else {
            None
        }
    }

    /// The reduction passes that follow a pass of all rules (see the module documentation),
    /// as long as the previous pass changed something and no limit stopped it; returns the
    /// last pass's outcome.
    pub(crate) fn catch_up(
        &mut self,
        egraph: &mut RiseEGraph,
        reductions: &[&Rule],
        mut outcome: PassOutcome,
        assumptions: &mut Assumptions,
        applied: &mut RuleCounts,
    ) -> PassOutcome {
        for _ in 0..self.limits.reduction_passes {
            if outcome.stopped.is_some() || !outcome.changed || reductions.is_empty() {
                break;
            }
            outcome = self.pass(egraph, reductions, None, assumptions, applied);
        }
        outcome
    }

    /// Searches every rule of `rules`, applies the matches (those the scheduler chooses, when
    /// one is given: rule `i` of `rules` is the choice's rule `i`; the reduction rules are never held back), and rebuilds, stopping as
    /// soon as a limit is reached. Rewrites that changed the e-graph are added to `applied`.
    pub(crate) fn pass(
        &mut self,
        egraph: &mut RiseEGraph,
        rules: &[&Rule],
        mut choice: Option<&mut dyn MatchChoice>,
        assumptions: &mut Assumptions,
        applied: &mut RuleCounts,
    ) -> PassOutcome {
        let mut stopped = None;
        let mut all_matches = Vec::with_capacity(rules.len());
        for (r, rule) in rules.iter().enumerate() {
            let mut scheduled = choice.as_deref_mut().filter(|_| !rule.is_reduction());
            if scheduled.as_mut().is_some_and(|s| s.banned(r)) {
                all_matches.push(Matches::default());
                continue;
            }
            let mut checks = 0usize;
            let mut interrupted = None;
            let found = rule.search_compact(egraph, self.limits.matches_per_rule, &mut || {
                checks += 1;
                interrupted = if self.out_of_time(egraph) {
                    Some(StopReason::TimeLimit)
                } else if checks % 16 == 0 && self.over_memory(egraph) {
                    Some(StopReason::MemoryLimit)
                } else {
                    None
                };
                interrupted.is_some()
            });
            match found {
                Some(ms) => all_matches.push(match scheduled.and_then(|s| s.choose(r, ms.len())) {
                    Some(chosen) => ms.select(&chosen),
                    None => ms,
                }),
                None => {
                    stopped = interrupted;
                    break;
                }
            }
            if self.over_memory(egraph) {
                stopped = Some(StopReason::MemoryLimit);
                break;
            }
        }
        let mut changed = false;
        if stopped.is_none() {
            // Each rule's matches are freed once applied: the e-graph grows while the later
            // rules apply, and the peak is at the end of the pass.
            'rules: for (rule, ms) in rules.iter().zip(std::mem::take(&mut all_matches)) {
                let mut count = 0;
                for k in 0..ms.len() {
                    if let Ok(true) = rule.apply(egraph, &ms.get(k), assumptions) {
                        count += 1;
                    }
                    stopped = if self.over_nodes(egraph) {
                        Some(StopReason::NodeLimit)
                    } else if self.out_of_time(egraph) {
                        Some(StopReason::TimeLimit)
                    } else if k % APPLICATIONS_PER_MEMORY_CHECK == APPLICATIONS_PER_MEMORY_CHECK - 1
                        && self.over_memory(egraph)
                    {
                        Some(StopReason::MemoryLimit)
                    } else {
                        None
                    };
                    if stopped.is_some() {
                        applied.add(&rule.name, count);
                        changed |= count > 0;
                        break 'rules;
                    }
                }
                applied.add(&rule.name, count);
                changed |= count > 0;
                if self.over_memory(egraph) {
                    stopped = Some(StopReason::MemoryLimit);
                    break;
                }
            }
        }
        drop(all_matches);
        self.rebuild(egraph);
        PassOutcome { changed, stopped }
    }
}
