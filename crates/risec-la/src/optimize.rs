//! The optimiser's driver: build the e-graph, saturate it within limits, extract the plan, and
//! check it numerically; and proving assertions.

use super::check::{Assertion, Input, LaProgram, Op, Term};
use super::eval;
use super::extract::{dag_cost, greedy_dag, Extracted};
use super::guard::{self, Guard, GuardedScheduler, LaScheduler, Limit, RebuildCost};
use super::lang::{LaAnalysis, LaEGraph, Math};
use super::lower::Lowering;
use super::print;
use super::rules;
use crate::eqsat::schedule::Scheduler;
use egg::{Id, RecExpr, Rewrite, RewriteScheduler, Runner, SearchMatches, StopReason};
use rand::SeedableRng;
use rand_xorshift::XorShiftRng;
use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Limits and strategy of one saturation.
#[derive(Clone, Debug)]
pub struct LaOptions {
    /// Wall-clock limit of one job: the outputs' saturation, extraction and plan together
    /// (the saturation takes at most 3/4 of it), or one assertion's saturation.
    pub time: Duration,
    /// Limit on the process's resident memory, in bytes (the outputs' saturation stops at 3/4
    /// of it, leaving the rest to extraction).
    pub memory: u64,
    /// E-node limit.
    pub nodes: usize,
    /// Iteration limit.
    pub iterations: usize,
    /// How rule matches are applied: `simple` (all), `backoff`, or `sample(K)` (at most K per
    /// rule and iteration, SPORES' sampling).
    pub scheduler: Scheduler,
    /// Seed of `sample`.
    pub seed: u64,
    /// How the plan is extracted.
    pub extractor: Extractor,
}

/// How the plan is chosen from the saturated e-graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extractor {
    /// The CSE-aware greedy DAG extractor (fast; not always optimal).
    Greedy,
    /// The ILP of SPORES within a time limit, seeded with the greedy plan (needs the cargo
    /// feature `ilp`).
    Ilp(Duration),
}

impl Default for LaOptions {
    fn default() -> LaOptions {
        LaOptions {
            time: Duration::from_secs(1),
            memory: crate::support::memory::default_limit(),
            nodes: 200_000,
            iterations: 100,
            scheduler: Scheduler::Simple,
            seed: 0,
            extractor: Extractor::Greedy,
        }
    }
}

/// What a saturation did.
#[derive(Clone, Debug)]
pub struct SaturationStats {
    /// Iterations run.
    pub iterations: usize,
    /// E-nodes at the end.
    pub enodes: usize,
    /// E-classes at the end.
    pub eclasses: usize,
    /// Why it stopped, in words (`saturated`, `node limit`, …), and the limit that cut the
    /// translation of the terms into relations before it, if one did.
    pub stop: String,
    /// Time spent translating the terms into the e-graph and saturating.
    pub time: Duration,
}

/// An optimised `.la` file.
#[derive(Clone, Debug)]
pub struct LaPlan {
    /// The plan as `.la` text (`let`s and `output`s).
    pub text: String,
    /// The plan's nodes and, for each output, its name and root.
    pub expr: RecExpr<Math>,
    /// Output names and their roots in `expr`.
    pub roots: Vec<(String, Id)>,
    /// The cost model's figure for the input as written.
    pub original_cost: f64,
    /// The cost model's figure for the plan.
    pub plan_cost: f64,
    /// The saturation.
    pub stats: SaturationStats,
    /// Time spent extracting.
    pub extraction: Duration,
    /// How the plan was extracted, in words (`greedy`; `ilp: optimal, 812 variables, greedy
    /// cost 1.2e6`, …).
    pub extractor: String,
    /// Why the plan may not be the cheapest the e-graph holds: a limit stopped the extraction
    /// (then the plan is the cheapest found by then, or the outputs as written), in words.
    pub cut: Option<String>,
}

