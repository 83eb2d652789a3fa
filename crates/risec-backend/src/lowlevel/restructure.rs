//! Restructuring before lowering, so that values are written where they are computed:
//! * **let hoisting**: `f (let x = v in b)` becomes `let x = v in f b`, `(let x = v in g) a`
//!   becomes `let x = v in g a`, and `fun y => let x = v in b` becomes
//!   `let x = v in fun y => b` when `v` does not use `y`. A value stored by `toMem` is then
//!   computed once, before the loops that read it.
//! * **map fusion into the writer**: a map whose result is written, applied to another map's
//!   result (`map f (mapPar g xs)`), becomes one map of the composition over `xs`; the kind of
//!   loop is the inner one's when that is parallel, sequential otherwise. The outer function
//!   (`join`, `transpose` of the output layout) then writes inside the loop that computes.
//!
//! Both are equalities of Rise, so the result computes the same values; it is beta-normalised
//! afterwards by the caller.

use crate::core::debruijn::{free_vars, rename_vars, shift_vars};
use crate::core::{Expr, ExprKind};
use crate::ir::primitive::Primitive;
use crate::ir::types::{self, Type, TypeNode};

/// `f a`, typed with `f`'s result type.
pub(super) fn app(f: Expr, a: Expr) -> Expr {
    let ty = match f.ty.get() {
        TypeNode::Fun(_, r) => r.clone(),
        _ => unreachable!("applying a non-function"),
    };
    Expr::new(ExprKind::App(Box::new(f), Box::new(a)), ty)
}

/// `fun (x : param) => body`, typed.
pub(super) fn lambda(param: Type, body: Expr) -> Expr {
    let ty = types::fun(param, body.ty.clone());
    Expr::new(ExprKind::Lambda(Box::new(body)), ty)
}

/// `let v (fun x => body)`, typed.
pub(super) fn let_node(v: Expr, body_fn: Expr) -> Expr {
    let (s, t) = match body_fn.ty.get() {
        TypeNode::Fun(s, t) => (s.clone(), t.clone()),
        _ => unreachable!("let takes a function"),
    };
    let prim = Expr::new(
        ExprKind::Prim(Primitive::Let),
        types::fun(s.clone(), types::fun(types::fun(s, t.clone()), t)),
    );
    app(app(prim, v), body_fn)
}

/// `let v (fun x => b)` → `(v, x's type, b)`; a body function that is not a lambda (`let v g`,
/// after eta reduction) is read as `fun x => g x`.
fn as_let(e: &Expr) -> Option<(&Expr, &Type, Expr)> {
    let ExprKind::App(f, body_fn) = &e.kind else {
        return None;
    };
    let ExprKind::App(p, v) = &f.kind else {
        return None;
    };
    if p.kind != ExprKind::Prim(Primitive::Let) {
        return None;
    }
    let TypeNode::Fun(param, _) = body_fn.ty.get() else {
        return None;
    };
    let body = match &body_fn.kind {
        ExprKind::Lambda(b) => (**b).clone(),
        _ => app(up(body_fn), Expr::new(ExprKind::Var(0), param.clone())),
    };
    Some((v, param, body))
}

/// Whether `f a` is a `let` (what [`as_let`] reads), decided without building `f a`.
fn is_let(f: &Expr, a: &Expr) -> bool {
    matches!(&f.kind, ExprKind::App(p, _) if p.kind == ExprKind::Prim(Primitive::Let))
        && matches!(a.ty.get(), TypeNode::Fun(..))
}

fn up(e: &Expr) -> Expr {
    shift_vars(e, 1, 0).expect("shifting up cannot fail")
}

/// Floats `let`s outwards (see the module documentation), bottom-up.
pub fn hoist_lets(e: &Expr) -> Expr {
    crate::support::stack::guarded(|| hoist_lets_unguarded(e))
}

