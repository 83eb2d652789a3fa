//! Inference state: solutions of type and size inference variables, unification, and the
//! divisibility bookkeeping of sizes.
//!
//! Size equations are solved *linearly*: `?m * 4 = n` gives `?m = n/4`, and because `n/4` is only
//! a natural number when 4 divides `n`, that solution becomes an integrality *obligation*. The
//! obligations are checked once the whole definition is elaborated, against the *facts*: every
//! `N / d` written in a type annotation asserts that `d` divides `N`. Equations that cannot be
//! solved yet (two unknowns multiplied) are postponed and retried after every solution.

use crate::diagnostics::Diagnostic;
use crate::ir::nat::{self, Nat, NatAtom};
use crate::ir::types::{self, MetaKind, Type, TypeNode};
use crate::syntax::ast::Span;
use std::collections::HashMap;

/// An integrality requirement: `nat` must be a natural number for the program to be well typed.
#[derive(Clone, Debug)]
pub struct Obligation {
    /// The size that must be a natural number.
    pub nat: Nat,
    /// The expression that needs it.
    pub span: Span,
}

/// Why two types could not be unified.
#[derive(Clone, Debug)]
pub enum UnifyError {
    /// Different type structure or sizes that are provably different.
    Mismatch,
    /// A type variable would have to contain itself.
    Infinite,
    /// A function type where only data types are allowed.
    NotData,
}

/// Solutions and pending constraints of one elaboration.
#[derive(Default)]
pub struct InferState {
    type_solutions: HashMap<u32, Type>,
    nat_solutions: HashMap<u32, Nat>,
    next_meta: u32,
    postponed: Vec<(Nat, Nat, u32, Span)>,
    /// Integrality requirements, checked at the end.
    pub obligations: Vec<Obligation>,
    /// Sizes known to be natural numbers (from `N / d` and `N - M` in annotations).
    pub facts: Vec<Nat>,
    /// Where each fact was stated (parallel to `facts`; see [`InferState::add_fact`]).
    pub fact_spans: Vec<Span>,
    /// Unsuffixed float literals: their type variable and position, defaulted to `f32`.
    pub float_literals: Vec<(u32, Span)>,
}

impl InferState {
    /// A fresh id for an inference variable (types and sizes share the counter).
    pub fn fresh_id(&mut self) -> u32 {
        self.next_meta += 1;
        self.next_meta
    }

    /// A fresh type variable.
    pub fn fresh_type(&mut self, kind: MetaKind) -> Type {
        let id = self.fresh_id();
        types::meta(id, kind)
    }

    /// A fresh size variable.
    pub fn fresh_nat(&mut self) -> Nat {
        nat::meta(self.fresh_id())
    }

    /// Whether type variable `id` is still unsolved.
    pub fn is_unsolved_type(&self, id: u32) -> bool {
        !self.type_solutions.contains_key(&id)
    }

    /// Solves type variable `id` (used to default float literals).
    pub fn set_type(&mut self, id: u32, t: Type) {
        self.type_solutions.insert(id, t);
    }

    /// A fresh instance of a primitive's type scheme.
    pub fn instantiate_primitive(&mut self, p: crate::ir::primitive::Primitive) -> Type {
        let scheme = p.scheme();
        let nats: Vec<Nat> = (0..scheme.nat_vars).map(|_| self.fresh_nat()).collect();
        let tys: Vec<Type> = (0..scheme.type_vars)
            .map(|i| self.fresh_type(scheme.template_kind(i).unwrap_or(MetaKind::Data)))
            .collect();
        crate::ir::primitive::instantiate(&scheme, &nats, &tys)
    }

    /// Replaces solved size variables in `n` by their solutions.
    pub fn zonk_nat(&self, n: &Nat) -> Nat {
        self.zonk_nat_at(n, 0)
    }