/// Why no plan came out.
#[derive(Debug, thiserror::Error)]
pub enum OptimizeError {
    /// The extractor found no plan made of matrix operations (a bug: the input itself is one).
    #[error("error: internal compiler error: no linear-algebra plan was extracted")]
    NoPlan,
    /// `--extractor ilp` in a risec built without the `ilp` feature.
    #[error("error: this risec was built without the ILP extractor (cargo build --features ilp)")]
    NoIlp,
    /// `--scheduler mcts` is for Rise searches only.
    #[error("error: the scheduler `{0}` is not available for linear algebra (use simple, backoff or sample(K))")]
    Scheduler(String),
}

/// `sample(K)`: at most K matches per rule and iteration, drawn at random; after an iteration
/// that changed nothing but held matches back, the next applies every match (the meaning of
/// `sample(K)` in sketch files too: [`risec_eqsat::schedule::sampling`]).
struct Sampling {
    k: usize,
    rng: XorShiftRng,
    /// Whether the current iteration held matches back (then it is not saturation).
    held_back: bool,
    /// The iteration that applies every match, after one that stalled.
    full_iteration: Option<usize>,
}

impl RewriteScheduler<Math, LaAnalysis> for Sampling {
    fn can_stop(&mut self, iteration: usize) -> bool {
        // An iteration that changed nothing but held matches back is not saturation: the next
        // one applies every match.
        if std::mem::take(&mut self.held_back) {
            self.full_iteration = Some(iteration + 1);
            false
        } else {
            true
        }
    }

    fn search_rewrite<'a>(
        &mut self,
        iteration: usize,
        egraph: &LaEGraph,
        rewrite: &'a Rewrite<Math, LaAnalysis>,
    ) -> Vec<SearchMatches<'a, Math>> {
        let mut matches = rewrite.search(egraph);
        if self.full_iteration == Some(iteration) {
            return matches;
        }
        let total: usize = matches.iter().map(|m| m.substs.len()).sum();
        let Some(picked) =
            risec_eqsat::schedule::sampling::sample_indices(&mut self.rng, self.k, total)
        else {
            return matches;
        };
        self.held_back = true;
        // Keep the picked matches, numbered across the e-classes in search order.
        let mut next = 0;
        let mut picked = picked.into_iter().peekable();
        for m in &mut matches {
            m.substs.retain(|_| {
                let keep = picked.peek() == Some(&next);
                if keep {
                    picked.next();
                }
                next += 1;
                keep
            });
        }
        matches.retain(|m| !m.substs.is_empty());
        matches
    }
}

fn all_rules() -> Vec<Rewrite<Math, LaAnalysis>> {
    let mut r = rules::relational();
    r.extend(rules::lifting());
    r
}

/// A limit that stopped a saturation or an extraction, in words.
fn limit_text(limit: Limit, options: &LaOptions, memory: u64) -> String {
    match limit {
        Limit::Time => "time limit".into(),
        Limit::Memory { used } => format!(
            "memory limit ({}; {} resident)",
            crate::support::units::format_bytes(memory),
            crate::support::units::format_bytes(used)
        ),
        Limit::Nodes => format!("e-node limit ({})", options.nodes),
    }
}

fn stop_text(reason: &Option<StopReason>) -> String {
    match reason {
        Some(StopReason::Saturated) => "saturated".into(),
        Some(StopReason::IterationLimit(n)) => format!("iteration limit ({n})"),
        Some(StopReason::NodeLimit(n)) => format!("e-node limit ({n})"),
        Some(StopReason::TimeLimit(_)) => "time limit".into(),
        Some(StopReason::Other(s)) => s.clone(),
        None => "not run".into(),
    }
}

/// A test that ends a saturation early: true when its goal is reached.
type GoalTest = Box<dyn Fn(&LaEGraph) -> bool>;

/// The scheduler's error, before any work, when it is not one for linear algebra.
fn check_scheduler(options: &LaOptions) -> Result<(), OptimizeError> {
    match options.scheduler {
        Scheduler::Simple | Scheduler::Backoff { .. } | Scheduler::Sample(_) => Ok(()),
        other => Err(OptimizeError::Scheduler(other.to_string())),
    }
}

