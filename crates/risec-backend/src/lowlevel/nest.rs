//! Reductions over a joined array as nested reductions: `reduce f init (join ys)` folds the
//! rows of `ys` one after the other, `reduceSeq (fun acc y => reduce f acc y) init ys`, the same
//! operations in the same order (an equality of Rise, exact in floating point).
//!
//! A window's dot product with its weights is written `dot (join w) (join nbh)`: one reduction
//! over the flattened window. Lowered as written, the loop runs over `k·3·3` elements and
//! computes each element's channel, row and column with divisions and remainders (`i / 9`,
//! `i / 3 % 3`, `i % 3`) — twice as slow as the plain loop nest for a 3×3 convolution over 64
//! channels. Nested, the inner reduction (a window of 3 × 3) has a constant size and is
//! unrolled by the lowering, and the outer one runs over the channels with plain strides. A
//! joined array short enough to be unrolled whole (a lone 5 × 5 window) is left as it is.
//!
//! The array a reduction folds is seen through the views that keep its rows apart: `join ys`
//! is `ys`'s rows; `map g xs` over rows `xs'` is `map (map g) xs'`; `zip a b` over rows `a'` and
//! `b'` of the same shape is the rows of `map (fun p => zip (fst p) (snd p)) (zip a' b')`. Only
//! high-level `reduce` and `map` are restructured: a sketch's `reduceSeq` and loops stay as
//! they are.

use crate::core::debruijn::shift_vars;
use crate::core::{Expr, ExprKind};
use crate::ir::primitive::Primitive;
use crate::ir::types::{self, Type, TypeNode};

use super::restructure::{app, lambda};
use super::spine;

/// Rewrites every high-level `reduce` over a joined array (see the module documentation), one
/// level of joining per call (the lowering's rounds reach nested joins); adds the number
/// rewritten to `count`.
pub fn nest_joined_reductions(e: &Expr, count: &mut usize) -> Expr {
    crate::support::stack::guarded(|| nest_unguarded(e, count))
}

fn nest_unguarded(e: &Expr, count: &mut usize) -> Expr {
    let rebuilt = e.map_children(|c| nest_joined_reductions(c, count));
    match nested(&rebuilt) {
        Some(n) => {
            *count += 1;
            n
        }
        None => rebuilt,
    }
}

/// `reduce f init xs` with `xs` the rows `ys` joined: `reduceSeq (fun acc y => reduce f acc y)
/// init ys`, unless `xs` is short enough to be unrolled whole.
fn nested(e: &Expr) -> Option<Expr> {
    let (head, args) = spine(e);
    if head.kind != ExprKind::Prim(Primitive::Reduce) || args.len() != 3 {
        return None;
    }
    let (f, init, xs) = (args[0], args[1], args[2]);
    // A short reduction of a constant size is unrolled whole by the lowering (every element
    // at a constant index): nesting it would only add a loop.
    let (len, _) = array_parts(&xs.ty)?;
    if len
        .as_integer()
        .is_some_and(|k| k <= i128::from(super::UNROLL_EXTENT))
    {
        return None;
    }
    let rows = rows_of(xs)?;
    let acc_ty = init.ty.clone();
    let row_ty = array_parts(&rows.ty)?.1;
    // fun acc => fun y => reduce f acc y, with f under the two new binders.
    let f_inner = shift_vars(f, 2, 0)?;
    let acc = Expr::new(ExprKind::Var(1), acc_ty.clone());
    let y = Expr::new(ExprKind::Var(0), row_ty.clone());
    let inner_reduce = prim(
        Primitive::Reduce,
        types::fun(
            f.ty.clone(),
            types::fun(acc_ty.clone(), types::fun(row_ty.clone(), acc_ty.clone())),
        ),
    );
    let body = app(app(app(inner_reduce, f_inner), acc), y);
    let step = lambda(acc_ty.clone(), lambda(row_ty.clone(), body));
    // The rows are folded by `reduceSeq`: `reduce` folds elements of its accumulator's type.
    let outer_reduce = prim(
        Primitive::ReduceSeq,
        types::fun(
            step.ty.clone(),
            types::fun(acc_ty.clone(), types::fun(rows.ty.clone(), acc_ty.clone())),
        ),
    );
    Some(app(app(app(outer_reduce, step), init.clone()), rows))
}