    /// Like [`InferState::zonk_nat`] for a size under `depth` nat binders: solutions are stored
    /// relative to depth 0, so they are shifted over those binders.
    fn zonk_nat_at(&self, n: &Nat, depth: u32) -> Nat {
        if self.nat_solutions.is_empty() {
            return n.clone();
        }
        nat::map_atoms(n, &mut |a| match a {
            NatAtom::Meta(m) => self
                .nat_solutions
                .get(m)
                .map(|s| nat::shift(&self.zonk_nat(s), depth as i64, 0)),
            _ => None,
        })
    }

    /// Replaces solved type and size variables in `t` by their solutions.
    pub fn zonk(&self, t: &Type) -> Type {
        self.zonk_at(t, 0)
    }

    fn zonk_at(&self, t: &Type, depth: u32) -> Type {
        if !t.has_metas() {
            return t.clone();
        }
        types::rebuild(
            t,
            0,
            &mut |n, d| self.zonk_nat_at(n, depth + d),
            &mut |id, _, d| {
                self.type_solutions
                    .get(&id)
                    .map(|s| types::shift_nats(&self.zonk(s), (depth + d) as i64, 0))
            },
        )
    }

    /// Makes `a` and `b` equal, solving inference variables.
    pub fn unify(&mut self, a: &Type, b: &Type, span: Span) -> Result<(), UnifyError> {
        self.unify_at(a, b, 0, span)
    }

    /// Unifies two types that sit under `depth` nat binders (so their nat indices below `depth`
    /// are bound there and must not escape into a solution).
    fn unify_at(&mut self, a: &Type, b: &Type, depth: u32, span: Span) -> Result<(), UnifyError> {
        let (a, b) = (self.zonk_at(a, depth), self.zonk_at(b, depth));
        if a == b {
            return Ok(());
        }
        use TypeNode::*;
        match (a.get(), b.get()) {
            (Meta(id, kind), _) => self.bind_type(*id, *kind, &b, depth),
            (_, Meta(id, kind)) => self.bind_type(*id, *kind, &a, depth),
            (Scalar(x), Scalar(y)) if x == y => Ok(()),
            (Idx(n), Idx(m)) => self.unify_nat_at(n, m, depth, span),
            (Array(n, x), Array(m, y)) | (Vector(n, x), Vector(m, y)) => {
                // Elements first: a size mismatch is then reported with complete element types.
                self.unify_at(x, y, depth, span)?;
                self.unify_nat_at(n, m, depth, span)
            }
            (Pair(a1, a2), Pair(b1, b2)) | (Fun(a1, a2), Fun(b1, b2)) => {
                self.unify_at(a1, b1, depth, span)?;
                self.unify_at(a2, b2, depth, span)
            }
            (NatFun(x), NatFun(y)) => self.unify_at(x, y, depth + 1, span),
            _ => Err(UnifyError::Mismatch),
        }
    }

    fn bind_type(
        &mut self,
        id: u32,
        kind: MetaKind,
        t: &Type,
        depth: u32,
    ) -> Result<(), UnifyError> {
        if let TypeNode::Meta(other, other_kind) = t.get() {
            if *other == id {
                return Ok(());
            }
            // Keep the stricter kind: bind the looser variable to the stricter one.
            if kind == MetaKind::Data && *other_kind == MetaKind::Any {
                self.type_solutions.insert(*other, types::meta(id, kind));
                return Ok(());
            }
            self.type_solutions.insert(id, t.clone());
            return Ok(());
        }
        if occurs(id, t) {
            return Err(UnifyError::Infinite);
        }
        if types::free_nats(t).first().is_some_and(|&i| i < depth) {
            // The type mentions a size bound between the variable's scope and here.
            return Err(UnifyError::Mismatch);
        }
        if kind == MetaKind::Data && !self.make_data(t) {
            return Err(UnifyError::NotData);
        }
        self.type_solutions
            .insert(id, types::shift_nats(t, -(depth as i64), 0));
        Ok(())
    }