/// The terms of `terms` added to a new e-graph, their classes, and the limit that stopped
/// their translation into relations, if one did. The translation is under the limits of
/// `guard` (the saturation's), within half of its time and of its e-nodes: the rebuild that
/// follows, about half as long as the translation, cannot be interrupted, and the rules get
/// the rest.
fn lower(inputs: &[Input], terms: &[&Term], guard: &Guard) -> (LaEGraph, Vec<Id>, Option<Limit>) {
    let mut egraph = LaEGraph::new(LaAnalysis::default());
    let part = guard.half();
    let mut lowering = Lowering::new(&mut egraph, inputs, &part);
    let ids: Vec<Id> = terms.iter().map(|t| lowering.add(t)).collect();
    egraph.rebuild();
    let ids = ids.into_iter().map(|id| egraph.find(id)).collect();
    (egraph, ids, part.stopped())
}

/// Why the saturation stopped (`stop`, at `limit` if a limit stopped it), and the limit that
/// stopped the translation before it (`translation`) when that is another one.
fn with_translation(
    stop: String,
    limit: Option<Limit>,
    translation: Option<Limit>,
    options: &LaOptions,
    memory: u64,
) -> String {
    let kind = |l: Limit| std::mem::discriminant(&l);
    match translation {
        Some(t) if limit.map(kind) != Some(kind(t)) => {
            let at = match t {
                Limit::Time => "half the time limit".to_string(),
                Limit::Nodes => format!("half the e-node limit ({})", options.nodes / 2),
                other => format!("the {}", limit_text(other, options, memory)),
            };
            format!("{stop}; the translation into relations stopped at {at}")
        }
        _ => stop,
    }
}

/// Runs the rules on `egraph` within `options`' node and iteration limits and the limits of
/// `guard` (time, `memory` bytes of resident memory and e-nodes: [`guard`], the limits hold
/// inside an iteration), which was made before the terms were added ([`lower`]): a guard that
/// the translation spent stops the saturation before it begins. `stop` may end the run early
/// (it returns true when the goal is reached); `translation` is the limit that stopped the
/// translation, if one did (the stop reason says so).
fn saturate(
    egraph: LaEGraph,
    options: &LaOptions,
    guard: Arc<Guard>,
    memory: u64,
    stop: Option<GoalTest>,
    translation: Option<Limit>,
) -> Result<(LaEGraph, SaturationStats), OptimizeError> {
    let start = guard.started();
    let stats = |egraph: &LaEGraph, iterations, stop, limit| SaturationStats {
        iterations,
        enodes: egraph.total_number_of_nodes(),
        eclasses: egraph.number_of_classes(),
        stop: with_translation(stop, limit, translation, options, memory),
        time: start.elapsed(),
    };
    if guard.check() || guard.full(&egraph) {
        // Spent before the first iteration (by the translation): egg's runner would still
        // rebuild the whole e-graph twice.
        let limit = guard.stopped().expect("a guard that stopped says why");
        let stats = stats(&egraph, 0, limit_text(limit, options, memory), Some(limit));
        return Ok((egraph, stats));
    }
    let rules = guard::guard_rules(all_rules(), &guard);
    let mut runner = Runner::<Math, LaAnalysis, ()>::new(LaAnalysis::default())
        .with_egraph(egraph)
        .with_time_limit(guard.remaining())
        .with_node_limit(options.nodes)
        .with_iter_limit(options.iterations);
    if let Some(stop) = stop {
        runner = runner.with_hook(move |r| {
            if stop(&r.egraph) {
                Err("proven".to_string())
            } else {
                Ok(())
            }
        });
    }
    let watch = guard.clone();
    runner = runner.with_hook(move |r| {
        // The rebuild that ends an iteration cannot be interrupted: what it cost so far.
        let cost = RebuildCost::estimate(r.iterations.iter().map(|i| {
            let merges: usize = i.applied.values().sum();
            (i.egraph_nodes, merges, i.rebuild_time)
        }));
        watch.begin_iteration(r.egraph.total_size(), cost);
        if watch.check() {
            Err(guard::GUARD_STOP.to_string())
        } else {
            Ok(())
        }
    });
    let guarded = |inner: Box<LaScheduler>| GuardedScheduler {
        inner,
        guard: guard.clone(),
    };
    let runner = match &options.scheduler {
        Scheduler::Simple => runner.with_scheduler(guarded(Box::new(egg::SimpleScheduler))),
        Scheduler::Backoff {
            match_limit,
            ban_length,
        } => runner.with_scheduler(guarded(Box::new(
            egg::BackoffScheduler::default()
                .with_initial_match_limit(*match_limit)
                .with_ban_length(*ban_length),
        ))),
        Scheduler::Sample(k) => runner.with_scheduler(guarded(Box::new(Sampling {
            k: *k,
            rng: XorShiftRng::seed_from_u64(options.seed),
            held_back: false,
            full_iteration: None,
        }))),
        other => return Err(OptimizeError::Scheduler(other.to_string())),
    };
    let runner = runner.run(&rules);
    let stop = match guard.stopped() {
        Some(limit) => limit_text(limit, options, memory),
        None => stop_text(&runner.stop_reason),
    };
    let stats = stats(
        &runner.egraph,
        runner.iterations.len(),
        stop,
        guard.stopped(),
    );
    Ok((runner.egraph, stats))
}

