//! Expanding sketch expressions: definitions with their arguments, names resolved to
//! primitives and to the program's sizes, type sketches. Part of [`super::resolve`]'s resolver.

use super::ast::{Name, SizeOp, SkExpr, SkKind, TyExpr, TyKind};
use super::origin::{Origin, Place};
use super::resolve::{unknown, Arg, Env, Resolver};
use super::{SizeSketch, Sketch, TypeSketch};
use crate::diagnostics::Diagnostic;
use crate::frontend::syntax::ast::Span;
use crate::ir::nat::{self, Nat};
use crate::ir::primitive::Primitive;
use crate::ir::types::ScalarType;
use std::rc::Rc;

/// How deep definitions may expand into each other (a guard against recursive definitions).
const MAX_EXPANSION: usize = 64;

/// How many nodes one step's sketch may expand to. Definitions that use each other twice
/// (`def d2 = d1 or d1`, `def d3 = d2 or d2`, …) double the size at every level, so a bound on
/// depth alone lets a short file expand to billions of nodes; checking a sketch costs its size
/// times the e-graph's, so a sketch near this bound is far past any useful one.
pub(super) const MAX_SKETCH_NODES: usize = 100_000;

impl Resolver<'_> {
    /// Resolves a sketch expression of file `f` in the definitions' environment `env`. Names
    /// and calls (of definitions, primitives and parameters) are expanded by the functions
    /// below.
    pub(super) fn sketch(&mut self, e: &SkExpr, env: &Rc<Env>, f: usize) -> Option<Sketch> {
        if !self.within_expansion_limits(e, env, f) {
            return None;
        }
        match &e.kind {
            SkKind::Hole => {
                self.note(f, e.span, env);
                Some(Sketch::Any)
            }
            SkKind::Name(n) => self.name_sketch(e, n, env, f),
            SkKind::Call(n, args) => self.call_sketch(e, n, args, env, f),
            SkKind::App(g, a) => {
                let g = self.sketch(g, env, f)?;
                self.apply(g, a, env, f, e.span)
            }
            SkKind::Lambda(b) => {
                let b = self.sketch(b, env, f)?;
                self.note(f, e.span, env);
                Some(Sketch::Lambda(Box::new(b)))
            }
            SkKind::Contains(b) => {
                let b = self.sketch(b, env, f)?;
                self.note(f, e.span, env);
                Some(Sketch::Contains(Box::new(b)))
            }
            SkKind::Or(a, b) => {
                let a = self.sketch(a, env, f);
                let b = self.sketch(b, env, f);
                self.note(f, e.span, env);
                Some(Sketch::Or(Box::new(a?), Box::new(b?)))
            }
            SkKind::Annot(s, t) => {
                let s = self.sketch(s, env, f);
                let t = self.type_sketch(t, env, f);
                self.note(f, e.span, env);
                Some(Sketch::Typed(Box::new(s?), t?))
            }
            SkKind::Num(_) | SkKind::Size(..) => {
                self.error(f, size_not_sketch(e.span));
                None
            }
        }
    }

    /// Counts `e` as one more node of the step's sketch; `false` (with the error, once) when
    /// the sketch grows past [`MAX_SKETCH_NODES`] or definitions nest past [`MAX_EXPANSION`].
    fn within_expansion_limits(&mut self, e: &SkExpr, env: &Rc<Env>, f: usize) -> bool {
        self.expanded += 1;
        if self.expanded > MAX_SKETCH_NODES {
            if self.expanded == MAX_SKETCH_NODES + 1 {
                self.error(
                    f,
                    Diagnostic::error(
                        "the sketch is too large",
                        e.span,
                        format!("its definitions expand to more than {MAX_SKETCH_NODES} nodes"),
                    )
                    .with_note(
                        "a definition used twice in another doubles its size at every level; \
                         give such a step a smaller sketch",
                    ),
                );
            }
            return false;
        }
        if env.depth > MAX_EXPANSION {
            self.error(
                f,
                Diagnostic::error(
                    "definitions expand too deeply here",
                    e.span,
                    format!("more than {MAX_EXPANSION} nested expansions"),
                )
                .with_note("is a definition recursive? sketch definitions cannot be"),
            );
            return false;
        }
        true
    }

    /// Name `n` (the expression `e`): a definition's parameter (its argument), a definition of
    /// no parameters (its body), or a primitive; a size or an unknown name is an error.
    fn name_sketch(&mut self, e: &SkExpr, n: &Name, env: &Rc<Env>, f: usize) -> Option<Sketch> {
        if let Some(a) = env.lookup(&n.text).cloned() {
            return self.sketch(&a.expr, &a.env, a.file);
        }
        if let Some(def) = self.defs.get(&n.text) {
            if !def.params.is_empty() {
                let params: Vec<&str> = def.params.iter().map(|p| p.text.as_str()).collect();
                let d = Diagnostic::error(
                    format!("`{}` takes {} argument(s)", n.text, params.len()),
                    n.span,
                    format!("call it as `{}({})`", n.text, params.join(", ")),
                );
                self.error(f, d);
                return None;
            }
            let (body, file) = (def.body.clone(), def.file);
            let inner = Rc::new(Env {
                bindings: Vec::new(),
                depth: env.depth + 1,
                calls: env.called_from(f, n.span),
            });
            return self.sketch(&body, &inner, file);
        }
        if let Some(p) = Primitive::from_name(&n.text) {
            self.note(f, n.span, env);
            return Some(Sketch::Prim(p));
        }
        if self.size_index(&n.text).is_some() || self.parameter(&n.text).is_some() {
            self.error(f, size_not_sketch(e.span));
            return None;
        }
        let mut known: Vec<&str> = Primitive::ALL.iter().map(|p| p.name()).collect();
        known.extend(self.defs.keys().map(String::as_str));
        known.extend(env.bindings.iter().map(|(n, _)| n.as_str()));
        let d = unknown(&n.text, n.span, "name", &known);
        self.error(f, d);
        None
    }

    /// Call `n(args)` (the expression `e`): a primitive applied to the arguments (`map(f)` is
    /// `map f`), or a definition's body with its parameters bound to them.
    fn call_sketch(
        &mut self,
        e: &SkExpr,
        n: &Name,
        args: &[SkExpr],
        env: &Rc<Env>,
        f: usize,
    ) -> Option<Sketch> {
        if let Some(p) = Primitive::from_name(&n.text) {
            // `map(f)` is `map f`.
            self.note(f, n.span, env);
            let mut s = Sketch::Prim(p);
            for a in args {
                s = self.apply(s, a, env, f, n.span.to(a.span))?;
            }
            return Some(s);
        }
        let Some(def) = self.defs.get(&n.text) else {
            let known: Vec<&str> = self.defs.keys().map(String::as_str).collect();
            let d = unknown(&n.text, n.span, "definition", &known);
            self.error(f, d);
            return None;
        };
        if def.params.len() != args.len() {
            let params: Vec<&str> = def.params.iter().map(|p| p.text.as_str()).collect();
            let d = Diagnostic::error(
                format!(
                    "`{}` takes {} argument(s), {} given",
                    n.text,
                    params.len(),
                    args.len()
                ),
                e.span,
                format!("expected `{}({})`", n.text, params.join(", ")),
            );
            self.error(f, d);
            return None;
        }
        let bindings = def
            .params
            .iter()
            .zip(args)
            .map(|(p, a)| {
                (
                    p.text.clone(),
                    Arg {
                        expr: a.clone(),
                        env: env.clone(),
                        file: f,
                    },
                )
            })
            .collect();
        let (body, file) = (def.body.clone(), def.file);
        let inner = Rc::new(Env {
            bindings,
            depth: env.depth + 1,
            calls: env.called_from(f, call_site(n.span, args)),
        });
        self.sketch(&body, &inner, file)
    }

    /// `g a`: an application, or an application to a size when `a` denotes one; `span` is
    /// the application's text.
    fn apply(
        &mut self,
        g: Sketch,
        a: &SkExpr,
        env: &Rc<Env>,
        f: usize,
        span: Span,
    ) -> Option<Sketch> {
        if self.denotes_size(a, env) {
            return match self.size(a, env, f)? {
                SizeSketch::Is(n) => {
                    self.note(f, span, env);
                    Some(Sketch::NatApp(Box::new(g), n))
                }
                SizeSketch::Any => {
                    self.note(f, a.span, env);
                    self.note(f, span, env);
                    Some(Sketch::App(Box::new(g), Box::new(Sketch::Any)))
                }
            };
        }
        let a = self.sketch(a, env, f)?;
        self.note(f, span, env);
        Some(Sketch::App(Box::new(g), Box::new(a)))
    }

    /// Records where the sketch node being built is written (nodes are built in post-order,
    /// the order of [`SketchOrigins::nodes`](super::origin::SketchOrigins::nodes)).
    fn note(&mut self, f: usize, span: Span, env: &Env) {
        self.origins.push(Origin {
            at: Place { file: f, span },
            calls: env.calls.clone(),
        });
    }

    /// Whether `e` is a size rather than a sketch (a number, size arithmetic, a size name, or a
    /// parameter bound to one).
    fn denotes_size(&self, e: &SkExpr, env: &Rc<Env>) -> bool {
        match &e.kind {
            SkKind::Num(_) | SkKind::Size(..) => true,
            SkKind::Name(n) => match env.lookup(&n.text) {
                Some(a) => self.denotes_size(&a.expr, &a.env),
                None => {
                    !self.defs.contains_key(&n.text)
                        && Primitive::from_name(&n.text).is_none()
                        && (self.size_index(&n.text).is_some() || self.parameter(&n.text).is_some())
                }
            },
            _ => false,
        }
    }

    /// The nat index of a size parameter of the program (index 0 = the last one).
    fn size_index(&self, name: &str) -> Option<u32> {
        let params = &self.program.size_params;
        params
            .iter()
            .position(|p| p == name)
            .map(|i| (params.len() - 1 - i) as u32)
    }

    /// The value of the sketch file's parameter `name`, if it declares one.
    fn parameter(&self, name: &str) -> Option<u64> {
        self.param_values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }

    /// Resolves a size written as a sketch expression (a definition's size argument).
    pub(super) fn size(&mut self, e: &SkExpr, env: &Rc<Env>, f: usize) -> Option<SizeSketch> {
        match &e.kind {
            SkKind::Hole => Some(SizeSketch::Any),
            SkKind::Num(n) => Some(SizeSketch::Is(nat::lit(*n))),
            SkKind::Name(n) => {
                if let Some(a) = env.lookup(&n.text).cloned() {
                    return self.size(&a.expr, &a.env, a.file);
                }
                if let Some(v) = self.parameter(&n.text) {
                    return Some(SizeSketch::Is(nat::lit(v)));
                }
                match self.size_index(&n.text) {
                    Some(i) => Some(SizeSketch::Is(nat::index(i))),
                    None => {
                        let d = self.unknown_size(&n.text, n.span);
                        self.error(f, d);
                        None
                    }
                }
            }
            SkKind::Size(op, a, b) => {
                let a = self.size(a, env, f);
                let b = self.size(b, env, f);
                combine(*op, a?, b?, e.span)
                    .map_err(|d| self.error(f, d))
                    .ok()
            }
            _ => {
                self.error(
                    f,
                    Diagnostic::error("expected a size", e.span, "a sketch is not a size"),
                );
                None
            }
        }
    }

    fn unknown_size(&self, name: &str, span: Span) -> Diagnostic {
        let known: Vec<&str> = self
            .program
            .size_params
            .iter()
            .map(String::as_str)
            .collect();
        let params: Vec<&str> = self.param_values.iter().map(|(n, _)| n.as_str()).collect();
        let all: Vec<&str> = known.iter().chain(&params).copied().collect();
        let d = unknown(name, span, "size", &all).with_note(format!(
            "sizes are the entry point's size parameters: {}",
            if known.is_empty() {
                "(it has none)".to_string()
            } else {
                known.join(", ")
            }
        ));
        if params.is_empty() {
            d
        } else {
            d.with_note(format!(
                "and the sketch's parameters: {}",
                params.join(", ")
            ))
        }
    }

    fn type_sketch(&mut self, t: &TyExpr, env: &Rc<Env>, f: usize) -> Option<TypeSketch> {
        match &t.kind {
            TyKind::Hole => Some(TypeSketch::Any),
            TyKind::Name(n) => {
                if let Some(a) = env.lookup(&n.text).cloned() {
                    return match &a.expr.kind {
                        SkKind::Hole => Some(TypeSketch::Any),
                        SkKind::Name(m) if ScalarType::from_name(&m.text).is_some() => {
                            ScalarType::from_name(&m.text).map(TypeSketch::Scalar)
                        }
                        _ => {
                            self.error(
                                f,
                                Diagnostic::error(
                                    format!("parameter `{}` is used as a type", n.text),
                                    n.span,
                                    "pass `?` or a scalar type such as `f32` for it",
                                ),
                            );
                            None
                        }
                    };
                }
                if let Some(s) = ScalarType::from_name(&n.text) {
                    return Some(TypeSketch::Scalar(s));
                }
                let msg = if self.size_index(&n.text).is_some() {
                    Diagnostic::error(
                        format!("`{}` is a size, not a type", n.text),
                        n.span,
                        "expected a type, e.g. `n.f32` or `?`",
                    )
                } else {
                    unknown(
                        &n.text,
                        n.span,
                        "type",
                        &["f32", "f64", "i32", "i64", "bool"],
                    )
                };
                self.error(f, msg);
                None
            }
            TyKind::Num(_) | TyKind::Size(..) => {
                self.error(
                    f,
                    Diagnostic::error(
                        "a size where a type is expected",
                        t.span,
                        "expected a type; an array type is written `N.t`",
                    ),
                );
                None
            }
            TyKind::Fun(a, b) => {
                let a = self.type_sketch(a, env, f);
                let b = self.type_sketch(b, env, f);
                Some(TypeSketch::Fun(Box::new(a?), Box::new(b?)))
            }
            TyKind::Array(n, e) => {
                let n = self.type_size(n, env, f);
                let e = self.type_sketch(e, env, f);
                Some(TypeSketch::Array(n?, Box::new(e?)))
            }
            TyKind::Vector(n, e) => {
                let n = self.type_size(n, env, f);
                let e = self.type_sketch(e, env, f);
                Some(TypeSketch::Vector(n?, Box::new(e?)))
            }
            TyKind::Pair(a, b) => {
                let a = self.type_sketch(a, env, f);
                let b = self.type_sketch(b, env, f);
                Some(TypeSketch::Pair(Box::new(a?), Box::new(b?)))
            }
            TyKind::Idx(n) => Some(TypeSketch::Idx(self.type_size(n, env, f)?)),
        }
    }

    /// A size written in a type sketch: the same forms as a size argument, resolved by
    /// [`Self::size`].
    fn type_size(&mut self, t: &TyExpr, env: &Rc<Env>, f: usize) -> Option<SizeSketch> {
        match size_as_sketch(t) {
            Some(e) => self.size(&e, env, f),
            None => {
                self.error(
                    f,
                    Diagnostic::error("expected a size", t.span, "a type is not a size here"),
                );
                None
            }
        }
    }
}

