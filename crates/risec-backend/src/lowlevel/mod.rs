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
use crate::ir::primitive::Primitive;
use crate::support::budget::{Budget, Exhausted, Stage};

mod restructure;

/// Lowers a program (see the module documentation); the result has the same type. Before the
/// positions are decided, `let`s are hoisted and maps fused into the maps that write them
/// (`restructure`).
pub fn lower(p: &TypedProgram) -> TypedProgram {
    match lower_within(p, &Budget::new(std::time::Duration::MAX, u64::MAX)) {
        Ok(lowered) => lowered,
        Err(e) => unreachable!("an unlimited budget ran out: {e}"),
    }
}

/// [`lower`] within the run's `budget`, checked before every round of restructuring (each
/// near-linear in the program's size).
pub fn lower_within(p: &TypedProgram, budget: &Budget) -> Result<TypedProgram, Exhausted> {
    let normal = |t: &Expr| program_normal(t).unwrap_or_else(|_| t.clone());
    budget.check(Stage::Lowering)?;
    // A program reaching lowering without some of its parameters (eta-reduced by a search)
    // gets them back first: lowering, printing and C name them.
    let restored =
        crate::core::normalize::restore_params(&p.term, p.size_params.len(), p.value_params.len());
    let mut t = normal(&restored);
    // Fusion exposes new redexes and new fusion opportunities; a few rounds reach a fixpoint.
    for _ in 0..8 {
        budget.check(Stage::Lowering)?;
        let next = normal(&on_body(&t, &mut |b| {
            restructure::fuse_into_writers(
                &restructure::hoist_lets(&restructure::simplify(b)),
                true,
            )
        }));
        if next == t {
            break;
        }
        t = next;
    }
    budget.check(Stage::Lowering)?;
    let t = on_body(&t, &mut restructure::hoist_lets);
    Ok(TypedProgram {
        term: lower_program(&t),
        ..p.clone()
    })
}

