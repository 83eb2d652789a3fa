//! Sketch-guided equality saturation (Listing 3 of the paper): for each guide step, a fresh
//! e-graph from the previous result in beta-eta normal form, grown with the step's rules plus
//! the normal-form rules until the root satisfies the step's sketch (checked after every
//! iteration, without extracting), then the cheapest satisfying term is extracted and becomes
//! the next step's start. The run's budget ([`SearchOptions::budget`]) bounds all steps together. Every step's
//! statistics are a [`SearchStats`] (the runner's, with the step's name, sketch and extraction
//! figures added); progress reaches the caller through the runner's progress hook.

use crate::core::normalize::{program_normal, restore_params};
use crate::core::{Expr, ExprKind, TypedProgram};
use crate::diagnose::{self, Diagnosis};
use crate::eqsat::egraph::{self, RiseEGraph};
use crate::eqsat::explain::{self, ExplanationStep};
use crate::eqsat::limits::StopReason;
use crate::eqsat::rewrite::{Assumptions, Rule};
use crate::eqsat::runner;
use crate::eqsat::schedule::Guide;
use crate::eqsat::schedule::Strategy;
use crate::eqsat::stats::{IterationStats, SearchStats};
use crate::extract::SketchTable;
use crate::ir::nat::{self, Nat};
use crate::ir::types::{Type, TypeNode};
use crate::resolve::GuideStep;
use crate::support::budget::Budget;
use crate::Sketch;
use std::time::{Duration, Instant};

/// Options of a guided search.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// The run's time and memory budget: every step's limits are capped by what is left of it,
    /// so that all steps together (with their sketch checks and extraction) end within it. Its
    /// clock starts when it is made.
    pub budget: Budget,
    /// The scheduler of the steps that do not name their own (`scheduler = …` in the step),
    /// and the seed of every step's random choices.
    pub strategy: Strategy,
    /// A cap on every step's e-nodes (the main job's `--nodes`), besides the step's own limit.
    pub nodes: Option<usize>,
    /// Record each step's rewrites from its start to its result (`Optimized::explanations`).
    /// Costs memory: egg then keeps every e-node as it was added.
    pub explain: bool,
}

impl SearchOptions {
    /// A budget of `time` from now, and the default memory limit
    /// (4 GiB, or less where the process may not allocate that much).
    pub fn within(time: Duration) -> SearchOptions {
        SearchOptions {
            budget: Budget::new(time, crate::support::memory::default_limit()),
            strategy: Strategy::default(),
            nodes: None,
            explain: false,
        }
    }
}

impl Default for SearchOptions {
    /// 60 s from now, and the default memory limit.
    fn default() -> SearchOptions {
        SearchOptions::within(Duration::from_secs(60))
    }
}

/// Where a guided search is: the runner's progress report of one iteration (iteration 0: the
/// step's start), with the step it belongs to.
#[derive(Clone, Debug)]
pub struct Progress<'a> {
    /// The step's name.
    pub step: &'a str,
    /// Its position (from 1) and the number of steps.
    pub index: (usize, usize),
    /// The iteration's statistics, as the runner reported them.
    pub iteration: &'a IterationStats,
    /// Time since the step began.
    pub elapsed: Duration,
}

/// A successful guided search.
#[derive(Clone, Debug)]
pub struct GuidedOutcome {
    /// The result of the last step (not yet lowered), with the facts it relies on.
    pub program: TypedProgram,
    /// The statistics of every step.
    pub steps: Vec<SearchStats>,
    /// With [`SearchOptions::explain`]: per step, its name and the rewrites from its start
    /// (in beta-eta normal form) to its result.
    pub explanations: Vec<(String, Vec<ExplanationStep>)>,
}

/// A step whose sketch was not satisfied, or whose program relies on facts that no sizes
/// satisfy together ([`NotFound::conflict`]).
#[derive(Clone, Debug)]
pub struct NotFound {
    /// The statistics of the steps run (the last is the failed one: its name, limits, and
    /// why it stopped).
    pub steps: Vec<SearchStats>,
    /// The largest parts of the sketch that the root does satisfy.
    pub partial: Vec<String>,
    /// Where the closest partial match stops, the step's rules that never fired, and library
    /// rules that would help (`None` when no step failed).
    pub diagnosis: Option<Box<Diagnosis>>,
    /// Two facts, as text, that the program the last step found relies on and that no sizes
    /// make whole numbers together (`(n + 2)/7` and `(n + 4)/7`): that program runs at no size,
    /// so it is not a result.
    pub conflict: Option<(String, String)>,
}