/// The matrix nodes of terms as written, with their classes (for the original's cost).
fn written_nodes(egraph: &LaEGraph, names: &[Input], terms: &[&Term]) -> Vec<(Id, Math)> {
    let mut out = Vec::new();
    let mut seen: FxHashMap<*const super::check::Node, Option<Id>> = FxHashMap::default();
    fn go(
        egraph: &LaEGraph,
        t: &Term,
        names: &[Input],
        seen: &mut FxHashMap<*const super::check::Node, Option<Id>>,
        out: &mut Vec<(Id, Math)>,
    ) -> Option<Id> {
        if let Some(class) = seen.get(&std::rc::Rc::as_ptr(t)) {
            return *class;
        }
        let args: Vec<Id> = t
            .args
            .iter()
            .map(|a| crate::support::stack::guarded(|| go(egraph, a, names, seen, out)))
            .collect::<Option<_>>()?;
        let node = super::lower::matrix_node(t.op, &args, names, |f| egraph.lookup(Math::Func(f)))?;
        let class = egraph.lookup(node.clone())?;
        seen.insert(std::rc::Rc::as_ptr(t), Some(class));
        out.push((class, node));
        Some(class)
    }
    for t in terms {
        go(egraph, t, names, &mut seen, &mut out);
    }
    out
}

