//! Turning written types and sizes into [`Type`]s and [`Nat`]s.
//!
//! Size names resolve through the elaborator's scope (size parameters and `fun (n : nat)`
//! binders) or through the binders of an enclosing `(n : nat) -> …` type, which become De Bruijn
//! indices. Every `N / d` written in a type is recorded as a divisibility fact.

use super::Elaborator;
use crate::diagnostics::Diagnostic;
use crate::ir::nat::{self, Nat};
use crate::ir::types::{self, ScalarType, Type};
use crate::syntax::ast::{BinOp, NatExpr, NatExprKind, TypeExpr, TypeExprKind};

impl Elaborator<'_> {
    /// Converts a written type. `type_binders` are the names bound by enclosing `(n : nat) ->`
    /// types, innermost last.
    pub(super) fn convert_type(
        &mut self,
        t: &TypeExpr,
        type_binders: &mut Vec<String>,
    ) -> Result<Type, Diagnostic> {
        Ok(match &t.kind {
            TypeExprKind::Name(name) => match ScalarType::from_name(name) {
                Some(s) => types::scalar(s),
                None => {
                    return Err(Diagnostic::error(
                        format!("unknown type `{name}`"),
                        t.span,
                        "expected a type such as `f32`, `i32`, `bool`, `n.f32` or `(f32, f32)`",
                    ))
                }
            },
            TypeExprKind::Idx(n) => types::idx(self.convert_nat(n, type_binders)?),
            TypeExprKind::Array(n, e) => {
                let n = self.convert_nat(n, type_binders)?;
                let e = self.convert_data_type(e, type_binders, "array elements")?;
                types::array(n, e)
            }
            TypeExprKind::Vector(n, e) => {
                let n = self.convert_nat(n, type_binders)?;
                let elem = self.convert_type(e, type_binders)?;
                if !matches!(elem.get(), types::TypeNode::Scalar(_)) {
                    return Err(Diagnostic::error(
                        "vector lanes must be scalars",
                        e.span,
                        "expected a scalar type such as `f32`",
                    ));
                }
                types::vector(n, elem)
            }
            TypeExprKind::Pair(a, b) => types::pair(
                self.convert_data_type(a, type_binders, "pair components")?,
                self.convert_data_type(b, type_binders, "pair components")?,
            ),
            TypeExprKind::Fun(a, b) => types::fun(
                self.convert_type(a, type_binders)?,
                self.convert_type(b, type_binders)?,
            ),
            TypeExprKind::NatFun(name, body) => {
                type_binders.push(name.name.clone());
                let body = self.convert_type(body, type_binders);
                type_binders.pop();
                types::nat_fun(body?)
            }
        })
    }

    fn convert_data_type(
        &mut self,
        t: &TypeExpr,
        binders: &mut Vec<String>,
        what: &str,
    ) -> Result<Type, Diagnostic> {
        let ty = self.convert_type(t, binders)?;
        if !ty.is_data() {
            return Err(Diagnostic::error(
                format!("{what} must be data, not functions"),
                t.span,
                "expected a data type (scalar, array, pair, vector or index)",
            ));
        }
        Ok(ty)
    }

    /// Converts a written size.
    pub(super) fn convert_nat(
        &mut self,
        n: &NatExpr,
        type_binders: &[String],
    ) -> Result<Nat, Diagnostic> {
        Ok(match &n.kind {
            NatExprKind::Lit(v) => nat::lit(*v),
            NatExprKind::Name(name) => {
                if let Some(pos) = type_binders.iter().rposition(|b| b == name) {
                    nat::index((type_binders.len() - 1 - pos) as u32)
                } else {
                    self.lookup_size(name).ok_or_else(|| {
                        Diagnostic::error(
                            format!("unknown size `{name}`"),
                            n.span,
                            "not a size parameter in scope",
                        )
                        .with_note(
                            "size parameters are declared with `{n : nat}` or `fun (n : nat) =>`",
                        )
                    })?
                }
            }
            NatExprKind::Binary(op, a, b) => {
                let (x, y) = (
                    self.convert_nat(a, type_binders)?,
                    self.convert_nat(b, type_binders)?,
                );
                self.nat_binary(*op, &x, &y, n.span, true)?
            }
        })
    }

    /// Applies a size operator; `record_fact` makes `x / y` a divisibility fact. A difference
    /// that may be negative becomes a fact too (that it is a natural number); sizes that cannot
    /// be natural numbers at all (`(2*n+1)/2`, `n - n - 1`) are errors.
    pub(super) fn nat_binary(
        &mut self,
        op: BinOp,
        x: &Nat,
        y: &Nat,
        span: crate::syntax::ast::Span,
        record_fact: bool,
    ) -> Result<Nat, Diagnostic> {
        if matches!(op, BinOp::Div | BinOp::Mod) && y.is_zero() {
            return Err(Diagnostic::error(
                "division by zero in a size",
                span,
                "the divisor is 0",
            ));
        }
        Ok(match op {
            BinOp::Add => nat::add(x, y),
            BinOp::Sub => {
                // A difference may be negative: never for any size is an error, for some sizes
                // a fact the program relies on (`n - 5` is a natural number: n ≥ 5).
                let d = nat::sub(x, y);
                if !nat::can_be_nonnegative(&d) {
                    return Err(Diagnostic::error(
                        "this size is always negative",
                        span,
                        format!("`{}` is below 0 for every size", self.show_nat(&d)),
                    ));
                }
                if !nat::is_nonnegative(&d) {
                    self.state.add_fact(d.clone(), span);
                }
                d
            }
            BinOp::Mul => nat::mul(x, y),
            BinOp::Div => {
                let q = nat::div(x, y);
                match nat::wholeness(&q) {
                    nat::Wholeness::Maybe => {}
                    nat::Wholeness::Never => {
                        return Err(Diagnostic::error(
                            "this size is never a whole number",
                            span,
                            format!("no sizes make `{}` a whole number", self.show_nat(&q)),
                        ))
                    }
                    nat::Wholeness::TooLarge => {
                        return Err(Diagnostic::error(
                            "this size's divisor is too large",
                            span,
                            format!(
                            "`{}` divides by more than 2^64: no size but 0 is a multiple of that",
                            self.show_nat(&q)
                        ),
                        ))
                    }
                }
                if record_fact && !q.terms().iter().all(|(_, c)| c.is_integer()) {
                    self.state.add_fact(q.clone(), span);
                }
                q
            }
            BinOp::Mod => nat::rem(x, y),
            BinOp::Pow => nat::pow(x, y),
        })
    }
}
