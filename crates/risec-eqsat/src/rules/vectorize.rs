//! Vectorisation of scalar functions, the derived variable of the `vec-before-map` rules.
//!
//! `asVector w (map f xs) = map fv (asVector w xs)` needs `fv`, the lane-wise version of `f`.
//! It is computed from a match: the smallest term of `f`'s class is extracted and rewritten so
//! that every `f32` becomes `<w>f32` (pairs and functions component-wise), literals and free
//! `f32` variables are broadcast with `vectorFromScalar`, and the lane-wise primitives (`add`,
//! `sub`, `mul`, `div`, `neg`, the math functions `exp`, `log`, `sqrt`, `abs`, `max`, `min`, and
//! `fst`, `snd`, `makePair` on pairs of vectors) are kept at the vector type. Variables bound inside `f` keep their index. Anything else (another primitive,
//! a free variable of another type, a size application, arrays) makes the match skip with
//! [`Skip::Condition`]. This follows the prototype's `vectorizeScalarFun`, and is, like all
//! extraction-based steps, an approximation: only one term of `f`'s class is tried.

use crate::core::{Expr, ExprKind};
use crate::egraph::{add_expr, extract_smallest, RiseEGraph};
use crate::ir::nat::Nat;
use crate::ir::primitive::Primitive;
use crate::ir::types::{self, ScalarType, Type, TypeNode};
use crate::rewrite::pattern::CompiledRule;
use crate::rewrite::{Bindings, Skip};

/// The vector version of a type: `f32` becomes `<width>f32`, pairs and functions are vectorised
/// component-wise; `None` for anything else (other scalars, arrays, vectors, sizes).
pub fn vectorize_type(t: &Type, width: &Nat) -> Option<Type> {
    match t.get() {
        TypeNode::Scalar(ScalarType::F32) => Some(types::vector(width.clone(), t.clone())),
        TypeNode::Pair(a, b) => Some(types::pair(
            vectorize_type(a, width)?,
            vectorize_type(b, width)?,
        )),
        TypeNode::Fun(a, b) => Some(types::fun(
            vectorize_type(a, width)?,
            vectorize_type(b, width)?,
        )),
        _ => None,
    }
}

/// The lane-wise version of the scalar function `f` (a closed or open term; its free variables
/// are those of the context it is used in, and must be `f32`s), or `None` when `f` uses
/// something that has no lane-wise version.
pub fn vectorize_function(f: &Expr, width: &Nat) -> Option<Expr> {
    vectorize(f, width, 0)
}

fn broadcast(scalar: Expr, width: &Nat) -> Expr {
    let f32 = scalar.ty.clone();
    let vec = types::vector(width.clone(), f32.clone());
    let prim = Expr::new(
        ExprKind::Prim(Primitive::VectorFromScalar),
        types::fun(f32, vec.clone()),
    );
    Expr::new(ExprKind::App(Box::new(prim), Box::new(scalar)), vec)
}

fn vectorize(e: &Expr, width: &Nat, depth: u32) -> Option<Expr> {
    let is_f32 = matches!(e.ty.get(), TypeNode::Scalar(ScalarType::F32));
    let kind = match &e.kind {
        ExprKind::Var(i) if *i >= depth => {
            // A variable of the context: the same value in every lane.
            return is_f32.then(|| broadcast(e.clone(), width));
        }
        ExprKind::Literal(_) => return is_f32.then(|| broadcast(e.clone(), width)),
        ExprKind::Var(i) => ExprKind::Var(*i),
        ExprKind::Lambda(b) => ExprKind::Lambda(Box::new(vectorize(b, width, depth + 1)?)),
        ExprKind::App(f, a) => ExprKind::App(
            Box::new(vectorize(f, width, depth)?),
            Box::new(vectorize(a, width, depth)?),
        ),
        ExprKind::Prim(p) => match p {
            Primitive::Add
            | Primitive::Sub
            | Primitive::Mul
            | Primitive::Div
            | Primitive::Neg
            | Primitive::Exp
            | Primitive::Log
            | Primitive::Sqrt
            | Primitive::Abs
            | Primitive::Max
            | Primitive::Min
            | Primitive::Fst
            | Primitive::Snd
            | Primitive::MakePair => ExprKind::Prim(*p),
            _ => return None,
        },
        ExprKind::NatLambda(_) | ExprKind::NatApp(..) => return None,
    };
    Some(Expr::new(kind, vectorize_type(&e.ty, width)?))
}

