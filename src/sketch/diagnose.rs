//! Why a guide step found no program, computed only after it failed: the sketch node where the
//! closest partial match stops (with file:line:col in the `.sk` file), what the e-graph has there
//! instead (type, loop size, a term), the step's rules that never fired, and library rules that
//! would get the sketch further.
//!
//! The suggestions come from a bounded look-ahead ([`LOOK_AHEAD_TIME`] in all): small searches
//! from the step's start term, each with the step's rules plus one library rule the step does
//! not list (sizes taken from the sketch: `split-join-1m(4)`), compared with the same small
//! search without it. A rule counts when the search with it satisfies the sketch, or matches
//! more of it than both that search and the failed step did; when no single rule satisfies the
//! sketch, pairs of the best ones are tried.

use super::closest::{Closest, Miss, MissKind};
use super::cost::CostModel;
use super::extract::SketchTable;
use super::resolve::GuideStep;
use super::{SizeSketch, Sketch, TypeSketch};
use crate::core::print::{program_body_type_to_source, program_nat_to_source};
use crate::core::{Expr, TypedProgram};
use crate::diagnostics::{Diagnostic, SourceFile};
use crate::eqsat::egraph::{self, RiseEGraph};
use crate::eqsat::rewrite::{Assumptions, Rule, Skip};
use crate::eqsat::runner::{self, Limits};
use crate::eqsat::stats::SearchStats;
use crate::ir::nat::Nat;
use crate::ir::primitive::Primitive;
use crate::ir::types::{Type, TypeNode};
use egg::Id;
use std::time::{Duration, Instant};

/// The time all searches of the look-ahead may take together.
pub const LOOK_AHEAD_TIME: Duration = Duration::from_millis(2000);
/// The most e-nodes of the baseline search, and the most a candidate search adds to them
/// (small, so that the candidates' iterations are quick).
const LOOK_AHEAD_NODES: usize = 6_000;
/// The failed step's e-graph is the look-ahead's baseline when it has at most this many
/// e-nodes (else a search from the step's start, of [`LOOK_AHEAD_NODES`], is).
const OWN_BASELINE_NODES: usize = 30_000;
/// The most iterations of the baseline search (from the step's start).
const BASELINE_ITERATIONS: usize = 30;
/// The most iterations of a candidate search (from the baseline's e-graph).
const LOOK_AHEAD_ITERATIONS: usize = 4;
/// The most time of the baseline search.
const LOOK_AHEAD_RUN: Duration = Duration::from_millis(500);
/// The most time of one candidate search.
const CANDIDATE_RUN: Duration = Duration::from_millis(100);
/// Sizes tried for the size parameters of library rules.
const MAX_SIZES: usize = 3;
/// Improving rules combined in pairs when no single rule satisfies the sketch.
const PAIRED: usize = 3;
/// Terms longer than this (in characters) are cut in messages.
const MAX_TEXT: usize = 100;

/// Where the closest partial match stops, in words.
#[derive(Clone, Debug)]
pub struct MissReport {
    /// The sketch node with no match, as text.
    pub node: String,
    /// Why it has none at the closest e-class.
    pub kind: MissKind,
    /// What the sketch wants there (with the loop size, for a loop primitive with a type).
    pub wanted: String,
    /// What the e-graph has there instead: type, loop size, a term of the e-class.
    pub have: String,
    /// The sketch nodes matched on the way down to it, outermost first.
    pub found: Vec<String>,
}

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

/// Why a step found no program.
#[derive(Clone, Debug)]
pub struct Diagnosis {
    /// The closest partial match's stopping point (`None` if the sketch was satisfied after
    /// all, which the search never reports as a failure).
    pub miss: Option<MissReport>,
    /// Rules of the step (as listed) that no iteration applied, each with why, as far as a
    /// small search from the step's start tells (no match, or why its matches were refused).
    pub never_fired: Vec<(String, String)>,
    /// Library rules that would help, best first.
    pub suggestions: Vec<Suggestion>,
    /// The look-ahead's figures.
    pub look_ahead: LookAhead,
    /// The diagnostic at the sketch node, with the file it points into (`None` when the
    /// sketch's origins are unknown); its notes say the rest.
    pub located: Option<(SourceFile, Diagnostic)>,
    /// The notes (the same as the located diagnostic's).
    pub notes: Vec<String>,
}

impl Diagnosis {
    /// The diagnosis as `risec` prints it: the located diagnostic (file:line:col, the sketch
    /// underlined, notes), or the notes alone.
    pub fn render(&self) -> String {
        match &self.located {
            Some((file, d)) => file.render(std::slice::from_ref(d)),
            None => self.notes.iter().map(|n| format!("  = {n}\n")).collect(),
        }
    }
}