/// `ys` such that `xs` is `join ys`, seen through `map` and `zip` (see the module
/// documentation); `None` when `xs` is not a joined array.
fn rows_of(xs: &Expr) -> Option<Expr> {
    let (head, args) = spine(xs);
    match (&head.kind, args.as_slice()) {
        // `join (join zs)` is `join (map join zs)`: the outermost dimension is split off, so
        // that the rows (a whole window, of a constant size) are unrolled together.
        (ExprKind::Prim(Primitive::Join), [ys]) => match rows_of(ys) {
            Some(zs) => {
                let (_, row) = array_parts(&zs.ty)?;
                let (b, inner) = array_parts(&row)?;
                let (c, t) = array_parts(&inner)?;
                let joined_row = types::array(crate::ir::nat::mul(&b, &c), t);
                let join = prim(Primitive::Join, types::fun(row.clone(), joined_row.clone()));
                map_over(join, zs, joined_row)
            }
            None => Some((*ys).clone()),
        },
        (ExprKind::Prim(Primitive::Map), [g, inner]) => {
            let rows = rows_of(inner)?;
            let (_, row) = array_parts(&rows.ty)?;
            let (m, _) = array_parts(&row)?;
            let (_, out_elem) = array_parts(&xs.ty)?;
            let mapped_row = types::array(m, out_elem);
            let map_g = app(
                prim(
                    Primitive::Map,
                    types::fun(g.ty.clone(), types::fun(row.clone(), mapped_row.clone())),
                ),
                (*g).clone(),
            );
            map_over(map_g, rows, mapped_row)
        }
        (ExprKind::Prim(Primitive::Zip), [a, b]) => {
            let (ra, rb) = (rows_of(a)?, rows_of(b)?);
            let (n, row_a) = array_parts(&ra.ty)?;
            let (n2, row_b) = array_parts(&rb.ty)?;
            let (m, s) = array_parts(&row_a)?;
            let (m2, t) = array_parts(&row_b)?;
            if n != n2 || m != m2 {
                return None;
            }
            let pair_rows = types::pair(row_a.clone(), row_b.clone());
            let zipped_rows = types::array(n.clone(), pair_rows.clone());
            let zip_outer = prim(
                Primitive::Zip,
                types::fun(
                    ra.ty.clone(),
                    types::fun(rb.ty.clone(), zipped_rows.clone()),
                ),
            );
            let outer = app(app(zip_outer, ra), rb);
            // fun p => zip (fst p) (snd p)
            let p = || Expr::new(ExprKind::Var(0), pair_rows.clone());
            let fst = app(
                prim(Primitive::Fst, types::fun(pair_rows.clone(), row_a.clone())),
                p(),
            );
            let snd = app(
                prim(Primitive::Snd, types::fun(pair_rows.clone(), row_b.clone())),
                p(),
            );
            let zipped_row = types::array(m, types::pair(s, t));
            let zip_inner = prim(
                Primitive::Zip,
                types::fun(row_a, types::fun(row_b, zipped_row.clone())),
            );
            let pairwise = lambda(pair_rows.clone(), app(app(zip_inner, fst), snd));
            map_over(pairwise, outer, zipped_row)
        }
        _ => None,
    }
}

fn array_parts(t: &Type) -> Option<(crate::ir::nat::Nat, Type)> {
    match t.get() {
        TypeNode::Array(n, e) => Some((n.clone(), e.clone())),
        _ => None,
    }
}

/// `map f xs`, typed: one `elem` (the type of `f`'s result) per element of `xs`.
fn map_over(f: Expr, xs: Expr, elem: Type) -> Option<Expr> {
    let (n, _) = array_parts(&xs.ty)?;
    let map = prim(
        Primitive::Map,
        types::fun(
            f.ty.clone(),
            types::fun(xs.ty.clone(), types::array(n, elem)),
        ),
    );
    Some(app(app(map, f), xs))
}

fn prim(p: Primitive, ty: Type) -> Expr {
    Expr::new(ExprKind::Prim(p), ty)
}

#[cfg(test)]
mod tests {
    use crate::diagnostics::SourceFile;

    fn lowered(src: &str) -> String {
        let p =
            crate::frontend::load::compile_source(&SourceFile::new("t.rise", src), None).unwrap();
        crate::core::print::program_to_source(&super::super::lower(&p))
    }

    const DOT: &str = "def dot {k : nat} (a : k.f32) (b : k.f32) : f32 =\n\
        zip a b |> map (fun q => fst q * snd q) |> reduce (+) 0.0\n";

    #[test]
    fn a_dot_product_over_joined_windows_of_channels_runs_over_the_channels() {
        let out = lowered(&format!(
            "{DOT}def f {{c : nat}} (w : c.3.3.f32) (x : c.3.3.f32) : f32 = dot (join (join w)) (join (join x))"
        ));
        // One loop over the channels, each channel's 9 products unrolled; no `join` left in
        // the reduced array.
        assert_eq!(out.matches("reduceSeqUnroll").count(), 1, "{out}");
        assert!(out.contains("map join"), "{out}");
        assert!(out.contains("reduceSeq (reduceSeqUnroll add) 0.0"), "{out}");
    }

    #[test]
    fn a_short_joined_window_is_unrolled_whole() {
        let out = lowered(&format!(
            "{DOT}def f (w : 5.5.f32) (x : 5.5.f32) : f32 = dot (join w) (join x)"
        ));
        assert_eq!(out.matches("reduceSeqUnroll").count(), 1, "{out}");
        assert!(!out.contains("reduceSeq (reduce"), "{out}");
    }

    #[test]
    fn joins_of_arrays_of_different_shapes_are_left_alone() {
        let out = lowered(&format!(
            "{DOT}def f {{n : nat}} (w : n.4.f32) (x : (2*n).2.f32) : f32 = dot (join w) (join x)"
        ));
        assert!(!out.contains("reduceSeq (reduce"), "{out}");
    }
}
