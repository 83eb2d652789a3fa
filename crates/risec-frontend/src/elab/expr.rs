//! Elaboration of expressions: name resolution to De Bruijn indices, removal of surface sugar
//! (`|>`, `>>`, infix operators, sections, pairs, `let … in`) and type inference by unification.

use super::unify::UnifyError;
use super::{ETerm, ETermKind, Elaborator, Local};
use crate::core::Literal;
use crate::diagnostics::Diagnostic;
use crate::ir::nat::Nat;
use crate::ir::primitive::Primitive;
use crate::ir::types::{self, MetaKind, ScalarType, Type, TypeNode};
use crate::syntax::ast::{BinOp, Binder, Expr, ExprKind, NumSuffix, Span};

/// The most nodes one entry point may have after inlining its helpers.
pub const MAX_INLINED_NODES: usize = 2_000_000;

impl Elaborator<'_> {
    /// Elaborates an expression in the current scope.
    pub(super) fn elab_expr(&mut self, e: &Expr) -> Result<ETerm, Diagnostic> {
        crate::support::stack::guarded(|| self.elab_expr_unguarded(e))
    }

    fn elab_expr_unguarded(&mut self, e: &Expr) -> Result<ETerm, Diagnostic> {
        self.nodes_built += 1;
        if self.nodes_built > MAX_INLINED_NODES {
            return Err(Diagnostic::error(
                "program too large after inlining its definitions",
                e.span,
                format!("more than {MAX_INLINED_NODES} nodes when elaborating this"),
            ));
        }
        let span = e.span;
        match &e.kind {
            ExprKind::Name(name) => self.elab_name(name, span),
            ExprKind::Nat(v) => Err(Diagnostic::error(
                format!("the size `{v}` is not a value"),
                span,
                "expected a value here",
            )
            .with_note(format!("write `{v}.0` for an f32 or `{v}i32` for an i32; plain naturals are sizes (`split {v}`)"))),
            ExprKind::Float { value, suffix } => self.elab_float(*value, *suffix, span),
            ExprKind::Int { value, suffix } => self.elab_int(*value, *suffix, span),
            ExprKind::Lambda(binders, body) => {
                super::duplicates::check_binders(binders)?;
                self.elab_lambda(binders, body, span)
            }
            ExprKind::Let(name, value, body) => {
                let value = self.elab_expr(value)?;
                let lambda = self.with_value_binder(&name.name, value.ty.clone(), |this| {
                    let body = this.elab_expr(body)?;
                    Ok(this.lambda_node(value.ty.clone(), body, span))
                })?;
                let let_prim = self.prim_node(Primitive::Let, span);
                let partial = self.apply(let_prim, value, span, span)?;
                self.apply(partial, lambda, span, span)
            }
            ExprKind::App(f, arg) => {
                let fe = self.elab_expr(f)?;
                self.elab_application(fe, f.span, arg, span)
            }
            ExprKind::Pipe(arg, f) => {
                let a = self.elab_expr(arg)?;
                let fe = self.elab_expr(f)?;
                // Problems of a stage (`|> split 4`) are reported at the stage, not at the whole
                // pipeline up to it.
                let mut applied = self.apply(fe, a, f.span, f.span)?;
                applied.span = span;
                Ok(applied)
            }
            ExprKind::Compose(f, g) => {
                // f >> g  =  fun x => g (f x), with x invisible to names.
                let param = self.state.fresh_type(MetaKind::Any);
                self.with_value_binder("", param.clone(), |this| {
                    let fe = this.elab_expr(f)?;
                    let ge = this.elab_expr(g)?;
                    let x = this.var_node(0, param.clone(), span);
                    let inner = this.apply(fe, x, f.span, span)?;
                    let body = this.apply(ge, inner, g.span, span)?;
                    Ok(this.lambda_node(param.clone(), body, span))
                })
            }
            ExprKind::Annot(inner, t) => {
                let ie = self.elab_expr(inner)?;
                let ty = self.convert_type(t, &mut Vec::new())?;
                self.expect_type(&ty, &ie.ty, inner.span, inner.span, "the annotation")?;
                Ok(ie)
            }
            ExprKind::Binary(op, a, b) => {
                let prim = self.value_operator(*op, span)?;
                let p = self.prim_node(prim, span);
                let ae = self.elab_expr(a)?;
                let partial = self.apply(p, ae, span, span)?;
                let be = self.elab_expr(b)?;
                self.apply(partial, be, span, span)
            }
            ExprKind::Neg(a) => {
                let p = self.prim_node(Primitive::Neg, span);
                let ae = self.elab_expr(a)?;
                self.apply(p, ae, span, span)
            }
            ExprKind::Pair(a, b) => {
                let p = self.prim_node(Primitive::MakePair, span);
                let ae = self.elab_expr(a)?;
                let partial = self.apply(p, ae, span, span)?;
                let be = self.elab_expr(b)?;
                self.apply(partial, be, span, span)
            }
            ExprKind::Section(op) => {
                let prim = self.value_operator(*op, span)?;
                Ok(self.prim_node(prim, span))
            }
        }
    }

    /// The primitive of an infix operator between values (`%` and `^` are for sizes only).
    fn value_operator(&self, op: BinOp, span: Span) -> Result<Primitive, Diagnostic> {
        op.primitive().ok_or_else(|| {
            Diagnostic::error(
                format!("`{op}` is only defined on sizes"),
                span,
                "expected `+`, `-`, `*` or `/` between values",
            )
        })
    }

    fn elab_name(&mut self, name: &str, span: Span) -> Result<ETerm, Diagnostic> {
        match self.lookup(name) {
            Some(Local::Value { level, ty, .. }) => {
                let index = self.expr_depth - 1 - level;
                Ok(self.var_node(index, ty, span))
            }
            Some(Local::Size { .. }) => Err(Diagnostic::error(
                format!("the size `{name}` is not a value"),
                span,
                "expected a value here",
            )
            .with_note("sizes can be passed where a primitive expects one, as in `split n xs`")),
            None => {
                if let Some(def) = self.lookup_def(name, span)? {
                    return self.use_def(def, span);
                }
                if let Some(p) = Primitive::from_name(name) {
                    return Ok(self.prim_node(p, span));
                }
                Err(Diagnostic::error(format!("unknown name `{name}`"), span, "not defined")
                    .with_note("names are function parameters, `let` bindings, earlier definitions or primitives"))
            }
        }
    }

    fn elab_float(
        &mut self,
        value: f64,
        suffix: Option<NumSuffix>,
        span: Span,
    ) -> Result<ETerm, Diagnostic> {
        let ty = match suffix {
            None => {
                let t = self.state.fresh_type(MetaKind::Data);
                if let TypeNode::Meta(id, _) = t.get() {
                    self.state.float_literals.push((*id, span));
                }
                t
            }
            Some(NumSuffix::F32) => types::scalar(ScalarType::F32),
            Some(NumSuffix::F64) => types::scalar(ScalarType::F64),
            Some(_) => {
                return Err(Diagnostic::error(
                    "a float literal cannot have an integer suffix",
                    span,
                    "expected `f32` or `f64` after a literal with a fraction",
                ))
            }
        };
        Ok(ETerm {
            kind: ETermKind::Float(value),
            ty,
            span,
        })
    }

    fn elab_int(&mut self, value: i64, suffix: NumSuffix, span: Span) -> Result<ETerm, Diagnostic> {
        let lit = match suffix {
            NumSuffix::I32 => match i32::try_from(value) {
                Ok(v) => Literal::I32(v),
                Err(_) => {
                    return Err(Diagnostic::error(
                        "integer literal out of range",
                        span,
                        "does not fit in i32",
                    ))
                }
            },
            NumSuffix::I64 => Literal::I64(value),
            NumSuffix::F32 => Literal::f32(value as f32),
            NumSuffix::F64 => Literal::f64(value as f64),
        };
        Ok(ETerm {
            kind: ETermKind::Literal(lit),
            ty: types::scalar(lit.scalar_type()),
            span,
        })
    }

    fn elab_lambda(
        &mut self,
        binders: &[Binder],
        body: &Expr,
        span: Span,
    ) -> Result<ETerm, Diagnostic> {
        let Some((first, rest)) = binders.split_first() else {
            return self.elab_expr(body);
        };
        match first {
            Binder::Size(name) => {
                let id = self.state.fresh_id();
                self.binder_names.insert(id, name.name.clone());
                self.scope.push(Local::Size {
                    name: name.name.clone(),
                    nat: crate::ir::nat::binder(id),
                });
                let inner = self.elab_lambda(rest, body, span);
                self.scope.pop();
                let inner = inner?;
                let ty = types::nat_fun(super::abstract_binder(&self.state.zonk(&inner.ty), id));
                Ok(ETerm {
                    kind: ETermKind::NatLambda(id, Box::new(inner)),
                    ty,
                    span,
                })
            }
            Binder::Plain(name) | Binder::Typed(name, _) => {
                let param = match first {
                    Binder::Typed(_, t) => self.convert_type(t, &mut Vec::new())?,
                    _ => self.state.fresh_type(MetaKind::Any),
                };
                self.with_value_binder(&name.name, param.clone(), |this| {
                    let inner = this.elab_lambda(rest, body, span)?;
                    Ok(this.lambda_node(param.clone(), inner, span))
                })
            }
        }
    }

    /// Elaborates `f arg`, where `arg` may be a size when `f` expects one.
    fn elab_application(
        &mut self,
        f: ETerm,
        f_span: Span,
        arg: &Expr,
        span: Span,
    ) -> Result<ETerm, Diagnostic> {
        let fty = self.state.zonk(&f.ty);
        if let TypeNode::NatFun(body) = fty.get() {
            let n = self.expr_as_nat(arg)?;
            if n.is_zero() {
                check_nonzero_size(&f, arg.span)?;
            }
            let ty = types::instantiate_nat_fun(body, &n);
            return Ok(ETerm {
                kind: ETermKind::NatApp(Box::new(f), n),
                ty,
                span,
            });
        }
        let a = self.elab_expr(arg)?;
        self.apply(f, a, f_span, span)
    }

    /// Reads an expression written in argument position as a size.
    fn expr_as_nat(&mut self, e: &Expr) -> Result<Nat, Diagnostic> {
        let expected = || {
            Diagnostic::error(
                "expected a size argument",
                e.span,
                "expected a size such as `32`, `n` or `(m/32)`",
            )
        };
        match &e.kind {
            ExprKind::Nat(v) => Ok(crate::ir::nat::lit(*v)),
            ExprKind::Name(name) => self.lookup_size(name).ok_or_else(|| {
                expected().with_note(format!(
                    "`{name}` is not a size in scope; this function takes a size first"
                ))
            }),
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (self.expr_as_nat(a)?, self.expr_as_nat(b)?);
                let n = self.nat_binary(*op, &x, &y, e.span, false)?;
                if !n.terms().iter().all(|(_, c)| c.is_integer()) {
                    self.state.obligations.push(super::unify::Obligation {
                        nat: n.clone(),
                        span: e.span,
                    });
                }
                Ok(n)
            }
            _ => Err(expected()),
        }
    }

    /// Builds `f a`, checking that `f` is a function accepting `a`.
    pub(super) fn apply(
        &mut self,
        f: ETerm,
        a: ETerm,
        f_span: Span,
        span: Span,
    ) -> Result<ETerm, Diagnostic> {
        let fty = self.state.zonk(&f.ty);
        let (param, result) = match fty.get() {
            TypeNode::Fun(p, r) => (p.clone(), r.clone()),
            TypeNode::Meta(_, MetaKind::Any) => {
                let (p, r) = (
                    self.state.fresh_type(MetaKind::Any),
                    self.state.fresh_type(MetaKind::Any),
                );
                self.state
                    .unify(&fty, &types::fun(p.clone(), r.clone()), span)
                    .map_err(|_| self.not_a_function(&f, &fty, f_span))?;
                (p, r)
            }
            TypeNode::NatFun(_) => {
                return Err(Diagnostic::error(
                    "missing size argument",
                    f_span,
                    format!(
                        "this takes a size first: it has type `{}`",
                        self.show_type(&fty)
                    ),
                )
                .with_note("write the size before the other arguments, as in `split 32 xs`"))
            }
            _ => return Err(self.not_a_function(&f, &fty, f_span)),
        };
        self.expect_type(&param, &a.ty, a.span, span, "the function's parameter")?;
        Ok(ETerm {
            kind: ETermKind::App(Box::new(f), Box::new(a)),
            ty: result,
            span,
        })
    }

    fn not_a_function(&self, f: &ETerm, fty: &Type, f_span: Span) -> Diagnostic {
        let too_many = matches!(f.kind, ETermKind::App(..) | ETermKind::NatApp(..));
        let message = if too_many {
            "too many arguments"
        } else {
            "not a function"
        };
        Diagnostic::error(
            message,
            f_span,
            format!(
                "this has type `{}`, it cannot take another argument",
                self.show_type(fty)
            ),
        )
    }

    /// Unifies `expected` with the type `found` of the expression at `span`; size obligations
    /// arising from it are attributed to `context` (the enclosing application).
    pub(super) fn expect_type(
        &mut self,
        expected: &Type,
        found: &Type,
        span: Span,
        context: Span,
        what: &str,
    ) -> Result<(), Diagnostic> {
        self.state.unify(expected, found, context).map_err(|e| {
            let metas = super::MetaNames::default();
            let exp = self.show_type_in(expected, &metas);
            let fnd = self.show_type_in(found, &metas);
            let message = match e {
                UnifyError::Infinite => "this type would have to contain itself".to_string(),
                UnifyError::NotData => "functions cannot be stored in arrays or pairs".to_string(),
                UnifyError::Mismatch => "type mismatch".to_string(),
            };
            let mut d =
                Diagnostic::error(message, span, format!("expected `{exp}`, found `{fnd}`"))
                    .with_note(format!("the type expected comes from {what}"));
            d.notes.extend(metas.note());
            d
        })
    }

    pub(super) fn prim_node(&mut self, p: Primitive, span: Span) -> ETerm {
        let ty = self.state.instantiate_primitive(p);
        if p == Primitive::NatToFloat {
            // Like an unsuffixed float literal: an `f32` unless the context wants an `f64`.
            if let TypeNode::NatFun(result) = ty.get() {
                if let TypeNode::Meta(id, _) = result.get() {
                    self.state.float_literals.push((*id, span));
                }
            }
        }
        ETerm {
            kind: ETermKind::Prim(p),
            ty,
            span,
        }
    }

    pub(super) fn var_node(&self, index: u32, ty: Type, span: Span) -> ETerm {
        ETerm {
            kind: ETermKind::Var(index),
            ty,
            span,
        }
    }

    pub(super) fn lambda_node(&self, param: Type, body: ETerm, span: Span) -> ETerm {
        let ty = types::fun(param, body.ty.clone());
        ETerm {
            kind: ETermKind::Lambda(Box::new(body)),
            ty,
            span,
        }
    }

    /// Runs `f` with a value binder named `name` of type `ty` in scope.
    pub(super) fn with_value_binder<T>(
        &mut self,
        name: &str,
        ty: Type,
        f: impl FnOnce(&mut Self) -> Result<T, Diagnostic>,
    ) -> Result<T, Diagnostic> {
        self.scope.push(Local::Value {
            name: name.to_string(),
            level: self.expr_depth,
            ty,
        });
        self.expr_depth += 1;
        let r = f(self);
        self.expr_depth -= 1;
        self.scope.pop();
        r
    }
}

/// Size arguments that must not be 0: `split 0` and a `slide` step of 0 would make the length
/// of the result anything at all.
fn check_nonzero_size(f: &ETerm, at: Span) -> Result<(), Diagnostic> {
    // The primitive `f` applies, and how many size arguments it already has.
    let (mut head, mut given) = (f, 0);
    while let ETermKind::NatApp(inner, _) = &head.kind {
        head = inner;
        given += 1;
    }
    let what = match (&head.kind, given) {
        (ETermKind::Prim(Primitive::Split), 0) => "the chunk size of `split`",
        (ETermKind::Prim(Primitive::Slide), 1) => "the step of `slide`",
        _ => return Ok(()),
    };
    Err(
        Diagnostic::error(format!("{what} must be at least 1"), at, "0 here")
            .with_note("with 0 the length of the result could be anything"),
    )
}
