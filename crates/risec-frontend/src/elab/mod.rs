//! Elaboration: from the surface tree to the typed core.
//!
//! One pass resolves names to De Bruijn indices (expression and size variables separately),
//! inlines the helper definitions that the entry point uses, removes the surface sugar and infers
//! every node's type by unification ([`unify`]); a final pass substitutes the solutions, checks
//! that nothing is left unknown, and turns the unique ids of size binders into De Bruijn indices.
//!
//! Helper definitions are inlined into the entry point, re-elaborated at every use, so their size
//! parameters `{n : nat}` act as implicit arguments inferred at each call site. Every definition
//! is also checked on its own, so errors in unused helpers are reported too; those checks use
//! the helpers' type schemes (module `scheme`) instead of their bodies, which keeps checking a chain
//! of definitions linear in its length.

mod duplicates;
mod expr;
mod instance;
mod meta_names;
mod scheme;
mod surface_type;
pub mod unify;

use crate::core::{Expr, ExprKind, Literal, TypedProgram};
use crate::diagnostics::Diagnostic;
use crate::ir::nat::{self, Nat, NatAtom};
use crate::ir::primitive::Primitive;
use crate::ir::types::{self, ScalarType, Type, TypeNode};
use crate::syntax::ast::{Def, Module, Param, Span};
use meta_names::MetaNames;
use std::collections::{HashMap, HashSet};
use unify::InferState;

/// Elaborates `module` and returns its entry definition (the last one, or `entry` when given)
/// as a closed typed term.
pub fn elaborate(module: &Module, entry: Option<&str>) -> Result<TypedProgram, Vec<Diagnostic>> {
    let entry_index = match entry {
        Some(name) => module
            .defs
            .iter()
            .rposition(|d| d.name.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = module.defs.iter().map(|d| d.name.name.as_str()).collect();
                vec![Diagnostic::error(
                    format!("no definition named `{name}`"),
                    Span::default(),
                    "entry point not found",
                )
                .with_note(format!("the file defines: {}", names.join(", ")))]
            })?,
        None => module.defs.len().checked_sub(1).ok_or_else(|| {
            vec![Diagnostic::error(
                "the file defines nothing",
                Span::default(),
                "expected `def NAME … = …`",
            )]
        })?,
    };
    let mut elaborator = Elaborator::new(module);
    let (mut diagnostics, bad_params) = duplicates::check_module(module);
    elaborator.failed.extend(bad_params);
    let mut program = None;
    for index in 0..module.defs.len() {
        if elaborator.failed.contains(&index) {
            continue;
        }
        match elaborator.elab_def(index, index == entry_index) {
            Ok(p) => program = program.or(p),
            Err(ds) => {
                elaborator.failed.insert(index);
                diagnostics.extend(ds.into_iter().filter(|d| d.message != ALREADY_REPORTED));
            }
        }
    }
    let mut seen = HashSet::new();
    diagnostics.retain(|d| seen.insert((d.message.clone(), d.span)));
    match program {
        Some(p) if diagnostics.is_empty() => Ok(p),
        _ => Err(diagnostics),
    }
}

/// Marks an error inside a helper that was already reported when the helper was checked.
const ALREADY_REPORTED: &str = "\u{0}already reported";

/// A name in scope.
#[derive(Clone, Debug)]
enum Local {
    /// An expression variable bound at expression depth `level`.
    Value { name: String, level: u32, ty: Type },
    /// A size variable (a binder id, or an inference variable for an inlined helper's size
    /// parameter).
    Size { name: String, nat: Nat },
}

/// A term under construction: like [`Expr`], but types may hold inference variables and size
/// binders are unique ids.
#[derive(Clone, Debug)]
struct ETerm {
    kind: ETermKind,
    ty: Type,
    span: Span,
}

#[derive(Clone, Debug)]
enum ETermKind {
    Var(u32),
    Lambda(Box<ETerm>),
    App(Box<ETerm>, Box<ETerm>),
    NatLambda(u32, Box<ETerm>),
    NatApp(Box<ETerm>, Nat),
    Prim(Primitive),
    Literal(Literal),
    /// An unsuffixed float literal whose type (f32 or f64) is decided by inference.
    Float(f64),
    /// A use of a helper definition, typed by its scheme; only in definitions that are checked,
    /// never in the entry point's term (which inlines helpers).
    Helper(usize),
}

