//! Sketch-guided equality saturation (Listing 3 of the paper): for each guide step, a fresh
//! e-graph from the previous result in beta-eta normal form, grown with the step's rules plus
//! the normal-form rules until the root satisfies the step's sketch (checked after every
//! iteration, without extracting), then the cheapest satisfying term is extracted and becomes
//! the next step's start. A global time budget bounds all steps together.

use crate::core::normalize::program_normal;
use crate::core::{Expr, ExprKind, TypedProgram};
use crate::eqsat::egraph::{self, RiseEGraph};
use crate::eqsat::rewrite::{Assumptions, Rule};
use crate::eqsat::runner::{self, Limits, StopReason};
use crate::ir::nat::{self, Nat};
use crate::ir::types::{Type, TypeNode};
use crate::sketch::extract::SketchTable;
use crate::sketch::resolve::GuideStep;
use serde::Serialize;
use std::time::{Duration, Instant};

/// Options of a guided search.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// The time all steps together may take.
    pub total_time: Duration,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            total_time: Duration::from_secs(60),
        }
    }
}

/// Where a search is, reported once per iteration (for progress lines).
#[derive(Clone, Debug)]
pub struct Progress<'a> {
    /// The step's name.
    pub step: &'a str,
    /// Its position (from 1) and the number of steps.
    pub index: (usize, usize),
    /// Iterations done in this step.
    pub iteration: usize,
    /// E-nodes now.
    pub nodes: usize,
    /// Time since the step began.
    pub elapsed: Duration,
}

/// What one guide step did (the `--stats` record).
#[derive(Clone, Debug, Serialize)]
pub struct StepStats {
    /// The step's name.
    pub name: String,
    /// Whether its sketch was satisfied.
    pub found: bool,
    /// Why the search stopped (`goal reached`, `nodes limit`, …).
    pub stop: String,
    /// Iterations run.
    pub iterations: usize,
    /// Rewrites that changed the e-graph, per rule.
    pub rewrites: std::collections::BTreeMap<String, usize>,
    /// E-nodes at the end.
    pub nodes: usize,
    /// E-classes at the end.
    pub classes: usize,
    /// Wall time of the step, in milliseconds (search and extraction).
    pub time_ms: f64,
    /// Peak resident memory of the process after the step, in bytes, when known.
    pub peak_rss: Option<u64>,
    /// Cost of the extracted term under the step's cost model.
    pub cost: Option<u64>,
}

/// A successful guided search.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The result of the last step (not yet lowered), with the facts it relies on.
    pub program: TypedProgram,
    /// One record per step.
    pub steps: Vec<StepStats>,
}

/// A step whose sketch was not satisfied.
#[derive(Clone, Debug)]
pub struct NotFound {
    /// The records of the steps run (the last is the failed one).
    pub steps: Vec<StepStats>,
    /// The failed step's name.
    pub step: String,
    /// What stopped it.
    pub stop: StopReason,
    /// The limits it ran under.
    pub limits: Limits,
    /// The largest parts of the sketch that the root does satisfy.
    pub partial: Vec<String>,
}