/// A failed step, as the guided search leaves it.
pub struct Failure<'a> {
    /// The program (for size names).
    pub program: &'a TypedProgram,
    /// The step.
    pub step: &'a GuideStep,
    /// Every rule the step searched with (its own and the normal-form rules).
    pub rules: &'a [Rule],
    /// The step's e-graph (dropped once read, before the look-ahead).
    pub egraph: RiseEGraph,
    /// The class of the step's start term in it.
    pub root: Id,
    /// The step's statistics.
    pub stats: &'a SearchStats,
    /// The step's start term (in normal form).
    pub start: &'a Expr,
    /// The size facts the step could rely on.
    pub facts: Vec<Nat>,
}

/// Diagnoses a failed step: reads the e-graph, drops it, and runs the look-ahead.
pub fn diagnose(failure: Failure<'_>) -> Diagnosis {
    let Failure {
        program,
        step,
        rules,
        egraph,
        root,
        stats,
        start,
        facts,
    } = failure;
    let texts = Texts { program };
    let (miss, big_score) = {
        let closest = Closest::new(&egraph, &step.sketch);
        let miss = closest.miss(root);
        let report = miss.as_ref().map(|m| texts.miss_report(&egraph, m));
        (miss.map(|m| (m, report)), closest.score(root))
    };
    // A small e-graph is the look-ahead's baseline itself; a large one is dropped, and a small
    // search from the step's start stands in for it.
    let (start_graph, start_root, grown) = if egraph.total_number_of_nodes() <= OWN_BASELINE_NODES
    {
        (egraph, root, Some(big_score))
    } else {
        drop(egraph);
        let mut g = RiseEGraph::default();
        let r = egraph::add_expr(&mut g, start);
        (g, r, None)
    };
    let never_fired: Vec<String> = stats
        .summary
        .rewrites_per_rule
        .0
        .iter()
        .filter(|(name, count)| *count == 0 && step.rules.iter().any(|r| &r.name == name))
        .map(|(name, _)| name.clone())
        .collect();
    let mut sizes = Vec::new();
    if let Some((_, Some(r))) = &miss {
        sizes.extend(numbers(&r.wanted));
    }
    sizes.extend(numbers(&texts.sketch(&step.sketch)));
    for r in &step.rules {
        // The size arguments only (`split-join-2m(32)`: 32).
        if let Some((_, args)) = r.name.split_once('(') {
            sizes.extend(numbers(args));
        }
    }
    let mut unique = Vec::new();
    for s in sizes {
        if !unique.contains(&s) && unique.len() < MAX_SIZES {
            unique.push(s);
        }
    }
    let context = Search {
        sketch: &step.sketch,
        facts: &facts,
        root: start_root,
    };
    let (suggestions, look_ahead, reasons) = look_ahead(
        &context,
        start_graph,
        grown,
        rules,
        &unique,
        big_score,
        &never_fired,
        wanted_primitive(miss.as_ref().map(|(m, _)| &m.sketch)),
    );
    let never_fired: Vec<(String, String)> = never_fired
        .into_iter()
        .map(|name| {
            let why = reasons
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, w)| w.to_string())
                .unwrap_or_default();
            (name, why)
        })
        .collect();
    let report = miss.as_ref().and_then(|(_, r)| r.clone());
    let notes = notes(report.as_ref(), &never_fired, &suggestions, &look_ahead);
    let located = miss.as_ref().and_then(|(m, r)| {
        let r = r.as_ref()?;
        let message = format!("step `{}`: no match for `{}`", step.name, r.node);
        let (file, mut d) =
            step.origins
                .diagnostic(m.node, &message, "the closest partial match stops here")?;
        d.notes.extend(notes.iter().cloned());
        Some((file.clone(), d))
    });
    Diagnosis {
        miss: report,
        never_fired,
        suggestions,
        look_ahead,
        located,
        notes,
    }
}