/// The state of elaborating one module.
struct Elaborator<'m> {
    module: &'m Module,
    state: InferState,
    scope: Vec<Local>,
    expr_depth: u32,
    binder_names: HashMap<u32, String>,
    current_def: usize,
    failed: HashSet<usize>,
    nodes_built: usize,
    /// Where each definition name is defined (indices in source order).
    def_positions: HashMap<&'m str, Vec<usize>>,
    /// The type schemes of the helpers checked so far (those closed over their sizes).
    schemes: HashMap<usize, scheme::Scheme>,
    /// Whether uses of helpers inline their bodies (when building the entry point's term) or
    /// instantiate their schemes (when only checking).
    inline_helpers: bool,
}

impl<'m> Elaborator<'m> {
    fn new(module: &'m Module) -> Self {
        let mut def_positions: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, d) in module.defs.iter().enumerate() {
            def_positions
                .entry(d.name.name.as_str())
                .or_default()
                .push(i);
        }
        Elaborator {
            def_positions,
            schemes: HashMap::new(),
            inline_helpers: false,
            module,
            state: InferState::default(),
            scope: Vec::new(),
            expr_depth: 0,
            binder_names: HashMap::new(),
            current_def: 0,
            failed: HashSet::new(),
            nodes_built: 0,
        }
    }

    /// Checks definition `index` on its own; for the entry, also builds the typed program.
    fn elab_def(
        &mut self,
        index: usize,
        is_entry: bool,
    ) -> Result<Option<TypedProgram>, Vec<Diagnostic>> {
        self.state = InferState::default();
        self.scope.clear();
        self.expr_depth = 0;
        self.current_def = index;
        self.nodes_built = 0;
        self.inline_helpers = is_entry;
        let module = self.module;
        let def = &module.defs[index];
        let mut size_binders = Vec::new();
        let term = self.elab_def_body(def, &mut |this, name| {
            let id = this.state.fresh_id();
            this.binder_names.insert(id, name.to_string());
            size_binders.push(id);
            nat::binder(id)
        });
        let term = term.map_err(|d| vec![d])?;
        let body_ty = term.ty.clone();
        let mut size_binders_it = size_binders.iter().copied();
        let term = wrap_size_params(def, term, &mut || {
            size_binders_it.next().expect("one id per size parameter")
        });
        self.default_float_literals();
        let mut errors = self.state.check_obligations(&|n| self.show_nat(n));
        errors.extend(self.state.check_facts());
        if let Some((a, b, _, span)) = self.state.postponed().first() {
            let metas = MetaNames::default();
            let mut d = Diagnostic::error(
                format!(
                    "cannot solve the size equation `{}` = `{}`",
                    self.show_nat_in(a, &metas),
                    self.show_nat_in(b, &metas)
                ),
                *span,
                "sizes here are ambiguous",
            );
            d.notes.extend(metas.note());
            errors.push(d);
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        if let Some(s) = scheme::Scheme::generalize(&self.state, &size_binders, &body_ty) {
            self.schemes.insert(index, s);
        }
        if !is_entry {
            return Ok(None);
        }
        let core = self.finalize(&term, &mut Vec::new()).map_err(|d| vec![d])?;
        let mut facts: Vec<Nat> = Vec::new();
        for f in &self.state.facts {
            if let Ok(f) = self.binders_to_indices(&self.state.zonk_nat(f), &size_binders, 0) {
                // The same fact stated by several annotations is one fact, and a constant
                // (true, or reported by `check_facts`) is none.
                if f.as_constant().is_none() && !facts.contains(&f) {
                    facts.push(f);
                }
            }
        }
        let size_params = size_binders
            .iter()
            .map(|b| self.binder_names[b].clone())
            .collect();
        let value_params = def
            .params
            .iter()
            .filter_map(|p| match p {
                Param::Value(name, _) => Some(name.name.clone()),
                Param::Sizes(_) => None,
            })
            .collect();
        Ok(Some(TypedProgram {
            name: def.name.name.clone(),
            term: core,
            size_params,
            value_params,
            facts,
            derived_from: None,
        }))
    }

    /// Elaborates a definition's parameters and body into nested lambdas (size parameters are
    /// put in scope as `size_param` decides but not wrapped: see [`wrap_size_params`]).
    fn elab_def_body(
        &mut self,
        def: &Def,
        size_param: &mut dyn FnMut(&mut Self, &str) -> Nat,
    ) -> Result<ETerm, Diagnostic> {
        let scope_len = self.scope.len();
        let depth = self.expr_depth;
        let mut value_params = Vec::new();
        let result = (|| {
            for p in &def.params {
                match p {
                    Param::Sizes(names) => {
                        for n in names {
                            let nat = size_param(self, &n.name);
                            self.scope.push(Local::Size {
                                name: n.name.clone(),
                                nat,
                            });
                        }
                    }
                    Param::Value(name, t) => {
                        let ty = self.convert_type(t, &mut Vec::new())?;
                        value_params.push((ty.clone(), name.span));
                        self.scope.push(Local::Value {
                            name: name.name.clone(),
                            level: self.expr_depth,
                            ty,
                        });
                        self.expr_depth += 1;
                    }
                }
            }
            let mut body = self.elab_expr(&def.body)?;
            if let Some(result) = &def.result {
                let rt = self.convert_type(result, &mut Vec::new())?;
                self.expect_type(
                    &rt,
                    &body.ty,
                    def.body.span,
                    def.body.span,
                    "the declared result type",
                )?;
            }
            for (ty, span) in value_params.into_iter().rev() {
                body = self.lambda_node(ty, body, span.to(def.body.span));
            }
            Ok(body)
        })();
        self.scope.truncate(scope_len);
        self.expr_depth = depth;
        result
    }

    /// Elaborates a use of helper definition `index`: its body in a fresh scope, its size
    /// parameters as fresh inference variables.
    fn inline_def(&mut self, index: usize, use_span: Span) -> Result<ETerm, Diagnostic> {
        if self.failed.contains(&index) {
            return Err(Diagnostic::error(ALREADY_REPORTED, use_span, ""));
        }
        let saved_scope = std::mem::take(&mut self.scope);
        let saved_depth = std::mem::replace(&mut self.expr_depth, 0);
        let saved_def = std::mem::replace(&mut self.current_def, index);
        let module = self.module;
        let def = &module.defs[index];
        let result = self.elab_def_body(def, &mut |this, _| this.state.fresh_nat());
        self.scope = saved_scope;
        self.expr_depth = saved_depth;
        self.current_def = saved_def;
        result
    }

    /// A use of helper definition `index` at `use_span`: its body inlined when building the
    /// entry point's term, otherwise an instance of its scheme when it has one.
    fn use_def(&mut self, index: usize, use_span: Span) -> Result<ETerm, Diagnostic> {
        if self.failed.contains(&index) {
            return Err(Diagnostic::error(ALREADY_REPORTED, use_span, ""));
        }
        if !self.inline_helpers {
            if let Some(s) = self.schemes.get(&index) {
                let ty = s.instantiate(&mut self.state, use_span);
                return Ok(ETerm {
                    kind: ETermKind::Helper(index),
                    ty,
                    span: use_span,
                });
            }
        }
        self.inline_def(index, use_span)
    }

    /// Finds an earlier definition named `name`; a later one is an error.
    fn lookup_def(&self, name: &str, span: Span) -> Result<Option<usize>, Diagnostic> {
        let Some(positions) = self.def_positions.get(name) else {
            return Ok(None);
        };
        if let Some(&i) = positions.iter().rev().find(|&&i| i < self.current_def) {
            return Ok(Some(i));
        }
        if Primitive::from_name(name).is_none() {
            if let Some(&later) = positions.first() {
                return Err(Diagnostic::error(
                    format!("`{name}` is not defined before this use"),
                    span,
                    "used here",
                )
                .with_secondary(self.module.defs[later].name.span, "defined here")
                .with_note("a definition may only use the definitions before it (no recursion)"));
            }
        }
        Ok(None)
    }

    fn lookup(&self, name: &str) -> Option<Local> {
        self.scope
            .iter()
            .rev()
            .find(|l| match l {
                Local::Value { name: n, .. } | Local::Size { name: n, .. } => n == name,
            })
            .cloned()
    }

    fn lookup_size(&self, name: &str) -> Option<Nat> {
        match self.lookup(name)? {
            Local::Size { nat, .. } => Some(nat),
            Local::Value { .. } => None,
        }
    }

    fn default_float_literals(&mut self) {
        for (id, _) in self.state.float_literals.clone() {
            if self.state.is_unsolved_type(id) {
                self.state.set_type(id, types::f32());
            }
        }
    }

    /// The name of a leaf size atom in messages; inference variables are named by `metas`.
    fn atom_name(&self, a: &NatAtom, metas: &MetaNames) -> String {
        match a {
            NatAtom::Binder(b) => self
                .binder_names
                .get(b)
                .cloned()
                .unwrap_or_else(|| format!("b{b}")),
            NatAtom::Meta(m) => metas.size(*m),
            NatAtom::Index(i) => format!("#{i}"),
            NatAtom::Op(..) => "?".to_string(),
        }
    }

    /// A size as a message shows it, alone in its message.
    fn show_nat(&self, n: &Nat) -> String {
        self.show_nat_in(n, &MetaNames::default())
    }

    /// A size as a message shows it, its inference variables named by `metas` (shared by the
    /// message's other sizes and types).
    fn show_nat_in(&self, n: &Nat, metas: &MetaNames) -> String {
        nat::to_source(&self.state.zonk_nat(n), false, &|a| {
            self.atom_name(a, metas)
        })
    }

    /// A type as a message shows it, alone in its message.
    fn show_type(&self, t: &Type) -> String {
        self.show_type_in(t, &MetaNames::default())
    }

    /// A type as a message shows it, its inference variables named by `metas` (shared by the
    /// message's other sizes and types).
    fn show_type_in(&self, t: &Type, metas: &MetaNames) -> String {
        types::to_source_with_metas(
            &self.state.zonk(t),
            &mut Vec::new(),
            &|a| self.atom_name(a, metas),
            &|id| metas.ty(id),
        )
    }

    /// Replaces binder ids by De Bruijn indices; `stack` holds the binders in scope, innermost
    /// last, and `extra` counts nat binders crossed inside a type.
    fn binders_to_indices(&self, n: &Nat, stack: &[u32], extra: u32) -> Result<Nat, NatAtom> {
        let mut escaped = None;
        let out = nat::map_atoms(n, &mut |a| match a {
            NatAtom::Binder(b) => match stack.iter().rposition(|s| s == b) {
                Some(pos) => Some(nat::index((stack.len() - 1 - pos) as u32 + extra)),
                None => {
                    escaped = Some(a.clone());
                    None
                }
            },
            NatAtom::Meta(_) => {
                escaped = Some(a.clone());
                None
            }
            _ => None,
        });
        match escaped {
            Some(a) => Err(a),
            None => Ok(out),
        }
    }

    /// The final type of a node: solutions substituted, binders as indices, nothing unknown.
    fn final_type(&self, t: &Type, stack: &[u32], span: Span) -> Result<Type, Diagnostic> {
        let zonked = self.state.zonk(t);
        let mut bad: Option<NatAtom> = None;
        let converted = types::rebuild(
            &zonked,
            0,
            &mut |n, d| match self.binders_to_indices(n, stack, d) {
                Ok(n) => n,
                Err(a) => {
                    bad.get_or_insert(a);
                    n.clone()
                }
            },
            &mut |_, _, _| None,
        );
        if converted.has_metas() || bad.is_some() {
            let detail = match bad {
                Some(NatAtom::Binder(b)) => format!(
                    "the size `{}` is used outside the `fun` that binds it",
                    self.binder_names.get(&b).cloned().unwrap_or_default()
                ),
                _ => format!("its type is only known as `{}`", self.show_type(t)),
            };
            return Err(Diagnostic::error(
                "cannot infer the type of this expression",
                span,
                detail,
            )
            .with_note("add a type annotation, e.g. `fun (x : f32) => …` or `(e : n.f32)`"));
        }
        check_well_formed(&converted, span)?;
        Ok(converted)
    }

    fn finalize(&self, t: &ETerm, stack: &mut Vec<u32>) -> Result<Expr, Diagnostic> {
        crate::support::stack::guarded(|| self.finalize_unguarded(t, stack))
    }

    fn finalize_unguarded(&self, t: &ETerm, stack: &mut Vec<u32>) -> Result<Expr, Diagnostic> {
        let kind = match &t.kind {
            ETermKind::Var(i) => ExprKind::Var(*i),
            ETermKind::Lambda(b) => ExprKind::Lambda(Box::new(self.finalize(b, stack)?)),
            ETermKind::App(f, a) => ExprKind::App(
                Box::new(self.finalize(f, stack)?),
                Box::new(self.finalize(a, stack)?),
            ),
            ETermKind::NatLambda(id, b) => {
                stack.push(*id);
                let body = self.finalize(b, stack);
                stack.pop();
                let body = body?;
                // The body's final type is relative to the context inside this binder, which is
                // exactly the context of a `(n : nat) ->` body.
                let ty = types::nat_fun(body.ty.clone());
                return Ok(Expr::new(ExprKind::NatLambda(Box::new(body)), ty));
            }
            ETermKind::NatApp(f, n) => {
                let fe = self.finalize(f, stack)?;
                let n = self
                    .binders_to_indices(&self.state.zonk_nat(n), stack, 0)
                    .map_err(|_| {
                        Diagnostic::error("cannot infer this size", t.span, "size argument unknown")
                    })?;
                ExprKind::NatApp(Box::new(fe), n)
            }
            ETermKind::Prim(p) => ExprKind::Prim(*p),
            ETermKind::Literal(l) => ExprKind::Literal(*l),
            ETermKind::Helper(i) => {
                return Err(Diagnostic::error(
                    format!(
                        "internal compiler error: `{}` was not inlined",
                        self.module.defs[*i].name.name
                    ),
                    t.span,
                    "used here",
                ))
            }
            ETermKind::Float(v) => {
                let ty = self.state.zonk(&t.ty);
                match ty.get() {
                    TypeNode::Scalar(ScalarType::F32) => ExprKind::Literal(Literal::f32(*v as f32)),
                    TypeNode::Scalar(ScalarType::F64) => ExprKind::Literal(Literal::f64(*v)),
                    _ => {
                        return Err(Diagnostic::error(
                            "float literal used where a non-float is expected",
                            t.span,
                            format!("expected `{}` here", self.show_type(&ty)),
                        ))
                    }
                }
            }
        };
        let ty = self.final_type(&t.ty, stack, t.span)?;
        if let ExprKind::Prim(p) = &kind {
            // Checked on the type with its sizes still named, so that the message shows them
            // as written.
            let named = self.state.zonk(&t.ty);
            instance::check_primitive_instance(*p, &named, t.span, &|ty| self.show_type(ty))?;
        }
        Ok(Expr::new(kind, ty))
    }
}