fn hoist_lets_unguarded(e: &Expr) -> Expr {
    match &e.kind {
        ExprKind::App(f, a) => float_app(hoist_lets(f), hoist_lets(a)),
        ExprKind::Lambda(body) => {
            let body = hoist_lets(body);
            let param = match e.ty.get() {
                TypeNode::Fun(p, _) => p.clone(),
                _ => unreachable!(),
            };
            if let Some((v, s, b)) = as_let(&body) {
                if !free_vars(v).contains(&0) {
                    // fun y => let x = v in b  =  let x = v in fun y => b (b's two innermost
                    // variables swap places).
                    let v = shift_vars(v, -1, 0).expect("y is not free in v");
                    let b = rename_vars(&b, &|i| {
                        Some(match i {
                            0 => 1,
                            1 => 0,
                            i => i,
                        })
                    })
                    .expect("renaming is total");
                    return let_node(v, lambda(s.clone(), lambda(param, b)));
                }
            }
            lambda(param, body)
        }
        ExprKind::NatLambda(b) => {
            Expr::new(ExprKind::NatLambda(Box::new(hoist_lets(b))), e.ty.clone())
        }
        ExprKind::NatApp(f, n) => Expr::new(
            ExprKind::NatApp(Box::new(hoist_lets(f)), n.clone()),
            e.ty.clone(),
        ),
        _ => e.clone(),
    }
}

/// `f a` for hoisted `f` and `a`, with the `let`s at the top of either floated out:
/// `f (let x = v in b)` is `let x = v in f b`, `(let x = v in g) a` is `let x = v in g a`.
/// Only the chains of `let`s at the top are walked (their bodies are hoisted already), so a
/// chain of n `let`s costs n steps, not a new traversal of the whole term per `let` (which was
/// exponential in the chain's length).
fn float_app(f: Expr, a: Expr) -> Expr {
    crate::support::stack::guarded(|| {
        if is_let(&f, &a) {
            return app(f, a);
        }
        if let Some((v, s, b)) = as_let(&a) {
            let inner = float_app(up(&f), b);
            return let_node(v.clone(), lambda(s.clone(), inner));
        }
        if let Some((v, s, g)) = as_let(&f) {
            let inner = float_app(g, up(&a));
            return let_node(v.clone(), lambda(s.clone(), inner));
        }
        app(f, a)
    })
}

/// `M f xs` for a map-like primitive M: `(M, f, xs)`.
fn as_map(e: &Expr) -> Option<(Primitive, &Expr, &Expr)> {
    let ExprKind::App(g, xs) = &e.kind else {
        return None;
    };
    let ExprKind::App(m, f) = &g.kind else {
        return None;
    };
    match m.kind {
        ExprKind::Prim(p @ (Primitive::Map | Primitive::MapSeq | Primitive::MapPar)) => {
            Some((p, f, xs))
        }
        _ => None,
    }
}

/// A chain of maps `M1 f1 (M2 f2 (… (Mk fk xs)))` (k ≥ 2) fused into one map
/// `M (fun x => f1 (f2 (… (fk x)))) xs`: a parallel map when one of them is, else sequential.
/// The whole chain at once, each function shifted once: fusing two maps at a time would shift
/// the growing composition again at every step (quadratic in the chain's length).
fn fused_chain(e: &Expr) -> Option<Expr> {
    let (outer, f, mut rest) = as_map(e)?;
    let mut fs = vec![f];
    let mut parallel = outer == Primitive::MapPar;
    while let Some((inner, g, xs)) = as_map(rest) {
        fs.push(g);
        parallel |= inner == Primitive::MapPar;
        rest = xs;
    }
    if fs.len() < 2 {
        return None;
    }
    let kind = if parallel {
        Primitive::MapPar
    } else {
        Primitive::MapSeq
    };
    let TypeNode::Array(_, s) = rest.ty.get() else {
        unreachable!("maps take arrays")
    };
    let body = fs
        .iter()
        .rev()
        .fold(Expr::new(ExprKind::Var(0), s.clone()), |x, f| app(up(f), x));
    let fun = lambda(s.clone(), body);
    let prim = Expr::new(
        ExprKind::Prim(kind),
        types::fun(fun.ty.clone(), types::fun(rest.ty.clone(), e.ty.clone())),
    );
    Some(app(app(prim, fun), rest.clone()))
}

/// A primitive applied to one argument, with the result type given.
fn prim1(p: Primitive, arg: Expr, result: Type) -> Expr {
    let prim = Expr::new(ExprKind::Prim(p), types::fun(arg.ty.clone(), result));
    app(prim, arg)
}

fn array_parts(t: &Type) -> (crate::ir::nat::Nat, Type) {
    match t.get() {
        TypeNode::Array(n, e) => (n.clone(), e.clone()),
        _ => unreachable!("an array type"),
    }
}