    /// Whether `t` can be a data type; narrows `Any` variables inside it to `Data`.
    fn make_data(&mut self, t: &Type) -> bool {
        match t.get() {
            TypeNode::Fun(..) | TypeNode::NatFun(_) => false,
            TypeNode::Meta(id, MetaKind::Any) => {
                let fresh = self.fresh_type(MetaKind::Data);
                self.type_solutions.insert(*id, fresh);
                true
            }
            TypeNode::Array(_, e) | TypeNode::Vector(_, e) => {
                let e = self.zonk(e);
                self.make_data(&e)
            }
            TypeNode::Pair(x, y) => {
                let (x, y) = (self.zonk(x), self.zonk(y));
                self.make_data(&x) && self.make_data(&y)
            }
            _ => true,
        }
    }

    /// Makes two sizes equal, solving a size variable that occurs linearly in their difference.
    pub fn unify_nat(&mut self, a: &Nat, b: &Nat, span: Span) -> Result<(), UnifyError> {
        self.unify_nat_at(a, b, 0, span)
    }

    fn unify_nat_at(&mut self, a: &Nat, b: &Nat, depth: u32, span: Span) -> Result<(), UnifyError> {
        let diff = nat::sub(&self.zonk_nat_at(a, depth), &self.zonk_nat_at(b, depth));
        if diff.is_zero() {
            return Ok(());
        }
        let metas = nat::metas(&diff);
        if metas.is_empty() {
            return Err(UnifyError::Mismatch);
        }
        for m in metas {
            if let Some((rest, coeff)) = nat::isolate_meta(&diff, m) {
                // coeff * m + rest = 0
                let solution = nat::div(&nat::sub(&nat::lit(0), &rest), &coeff);
                if nat::has_op(&solution, nat::NatOp::Div) {
                    // Not an exact division: wait for more information.
                    continue;
                }
                if solution.any_atom(&mut |a| matches!(a, NatAtom::Index(i) if *i < depth)) {
                    return Err(UnifyError::Mismatch);
                }
                let solution = nat::shift(&solution, -(depth as i64), 0);
                if let Some(c) = solution.as_constant() {
                    if c.numer() < 0 {
                        return Err(UnifyError::Mismatch);
                    }
                }
                if solution.terms().iter().any(|(_, c)| !c.is_integer()) {
                    self.obligations.push(Obligation {
                        nat: solution.clone(),
                        span,
                    });
                }
                self.nat_solutions.insert(m, solution);
                return self.retry_postponed();
            }
        }
        self.postponed.push((a.clone(), b.clone(), depth, span));
        Ok(())
    }

    fn retry_postponed(&mut self) -> Result<(), UnifyError> {
        let pending = std::mem::take(&mut self.postponed);
        for (a, b, depth, span) in pending {
            self.unify_nat_at(&a, &b, depth, span)?;
        }
        Ok(())
    }

    /// Size equations still waiting for a solution: the two sides, their nat-binder depth and
    /// where they arose.
    pub fn postponed(&self) -> &[(Nat, Nat, u32, Span)] {
        &self.postponed
    }

    /// Records that `n`, stated at `span`, is a natural number.
    pub fn add_fact(&mut self, n: Nat, span: Span) {
        self.facts.push(n);
        self.fact_spans.push(span);
    }

    /// Facts that turned out false once sizes were inferred: a helper stating `(n-5).f32` used
    /// at `n = 3`, or `(n/2).2.f32` at `n = 7`.
    pub fn check_facts(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for (i, fact) in self.facts.iter().enumerate() {
            let n = self.zonk_nat(fact);
            let Some(c) = n.as_constant() else { continue };
            let span = self.fact_spans.get(i).copied().unwrap_or_default();
            let problem = if !c.is_integer() {
                format!("this size is {c} here, not a whole number")
            } else if c.numer() < 0 {
                format!("this size is {c} here, below 0")
            } else {
                continue;
            };
            out.push(Diagnostic::error(
                "a size is not a natural number",
                span,
                problem,
            ));
        }
        out
    }

