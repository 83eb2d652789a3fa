//! Building a rule's right-hand side in the e-graph, with a type for every new node.
//!
//! The e-graph is typed, so a new node needs its type, and polymorphic primitives (`map`,
//! `split`, …) cannot take it from their children. The right-hand side is therefore type-checked
//! for each match by the elaborator's unification ([`InferState`]): pattern variables have the
//! types of the classes they matched, primitives get fresh instances of their schemes, and the
//! root must have the type of the matched class. Size equations solved by division (`split s`
//! of an `n`-element array needs `n/s`) become divisibility conditions: provable from the known
//! facts, or recorded as assumptions when the search may make them, or the match is skipped.

use super::matcher::Bindings;
use super::pattern::{NatTpl, Renaming, Tpl};
use crate::core::Literal;
use crate::egraph::{add_renamed, RiseEGraph, RiseNode, RiseOp};
use crate::elab::unify::InferState;
use crate::nat::{self, Nat};
use crate::primitive::Primitive;
use crate::syntax::ast::{BinOp, Span};
use crate::types::{self, MetaKind, Type, TypeNode};
use egg::Id;

/// Why a match was not rewritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Skip {
    /// A pattern variable uses a binder that the right-hand side does not have there.
    FreeVariable,
    /// The right-hand side is not well typed for this match.
    IllTyped,
    /// A size would not be a natural number (or may not be, and assumptions are not allowed).
    Divisibility,
    /// A rule-specific condition rejected the match.
    Condition,
}

/// The divisibility facts a search may rely on, and those it assumed on the way.
#[derive(Clone, Debug, Default)]
pub struct Assumptions {
    /// Sizes known to be natural numbers (`m/32`: 32 divides m), e.g. the program's facts.
    pub facts: Vec<Nat>,
    /// Whether a rule may assume a divisibility it cannot prove (symbolic sizes only).
    pub allow_new: bool,
    /// What was assumed; code generation must check these.
    pub assumed: Vec<Nat>,
}

impl Assumptions {
    /// Decides whether `n` may be used as a natural number, assuming it if allowed.
    pub fn admit(&mut self, n: &Nat) -> bool {
        if let Some(c) = n.as_constant() {
            return c.is_integer() && c.numer() >= 0;
        }
        let known: Vec<Nat> = self
            .facts
            .iter()
            .chain(self.assumed.iter())
            .cloned()
            .collect();
        if nat::is_integral_given(n, &known) {
            return true;
        }
        if self.allow_new {
            self.assumed.push(n.clone());
            return true;
        }
        false
    }
}

