//! The look-ahead of a failed step's diagnosis ([`super::diagnose`]): which library rules, added
//! to the step, would get its sketch further. Bounded in time ([`LOOK_AHEAD_TIME`] in all) and
//! size: a baseline (the failed step's own e-graph when it is small, else a small search from the
//! step's start), then, on a copy of it, the candidate rule's matches applied and a few more
//! iterations with every rule; a candidate counts when the sketch is then satisfied, or matched
//! further than both the baseline and the failed step did (see [`super::closest`]). When no single
//! rule satisfies the sketch, pairs of the best are tried.

use super::closest::Closest;
use super::cost::CostModel;
use super::extract::SketchTable;
use super::Sketch;
use crate::eqsat::egraph::RiseEGraph;
use crate::eqsat::limits::Limits;
use crate::eqsat::rewrite::{Assumptions, Rule, Skip};
use crate::eqsat::runner;
use crate::ir::nat::Nat;
use egg::Id;
use std::time::{Duration, Instant};

/// The time all searches of the look-ahead may take together.
pub const LOOK_AHEAD_TIME: Duration = Duration::from_millis(2000);

/// Below this much time left in the run's budget, the look-ahead is not run.
const MIN_LOOK_AHEAD_TIME: Duration = Duration::from_millis(100);
/// The most e-nodes of the baseline search, and the most a candidate search adds to them
/// (small, so that the candidates' iterations are quick).
const LOOK_AHEAD_NODES: usize = 6_000;
/// The failed step's e-graph is the look-ahead's baseline when it has at most this many
/// e-nodes (else a search from the step's start, of [`LOOK_AHEAD_NODES`], is).
pub(super) const OWN_BASELINE_NODES: usize = 30_000;
/// The most iterations of the baseline search (from the step's start).
const BASELINE_ITERATIONS: usize = 30;
/// The most iterations of a candidate search (from the baseline's e-graph).
const LOOK_AHEAD_ITERATIONS: usize = 4;
/// The most time of the baseline search.
const LOOK_AHEAD_RUN: Duration = Duration::from_millis(500);
/// The most time of one candidate search.
const CANDIDATE_RUN: Duration = Duration::from_millis(100);
/// Sizes tried for the size parameters of library rules.
pub(super) const MAX_SIZES: usize = 3;
/// Improving rules combined in pairs when no single rule satisfies the sketch.
const PAIRED: usize = 3;
/// A change to the step's rules that the look-ahead found to help.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// Library rules to add, spelled as in a step's `rules` list (`split-join-1m(4)`).
    pub rules: Vec<String>,
    /// Whether a search with them satisfied the whole sketch.
    pub satisfies: bool,
    /// How many of the sketch's nodes the search with them matched in order (see
    /// [`super::closest`]), and how many it has.
    pub matched: (u32, u32),
}

/// What the look-ahead did.
#[derive(Clone, Debug, Default)]
pub struct LookAhead {
    /// Candidate rule sets searched with.
    pub tried: usize,
    /// Candidate rules (library rules not in the step that match in its e-graph).
    pub candidates: usize,
    /// Whether it stopped at [`LOOK_AHEAD_TIME`] before trying every candidate.
    pub cut: bool,
    /// How long it took.
    pub time: Duration,
}

/// What the look-ahead searches from.
pub(super) struct Search<'a> {
    /// The step's sketch.
    pub(super) sketch: &'a Sketch,
    /// The size facts the step could rely on.
    pub(super) facts: &'a [Nat],
    /// The class of the start term (the same in every copy of the baseline's e-graph).
    pub(super) root: Id,
    /// Sizes to try for the size parameters of library rules.
    pub(super) sizes: &'a [u64],
    /// The primitive the sketch node with no match asks for, if any.
    pub(super) wanted: Option<&'static str>,
    /// How much of the sketch the failed step's e-graph matched (see [`Closest::score`]).
    pub(super) failed: (u32, u32),
    /// The time it may take: [`LOOK_AHEAD_TIME`], or what is left of the run's budget.
    pub(super) time: Duration,
}

