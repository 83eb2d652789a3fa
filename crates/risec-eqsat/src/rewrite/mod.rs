//! Rewrite rules for typed Rise in the e-graph.
//!
//! Most rules are written as two Rise expressions with names ([`pattern`]); their left-hand side
//! is matched by [`matcher`] and their right-hand side built, typed, by [`instantiate`]. Beta and
//! nat beta reduction substitute by extraction ([`crate::egraph::add_beta`]). A rule may carry a
//! condition on its match and *derived* variables computed from a match (used by rules whose
//! right-hand side is a transformed copy of a matched function, such as vectorisation).

pub mod instantiate;
pub mod matcher;
pub mod pattern;

pub use instantiate::{Assumptions, Skip};
pub use matcher::Bindings;

use crate::diagnostics::Diagnostic;
use crate::egraph::{add_beta, add_nat_beta, RiseEGraph};
use egg::Id;
use instantiate::TypingCache;
use pattern::{CompiledRule, Pat, RuleSignature};
use std::fmt;
use std::sync::{Arc, Mutex};

/// A condition on a match: the e-graph, the bindings and the matched class.
pub type Condition = Arc<dyn Fn(&RiseEGraph, &Bindings, Id) -> bool + Send + Sync>;

/// Computes derived variables of a match (adds their classes to the bindings), or rejects it.
pub type Deriver =
    Arc<dyn Fn(&mut RiseEGraph, &mut Bindings, &CompiledRule) -> Result<(), Skip> + Send + Sync>;

/// One match of a rule.
#[derive(Clone, Debug)]
pub struct Match {
    /// The matched e-class.
    pub class: Id,
    /// What the left-hand side bound.
    pub bindings: Bindings,
}

/// The matches of one rule, stored compactly: a class and one `u32` per expression variable
/// each (plus the sizes, for rules that bind some), instead of a [`Match`] with two vectors on
/// the heap. A search of a large e-graph holds hundreds of thousands of matches at once, and in
/// the [`Match`] form they were the largest part of the peak memory.
#[derive(Clone, Debug, Default)]
pub struct Matches {
    classes: Vec<Id>,
    exprs: Vec<u32>,
    nats: Vec<Option<crate::ir::nat::Nat>>,
    expr_vars: usize,
    nat_vars: usize,
}

/// An unbound expression variable in [`Matches::exprs`].
const UNBOUND: u32 = u32::MAX;

impl Matches {
    fn push(&mut self, class: Id, b: &Bindings) {
        self.expr_vars = b.exprs.len();
        self.nat_vars = b.nats.len();
        self.classes.push(class);
        self.exprs.extend(b.exprs.iter().map(|e| match e {
            Some(id) => u32::try_from(usize::from(*id)).expect("e-class ids fit in 32 bits"),
            None => UNBOUND,
        }));
        self.nats.extend(b.nats.iter().cloned());
    }

    /// How many matches there are.
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// The matches at `chosen` (indices in range), in that order.
    pub fn select(&self, chosen: &[usize]) -> Matches {
        let mut out = Matches {
            expr_vars: self.expr_vars,
            nat_vars: self.nat_vars,
            ..Matches::default()
        };
        for &i in chosen {
            out.classes.push(self.classes[i]);
            out.exprs
                .extend_from_slice(&self.exprs[i * self.expr_vars..(i + 1) * self.expr_vars]);
            out.nats
                .extend_from_slice(&self.nats[i * self.nat_vars..(i + 1) * self.nat_vars]);
        }
        out
    }

    /// Match `i`.
    pub fn get(&self, i: usize) -> Match {
        let exprs = &self.exprs[i * self.expr_vars..(i + 1) * self.expr_vars];
        Match {
            class: self.classes[i],
            bindings: Bindings {
                exprs: exprs
                    .iter()
                    .map(|&e| (e != UNBOUND).then(|| Id::from(e as usize)))
                    .collect(),
                nats: self.nats[i * self.nat_vars..(i + 1) * self.nat_vars].to_vec(),
            },
        }
    }
}

