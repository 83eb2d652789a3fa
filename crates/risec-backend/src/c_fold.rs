//! Folding of C expressions as the translation builds them, so that what a program computes
//! from constants is not left for the C compiler to find (or to miss).
//!
//! Three folds, each exact on the values the generated code is verified on:
//! - a choice (`pad`, `select` of an index) whose condition compares indices that differ by a
//!   constant is decided: an unrolled window's weights become their literals;
//! - a product with the literal 0 is 0 and a product with the literal 1 is the other operand, so
//!   that the zero weights of a stencil cost nothing (for a float, `0 * x` is NaN where `x` is
//!   infinite or NaN: the generated code assumes finite operands there, as Halide's simplifier
//!   does);
//! - a sum with the literal 0, and a difference subtracting it, is the other operand.

use std::rc::Rc;

use crate::c_ast::{BinOp, CExpr};
use crate::ix::Ix;

/// Whether `a < b` is decided: `Some` when `a - b` is a constant.
pub fn ix_less(a: &Ix, b: &Ix) -> Option<bool> {
    a.sub(b).as_const().map(|d| d < 0)
}

/// `a op b`, folded where an operand is the literal 0 or 1 (see the module documentation).
pub fn binary(op: BinOp, a: CExpr, b: CExpr) -> CExpr {
    let zero = |e: &CExpr| matches!(e, CExpr::Lit(s) if is_zero_literal(s));
    let one = |e: &CExpr| matches!(e, CExpr::Lit(s) if is_one_literal(s));
    if let Some(folded) = literal_arithmetic(op, &a, &b) {
        return folded;
    }
    match op {
        BinOp::Mul if zero(&a) => a,
        BinOp::Mul if zero(&b) => b,
        BinOp::Mul if one(&a) => b,
        BinOp::Mul | BinOp::Div if one(&b) => a,
        BinOp::Add if zero(&a) => b,
        BinOp::Add | BinOp::Sub if zero(&b) => a,
        _ => CExpr::Bin(op, Rc::new(a), Rc::new(b)),
    }
}

/// `i < l ? pad : (i < l + n ? inside : pad)`, the element of a padded array at `i` (the array
/// of `n` elements starting at `l`), decided where `i - l` is a constant.
pub fn choose(i: &Ix, l: &Ix, n: &Ix, inside: CExpr, pad: CExpr) -> CExpr {
    let end = l.add(n);
    match (ix_less(i, l), ix_less(i, &end)) {
        (Some(true), _) | (_, Some(false)) => pad,
        (Some(false), Some(true)) => inside,
        (Some(false), None) => cond(CExpr::IxLess(i.clone(), end), inside, pad),
        (None, _) => cond(
            CExpr::IxLess(i.clone(), l.clone()),
            pad.clone(),
            cond(CExpr::IxLess(i.clone(), end), inside, pad),
        ),
    }
}

/// `a op b` computed here when both are finite float literals of the same type and so is the
/// result: the same IEEE operation the C code would do, rounded to the same type.
fn literal_arithmetic(op: BinOp, a: &CExpr, b: &CExpr) -> Option<CExpr> {
    let (CExpr::Lit(x), CExpr::Lit(y)) = (a, b) else {
        return None;
    };
    fn apply<
        T: std::ops::Add<Output = T>
            + std::ops::Sub<Output = T>
            + std::ops::Mul<Output = T>
            + std::ops::Div<Output = T>,
    >(
        op: BinOp,
        x: T,
        y: T,
    ) -> Option<T> {
        Some(match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            BinOp::Div => x / y,
            _ => return None,
        })
    }
    let float = |s: &str| s.contains('.') && !s.contains('_');
    match (x.strip_suffix('f'), y.strip_suffix('f')) {
        (Some(x), Some(y)) if float(x) && float(y) => {
            let v = apply(op, x.parse::<f32>().ok()?, y.parse::<f32>().ok()?)?;
            v.is_finite().then(|| CExpr::Lit(format!("{v:?}f")))
        }
        (None, None) if float(x) && float(y) => {
            let v = apply(op, x.parse::<f64>().ok()?, y.parse::<f64>().ok()?)?;
            v.is_finite().then(|| CExpr::Lit(format!("{v:?}")))
        }
        _ => None,
    }
}

