//! Sketch parameters: the numbers of a sketch file, named once and chosen per machine and shape.
//!
//! ```text
//! param MR = 8 in [4, 6, 8, 12, 16]     // tunable: its default and the candidates to try
//! param MC = 96 in [48, 96, 144, 192]
//! param MP = MC / MR                    // derived: written once, used where 12 was
//! require MC % MR == 0                  // every choice must meet it
//! budget MR * 2 + 2 <= VECTOR_REGISTERS  // tuning stays within it; compiling warns
//! ```
//! A parameter's name stands for its number wherever a sketch file takes a size (sketch sizes,
//! type sketches, rule arguments such as `split-join(MC)`) and in user rules' Rise text
//! (`split MR a`). Values and constraints are arithmetic (`+ - * / %`, `/` rounding down) over
//! numbers, earlier parameters and the machine's facts ([`crate::support::machine::FACT_NAMES`]).
//! [`ParamSpace::evaluate`] gives the values of one choice (the defaults with some overridden,
//! as `--param` and tuning records do); [`ParamSpace::choices`] enumerates every choice of the
//! candidates that meets the constraints (what a tuner searches).

use super::ast::{CmpOp, Item, SizeOp, SkExpr, SkKind};
use super::resolve::{Resolver, SketchOptions};
use crate::diagnostics::Diagnostic;
use crate::frontend::syntax::ast::Span;

/// A `param` item.
#[derive(Clone, Debug)]
pub struct Parameter {
    /// Its name.
    pub name: String,
    /// Its value as written (the default of a tunable parameter).
    pub value: SkExpr,
    /// The candidates of a tunable parameter (evaluated); `None` for a derived one.
    pub candidates: Option<Vec<u64>>,
    /// The file (an index of the resolver's files) and place of the item.
    pub file: usize,
    /// The whole item.
    pub span: Span,
}

/// A `require` or `budget` item.
#[derive(Clone, Debug)]
pub struct Constraint {
    /// A `budget`: choices beyond it are not tried by a tuner, and compiling with one warns.
    pub budget: bool,
    /// The left side.
    pub left: SkExpr,
    /// The comparison.
    pub op: CmpOp,
    /// The right side.
    pub right: SkExpr,
    /// The item as written (for messages).
    pub text: String,
    /// The file (an index of the resolver's files).
    pub file: usize,
    /// The whole item.
    pub span: Span,
}

/// The values of every parameter (tunable and derived), in the order they are declared.
pub type Assignment = Vec<(String, u64)>;

/// Why a choice of parameters has no values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    /// A value given for a name no `param` declares.
    #[error("the sketch has no parameter `{name}` (its parameters: {known})")]
    Unknown {
        /// The name given.
        name: String,
        /// The tunable parameters, comma-separated, or "none".
        known: String,
    },
    /// A value given for a derived parameter.
    #[error("the parameter `{name}` is derived from others (`param {name} = …` without `in [ … ]`): set those instead")]
    Derived {
        /// The parameter.
        name: String,
    },
    /// A value or side of a constraint that cannot be computed.
    #[error("{message}")]
    Evaluate {
        /// What went wrong.
        message: String,
        /// The file of the expression.
        file: usize,
        /// The expression.
        span: Span,
    },
    /// A constraint the values break.
    #[error("the parameters break `{constraint}` ({values})")]
    Violated {
        /// The constraint as written.
        constraint: String,
        /// The values of the parameters it names, `NAME = V, …`.
        values: String,
        /// Its file.
        file: usize,
        /// Its place.
        span: Span,
    },
}

/// The parameters and constraints of a sketch file and its imports, and the machine facts the
/// constraints may name.
#[derive(Clone, Debug, Default)]
pub struct ParamSpace {
    /// The parameters, each after those its value names.
    pub params: Vec<Parameter>,
    /// The constraints.
    pub constraints: Vec<Constraint>,
    /// Machine facts by name.
    pub facts: Vec<(String, u64)>,
}

