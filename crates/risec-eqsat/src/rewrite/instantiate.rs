//! Building a rule's right-hand side in the e-graph, with a type for every new node.
//!
//! The e-graph is typed, so a new node needs its type, and polymorphic primitives (`map`,
//! `split`, …) cannot take it from their children. The right-hand side is therefore type-checked
//! for each match by the elaborator's unification ([`InferState`]): pattern variables have the
//! types of the classes they matched, primitives get fresh instances of their schemes, and the
//! root must have the type of the matched class. Size equations solved by division (`split s`
//! of an `n`-element array needs `n/s`) become divisibility conditions: provable from the known
//! facts, or recorded as assumptions when the search may make them, or the match is skipped.
//!
//! A pattern variable matched under binders of the left-hand side and used under binders of the
//! right (the body `b` of `fun x => let y = v in b`) keeps its references to them, so those
//! binders must have the types the matched term uses them at: the type of each such variable is
//! read off the matched class ([`bound_variable_types`]) and unified with the right-hand binder's.
//! Without this, a rule that rebinds `y` to a value of another type is well typed at its root
//! and still builds an ill-typed term.

use super::matcher::Bindings;
use super::pattern::{NatTpl, Tpl};
use crate::egraph::{add_renamed, RiseEGraph, RiseNode, RiseOp};
use crate::frontend::elab::unify::InferState;
use crate::frontend::syntax::ast::{BinOp, Span};
use crate::ir::nat::{self, Nat};
use crate::ir::types::{self, MetaKind, Type, TypeNode};
use egg::Id;
use std::collections::HashMap;
use std::sync::Mutex;

/// Why a match was not rewritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Skip {
    /// A pattern variable uses a binder that the right-hand side does not have there.
    FreeVariable,
    /// The right-hand side is not well typed for this match.
    IllTyped,
    /// A size would not be a natural number (or may not be, and assumptions are not allowed).
    Divisibility,
    /// A size's divisor is past 2^64 (`(n + 1)/64^11` after eleven splits by 64): no size
    /// but 0 is a multiple of it, and it is not computed with truncated numbers.
    SizeTooLarge,
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
    /// Decides whether `n` may be used as a natural number, assuming it if allowed; why not
    /// ([`Skip::Divisibility`], [`Skip::SizeTooLarge`]) when it may not.
    pub fn admit(&mut self, n: &Nat) -> Result<(), Skip> {
        if let Some(c) = n.as_constant() {
            return if c.is_integer() && c.numer() >= 0 {
                Ok(())
            } else {
                Err(Skip::Divisibility)
            };
        }
        let known: Vec<Nat> = self
            .facts
            .iter()
            .chain(self.assumed.iter())
            .cloned()
            .collect();
        if nat::is_integral_given(n, &known) {
            return Ok(());
        }
        // Never assume what no sizes satisfy (`n + 1/2` whole): the match does not apply.
        match nat::wholeness(n) {
            nat::Wholeness::TooLarge => Err(Skip::SizeTooLarge),
            nat::Wholeness::Maybe if self.allow_new && nat::can_be_nonnegative(n) => {
                self.assumed.push(n.clone());
                Ok(())
            }
            _ => Err(Skip::Divisibility),
        }
    }
}

/// The inferred type of a right-hand-side node, with its children's (mirrors the template).
struct Typed {
    ty: Type,
    children: Vec<Typed>,
}

impl Typed {
    fn leaf(ty: Type) -> Typed {
        Typed {
            ty,
            children: Vec::new(),
        }
    }
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

struct Builder<'a> {
    egraph: &'a RiseEGraph,
    bindings: &'a Bindings,
    state: InferState,
    binders: Vec<Type>,
    /// The types right-hand binders must have (see [`BoundType`]).
    bound: &'a [BoundType],
    /// How many pattern-variable uses were built so far (pre-order).
    uses: usize,
}