/// Wraps the elaborated body of `def` (value parameters already lambdas) in one nat lambda per
/// size parameter, in order.
fn wrap_size_params(def: &Def, body: ETerm, next_id: &mut dyn FnMut() -> u32) -> ETerm {
    let ids: Vec<(u32, Span)> = def
        .params
        .iter()
        .flat_map(|p| match p {
            Param::Sizes(names) => names.iter().map(|n| n.span).collect(),
            Param::Value(..) => Vec::new(),
        })
        .map(|span| (next_id(), span))
        .collect();
    // Every nat lambda goes outermost, also for size parameters written after value parameters:
    // value parameter types can only mention sizes declared before them, so this stays well scoped.
    let mut term = body;
    for (id, span) in ids.into_iter().rev() {
        // The type is recomputed in `finalize`; this one is only a placeholder.
        let ty = types::nat_fun(term.ty.clone());
        term = ETerm {
            kind: ETermKind::NatLambda(id, Box::new(term)),
            ty,
            span: span.to(def.span),
        };
    }
    term
}

/// Replaces size binder `id` by nat index 0 of a new `(n : nat) ->` binder around `t`.
fn abstract_binder(t: &Type, id: u32) -> Type {
    types::rebuild(
        t,
        0,
        &mut |n, d| {
            let shifted = nat::shift(n, 1, d);
            nat::map_atoms(&shifted, &mut |a| match a {
                NatAtom::Binder(b) if *b == id => Some(nat::index(d)),
                _ => None,
            })
        },
        &mut |_, _, _| None,
    )
}

