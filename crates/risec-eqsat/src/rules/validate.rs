//! Validation of rewrite rules against the reference interpreter.
//!
//! A rule is validated on *instance programs*: Rise sources whose body contains the rule's
//! left-hand side. One trial
//!
//! 1. fills the template's function placeholders (`{F}`, `{OP}`, …, see [`POOLS`]) with
//!    snippets drawn from small pools;
//! 2. elaborates the program and, unless disabled, puts it in beta-eta normal form (the form
//!    searches start from, and the form left-hand sides are written in);
//! 3. adds it to an e-graph and runs *one* round of the rule alone: every match is applied, with
//!    divisibility assumptions allowed (as in a search), then the e-graph is rebuilt and its typed
//!    invariant ([`check_types`]) checked;
//! 4. fails if the rule rewrote nothing (a validation that does not exercise the rule is a defect);
//! 5. enumerates up to [`Options::max_terms`] terms of the program's class
//!    ([`crate::egraph::enumerate::terms`]) and fails unless one differs from the original;
//! 6. draws random sizes that satisfy the program's divisibility facts *and* the assumptions
//!    the rule made (so `split-join(4)` is checked on lengths that 4 divides), random inputs,
//!    and requires every enumerated term to evaluate to a value approximately equal to the
//!    original's ([`Value::approx_eq`], with a tolerance for reassociated floating point).
//!
//! The inputs are drawn as the check of user rules draws them ([`crate::interp::sampling`]):
//! by default ([`Schedule::Wide`]) small values, integers, large magnitudes, zeros of both
//! signs and the neighbourhoods of the instance's constants, trial by trial. A rule that
//! reassociates floating-point arithmetic is right only up to rounding, which cancellation
//! among large values magnifies without bound; it is validated with [`Schedule::ExactSums`]
//! (values whose sums stay exact), which is the side condition under which it is sound.
//!
//! The pools use the math functions too (`exp`, `sqrt`, `abs`, `max`, `min`). On wide inputs
//! `exp` overflows to infinity; a correct rewrite gives the same infinity (or NaN, as `log` and
//! `sqrt` of a negative number would) on both sides, and [`Value::approx_eq`] counts equal
//! infinities and two NaNs as agreement.
//!
//! Negative checks (a rule must not fire where its side condition fails) use [`applications`].

use crate::core::normalize::program_normal;
use crate::core::print::{program_nat_to_source, program_to_source};
use crate::core::{Expr, TypedProgram};
use crate::diagnostics::SourceFile;
use crate::egraph::{add_expr, check_types, enumerate, RiseEGraph};
use crate::frontend::load::compile_source;
use crate::interp::random::{random_args_with, random_sizes, random_value_with, Rng};
use crate::interp::sampling::{Constants, Scalars, Schedule};
use crate::interp::{apply, program_signature, run_program, EvalError, Value};
use crate::ir::types::TypeNode;
use crate::rewrite::{Assumptions, Rule};

/// The function pools: placeholder name, the type of its snippets, and the snippets. A snippet
/// that mentions `y` uses the program parameter `(y : f32)` (exercising the shifting of
/// variables from outside the rule) and is only drawn for templates that declare it.
pub static POOLS: &[(&str, &str, &[&str])] = &[
    (
        "F",
        "f32 -> f32",
        &[
            "(fun (v : f32) => v * 2.0)",
            "(fun (v : f32) => v + 1.0)",
            "(fun (v : f32) => v * v - 0.5)",
            "(fun (v : f32) => 2.0 * v)",
            "(fun (v : f32) => -v)",
            "(fun (v : f32) => v * y)",
            "(fun (v : f32) => y - v)",
            "(fun (v : f32) => v * y + v)",
            "(fun (v : f32) => exp (v * 0.5))",
            "(fun (v : f32) => max v y)",
        ],
    ),
    (
        "G",
        "f32 -> f32",
        &[
            "(fun (v : f32) => v - 0.25)",
            "(fun (v : f32) => v * 0.5 + 1.0)",
            "(fun (v : f32) => v * v)",
            "(fun (v : f32) => 3.0 * v)",
            "(fun (v : f32) => v + y)",
            "(fun (v : f32) => y * v * v)",
            "(fun (v : f32) => sqrt (abs v) + 1.0)",
        ],
    ),
    (
        // Functions whose normal form is a partial application not using the argument
        // (`fun v => 2.0 * v` is `mul 2.0`): the shape map-fission splits off.
        "H",
        "f32 -> f32",
        &[
            "(fun (v : f32) => 2.0 * v)",
            "(fun (v : f32) => 1.0 + v)",
            "(fun (v : f32) => -v)",
            "(fun (v : f32) => y * v)",
            "(fun (v : f32) => y - v)",
            "(fun (v : f32) => min 0.0 v)",
        ],
    ),
    (
        "OP",
        "f32 -> f32 -> f32",
        &[
            "(fun (a : f32) (b : f32) => a + b)",
            "(fun (a : f32) (b : f32) => a * b)",
            "(fun (a : f32) (b : f32) => a * 0.5 + b)",
            "(fun (a : f32) (b : f32) => b * b - a)",
            "(fun (a : f32) (b : f32) => a - b * y)",
        ],
    ),
    (
        // Accumulations `a ⊕ g b` whose normal form is `op a gb` with op using neither
        // argument: the shape reduce-seq-map-fission splits.
        "ACC",
        "f32 -> f32 -> f32",
        &[
            "(fun (a : f32) (b : f32) => a + b * 2.0)",
            "(fun (a : f32) (b : f32) => a * (b + 1.0))",
            "(fun (a : f32) (b : f32) => a + b * b)",
            "(fun (a : f32) (b : f32) => a - b * y)",
        ],
    ),
];