impl NotFound {
    /// The message `risec` prints.
    pub fn message(&self) -> String {
        let last = self.steps.last();
        let (nodes, classes, iterations) =
            last.map_or((0, 0, 0), |s| (s.nodes, s.classes, s.iterations));
        let why = match self.stop {
            StopReason::Saturated => {
                "the e-graph saturated (the rules can reach nothing more)".to_string()
            }
            StopReason::TimeLimit => format!("the time limit ({:?}) stopped it", self.limits.time),
            StopReason::NodeLimit => format!("the e-node limit ({}) stopped it", self.limits.nodes),
            StopReason::IterationLimit => {
                format!(
                    "the iteration limit ({}) stopped it",
                    self.limits.iterations
                )
            }
            StopReason::MemoryLimit => {
                format!("the memory limit ({} bytes) stopped it", self.limits.memory)
            }
            StopReason::Goal => "it stopped".to_string(),
        };
        let mut out = format!(
            "error: step `{}`: the sketch was not satisfied: {why}, after {iterations} iterations \
             with {nodes} e-nodes in {classes} e-classes\n",
            self.step
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
        out
    }
}

/// The normal-form rules every step uses besides its own.
fn normal_form_rules() -> Vec<Rule> {
    vec![
        Rule::beta(),
        Rule::beta_nat(),
        crate::eqsat::rules::lookup("eta").expect("eta exists"),
    ]
}

/// Runs the guide steps on `program`; `progress` is called once per iteration.
pub fn run(
    program: &TypedProgram,
    steps: &[GuideStep],
    options: &SearchOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Outcome, NotFound> {
    let start = Instant::now();
    let mut term = program.term.clone();
    let mut stats = Vec::new();
    let mut assumed: Vec<Nat> = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let began = Instant::now();
        let normal = program_normal(&term).unwrap_or(term.clone());
        let mut eg = RiseEGraph::default();
        let root = egraph::add_expr(&mut eg, &normal);
        let mut rules = step.rules.clone();
        for r in normal_form_rules() {
            if !rules.iter().any(|q| q.name == r.name) {
                rules.push(r);
            }
        }
        let mut limits = step.limits.clone();
        limits.time = limits
            .time
            .min(options.total_time.saturating_sub(start.elapsed()));
        let mut assumptions = Assumptions {
            facts: program.facts.iter().chain(&assumed).cloned().collect(),
            allow_new: true,
            assumed: Vec::new(),
        };
        let mut calls = 0;
        let mut satisfied = |g: &RiseEGraph| {
            progress(&Progress {
                step: &step.name,
                index: (i + 1, steps.len()),
                iteration: calls,
                nodes: g.total_number_of_nodes(),
                elapsed: began.elapsed(),
            });
            calls += 1;
            SketchTable::new(g, &step.sketch, step.cost)
                .cost_at(root)
                .is_some()
        };
        let report = runner::run(&mut eg, &rules, &limits, &mut assumptions, &mut satisfied);
        assumed.extend(assumptions.assumed);
        let mut record = StepStats {
            name: step.name.clone(),
            found: report.stop == StopReason::Goal,
            stop: report.stop.to_string(),
            iterations: report.iterations.len(),
            rewrites: Default::default(),
            nodes: report.nodes,
            classes: report.classes,
            time_ms: 0.0,
            peak_rss: report.peak_memory,
            cost: None,
        };
        for it in &report.iterations {
            for (rule, n) in &it.applied {
                *record.rewrites.entry(rule.clone()).or_default() += n;
            }
        }
        let table = SketchTable::new(&eg, &step.sketch, step.cost);
        match table.extract(root) {
            Some(e) => {
                record.cost = table.cost_at(root);
                record.time_ms = began.elapsed().as_secs_f64() * 1e3;
                stats.push(record);
                term = e;
            }
            None => {
                let partial = table
                    .partial_matches(&step.sketch, root)
                    .iter()
                    .map(|s| {
                        s.to_text(&|n| {
                            let shown = crate::core::print::program_nat_to_source(program, n);
                            if shown.contains(['+', '-', '*', '/', '%', '^']) {
                                format!("({shown})")
                            } else {
                                shown
                            }
                        })
                    })
                    .collect();
                record.time_ms = began.elapsed().as_secs_f64() * 1e3;
                stats.push(record);
                return Err(NotFound {
                    steps: stats,
                    step: step.name.clone(),
                    stop: report.stop,
                    limits,
                    partial,
                });
            }
        }
    }
    let facts = facts_needed(&term, program.size_params.len(), &program.facts);
    Ok(Outcome {
        program: TypedProgram {
            name: program.name.clone(),
            term,
            size_params: program.size_params.clone(),
            value_params: program.value_params.clone(),
            facts,
        },
        steps: stats,
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