/// Vector lanes must be scalars.
fn check_well_formed(t: &Type, span: Span) -> Result<(), Diagnostic> {
    match t.get() {
        TypeNode::Vector(_, e) if !matches!(e.get(), TypeNode::Scalar(_)) => {
            Err(Diagnostic::error(
                "vector lanes must be scalars",
                span,
                format!("this would be a vector of `{e}`"),
            ))
        }
        TypeNode::Scalar(_) | TypeNode::Idx(_) | TypeNode::Meta(..) => Ok(()),
        TypeNode::Array(_, e) | TypeNode::Vector(_, e) | TypeNode::NatFun(e) => {
            check_well_formed(e, span)
        }
        TypeNode::Pair(a, b) | TypeNode::Fun(a, b) => {
            check_well_formed(a, span)?;
            check_well_formed(b, span)
        }
    }
}

#[cfg(test)]
mod tests;

/// Type-checks a rewrite rule written with names (`lhs => rhs`): every pattern variable
/// (`expr_vars`) gets an unknown type and every size variable (`size_vars`) an unknown size,
/// shared by both sides; the rule is well typed when both sides elaborate and their types unify.
/// Used to reject user rules whose right-hand side cannot have the left-hand side's type. The
/// error says whether it is in the right-hand side (`true`) or the left (its span is relative to
/// that side's text).
pub fn check_rule_sides(
    lhs: &crate::syntax::ast::Expr,
    rhs: &crate::syntax::ast::Expr,
    expr_vars: &[String],
    size_vars: &[String],
) -> Result<(), (bool, Box<Diagnostic>)> {
    let module = Module { defs: Vec::new() };
    let mut el = Elaborator::new(&module);
    for s in size_vars {
        let nat = el.state.fresh_nat();
        el.scope.push(Local::Size {
            name: s.clone(),
            nat,
        });
    }
    for v in expr_vars {
        let ty = el.state.fresh_type(types::MetaKind::Any);
        el.scope.push(Local::Value {
            name: v.clone(),
            level: el.expr_depth,
            ty,
        });
        el.expr_depth += 1;
    }
    let l = el.elab_expr(lhs).map_err(|d| (false, Box::new(d)))?;
    let r = el.elab_expr(rhs).map_err(|d| (true, Box::new(d)))?;
    el.expect_type(&l.ty, &r.ty, rhs.span, rhs.span, "the left-hand side")
        .map_err(|d| (true, Box::new(d)))
}

