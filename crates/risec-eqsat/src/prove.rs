//! `risec prove`: is a goal program reachable from a start program with a given set of rules?
//!
//! Both programs are elaborated, their entry points must have the same type, and both terms are
//! put in beta-eta normal form (unless asked not to). The e-graph is grown from the start term by
//! [`runner::run`] until the goal term is in the start's e-class, the e-graph saturates, or a
//! limit stops the search. [`Problem`] is the prepared search (everything before the timed part,
//! which is what the benchmarks measure), [`ProveOutcome`] what it found: the search's statistics
//! ([`SearchStats`]), the text `risec prove` prints, and what `--stats` writes ([`RunStats`]).

use crate::core::normalize::{program_normal, OutOfFuel};
use crate::core::print::{program_nat_to_source, program_type_to_source};
use crate::core::{Expr, TypedProgram};
use crate::egraph::{self, RiseEGraph};
use crate::explain::{self, ExplanationStep};
use crate::frontend::load::{compile_file, LoadError};
use crate::limits::{Limits, StopReason};
use crate::rewrite::{Assumptions, Rule};
use crate::rules::{self, RuleError};
use crate::runner;
use crate::schedule::Guide;
use crate::schedule::Strategy;
use crate::stats::{RunInput, RunStats, SearchStats};
use crate::support::units::{format_bytes, format_duration, format_duration_limit};
use std::fmt::Write as _;

/// How to run a proof search.
#[derive(Clone, Debug)]
pub struct ProveOptions {
    /// The rules, comma-separated as `rules::lookup_all` reads them (`map-fusion,split-join(32)`).
    pub rules: String,
    /// Put both terms in beta-eta normal form before the search.
    pub normalize: bool,
    /// When the search must stop.
    pub limits: Limits,
    /// The start file's entry point (default: its last definition).
    pub entry: Option<String>,
    /// The goal file's entry point (default: its last definition).
    pub goal_entry: Option<String>,
    /// Whether rules may assume divisibility facts they cannot prove (they are reported).
    pub assume: bool,
    /// The rule scheduler and its seed.
    pub strategy: Strategy,
    /// Record the rewrites from the start to the goal ([`ProveOutcome::explanation`]).
    pub explain: bool,
}

impl Default for ProveOptions {
    fn default() -> ProveOptions {
        ProveOptions {
            rules: String::new(),
            normalize: true,
            limits: Limits::default(),
            entry: None,
            goal_entry: None,
            assume: true,
            strategy: Strategy::default(),
            explain: false,
        }
    }
}

/// Why a search could not be prepared. `Display` gives the message `risec prove` prints.
#[derive(Debug, thiserror::Error)]
pub enum ProveError {
    /// The start or the goal file could not be read, parsed or type-checked.
    #[error(transparent)]
    Program(#[from] LoadError),
    /// The two entry points have different types.
    #[error(transparent)]
    TypesDiffer(Box<TypeMismatch>),
    /// A rule of `--rules` does not build.
    #[error("error: {0}")]
    Rule(#[from] RuleError),
    /// `--rules` names no rule.
    #[error(
        "error: no rules given: pass them as `--rules map-fusion,map-fission,eta,beta` \
         (`risec rules` lists them)"
    )]
    NoRules,
    /// A term's beta-eta normal form is too large to compute.
    #[error("error: cannot normalise `{name}` ({path}): {source}; try `--no-normalize`")]
    Normalize {
        /// The program's entry point.
        name: String,
        /// Where the program came from.
        path: String,
        /// Why normalisation gave up.
        source: OutOfFuel,
    },
}

/// The start and the goal of a search have different types ([`ProveError::TypesDiffer`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "error: the start and the goal have different types\n  \
     start `{start_name}` ({start_path}) : {start_type}\n  \
     goal  `{goal_name}` ({goal_path}) : {goal_type}"
)]
pub struct TypeMismatch {
    /// The start's entry point.
    pub start_name: String,
    /// Where the start program came from.
    pub start_path: String,
    /// The start's type, as source text.
    pub start_type: String,
    /// The goal's entry point.
    pub goal_name: String,
    /// Where the goal program came from.
    pub goal_path: String,
    /// The goal's type, as source text.
    pub goal_type: String,
}

/// A prepared search: both programs checked (and normalised), the rules built.
#[derive(Clone, Debug)]
pub struct Problem {
    /// The start program as elaborated.
    pub start: TypedProgram,
    /// The goal program as elaborated.
    pub goal: TypedProgram,
    /// Where the start program came from (a path, or a name given by the caller).
    pub start_path: String,
    /// Where the goal program came from.
    pub goal_path: String,
    /// The term the e-graph is grown from (normalised unless `normalized` is false).
    pub start_term: Expr,
    /// The term the search looks for.
    pub goal_term: Expr,
    /// The rules.
    pub rules: Vec<Rule>,
    /// Whether the terms were normalised.
    pub normalized: bool,
    /// Whether rules may assume divisibility facts.
    pub assume: bool,
}