/// The outcome of one small search.
struct Small {
    score: (u32, u32),
    max: u32,
    satisfied: bool,
    egraph: RiseEGraph,
}

impl Search<'_> {
    /// Grows `eg` with `rules` within `limits`, then scores the sketch at the start's class.
    fn grow(&self, mut eg: RiseEGraph, rules: &[Rule], limits: Limits) -> Small {
        let limits = Limits {
            // Bounded by the e-nodes; the failed step's e-graph may still be counted in the
            // process's memory.
            memory: u64::MAX,
            ..limits
        };
        let mut assumptions = Assumptions {
            facts: self.facts.to_vec(),
            allow_new: true,
            assumed: Vec::new(),
        };
        let (sketch, root) = (self.sketch, self.root);
        let mut goal = |g: &RiseEGraph| {
            SketchTable::new(g, sketch, CostModel::AstSize)
                .cost_at(root)
                .is_some()
        };
        runner::run(
            &mut eg,
            rules,
            &limits,
            &mut assumptions,
            &mut goal,
            &mut |_| {},
        );
        let closest = Closest::new(&eg, sketch);
        let (score, max, satisfied) = (
            closest.score(root),
            closest.max_score().0,
            closest.satisfied(root),
        );
        drop(closest);
        Small {
            score,
            max,
            satisfied,
            egraph: eg,
        }
    }
}

/// Limits of one look-ahead search: at most `time`, `nodes` e-nodes and `iterations`.
fn limits(time: Duration, nodes: usize, iterations: usize) -> Limits {
    Limits {
        time,
        nodes,
        iterations,
        ..Limits::default()
    }
}

/// A rule's name without its size arguments: `split-join` for `split-join(32)`.
fn base_name(name: &str) -> &str {
    name.split('(').next().unwrap_or(name)
}

/// How often the word `word` occurs in `text` (names may contain dashes).
fn occurrences(text: &str, word: &str) -> usize {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| *w == word)
        .count()
}

/// The library rules the step does not use, with the size parameters set to `sizes`, spelled
/// as a step lists them; most likely first: other sizes of a rule the step uses, then rules
/// of the same family (`split-join-1m` beside `split-join`), then rules whose right-hand side
/// has the `wanted` primitive at least as often as their left-hand side, then the rest.
pub(super) fn candidate_specs(used: &[Rule], sizes: &[u64], wanted: Option<&str>) -> Vec<String> {
    let mut out: Vec<(u8, String)> = Vec::new();
    for info in crate::eqsat::rules::catalogue() {
        if matches!(info.name, "beta" | "beta-nat" | "eta") {
            continue;
        }
        let specs: Vec<String> = if info.params.is_empty() {
            vec![info.name.to_string()]
        } else {
            sizes
                .iter()
                .map(|s| {
                    let args = vec![s.to_string(); info.params.len()].join(",");
                    format!("{}({args})", info.name)
                })
                .collect()
        };
        let rank = if used.iter().any(|r| base_name(&r.name) == info.name) {
            0
        } else if used.iter().any(|r| {
            let b = base_name(&r.name);
            info.name.starts_with(b) || b.starts_with(info.name)
        }) {
            1
        } else if wanted.is_some_and(|w| {
            let (lhs, rhs) = info.shape.split_once("=>>").unwrap_or((info.shape, ""));
            let (l, r) = (occurrences(lhs, w), occurrences(rhs, w));
            r > 0 && r >= l
        }) {
            2
        } else {
            3
        };
        out.extend(
            specs
                .into_iter()
                .filter(|spec| !used.iter().any(|r| &r.name == spec))
                .map(|spec| (rank, spec)),
        );
    }
    // Stable: catalogue order within a rank.
    out.sort_by_key(|(rank, _)| *rank);
    out.into_iter().map(|(_, s)| s).collect()
}

