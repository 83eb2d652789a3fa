//! De Bruijn operations on core terms: renaming and shifting free variables, substitution for
//! beta reduction, and the same for size variables (which also occur in every node's type).
//!
//! These are the tree-level halves of extraction-based substitution: the e-graph extracts a
//! small term from an e-class, transforms it here, and adds the result back.

use super::{Expr, ExprKind};
use crate::ir::nat::{self, Nat};
use crate::ir::types;

/// Renames the free expression variables of `e`: a free variable that is `i` binders beyond the
/// top of `e` becomes `map(i)`. Returns `None` when `map` rejects a variable that occurs.
pub fn rename_vars(e: &Expr, map: &dyn Fn(u32) -> Option<u32>) -> Option<Expr> {
    rename_at(e, 0, map)
}

fn rename_at(e: &Expr, depth: u32, map: &dyn Fn(u32) -> Option<u32>) -> Option<Expr> {
    crate::support::stack::guarded(|| rename_at_unguarded(e, depth, map))
}

fn rename_at_unguarded(e: &Expr, depth: u32, map: &dyn Fn(u32) -> Option<u32>) -> Option<Expr> {
    let kind = match &e.kind {
        ExprKind::Var(i) if *i >= depth => ExprKind::Var(map(i - depth)? + depth),
        ExprKind::Var(i) => ExprKind::Var(*i),
        ExprKind::Lambda(b) => ExprKind::Lambda(Box::new(rename_at(b, depth + 1, map)?)),
        ExprKind::App(f, a) => ExprKind::App(
            Box::new(rename_at(f, depth, map)?),
            Box::new(rename_at(a, depth, map)?),
        ),
        ExprKind::NatLambda(b) => ExprKind::NatLambda(Box::new(rename_at(b, depth, map)?)),
        ExprKind::NatApp(f, n) => ExprKind::NatApp(Box::new(rename_at(f, depth, map)?), n.clone()),
        ExprKind::Prim(_) | ExprKind::Literal(_) => return Some(e.clone()),
    };
    Some(Expr::new(kind, e.ty.clone()))
}

/// Adds `delta` to every free expression variable of `e` whose index is at least `cutoff`.
/// Variables that would become negative are an error (`None`).
pub fn shift_vars(e: &Expr, delta: i64, cutoff: u32) -> Option<Expr> {
    rename_vars(e, &|i| {
        if i < cutoff {
            Some(i)
        } else {
            u32::try_from(i as i64 + delta)
                .ok()
                .filter(|j| *j >= cutoff || delta >= 0)
        }
    })
}

