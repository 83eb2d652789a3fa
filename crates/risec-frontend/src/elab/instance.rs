//! The type arguments a primitive accepts beyond what its scheme says: arithmetic on numbers,
//! math functions on floats, `natToFloat` to a float.

use crate::diagnostics::Diagnostic;
use crate::ir::primitive::Primitive;
use crate::ir::types::{ScalarType, Type, TypeNode};
use crate::syntax::ast::Span;

/// Arithmetic primitives need numeric scalars or vectors of them; math functions need floats
/// or vectors of floats; `natToFloat` gives a float.
pub(super) fn check_primitive_instance(
    p: Primitive,
    ty: &Type,
    span: Span,
    show: &dyn Fn(&Type) -> String,
) -> Result<(), Diagnostic> {
    if p.is_float_math() || p == Primitive::NatToFloat {
        return check_float_instance(p, ty, span, show);
    }
    if !p.is_arithmetic() {
        return Ok(());
    }
    let TypeNode::Fun(arg, _) = ty.get() else {
        return Ok(());
    };
    let numeric = match arg.get() {
        TypeNode::Scalar(s) => s.is_numeric(),
        TypeNode::Vector(_, e) => matches!(e.get(), TypeNode::Scalar(s) if s.is_numeric()),
        _ => false,
    };
    if numeric {
        Ok(())
    } else {
        Err(Diagnostic::error(
            format!("`{}` is not defined on `{}`", p.name(), show(arg)),
            span,
            "expected numbers or vectors of numbers here",
        )
        .with_note("use `map` to apply arithmetic to every element of an array"))
    }
}

/// `exp`, `log`, `sqrt`, `abs`, `max` and `min` take `f32`, `f64` or vectors of them;
/// `natToFloat` gives an `f32` or an `f64`.
fn check_float_instance(
    p: Primitive,
    ty: &Type,
    span: Span,
    show: &dyn Fn(&Type) -> String,
) -> Result<(), Diagnostic> {
    let is_float =
        |t: &Type| matches!(t.get(), TypeNode::Scalar(ScalarType::F32 | ScalarType::F64));
    let (operand, ok) = match ty.get() {
        TypeNode::NatFun(result) => (result, is_float(result)),
        TypeNode::Fun(arg, _) => (
            arg,
            match arg.get() {
                TypeNode::Vector(_, e) => is_float(e),
                _ => is_float(arg),
            },
        ),
        _ => return Ok(()),
    };
    if ok {
        return Ok(());
    }
    let d = if p == Primitive::NatToFloat {
        Diagnostic::error(
            format!(
                "`natToFloat` gives an `f32` or an `f64`, not `{}`",
                show(operand)
            ),
            span,
            "its result is used as another type here",
        )
    } else {
        Diagnostic::error(
            format!("`{}` is not defined on `{}`", p.name(), show(operand)),
            span,
            "expected `f32`, `f64` or a vector of them here",
        )
        .with_note("the math functions apply to floats; use `map` for every element of an array")
    };
    Err(d)
}