/// The notes of the diagnostic: what is wanted, what is there, what matched, the rules.
fn notes(
    miss: Option<&MissReport>,
    never_fired: &[(String, String)],
    suggestions: &[Suggestion],
    look: &LookAhead,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(m) = miss {
        out.push(format!("wanted: {}", m.wanted));
        out.push(format!("the e-graph has here: {}", m.have));
        if !m.found.is_empty() {
            out.push(format!(
                "matched on the way there: {}",
                m.found
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", then ")
            ));
        }
    }
    if never_fired.is_empty() {
        out.push("every rule of the step fired".to_string());
    } else {
        let list: Vec<String> = never_fired
            .iter()
            .map(|(name, why)| {
                if why.is_empty() {
                    format!("`{name}`")
                } else {
                    format!("`{name}` ({why})")
                }
            })
            .collect();
        out.push(format!(
            "rules of the step that never fired: {}",
            list.join(", ")
        ));
    }
    let quoted = |s: &Suggestion| {
        s.rules
            .iter()
            .map(|r| format!("`{r}`"))
            .collect::<Vec<_>>()
            .join(" and ")
    };
    match suggestions.first() {
        Some(s) if s.satisfies => {
            let list: Vec<String> = suggestions.iter().map(quoted).collect();
            out.push(format!(
                "help: add {} to the step's rules: a short search with {} satisfies the sketch",
                list.join(", or "),
                if suggestions.len() == 1 && s.rules.len() == 1 {
                    "it"
                } else {
                    "them"
                }
            ))
        }
        Some(_) => {
            let list: Vec<String> = suggestions
                .iter()
                .map(|s| {
                    format!(
                        "{} ({} of {} sketch nodes)",
                        quoted(s),
                        s.matched.0,
                        s.matched.1
                    )
                })
                .collect();
            out.push(format!(
                "help: no library rule satisfies the sketch in a short search, but these get the \
                 match further (how much of the sketch it matches with each): {}",
                list.join(", ")
            ));
        }
        None => out.push(format!(
            "no library rule added to the step gets the sketch further (tried {} of {} \
             candidates{}); is the sketch asking for another shape, or does the step need an \
             intermediate step?",
            look.tried,
            look.candidates,
            if look.cut { ", then ran out of time" } else { "" }
        )),
    }
    out
}

/// Writes sketches, sizes, types and terms with the program's size names.
struct Texts<'a> {
    program: &'a TypedProgram,
}

impl Texts<'_> {
    fn nat(&self, n: &Nat) -> String {
        let shown = program_nat_to_source(self.program, n);
        if shown.contains(['+', '-', '*', '/', '%', '^']) {
            format!("({shown})")
        } else {
            shown
        }
    }

    fn sketch(&self, s: &Sketch) -> String {
        cut(s.to_text(&|n| self.nat(n)))
    }

    fn type_sketch(&self, t: &TypeSketch) -> String {
        t.to_text(&|n| self.nat(n))
    }

    fn ty(&self, t: &Type) -> String {
        program_body_type_to_source(self.program, t)
    }

    /// A term of `class` (its smallest), if it is short enough to show.
    fn term(&self, egraph: &RiseEGraph, class: Id) -> Option<String> {
        (egraph[class].data.size <= 200).then(|| {
            let e = egraph::extract_smallest(egraph, class);
            cut(crate::core::print::program_subterm_to_source(
                self.program,
                &e,
            ))
        })
    }

    /// ` (a loop over N elements)` for a loop primitive whose data argument's size is `size`.
    fn extent(&self, size: Option<&Nat>) -> String {
        size.map(|n| {
            format!(
                " (a loop over {} elements)",
                program_nat_to_source(self.program, n)
            )
        })
        .unwrap_or_default()
    }

    fn miss_report(&self, egraph: &RiseEGraph, m: &Miss) -> MissReport {
        let class_ty = egraph[m.class].data.ty();
        let term = self.term(egraph, m.class);
        let in_context = m
            .context
            .filter(|&c| egraph.find(c) != egraph.find(m.class))
            .and_then(|c| self.term(egraph, c))
            .map(|t| format!(", applied in `{t}`"))
            .unwrap_or_default();
        let the_class = match &term {
            Some(t) => format!("`{t}` of type `{}`", self.ty(class_ty)),
            None => format!("a term of type `{}`", self.ty(class_ty)),
        };
        let (wanted, have) = match (&m.sketch, &m.kind) {
            (Sketch::Typed(inner, ts), kind) => {
                let loop_prim = match **inner {
                    Sketch::Prim(p) if is_loop(p) => Some(p),
                    _ => None,
                };
                let want_extent = loop_prim.and_then(|p| sketch_extent(ts, p.value_arity()));
                let wanted = format!(
                    "`{}` of type `{}`{}",
                    self.sketch(inner),
                    self.type_sketch(ts),
                    self.extent(want_extent.as_ref())
                );
                let have_extent = loop_prim.and_then(|p| type_extent(class_ty, p.value_arity()));
                let have = if *kind == MissKind::Type {
                    format!(
                        "`{}` of type `{}`{}{in_context}",
                        self.sketch(inner),
                        self.ty(class_ty),
                        self.extent(have_extent.as_ref())
                    )
                } else {
                    format!("no `{}`: {the_class}{in_context}", self.sketch(inner))
                };
                (wanted, have)
            }
            (Sketch::NatApp(f, n), MissKind::Size(have)) => (
                format!("`{}` applied to the size {}", self.sketch(f), self.nat(n)),
                format!(
                    "`{}` applied to the size {} instead{in_context}",
                    self.sketch(f),
                    self.nat(have)
                ),
            ),
            (s, _) => (
                format!("`{}`", self.sketch(s)),
                format!("{the_class}{in_context}"),
            ),
        };
        MissReport {
            node: self.sketch(&m.sketch),
            kind: m.kind.clone(),
            wanted,
            have,
            found: m.found.iter().map(|f| self.sketch(f)).collect(),
        }
    }
}

