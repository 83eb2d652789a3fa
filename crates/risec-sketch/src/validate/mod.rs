//! User rules checked against the reference interpreter when a sketch file is loaded.
//!
//! A rule `lhs => rhs` is sound when both sides compute the same value for every well-typed
//! choice of its pattern variables. [`check_rule`] tries a few such choices (trials): it draws
//! the types the rule leaves open and small sizes (`generate::Choices`), replaces every
//! pattern variable by a random value of its type (`generate::Generator`): a data variable by
//! a program parameter, a function by a function of its arguments, and a variable used under
//! the rule's binders (the `b` of `fun x => let y = v in b`) by a function applied to those
//! binders, so that a rule that rebinds them differently shows. Both instances are type-checked
//! by the front end and run by the interpreter on the same random inputs; the first trial where
//! they disagree is the counterexample ([`RuleCheckError::Counterexample`]).
//!
//! What is drawn. The first trial uses affine functions and inputs that are multiples of 1/32 in
//! `[-1, 1)` (a counterexample there reads best); the others bend functions (squares, products,
//! thresholds at the rule's constants, compositions) and draw inputs from the classes of
//! [`crate::interp::sampling`] ([`Schedule::Wide`]): whole numbers, large magnitudes, zeros of
//! both signs, `±1`, tiny values, the rule's own constants and their neighbours (`c ± 1`, just
//! below and above `c`, half-way between two constants), and repeats of earlier draws (ties,
//! exact cancellations). A rule that computes with scalars gets [`Options::scalar_trials`]
//! trials, others [`Options::trials`].
//!
//! When results agree. Floats agree within a relative tolerance ([`Options::rel_tol`], about
//! 84 units in the last place of an `f32`) above a tiny absolute floor ([`Options::abs_tol`]);
//! integers, booleans and indices exactly. Inputs are always finite, so a rule is checked for
//! finite values of its variables: two NaNs agree, an infinity agrees only with the same
//! infinity, and a NaN or an infinity against a number is a disagreement (the rule produced
//! it from finite inputs: `x / x =>> 1.0` fails at `x = 0`). `0.0` and `-0.0` agree, as they
//! compare equal; a rule whose sides differ only in the sign of a zero is caught where a side
//! divides by it (`1.0 / (x + 0.0) =>> 1.0 / x` gives `inf` and `-inf` at `x = -0.0`), and
//! `x * 0.0 =>> 0.0` is accepted: it holds for every finite `x`. The semantics are those of
//! `f32` and `f64`, not of real numbers: `(x + 1e8) - 1e8 =>> x` is refused, and so is a rule
//! that reassociates sums whenever a trial's values cancel (it may pass when none does: the
//! check is a test, not a proof).
//!
//! Draws where a side does not type-check (a size the right-hand side needs to divide, types the
//! rule only fits for some choices) are drawn again; a rule for which no draw works, or whose
//! instances the interpreter cannot run within the budget, is reported as such, with the flag
//! that skips the check (`--trust-rule NAME`). Trials, sizes and the seed are fixed, so a
//! load gives the same verdict every time.

mod generate;
mod sides;

use crate::diagnostics::{Diagnostic, SourceFile};
use crate::eqsat::rewrite::Rule;
use crate::frontend::load::compile_source;
use crate::frontend::syntax::ast::{Expr, Span};
use crate::frontend::syntax::parser::parse_expr;
use crate::interp::random::{random_args_with, Rng};
use crate::interp::run_program;
use crate::interp::sampling::{Constants, Scalars, Schedule};
use generate::{Choices, Generator, Shapes, Ty, Unfit};
use sides::{computes_with_scalars, literal_constants, literal_sizes, shared_binders, uses, Side};
use std::time::{Duration, Instant};