impl NotFound {
    /// The statistics of the step whose sketch was not satisfied: its name, limits, and why it
    /// stopped.
    pub fn failed_step(&self) -> Option<&SearchStats> {
        self.steps.last()
    }

    /// The message `risec` prints.
    pub fn message(&self) -> String {
        let Some(last) = self.steps.last() else {
            return "error: no step was run\n".to_string();
        };
        if let Some((a, b)) = &self.conflict {
            return format!(
                "error: step `{}`: the program found relies on `{a}` and `{b}` both being \
                 whole numbers, and no sizes make them so (it splits sizes by numbers they \
                 cannot all be multiples of): it is no result\n",
                last.name.as_deref().unwrap_or_default()
            );
        }
        let (s, limits) = (&last.summary, &last.limits);
        let (nodes, classes, iterations) = (s.nodes, s.classes, s.iterations);
        let why = match s.stop {
            StopReason::Saturated => {
                "the e-graph saturated (the rules can reach nothing more)".to_string()
            }
            StopReason::TimeLimit => format!("the time limit ({:?}) stopped it", limits.time),
            StopReason::NodeLimit => format!("the e-node limit ({}) stopped it", limits.nodes),
            StopReason::IterationLimit => {
                format!("the iteration limit ({}) stopped it", limits.iterations)
            }
            StopReason::MemoryLimit => {
                format!("the memory limit ({} bytes) stopped it", limits.memory)
            }
            StopReason::Goal => "it stopped".to_string(),
        };
        let mut out = format!(
            "error: step `{}`: the sketch was not satisfied: {why}, after {iterations} iterations \
             with {nodes} e-nodes in {classes} e-classes\n",
            last.name.as_deref().unwrap_or_default()
        );
        if self.partial.is_empty() {
            out.push_str("  closest partial match: none (no part of the sketch is satisfied)\n");
        } else {
            out.push_str("  closest partial match: the program satisfies\n");
            for p in &self.partial {
                out.push_str(&format!("    {p}\n"));
            }
            out.push_str("  but not the whole sketch; try other rules, or an intermediate step\n");
        }
        if let Some(d) = &self.diagnosis {
            out.push_str(&d.render());
        }
        out
    }
}

/// What the last sketch check of a step found.
enum Checked {
    /// The sketch is satisfied: the cheapest satisfying term and its cost.
    Found(Expr, u64),
    /// It is not: the largest parts of it that are.
    Partial(Vec<Sketch>),
}

/// A sketch as text, with sizes written as in `program` (parenthesised when compound).
fn sketch_text(program: &TypedProgram, sketch: &Sketch) -> String {
    sketch.to_text(&|n| {
        let shown = crate::core::print::program_nat_to_source(program, n);
        if shown.contains(['+', '-', '*', '/', '%', '^']) {
            format!("({shown})")
        } else {
            shown
        }
    })
}

/// The normal-form rules every step uses besides its own.
fn normal_form_rules() -> Vec<Rule> {
    vec![
        Rule::beta(),
        Rule::beta_nat(),
        crate::eqsat::rules::lookup("eta").expect("eta exists"),
    ]
}

/// Runs the guide steps on `program`; `progress` is the runner's progress hook of every step
/// (called with each step's start and then once per iteration). Each step is searched by
/// `search_step`; its result becomes the next step's start, and a step that fails is
/// diagnosed.
pub fn run(
    program: &TypedProgram,
    steps: &[GuideStep],
    options: &SearchOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<GuidedOutcome, NotFound> {
    let mut term = program.term.clone();
    let mut stats = Vec::new();
    let mut assumed: Vec<Nat> = Vec::new();
    let mut explanations = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let place = (i + 1, steps.len());
        let mut searched = search_step(program, &term, step, place, &assumed, options, progress);
        assumed.append(&mut searched.assumed);
        stats.push(searched.record);
        let StepSearch {
            mut egraph,
            root,
            normal,
            rules,
            extracted,
            partial,
            ..
        } = searched;
        match extracted {
            // The program keeps its parameters, whatever eta did at the root.
            Some(e) => {
                if options.explain {
                    let rewrites = explain::explain(&mut egraph, &normal, &e).unwrap_or_default();
                    explanations.push((step.name.clone(), rewrites));
                }
                term = restore_params(&e, program.size_params.len(), program.value_params.len());
                crate::support::memory::discard(egraph);
                // Each fact it relies on was possible when assumed, but not necessarily with
                // the others (assumed in other parts of the e-graph, or in earlier steps).
                let needed = facts_needed(&term, program.size_params.len(), &program.facts);
                if let Some((a, b)) = conflicting_facts(&needed) {
                    let text = |f| crate::core::print::divisibility_fact_to_source(program, f);
                    return Err(NotFound {
                        steps: stats,
                        partial: Vec::new(),
                        diagnosis: None,
                        conflict: Some((text(a), text(b))),
                    });
                }
            }
            None => {
                let diagnosis = diagnose::diagnose(diagnose::Failure {
                    program,
                    step,
                    rules: &rules,
                    egraph,
                    root,
                    stats: stats.last().expect("the failed step was recorded"),
                    start: &normal,
                    facts: program.facts.iter().chain(&assumed).cloned().collect(),
                    time: options.budget.remaining(),
                });
                return Err(NotFound {
                    steps: stats,
                    partial,
                    diagnosis: Some(Box::new(diagnosis)),
                    conflict: None,
                });
            }
        }
    }
    Ok(outcome(program, term, stats, explanations))
}