/// How a validation runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Number of trials (each with its own pool choices, sizes and inputs).
    pub trials: usize,
    /// Seed of the first trial; trial `i` uses `seed + i`.
    pub seed: u64,
    /// Whether the instance is put in beta-eta normal form first (off for eta and beta, whose
    /// left-hand sides are not normal).
    pub normalize: bool,
    /// Whether the rule may assume divisibilities it cannot prove (as searches do).
    pub allow_assumptions: bool,
    /// How many terms of the program's class are enumerated and evaluated per trial.
    pub max_terms: usize,
    /// How much deeper than the original an enumerated term may be.
    pub extra_depth: usize,
    /// Largest size drawn for a size parameter.
    pub max_size: u64,
    /// Which scalars the inputs of each trial are drawn from (trial `i` of the schedule is the
    /// `i`-th trial run).
    pub values: Schedule,
    /// Relative tolerance of float comparisons.
    pub rel_tol: f64,
    /// Absolute tolerance of float comparisons.
    pub abs_tol: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            trials: 24,
            seed: 1,
            normalize: true,
            allow_assumptions: true,
            max_terms: 64,
            extra_depth: 16,
            max_size: 8,
            values: Schedule::Wide,
            rel_tol: 1e-4,
            abs_tol: 1e-30,
        }
    }
}

/// What a successful validation checked.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The rule's name.
    pub rule: String,
    /// Trials run.
    pub trials: usize,
    /// Matches the rule rewrote, over all trials.
    pub applications: usize,
    /// Terms evaluated and compared with the original, over all trials.
    pub terms_checked: usize,
    /// Of those, the terms that differ from the original program.
    pub rewritten_terms: usize,
    /// The distinct divisibility assumptions the rule made (as sizes known to be natural).
    pub assumptions: Vec<String>,
}

/// Validates `rule` on the instance template `program_source` with `trials` trials from `seed`
/// and default [`Options`] otherwise.
pub fn validate(
    rule: &Rule,
    program_source: &str,
    trials: usize,
    seed: u64,
) -> Result<Report, String> {
    let options = Options {
        trials,
        seed,
        ..Options::default()
    };
    validate_with(rule, program_source, &options)
}

/// Validates `rule` on the instance template `program_source` (see the module documentation).
/// The error says which trial failed, on which program and term, and why.
pub fn validate_with(
    rule: &Rule,
    program_source: &str,
    options: &Options,
) -> Result<Report, String> {
    let mut report = Report {
        rule: rule.name.clone(),
        ..Report::default()
    };
    for t in 0..options.trials {
        let seed = options.seed.wrapping_add(t as u64);
        let values = |constants: &Constants| options.values.scalars(t, constants);
        trial(rule, program_source, options, seed, &values, &mut report)
            .map_err(|e| format!("rule {}, trial {t} (seed {seed}): {e}", rule.name))?;
        report.trials += 1;
    }
    Ok(report)
}

/// How many matches `rule` rewrites in one round on the instance `program_source` (placeholders
/// filled from `options.seed`), after checking the e-graph's typed invariant. Used to check that
/// a rule does *not* fire where its side condition fails.
pub fn applications(rule: &Rule, program_source: &str, options: &Options) -> Result<usize, String> {
    Ok(rounds(std::slice::from_ref(rule), program_source, options, 1)?[0])
}

/// How many matches the `rules` rewrite together in each of `count` successive rounds on the
/// instance (as [`applications`]); rules that cannot grow the e-graph forever reach 0.
pub fn rounds(
    rules: &[Rule],
    program_source: &str,
    options: &Options,
    count: usize,
) -> Result<Vec<usize>, String> {
    let mut rng = Rng::new(options.seed);
    let source = fill(program_source, &mut rng)?;
    let (program, term) = elaborate(&source, options.normalize)?;
    let mut round = Round::new(&term, &program, options);
    (0..count)
        .map(|_| {
            rules
                .iter()
                .map(|r| round.apply(r))
                .sum::<Result<usize, String>>()
        })
        .collect()
}