/// Optimises every output of `program` together (shared subexpressions are shared), within
/// `options.time`: the saturation takes at most 3/4 of it (and 3/4 of `options.memory`), the
/// extraction the rest. An extraction that a limit stops gives the cheapest plan found by
/// then, or the outputs as written when some output has none yet ([`LaPlan::cut`] says so).
pub fn optimize(program: &LaProgram, options: &LaOptions) -> Result<LaPlan, OptimizeError> {
    let began = Instant::now();
    check_scheduler(options)?;
    let terms: Vec<&Term> = program.outputs.iter().map(|(_, t)| t).collect();
    // The saturation's limits hold from the translation into the e-graph on.
    let memory = options.memory - options.memory / 4;
    let guard = Guard::new(options.time - options.time / 4, memory, options.nodes);
    let (egraph, ids, translation) = lower(&program.inputs, &terms, &guard);
    let roots: Vec<(String, Id)> = program
        .outputs
        .iter()
        .zip(ids)
        .map(|((name, _), id)| (name.clone(), id))
        .collect();
    let (egraph, stats) = saturate(egraph, options, guard, memory, None, translation)?;
    let start = Instant::now();
    let guard = Guard::new(
        options.time.saturating_sub(began.elapsed()),
        options.memory,
        usize::MAX,
    );
    let root_ids: Vec<Id> = roots.iter().map(|(_, r)| egraph.find(*r)).collect();
    let original_cost = original_cost(&egraph, program, &terms);
    let (greedy, limit) = greedy_dag(&egraph, &root_ids, &guard);
    let cut = limit.map(|l| limit_text(l, options, options.memory));
    let (expr, placed, cost, extractor) = match (greedy, &cut) {
        (Some(greedy), None) => {
            let (chosen, extractor) = finish_extraction(&egraph, &root_ids, greedy, options)?;
            (chosen.expr, chosen.roots, chosen.cost, extractor)
        }
        (Some(greedy), Some(_)) => (
            greedy.expr,
            greedy.roots,
            greedy.cost,
            "greedy, stopped: the cheapest plan found by then".to_string(),
        ),
        (None, Some(_)) => {
            let (expr, written) = super::codegen::written(program);
            let placed = written.into_iter().map(|(_, r)| r).collect();
            (
                expr,
                placed,
                original_cost,
                "none, stopped before every output had a plan: the outputs as written".to_string(),
            )
        }
        (None, None) => return Err(OptimizeError::NoPlan),
    };
    let extraction = start.elapsed();
    let cut = cut.map(|limit| {
        let plan = if extractor.starts_with("none") {
            "the outputs as written"
        } else {
            "the cheapest found by then"
        };
        format!("the extraction stopped at the {limit}: the plan is {plan}")
    });
    let named: Vec<(String, Id)> = roots
        .iter()
        .zip(placed)
        .map(|((n, _), r)| (n.clone(), r))
        .collect();
    discard(egraph);
    Ok(LaPlan {
        text: print::plan(&expr, &named),
        expr,
        roots: named,
        original_cost,
        plan_cost: cost,
        stats,
        extraction,
        extractor,
        cut,
    })
}

/// The greedy plan, or the ILP's seeded with it, and how it was extracted, in words.
#[cfg_attr(not(feature = "ilp"), allow(unused_variables))]
fn finish_extraction(
    egraph: &LaEGraph,
    root_ids: &[Id],
    greedy: Extracted,
    options: &LaOptions,
) -> Result<(Extracted, String), OptimizeError> {
    Ok(match options.extractor {
        Extractor::Greedy => (greedy, "greedy".to_string()),
        #[cfg(feature = "ilp")]
        Extractor::Ilp(time) => {
            let greedy_cost = greedy.cost;
            let outcome = super::ilp::extract(egraph, root_ids, &greedy, time);
            let note = format!(
                "ilp: {}, {} variables, greedy cost {greedy_cost:.4e}, ILP cost {:.4e}",
                if outcome.optimal {
                    "proven optimal"
                } else {
                    "not proven optimal"
                },
                outcome.variables,
                outcome.plan.cost
            );
            (outcome.plan, note)
        }
        #[cfg(not(feature = "ilp"))]
        Extractor::Ilp(_) => return Err(OptimizeError::NoIlp),
    })
}

/// Frees a large e-graph on another thread ([`crate::support::memory::discard`]).
fn discard(egraph: LaEGraph) {
    if egraph.total_size() >= 100_000 {
        crate::support::memory::discard(egraph);
    }
}

fn original_cost(egraph: &LaEGraph, program: &LaProgram, terms: &[&Term]) -> f64 {
    let nodes = written_nodes(egraph, &program.inputs, terms);
    dag_cost(egraph, &nodes)
}

/// The result of trying to prove one assertion.
#[derive(Clone, Debug)]
pub struct Proof {
    /// Whether both sides ended in one e-class.
    pub proven: bool,
    /// The saturation.
    pub stats: SaturationStats,
}

/// Tries to prove `assertion` by saturation: both sides are added to one e-graph, which grows
/// until they are in one e-class or a limit is reached.
pub fn prove(
    program: &LaProgram,
    assertion: &Assertion,
    options: &LaOptions,
) -> Result<Proof, OptimizeError> {
    check_scheduler(options)?;
    let guard = Guard::new(options.time, options.memory, options.nodes);
    let (egraph, ids, translation) =
        lower(&program.inputs, &[&assertion.lhs, &assertion.rhs], &guard);
    let (a, b) = (ids[0], ids[1]);
    if a == b {
        return Ok(Proof {
            proven: true,
            stats: SaturationStats {
                iterations: 0,
                enodes: egraph.total_number_of_nodes(),
                eclasses: egraph.number_of_classes(),
                stop: "proven".into(),
                time: guard.started().elapsed(),
            },
        });
    }
    let stop = Box::new(move |eg: &LaEGraph| eg.find(a) == eg.find(b));
    let (egraph, stats) = saturate(
        egraph,
        options,
        guard,
        options.memory,
        Some(stop),
        translation,
    )?;
    let proven = egraph.find(a) == egraph.find(b);
    discard(egraph);
    Ok(Proof { proven, stats })
}