fn cond(c: CExpr, a: CExpr, b: CExpr) -> CExpr {
    CExpr::Cond(Rc::new(c), Rc::new(a), Rc::new(b))
}

/// Whether a C literal is zero (of any scalar type, either sign).
pub fn is_zero_literal(s: &str) -> bool {
    matches!(s, "0" | "0.0f" | "0.0" | "0LL" | "-0.0f" | "-0.0")
}

/// Whether a C literal is one (of any scalar type).
fn is_one_literal(s: &str) -> bool {
    matches!(s, "1" | "1.0f" | "1.0" | "1LL")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> CExpr {
        CExpr::Lit(s.into())
    }

    #[test]
    fn products_with_zero_and_one_and_sums_with_zero_fold() {
        let x = CExpr::Var("x".into());
        assert_eq!(binary(BinOp::Mul, lit("0.0f"), x.clone()), lit("0.0f"));
        assert_eq!(binary(BinOp::Mul, x.clone(), lit("1.0f")), x);
        assert_eq!(binary(BinOp::Add, lit("0.0f"), x.clone()), x);
        assert_eq!(binary(BinOp::Sub, x.clone(), lit("0")), x);
        // `0 - x` is a negation, and `x / 0` a division: neither folds.
        assert!(matches!(
            binary(BinOp::Sub, lit("0.0f"), x.clone()),
            CExpr::Bin(..)
        ));
        assert!(matches!(
            binary(BinOp::Div, x.clone(), lit("0.0f")),
            CExpr::Bin(..)
        ));
        assert!(matches!(
            binary(BinOp::Mul, x.clone(), lit("2.0f")),
            CExpr::Bin(..)
        ));
    }

    #[test]
    fn float_literals_fold_as_the_c_code_would_round_them() {
        assert_eq!(
            binary(BinOp::Mul, lit("0.0625f"), lit("0.25f")),
            lit("0.015625f")
        );
        assert_eq!(
            binary(BinOp::Add, lit("0.1f"), lit("0.2f")),
            lit(&format!("{:?}f", 0.1f32 + 0.2f32))
        );
        assert_eq!(
            binary(BinOp::Div, lit("1.0"), lit("3.0")),
            lit(&format!("{:?}", 1.0f64 / 3.0))
        );
        // Mixed types, an infinite result and integers are left to C.
        assert!(matches!(
            binary(BinOp::Mul, lit("2.0f"), lit("2.0")),
            CExpr::Bin(..)
        ));
        assert!(matches!(
            binary(BinOp::Div, lit("1.0f"), lit("0.0f")),
            CExpr::Bin(..)
        ));
        assert!(matches!(
            binary(BinOp::Mul, lit("2"), lit("3")),
            CExpr::Bin(..)
        ));
    }

    #[test]
    fn choices_at_constant_distances_are_decided() {
        let j = Ix::loop_var("j", &Ix::constant(8));
        let (inside, pad) = (CExpr::Var("x".into()), lit("0.5f"));
        let at = |i: i64| {
            choose(
                &Ix::constant(i),
                &Ix::constant(1),
                &Ix::constant(3),
                inside.clone(),
                pad.clone(),
            )
        };
        assert_eq!(at(0), pad);
        assert_eq!(at(1), inside);
        assert_eq!(at(3), inside);
        assert_eq!(at(4), pad);
        // Past the start by a constant, the end unknown: one comparison remains.
        let open = choose(
            &j.add(&Ix::constant(1)),
            &j,
            &Ix::size("n"),
            inside.clone(),
            pad.clone(),
        );
        assert!(matches!(open, CExpr::Cond(..)), "{}", open.to_c());
        assert_eq!(open.to_c().matches('?').count(), 1, "{}", open.to_c());
        let unknown = choose(&j, &Ix::constant(1), &Ix::constant(3), inside, pad);
        assert_eq!(unknown.to_c().matches('?').count(), 2, "{}", unknown.to_c());
    }
}