/// Fills the placeholders `{NAME}` of a template with snippets of the pool `NAME`; the same
/// placeholder gets the same snippet throughout. Snippets using `y` are only drawn when the
/// template declares `(y : f32)`.
pub fn fill(template: &str, rng: &mut Rng) -> Result<String, String> {
    let has_y = template.contains("(y : f32)");
    let mut chosen: Vec<(&str, &str)> = Vec::new();
    let mut out = String::with_capacity(template.len() + 64);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit()))
            .unwrap_or(after.len());
        if name_len == 0 || !after[name_len..].starts_with('}') {
            out.push('{');
            rest = after;
            continue;
        }
        let name = &after[..name_len];
        let snippet = match chosen.iter().find(|(n, _)| *n == name) {
            Some((_, s)) => *s,
            None => {
                let (_, _, pool) = POOLS
                    .iter()
                    .find(|(n, _, _)| *n == name)
                    .ok_or_else(|| format!("unknown placeholder {{{name}}}"))?;
                let usable: Vec<&str> = pool
                    .iter()
                    .copied()
                    .filter(|s| has_y || !mentions_y(s))
                    .collect();
                let s = usable[rng.below(usable.len() as u64) as usize];
                chosen.push((name, s));
                s
            }
        };
        out.push_str(snippet);
        rest = &after[name_len + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn mentions_y(snippet: &str) -> bool {
    snippet
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == "y")
}

/// Elaborates an instance and returns it with its (normalised) term.
fn elaborate(source: &str, normalize: bool) -> Result<(TypedProgram, Expr), String> {
    let program =
        compile_source(&SourceFile::new("instance.rise", source), None).map_err(|e| e.render())?;
    let term = if normalize {
        program_normal(&program.term).map_err(|e| e.to_string())?
    } else {
        program.term.clone()
    };
    Ok((program, term))
}

/// An e-graph holding one instance, and the assumptions of the round applied to it.
struct Round {
    egraph: RiseEGraph,
    root: egg::Id,
    assumptions: Assumptions,
}

impl Round {
    fn new(term: &Expr, program: &TypedProgram, options: &Options) -> Round {
        let mut egraph = RiseEGraph::default();
        let root = add_expr(&mut egraph, term);
        egraph.rebuild();
        let assumptions = Assumptions {
            facts: program.facts.clone(),
            allow_new: options.allow_assumptions,
            assumed: Vec::new(),
        };
        Round {
            egraph,
            root,
            assumptions,
        }
    }

    /// Applies every match of `rule` once; returns how many changed the e-graph.
    fn apply(&mut self, rule: &Rule) -> Result<usize, String> {
        let matches = rule.search(&self.egraph, usize::MAX);
        let mut changed = 0;
        for m in &matches {
            if rule.apply(&mut self.egraph, m, &mut self.assumptions) == Ok(true) {
                changed += 1;
            }
        }
        self.egraph.rebuild();
        check_types(&self.egraph).map_err(|e| format!("typed invariant broken: {e}"))?;
        Ok(changed)
    }
}

fn trial(
    rule: &Rule,
    template: &str,
    options: &Options,
    seed: u64,
    values: &dyn Fn(&Constants) -> Scalars,
    report: &mut Report,
) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let source = fill(template, &mut rng)?;
    let (program, term) = elaborate(&source, options.normalize)?;
    let mut round = Round::new(&term, &program, options);
    let applied = round.apply(rule)?;
    if applied == 0 {
        return Err(format!("the rule rewrote nothing in\n{source}"));
    }
    report.applications += applied;
    let terms = enumerate::terms(
        &round.egraph,
        round.root,
        options.max_terms,
        term.depth() + options.extra_depth,
    );
    let rewritten = terms.iter().filter(|t| **t != term).count();
    if rewritten == 0 {
        return Err(format!(
            "no term other than the original was found after the rewrite of\n{source}"
        ));
    }
    // The program as checked: its facts plus what the rule assumed.
    let with_term = |t: &Expr, facts: &[crate::ir::nat::Nat]| TypedProgram {
        term: t.clone(),
        facts: facts.to_vec(),
        ..program.clone()
    };
    let mut facts = program.facts.clone();
    facts.extend(round.assumptions.assumed.iter().cloned());
    for a in &round.assumptions.assumed {
        let shown = program_nat_to_source(&program, a);
        if !report.assumptions.contains(&shown) {
            report.assumptions.push(shown);
        }
    }
    let original = with_term(&term, &facts);
    let sizes = random_sizes(&original, options.max_size, &mut rng)
        .map_err(|e| format!("no sizes satisfy the facts and assumptions: {e}"))?;
    let mut constants = Constants::default();
    constants.add_literals(&term);
    let mut scalars = values(&constants);
    let args =
        random_args_with(&original, &sizes, &mut rng, &mut scalars).map_err(|e| e.to_string())?;
    let extra = result_args(&original, &sizes, &mut rng, &mut scalars)?;
    let run = |p: &TypedProgram| {
        let mut v = run_program(p, &sizes, args.clone())?;
        for a in &extra {
            v = apply(&v, a.clone())?;
        }
        Ok(v)
    };
    let expected = run(&original)
        .map_err(|e| format!("the original program fails at sizes {sizes:?}: {e}\n{source}"))?;
    let all_args: Vec<Value> = args.iter().chain(&extra).cloned().collect();
    for t in &terms {
        let candidate = with_term(t, &facts);
        let got = run(&candidate);
        let ok = matches!(&got, Ok(v) if v.approx_eq(&expected, options.rel_tol, options.abs_tol));
        if !ok {
            return Err(mismatch(
                &candidate, &source, &sizes, &all_args, &expected, &got,
            ));
        }
    }
    report.terms_checked += terms.len();
    report.rewritten_terms += rewritten;
    Ok(())
}