impl Problem {
    /// Reads, elaborates, checks and normalises both files and builds the rules.
    pub fn load(start: &str, goal: &str, options: &ProveOptions) -> Result<Problem, ProveError> {
        let start_program = compile_file(start, options.entry.as_deref())?;
        let goal_program = compile_file(goal, options.goal_entry.as_deref())?;
        Problem::new(start_program, goal_program, start, goal, options)
    }

    /// Prepares a search between two elaborated programs; `start_path` and `goal_path` name them
    /// in messages.
    pub fn new(
        start: TypedProgram,
        goal: TypedProgram,
        start_path: &str,
        goal_path: &str,
        options: &ProveOptions,
    ) -> Result<Problem, ProveError> {
        if start.ty() != goal.ty() {
            return Err(ProveError::TypesDiffer(Box::new(TypeMismatch {
                start_name: start.name.clone(),
                start_path: start_path.to_string(),
                start_type: program_type_to_source(&start),
                goal_name: goal.name.clone(),
                goal_path: goal_path.to_string(),
                goal_type: program_type_to_source(&goal),
            })));
        }
        let rules = rules::lookup_all(&options.rules)?;
        if rules.is_empty() {
            return Err(ProveError::NoRules);
        }
        let prepare = |p: &TypedProgram, path: &str| -> Result<Expr, ProveError> {
            if !options.normalize {
                return Ok(p.term.clone());
            }
            program_normal(&p.term).map_err(|source| ProveError::Normalize {
                name: p.name.clone(),
                path: path.to_string(),
                source,
            })
        };
        Ok(Problem {
            start_term: prepare(&start, start_path)?,
            goal_term: prepare(&goal, goal_path)?,
            start,
            goal,
            start_path: start_path.to_string(),
            goal_path: goal_path.to_string(),
            rules,
            normalized: options.normalize,
            assume: options.assume,
        })
    }

    /// Runs the search: a fresh e-graph holding the start term, grown until the goal term is in
    /// the start's e-class or the search stops.
    pub fn search(&self, limits: &Limits) -> ProveOutcome {
        self.search_with(limits, &Strategy::default(), false)
    }

    /// [`Problem::search`] with a scheduler, recording the rewrites from the start to the goal
    /// when `explain` is set and the goal is found.
    pub fn search_with(&self, limits: &Limits, strategy: &Strategy, explain: bool) -> ProveOutcome {
        let mut egraph = if explain {
            explain::explaining_egraph()
        } else {
            RiseEGraph::default()
        };
        let root = egraph::add_expr(&mut egraph, &self.start_term);
        let mut assumptions = Assumptions {
            facts: self.start.facts.clone(),
            allow_new: self.assume,
            assumed: Vec::new(),
        };
        let goal = &self.goal_term;
        let mut reached =
            |eg: &RiseEGraph| egraph::lookup(eg, goal).is_some_and(|g| eg.find(g) == eg.find(root));
        let goal_expr = egraph::to_recexpr(goal);
        let present = |eg: &RiseEGraph| share_present(eg, &goal_expr);
        let guide = Guide {
            root,
            progress: &present,
            goal_bytes_per_id: 0,
        };
        let mut search = runner::run_with(
            &mut egraph,
            &self.rules,
            limits,
            strategy,
            Some(&guide),
            &mut assumptions,
            &mut reached,
            &mut |_| {},
        );
        let explanation = if explain && search.summary.found {
            explain::explain(&mut egraph, &self.start_term, goal)
        } else {
            None
        };
        search.summary.assumed = assumptions
            .assumed
            .iter()
            .map(|n| program_nat_to_source(&self.start, n))
            .collect();
        let mut outcome = ProveOutcome {
            search,
            start_name: self.start.name.clone(),
            goal_name: self.goal.name.clone(),
            start_path: self.start_path.clone(),
            goal_path: self.goal_path.clone(),
            rules: self.rules.iter().map(|r| r.name.clone()).collect(),
            normalized: self.normalized,
            explanation,
            start: self.start.clone(),
        };
        outcome.search.summary.message = outcome.headline();
        crate::support::memory::discard(egraph);
        outcome
    }
}

