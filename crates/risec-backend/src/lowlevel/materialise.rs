//! Loop-invariant values computed once: a value that a loop's body reads on every iteration
//! but that does not depend on the iteration is stored before the loop instead of being
//! recomputed inside it.
//!
//! The lowering keeps a `map` that is only read as a view, computed element by element where it
//! is read. That is right when each element is read once, and wrong when a loop reads the same
//! computed array on every iteration: `(A·B)·C` written with a matmul function recomputes a
//! row of `A·B` (a reduction per element) for every column of `C`, O(m·n·k·p) work where
//! O(m·n·k + m·n·p) would do; a softmax written without `let` recomputes its row's sum for
//! every element. A person writing the loops stores such a value in a temporary, and so does
//! this pass: in the body of every loop (the function of a `map` or a `reduce` over more than
//! one element), each largest sub-term that
//! * is data (an array or a scalar),
//! * computes a reduction (so that recomputing it costs a loop), and
//! * uses none of the loop's variables (the element, an accumulator, anything bound inside),
//!
//! is bound by a `let` around the loop's function, which the lowering's let hoisting then moves
//! out of the loop (as far as its own variables allow). A `let`'s value is written, so the
//! value is computed once into a local or a temporary array. Equal sub-terms share one `let`.
//! The rewrite is an equality of Rise (a `let` of a value the body already computed), so the
//! result computes the same values.

use std::collections::HashMap;

use crate::core::debruijn::shift_vars;
use crate::core::{Expr, ExprKind};
use crate::ir::primitive::Primitive;
use crate::ir::types::{self, Type, TypeNode};

/// A value stored once instead of being recomputed by a loop: what `materialise_invariants`
/// reports, for `--stats` and the explanation of a program's C.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Materialised {
    /// The value's type (in the program's body context).
    pub ty: Type,
    /// The loop primitive whose body recomputed it (`map`, `reduce`, …).
    pub loop_name: &'static str,
}

/// Binds every loop-invariant reduction in a loop body by a `let` around the loop's function
/// (see the module documentation); appends what it bound to `log`.
pub fn materialise_invariants(e: &Expr, log: &mut Vec<Materialised>) -> Expr {
    crate::support::stack::guarded(|| materialise_unguarded(e, log))
}

fn materialise_unguarded(e: &Expr, log: &mut Vec<Materialised>) -> Expr {
    match &e.kind {
        ExprKind::Lambda(_) | ExprKind::NatLambda(_) => {
            e.map_children(|b| materialise_invariants(b, log))
        }
        ExprKind::App(..) | ExprKind::NatApp(..) => {
            let (head, args) = super::spine(e);
            let loop_prim = match head.kind {
                ExprKind::Prim(p) if is_loop(p) => Some(p),
                _ => None,
            };
            let repeats = args
                .last()
                .and_then(|xs| match xs.ty.get() {
                    TypeNode::Array(n, _) => Some(n.as_integer() != Some(1)),
                    _ => None,
                })
                .unwrap_or(false);
            super::map_arguments(e, &mut |i, a| match (loop_prim, &a.kind) {
                (Some(p), ExprKind::Lambda(_)) if i == 0 && repeats => {
                    match bind_invariants(a, p, log) {
                        Some(bound) => materialise_invariants(&bound, log),
                        None => materialise_invariants(a, log),
                    }
                }
                _ => materialise_invariants(a, log),
            })
        }
        _ => e.clone(),
    }
}

/// The primitives whose function argument runs once per element.
fn is_loop(p: Primitive) -> bool {
    matches!(
        p,
        Primitive::Map
            | Primitive::MapSeq
            | Primitive::MapPar
            | Primitive::MapSeqUnroll
            | Primitive::Reduce
            | Primitive::ReduceSeq
            | Primitive::ReduceSeqUnroll
    )
}

fn is_reduction(p: Primitive) -> bool {
    matches!(
        p,
        Primitive::Reduce | Primitive::ReduceSeq | Primitive::ReduceSeqUnroll
    )
}

/// What the search needs to know of a sub-term of a loop's body: which of the loop's binders it
/// uses (a bit per binder: bit 0 the loop's parameter, bit `d + 1` the binder `d` deep inside
/// the body; bit 63 also stands for every binder deeper than 61), and whether it applies a
/// reduction.
#[derive(Clone, Copy)]
struct Facts {
    uses: u64,
    reduces: bool,
}

/// The bit of the binder at `level` (0: the loop's parameter; `d + 1`: the binder `d` deep inside
/// the body) in [`Facts::uses`].
fn binder_bit(level: u32) -> u64 {
    1u64 << level.min(63)
}