/// How a rule is checked.
#[derive(Clone, Debug)]
pub struct Options {
    /// Trials that must run (each with its own types, sizes and inputs).
    pub trials: usize,
    /// Trials for a rule that computes with scalars (arithmetic, comparisons or scalar
    /// literals on a side): its instances are small and quick, and a wrong one often differs
    /// only on a few values (near a threshold, at a zero, where integers wrap).
    pub scalar_trials: usize,
    /// Draws per trial before giving up on it.
    pub attempts: usize,
    /// Seed of the first trial.
    pub seed: u64,
    /// Largest small size drawn (sizes are also drawn as multiples of the rule's sizes).
    pub max_size: u64,
    /// Most scalars the inputs of one trial may hold.
    pub max_elements: u64,
    /// Memory the interpreter may use per evaluation, in bytes.
    pub memory: u64,
    /// Time after which no further trial starts.
    pub time: Duration,
    /// Which scalars the inputs of each trial are drawn from.
    pub values: Schedule,
    /// Relative tolerance of float comparisons: results may differ by rounding (about 84 units
    /// in the last place of an `f32`).
    pub rel_tol: f64,
    /// Absolute tolerance of float comparisons, a floor for results near zero.
    pub abs_tol: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            trials: 12,
            scalar_trials: 36,
            attempts: 12,
            seed: 1,
            max_size: 4,
            max_elements: 1 << 14,
            memory: 256 << 20,
            time: Duration::from_secs(2),
            values: Schedule::Wide,
            rel_tol: 1e-5,
            abs_tol: 1e-30,
        }
    }
}

/// What a successful check did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Trials in which both sides ran and agreed.
    pub trials: usize,
    /// Draws discarded (a side did not type-check, or the inputs were too large).
    pub redrawn: usize,
    /// Time taken.
    pub time: Duration,
}

/// An instance on which the two sides of a rule disagree.
#[derive(Clone, Debug, PartialEq)]
pub struct Counterexample {
    /// The rule's size variables and the sizes they were given.
    pub sizes: Vec<(String, u64)>,
    /// Each pattern variable and the Rise text it was replaced by.
    pub substitution: Vec<(String, String)>,
    /// The inputs: name, type and value.
    pub inputs: Vec<(String, String, String)>,
    /// What the left-hand side computed.
    pub lhs: String,
    /// What the right-hand side computed, or why it failed.
    pub rhs: String,
}

impl Counterexample {
    /// The counterexample as note lines: the instance, the inputs, both results.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let mut instance: Vec<String> = self
            .sizes
            .iter()
            .map(|(n, v)| format!("{n} = {v}"))
            .collect();
        instance.extend(self.substitution.iter().map(|(n, t)| format!("{n} = {t}")));
        notes.push(format!("instance: {}", instance.join(", ")));
        if !self.inputs.is_empty() {
            let inputs: Vec<String> = self
                .inputs
                .iter()
                .map(|(n, t, v)| format!("{n} : {t} = {v}"))
                .collect();
            notes.push(format!("inputs: {}", inputs.join(", ")));
        }
        notes.push(format!("left-hand side gives {}", self.lhs));
        notes.push(format!("right-hand side gives {}", self.rhs));
        notes
    }
}

/// Why a rule failed its check. `Display` is one line; [`Counterexample::notes`] has the rest.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RuleCheckError {
    /// The two sides compute different values on an instance.
    #[error("its two sides differ on a random instance (checked with the reference interpreter)")]
    Counterexample(Box<Counterexample>),
    /// No well-typed instance of both sides could be built.
    #[error("it cannot be checked: no instance of both sides could be built ({reason})")]
    NotInstantiable {
        /// Why the last attempt failed.
        reason: String,
    },
    /// The interpreter could not run the instances (too slow, too large, an error).
    #[error("it cannot be checked: the interpreter could not run it ({reason})")]
    NotEvaluable {
        /// Why.
        reason: String,
    },
}