/// At most this many choices are enumerated by [`ParamSpace::choices`].
pub const MAX_CHOICES: usize = 100_000;

impl ParamSpace {
    /// The tunable parameters' names.
    pub fn tunable(&self) -> Vec<&str> {
        self.params
            .iter()
            .filter(|p| p.candidates.is_some())
            .map(|p| p.name.as_str())
            .collect()
    }

    /// The values of every parameter with `given` overriding the defaults of tunable ones;
    /// an error for an unknown or derived name, a value that cannot be computed, or a broken
    /// `require` (budgets: [`Self::exceeded_budgets`]).
    pub fn evaluate(&self, given: &[(String, u64)]) -> Result<Assignment, ParamError> {
        let values = self.values(given)?;
        match self.broken(&values, false).into_iter().next() {
            Some(e) => Err(e),
            None => Ok(values),
        }
    }

    /// The budgets the values exceed (each as [`ParamError::Violated`]).
    pub fn exceeded_budgets(&self, values: &Assignment) -> Vec<ParamError> {
        self.broken(values, true)
    }

    /// The constraints of one kind (`budget` or `require`) that `values` break.
    fn broken(&self, values: &Assignment, budgets: bool) -> Vec<ParamError> {
        let mut out = Vec::new();
        for c in self.constraints.iter().filter(|c| c.budget == budgets) {
            let (l, r) = match (
                self.eval(&c.left, values, c.file),
                self.eval(&c.right, values, c.file),
            ) {
                (Ok(l), Ok(r)) => (l, r),
                (Err(e), _) | (_, Err(e)) => {
                    out.push(e);
                    continue;
                }
            };
            if !c.op.holds(l, r) {
                let mut named = Vec::new();
                names_in(&c.left, &mut named);
                names_in(&c.right, &mut named);
                let shown: Vec<String> = named
                    .iter()
                    .filter_map(|n| self.lookup(n, values).map(|v| format!("{n} = {v}")))
                    .collect();
                out.push(ParamError::Violated {
                    constraint: c.text.clone(),
                    values: shown.join(", "),
                    file: c.file,
                    span: c.span,
                });
            }
        }
        out
    }

    /// The values of every parameter, constraints unchecked.
    fn values(&self, given: &[(String, u64)]) -> Result<Assignment, ParamError> {
        for (name, _) in given {
            match self.params.iter().find(|p| &p.name == name) {
                None => {
                    let known = self.tunable().join(", ");
                    return Err(ParamError::Unknown {
                        name: name.clone(),
                        known: if known.is_empty() {
                            "none".into()
                        } else {
                            known
                        },
                    });
                }
                Some(p) if p.candidates.is_none() => {
                    return Err(ParamError::Derived { name: name.clone() })
                }
                Some(_) => {}
            }
        }
        let mut values: Assignment = Vec::new();
        for p in &self.params {
            let v = match given.iter().rev().find(|(n, _)| *n == p.name) {
                Some((_, v)) => *v,
                None => self.eval(&p.value, &values, p.file)?,
            };
            values.push((p.name.clone(), v));
        }
        Ok(values)
    }

    /// Every choice of the tunable parameters' candidates (the default first, then the
    /// candidates in the order written) that meets the constraints and stays within the
    /// budgets, as the values given (tunable parameters only); at most [`MAX_CHOICES`] are
    /// tried.
    pub fn choices(&self) -> Vec<Assignment> {
        let defaults = self.evaluate(&[]).ok();
        let lists: Vec<(String, Vec<u64>)> = self
            .params
            .iter()
            .filter_map(|p| {
                let cands = p.candidates.as_ref()?;
                let default = defaults
                    .as_ref()
                    .and_then(|vs| vs.iter().find(|(n, _)| *n == p.name).map(|(_, v)| *v));
                let mut list: Vec<u64> = default.into_iter().collect();
                list.extend(cands.iter().filter(|c| Some(**c) != default));
                Some((p.name.clone(), list))
            })
            .collect();
        let mut out = Vec::new();
        let mut odometer = vec![0usize; lists.len()];
        for _ in 0..MAX_CHOICES {
            let choice: Assignment = lists
                .iter()
                .zip(&odometer)
                .map(|((n, vs), i)| (n.clone(), vs[*i]))
                .collect();
            if let Ok(values) = self.evaluate(&choice) {
                if self.exceeded_budgets(&values).is_empty() {
                    out.push(choice);
                }
            }
            // Advance the last parameter fastest; stop after the last combination.
            let mut k = lists.len();
            loop {
                if k == 0 {
                    return out;
                }
                k -= 1;
                odometer[k] += 1;
                if odometer[k] < lists[k].1.len() {
                    break;
                }
                odometer[k] = 0;
            }
        }
        out
    }