/// The facts of every node of `e`, `depth` binders inside the loop's body, keyed by address
/// (the nodes are boxed, so addresses are stable while `e` is borrowed).
fn facts(e: &Expr, depth: u32, table: &mut HashMap<*const Expr, Facts>) -> Facts {
    crate::support::stack::guarded(|| {
        let leaf = |reduces| Facts { uses: 0, reduces };
        let f = match &e.kind {
            // The variable `i` at `depth` is the binder `depth - i` counted from the loop's
            // parameter (0); a larger index is bound outside the loop.
            ExprKind::Var(i) => Facts {
                uses: if *i <= depth {
                    binder_bit(depth - i)
                } else {
                    0
                },
                reduces: false,
            },
            ExprKind::Prim(p) => leaf(is_reduction(*p)),
            ExprKind::Literal(_) => leaf(false),
            ExprKind::Lambda(b) => {
                let inner = facts(b, depth + 1, table);
                // The lambda's own binder is not a use of the lambda (bit 63 stays: it may
                // stand for deeper binders too).
                let own = binder_bit(depth + 1);
                Facts {
                    uses: if own == 1 << 63 {
                        inner.uses
                    } else {
                        inner.uses & !own
                    },
                    reduces: inner.reduces,
                }
            }
            ExprKind::NatLambda(b) | ExprKind::NatApp(b, _) => facts(b, depth, table),
            ExprKind::App(f, a) => {
                let (f, a) = (facts(f, depth, table), facts(a, depth, table));
                Facts {
                    uses: f.uses | a.uses,
                    reduces: f.reduces || a.reduces,
                }
            }
        };
        table.insert(e as *const Expr, f);
        f
    })
}

/// `fun y => body` with its invariant values bound: `let v1 (fun x1 => … fun y => body')`;
/// `None` when it has none.
fn bind_invariants(
    lambda: &Expr,
    loop_prim: Primitive,
    log: &mut Vec<Materialised>,
) -> Option<Expr> {
    let ExprKind::Lambda(body) = &lambda.kind else {
        return None;
    };
    let mut table = HashMap::new();
    facts(body, 0, &mut table);
    let mut values: Vec<Expr> = Vec::new();
    collect(body, 0, &table, &mut values);
    if values.is_empty() {
        return None;
    }
    let k = values.len() as u32;
    let body = replace(body, 0, &table, &values, k);
    let mut out = Expr::new(ExprKind::Lambda(Box::new(body)), lambda.ty.clone());
    // Innermost binder first: value j (0-based) sits under the binders of values 0..j.
    for (j, v) in values.iter().enumerate().rev() {
        let v = shift_vars(v, j as i64, 0).expect("shifting up cannot fail");
        log.push(Materialised {
            ty: v.ty.clone(),
            loop_name: loop_prim.name(),
        });
        let body_fn = Expr::new(
            ExprKind::Lambda(Box::new(out)),
            types::fun(v.ty.clone(), lambda.ty.clone()),
        );
        out = super::restructure::let_node(v, body_fn);
    }
    Some(out)
}

/// Whether the node `e` of the loop's body is a value to bind: data that reduces and uses none
/// of the loop's variables (its parameter and the binders inside the body). Variables and
/// primitives are never worth binding.
fn is_invariant_value(e: &Expr, table: &HashMap<*const Expr, Facts>) -> bool {
    let Some(f) = table.get(&(e as *const Expr)) else {
        return false;
    };
    f.reduces
        && f.uses == 0
        && matches!(e.kind, ExprKind::App(..) | ExprKind::NatApp(..))
        && e.ty.is_data()
}

/// The invariant values of `e` (largest first: a value's sub-terms are not searched), as seen
/// from outside the loop's function (their loop-level variables shifted down), without
/// repetition. Sizes bound inside the body stop the search: a value cannot leave its sizes.
fn collect(e: &Expr, depth: u32, table: &HashMap<*const Expr, Facts>, out: &mut Vec<Expr>) {
    crate::support::stack::guarded(|| {
        if is_invariant_value(e, table) {
            let outside = shift_vars(e, -(i64::from(depth) + 1), 0)
                .expect("an invariant value uses only variables outside the loop");
            if !out.contains(&outside) {
                out.push(outside);
            }
            return;
        }
        match &e.kind {
            ExprKind::Lambda(b) => collect(b, depth + 1, table, out),
            ExprKind::App(f, a) => {
                collect(f, depth, table, out);
                collect(a, depth, table, out);
            }
            ExprKind::NatApp(f, _) => collect(f, depth, table, out),
            _ => {}
        }
    })
}