/// Checks a user rule, written `lhs_text => rhs_text`, against the interpreter (see the module
/// documentation).
pub fn check_rule(
    rule: &Rule,
    lhs_text: &str,
    rhs_text: &str,
    options: &Options,
) -> Result<Report, RuleCheckError> {
    let started = Instant::now();
    let never = |reason: String| RuleCheckError::NotInstantiable { reason };
    let compiled = rule
        .compiled()
        .ok_or_else(|| never("the rule is not written as two expressions".into()))?;
    let (exprs, sizes) = (&compiled.expr_vars, &compiled.nat_vars);
    let parse = |t: &str| parse_expr(t).map_err(|_| never("a side does not parse".into()));
    let (l, r) = (parse(lhs_text)?, parse(rhs_text)?);
    let side = |e: &Expr, text| {
        let mut out = Vec::new();
        uses(e, exprs, sizes, &mut Vec::new(), &mut out);
        Side { text, uses: out }
    };
    let (lhs, rhs) = (side(&l, lhs_text), side(&r, rhs_text));
    let binders: Vec<Vec<String>> = (0..exprs.len())
        .map(|v| shared_binders(v, &lhs.uses, &rhs.uses))
        .collect();
    // Types: each variable used under binders is typed as a function of them.
    let encoded = |s: &Side| parse(&s.instance(exprs, &binders, sizes));
    let (el, er) = (encoded(&lhs)?, encoded(&rhs)?);
    // Typings to draw from: both sides' (types that fit the right-hand side too), unless that
    // fixes a size variable to 0 (polynomial unification may pick that solution), and the
    // left-hand side's alone.
    let infer = |rhs: Option<&Expr>| {
        crate::frontend::elab::infer_rule_variables(&el, rhs, exprs, sizes).map_err(|d| {
            never(format!(
                "its left-hand side does not type-check: {}",
                d.message
            ))
        })
    };
    let mut typings = vec![infer(None)?];
    if let Ok(joint) = infer(Some(&er)) {
        if !joint.1.iter().any(|n| n.as_integer() == Some(0)) {
            typings.insert(0, joint);
        }
    }
    let mut literals = Vec::new();
    literal_sizes(&l, &mut literals);
    literal_sizes(&r, &mut literals);
    let multiple = literals
        .iter()
        .filter(|&&v| v > 1)
        .fold(1u64, |a, &b| lcm(a, b).min(256));
    let mut constants = Constants::default();
    literal_constants(&l, &mut constants);
    literal_constants(&r, &mut constants);
    let trials = if computes_with_scalars(&l) || computes_with_scalars(&r) {
        options.trials.max(options.scalar_trials)
    } else {
        options.trials
    };

    let mut report = Report::default();
    let mut last_reason = String::new();
    let mut evaluable = false;
    let mut rng = Rng::new(options.seed);
    'trials: for t in 0..trials {
        for attempt in 0..options.attempts {
            let (types, size_values, root) = &typings[attempt % typings.len()];
            if started.elapsed() > options.time {
                break 'trials;
            }
            let trial = Trial {
                exprs,
                sizes,
                types,
                size_values,
                root,
                binders: &binders,
                lhs: &lhs,
                rhs: &rhs,
                options,
                scalars: options.values.scalars(t, &constants),
                constants: &constants,
            };
            // The first trials keep every open type `f32`, and the first one affine functions
            // and small values: a counterexample there reads best.
            match trial.run(&mut rng, multiple, t) {
                Outcome::Agree => {
                    report.trials += 1;
                    continue 'trials;
                }
                Outcome::Differ(c) => return Err(RuleCheckError::Counterexample(c)),
                Outcome::Redraw(why) => last_reason = why,
                Outcome::Never(why) => return Err(never(why)),
                Outcome::NotEvaluable(why) => {
                    evaluable = true;
                    last_reason = why;
                }
            }
            report.redrawn += 1;
        }
    }
    report.time = started.elapsed();
    if report.trials > 0 {
        return Ok(report);
    }
    if report.time > options.time {
        return Err(RuleCheckError::NotEvaluable {
            reason: format!(
                "no instance ran within {:.1} s{}",
                options.time.as_secs_f64(),
                if last_reason.is_empty() {
                    String::new()
                } else {
                    format!("; {last_reason}")
                }
            ),
        });
    }
    Err(if evaluable {
        RuleCheckError::NotEvaluable {
            reason: last_reason,
        }
    } else {
        never(last_reason)
    })
}

fn lcm(a: u64, b: u64) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    if a == 0 || b == 0 {
        return a.max(b);
    }
    (a / gcd(a, b)).saturating_mul(b)
}