/// One step's search: its e-graph and rules, its statistics, and what it found.
struct StepSearch {
    /// The e-graph as the search left it.
    egraph: RiseEGraph,
    /// The class of the step's start.
    root: egg::Id,
    /// The step's start, in beta-eta normal form.
    normal: Expr,
    /// The step's rules with the normal-form rules.
    rules: Vec<Rule>,
    /// The step's statistics (name, sketch, facts assumed, cost, time).
    record: SearchStats,
    /// The cheapest term satisfying the sketch, when one does.
    extracted: Option<Expr>,
    /// Otherwise the largest parts of the sketch that the root satisfies, as text.
    partial: Vec<String>,
    /// The facts the step assumed.
    assumed: Vec<Nat>,
}

/// Grows an e-graph from `term` with `step`'s rules (and the normal-form rules), within the
/// step's limits capped by what is left of the run's budget, until the root satisfies the
/// step's sketch; `place` is the step's position (from 1) and the number of steps, and
/// `assumed` the facts earlier steps assumed.
fn search_step(
    program: &TypedProgram,
    term: &Expr,
    step: &GuideStep,
    place: (usize, usize),
    assumed: &[Nat],
    options: &SearchOptions,
    progress: &mut dyn FnMut(&Progress),
) -> StepSearch {
    let began = Instant::now();
    let normal = program_normal(term).unwrap_or(term.clone());
    let mut eg = if options.explain {
        explain::explaining_egraph()
    } else {
        RiseEGraph::default()
    };
    let root = egraph::add_expr(&mut eg, &normal);
    let mut rules = step.rules.clone();
    for r in normal_form_rules() {
        if !rules.iter().any(|q| q.name == r.name) {
            rules.push(r);
        }
    }
    let mut limits = step.limits.clone();
    // A step the run's budget cuts short keeps 1/20 of what is left for its failure's
    // diagnosis (finding the sketch node with no match reads the whole e-graph).
    limits.time = limits.time.min(options.budget.remaining().mul_f64(0.95));
    limits.memory = limits.memory.min(options.budget.memory());
    limits.nodes = limits.nodes.min(options.nodes.unwrap_or(usize::MAX));
    let mut assumptions = Assumptions {
        facts: program.facts.iter().chain(assumed).cloned().collect(),
        allow_new: true,
        assumed: Vec::new(),
    };
    // The runner's last goal check is always on the final e-graph: it keeps what the
    // step's result needs (the extracted term, or the partial matches for the report) so
    // that the tables are not computed again after the search.
    let mut checked = Checked::Partial(Vec::new());
    let mut satisfied = |g: &RiseEGraph| {
        let table = SketchTable::new(g, &step.sketch, step.cost);
        checked = match (table.extract(root), table.cost_at(root)) {
            (Some(term), Some(cost)) => Checked::Found(term, cost),
            _ => Checked::Partial(table.partial_matches(&step.sketch, root)),
        };
        matches!(checked, Checked::Found(..))
    };
    let mut report = |it: &IterationStats| {
        progress(&Progress {
            step: &step.name,
            index: place,
            iteration: it,
            elapsed: began.elapsed(),
        })
    };
    let strategy = Strategy {
        scheduler: step.scheduler.unwrap_or(options.strategy.scheduler),
        seed: options.strategy.seed,
    };
    let closeness = |g: &RiseEGraph| sketch_progress(g, &step.sketch, root);
    let guide = Guide {
        root,
        progress: &closeness,
        goal_bytes_per_id: SketchTable::bytes_per_id(&step.sketch),
    };
    let mut record = runner::run_with(
        &mut eg,
        &rules,
        &limits,
        &strategy,
        Some(&guide),
        &mut assumptions,
        &mut satisfied,
        &mut report,
    );
    record.name = Some(step.name.clone());
    record.sketch = Some(sketch_text(program, &step.sketch));
    record.summary.assumed = assumptions
        .assumed
        .iter()
        .map(|n| crate::core::print::program_nat_to_source(program, n))
        .collect();
    let (extracted, partial) = match checked {
        Checked::Found(e, cost) => {
            record.cost = Some(cost);
            (Some(e), Vec::new())
        }
        Checked::Partial(p) => (None, p.iter().map(|s| sketch_text(program, s)).collect()),
    };
    record.step_time = Some(began.elapsed());
    record.summary.message = record.step_line();
    StepSearch {
        egraph: eg,
        root,
        normal,
        rules,
        record,
        extracted,
        partial,
        assumed: assumptions.assumed,
    }
}