    /// Adds a `param`, `require` or `budget` item of file `file` (whose text is `source`);
    /// other items are ignored. A candidate that is not a number is an error.
    pub fn declare(&mut self, file: usize, item: &Item, source: &str) -> Result<(), ParamError> {
        match item {
            Item::Param {
                name,
                value,
                candidates,
                span,
            } => {
                let values = match candidates {
                    Some(cs) => Some(
                        cs.iter()
                            .map(|c| self.eval(c, &Vec::new(), file))
                            .collect::<Result<Vec<u64>, ParamError>>()?,
                    ),
                    None => None,
                };
                self.params.push(Parameter {
                    name: name.text.clone(),
                    value: value.clone(),
                    candidates: values,
                    file,
                    span: *span,
                });
            }
            Item::Require {
                left,
                op,
                right,
                budget,
                span,
            } => self.constraints.push(Constraint {
                budget: *budget,
                left: left.clone(),
                op: *op,
                right: right.clone(),
                text: source[span.start..span.end].to_string(),
                file,
                span: *span,
            }),
            _ => {}
        }
        Ok(())
    }

    fn lookup(&self, name: &str, values: &Assignment) -> Option<u64> {
        values
            .iter()
            .rev()
            .chain(self.facts.iter())
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }

    /// The value of `e` given the parameters computed so far and the machine facts.
    pub(crate) fn eval(
        &self,
        e: &SkExpr,
        values: &Assignment,
        file: usize,
    ) -> Result<u64, ParamError> {
        let err = |message: String| ParamError::Evaluate {
            message,
            file,
            span: e.span,
        };
        match &e.kind {
            SkKind::Num(n) => Ok(*n),
            SkKind::Name(n) => self.lookup(&n.text, values).ok_or_else(|| {
                let facts: Vec<&str> = self.facts.iter().map(|(n, _)| n.as_str()).collect();
                err(format!(
                    "`{}` is not a parameter declared before this point nor a machine fact ({})",
                    n.text,
                    facts.join(", ")
                ))
            }),
            SkKind::Size(op, a, b) => {
                let (a, b) = (self.eval(a, values, file)?, self.eval(b, values, file)?);
                let v = match op {
                    SizeOp::Add => a.checked_add(b),
                    SizeOp::Sub => a.checked_sub(b),
                    SizeOp::Mul => a.checked_mul(b),
                    SizeOp::Div => a.checked_div(b),
                    SizeOp::Rem => a.checked_rem(b),
                };
                v.ok_or_else(|| {
                    err(match op {
                        SizeOp::Sub => format!("{a} - {b} is negative"),
                        SizeOp::Div | SizeOp::Rem => "division by zero".into(),
                        _ => "the value does not fit 64 bits".into(),
                    })
                })
            }
            _ => Err(err(
                "expected a number: a parameter's value is arithmetic over numbers, parameters and machine facts"
                    .into(),
            )),
        }
    }
}