/// Random arguments for a program whose result is a function (`add y`): values for its
/// parameters up to a data result, so that results can be compared.
fn result_args(
    p: &TypedProgram,
    sizes: &[u64],
    rng: &mut Rng,
    scalars: &mut Scalars,
) -> Result<Vec<Value>, String> {
    let (_, mut ty) = program_signature(p).map_err(|e| e.to_string())?;
    let nat_env: Vec<u64> = sizes.iter().rev().copied().collect();
    let mut out = Vec::new();
    while let TypeNode::Fun(a, b) = ty.get() {
        out.push(random_value_with(a, &nat_env, rng, scalars).map_err(|e| e.to_string())?);
        ty = b.clone();
    }
    if !ty.is_data() {
        return Err(format!("the instance's result type {ty} is not data"));
    }
    Ok(out)
}

fn mismatch(
    candidate: &TypedProgram,
    source: &str,
    sizes: &[u64],
    args: &[Value],
    expected: &Value,
    got: &Result<Value, EvalError>,
) -> String {
    let got = match got {
        Ok(v) => v.describe(),
        Err(e) => format!("error: {e}"),
    };
    format!(
        "a rewritten term disagrees with the original\ninstance:\n{source}\nterm:\n{}\
         sizes {sizes:?}, arguments {}\nexpected {}\ngot {got}",
        program_to_source(candidate),
        args.iter()
            .map(Value::describe)
            .collect::<Vec<_>>()
            .join(", "),
        expected.describe(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_consistently() {
        let mut rng = Rng::new(7);
        let t = "def p {n : nat} (xs : n.f32) = xs |> map {F} |> map {F} |> map {G}";
        let s = fill(t, &mut rng).unwrap();
        assert!(s.starts_with("def p {n : nat}"), "{s}");
        assert!(!s.contains("{F}") && !s.contains("{G}"));
        assert!(!mentions_y(&s), "no y without (y : f32): {s}");
        let parts: Vec<&str> = s.split("|> map ").collect();
        assert_eq!(parts[1].trim(), parts[2].trim());
        assert!(fill("{NOPE}", &mut rng)
            .unwrap_err()
            .contains("unknown placeholder"));
    }

    #[test]
    fn every_pool_snippet_elaborates() {
        for (name, ty, pool) in POOLS {
            for s in pool.iter() {
                let src = format!("def p (y : f32) = ({s} : {ty})");
                assert!(elaborate(&src, true).is_ok(), "pool {name}: {s}");
            }
        }
    }

    #[test]
    fn an_unsound_rule_is_caught() {
        let wrong = Rule::new(
            "map-fusion-swapped",
            "",
            "map f (map g xs)",
            "map (fun x => g (f x)) xs",
        )
        .unwrap();
        let src = "def p {n : nat} (xs : n.f32) = xs |> map (fun (v : f32) => v + 1.0) \
                   |> map (fun (v : f32) => v * 2.0)";
        let err = validate(&wrong, src, 4, 1).unwrap_err();
        assert!(err.contains("disagrees"), "{err}");
    }

    #[test]
    fn a_rule_that_does_not_fire_is_a_failure() {
        let rule = crate::rules::lookup("map-fusion").unwrap();
        let src = "def p {n : nat} (xs : n.f32) = xs |> map (fun (v : f32) => v + 1.0)";
        assert!(validate(&rule, src, 2, 1)
            .unwrap_err()
            .contains("rewrote nothing"));
    }
}
