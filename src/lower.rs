//! Lowering to low-level Rise: the last, automatic step after the guide steps.
//!
//! Every value the program computes must say how it is computed. Walking the term from the
//! result inwards, a position is *written* when its value is stored: the program's result, the
//! argument of `toMem`/`let`, the elements written by a `mapSeq`/`mapPar` loop, the initial value
//! and the new accumulator of a reduction, and the arguments of the data-layout primitives seen
//! from the output side (`join`, `split`, `transpose`, `asScalar`, `asVector`, pairs). There a
//! high-level `map` becomes a sequential loop (`mapSeq`); a `map` that is only *read* stays a
//! view, computed element by element where it is consumed (no copy). Every `reduce` becomes
//! `reduceSeq`. Parallel or unrolled loops a sketch asked for (`mapPar`, `reduceSeqUnroll`) are
//! kept. Types do not change: the low-level primitives have the high-level ones' types.

use crate::core::normalize::program_normal;
use crate::core::{Expr, ExprKind, TypedProgram};
use crate::primitive::Primitive;

/// Lowers a program (see the module documentation); the result has the same type.
pub fn lower(p: &TypedProgram) -> TypedProgram {
    let normal = program_normal(&p.term).unwrap_or_else(|_| p.term.clone());
    TypedProgram {
        term: lower_program(&normal),
        ..p.clone()
    }
}

/// Whether a term still has high-level computations the C backend cannot take (`reduce`, or a
/// `map` in a written position); lists them by name.
pub fn remaining_high_level(e: &Expr) -> Vec<&'static str> {
    let mut out = Vec::new();
    walk_prims(e, &mut |p| {
        if p == Primitive::Reduce && !out.contains(&"reduce") {
            out.push("reduce");
        }
    });
    out
}

fn walk_prims(e: &Expr, f: &mut dyn FnMut(Primitive)) {
    match &e.kind {
        ExprKind::Prim(p) => f(*p),
        ExprKind::Lambda(b) | ExprKind::NatLambda(b) | ExprKind::NatApp(b, _) => walk_prims(b, f),
        ExprKind::App(a, b) => {
            walk_prims(a, f);
            walk_prims(b, f);
        }
        _ => {}
    }
}

fn lower_program(e: &Expr) -> Expr {
    match &e.kind {
        ExprKind::NatLambda(b) => rebuild(e, ExprKind::NatLambda(Box::new(lower_program(b)))),
        ExprKind::Lambda(b) => rebuild(e, ExprKind::Lambda(Box::new(lower_program(b)))),
        _ => lower_expr(e, true),
    }
}

fn rebuild(e: &Expr, kind: ExprKind) -> Expr {
    Expr::new(kind, e.ty.clone())
}

/// The head of an application spine and its arguments (nat arguments skipped but kept).
fn spine(e: &Expr) -> (&Expr, Vec<&Expr>) {
    let mut args = Vec::new();
    let mut head = e;
    loop {
        match &head.kind {
            ExprKind::App(f, a) => {
                args.push(&**a);
                head = f;
            }
            ExprKind::NatApp(f, _) => head = f,
            _ => break,
        }
    }
    args.reverse();
    (head, args)
}