/// The outcome of checking a plan against the input as written.
#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    /// Every output agrees within this relative error, on random inputs.
    Agrees(f64),
    /// An output differs: its name and the relative error.
    Differs(String, f64),
    /// Not evaluated: the sizes are too large for the dense evaluator.
    TooLarge(f64),
    /// Not evaluated: the dense evaluator's matrices (about this many bytes) do not fit in
    /// what the memory limit leaves.
    OverMemory(u64),
}

/// The most entries (inputs, intermediates and work) the dense check takes on.
const CHECK_BUDGET: f64 = 1.0e8;

/// Evaluates the outputs as written and the plan on the same random inputs (dense and sparse).
pub fn check_plan(program: &LaProgram, plan: &LaPlan, seed: u64) -> Check {
    check_plan_within(program, plan, seed, crate::support::memory::default_limit())
}

/// [`check_plan`] within `memory` bytes of resident memory: not evaluated
/// ([`Check::OverMemory`]) when its matrices would not fit.
pub fn check_plan_within(program: &LaProgram, plan: &LaPlan, seed: u64, memory: u64) -> Check {
    if let Err(refusal) = evaluation_fits(program, memory) {
        return refusal;
    }
    let inputs = eval::random_inputs(&program.inputs, seed);
    let names: FxHashMap<String, usize> = program
        .inputs
        .iter()
        .enumerate()
        .map(|(k, i)| (i.name.clone(), k))
        .collect();
    let mut worst = 0.0f64;
    for ((name, term), (_, root)) in program.outputs.iter().zip(&plan.roots) {
        // Relative to the largest intermediate: that is the scale of the rounding errors.
        let (expected, scale) = eval::term_with_scale(term, &inputs);
        let error = eval::plan(&plan.expr, *root, &names, &inputs)
            .and_then(|got| eval::relative_error_at(&expected, &got, scale))
            .unwrap_or(f64::INFINITY);
        if error > 1e-9 {
            return Check::Differs(name.clone(), error);
        }
        worst = worst.max(error);
    }
    Check::Agrees(worst)
}

/// Evaluates both sides of `assertion` on the same random inputs (as [`check_plan`] does): a
/// proven assertion must agree. `Differs` carries the assertion's text.
pub fn check_assertion(program: &LaProgram, assertion: &Assertion, seed: u64) -> Check {
    let mut seen = FxHashMap::default();
    let work = dense_work(&assertion.lhs, &mut seen)
        + dense_work(&assertion.rhs, &mut seen)
        + program.inputs.iter().map(|i| i.shape.size()).sum::<f64>();
    if work > CHECK_BUDGET {
        return Check::TooLarge(work);
    }
    let inputs = eval::random_inputs(&program.inputs, seed);
    let (lhs, lhs_scale) = eval::term_with_scale(&assertion.lhs, &inputs);
    let (rhs, rhs_scale) = eval::term_with_scale(&assertion.rhs, &inputs);
    let error =
        eval::relative_error_at(&lhs, &rhs, lhs_scale.max(rhs_scale)).unwrap_or(f64::INFINITY);
    if error > 1e-9 {
        Check::Differs(assertion.text.clone(), error)
    } else {
        Check::Agrees(error)
    }
}

/// Whether the dense evaluator can evaluate the outputs as written within the numerical
/// check's budget of operations and `memory` bytes (what [`check_plan_within`] evaluates).
pub(crate) fn evaluable(program: &LaProgram, memory: u64) -> bool {
    evaluation_fits(program, memory).is_ok()
}