/// What one draw gave.
enum Outcome {
    /// Both sides ran and agreed.
    Agree,
    /// They disagreed.
    Differ(Box<Counterexample>),
    /// This draw does not fit; another may.
    Redraw(String),
    /// No draw can fit.
    Never(String),
    /// The left-hand side could not be run.
    NotEvaluable(String),
}

/// Everything one draw needs.
struct Trial<'a> {
    exprs: &'a [String],
    sizes: &'a [String],
    types: &'a [crate::ir::types::Type],
    size_values: &'a [crate::ir::nat::Nat],
    root: &'a crate::ir::types::Type,
    binders: &'a [Vec<String>],
    lhs: &'a Side<'a>,
    rhs: &'a Side<'a>,
    options: &'a Options,
    /// How the inputs are drawn.
    scalars: Scalars,
    /// The rule's constants (thresholds of generated functions).
    constants: &'a Constants,
}

impl Trial<'_> {
    /// Trial number `t`: draws its types, sizes and values with `rng`, runs both sides.
    fn run(&self, rng: &mut Rng, multiple: u64, t: usize) -> Outcome {
        let shapes = Shapes {
            rng: Rng::new(rng.next_u64()),
            nonlinear: t > 0,
            constants: self.constants.clone(),
        };
        let mut choices = Choices::new(rng, self.options.max_size, multiple, t < 3);
        let mut generator = Generator::new(shapes);
        match self.instantiate(&mut choices, &mut generator) {
            Ok(done) => self.evaluate(done, &generator, choices.rng()),
            Err(Unfit::Redraw(why)) => Outcome::Redraw(why),
            Err(Unfit::Never(why)) => Outcome::Never(why),
        }
    }

    /// Draws the sizes and the values of the variables, and the arguments the sides are
    /// applied to when they are functions.
    fn instantiate(&self, c: &mut Choices, g: &mut Generator) -> Result<Instance, Unfit> {
        let mut sizes = Vec::new();
        for v in self.size_values {
            let n = c.nat(v)?;
            if n == 0 {
                return Err(Unfit::Redraw("a size variable is 0".into()));
            }
            sizes.push(n);
        }
        let mut values = Vec::new();
        for (i, t) in self.types.iter().enumerate() {
            let ty = c.ty(t)?;
            let text = if self.binders[i].is_empty() && !matches!(ty, Ty::Fun(..)) {
                g.param(&ty)
            } else {
                g.value(&ty, &[])?
            };
            values.push(text);
        }
        let mut root = c.ty(self.root)?;
        let mut args = Vec::new();
        while let Ty::Fun(a, b) = root {
            args.push(if matches!(*a, Ty::Fun(..)) {
                g.value(&a, &[])?
            } else {
                g.param(&a)
            });
            root = *b;
        }
        let elements: u64 = g.params.iter().map(|(_, t)| t.elements()).sum();
        if elements > self.options.max_elements {
            return Err(Unfit::Redraw(format!(
                "the inputs drawn hold {elements} values, more than {}",
                self.options.max_elements
            )));
        }
        Ok(Instance {
            sizes,
            values,
            args,
        })
    }

    fn program(&self, side: &Side, inst: &Instance, g: &Generator) -> String {
        let sizes: Vec<String> = inst.sizes.iter().map(u64::to_string).collect();
        let body = side.instance(&inst.values, self.binders, &sizes);
        let params: Vec<String> = g
            .params
            .iter()
            .map(|(n, t)| format!(" ({n} : {t})"))
            .collect();
        let args: String = inst.args.iter().map(|a| format!(" {a}")).collect();
        format!("def instance{} =\n  ({body}){args}\n", params.concat())
    }

    fn evaluate(&self, inst: Instance, g: &Generator, rng: &mut Rng) -> Outcome {
        let compile = |side: &Side| {
            let text = self.program(side, &inst, g);
            compile_source(&SourceFile::new("instance.rise", text), None)
        };
        let lhs = match compile(self.lhs) {
            Ok(p) => p,
            Err(e) => return Outcome::Redraw(first_message(&e.diagnostics)),
        };
        let rhs = match compile(self.rhs) {
            Ok(p) => p,
            Err(e) => return Outcome::Redraw(first_message(&e.diagnostics)),
        };
        if lhs.term.ty != rhs.term.ty {
            return Outcome::Redraw("the two sides have different types here".into());
        }
        let args = match random_args_with(&lhs, &[], rng, &mut self.scalars.clone()) {
            Ok(a) => a,
            Err(e) => return Outcome::Redraw(e.to_string()),
        };
        let run = |p: &crate::core::TypedProgram| {
            crate::interp::memory::with_limit(self.options.memory, || {
                run_program(p, &[], args.clone())
            })
        };
        let expected = match run(&lhs) {
            Ok(v) => v,
            Err(e) => return Outcome::NotEvaluable(format!("the left-hand side fails: {e}")),
        };
        let got = run(&rhs);
        let same = matches!(&got, Ok(v) if v.approx_eq(&expected, self.options.rel_tol, self.options.abs_tol));
        if same {
            return Outcome::Agree;
        }
        Outcome::Differ(Box::new(Counterexample {
            sizes: self
                .sizes
                .iter()
                .cloned()
                .zip(inst.sizes.iter().copied())
                .collect(),
            substitution: self
                .exprs
                .iter()
                .cloned()
                .zip(inst.values.iter().cloned())
                .collect(),
            inputs: g
                .params
                .iter()
                .zip(&args)
                .map(|((n, t), v)| (n.clone(), t.to_string(), show(v)))
                .collect(),
            lhs: show(&expected),
            rhs: match got {
                Ok(v) => show(&v),
                Err(e) => format!("an error: {e}"),
            },
        }))
    }
}