/// Why a rule never fired, found on a copy of a small search's e-graph: it has no match, or
/// every match was refused (the most common reason).
fn why_never_fired(
    rule: &Rule,
    egraph: &RiseEGraph,
    facts: &[Nat],
    deadline: Instant,
) -> &'static str {
    let Some(matches) = rule.search_until(egraph, 64, &mut || Instant::now() >= deadline) else {
        return "not known: the look-ahead's time ran out while searching for its matches";
    };
    if matches.is_empty() {
        return "no match";
    }
    let mut scratch = egraph.clone();
    let mut assumptions = Assumptions {
        facts: facts.to_vec(),
        allow_new: true,
        assumed: Vec::new(),
    };
    let mut tally = [0usize; 6];
    for m in &matches {
        let k = match rule.apply(&mut scratch, m, &mut assumptions) {
            Ok(_) => 0,
            Err(Skip::Divisibility) => 1,
            Err(Skip::IllTyped) => 2,
            Err(Skip::Condition) => 3,
            Err(Skip::FreeVariable) => 4,
            Err(Skip::SizeTooLarge) => 5,
        };
        tally[k] += 1;
    }
    let most = (0..tally.len()).max_by_key(|&k| tally[k]).unwrap_or(0);
    match most {
        0 => "it matches, but only after more of the search than was run",
        1 => "it matches, but each match needs a size that is not a whole number (a split that does not divide the length)",
        2 => "it matches, but the result would not be well typed",
        3 => "it matches, but its side condition refuses every match",
        4 => "it matches, but would move a variable out of its binder",
        _ => "it matches, but each match needs a size divided by more than 2^64 (too large to be a whole number but 0)",
    }
}