/// The types of a rule's pattern variables, the sizes of its size variables and the type of the
/// left-hand side, as the two sides determine them (the unknowns of [`check_rule_sides`], shared by both sides, their types
/// unified), zonked: unknowns left open stay metas. With `rhs` `None` only the left-hand side
/// counts. Used to instantiate user rules for their validation against the interpreter.
pub fn infer_rule_variables(
    lhs: &crate::syntax::ast::Expr,
    rhs: Option<&crate::syntax::ast::Expr>,
    expr_vars: &[String],
    size_vars: &[String],
) -> Result<(Vec<Type>, Vec<Nat>, Type), Diagnostic> {
    let module = Module { defs: Vec::new() };
    let mut el = Elaborator::new(&module);
    let mut nats = Vec::new();
    for s in size_vars {
        let nat = el.state.fresh_nat();
        nats.push(nat.clone());
        el.scope.push(Local::Size {
            name: s.clone(),
            nat,
        });
    }
    let mut tys = Vec::new();
    for v in expr_vars {
        let ty = el.state.fresh_type(types::MetaKind::Any);
        tys.push(ty.clone());
        el.scope.push(Local::Value {
            name: v.clone(),
            level: el.expr_depth,
            ty,
        });
        el.expr_depth += 1;
    }
    let l = el.elab_expr(lhs)?;
    if let Some(rhs) = rhs {
        let r = el.elab_expr(rhs)?;
        el.expect_type(&l.ty, &r.ty, rhs.span, rhs.span, "the left-hand side")?;
    }
    let tys: Vec<Type> = tys.iter().map(|t| el.state.zonk(t)).collect();
    let nats: Vec<Nat> = nats.iter().map(|n| el.state.zonk_nat(n)).collect();
    Ok((tys, nats, el.state.zonk(&l.ty)))
}