/// Applies `f` to the body of a program term (inside its size and value parameters).
fn on_body(e: &Expr, f: &mut dyn FnMut(&Expr) -> Expr) -> Expr {
    match &e.kind {
        ExprKind::NatLambda(b) => rebuild(e, ExprKind::NatLambda(Box::new(on_body(b, f)))),
        ExprKind::Lambda(b) => rebuild(e, ExprKind::Lambda(Box::new(on_body(b, f)))),
        _ => f(e),
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

/// How each value argument of the application spine `e` is treated: written (`true`) or read.
/// `written` says whether `e`'s own value is stored.
pub(crate) fn argument_modes(e: &Expr, written: bool) -> Vec<bool> {
    let (head, args) = spine(e);
    match head.kind {
        // A map of a function that only rearranges (`map transpose`) computes nothing: its
        // array is written exactly when the map's result is.
        ExprKind::Prim(
            Primitive::Map | Primitive::MapSeq | Primitive::MapPar | Primitive::MapSeqUnroll,
        ) => vec![
            written || head.kind != ExprKind::Prim(Primitive::Map),
            written && args.first().is_some_and(|f| is_layout_function(f)),
        ],
        ExprKind::Prim(Primitive::Reduce | Primitive::ReduceSeq | Primitive::ReduceSeqUnroll) => {
            vec![true, true, false]
        }
        ExprKind::Prim(Primitive::ToMem) => vec![true],
        ExprKind::Prim(Primitive::Let) => vec![true, written],
        ExprKind::Prim(p) if is_layout_primitive(p) => vec![written],
        ExprKind::Prim(Primitive::MakePair | Primitive::Zip) => vec![written, written],
        _ => Vec::new(),
    }
}

/// The primitives that only rearrange their one data argument.
fn is_layout_primitive(p: Primitive) -> bool {
    matches!(
        p,
        Primitive::Join
            | Primitive::Split
            | Primitive::Transpose
            | Primitive::AsScalar
            | Primitive::AsVector
            | Primitive::AsVectorAligned
    )
}

/// Whether `f` only rearranges its argument: a composition of `join`, `split`, `transpose`,
/// `asScalar`, `asVector` and maps of such functions (`map transpose`), eta-reduced or as a
/// lambda applying them to its parameter.
pub(crate) fn is_layout_function(f: &Expr) -> bool {
    /// Whether `e` applies layout functions to the function's parameter (De Bruijn index 0).
    fn applies_to_param(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Var(0) => true,
            ExprKind::App(g, a) => is_layout_function(g) && applies_to_param(a),
            _ => false,
        }
    }
    match &f.kind {
        ExprKind::Lambda(body) => applies_to_param(body),
        _ => {
            let (head, args) = spine(f);
            match head.kind {
                ExprKind::Prim(p) if is_layout_primitive(p) => args.is_empty(),
                ExprKind::Prim(
                    Primitive::Map
                    | Primitive::MapSeq
                    | Primitive::MapPar
                    | Primitive::MapSeqUnroll,
                ) => args.len() == 1 && is_layout_function(args[0]),
                _ => false,
            }
        }
    }
}

/// Rebuilds the application spine `e` with each value argument `i` replaced by `f(i, arg)`
/// (size arguments and the head are kept; a head that is not a primitive is passed to `f` as
/// argument `usize::MAX`).
pub(crate) fn map_arguments(e: &Expr, f: &mut dyn FnMut(usize, &Expr) -> Expr) -> Expr {
    fn go(e: &Expr, f: &mut dyn FnMut(usize, &Expr) -> Expr, next: &mut usize) -> Expr {
        crate::support::stack::guarded(|| go_unguarded(e, f, next))
    }

    fn go_unguarded(e: &Expr, f: &mut dyn FnMut(usize, &Expr) -> Expr, next: &mut usize) -> Expr {
        match &e.kind {
            ExprKind::App(g, a) => {
                let g2 = go(g, f, next);
                let i = *next;
                *next += 1;
                rebuild(e, ExprKind::App(Box::new(g2), Box::new(f(i, a))))
            }
            ExprKind::NatApp(g, n) => {
                let g2 = go(g, f, next);
                rebuild(e, ExprKind::NatApp(Box::new(g2), n.clone()))
            }
            ExprKind::Prim(_) => e.clone(),
            _ => f(usize::MAX, e),
        }
    }
    go(e, f, &mut 0)
}

/// Lowers `e`; `written` says whether its value is stored (see the module documentation).
fn lower_expr(e: &Expr, written: bool) -> Expr {
    crate::support::stack::guarded(|| lower_expr_unguarded(e, written))
}

fn lower_expr_unguarded(e: &Expr, written: bool) -> Expr {
    match &e.kind {
        ExprKind::Lambda(b) => rebuild(e, ExprKind::Lambda(Box::new(lower_expr(b, written)))),
        ExprKind::NatLambda(b) => rebuild(e, ExprKind::NatLambda(Box::new(lower_expr(b, written)))),
        ExprKind::App(..) | ExprKind::NatApp(..) => {
            let modes = argument_modes(e, written);
            let (head, _) = spine(e);
            let new_prim = match head.kind {
                ExprKind::Prim(Primitive::Map) if written => Some(Primitive::MapSeq),
                ExprKind::Prim(Primitive::Reduce) => Some(Primitive::ReduceSeq),
                _ => None,
            };
            let mut out = map_arguments(e, &mut |i, a| {
                if i == usize::MAX {
                    lower_expr(a, false)
                } else {
                    lower_expr(a, modes.get(i).copied().unwrap_or(false))
                }
            });
            if let Some(p) = new_prim {
                replace_head(&mut out, p);
            }
            out
        }
        _ => e.clone(),
    }
}

/// Replaces the head primitive of the spine `e` by `p` (of the same type), in place: the
/// arguments are not copied.
fn replace_head(e: &mut Expr, p: Primitive) {
    let mut head = e;
    loop {
        match &mut head.kind {
            ExprKind::App(g, _) | ExprKind::NatApp(g, _) => head = g,
            ExprKind::Prim(q) => {
                *q = p;
                return;
            }
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::SourceFile;

    fn lowered(src: &str) -> String {
        let p =
            crate::frontend::load::compile_source(&SourceFile::new("t.rise", src), None).unwrap();
        crate::core::print::program_to_source(&lower(&p))
    }

    #[test]
    fn written_maps_become_loops_and_absorb_the_maps_they_read() {
        let out = lowered(
            "def f {n : nat} (xs : n.f32) (ys : n.f32) : n.f32 =\n\
             map (fun x => x * 2.0) (zip xs ys |> map (fun p => fst p + snd p))",
        );
        assert_eq!(out.matches("mapSeq").count(), 1, "{out}");
        assert!(!out.contains("map ("), "{out}");
    }

    #[test]
    fn maps_read_by_a_reduction_stay_views() {
        let out = lowered(
            "def f {n : nat} (xs : n.f32) : f32 = xs |> map (fun x => x * 2.0) |> reduce (+) 0.0",
        );
        assert!(out.contains("map (") && !out.contains("mapSeq"), "{out}");
    }

    #[test]
    fn a_map_that_only_rearranges_passes_the_write_position_to_its_array() {
        // The inner maps are written through `map join` and `transpose`, so they become loops.
        let out = lowered(
            "def f {n : nat} (xs : n.4.8.f32) : 4.(n*8).f32 =\n\
             xs |> map (fun x => map (map (fun v => v * 2.0)) x) |> transpose |> map join",
        );
        assert_eq!(out.matches("mapSeq").count(), 3, "{out}");
        assert!(!out.contains("map ("), "{out}");
    }

    #[test]
    fn lets_move_out_of_loops() {
        let out = lowered(
            "def f {n m : nat} (xs : n.f32) (ys : m.f32) : n.m.f32 =\n\
             xs |> map (fun x => let t = toMem (map (fun y => y + 1.0) ys) in map (fun z => x * z) t)",
        );
        assert!(
            out.trim_start().starts_with("def f") && out.contains("=\n  let "),
            "{out}"
        );
    }

    #[test]
    fn reductions_become_sequential() {
        let out = lowered(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../..",
            "/examples/matmul.rise"
        )));
        assert!(!out.contains("reduce ("), "{out}");
        assert!(out.contains("reduceSeq"), "{out}");
        assert_eq!(out.matches("mapSeq").count(), 2, "{out}");
        assert!(remaining_high_level(
            &lower(
                &crate::frontend::load::compile_source(
                    &SourceFile::new(
                        "m.rise",
                        include_str!(concat!(
                            env!("CARGO_MANIFEST_DIR"),
                            "/../..",
                            "/examples/matmul.rise"
                        ))
                    ),
                    None
                )
                .unwrap()
            )
            .term
        )
        .is_empty());
    }
}
