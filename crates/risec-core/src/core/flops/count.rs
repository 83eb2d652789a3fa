//! The counter: an abstract interpreter that runs a term once per place it is evaluated and
//! charges each float operation with the number of times it executes (the product of the
//! lengths of the `map`s, `reduce`s and `generate`s around it), instead of looping.

use super::value::{Dep, Env, Partial, Val};
use crate::core::{Expr, ExprKind};
use std::rc::Rc;

/// The most term nodes the counter visits before it gives up (a program that applies functions
/// to functions can take time exponential in its length to run even once abstractly).
const MAX_STEPS: u64 = 1 << 24;

/// Why a program was not counted: a construct the counter does not model, an ill-typed term,
/// a size that does not evaluate, an overflow, or too many steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Uncountable;

/// Results of the counter.
pub(super) type R<T> = Result<T, Uncountable>;

/// The running count.
pub(super) struct Counter {
    /// The floating-point operations charged so far.
    total: u64,
    /// How many times the code being evaluated runs per run of the program; `None` when that
    /// number does not fit in 64 bits (an error only once an operation is charged with it).
    scale: Option<u64>,
    /// Term nodes visited.
    steps: u64,
}

impl Counter {
    /// A counter at zero, for code that runs once.
    pub(super) fn new() -> Counter {
        Counter {
            total: 0,
            scale: Some(1),
            steps: 0,
        }
    }

    /// The operations charged so far.
    pub(super) fn total(&self) -> u64 {
        self.total
    }

    /// Charges `cost` operations executed once per run of the code being evaluated.
    pub(super) fn charge(&mut self, cost: u64) -> R<()> {
        if cost == 0 {
            return Ok(());
        }
        let times = self.scale.ok_or(Uncountable)?;
        let add = times.checked_mul(cost).ok_or(Uncountable)?;
        self.total = self.total.checked_add(add).ok_or(Uncountable)?;
        Ok(())
    }

    /// Runs `f` as code executed `times` times per run of the code being evaluated.
    pub(super) fn repeated<T>(&mut self, times: u64, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        let saved = self.scale;
        self.scale = match times {
            0 => Some(0),
            t => saved.and_then(|s| s.checked_mul(t)),
        };
        let result = f(self);
        self.scale = saved;
        result
    }

    /// Evaluates `e` in `env`, charging the operations one evaluation performs.
    pub(super) fn eval<'a>(&mut self, e: &'a Expr, env: &Env<'a>) -> R<Val<'a>> {
        crate::support::stack::guarded(|| self.eval_unguarded(e, env))
    }

    fn eval_unguarded<'a>(&mut self, e: &'a Expr, env: &Env<'a>) -> R<Val<'a>> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(Uncountable);
        }
        match &e.kind {
            ExprKind::Var(i) => env.value(*i).cloned().ok_or(Uncountable),
            ExprKind::Literal(_) => Ok(Val::Data(Dep::Const)),
            ExprKind::Lambda(body) => Ok(Val::Closure(body, env.clone())),
            ExprKind::NatLambda(body) => Ok(Val::NatClosure(body, env.clone())),
            ExprKind::Prim(prim) => Ok(Val::Prim(Rc::new(Partial {
                prim: *prim,
                ty: &e.ty,
                nat_env: env.nats.clone(),
                nats: Vec::new(),
                args: Vec::new(),
            }))),
            ExprKind::App(f, a) => {
                let f = self.eval(f, env)?;
                let a = self.eval(a, env)?;
                self.apply(f, a)
            }
            ExprKind::NatApp(f, n) => {
                let f = self.eval(f, env)?;
                let n = super::value::eval_nat(n, &[], &env.nats).ok_or(Uncountable)?;
                self.apply_nat(f, n)
            }
        }
    }

    /// Applies a function to a value argument, charging what the application performs.
    pub(super) fn apply<'a>(&mut self, f: Val<'a>, arg: Val<'a>) -> R<Val<'a>> {
        match f {
            Val::Closure(body, env) => self.eval(body, &env.with_value(arg)),
            Val::Prim(p) if p.nats.len() == p.prim.nat_arity() => {
                let mut next = (*p).clone();
                next.args.push(arg);
                if next.args.len() == next.prim.value_arity() {
                    self.call(&next)
                } else {
                    Ok(Val::Prim(Rc::new(next)))
                }
            }
            Val::Prim(_) | Val::NatClosure(..) | Val::Data(_) => Err(Uncountable),
        }
    }

    /// Applies a function to two data arguments, `f a b`.
    pub(super) fn apply2<'a>(&mut self, f: &Val<'a>, a: &Dep, b: &Dep) -> R<Dep> {
        let g = self.apply(f.clone(), Val::Data(a.clone()))?;
        self.apply(g, Val::Data(b.clone()))?.into_data()
    }

    /// Applies a function to a size.
    pub(super) fn apply_nat<'a>(&mut self, f: Val<'a>, n: u64) -> R<Val<'a>> {
        match f {
            Val::NatClosure(body, env) => self.eval(body, &env.with_nat(n)),
            Val::Prim(p) if p.nats.len() < p.prim.nat_arity() => {
                let mut next = (*p).clone();
                next.nats.push(n);
                if next.nats.len() == next.prim.nat_arity() && next.prim.value_arity() == 0 {
                    // `natToFloat k`: complete with its size.
                    return self.call(&next);
                }
                Ok(Val::Prim(Rc::new(next)))
            }
            Val::Prim(_) | Val::Closure(..) | Val::Data(_) => Err(Uncountable),
        }
    }
}

impl Val<'_> {
    /// The description of a data value; an error for a function.
    pub(super) fn data(&self) -> R<&Dep> {
        match self {
            Val::Data(d) => Ok(d),
            _ => Err(Uncountable),
        }
    }

    /// [`Val::data`], by value.
    pub(super) fn into_data(self) -> R<Dep> {
        match self {
            Val::Data(d) => Ok(d),
            _ => Err(Uncountable),
        }
    }
}
