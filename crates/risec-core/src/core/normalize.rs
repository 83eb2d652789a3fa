//! Beta-eta normal form of core terms, computed directly on the tree.
//!
//! Searches start from normal forms so that the e-graph does not fill up with administrative
//! redexes and so that a goal written with or without them is the same goal. Rise is simply
//! typed, so reduction terminates; `fuel` bounds the work anyway (normal forms can be
//! exponentially larger than their terms), and running out of it is an error.
//!
//! Reduction: `(fun x => b) a → b[x := a]`, `(fun (n : nat) => b) s → b[n := s]`, and
//! `fun x => f x → f` when `x` is not free in `f`. Size lambdas are not eta-reduced.
//!
//! A value that computes (data that reduces, or an array computed with arithmetic) passed to a
//! function that uses its parameter more than once is not copied into each use: the redex
//! becomes `let x = a in b`, so that the program computes it once (a helper `fun s => s * s`
//! applied to a sum would otherwise sum twice).

use super::debruijn::{free_vars, shift_vars, subst_nat, subst_var};
use super::{Expr, ExprKind};
use crate::ir::primitive::Primitive;
use crate::ir::types::{self, TypeNode};

/// Normalisation gave up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfFuel;

impl std::fmt::Display for OutOfFuel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the beta-eta normal form is too large to compute")
    }
}

impl std::error::Error for OutOfFuel {}

/// The default number of reduction steps and rebuilt nodes allowed.
pub const DEFAULT_FUEL: usize = 1_000_000;

/// The beta-eta normal form of `e`.
pub fn beta_eta_normal(e: &Expr) -> Result<Expr, OutOfFuel> {
    let mut fuel = DEFAULT_FUEL;
    normal(e, &mut fuel)
}

/// The normal form of a whole program: its outermost size and value parameters are kept (they
/// are the program's interface, which eta reduction would otherwise remove, as in
/// `fun xs => map f xs`), and everything inside them is normalised.
pub fn program_normal(term: &Expr) -> Result<Expr, OutOfFuel> {
    match &term.kind {
        ExprKind::NatLambda(b) => Ok(Expr::new(
            ExprKind::NatLambda(Box::new(program_normal(b)?)),
            term.ty.clone(),
        )),
        ExprKind::Lambda(b) => Ok(Expr::new(
            ExprKind::Lambda(Box::new(program_normal(b)?)),
            term.ty.clone(),
        )),
        _ => beta_eta_normal(term),
    }
}

/// `term` with its program interface back: under its `size_params` size lambdas, `value_params`
/// value lambdas, eta-expanding the body for those a rewrite removed. A search may eta-reduce
/// `fun xs => mapSeq f xs` to `mapSeq f`, the same function; the program still takes `xs`, and
/// printing and code generation name its parameters. A term whose type has fewer arrows than
/// that is returned as it is.
pub fn restore_params(term: &Expr, size_params: usize, value_params: usize) -> Expr {
    if size_params > 0 {
        return match &term.kind {
            ExprKind::NatLambda(b) => Expr::new(
                ExprKind::NatLambda(Box::new(restore_params(b, size_params - 1, value_params))),
                term.ty.clone(),
            ),
            _ => term.clone(),
        };
    }
    if value_params == 0 {
        return term.clone();
    }
    match (&term.kind, term.ty.get()) {
        (ExprKind::Lambda(b), _) => Expr::new(
            ExprKind::Lambda(Box::new(restore_params(b, 0, value_params - 1))),
            term.ty.clone(),
        ),
        (_, crate::ir::types::TypeNode::Fun(param, result)) => {
            // `f` becomes `fun x => f x`: `f` moves under the new binder.
            let Some(f) = shift_vars(term, 1, 0) else {
                return term.clone();
            };
            let x = Expr::new(ExprKind::Var(0), param.clone());
            let applied = Expr::new(ExprKind::App(Box::new(f), Box::new(x)), result.clone());
            Expr::new(
                ExprKind::Lambda(Box::new(restore_params(&applied, 0, value_params - 1))),
                term.ty.clone(),
            )
        }
        _ => term.clone(),
    }
}

fn burn(fuel: &mut usize, amount: usize) -> Result<(), OutOfFuel> {
    *fuel = fuel.checked_sub(amount).ok_or(OutOfFuel)?;
    Ok(())
}

fn normal(e: &Expr, fuel: &mut usize) -> Result<Expr, OutOfFuel> {
    crate::support::stack::guarded(|| normal_unguarded(e, fuel))
}