/// The successful search's outcome: `program` with the last step's result `term` and the
/// facts it relies on.
fn outcome(
    program: &TypedProgram,
    term: Expr,
    steps: Vec<SearchStats>,
    explanations: Vec<(String, Vec<ExplanationStep>)>,
) -> GuidedOutcome {
    let facts = facts_needed(&term, program.size_params.len(), &program.facts);
    GuidedOutcome {
        program: TypedProgram {
            name: program.name.clone(),
            term,
            size_params: program.size_params.clone(),
            value_params: program.value_params.clone(),
            facts,
            derived_from: Some(
                program
                    .derived_from
                    .clone()
                    .unwrap_or_else(|| std::sync::Arc::new(program.term.clone())),
            ),
        },
        steps,
        explanations,
    }
}

/// How close the root of `egraph` comes to satisfying `sketch`, in `[0, 1]`: the sketch nodes
/// its closest partial match satisfies, in order and at all, over twice the sketch's size
/// ([`crate::closest`]). The progress measure of the Monte Carlo tree search.
pub fn sketch_progress(egraph: &RiseEGraph, sketch: &Sketch, root: egg::Id) -> f64 {
    let closest = crate::closest::Closest::new(egraph, sketch);
    let (in_order, at_all) = closest.score(root);
    let (max_in_order, max_at_all) = closest.max_score();
    f64::from(in_order + at_all) / f64::from((max_in_order + max_at_all).max(1))
}

/// Two of `facts` that no sizes make whole numbers together ([`nat::can_both_be_whole`]).
fn conflicting_facts(facts: &[Nat]) -> Option<(&Nat, &Nat)> {
    facts.iter().enumerate().find_map(|(i, a)| {
        facts[i + 1..]
            .iter()
            .find(|b| !nat::can_both_be_whole(a, b))
            .map(|b| (a, b))
    })
}

/// The divisibility facts a term relies on: the program's own facts, plus every size in the
/// body's types and size arguments that is not a whole number by itself (`m/32`), with facts
/// implied by the others left out.
pub fn facts_needed(term: &Expr, size_params: usize, program_facts: &[Nat]) -> Vec<Nat> {
    let mut found: Vec<Nat> = Vec::new();
    let mut note = |n: &Nat| {
        if !nat::is_integral_given(n, program_facts) && !found.contains(n) {
            found.push(n.clone());
        }
    };
    let mut stack = vec![(term, 0usize)];
    while let Some((e, depth)) = stack.pop() {
        if depth == size_params {
            type_sizes(&e.ty, &mut note);
        }
        match &e.kind {
            ExprKind::NatLambda(b) => stack.push((b, depth + 1)),
            ExprKind::Lambda(b) => stack.push((b, depth)),
            ExprKind::NatApp(b, n) => {
                if depth == size_params {
                    note(n);
                }
                stack.push((b, depth));
            }
            ExprKind::App(f, a) => {
                stack.push((f, depth));
                stack.push((a, depth));
            }
            _ => {}
        }
    }
    // Keep a fact only if the others (and the program's) do not imply it.
    let mut kept: Vec<Nat> = Vec::new();
    for (i, n) in found.iter().enumerate() {
        let others: Vec<Nat> = program_facts
            .iter()
            .chain(kept.iter())
            .chain(found[i + 1..].iter())
            .cloned()
            .collect();
        if !nat::is_integral_given(n, &others) {
            kept.push(n.clone());
        }
    }
    program_facts.iter().cloned().chain(kept).collect()
}

fn type_sizes(t: &Type, note: &mut dyn FnMut(&Nat)) {
    match t.get() {
        TypeNode::Array(n, e) | TypeNode::Vector(n, e) => {
            note(n);
            type_sizes(e, note);
        }
        TypeNode::Idx(n) => note(n),
        TypeNode::Pair(a, b) | TypeNode::Fun(a, b) => {
            type_sizes(a, note);
            type_sizes(b, note);
        }
        TypeNode::NatFun(_) | TypeNode::Scalar(_) | TypeNode::Meta(..) => {}
    }
}
