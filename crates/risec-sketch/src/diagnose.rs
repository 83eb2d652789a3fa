//! Why a guide step found no program, computed only after it failed: the sketch node where the
//! closest partial match stops ([`super::closest`]; with file:line:col in the `.sk` file,
//! [`super::origin`]), what the e-graph has there instead (type, loop size, a term), the step's
//! rules that never fired and why (no match, or why every match was refused), and library rules
//! that would get the sketch further ([`super::lookahead`], spelled as in a rules list:
//! `split-join-1m(4)`).

use super::closest::{Closest, Miss, MissKind};
use super::lookahead::{look_ahead, Search, MAX_SIZES, OWN_BASELINE_NODES};
pub use super::lookahead::{LookAhead, Suggestion};
use super::resolve::GuideStep;
use super::{SizeSketch, Sketch, TypeSketch};
use crate::core::print::{program_body_type_to_source, program_nat_to_source};
use crate::core::{Expr, TypedProgram};
use crate::diagnostics::{Diagnostic, SourceFile};
use crate::eqsat::egraph::{self, RiseEGraph};
use crate::eqsat::rewrite::Rule;
use crate::eqsat::stats::SearchStats;
use crate::ir::nat::Nat;
use crate::ir::primitive::Primitive;
use crate::ir::types::{Type, TypeNode};
use egg::Id;

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
    /// What is left of the run's time budget, which bounds the look-ahead.
    pub time: std::time::Duration,
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
        time,
    } = failure;
    // The look-ahead gets what the reading of the e-graph leaves of `time`.
    let deadline = std::time::Instant::now() + time;
    let texts = Texts { program };
    let (miss, big_score) = {
        let closest = Closest::new(&egraph, &step.sketch);
        let miss = closest.miss(root);
        let report = miss.as_ref().map(|m| texts.miss_report(&egraph, m));
        (miss.map(|m| (m, report)), closest.score(root))
    };
    // A small e-graph is the look-ahead's baseline itself; a large one is dropped, and a small
    // search from the step's start stands in for it.
    let (start_graph, start_root, grown) = if egraph.total_number_of_nodes() <= OWN_BASELINE_NODES {
        (egraph, root, true)
    } else {
        drop(egraph);
        let mut g = RiseEGraph::default();
        let r = egraph::add_expr(&mut g, start);
        (g, r, false)
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
        sizes: &unique,
        wanted: wanted_primitive(miss.as_ref().map(|(m, _)| &m.sketch)),
        failed: big_score,
        time: deadline.saturating_duration_since(std::time::Instant::now()),
    };
    let (suggestions, look_ahead, reasons) =
        look_ahead(&context, start_graph, grown, rules, &never_fired);
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
                match (suggestions.len(), s.rules.len()) {
                    (1, 1) => "it",
                    (1, _) => "them",
                    _ => "any one of these",
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
        None if look.cut && look.tried == 0 => out.push(
            "no look-ahead for library rules that would help: the run's time budget is spent \
             (a larger `--time` leaves time for it)"
                .to_string(),
        ),
        None => out.push(format!(
            "no library rule added to the step gets the sketch further (tried {} of {} \
             candidates{}); is the sketch asking for another shape, or does the step need an \
             intermediate step?",
            look.tried,
            look.candidates,
            if look.cut {
                ", then ran out of time"
            } else {
                ""
            }
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
        Sketch::Typed(s, _) | Sketch::App(s, _) | Sketch::NatApp(s, _) => wanted_primitive(Some(s)),
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::diagnostics::SourceFile;
    use crate::guided::{self, SearchOptions};
    use crate::resolve::load_source;

    /// A failed step through the guided search: the diagnosis finds the wrong loop size, the
    /// rule that never fired, and the rule that tiles the inner loop.
    #[test]
    fn a_failed_step_is_diagnosed() {
        let src =
            "def f {m n : nat} (a : m.n.f32) : m.n.f32 = map (fun r => map (fun x => x * 2.0) r) a";
        let p =
            crate::frontend::load::compile_source(&SourceFile::new("t.rise", src), None).unwrap();
        let sk = "step s {\n  rules = [split-join(4), map-fusion]\n  \
                  sketch = contains((map : ? -> m.? -> ?) contains((map : ? -> (n/4).? -> ?) ?))\n}\n";
        let steps = load_source("t.sk", sk, &p).unwrap();
        let nf = guided::run(&p, &steps, &SearchOptions::default(), &mut |_| {}).unwrap_err();
        let d = nf.diagnosis.as_ref().unwrap();
        let miss = d.miss.as_ref().unwrap();
        assert_eq!(miss.kind, MissKind::Type);
        assert!(
            miss.have.contains("(a loop over n elements)"),
            "{}",
            miss.have
        );
        assert_eq!(
            d.never_fired,
            [("map-fusion".to_string(), "no match".to_string())]
        );
        assert!(
            d.suggestions
                .iter()
                .any(|s| s.rules == ["split-join-1m(4)"]),
            "{:?}",
            d.suggestions
        );
        let text = nf.message();
        assert!(text.contains("t.sk:3:53"), "{text}");
        // Without origins (a sketch not read from a file), the notes alone.
        let plain = Diagnosis {
            located: None,
            ..(**d).clone()
        };
        assert!(
            plain.render().starts_with("  = wanted: "),
            "{}",
            plain.render()
        );
    }

    #[test]
    fn numbers_are_the_sizes_written() {
        assert_eq!(
            numbers("(map : ? -> (n/32).? -> ?) split-join(4) 1"),
            vec![32, 4]
        );
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