#[derive(Clone)]
enum Kind {
    Template {
        compiled: CompiledRule,
        condition: Option<Condition>,
        derive: Option<Deriver>,
        typing: Arc<Mutex<TypingCache>>,
        reduction: bool,
    },
    Beta,
    NatBeta,
}

/// A named rewrite rule.
#[derive(Clone)]
pub struct Rule {
    /// The name (`map-fusion`, `split-join(32)`, …).
    pub name: String,
    /// One line saying what it does.
    pub doc: String,
    kind: Kind,
}

impl fmt::Debug for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Rule({})", self.name)
    }
}

impl Rule {
    /// A rule `lhs => rhs` written with names.
    pub fn new(
        name: impl Into<String>,
        doc: impl Into<String>,
        lhs: &str,
        rhs: &str,
    ) -> Result<Rule, Diagnostic> {
        Rule::with_signature(name, doc, lhs, rhs, &RuleSignature::default())
    }

    /// A rule with size parameters, derived variables or a lone-variable left-hand side.
    pub fn with_signature(
        name: impl Into<String>,
        doc: impl Into<String>,
        lhs: &str,
        rhs: &str,
        sig: &RuleSignature<'_>,
    ) -> Result<Rule, Diagnostic> {
        let compiled = pattern::compile_with(lhs, rhs, sig)?;
        Ok(Rule {
            name: name.into(),
            doc: doc.into(),
            kind: Kind::Template {
                compiled,
                condition: None,
                derive: None,
                typing: Arc::default(),
                reduction: false,
            },
        })
    }

    /// Adds a condition every match must satisfy.
    pub fn when(
        mut self,
        c: impl Fn(&RiseEGraph, &Bindings, Id) -> bool + Send + Sync + 'static,
    ) -> Rule {
        if let Kind::Template { condition, .. } = &mut self.kind {
            *condition = Some(Arc::new(c));
        }
        self
    }

    /// Adds a computation of derived variables.
    pub fn deriving(
        mut self,
        d: impl Fn(&mut RiseEGraph, &mut Bindings, &CompiledRule) -> Result<(), Skip>
            + Send
            + Sync
            + 'static,
    ) -> Rule {
        if let Kind::Template { derive, .. } = &mut self.kind {
            *derive = Some(Arc::new(d));
        }
        self
    }

    /// Marks the rule as a *reduction* (eta, for instance): a rule that removes administrative
    /// redexes rather than exploring alternatives. The runner gives reductions extra passes so
    /// that they catch up with the redexes the other rules create (see [`crate::runner`]).
    pub fn reduction(mut self) -> Rule {
        if let Kind::Template { reduction, .. } = &mut self.kind {
            *reduction = true;
        }
        self
    }

    /// Whether the rule is a reduction: beta, nat beta, or a rule marked with [`Rule::reduction`].
    pub fn is_reduction(&self) -> bool {
        match &self.kind {
            Kind::Template { reduction, .. } => *reduction,
            Kind::Beta | Kind::NatBeta => true,
        }
    }

    /// `(fun x => b) a  ~>  b[x := a]`, by extraction.
    pub fn beta() -> Rule {
        Rule {
            name: "beta".into(),
            doc: "(fun x => b) a = b with a for x (extraction-based substitution)".into(),
            kind: Kind::Beta,
        }
    }

    /// `(fun (n : nat) => b) s  ~>  b[n := s]`, by extraction.
    pub fn beta_nat() -> Rule {
        Rule {
            name: "beta-nat".into(),
            doc: "(fun (n : nat) => b) s = b with s for n (extraction-based substitution)".into(),
            kind: Kind::NatBeta,
        }
    }

    /// The compiled form of a template rule.
    pub fn compiled(&self) -> Option<&CompiledRule> {
        match &self.kind {
            Kind::Template { compiled, .. } => Some(compiled),
            _ => None,
        }
    }