/// `map join (transpose x)` (rows of blocks joined) as `transpose (join (map transpose x))`:
/// the same array, written through `transpose` and `join` only, so that the maps computing `x`
/// can write into the output directly.
fn join_rows_of_transpose(e: &Expr) -> Option<Expr> {
    let (_, f, t) = as_map(e)?;
    if f.kind != ExprKind::Prim(Primitive::Join) {
        return None;
    }
    let ExprKind::App(tp, x) = &t.kind else {
        return None;
    };
    if tp.kind != ExprKind::Prim(Primitive::Transpose) {
        return None;
    }
    // x : a.b.c.t
    let (a, bct) = array_parts(&x.ty);
    let (b, ct) = array_parts(&bct);
    let (c, el) = array_parts(&ct);
    let cbt = types::array(c.clone(), types::array(b.clone(), el.clone()));
    let transpose = Expr::new(
        ExprKind::Prim(Primitive::Transpose),
        types::fun(bct.clone(), cbt.clone()),
    );
    let map_t = types::array(a.clone(), cbt.clone());
    let map_prim = Expr::new(
        ExprKind::Prim(Primitive::Map),
        types::fun(
            transpose.ty.clone(),
            types::fun(x.ty.clone(), map_t.clone()),
        ),
    );
    let mapped = app(app(map_prim, transpose), (**x).clone());
    let joined_t = types::array(
        crate::ir::nat::mul(&a, &c),
        types::array(b.clone(), el.clone()),
    );
    let joined = prim1(Primitive::Join, mapped, joined_t);
    Some(prim1(Primitive::Transpose, joined, e.ty.clone()))
}

/// Fuses maps into the maps that write their results (see the module documentation). `written`
/// is whether `e`'s value is stored; only written maps absorb the maps they read.
pub fn fuse_into_writers(e: &Expr, written: bool) -> Expr {
    crate::support::stack::guarded(|| fuse_into_writers_unguarded(e, written))
}

fn fuse_into_writers_unguarded(e: &Expr, written: bool) -> Expr {
    if written {
        if let Some(r) = join_rows_of_transpose(e) {
            return fuse_into_writers(&r, true);
        }
        if let Some(chain) = fused_chain(e) {
            return fuse_into_writers(&chain, true);
        }
    }
    match &e.kind {
        ExprKind::Lambda(b) => Expr::new(
            ExprKind::Lambda(Box::new(fuse_into_writers(b, written))),
            e.ty.clone(),
        ),
        ExprKind::NatLambda(b) => Expr::new(
            ExprKind::NatLambda(Box::new(fuse_into_writers(b, written))),
            e.ty.clone(),
        ),
        ExprKind::App(..) | ExprKind::NatApp(..) => {
            let modes = super::argument_modes(e, written);
            super::map_arguments(e, &mut |i, a| {
                fuse_into_writers(a, modes.get(i).copied().unwrap_or(false))
            })
        }
        _ => e.clone(),
    }
}

/// The argument of `p x`, if `e` is that application.
fn applied(e: &Expr, p: Primitive) -> Option<&Expr> {
    match &e.kind {
        ExprKind::App(f, x) if f.kind == ExprKind::Prim(p) => Some(x),
        _ => None,
    }
}

/// Removes layout round trips that extraction may leave (they are views, so this only makes the
/// program and the index expressions simpler): `fst (unzip (zip a b))` is `a`,
/// `snd (unzip (zip a b))` is `b`, `transpose (transpose x)` is `x`, `join (split s x)` is `x`.
pub fn simplify(e: &Expr) -> Expr {
    crate::support::stack::guarded(|| simplify_unguarded(e))
}

fn simplify_unguarded(e: &Expr) -> Expr {
    let e = e.map_children(simplify);
    for (proj, first) in [(Primitive::Fst, true), (Primitive::Snd, false)] {
        if let Some(zipped) = applied(&e, proj).and_then(|u| applied(u, Primitive::Unzip)) {
            if let ExprKind::App(za, b) = &zipped.kind {
                if let Some(a) = applied(za, Primitive::Zip) {
                    return if first { a.clone() } else { (**b).clone() };
                }
            }
        }
    }
    if let Some(x) =
        applied(&e, Primitive::Transpose).and_then(|t| applied(t, Primitive::Transpose))
    {
        return x.clone();
    }
    if let Some(ExprKind::NatApp(s, _)) = applied(&e, Primitive::Join).map(|j| match &j.kind {
        ExprKind::App(sp, _) => &sp.kind,
        other => other,
    }) {
        if s.kind == ExprKind::Prim(Primitive::Split) {
            if let Some(ExprKind::App(_, x)) = applied(&e, Primitive::Join).map(|j| &j.kind) {
                return (**x).clone();
            }
        }
    }
    e
}