/// The share of the goal's e-nodes (bottom-up: a node counts when its children do) that the
/// e-graph already holds, in `[0, 1]`: the progress measure of the Monte Carlo tree search.
fn share_present(egraph: &RiseEGraph, goal: &egg::RecExpr<crate::egraph::RiseNode>) -> f64 {
    use egg::Language;
    let nodes = goal.as_ref();
    let mut found: Vec<Option<egg::Id>> = Vec::with_capacity(nodes.len());
    for node in nodes {
        let mut missing = false;
        let mapped = node.clone().map_children(|c| match found[usize::from(c)] {
            Some(id) => id,
            None => {
                missing = true;
                c
            }
        });
        found.push(if missing { None } else { egraph.lookup(mapped) });
    }
    found.iter().filter(|f| f.is_some()).count() as f64 / nodes.len().max(1) as f64
}

/// Loads both files and runs the search ([`Problem::load`], then [`Problem::search_with`]).
pub fn prove(start: &str, goal: &str, options: &ProveOptions) -> Result<ProveOutcome, ProveError> {
    Ok(Problem::load(start, goal, options)?.search_with(
        &options.limits,
        &options.strategy,
        options.explain,
    ))
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct ProveOutcome {
    /// The search's statistics: its limits, every iteration, why it stopped, the totals, and
    /// the divisibility facts the rules assumed (`summary.assumed`, as `n/32`).
    pub search: SearchStats,
    /// The start's entry point.
    pub start_name: String,
    /// The goal's entry point.
    pub goal_name: String,
    /// The start file.
    pub start_path: String,
    /// The goal file.
    pub goal_path: String,
    /// The rules' names, as given.
    pub rules: Vec<String>,
    /// Whether the terms were normalised.
    pub normalized: bool,
    /// With `explain`, when the goal was found: the rewrites from the start to the goal.
    pub explanation: Option<Vec<ExplanationStep>>,
    /// The start program (whose size names the explanation's terms are written with).
    pub start: TypedProgram,
}

impl ProveOutcome {
    /// The explanation as text (`risec prove --explain`), if one was recorded.
    pub fn explanation_text(&self) -> Option<String> {
        let rewrites = self.explanation.as_ref()?;
        let show = |e: &Expr, b: &[explain::Binder]| explain::subterm_text(&self.start, e, b);
        Some(format!(
            "explanation: {} from `{}` to `{}`\n{}",
            explain::count(rewrites.len()),
            self.start_name,
            self.goal_name,
            explain::render(rewrites, &show)
        ))
    }

    /// Whether the goal is in the start's e-class (the search stopped at its goal).
    pub fn found(&self) -> bool {
        self.search.summary.found
    }

    /// The first line: `found: …` or `not found: …`, naming the limit that stopped the search.
    pub fn headline(&self) -> String {
        let n = self.search.summary.iterations;
        let limits = &self.search.limits;
        let after = format!("after {n} iteration{}", if n == 1 { "" } else { "s" });
        match self.search.summary.stop {
            StopReason::Goal => format!(
                "found: `{}` is equivalent to `{}` (reached {after})",
                self.goal_name, self.start_name
            ),
            StopReason::Saturated => format!(
                "not found: the e-graph saturated {after}; the goal is not reachable with these rules"
            ),
            reason => {
                let (limit, flag) = match reason {
                    StopReason::TimeLimit => (
                        format!("time limit ({})", format_duration_limit(limits.time)),
                        "--time",
                    ),
                    StopReason::NodeLimit => (
                        format!("e-node limit ({} e-nodes)", limits.nodes),
                        "--nodes",
                    ),
                    StopReason::IterationLimit => (
                        format!("iteration limit ({})", limits.iterations),
                        "--iterations",
                    ),
                    _ => (
                        format!("memory limit ({})", format_bytes(limits.memory)),
                        "--memory",
                    ),
                };
                format!("not found: the {limit} stopped the search {after} (raise it with {flag})")
            }
        }
    }

    /// What `risec prove` prints: the headline and the search's figures.
    pub fn summary(&self) -> String {
        let r = &self.search.summary;
        let per_rule: Vec<String> = r
            .rewrites_per_rule
            .0
            .iter()
            .filter(|(_, c)| *c > 0)
            .map(|(n, c)| format!("{n} {c}"))
            .collect();
        let per_rule = if per_rule.is_empty() {
            String::new()
        } else {
            format!(" ({})", per_rule.join(", "))
        };
        let mut out = format!("{}\n", self.headline());
        let mut line = |label: &str, value: String| {
            let _ = writeln!(out, "  {label:<12} {value}");
        };
        line("iterations", r.iterations.to_string());
        line("e-nodes", r.nodes.to_string());
        line("e-classes", r.classes.to_string());
        line("rewrites", format!("{}{per_rule}", r.rewrites));
        line("time", format_duration(r.time));
        line(
            "peak memory",
            r.peak_memory_bytes
                .map_or_else(|| "unknown".into(), format_bytes),
        );
        // Assumptions can pile up (`n/2`, `n/4`, …): show the first few.
        const SHOWN: usize = 4;
        for fact in r.assumed.iter().take(SHOWN) {
            line("assumed", format!("`{fact}` is a whole number"));
        }
        if r.assumed.len() > SHOWN {
            line(
                "assumed",
                format!(
                    "… and {} more divisibility facts (--stats lists them all)",
                    r.assumed.len() - SHOWN
                ),
            );
        }
        out
    }

    /// What `risec prove --stats` writes: the files, entry points and rules, and the one
    /// search (`steps[0]`), its time, and the assumed facts as the run's `facts`.
    pub fn stats(&self) -> RunStats {
        RunStats::new(
            RunInput::Prove {
                start: self.start_path.clone(),
                goal: self.goal_path.clone(),
                start_entry: self.start_name.clone(),
                goal_entry: self.goal_name.clone(),
                rules: self.rules.clone(),
                normalized: self.normalized,
            },
            vec![self.search.clone()],
            self.search.summary.assumed.clone(),
            self.search.summary.time,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::SourceFile;
    use crate::frontend::load::compile_source;

    fn program(name: &str, text: &str) -> TypedProgram {
        compile_source(&SourceFile::new(name, text), None).unwrap_or_else(|e| panic!("{e}"))
    }

    fn options(rules: &str) -> ProveOptions {
        ProveOptions {
            rules: rules.to_string(),
            ..ProveOptions::default()
        }
    }

    const ID: &str = "def id (x : f32) : f32 = x";

    /// Each way preparing a search can fail, as a variant and as the message risec prints.
    #[test]
    fn prove_errors_are_typed() {
        let id = || program("id.rise", ID);
        match Problem::load("does/not/exist.rise", "neither.rise", &options("eta")) {
            Err(ProveError::Program(LoadError::Read { path, .. })) => {
                assert_eq!(path, "does/not/exist.rise")
            }
            other => panic!("{other:?}"),
        }

        let pair = program("pair.rise", "def two (x : f32) (y : f32) : f32 = x");
        let e = Problem::new(id(), pair, "id.rise", "pair.rise", &options("eta")).unwrap_err();
        match &e {
            ProveError::TypesDiffer(m) => {
                assert_eq!((m.start_name.as_str(), m.goal_name.as_str()), ("id", "two"));
                assert_eq!(m.start_type, "f32 -> f32");
                assert_eq!(m.goal_path, "pair.rise");
            }
            e => panic!("{e:?}"),
        }
        assert_eq!(
            e.to_string(),
            "error: the start and the goal have different types\n  \
             start `id` (id.rise) : f32 -> f32\n  \
             goal  `two` (pair.rise) : f32 -> f32 -> f32"
        );

        let e = Problem::new(id(), id(), "a", "b", &options("eta,map-fuse")).unwrap_err();
        assert!(
            matches!(&e, ProveError::Rule(RuleError::Unknown { name, .. }) if name == "map-fuse")
        );
        assert_eq!(
            e.to_string(),
            "error: unknown rule `map-fuse` (`risec rules` lists them)"
        );

        let e = Problem::new(id(), id(), "a", "b", &options(" , ")).unwrap_err();
        assert!(matches!(e, ProveError::NoRules));
        assert!(e
            .to_string()
            .starts_with("error: no rules given: pass them as `--rules "));

        // `twice` nested twenty-two times: 2^22 additions in the normal form. (A function that
        // uses a computed argument twice does not blow up: the argument is let-bound.)
        let body = (0..22).fold("(fun (y : f32) => y + 1.0)".to_string(), |t, _| {
            format!("w ({t})")
        });
        let big = program(
            "big.rise",
            &format!(
                "def big (x : f32) : f32 = (fun (w : (f32 -> f32) -> f32 -> f32) => {body} x) \
                 (fun (f : f32 -> f32) (y : f32) => f (f y))"
            ),
        );
        let e =
            Problem::new(big.clone(), id(), "big.rise", "id.rise", &options("eta")).unwrap_err();
        match &e {
            ProveError::Normalize { name, path, source } => {
                assert_eq!((name.as_str(), path.as_str()), ("big", "big.rise"));
                assert_eq!(*source, OutOfFuel);
            }
            e => panic!("{e:?}"),
        }
        assert_eq!(
            e.to_string(),
            "error: cannot normalise `big` (big.rise): the beta-eta normal form is too large to \
             compute; try `--no-normalize`"
        );
        let unnormalized = ProveOptions {
            normalize: false,
            ..options("eta")
        };
        assert!(Problem::new(big, id(), "big.rise", "id.rise", &unnormalized).is_ok());
    }
}