/// `s`, cut to [`MAX_TEXT`] characters.
fn cut(s: String) -> String {
    if s.chars().count() > MAX_TEXT {
        let c: String = s.chars().take(MAX_TEXT - 1).collect();
        format!("{c}…")
    } else {
        s
    }
}

/// The primitive a missing sketch node asks for (`map` for `(map : …)`), if it asks for one.
fn wanted_primitive(s: Option<&Sketch>) -> Option<&'static str> {
    match s? {
        Sketch::Prim(p) => Some(p.name()),
        Sketch::Typed(s, _) | Sketch::App(s, _) | Sketch::NatApp(s, _) => {
            wanted_primitive(Some(s))
        }
        _ => None,
    }
}

/// Loop primitives: their last value argument is the array they loop over.
fn is_loop(p: Primitive) -> bool {
    use Primitive::*;
    matches!(
        p,
        Map | MapSeq | MapSeqUnroll | MapPar | Reduce | ReduceSeq | ReduceSeqUnroll
    )
}

/// The size of parameter `arity` (the last of `arity` parameters) of a function type sketch,
/// when it is an array of a given size.
fn sketch_extent(t: &TypeSketch, arity: usize) -> Option<Nat> {
    let mut t = t;
    for _ in 1..arity {
        let TypeSketch::Fun(_, rest) = t else {
            return None;
        };
        t = rest;
    }
    match t {
        TypeSketch::Fun(p, _) => match &**p {
            TypeSketch::Array(SizeSketch::Is(n), _) => Some(n.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// The size of parameter `arity` of a function type, when it is an array.
fn type_extent(t: &Type, arity: usize) -> Option<Nat> {
    let mut t = t.clone();
    for _ in 1..arity {
        let TypeNode::Fun(_, rest) = t.get() else {
            return None;
        };
        let rest = rest.clone();
        t = rest;
    }
    match t.get() {
        TypeNode::Fun(p, _) => match p.get() {
            TypeNode::Array(n, _) => Some(n.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// The numbers greater than 1 written in `text` (sizes to try for rules' size parameters).
fn numbers(text: &str) -> Vec<u64> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter_map(|d| d.parse::<u64>().ok())
        .filter(|&n| n > 1 && n <= 1 << 16)
        .collect()
}

/// What the look-ahead searches from.
struct Search<'a> {
    sketch: &'a Sketch,
    facts: &'a [Nat],
    /// The class of the start term (the same in every copy of the baseline's e-graph).
    root: Id,
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
fn candidate_specs(used: &[Rule], sizes: &[u64], wanted: Option<&str>) -> Vec<String> {
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
fn why_never_fired(rule: &Rule, egraph: &RiseEGraph, facts: &[Nat]) -> &'static str {
    let matches = rule.search(egraph, 64);
    if matches.is_empty() {
        return "no match";
    }
    let mut scratch = egraph.clone();
    let mut assumptions = Assumptions {
        facts: facts.to_vec(),
        allow_new: true,
        assumed: Vec::new(),
    };
    let mut tally = [0usize; 5];
    for m in &matches {
        let k = match rule.apply(&mut scratch, m, &mut assumptions) {
            Ok(_) => 0,
            Err(Skip::Divisibility) => 1,
            Err(Skip::IllTyped) => 2,
            Err(Skip::Condition) => 3,
            Err(Skip::FreeVariable) => 4,
        };
        tally[k] += 1;
    }
    let most = (0..tally.len()).max_by_key(|&k| tally[k]).unwrap_or(0);
    match most {
        0 => "it matches, but only after more of the search than was run",
        1 => "it matches, but each match needs a size that is not a whole number (a split that does not divide the length)",
        2 => "it matches, but the result would not be well typed",
        3 => "it matches, but its side condition refuses every match",
        _ => "it matches, but would move a variable out of its binder",
    }
}

/// Runs the look-ahead from `start`: the failed step's e-graph when `grown` (with its score),
/// else a start term, grown into a baseline by a small search with the step's rules. On a
/// copy of the baseline's e-graph, a few more iterations with each candidate rule added, then
/// with pairs of the best; and why the step's never-fired rules did not fire. Within
/// [`LOOK_AHEAD_TIME`].
fn look_ahead(
    search: &Search<'_>,
    start: RiseEGraph,
    grown: Option<(u32, u32)>,
    rules: &[Rule],
    sizes: &[u64],
    big_score: (u32, u32),
    never_fired: &[String],
    wanted: Option<&str>,
) -> (Vec<Suggestion>, LookAhead, Vec<(String, &'static str)>) {
    let began = Instant::now();
    let deadline = began + LOOK_AHEAD_TIME;
    let left = |cap: Duration| deadline.saturating_duration_since(Instant::now()).min(cap);
    let mut look = LookAhead::default();
    let baseline = match grown {
        // The failed step's own e-graph, with its score.
        Some(score) => Small {
            score,
            max: 0,
            satisfied: false,
            egraph: start,
        },
        None => search.grow(
            start,
            rules,
            limits(left(LOOK_AHEAD_RUN), LOOK_AHEAD_NODES, BASELINE_ITERATIONS),
        ),
    };
    let reasons: Vec<(String, &'static str)> = rules
        .iter()
        .filter(|r| never_fired.contains(&r.name))
        .map(|r| {
            (
                r.name.clone(),
                why_never_fired(r, &baseline.egraph, search.facts),
            )
        })
        .collect();
    if baseline.satisfied {
        // A small search satisfies the sketch: the step's own limits were the problem.
        look.time = began.elapsed();
        return (Vec::new(), look, reasons);
    }
    let threshold = baseline.score.max(big_score);
    let candidates: Vec<Rule> = candidate_specs(rules, sizes, wanted)
        .iter()
        .filter_map(|spec| crate::eqsat::rules::lookup(spec).ok())
        .filter(|r| !r.search(&baseline.egraph, 1).is_empty())
        .collect();
    look.candidates = candidates.len();
    let nodes = baseline.egraph.total_number_of_nodes() + LOOK_AHEAD_NODES;
    // The added rules alone first (one pass: they are applied even if time runs short), then
    // every rule for a few iterations.
    let more = |added: &[&Rule]| {
        let began = Instant::now();
        let own: Vec<Rule> = added.iter().map(|r| (*r).clone()).collect();
        let first = search.grow(baseline.egraph.clone(), &own, limits(left(CANDIDATE_RUN), nodes, 1));
        let mut with: Vec<Rule> = rules.to_vec();
        with.extend(own);
        let time = CANDIDATE_RUN.saturating_sub(began.elapsed());
        search.grow(first.egraph, &with, limits(left(time), nodes, LOOK_AHEAD_ITERATIONS))
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
    fn numbers_are_the_sizes_written() {
        assert_eq!(numbers("(map : ? -> (n/32).? -> ?) split-join(4) 1"), vec![32, 4]);
    }

    #[test]
    fn candidates_leave_out_the_steps_rules_and_the_normal_form() {
        let used = crate::eqsat::rules::lookup_all("split-join(4), map-fission").unwrap();
        let c = candidate_specs(&used, &[4, 8], Some("map"));
        assert!(c.contains(&"split-join-1m(4)".to_string()), "{c:?}");
        assert!(c.contains(&"split-join(8)".to_string()), "{c:?}");
        assert!(!c.contains(&"split-join(4)".to_string()));
        assert!(!c.iter().any(|s| s == "map-fission" || s == "eta" || s == "beta"));
    }

    #[test]
    fn extents_are_the_size_of_the_data_argument() {
        let t = TypeSketch::Fun(
            Box::new(TypeSketch::Any),
            Box::new(TypeSketch::Fun(
                Box::new(TypeSketch::Array(
                    SizeSketch::Is(crate::ir::nat::lit(32)),
                    Box::new(TypeSketch::Any),
                )),
                Box::new(TypeSketch::Any),
            )),
        );
        assert_eq!(sketch_extent(&t, 2), Some(crate::ir::nat::lit(32)));
        assert_eq!(sketch_extent(&t, 3), None);
        assert_eq!(sketch_extent(&TypeSketch::Any, 2), None);
    }
}