    fn pattern(&self) -> (Pat, Bindings) {
        match &self.kind {
            Kind::Template { compiled, .. } => (
                compiled.lhs.clone(),
                Bindings::new(
                    compiled.expr_vars.len(),
                    compiled.nat_vars.len(),
                    &compiled.params,
                ),
            ),
            Kind::Beta => (
                Pat::App(
                    Box::new(Pat::Lambda(Box::new(Pat::Var(0)))),
                    Box::new(Pat::Var(1)),
                ),
                Bindings::new(2, 0, &[]),
            ),
            Kind::NatBeta => (
                Pat::NatApp(
                    Box::new(Pat::NatLambda(Box::new(Pat::Var(0)))),
                    pattern::NatPat::Var(0),
                ),
                Bindings::new(1, 1, &[]),
            ),
        }
    }

    /// Finds up to `limit` matches.
    pub fn search(&self, egraph: &RiseEGraph, limit: usize) -> Vec<Match> {
        self.search_until(egraph, limit, &mut || false)
            .expect("a search that is never interrupted completes")
    }

    /// Finds up to `limit` matches, calling `interrupt` every few hundred e-classes and giving up
    /// (`None`) as soon as it returns true: how the runner keeps its time limit in long searches.
    pub fn search_until(
        &self,
        egraph: &RiseEGraph,
        limit: usize,
        interrupt: &mut dyn FnMut() -> bool,
    ) -> Option<Vec<Match>> {
        let (pat, base) = self.pattern();
        let condition = match &self.kind {
            Kind::Template { condition, .. } => condition.clone(),
            _ => None,
        };
        let found = matcher::search_until(egraph, &pat, &base, limit, interrupt)?;
        let matches = found
            .into_iter()
            .filter(|(class, b)| condition.as_ref().is_none_or(|c| c(egraph, b, *class)))
            .map(|(class, bindings)| Match { class, bindings })
            .collect();
        Some(matches)
    }

    /// Like [`Rule::search_until`], storing the matches compactly ([`Matches`]).
    pub fn search_compact(
        &self,
        egraph: &RiseEGraph,
        limit: usize,
        interrupt: &mut dyn FnMut() -> bool,
    ) -> Option<Matches> {
        let (pat, base) = self.pattern();
        let condition = match &self.kind {
            Kind::Template { condition, .. } => condition.clone(),
            _ => None,
        };
        let mut out = Matches::default();
        matcher::search_each(egraph, &pat, &base, interrupt, &mut |class, b| {
            if condition.as_ref().is_none_or(|c| c(egraph, &b, class)) {
                out.push(class, &b);
            }
            out.len() < limit
        })?;
        Some(out)
    }

    /// Applies the rule to one match; `Ok(true)` when the e-graph changed.
    pub fn apply(
        &self,
        egraph: &mut RiseEGraph,
        m: &Match,
        assumptions: &mut Assumptions,
    ) -> Result<bool, Skip> {
        let before = egraph.total_size();
        let new = match &self.kind {
            Kind::Template {
                compiled,
                derive,
                typing,
                ..
            } => {
                let mut bindings = m.bindings.clone();
                if let Some(d) = derive {
                    d(egraph, &mut bindings, compiled)?;
                }
                instantiate::instantiate(
                    egraph,
                    &compiled.rhs,
                    &bindings,
                    m.class,
                    assumptions,
                    typing,
                )?
            }
            Kind::Beta => add_beta(egraph, m.bindings.expr(0), m.bindings.expr(1)),
            Kind::NatBeta => {
                let n = m.bindings.nats[0].clone().expect("nat beta binds its size");
                add_nat_beta(egraph, m.bindings.expr(0), &n)
            }
        };
        // With explanations on (`--explain`), the union records the rule that justifies it.
        let united = if egraph.are_explanations_enabled() {
            egraph.union_trusted(m.class, new, self.name.as_str())
        } else {
            egraph.union(m.class, new)
        };
        Ok(united || egraph.total_size() != before)
    }
}

#[cfg(test)]
mod tests;
