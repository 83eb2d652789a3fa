//! The entry point's body translated into C statements: the size parameters bound, the value
//! parameters read as views, the result written to `out`. [`super::function`] does this once
//! for the kernel and, where sizes are rounded up inside the kernel, once more at the
//! rounded-up sizes with the caller's arrays behind checked accesses ([`super::edges`]).

use super::c_ast::{scalar_c_name, CExpr, CType, Stmt};
use super::ix::Ix;
use super::translate::{HeapTemp, SizeBinding, Translator};
use super::view::{Acc, AccNode, EdgeArray, Val, ValKind, View};
use super::CodegenError;
use crate::core::{Expr, ExprKind, TypedProgram};
use crate::ir::types::{ScalarType, Type, TypeNode};
use std::collections::BTreeSet;
use std::rc::Rc;

/// The entry point seen through its binders: the body, the value parameters' types and the
/// result's type.
pub struct Entry<'a> {
    /// The body, inside every size and value binder.
    pub body: &'a Expr,
    /// The value parameters' types, outermost first.
    pub param_types: Vec<Type>,
    /// The result's type.
    pub result: Type,
}

impl<'a> Entry<'a> {
    /// Peels the program's size binders and one value binder per value parameter.
    pub fn of(program: &'a TypedProgram) -> Result<Entry<'a>, CodegenError> {
        let mut body: &Expr = &program.term;
        for _ in &program.size_params {
            match &body.kind {
                ExprKind::NatLambda(b) => body = b,
                _ => return Err(CodegenError::new("internal: missing size binder")),
            }
        }
        let mut param_types: Vec<Type> = Vec::new();
        for name in &program.value_params {
            match (&body.kind, body.ty.get()) {
                (ExprKind::Lambda(b), TypeNode::Fun(d, _)) => {
                    param_types.push(d.clone());
                    body = b;
                }
                _ => {
                    return Err(CodegenError::new(format!(
                        "internal: missing binder for parameter `{name}`"
                    )))
                }
            }
        }
        Ok(Entry {
            body,
            result: body.ty.clone(),
            param_types,
        })
    }
}

/// The C parameter declaration of each value parameter (`const float *restrict a`), after
/// checking that it can be passed to C: a scalar, or an array of scalars.
pub fn c_parameters(
    names: &[String],
    types: &[Type],
    low: &Translator,
) -> Result<Vec<String>, CodegenError> {
    let mut out = Vec::new();
    for (name, ty) in names.iter().zip(types) {
        match ty.get() {
            TypeNode::Scalar(s) => out.push(format!("{} {name}", scalar_c_name(*s))),
            TypeNode::Array(..) => {
                let s = Translator::base_scalar(ty).map_err(|e| {
                    CodegenError::new(format!("parameter `{name}`: {}", e.message))
                })?;
                low.scalars(ty).map_err(|e| {
                    CodegenError::new(format!("parameter `{name}`: {}", e.message))
                })?;
                out.push(format!("const {} *restrict {name}", scalar_c_name(s)));
            }
            _ => {
                return Err(CodegenError::new(format!(
                    "parameter `{name}` has type {ty}: only scalars and arrays of scalars can be passed to the C function"
                )))
            }
        }
    }
    Ok(out)
}

/// The scalar type of the result, after checking that C can return it (a scalar or an array
/// of scalars, written to `out`).
pub fn out_scalar(result: &Type) -> Result<ScalarType, CodegenError> {
    match result.get() {
        TypeNode::Scalar(_) | TypeNode::Array(..) => Translator::base_scalar(result),
        _ => Err(CodegenError::new(format!(
            "the result has type {result}: only scalars and arrays of scalars can be returned"
        ))),
    }
}

/// A translated body.
pub struct Translated {
    /// The statements.
    pub stmts: Vec<Stmt>,
    /// The heap temporaries they use.
    pub temps: Vec<HeapTemp>,
    /// The vector types they use.
    pub vectors: BTreeSet<CType>,
    /// The element counts of the result and of the array parameters, under these sizes (for
    /// the overflow checks on entry).
    pub counts: Vec<Ix>,
    /// Warnings about slow code ([`Translator::warnings`]).
    pub warnings: Vec<String>,
}

/// How a body is translated: its sizes, and how it reaches the caller's arrays.
pub struct Setting<'s> {
    /// The size parameters.
    pub sizes: Vec<SizeBinding>,
    /// Names locals must not take.
    pub reserved: &'s [String],
    /// The value parameters' C names.
    pub param_names: &'s [String],
    /// For each value parameter, the checked view of it when the sizes are rounded up past its
    /// real ones (the edges kernel); `None` reads it as plain memory.
    pub edge_inputs: Vec<Option<Rc<EdgeArray>>>,
    /// The checked view of the output, likewise.
    pub edge_out: Option<Rc<EdgeArray>>,
    /// Compute `f32` scalars in `double`.
    pub wide_scalars: bool,
}

/// Translates the body of `entry` under `setting`. The translator is handed to `finish` before
/// its statements are taken (the edges kernel trims loops there, with fresh names).
pub fn translate(
    program: &TypedProgram,
    entry: &Entry,
    setting: Setting,
    finish: &mut dyn FnMut(&mut Translator) -> Result<(), CodegenError>,
) -> Result<Translated, CodegenError> {
    let mut low = Translator::new(setting.sizes, setting.reserved);
    low.facts = program.facts.clone();
    low.wide_scalars = setting.wide_scalars;
    low.edge_temporaries =
        setting.edge_out.is_some() || setting.edge_inputs.iter().any(Option::is_some);
    let mut env: Vec<Val<'_>> = Vec::new();
    for ((name, ty), edge) in setting
        .param_names
        .iter()
        .zip(&entry.param_types)
        .zip(&setting.edge_inputs)
    {
        let kind = match (ty.get(), edge) {
            (TypeNode::Scalar(_), _) => ValKind::Scalar(CExpr::Var(name.clone())),
            (_, Some(array)) => ValKind::Array(Rc::new(View::Edge {
                array: array.clone(),
                path: Vec::new(),
            })),
            _ => ValKind::Array(Rc::new(View::Mem {
                buf: name.clone(),
                offset: Ix::constant(0),
                aligned_base: false,
            })),
        };
        env.push(Val {
            ty: ty.clone(),
            kind,
        });
    }
    low.scalars(&entry.result)?;
    let value = low.eval(entry.body, &Rc::new(env))?;
    let out = match &setting.edge_out {
        Some(array) => Acc {
            node: Rc::new(AccNode::Edge(array.clone())),
            path: Vec::new(),
        },
        None => Acc::mem("out", entry.result.clone(), Ix::constant(0), false),
    };
    low.write(value, &out)?;
    let mut counts: Vec<Ix> = vec![low.scalars(&entry.result)?];
    for ty in &entry.param_types {
        if matches!(ty.get(), TypeNode::Array(..)) {
            counts.push(low.scalars(ty)?);
        }
    }
    finish(&mut low)?;
    let warnings = std::mem::take(&mut low.warnings);
    let edges = low.edge_temporaries;
    let (mut stmts, temps, vectors) = low.finish();
    if !edges {
        crate::interior::split_borders(&mut stmts);
    }
    Ok(Translated {
        stmts,
        temps,
        vectors,
        counts,
        warnings,
    })
}