/// `e` with every invariant value replaced by its binder and the variables from outside the
/// loop shifted past the `k` new binders (value j is the variable `depth + k - j`).
fn replace(
    e: &Expr,
    depth: u32,
    table: &HashMap<*const Expr, Facts>,
    values: &[Expr],
    k: u32,
) -> Expr {
    crate::support::stack::guarded(|| {
        if is_invariant_value(e, table) {
            let outside = shift_vars(e, -(i64::from(depth) + 1), 0)
                .expect("an invariant value uses only variables outside the loop");
            if let Some(j) = values.iter().position(|v| *v == outside) {
                return Expr::new(ExprKind::Var(depth + k - j as u32), e.ty.clone());
            }
        }
        let kind = match &e.kind {
            ExprKind::Var(i) if *i > depth => ExprKind::Var(i + k),
            ExprKind::Lambda(b) => {
                ExprKind::Lambda(Box::new(replace(b, depth + 1, table, values, k)))
            }
            ExprKind::App(f, a) => ExprKind::App(
                Box::new(replace(f, depth, table, values, k)),
                Box::new(replace(a, depth, table, values, k)),
            ),
            ExprKind::NatApp(f, n) => {
                ExprKind::NatApp(Box::new(replace(f, depth, table, values, k)), n.clone())
            }
            ExprKind::NatLambda(b) => ExprKind::NatLambda(Box::new(
                shift_vars(b, i64::from(k), depth + 1).expect("shifting up cannot fail"),
            )),
            _ => return e.clone(),
        };
        Expr::new(kind, e.ty.clone())
    })
}

#[cfg(test)]
mod tests {
    use crate::diagnostics::SourceFile;

    fn program(src: &str) -> crate::core::TypedProgram {
        crate::frontend::load::compile_source(&SourceFile::new("t.rise", src), None).unwrap()
    }

    fn lowered(src: &str) -> (String, super::super::LoweringReport) {
        let p = program(src);
        let budget = crate::support::budget::Budget::new(std::time::Duration::MAX, u64::MAX);
        let (l, report) = super::super::lower_reporting(&p, &budget).unwrap();
        (crate::core::print::program_to_source(&l), report)
    }

    const MM: &str = "def dot {k : nat} (a : k.f32) (b : k.f32) : f32 =\n\
        zip a b |> map (fun p => fst p * snd p) |> reduce (+) 0.0\n\
        def mm {m n k : nat} (a : m.k.f32) (b : k.n.f32) : m.n.f32 =\n\
        a |> map (fun row => transpose b |> map (fun col => dot row col))\n";

    #[test]
    fn a_row_of_a_product_read_by_every_column_is_stored_once() {
        let src = format!(
            "{MM}def chain {{m n k p : nat}} (a : m.k.f32) (b : k.n.f32) (c : n.p.f32) : m.p.f32 = mm (mm a b) c"
        );
        let (out, report) = lowered(&src);
        assert_eq!(report.stored.len(), 1, "{out}");
        assert_eq!(
            report.notes(&program(&src))[0],
            "stored once: a value of type n.f32 that a `map` loop recomputed on every iteration"
        );
        // The row is a `let` inside the loop over the rows of `a`, before the loop over `c`.
        let row_loop = out.find("mapSeq").unwrap();
        let stored = out.find("let ").expect(&out);
        assert!(
            row_loop < stored && stored < out.rfind("mapSeq").unwrap(),
            "{out}"
        );
    }

    #[test]
    fn a_product_read_by_every_row_is_stored_before_all_loops() {
        let (out, report) = lowered(&format!(
            "{MM}def chain {{m n k p : nat}} (a : m.k.f32) (b : k.n.f32) (c : n.p.f32) : m.p.f32 = mm a (mm b c)"
        ));
        assert_eq!(report.stored.len(), 1, "{out}");
        assert!(out.contains("=\n  let "), "{out}");
    }

    #[test]
    fn a_sum_read_by_every_element_is_computed_once() {
        let (out, report) = lowered(
            "def f {n : nat} (xs : n.f32) : n.f32 = xs |> map (fun x => x / (xs |> reduce (+) 0.0))",
        );
        assert_eq!(report.stored.len(), 1, "{out}");
        assert_eq!(
            crate::core::print::type_to_source(&report.stored[0].ty),
            "f32"
        );
        assert!(
            out.find("let ").unwrap() < out.find("mapSeq").unwrap(),
            "{out}"
        );
    }

    #[test]
    fn values_that_use_the_loop_or_only_rearrange_are_left_alone() {
        // `transpose b` is read by every row but computes nothing; each dot product uses its row.
        let (out, report) = lowered(&format!(
            "{MM}def f {{m n k : nat}} (a : m.k.f32) (b : k.n.f32) : m.n.f32 = mm a b"
        ));
        assert!(report.stored.is_empty(), "{out}");
        assert!(!out.contains("let "), "{out}");
    }

    #[test]
    fn a_loop_of_one_iteration_keeps_its_value_inside() {
        let (out, report) = lowered(
            "def f {n : nat} (xs : n.f32) (ys : 1.f32) : 1.f32 = ys |> map (fun y => y + (xs |> reduce (+) 0.0))",
        );
        assert!(report.stored.is_empty(), "{out}");
    }
}