/// A typed right-hand-side node, before it is added.
enum Inst<'t> {
    Class(Id, &'t Renaming),
    Var(u32),
    Lambda(Box<Typed<'t>>),
    App(Box<Typed<'t>>, Box<Typed<'t>>),
    NatApp(Box<Typed<'t>>, Nat),
    Prim(Primitive),
    Literal(Literal),
}

struct Typed<'t> {
    inst: Inst<'t>,
    ty: Type,
}

/// Evaluates a right-hand-side size; `None` when it mentions an unbound size variable.
pub fn eval_nat(t: &NatTpl, b: &Bindings) -> Option<Nat> {
    Some(match t {
        NatTpl::Var(v) => b.nats.get(*v)?.clone()?,
        NatTpl::Lit(n) => nat::lit(*n),
        NatTpl::Binary(op, x, y) => {
            let (x, y) = (eval_nat(x, b)?, eval_nat(y, b)?);
            match op {
                BinOp::Add => nat::add(&x, &y),
                BinOp::Sub => nat::sub(&x, &y),
                BinOp::Mul => nat::mul(&x, &y),
                BinOp::Div => nat::div(&x, &y),
                BinOp::Mod => nat::rem(&x, &y),
                BinOp::Pow => nat::pow(&x, &y),
            }
        }
    })
}

struct Builder<'a, 't> {
    egraph: &'a RiseEGraph,
    bindings: &'a Bindings,
    state: InferState,
    binders: Vec<Type>,
    _tpl: std::marker::PhantomData<&'t ()>,
}

impl<'t> Builder<'_, 't> {
    fn build(&mut self, t: &'t Tpl) -> Result<Typed<'t>, Skip> {
        let span = Span::default();
        Ok(match t {
            Tpl::Var(slot, renaming) => {
                let id = self.bindings.expr(*slot);
                let data = &self.egraph[id].data;
                if data.free.iter().any(|&i| renaming.map(i).is_none()) {
                    return Err(Skip::FreeVariable);
                }
                Typed {
                    inst: Inst::Class(id, renaming),
                    ty: data.ty.clone(),
                }
            }
            Tpl::Bound(i) => {
                let ty = self
                    .binders
                    .len()
                    .checked_sub(*i as usize + 1)
                    .map(|k| self.binders[k].clone());
                Typed {
                    inst: Inst::Var(*i),
                    ty: ty.ok_or(Skip::IllTyped)?,
                }
            }
            Tpl::Lambda(body) => {
                let param = self.state.fresh_type(MetaKind::Any);
                self.binders.push(param.clone());
                let b = self.build(body);
                self.binders.pop();
                let b = b?;
                let ty = types::fun(param, b.ty.clone());
                Typed {
                    inst: Inst::Lambda(Box::new(b)),
                    ty,
                }
            }
            Tpl::App(f, a) => {
                let (f, a) = (self.build(f)?, self.build(a)?);
                let fty = self.state.zonk(&f.ty);
                let result = match fty.get() {
                    TypeNode::Fun(p, r) => {
                        self.state
                            .unify(p, &a.ty, span)
                            .map_err(|_| Skip::IllTyped)?;
                        r.clone()
                    }
                    TypeNode::Meta(_, MetaKind::Any) => {
                        let r = self.state.fresh_type(MetaKind::Any);
                        let want = types::fun(a.ty.clone(), r.clone());
                        self.state
                            .unify(&fty, &want, span)
                            .map_err(|_| Skip::IllTyped)?;
                        r
                    }
                    _ => return Err(Skip::IllTyped),
                };
                Typed {
                    inst: Inst::App(Box::new(f), Box::new(a)),
                    ty: result,
                }
            }
            Tpl::NatApp(f, n) => {
                let f = self.build(f)?;
                let n = eval_nat(n, self.bindings).ok_or(Skip::IllTyped)?;
                let TypeNode::NatFun(body) = self.state.zonk(&f.ty).get().clone() else {
                    return Err(Skip::IllTyped);
                };
                let ty = types::instantiate_nat_fun(&body, &n);
                if n.terms().iter().any(|(_, c)| !c.is_integer()) {
                    self.state.obligations.push(crate::elab::unify::Obligation {
                        nat: n.clone(),
                        span,
                    });
                }
                Typed {
                    inst: Inst::NatApp(Box::new(f), n),
                    ty,
                }
            }
            Tpl::Prim(p) => Typed {
                inst: Inst::Prim(*p),
                ty: self.state.instantiate_primitive(*p),
            },
            Tpl::Literal(l) => Typed {
                inst: Inst::Literal(*l),
                ty: types::scalar(l.scalar_type()),
            },
        })
    }
}

/// Adds the right-hand side `tpl` for a match of a rule at class `target` and returns its class
/// (not yet united with `target`).
pub fn instantiate(
    egraph: &mut RiseEGraph,
    tpl: &Tpl,
    bindings: &Bindings,
    target: Id,
    assumptions: &mut Assumptions,
) -> Result<Id, Skip> {
    let mut builder = Builder {
        egraph,
        bindings,
        state: InferState::default(),
        binders: Vec::new(),
        _tpl: std::marker::PhantomData,
    };
    let root = builder.build(tpl)?;
    let target_ty = egraph[target].data.ty.clone();
    builder
        .state
        .unify(&root.ty, &target_ty, Span::default())
        .map_err(|_| Skip::IllTyped)?;
    let state = builder.state;
    if !state.postponed().is_empty() {
        return Err(Skip::IllTyped);
    }
    let obligations: Vec<Nat> = state
        .obligations
        .iter()
        .map(|o| state.zonk_nat(&o.nat))
        .collect();
    // Check every obligation before assuming any, so a rejected match assumes nothing.
    let mut trial = assumptions.clone();
    if !obligations.iter().all(|n| trial.admit(n)) {
        return Err(Skip::Divisibility);
    }
    let id = add(egraph, &root, &state)?;
    *assumptions = trial;
    Ok(id)
}

fn add(egraph: &mut RiseEGraph, t: &Typed<'_>, state: &InferState) -> Result<Id, Skip> {
    let ty = state.zonk(&t.ty);
    if ty.has_metas() {
        return Err(Skip::IllTyped);
    }
    let node = match &t.inst {
        Inst::Class(id, renaming) => {
            return add_renamed(egraph, *id, &|i| renaming.map(i)).ok_or(Skip::FreeVariable);
        }
        Inst::Var(i) => RiseNode::leaf(RiseOp::Var(*i), ty),
        Inst::Lambda(b) => {
            let b = add(egraph, b, state)?;
            RiseNode::new(RiseOp::Lambda, &[b], ty)
        }
        Inst::App(f, a) => {
            let f = add(egraph, f, state)?;
            let a = add(egraph, a, state)?;
            RiseNode::new(RiseOp::App, &[f, a], ty)
        }
        Inst::NatApp(f, n) => {
            let f = add(egraph, f, state)?;
            RiseNode::new(RiseOp::NatApp(state.zonk_nat(n)), &[f], ty)
        }
        Inst::Prim(p) => RiseNode::leaf(RiseOp::Prim(*p), ty),
        Inst::Literal(l) => RiseNode::leaf(RiseOp::Literal(*l), ty),
    };
    Ok(egraph.add(node))
}