impl Builder<'_> {
    fn build(&mut self, t: &Tpl) -> Result<Typed, Skip> {
        let span = Span::default();
        Ok(match t {
            Tpl::Var(slot, _) => {
                let id = self.bindings.expr(*slot);
                let data = &self.egraph[id].data;
                let ty = data.ty().clone();
                let this = self.uses;
                self.uses += 1;
                for b in self.bound.iter().filter(|b| b.use_index == this) {
                    let k = (self.binders.len())
                        .checked_sub(b.binder as usize + 1)
                        .ok_or(Skip::IllTyped)?;
                    let want = self.binders[k].clone();
                    self.state
                        .unify(&want, &b.ty, span)
                        .map_err(|_| Skip::IllTyped)?;
                }
                Typed::leaf(ty)
            }
            Tpl::Bound(i) => {
                let ty = self
                    .binders
                    .len()
                    .checked_sub(*i as usize + 1)
                    .map(|k| self.binders[k].clone());
                Typed::leaf(ty.ok_or(Skip::IllTyped)?)
            }
            Tpl::Lambda(body) => {
                let param = self.state.fresh_type(MetaKind::Any);
                self.binders.push(param.clone());
                let b = self.build(body);
                self.binders.pop();
                let b = b?;
                let ty = types::fun(param, b.ty.clone());
                Typed {
                    ty,
                    children: vec![b],
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
                    ty: result,
                    children: vec![f, a],
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
                    self.state
                        .obligations
                        .push(crate::frontend::elab::unify::Obligation {
                            nat: n.clone(),
                            span,
                        });
                }
                Typed {
                    ty,
                    children: vec![f],
                }
            }
            Tpl::Prim(p) => Typed::leaf(self.state.instantiate_primitive(*p)),
            Tpl::Literal(l) => Typed::leaf(types::scalar(l.scalar_type())),
        })
    }
}

/// The types of a right-hand side's nodes for one combination of matched types.
#[derive(Clone, Debug)]
struct Typing {
    /// One type per template node, in pre-order.
    types: Vec<Type>,
    /// Sizes that must be natural numbers for the instance to be well typed.
    obligations: Vec<Nat>,
}

/// A right-hand binder that a pattern variable's matched term refers to, and the type the term
/// uses it at: `use_index` counts the right-hand side's pattern-variable uses in pre-order,
/// `binder` is the binder's De Bruijn index at that use.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BoundType {
    /// Which use of a pattern variable (pre-order over the right-hand side).
    pub use_index: usize,
    /// The right-hand binder's index at that use.
    pub binder: u32,
    /// The type the matched term uses the variable at.
    pub ty: Type,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct TypingKey {
    exprs: Vec<Option<Type>>,
    bound: Vec<BoundType>,
    nats: Vec<Option<Nat>>,
    target: Type,
}

/// Memoised typings of a rule's right-hand side: typing depends only on the types of the matched
/// classes and the sizes bound, so most applications reuse an earlier result instead of running
/// unification again.
#[derive(Debug, Default)]
pub struct TypingCache {
    map: HashMap<TypingKey, Result<std::sync::Arc<Typing>, Skip>>,
}

/// Adds the right-hand side `tpl` for a match of a rule at class `target` and returns its class
/// (not yet united with `target`).
pub fn instantiate(
    egraph: &mut RiseEGraph,
    tpl: &Tpl,
    bindings: &Bindings,
    target: Id,
    assumptions: &mut Assumptions,
    cache: &Mutex<TypingCache>,
) -> Result<Id, Skip> {
    check_free_variables(egraph, tpl, bindings)?;
    let mut bound = Vec::new();
    bound_variable_types(egraph, tpl, bindings, &mut 0, &mut bound)?;
    let key = TypingKey {
        exprs: bindings
            .exprs
            .iter()
            .map(|b| b.map(|id| egraph[id].data.ty().clone()))
            .collect(),
        bound,
        nats: bindings.nats.clone(),
        target: egraph[target].data.ty().clone(),
    };
    let cached = cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .map
        .get(&key)
        .cloned();
    let typing = match cached {
        Some(t) => t,
        None => {
            let t = type_instance(egraph, tpl, bindings, &key.target, &key.bound)
                .map(std::sync::Arc::new);
            cache
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .map
                .insert(key, t.clone());
            t
        }
    }?;
    if !typing.obligations.is_empty() {
        // Check every obligation before assuming any, so a rejected match assumes nothing.
        let mut trial = assumptions.clone();
        for n in &typing.obligations {
            trial.admit(n)?;
        }
        *assumptions = trial;
    }
    add_typed(egraph, tpl, bindings, &mut typing.types.iter())
}