fn normal_unguarded(e: &Expr, fuel: &mut usize) -> Result<Expr, OutOfFuel> {
    burn(fuel, 1)?;
    Ok(match &e.kind {
        ExprKind::App(f, a) => {
            let f = normal(f, fuel)?;
            let a = normal(a, fuel)?;
            match &f.kind {
                ExprKind::Lambda(body) if shared_computation(body, &a) => {
                    // `let a (fun x => body)`: the value is computed once.
                    let partial_ty = types::fun(f.ty.clone(), e.ty.clone());
                    let prim = Expr::new(
                        ExprKind::Prim(Primitive::Let),
                        types::fun(a.ty.clone(), partial_ty.clone()),
                    );
                    let partial = Expr::new(ExprKind::App(Box::new(prim), Box::new(a)), partial_ty);
                    Expr::new(ExprKind::App(Box::new(partial), Box::new(f)), e.ty.clone())
                }
                ExprKind::Lambda(body) => {
                    let reduced = subst_var(body, &a);
                    burn(fuel, reduced.size())?;
                    normal(&reduced, fuel)?
                }
                _ => Expr::new(ExprKind::App(Box::new(f), Box::new(a)), e.ty.clone()),
            }
        }
        ExprKind::NatApp(f, n) => {
            let f = normal(f, fuel)?;
            match &f.kind {
                ExprKind::NatLambda(body) => {
                    let reduced = subst_nat(body, n);
                    burn(fuel, reduced.size())?;
                    normal(&reduced, fuel)?
                }
                _ => Expr::new(ExprKind::NatApp(Box::new(f), n.clone()), e.ty.clone()),
            }
        }
        ExprKind::Lambda(b) => {
            let b = normal(b, fuel)?;
            if let Some(reduced) = eta(&b) {
                reduced
            } else {
                Expr::new(ExprKind::Lambda(Box::new(b)), e.ty.clone())
            }
        }
        ExprKind::NatLambda(b) => Expr::new(
            ExprKind::NatLambda(Box::new(normal(b, fuel)?)),
            e.ty.clone(),
        ),
        ExprKind::Var(_) | ExprKind::Prim(_) | ExprKind::Literal(_) => e.clone(),
    })
}

/// Whether substituting `arg` into `body` (a lambda's body, its parameter index 0) would copy a
/// computation worth sharing: `body` uses the parameter more than once, and `arg` is data that
/// reduces, or an array computed with arithmetic. Rearrangements (`zip`, `transpose`, `fst`)
/// are views and cost nothing to repeat; a scalar expression without a reduction is left to
/// the C compiler's common-subexpression elimination, and substituting it keeps the forms the
/// rewrite rules match.
fn shared_computation(body: &Expr, arg: &Expr) -> bool {
    let worth = arg.ty.is_data()
        && matches!(arg.kind, ExprKind::App(..))
        && (contains_prim(
            arg,
            &[
                Primitive::Reduce,
                Primitive::ReduceSeq,
                Primitive::ReduceSeqUnroll,
            ],
        ) || (matches!(arg.ty.get(), TypeNode::Array(..))
            && contains_prim(
                arg,
                &[
                    Primitive::Add,
                    Primitive::Sub,
                    Primitive::Mul,
                    Primitive::Div,
                    Primitive::Neg,
                    Primitive::Exp,
                    Primitive::Log,
                    Primitive::Sqrt,
                    Primitive::Abs,
                    Primitive::Max,
                    Primitive::Min,
                ],
            )));
    worth && uses_of(body, 0) > 1
}

/// Whether `e` applies one of `prims` anywhere (inside functions too).
fn contains_prim(e: &Expr, prims: &[Primitive]) -> bool {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match &e.kind {
            ExprKind::Prim(p) if prims.contains(p) => return true,
            ExprKind::Lambda(b) | ExprKind::NatLambda(b) | ExprKind::NatApp(b, _) => stack.push(b),
            ExprKind::App(f, a) => {
                stack.push(f);
                stack.push(a);
            }
            _ => {}
        }
    }
    false
}

/// How many times expression variable `i` (relative to the top of `e`) occurs in `e`.
fn uses_of(e: &Expr, i: u32) -> usize {
    let mut count = 0;
    let mut stack = vec![(e, i)];
    while let Some((e, i)) = stack.pop() {
        match &e.kind {
            ExprKind::Var(v) if *v == i => count += 1,
            ExprKind::Lambda(b) => stack.push((b, i + 1)),
            ExprKind::NatLambda(b) | ExprKind::NatApp(b, _) => stack.push((b, i)),
            ExprKind::App(f, a) => {
                stack.push((f, i));
                stack.push((a, i));
            }
            _ => {}
        }
    }
    count
}

/// `f` when `body` is `f x` for the lambda's own `x` and `x` is not free in `f`.
fn eta(body: &Expr) -> Option<Expr> {
    let ExprKind::App(f, x) = &body.kind else {
        return None;
    };
    if x.kind != ExprKind::Var(0) || free_vars(f).contains(&0) {
        return None;
    }
    shift_vars(f, -1, 0)
}