/// The deriver of a vectorisation rule: binds the derived variable `derived` to the lane-wise
/// version of the function matched by `function`, with the lane count given by the rule's size
/// variable `width`. Skips the match with [`Skip::Condition`] when the function cannot be
/// vectorised.
pub fn deriver(
    function: &'static str,
    derived: &'static str,
    width: &'static str,
) -> impl Fn(&mut RiseEGraph, &mut Bindings, &CompiledRule) -> Result<(), Skip> + Send + Sync + 'static
{
    move |egraph, bindings, compiled| {
        let slot = |name: &str| compiled.expr_vars.iter().position(|v| v == name);
        let (Some(f), Some(fv)) = (slot(function), slot(derived)) else {
            panic!(
                "rule {:?} lacks the variables {function} and {derived}",
                compiled.expr_vars
            );
        };
        let w = compiled
            .nat_vars
            .iter()
            .position(|v| v == width)
            .and_then(|i| bindings.nats[i].clone())
            .unwrap_or_else(|| panic!("rule lacks the size {width}"));
        let term = extract_smallest(egraph, bindings.expr(f));
        let vectorized = vectorize_function(&term, &w).ok_or(Skip::Condition)?;
        bindings.exprs[fv] = Some(add_expr(egraph, &vectorized));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::normalize::beta_eta_normal;
    use crate::diagnostics::SourceFile;
    use crate::frontend::load::compile_source;
    use crate::interp::{apply, eval_with, Value};
    use crate::ir::nat;

    fn term(src: &str) -> Expr {
        let p = compile_source(&SourceFile::new("t.rise", src), None).unwrap();
        beta_eta_normal(&p.term).unwrap()
    }

    #[test]
    fn vectorises_arithmetic_literals_and_context_variables() {
        // fun y => fun v => v * v - y * 0.5, vectorised under the binder of y.
        let e = term("def p = fun (y : f32) => fun (v : f32) => v * v - y * 0.5");
        let ExprKind::Lambda(body) = &e.kind else {
            panic!()
        };
        let w = nat::lit(4);
        let fv = vectorize_function(body, &w).unwrap();
        assert_eq!(
            fv.ty,
            types::fun(
                types::vector(w.clone(), types::f32()),
                types::vector(w.clone(), types::f32())
            )
        );
        let lanes = Value::vector([1.0f32, 2.0, -1.0, 0.5].map(Value::F32));
        let f = eval_with(&fv, &[Value::F32(2.0)], &[]).unwrap();
        let out = apply(&f, lanes).unwrap();
        let expect = Value::vector([0.0f32, 3.0, 0.0, -0.75].map(Value::F32));
        assert!(out.approx_eq(&expect, 0.0, 0.0), "{out:?}");
    }

    fn lanes_ty(w: &Nat) -> Type {
        types::vector(w.clone(), types::f32())
    }

    #[test]
    fn pairs_are_vectorised_component_wise() {
        let e = term("def p = fun (q : (f32, f32)) => fst q * snd q + 1.0");
        let fv = vectorize_function(&e, &nat::lit(2)).unwrap();
        let v2 = lanes_ty(&nat::lit(2));
        assert_eq!(fv.ty, types::fun(types::pair(v2.clone(), v2.clone()), v2));
    }

    #[test]
    fn refuses_what_has_no_lane_wise_version() {
        let w = nat::lit(4);
        for src in [
            "def p = fun (v : f32) => select (lt v 0.0) v 0.0",
            "def p = fun (v : f64) => v * 2.0",
            "def p = fun (v : f32) => reduce add v (generate (fun (i : idx[3]) => v))",
        ] {
            assert!(vectorize_function(&term(src), &w).is_none(), "{src}");
        }
        // A free variable that is not an f32 (here a function) cannot be broadcast.
        let e = term("def p = fun (g : f32 -> f32) => fun (v : f32) => g v");
        let ExprKind::Lambda(body) = &e.kind else {
            panic!()
        };
        assert!(vectorize_function(body, &w).is_none());
    }
}