/// A pattern variable may not use a binder the right-hand side does not have where it is used.
fn check_free_variables(egraph: &RiseEGraph, tpl: &Tpl, bindings: &Bindings) -> Result<(), Skip> {
    match tpl {
        Tpl::Var(slot, renaming) => {
            let free = egraph[bindings.expr(*slot)].data.free.exprs();
            if free.iter().any(|i| renaming.map(i).is_none()) {
                return Err(Skip::FreeVariable);
            }
            Ok(())
        }
        Tpl::Lambda(b) | Tpl::NatApp(b, _) => check_free_variables(egraph, b, bindings),
        Tpl::App(f, a) => {
            check_free_variables(egraph, f, bindings)?;
            check_free_variables(egraph, a, bindings)
        }
        Tpl::Bound(_) | Tpl::Prim(_) | Tpl::Literal(_) => Ok(()),
    }
}

/// For every use of a pattern variable whose matched term refers to a binder of the left-hand
/// side that the right-hand side binds there too, the type the term uses it at (read off the
/// matched class). `uses` counts the pattern-variable uses in pre-order.
pub fn bound_variable_types(
    egraph: &RiseEGraph,
    tpl: &Tpl,
    bindings: &Bindings,
    uses: &mut usize,
    out: &mut Vec<BoundType>,
) -> Result<(), Skip> {
    match tpl {
        Tpl::Var(slot, renaming) => {
            let this = *uses;
            *uses += 1;
            let id = egraph.find(bindings.expr(*slot));
            let free = egraph[id].data.free.exprs();
            // `add_renamed` reuses the class when no free variable changes its index, and adds
            // a renamed copy of its smallest term otherwise.
            let reused = free.iter().all(|i| renaming.map(i) == Some(i));
            for i in free.iter() {
                if i >= renaming.lhs_binders {
                    continue;
                }
                let Some(binder) = renaming.map(i) else {
                    return Err(Skip::FreeVariable);
                };
                match variable_type(egraph, id, i, !reused) {
                    VarType::Found(ty) => out.push(BoundType {
                        use_index: this,
                        binder,
                        ty,
                    }),
                    VarType::Unused => {}
                    VarType::Unknown => return Err(Skip::IllTyped),
                }
            }
            Ok(())
        }
        Tpl::Lambda(b) | Tpl::NatApp(b, _) => bound_variable_types(egraph, b, bindings, uses, out),
        Tpl::App(f, a) => {
            bound_variable_types(egraph, f, bindings, uses, out)?;
            bound_variable_types(egraph, a, bindings, uses, out)
        }
        Tpl::Bound(_) | Tpl::Prim(_) | Tpl::Literal(_) => Ok(()),
    }
}

/// What a class says about the type of one of its free variables.
enum VarType {
    /// The variable occurs at this type.
    Found(Type),
    /// No term of the class uses it.
    Unused,
    /// The search was cut short (too many nodes): the type is not known.
    Unknown,
}

/// How many e-nodes [`variable_type`] visits at most before giving up.
const VARIABLE_SEARCH_LIMIT: usize = 100_000;