/// The free expression variables of `e`, as indices relative to the top of `e`, sorted.
pub fn free_vars(e: &Expr) -> Vec<u32> {
    let mut out = Vec::new();
    collect_free(e, 0, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}

fn collect_free(e: &Expr, depth: u32, out: &mut Vec<u32>) {
    crate::support::stack::guarded(|| collect_free_unguarded(e, depth, out))
}

fn collect_free_unguarded(e: &Expr, depth: u32, out: &mut Vec<u32>) {
    match &e.kind {
        ExprKind::Var(i) if *i >= depth => out.push(i - depth),
        ExprKind::Var(_) | ExprKind::Prim(_) | ExprKind::Literal(_) => {}
        ExprKind::Lambda(b) => collect_free(b, depth + 1, out),
        ExprKind::NatLambda(b) | ExprKind::NatApp(b, _) => collect_free(b, depth, out),
        ExprKind::App(f, a) => {
            collect_free(f, depth, out);
            collect_free(a, depth, out);
        }
    }
}

/// Beta reduction: `body` with variable 0 replaced by `value` and the other free variables
/// lowered by one. `value` is given in the context outside the removed binder.
pub fn subst_var(body: &Expr, value: &Expr) -> Expr {
    subst_at(body, value, 0, 0)
}

fn subst_at(e: &Expr, value: &Expr, depth: u32, nat_depth: u32) -> Expr {
    crate::support::stack::guarded(|| subst_at_unguarded(e, value, depth, nat_depth))
}

fn subst_at_unguarded(e: &Expr, value: &Expr, depth: u32, nat_depth: u32) -> Expr {
    let kind = match &e.kind {
        ExprKind::Var(i) if *i == depth => {
            let lifted = shift_vars(value, depth as i64, 0).expect("shifting up cannot fail");
            return shift_nats(&lifted, nat_depth as i64, 0);
        }
        ExprKind::Var(i) if *i > depth => ExprKind::Var(i - 1),
        ExprKind::Var(i) => ExprKind::Var(*i),
        ExprKind::Lambda(b) => ExprKind::Lambda(Box::new(subst_at(b, value, depth + 1, nat_depth))),
        ExprKind::App(f, a) => ExprKind::App(
            Box::new(subst_at(f, value, depth, nat_depth)),
            Box::new(subst_at(a, value, depth, nat_depth)),
        ),
        ExprKind::NatLambda(b) => {
            ExprKind::NatLambda(Box::new(subst_at(b, value, depth, nat_depth + 1)))
        }
        ExprKind::NatApp(f, n) => {
            ExprKind::NatApp(Box::new(subst_at(f, value, depth, nat_depth)), n.clone())
        }
        ExprKind::Prim(_) | ExprKind::Literal(_) => return e.clone(),
    };
    Expr::new(kind, e.ty.clone())
}

/// Adds `delta` to every free size variable (in types and size arguments) whose index is at
/// least `cutoff`.
pub fn shift_nats(e: &Expr, delta: i64, cutoff: u32) -> Expr {
    if delta == 0 {
        return e.clone();
    }
    map_nats(e, 0, &|n, d| nat::shift(n, delta, cutoff + d), &|t, d| {
        types::shift_nats(t, delta, cutoff + d)
    })
}

/// Nat beta reduction: `body` with size variable 0 replaced by `value` (given in the context
/// outside the removed binder) and the other free size variables lowered by one.
pub fn subst_nat(body: &Expr, value: &Nat) -> Expr {
    map_nats(body, 0, &|n, d| nat::subst_index(n, d, value), &|t, d| {
        types::subst_nat(t, d, value)
    })
}

/// Rebuilds `e` with every size argument and every type transformed; `d` counts the nat
/// lambdas crossed inside `e`.
fn map_nats(
    e: &Expr,
    d: u32,
    on_nat: &dyn Fn(&Nat, u32) -> Nat,
    on_type: &dyn Fn(&types::Type, u32) -> types::Type,
) -> Expr {
    crate::support::stack::guarded(|| map_nats_unguarded(e, d, on_nat, on_type))
}

fn map_nats_unguarded(
    e: &Expr,
    d: u32,
    on_nat: &dyn Fn(&Nat, u32) -> Nat,
    on_type: &dyn Fn(&types::Type, u32) -> types::Type,
) -> Expr {
    let kind = match &e.kind {
        ExprKind::Lambda(b) => ExprKind::Lambda(Box::new(map_nats(b, d, on_nat, on_type))),
        ExprKind::App(f, a) => ExprKind::App(
            Box::new(map_nats(f, d, on_nat, on_type)),
            Box::new(map_nats(a, d, on_nat, on_type)),
        ),
        ExprKind::NatLambda(b) => {
            ExprKind::NatLambda(Box::new(map_nats(b, d + 1, on_nat, on_type)))
        }
        ExprKind::NatApp(f, n) => {
            ExprKind::NatApp(Box::new(map_nats(f, d, on_nat, on_type)), on_nat(n, d))
        }
        other => other.clone(),
    };
    Expr::new(kind, on_type(&e.ty, d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Literal;
    use crate::ir::types::{array, f32, fun};
    use proptest::prelude::*;

    /// Random untyped-shape terms (every node typed `f32`), enough for index arithmetic.
    fn arb_expr() -> impl Strategy<Value = Expr> {
        let leaf = prop_oneof![
            (0u32..4).prop_map(|i| Expr::new(ExprKind::Var(i), f32())),
            Just(Expr::new(ExprKind::Literal(Literal::f32(1.0)), f32())),
        ];
        leaf.prop_recursive(5, 40, 2, |inner| {
            prop_oneof![
                inner
                    .clone()
                    .prop_map(|b| Expr::new(ExprKind::Lambda(Box::new(b)), f32())),
                (inner.clone(), inner.clone())
                    .prop_map(|(f, a)| Expr::new(ExprKind::App(Box::new(f), Box::new(a)), f32())),
                inner.clone().prop_map(|b| Expr::new(
                    ExprKind::NatLambda(Box::new(b)),
                    array(nat::index(0), f32())
                )),
                (inner, 0u32..3).prop_map(|(f, i)| Expr::new(
                    ExprKind::NatApp(Box::new(f), nat::index(i)),
                    array(nat::index(i), f32())
                )),
            ]
        })
    }

    proptest! {
        #[test]
        fn shifting_up_then_down_is_the_identity(e in arb_expr(), d in 0i64..3, c in 0u32..3) {
            let up = shift_vars(&e, d, c).unwrap();
            prop_assert_eq!(shift_vars(&up, -d, c).unwrap(), e.clone());
            let nup = shift_nats(&e, d, c);
            prop_assert_eq!(shift_nats(&nup, -d, c), e);
        }

        #[test]
        fn substitution_commutes_with_shifting(body in arb_expr(), value in arb_expr(), d in 1i64..3) {
            // shift(body[0 := v]) = (shift body under the binder)[0 := shift v]
            let lhs = shift_vars(&subst_var(&body, &value), d, 0).unwrap();
            let rhs = subst_var(&shift_vars(&body, d, 1).unwrap(), &shift_vars(&value, d, 0).unwrap());
            prop_assert_eq!(lhs, rhs);
        }

        #[test]
        fn substituting_an_unused_variable_only_lowers_indices(body in arb_expr(), value in arb_expr()) {
            if !free_vars(&body).contains(&0) {
                prop_assert_eq!(subst_var(&body, &value), shift_vars(&body, -1, 0).unwrap());
            }
        }

        #[test]
        fn nat_substitution_commutes_with_nat_shifting(body in arb_expr(), k in 0u64..5, d in 1i64..3) {
            let v = nat::lit(k);
            let lhs = shift_nats(&subst_nat(&body, &v), d, 0);
            let rhs = subst_nat(&shift_nats(&body, d, 1), &v);
            prop_assert_eq!(lhs, rhs);
        }
    }

    #[test]
    fn beta_reduces_under_binders() {
        // (fun x => fun y => x) v  ~>  fun y => v↑
        let ty = fun(f32(), f32());
        let body = Expr::new(
            ExprKind::Lambda(Box::new(Expr::new(ExprKind::Var(1), f32()))),
            ty.clone(),
        );
        let v = Expr::new(ExprKind::Var(5), f32());
        let r = subst_var(&body, &v);
        let ExprKind::Lambda(inner) = &r.kind else {
            panic!()
        };
        assert_eq!(inner.kind, ExprKind::Var(6));
    }
}