/// Runs the look-ahead from `start`: the failed step's e-graph when `grown`, else a start term, grown into a baseline by a small search with the step's rules. On a
/// copy of the baseline's e-graph, a few more iterations with each candidate rule added, then
/// with pairs of the best; and why the step's never-fired rules did not fire. Within
/// [`LOOK_AHEAD_TIME`].
pub(super) fn look_ahead(
    search: &Search<'_>,
    start: RiseEGraph,
    grown: bool,
    rules: &[Rule],
    never_fired: &[String],
) -> (Vec<Suggestion>, LookAhead, Vec<(String, &'static str)>) {
    let began = Instant::now();
    if search.time < MIN_LOOK_AHEAD_TIME {
        // The run's budget is spent: no look-ahead rather than one past the deadline.
        let look = LookAhead {
            cut: true,
            ..LookAhead::default()
        };
        return (Vec::new(), look, Vec::new());
    }
    let deadline = began + search.time.min(LOOK_AHEAD_TIME);
    let left = |cap: Duration| deadline.saturating_duration_since(Instant::now()).min(cap);
    let mut look = LookAhead::default();
    let baseline = if grown {
        // The failed step's own e-graph.
        Small {
            score: search.failed,
            max: 0,
            satisfied: false,
            egraph: start,
        }
    } else {
        search.grow(
            start,
            rules,
            limits(left(LOOK_AHEAD_RUN), LOOK_AHEAD_NODES, BASELINE_ITERATIONS),
        )
    };
    let reasons: Vec<(String, &'static str)> = rules
        .iter()
        .filter(|r| never_fired.contains(&r.name))
        .map(|r| {
            (
                r.name.clone(),
                why_never_fired(r, &baseline.egraph, search.facts, deadline),
            )
        })
        .collect();
    if baseline.satisfied {
        // A small search satisfies the sketch: the step's own limits were the problem.
        look.time = began.elapsed();
        return (Vec::new(), look, reasons);
    }
    let threshold = baseline.score.max(search.failed);
    let candidates: Vec<Rule> = candidate_specs(rules, search.sizes, search.wanted)
        .iter()
        .filter_map(|spec| crate::eqsat::rules::lookup(spec).ok())
        .filter(|r| {
            // A candidate whose search the deadline cuts short is left out (and `look.cut`
            // says that the look-ahead was cut).
            r.search_until(&baseline.egraph, 1, &mut || Instant::now() >= deadline)
                .is_some_and(|found| !found.is_empty())
        })
        .collect();
    look.candidates = candidates.len();
    if Instant::now() >= deadline {
        look.cut = true;
    }
    let nodes = baseline.egraph.total_number_of_nodes() + LOOK_AHEAD_NODES;
    // The added rules alone first (one pass: they are applied even if time runs short), then
    // every rule for a few iterations.
    let more = |added: &[&Rule]| {
        let began = Instant::now();
        let own: Vec<Rule> = added.iter().map(|r| (*r).clone()).collect();
        let first = search.grow(
            baseline.egraph.clone(),
            &own,
            limits(left(CANDIDATE_RUN), nodes, 1),
        );
        let mut with: Vec<Rule> = rules.to_vec();
        with.extend(own);
        let time = CANDIDATE_RUN.saturating_sub(began.elapsed());
        search.grow(
            first.egraph,
            &with,
            limits(left(time), nodes, LOOK_AHEAD_ITERATIONS),
        )
    };
    let mut results: Vec<(usize, Small)> = Vec::new();
    for (k, candidate) in candidates.iter().enumerate() {
        if Instant::now() >= deadline {
            look.cut = true;
            break;
        }
        let mut small = more(&[candidate]);
        look.tried += 1;
        small.egraph = RiseEGraph::default();
        results.push((k, small));
    }
    let suggestion = |ks: Vec<usize>, s: &Small| Suggestion {
        rules: ks.iter().map(|&k| candidates[k].name.clone()).collect(),
        satisfies: s.satisfied,
        matched: (s.score.0, s.max),
    };
    // Rules that satisfy the sketch by themselves, then pairs of the rules that get it furthest
    // without satisfying it, then (if nothing satisfies it) those rules alone.
    let mut out: Vec<Suggestion> = results
        .iter()
        .filter(|(_, s)| s.satisfied)
        .map(|(k, s)| suggestion(vec![*k], s))
        .collect();
    let mut better: Vec<&(usize, Small)> = results
        .iter()
        .filter(|(_, s)| !s.satisfied && s.score > threshold)
        .collect();
    better.sort_by_key(|(k, s)| (std::cmp::Reverse(s.score), *k));
    better.truncate(PAIRED);
    'pairs: for i in 0..better.len() {
        for j in i + 1..better.len() {
            if Instant::now() >= deadline {
                look.cut = true;
                break 'pairs;
            }
            let (a, b) = (better[i].0, better[j].0);
            let small = more(&[&candidates[a], &candidates[b]]);
            look.tried += 1;
            if small.satisfied {
                out.push(suggestion(vec![a, b], &small));
                break 'pairs;
            }
        }
    }
    if out.is_empty() {
        out.extend(better.iter().map(|(k, s)| suggestion(vec![*k], s)));
    }
    look.time = began.elapsed();
    (out, look, reasons)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_leave_out_the_steps_rules_and_the_normal_form() {
        let used = crate::eqsat::rules::lookup_all("split-join(4), map-fission").unwrap();
        let c = candidate_specs(&used, &[4, 8], Some("map"));
        assert!(c.contains(&"split-join-1m(4)".to_string()), "{c:?}");
        assert!(c.contains(&"split-join(8)".to_string()), "{c:?}");
        assert!(!c.contains(&"split-join(4)".to_string()));
        assert!(!c
            .iter()
            .any(|s| s == "map-fission" || s == "eta" || s == "beta"));
        // Another size of a rule the step uses first, then its family.
        assert_eq!(c[0], "split-join(8)");
        assert!(c[1].starts_with("split-join-1m"), "{c:?}");
    }
}