/// The type at which class `id` uses its free variable `i`. With `smallest_only`, only the
/// class's smallest term is searched (the term a renamed copy is extracted from); otherwise every
/// node reachable from the class (the class itself is reused). Nat binders are not entered
/// (a variable's type below one is shifted; the smallest term of a class rarely has one).
fn variable_type(egraph: &RiseEGraph, id: Id, i: u32, smallest_only: bool) -> VarType {
    let mut stack = vec![(egraph.find(id), i)];
    let mut seen = std::collections::HashSet::new();
    let mut budget = VARIABLE_SEARCH_LIMIT;
    while let Some((class, index)) = stack.pop() {
        if !seen.insert((class, index)) {
            continue;
        }
        let data = &egraph[class].data;
        if !data.may_use(index) {
            continue;
        }
        let smallest;
        let nodes: &[RiseNode] = if smallest_only {
            smallest = crate::egraph::smallest_node(egraph, class);
            std::slice::from_ref(&smallest)
        } else {
            &egraph[class].nodes
        };
        for node in nodes {
            budget = match budget.checked_sub(1) {
                Some(b) => b,
                None => return VarType::Unknown,
            };
            match node.op() {
                RiseOp::Var(j) if j == index => return VarType::Found(node.ty.clone()),
                RiseOp::Lambda => stack.push((egraph.find(node.children_ids()[0]), index + 1)),
                RiseOp::App | RiseOp::NatApp(_) => {
                    stack.extend(node.children_ids().iter().map(|c| (egraph.find(*c), index)))
                }
                _ => {}
            }
        }
    }
    VarType::Unused
}

/// Infers the types of every node of the instance.
fn type_instance(
    egraph: &RiseEGraph,
    tpl: &Tpl,
    bindings: &Bindings,
    target: &Type,
    bound: &[BoundType],
) -> Result<Typing, Skip> {
    let mut builder = Builder {
        egraph,
        bindings,
        state: InferState::default(),
        binders: Vec::new(),
        bound,
        uses: 0,
    };
    let root = builder.build(tpl)?;
    builder
        .state
        .unify(&root.ty, target, Span::default())
        .map_err(|_| Skip::IllTyped)?;
    let state = builder.state;
    if !state.postponed().is_empty() {
        return Err(Skip::IllTyped);
    }
    let mut types = Vec::new();
    collect_types(&root, &state, &mut types)?;
    let obligations = state
        .obligations
        .iter()
        .map(|o| state.zonk_nat(&o.nat))
        .collect();
    Ok(Typing { types, obligations })
}

fn collect_types(t: &Typed, state: &InferState, out: &mut Vec<Type>) -> Result<(), Skip> {
    let ty = state.zonk(&t.ty);
    if ty.has_metas() {
        return Err(Skip::IllTyped);
    }
    out.push(ty);
    t.children
        .iter()
        .try_for_each(|c| collect_types(c, state, out))
}

/// Adds the instance, taking node types in pre-order from `types`.
fn add_typed<'a>(
    egraph: &mut RiseEGraph,
    tpl: &Tpl,
    bindings: &Bindings,
    types: &mut impl Iterator<Item = &'a Type>,
) -> Result<Id, Skip> {
    let ty = types.next().ok_or(Skip::IllTyped)?.clone();
    let node = match tpl {
        Tpl::Var(slot, renaming) => {
            return add_renamed(egraph, bindings.expr(*slot), &|i| renaming.map(i))
                .ok_or(Skip::FreeVariable);
        }
        Tpl::Bound(i) => RiseNode::leaf(RiseOp::Var(*i), ty),
        Tpl::Lambda(b) => {
            let b = add_typed(egraph, b, bindings, types)?;
            RiseNode::new(RiseOp::Lambda, &[b], ty)
        }
        Tpl::App(f, a) => {
            let f = add_typed(egraph, f, bindings, types)?;
            let a = add_typed(egraph, a, bindings, types)?;
            RiseNode::new(RiseOp::App, &[f, a], ty)
        }
        Tpl::NatApp(f, n) => {
            let f = add_typed(egraph, f, bindings, types)?;
            RiseNode::new(
                RiseOp::NatApp(eval_nat(n, bindings).ok_or(Skip::IllTyped)?),
                &[f],
                ty,
            )
        }
        Tpl::Prim(p) => RiseNode::leaf(RiseOp::Prim(*p), ty),
        Tpl::Literal(l) => RiseNode::leaf(RiseOp::Literal(*l), ty),
    };
    // With explanations on, the id of this very e-node (not its class's representative), so
    // that the union the rule makes is recorded against the right-hand side it built.
    Ok(if egraph.are_explanations_enabled() {
        egraph.add_uncanonical(node)
    } else {
        egraph.add(node)
    })
}