/// `Ok` when the outputs as written (and a plan as large) fit the check's memory and
/// operation budgets; else the [`Check`] that says which does not.
fn evaluation_fits(program: &LaProgram, memory: u64) -> Result<(), Check> {
    let inputs = program.inputs.iter().map(|i| i.shape.size()).sum::<f64>();
    let mut sizes = FxHashMap::default();
    let entries = program
        .outputs
        .iter()
        .map(|(_, t)| dense_entries(t, &mut sizes))
        .sum::<f64>()
        + inputs;
    // 8 bytes an entry, twice: the evaluator's memo holds each intermediate and hands out
    // copies, and the plan's intermediates are about as large.
    let bytes = (entries * 16.0).min(u64::MAX as f64) as u64;
    if crate::support::memory::would_exceed(memory, bytes).is_some() {
        return Err(Check::OverMemory(bytes));
    }
    let mut seen = FxHashMap::default();
    let work = program
        .outputs
        .iter()
        .map(|(_, t)| dense_work(t, &mut seen))
        .sum::<f64>()
        + inputs;
    if work > CHECK_BUDGET {
        return Err(Check::TooLarge(work));
    }
    Ok(())
}

/// A bound on the dense evaluator's work for a term as written; each shared term once.
/// The entries of a term's distinct subterms as written (what the dense evaluator holds).
fn dense_entries(t: &Term, seen: &mut FxHashMap<*const super::check::Node, ()>) -> f64 {
    if seen.insert(std::rc::Rc::as_ptr(t), ()).is_some() {
        return 0.0;
    }
    t.shape.size()
        + t.args
            .iter()
            .map(|a| crate::support::stack::guarded(|| dense_entries(a, seen)))
            .sum::<f64>()
}

fn dense_work(t: &Term, seen: &mut FxHashMap<*const super::check::Node, ()>) -> f64 {
    if seen.insert(std::rc::Rc::as_ptr(t), ()).is_some() {
        return 0.0;
    }
    let own = match t.op {
        Op::MatMul => t.args[0].shape.size() * t.args[1].shape.cols as f64,
        _ => t.shape.size() + t.args.iter().map(|a| a.shape.size()).sum::<f64>(),
    };
    own + t
        .args
        .iter()
        .map(|a| crate::support::stack::guarded(|| dense_work(a, seen)))
        .sum::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::tests::let_chain;

    #[test]
    fn a_long_let_chain_stops_at_its_limits_before_the_saturation() {
        // The translation into relations is under the saturation's limits: past them, no
        // iteration runs (egg's runner would first rebuild the whole e-graph twice).
        let program = let_chain(400, true);
        let spent = LaOptions {
            time: Duration::ZERO,
            ..LaOptions::default()
        };
        let plan = optimize(&program, &spent).unwrap();
        assert_eq!(
            (plan.stats.stop.as_str(), plan.stats.iterations),
            ("time limit", 0)
        );
        assert!(plan.cut.is_some(), "the extraction has no time either");
        let proof = prove(&program, &program.assertions[0], &spent).unwrap();
        assert!(!proof.proven);
        assert_eq!(
            (proof.stats.stop.as_str(), proof.stats.iterations),
            ("time limit", 0)
        );
        let few = LaOptions {
            nodes: 10,
            ..LaOptions::default()
        };
        let plan = optimize(&program, &few).unwrap();
        assert_eq!(plan.stats.stop, "e-node limit (10)");
        assert_eq!(plan.stats.iterations, 0);
        // The plan is found all the same (the outputs as written are in the e-graph).
        assert_eq!(plan.plan_cost, plan.original_cost);
        // A translation cut by a limit that did not stop the saturation is reported.
        let cut = LaOptions {
            nodes: 2_000,
            iterations: 0,
            ..LaOptions::default()
        };
        let plan = optimize(&program, &cut).unwrap();
        assert_eq!(
            plan.stats.stop,
            "iteration limit (0); the translation into relations stopped at half the e-node limit (1000)"
        );
    }
}