impl Resolver<'_> {
    /// Collects the `param` and `require` items of every loaded file (imported files first,
    /// so that a file's parameters may use its imports'), with the machine facts of `options`.
    pub(super) fn declare_parameters(&mut self, options: &SketchOptions) {
        self.space.facts = options
            .facts
            .clone()
            .unwrap_or_else(|| crate::support::machine::Machine::host().facts());
        // A file's imports are loaded after it: higher indices.
        for f in (0..self.loaded.len()).rev() {
            for item in self.loaded[f].items.clone() {
                if let Item::Param { name, .. } = &item {
                    if let Some(d) = self.taken(name) {
                        self.error(f, d);
                        continue;
                    }
                }
                let source = self.files[f].text.clone();
                if let Err(e) = self.space.declare(f, &item, &source) {
                    let d = param_diagnostic(&e, "a candidate is a number or machine facts");
                    self.error(f, d);
                }
            }
        }
    }

    /// Why `name` cannot name a parameter (another parameter, a machine fact or a size of the
    /// program has it), if it cannot.
    fn taken(&self, name: &super::ast::Name) -> Option<Diagnostic> {
        let note = if let Some(p) = self.space.params.iter().find(|p| p.name == name.text) {
            let (line, col) = self.files[p.file].line_col(p.span.start);
            format!("first declared at {}:{line}:{col}", self.files[p.file].name)
        } else if self.space.facts.iter().any(|(n, _)| *n == name.text) {
            format!("`{}` is a machine fact", name.text)
        } else if self.program.size_params.contains(&name.text) {
            format!("`{}` is a size of the program", name.text)
        } else {
            return None;
        };
        Some(
            Diagnostic::error(
                format!("`{}` cannot name a parameter", name.text),
                name.span,
                "this name is taken",
            )
            .with_note(note),
        )
    }

    /// Declares the parameters ([`Self::declare_parameters`]) and computes their values with
    /// `options.params` overriding defaults; errors point at the value or constraint at fault.
    pub(super) fn parameters(&mut self, options: &SketchOptions) {
        self.declare_parameters(options);
        if !self.errors.is_empty() {
            return;
        }
        match self.space.evaluate(&options.params) {
            Ok(values) => {
                for e in self.space.exceeded_budgets(&values) {
                    if let ParamError::Violated { file, span, .. } = &e {
                        let d = Diagnostic::warning(
                            e.to_string().replacen("break", "exceed the budget", 1),
                            *span,
                            "the C may be slow on this machine",
                        )
                        .with_note("`risec tune` tries only choices within the budgets");
                        self.warnings.push((*file, d));
                    }
                }
                self.param_values = values
            }
            Err(e @ (ParamError::Unknown { .. } | ParamError::Derived { .. })) => {
                self.plain_errors.push(format!("error: --param: {e}\n"))
            }
            Err(e) => {
                let file = match &e {
                    ParamError::Evaluate { file, .. } | ParamError::Violated { file, .. } => *file,
                    _ => 0,
                };
                let mut d = param_diagnostic(&e, "");
                if !options.params.is_empty() {
                    let given: Vec<String> = options
                        .params
                        .iter()
                        .map(|(n, v)| format!("{n}={v}"))
                        .collect();
                    d = d.with_note(format!("with --param {}", given.join(",")));
                }
                self.error(file, d);
            }
        }
    }
}

/// A parameter error as a diagnostic at its place.
fn param_diagnostic(e: &ParamError, label: &str) -> Diagnostic {
    match e {
        ParamError::Evaluate { message, span, .. } => Diagnostic::error(
            format!("cannot compute this parameter value: {message}"),
            *span,
            if label.is_empty() { "here" } else { label },
        ),
        ParamError::Violated { span, .. } => {
            Diagnostic::error(e.to_string(), *span, "this constraint does not hold")
        }
        other => Diagnostic::error(other.to_string(), Span::new(0, 0), label),
    }
}

fn names_in(e: &SkExpr, out: &mut Vec<String>) {
    match &e.kind {
        SkKind::Name(n) if !out.contains(&n.text) => out.push(n.text.clone()),
        SkKind::Size(_, a, b) => {
            names_in(a, out);
            names_in(b, out);
        }
        _ => {}
    }
}