/// The text a diagnostic underlines for a call `NAME(A, …)`: the name with the leading
/// arguments that are sizes or holes (`containsMap(n/32`), not the nested sketches after them.
fn call_site(name: Span, args: &[SkExpr]) -> Span {
    args.iter()
        .take_while(|a| {
            matches!(
                a.kind,
                SkKind::Num(_) | SkKind::Size(..) | SkKind::Hole | SkKind::Name(_)
            )
        })
        .fold(name, |s, a| s.to(a.span))
}

fn combine(op: SizeOp, a: SizeSketch, b: SizeSketch, span: Span) -> Result<SizeSketch, Diagnostic> {
    let (SizeSketch::Is(a), SizeSketch::Is(b)) = (a, b) else {
        return Err(Diagnostic::error(
            "`?` cannot take part in size arithmetic",
            span,
            "write `?` for the whole size",
        ));
    };
    if matches!(op, SizeOp::Div | SizeOp::Rem) && b.is_zero() {
        return Err(Diagnostic::error("division by zero", span, "in this size"));
    }
    let n: Nat = match op {
        SizeOp::Add => nat::add(&a, &b),
        SizeOp::Sub => nat::sub(&a, &b),
        SizeOp::Mul => nat::mul(&a, &b),
        SizeOp::Div => nat::div(&a, &b),
        SizeOp::Rem => nat::rem(&a, &b),
    };
    Ok(SizeSketch::Is(n))
}

fn size_not_sketch(span: Span) -> Diagnostic {
    Diagnostic::error(
        "a size where a sketch is expected",
        span,
        "sizes are arguments (`split 32 ?`) or parts of types (`? : m.?`)",
    )
}

/// A size of a type sketch (`?`, a number, a name, size arithmetic) as a sketch expression;
/// `None` for a type.
fn size_as_sketch(t: &TyExpr) -> Option<SkExpr> {
    let kind = match &t.kind {
        TyKind::Hole => SkKind::Hole,
        TyKind::Num(n) => SkKind::Num(*n),
        TyKind::Name(n) => SkKind::Name(n.clone()),
        TyKind::Size(op, a, b) => SkKind::Size(
            *op,
            Box::new(size_as_sketch(a)?),
            Box::new(size_as_sketch(b)?),
        ),
        _ => return None,
    };
    Some(SkExpr { kind, span: t.span })
}