/// The draws of one trial.
struct Instance {
    /// Values of the size variables.
    sizes: Vec<u64>,
    /// Source text of the expression variables.
    values: Vec<String>,
    /// Arguments the sides are applied to (their type is a function's).
    args: Vec<String>,
}

/// A value as Rise would write it, or its shape when that is long.
fn show(v: &crate::interp::Value) -> String {
    let s = v.to_string();
    if s.len() <= 80 {
        s
    } else {
        v.describe()
    }
}

fn first_message(ds: &[crate::diagnostics::Diagnostic]) -> String {
    ds.first().map_or_else(String::new, |d| {
        format!("an instance does not type-check: {}", d.message)
    })
}

impl super::resolve::Resolver<'_> {
    /// Checks a user rule that type-checks (unless it is trusted): returns it, or reports why it
    /// is wrong at the rule's text (`span` in file `f`) and returns `None`.
    pub(super) fn validate_user_rule(
        &mut self,
        f: usize,
        name: &super::ast::Name,
        span: Span,
        rule: Rule,
        lhs: &str,
        rhs: &str,
    ) -> Option<Rule> {
        let skip = format!(
            "`--trust-rule {}` skips this check, for a rule the interpreter cannot run quickly",
            name.text
        );
        if self.trusted.contains(&name.text) {
            self.warnings.push((
                f,
                Diagnostic::warning(
                    format!(
                        "rule `{}` is trusted (--trust-rule): it is not checked against the \
                         reference interpreter",
                        name.text
                    ),
                    name.span,
                    "trusted",
                ),
            ));
            return Some(rule);
        }
        let error = match check_rule(&rule, lhs, rhs, &Options::default()) {
            Ok(_) => return Some(rule),
            Err(e) => e,
        };
        let d = match &error {
            RuleCheckError::Counterexample(c) => {
                let mut d = crate::diagnostics::Diagnostic::error(
                    format!("rule `{}` is wrong: {error}", name.text),
                    span,
                    "the two sides of this rule compute different values",
                );
                for note in c.notes() {
                    d = d.with_note(note);
                }
                d.with_note(format!(
                    "if the rule is right and the check is not, {}",
                    skip.replace(", for a rule the interpreter cannot run quickly", "")
                ))
            }
            RuleCheckError::NotInstantiable { .. } | RuleCheckError::NotEvaluable { .. } => {
                crate::diagnostics::Diagnostic::error(
                    format!("rule `{}`: {error}", name.text),
                    span,
                    "this rule could not be checked against the reference interpreter",
                )
                .with_note(skip)
            }
        };
        self.error(f, d);
        None
    }
}

#[cfg(test)]
mod tests;
