//! Compilation of core terms into an evaluation tree, evaluation, and function application.

use super::prims::{call, Site};
use super::value::{FunKind, Function, PrimFn, Value};
use super::{eval_nat_in, list_get, Env, EvalError};
use crate::core::{Expr, ExprKind};
use crate::ir::nat::Nat;
use crate::ir::primitive::Primitive;
use crate::ir::types::Type;
use std::rc::Rc;

/// The evaluation tree: a core term with shared lambda bodies and recognised saturated
/// primitive applications.
#[derive(Debug)]
pub(crate) enum Node {
    Var(u32),
    Lambda(Rc<Node>),
    NatLambda(Rc<Node>),
    App(Box<Node>, Box<Node>),
    NatApp(Box<Node>, Nat),
    /// A primitive node with its type (in the node's nat context).
    Prim(Primitive, Type),
    /// A primitive applied to exactly its size arguments and then its value arguments.
    Call(Box<PrimCall>),
    Lit(Value),
}

#[derive(Debug)]
pub(crate) struct PrimCall {
    prim: Primitive,
    ty: Type,
    nats: Vec<Nat>,
    args: Vec<Node>,
}

/// An argument on an application spine.
enum Arg<'a> {
    Nat(&'a Nat),
    Value(&'a Expr),
}

fn compile(expr: &Expr) -> Node {
    crate::support::stack::guarded(|| compile_unguarded(expr))
}

fn compile_unguarded(expr: &Expr) -> Node {
    match &expr.kind {
        ExprKind::Var(i) => Node::Var(*i),
        ExprKind::Lambda(b) => Node::Lambda(Rc::new(compile(b))),
        ExprKind::NatLambda(b) => Node::NatLambda(Rc::new(compile(b))),
        ExprKind::Prim(p) => Node::Prim(*p, expr.ty.clone()),
        ExprKind::Literal(l) => Node::Lit(Value::from_literal(*l)),
        ExprKind::App(..) | ExprKind::NatApp(..) => compile_spine(expr),
    }
}

fn compile_spine(expr: &Expr) -> Node {
    crate::support::stack::guarded(|| compile_spine_unguarded(expr))
}

fn compile_spine_unguarded(expr: &Expr) -> Node {
    let mut spine = Vec::new();
    let mut head = expr;
    loop {
        match &head.kind {
            ExprKind::App(f, a) => {
                spine.push(Arg::Value(a));
                head = f;
            }
            ExprKind::NatApp(f, n) => {
                spine.push(Arg::Nat(n));
                head = f;
            }
            _ => break,
        }
    }
    spine.reverse();
    let mut rest = &spine[..];
    let mut node = match &head.kind {
        ExprKind::Prim(p) => {
            let (na, va) = (p.nat_arity(), p.value_arity());
            let saturated = spine.len() >= na + va
                && spine[..na].iter().all(|a| matches!(a, Arg::Nat(_)))
                && spine[na..na + va]
                    .iter()
                    .all(|a| matches!(a, Arg::Value(_)));
            if saturated {
                let nats = spine[..na]
                    .iter()
                    .filter_map(|a| match a {
                        Arg::Nat(n) => Some((*n).clone()),
                        Arg::Value(_) => None,
                    })
                    .collect();
                let args = spine[na..na + va]
                    .iter()
                    .filter_map(|a| match a {
                        Arg::Value(e) => Some(compile(e)),
                        Arg::Nat(_) => None,
                    })
                    .collect();
                rest = &spine[na + va..];
                Node::Call(Box::new(PrimCall {
                    prim: *p,
                    ty: head.ty.clone(),
                    nats,
                    args,
                }))
            } else {
                compile(head)
            }
        }
        _ => compile(head),
    };
    for a in rest {
        node = match a {
            Arg::Nat(n) => Node::NatApp(Box::new(node), (*n).clone()),
            Arg::Value(e) => Node::App(Box::new(node), Box::new(compile(e))),
        };
    }
    node
}

/// A term compiled once for repeated evaluation (for example on many random inputs).
#[derive(Debug)]
pub struct Compiled(Node);

impl Compiled {
    /// Compiles a term.
    pub fn new(expr: &Expr) -> Compiled {
        Compiled(compile(expr))
    }

    /// Evaluates the compiled term in `env`.
    pub fn eval(&self, env: &Env) -> Result<Value, EvalError> {
        eval_node(&self.0, env)
    }
}

/// Evaluates any term, open or closed; `env` gives values to its free expression variables
/// and sizes to its free nat variables.
pub fn eval(expr: &Expr, env: &Env) -> Result<Value, EvalError> {
    eval_node(&compile(expr), env)
}

fn fun(kind: FunKind) -> Value {
    Value::Fun(Function(Rc::new(kind)))
}

fn eval_node(node: &Node, env: &Env) -> Result<Value, EvalError> {
    crate::support::stack::guarded(|| eval_node_unguarded(node, env))
}

fn eval_node_unguarded(node: &Node, env: &Env) -> Result<Value, EvalError> {
    match node {
        Node::Var(i) => env
            .value(*i)
            .cloned()
            .ok_or(EvalError::UnboundVariable { index: *i }),
        Node::Lit(v) => Ok(v.clone()),
        Node::Lambda(body) => Ok(fun(FunKind::Closure {
            body: body.clone(),
            env: env.clone(),
        })),
        Node::NatLambda(body) => Ok(fun(FunKind::NatClosure {
            body: body.clone(),
            env: env.clone(),
        })),
        Node::Prim(p, ty) => {
            let pf = PrimFn {
                prim: *p,
                ty: ty.clone(),
                nat_env: env.nats.clone(),
                nats: Vec::new(),
                args: Vec::new(),
            };
            if p.nat_arity() == 0 && p.value_arity() == 0 {
                return call_prim_fn(&pf);
            }
            Ok(fun(FunKind::Prim(pf)))
        }
        Node::App(f, a) => {
            super::memory::check(0)?;
            let f = eval_node(f, env)?;
            let a = eval_node(a, env)?;
            apply(&f, a)
        }
        Node::NatApp(f, n) => {
            let f = eval_node(f, env)?;
            let n = env.eval_nat(n)?;
            apply_nat(&f, n)
        }
        Node::Call(c) => {
            super::memory::check(0)?;
            let mut nats = [0u64; 2];
            for (slot, n) in nats.iter_mut().zip(&c.nats) {
                *slot = env.eval_nat(n)?;
            }
            let mut args = [Value::Bool(false), Value::Bool(false), Value::Bool(false)];
            for (slot, a) in args.iter_mut().zip(&c.args) {
                *slot = eval_node(a, env)?;
            }
            let nat_lookup = |i: u32| list_get(&env.nats, i).copied();
            let site = Site {
                ty: &c.ty,
                nat_env: &nat_lookup,
            };
            call(c.prim, &site, &nats[..c.nats.len()], &args[..c.args.len()])
        }
    }
}

fn call_prim_fn(pf: &PrimFn) -> Result<Value, EvalError> {
    let nat_lookup = |i: u32| list_get(&pf.nat_env, i).copied();
    let site = Site {
        ty: &pf.ty,
        nat_env: &nat_lookup,
    };
    call(pf.prim, &site, &pf.nats, &pf.args)
}

fn not_a_function(f: &Value, what: &str) -> EvalError {
    EvalError::Type {
        context: "application".into(),
        expected: what.into(),
        found: f.describe(),
    }
}

/// Applies a function value to a value argument.
pub fn apply(f: &Value, arg: Value) -> Result<Value, EvalError> {
    let Value::Fun(func) = f else {
        return Err(not_a_function(f, "a function"));
    };
    match &*func.0 {
        FunKind::Closure { body, env } => eval_node(body, &env.with_value(arg)),
        FunKind::NatClosure { .. } => {
            Err(not_a_function(f, "a function of a value (not of a size)"))
        }
        FunKind::Prim(pf) => {
            if pf.nats.len() < pf.prim.nat_arity() {
                return Err(not_a_function(f, "a size argument before value arguments"));
            }
            let mut next = pf.clone();
            next.args.push(arg);
            if next.args.len() == pf.prim.value_arity() {
                call_prim_fn(&next)
            } else {
                Ok(fun(FunKind::Prim(next)))
            }
        }
    }
}

/// Applies a function value to two arguments, `f a b`, without building the intermediate
/// function when `f` is a two-parameter closure or a primitive (the inner loop of `reduce`).
pub(crate) fn apply2(f: &Value, a: Value, b: Value) -> Result<Value, EvalError> {
    if let Value::Fun(func) = f {
        match &*func.0 {
            FunKind::Closure { body, env } => {
                if let Node::Lambda(inner) = &**body {
                    return eval_node(inner, &env.with_value(a).with_value(b));
                }
            }
            FunKind::Prim(pf)
                if pf.args.is_empty()
                    && pf.nats.len() == pf.prim.nat_arity()
                    && pf.prim.value_arity() == 2 =>
            {
                let nat_lookup = |i: u32| list_get(&pf.nat_env, i).copied();
                let site = Site {
                    ty: &pf.ty,
                    nat_env: &nat_lookup,
                };
                return call(pf.prim, &site, &pf.nats, &[a, b]);
            }
            _ => {}
        }
    }
    apply(&apply(f, a)?, b)
}

/// Applies a function value to a size argument (a size lambda, or a primitive such as
/// `split` still waiting for its sizes).
pub fn apply_nat(f: &Value, n: u64) -> Result<Value, EvalError> {
    let Value::Fun(func) = f else {
        return Err(not_a_function(f, "a size function"));
    };
    match &*func.0 {
        FunKind::NatClosure { body, env } => eval_node(body, &env.with_nat(n)),
        FunKind::Closure { .. } => Err(not_a_function(f, "a function of a size (not of a value)")),
        FunKind::Prim(pf) => {
            if pf.nats.len() >= pf.prim.nat_arity() {
                return Err(not_a_function(f, "a function of a size"));
            }
            let mut next = pf.clone();
            next.nats.push(n);
            if next.nats.len() == pf.prim.nat_arity() && pf.prim.value_arity() == 0 {
                call_prim_fn(&next)
            } else {
                Ok(fun(FunKind::Prim(next)))
            }
        }
    }
}

/// Evaluates a size in a nat environment given as a lookup (used by the primitives).
pub(crate) fn eval_size(n: &Nat, lookup: &dyn Fn(u32) -> Option<u64>) -> Result<u64, EvalError> {
    eval_nat_in(n, lookup)
}