    /// Checks every integrality obligation against the facts; one diagnostic per distinct
    /// failure (the same size needed to be a multiple of the same number at several places,
    /// as along a pipeline, is reported once, at the first place).
    pub fn check_obligations(&self, show: &dyn Fn(&Nat) -> String) -> Vec<Diagnostic> {
        let facts: Vec<Nat> = self.facts.iter().map(|f| self.zonk_nat(f)).collect();
        let mut out = Vec::new();
        let mut reported = std::collections::HashSet::new();
        for ob in &self.obligations {
            let n = self.zonk_nat(&ob.nat);
            if nat::is_integral_given(&n, &facts) {
                continue;
            }
            // Saturating: the denominator is only shown.
            let denom = n
                .terms()
                .iter()
                .map(|(_, c)| c.denom())
                .fold(1i128, |a, b| nat::checked_lcm(a, b).unwrap_or(i128::MAX));
            let whole = nat::mul(&n, &nat::constant(nat::Rational::int(denom)));
            let message = format!("`{}` is not provably a multiple of {denom}", show(&whole));
            if !reported.insert(message.clone()) {
                continue;
            }
            let mut d = Diagnostic::error(
                message,
                ob.span,
                format!("this needs a size that is a multiple of {denom}"),
            );
            d = if facts.is_empty() {
                d.with_note("no divisibility facts are known; a type annotation such as `(n/4).4.f32` states one")
            } else {
                let known: Vec<String> = facts.iter().map(|f| format!("`{}`", show(f))).collect();
                d.with_note(format!("known to be whole numbers: {}", known.join(", ")))
            };
            out.push(d);
        }
        out
    }
}

fn occurs(id: u32, t: &Type) -> bool {
    match t.get() {
        TypeNode::Meta(m, _) => *m == id,
        TypeNode::Scalar(_) | TypeNode::Idx(_) => false,
        TypeNode::Array(_, e) | TypeNode::Vector(_, e) | TypeNode::NatFun(e) => occurs(id, e),
        TypeNode::Pair(a, b) | TypeNode::Fun(a, b) => occurs(id, a) || occurs(id, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::types::{array, f32};

    #[test]
    fn split_style_equation_creates_an_obligation() {
        let mut st = InferState::default();
        let m = st.fresh_nat();
        let n = nat::binder(1);
        let span = Span::new(0, 1);
        st.unify(
            &array(nat::mul(&m, &nat::lit(4)), f32()),
            &array(n.clone(), f32()),
            span,
        )
        .unwrap();
        assert_eq!(st.zonk_nat(&m), nat::div(&n, &nat::lit(4)));
        assert_eq!(st.obligations.len(), 1);
        assert_eq!(st.check_obligations(&|n| n.to_string()).len(), 1);
        st.facts.push(nat::div(&n, &nat::lit(4)));
        assert!(st.check_obligations(&|n| n.to_string()).is_empty());
    }

    #[test]
    fn products_of_unknowns_are_postponed_then_solved() {
        let mut st = InferState::default();
        let (a, b) = (st.fresh_nat(), st.fresh_nat());
        let span = Span::new(0, 1);
        st.unify_nat(&nat::mul(&a, &b), &nat::lit(12), span)
            .unwrap();
        assert_eq!(st.postponed().len(), 1);
        st.unify_nat(&a, &nat::lit(3), span).unwrap();
        assert!(st.postponed().is_empty());
        assert_eq!(st.zonk_nat(&b), nat::lit(4));
    }

    #[test]
    fn data_variables_reject_functions() {
        let mut st = InferState::default();
        let d = st.fresh_type(MetaKind::Data);
        let f = types::fun(f32(), f32());
        assert!(matches!(
            st.unify(&d, &f, Span::default()),
            Err(UnifyError::NotData)
        ));
    }
}