/// Lowers `e`; `written` says whether its value is stored (see the module documentation).
fn lower_expr(e: &Expr, written: bool) -> Expr {
    match &e.kind {
        ExprKind::Lambda(b) => rebuild(e, ExprKind::Lambda(Box::new(lower_expr(b, written)))),
        ExprKind::NatLambda(b) => rebuild(e, ExprKind::NatLambda(Box::new(lower_expr(b, written)))),
        ExprKind::App(..) | ExprKind::NatApp(..) => {
            let (head, args) = spine(e);
            let prim = match head.kind {
                ExprKind::Prim(p) => Some(p),
                _ => None,
            };
            // How each argument position is treated, and the primitive that replaces the head.
            let (new_prim, modes): (Option<Primitive>, Vec<bool>) = match prim {
                Some(Primitive::Map) if written => (Some(Primitive::MapSeq), vec![true, false]),
                Some(Primitive::Map) => (None, vec![false, false]),
                Some(p @ (Primitive::MapSeq | Primitive::MapPar | Primitive::MapSeqUnroll)) => {
                    (Some(p), vec![true, false])
                }
                Some(Primitive::Reduce) => (Some(Primitive::ReduceSeq), vec![true, true, false]),
                Some(p @ (Primitive::ReduceSeq | Primitive::ReduceSeqUnroll)) => {
                    (Some(p), vec![true, true, false])
                }
                Some(Primitive::ToMem) => (None, vec![true]),
                Some(Primitive::Let) => (None, vec![true, written]),
                Some(
                    Primitive::Join
                    | Primitive::Split
                    | Primitive::Transpose
                    | Primitive::AsScalar
                    | Primitive::AsVector
                    | Primitive::AsVectorAligned
                    | Primitive::MakePair
                    | Primitive::Zip,
                ) => (None, vec![written, written]),
                _ => (None, Vec::new()),
            };
            rebuild_spine(e, &args, &modes, new_prim)
        }
        _ => e.clone(),
    }
}

/// Rebuilds an application spine with lowered arguments (argument `i` lowered as written when
/// `modes[i]`, read otherwise) and, if given, a new head primitive of the same type.
fn rebuild_spine(e: &Expr, args: &[&Expr], modes: &[bool], new_prim: Option<Primitive>) -> Expr {
    fn go(
        e: &Expr,
        modes: &[bool],
        new_prim: Option<Primitive>,
        next: &mut usize,
        total: usize,
    ) -> Expr {
        match &e.kind {
            ExprKind::App(f, a) => {
                let f2 = go(f, modes, new_prim, next, total);
                let i = *next;
                *next += 1;
                let mode = modes.get(i).copied().unwrap_or(false);
                let a2 = lower_expr(a, mode);
                rebuild(e, ExprKind::App(Box::new(f2), Box::new(a2)))
            }
            ExprKind::NatApp(f, n) => {
                let f2 = go(f, modes, new_prim, next, total);
                rebuild(e, ExprKind::NatApp(Box::new(f2), n.clone()))
            }
            ExprKind::Prim(_) => match new_prim {
                Some(p) => rebuild(e, ExprKind::Prim(p)),
                None => e.clone(),
            },
            _ => lower_expr(e, false),
        }
    }
    let mut next = 0;
    go(e, modes, new_prim, &mut next, args.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::SourceFile;

    fn lowered(src: &str) -> String {
        let p = crate::driver::compile_source(&SourceFile::new("t.rise", src), None).unwrap();
        crate::core::print::program_to_source(&lower(&p))
    }

    #[test]
    fn written_maps_become_loops_and_read_maps_stay_views() {
        let out = lowered(
            "def f {n : nat} (xs : n.f32) (ys : n.f32) : n.f32 =\n\
             map (fun x => x * 2.0) (zip xs ys |> map (fun p => fst p + snd p))",
        );
        assert!(out.contains("mapSeq"), "{out}");
        assert_eq!(out.matches("mapSeq").count(), 1, "{out}");
        assert!(out.contains("map ("), "{out}");
    }

    #[test]
    fn reductions_become_sequential() {
        let out = lowered(include_str!("../examples/matmul.rise"));
        assert!(!out.contains("reduce ("), "{out}");
        assert!(out.contains("reduceSeq"), "{out}");
        assert_eq!(out.matches("mapSeq").count(), 2, "{out}");
        assert!(remaining_high_level(
            &lower(
                &crate::driver::compile_source(
                    &SourceFile::new("m.rise", include_str!("../examples/matmul.rise")),
                    None
                )
                .unwrap()
            )
            .term
        )
        .is_empty());
    }
}