/// `text` (Rise source of a user rule) with every whole identifier that names a parameter
/// replaced by its value.
pub fn substitute(text: &str, values: &Assignment) -> String {
    if values.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(|c: char| c.is_ascii_alphabetic() || c == '_') {
        // A digit run before the identifier belongs to a number (`2x` is not Rise anyway).
        out.push_str(&rest[..start]);
        let ident_len = rest[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '\''))
            .unwrap_or(rest.len() - start);
        let ident = &rest[start..start + ident_len];
        let preceded_by_digit = out.ends_with(|c: char| c.is_ascii_digit());
        match values.iter().rev().find(|(n, _)| n == ident) {
            Some((_, v)) if !preceded_by_digit => out.push_str(&v.to_string()),
            _ => out.push_str(ident),
        }
        rest = &rest[start + ident_len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::parse_file;

    fn space(text: &str) -> ParamSpace {
        let mut s = ParamSpace {
            facts: vec![("VECTOR_REGISTERS".into(), 32)],
            ..Default::default()
        };
        for item in parse_file(text).unwrap() {
            s.declare(0, &item, text).unwrap();
        }
        s
    }

    const GEMM: &str = "
param MR = 8 in [4, 8, 16]
param MC = 96 in [48, 96, 100]
param MP = MC / MR
require MC % MR == 0
budget MR * 2 + 2 <= VECTOR_REGISTERS
";

    #[test]
    fn defaults_and_derived_values() {
        let s = space(GEMM);
        let v = s.evaluate(&[]).unwrap();
        assert_eq!(v, [("MR".into(), 8), ("MC".into(), 96), ("MP".into(), 12)]);
        let v = s.evaluate(&[("MR".into(), 4)]).unwrap();
        assert_eq!(v[2], ("MP".into(), 24));
    }

    #[test]
    fn constraints_and_bad_names_are_errors() {
        let s = space(GEMM);
        let e = s.evaluate(&[("MC".into(), 100)]).unwrap_err();
        assert!(
            e.to_string()
                .contains("break `require MC % MR == 0` (MC = 100, MR = 8)"),
            "{e}"
        );
        // A budget is not an error; it is reported apart.
        let v = s.evaluate(&[("MR".into(), 16)]).unwrap();
        let over = s.exceeded_budgets(&v);
        assert_eq!(over.len(), 1);
        assert!(
            over[0].to_string().contains("VECTOR_REGISTERS"),
            "{}",
            over[0]
        );
        assert!(matches!(
            s.evaluate(&[("MP".into(), 3)]),
            Err(ParamError::Derived { .. })
        ));
        let e = s.evaluate(&[("NR".into(), 3)]).unwrap_err();
        assert!(e.to_string().contains("its parameters: MR, MC"), "{e}");
        let bad = space("param A = 4 - 8");
        assert!(bad
            .evaluate(&[])
            .unwrap_err()
            .to_string()
            .contains("negative"));
        let bad = space("param A = B + 1\nparam B = 1");
        assert!(bad.evaluate(&[]).is_err());
    }

    #[test]
    fn choices_meet_the_constraints_default_first() {
        let s = space(GEMM);
        let cs = s.choices();
        // MR 16 breaks the register budget; MC 100 is a multiple of 4 only.
        assert_eq!(cs[0], [("MR".into(), 8), ("MC".into(), 96)]);
        let shown: Vec<(u64, u64)> = cs.iter().map(|c| (c[0].1, c[1].1)).collect();
        assert_eq!(shown, [(8, 96), (8, 48), (4, 96), (4, 48), (4, 100)]);
    }

    #[test]
    fn substitution_replaces_whole_names_only() {
        let v = vec![("MR".to_string(), 8), ("NR".to_string(), 32)];
        assert_eq!(
            substitute("map f (split MR a) MRx NR_ xNR (split NR b)", &v),
            "map f (split 8 a) MRx NR_ xNR (split 32 b)"
        );
    }
}
