//! The translation of typed low-level Rise into C statements: evaluation of terms to values
//! ([`Val`]) here, primitives in `primitives`, reading views in `read`, writing values into
//! acceptors in `write`, reductions in `reduce`, deeply nested expressions
//! computed in parts in `split`.

mod primitives;
mod read;
mod reduce;
mod schedule;
mod split;
mod temps;
mod write;

use schedule::{parallelise_top_level_copies, share_computing_loops_dynamically};
use write::{
    consecutive_in_edge, consecutive_in_memory, mem_region, resolve, resolve_lanes, Resolved,
};

use super::c_ast::{BinOp, CExpr, CType, Guard, LoopOrigin, Place, Schedule, Stmt};
use super::ix::Ix;
use super::names::{c_identifier, is_safe_c_name};
use super::view::{
    rewrite_path, Acc, AccNode, Bindings, Deferred, Func, Layout, Val, ValKind, View,
};
use super::CodegenError;
use crate::core::{Expr, ExprKind, Literal};
use crate::ir::nat::{Nat, NatAtom, NatOp};
use crate::ir::primitive::Primitive;
use crate::ir::types::{ScalarType, Type, TypeNode};
use num_integer::Integer;
use std::collections::BTreeSet;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

type R<T> = Result<T, CodegenError>;

fn err<T>(msg: impl Into<String>) -> R<T> {
    Err(CodegenError::new(msg))
}

/// The largest accumulator kept in registers, in bytes (32 registers of 64 bytes): its copies
/// in and out are unrolled so that every access has a constant index (and the C compiler can
/// keep it in registers), and it never lives in the destination's memory.
const MAX_REGISTER_BYTES: i64 = 2048;

/// The largest temporary placed on the stack inside a loop, in bytes.
const MAX_STACK_TEMP: i64 = 64 * 1024;

/// The most lanes of a vector type in the generated C (lane counts are powers of two from 2 on:
/// GCC's vector types need a power of two, and one lane would be the scalar type itself).
pub const MAX_LANES: i64 = 64;

/// The most loop iterations the generated C unrolls in all (`mapSeqUnroll`, `reduceSeqUnroll`,
/// the copies of register accumulators; nested unrolled loops count every inner iteration):
/// about 1.3 MB of C. Beyond it C generation is refused: a program that unrolls 10⁶
/// iterations would be 81 MB of C, one of 2³¹ would never be written.
pub const MAX_UNROLLED: u64 = 16_384;

/// The bound on a size in the generated C (the sum of the magnitudes of its constant and
/// coefficients): its loop counters and indices are `int`s. A size beyond it is refused.
pub const MAX_INDEX: u128 = i32::MAX as u128;

/// The sum of the magnitudes of the coefficients of `ix` (a bound of its value for sizes of 1).
fn coefficient_sum(ix: &Ix) -> u128 {
    ix.terms()
        .iter()
        .map(|(_, c)| u128::from(c.unsigned_abs()))
        .sum()
}

/// `a * b` when its coefficients stay within [`MAX_INDEX`] (so that no coefficient overflows).
fn index_mul(a: &Ix, b: &Ix) -> Option<Ix> {
    (coefficient_sum(a).saturating_mul(coefficient_sum(b)) <= MAX_INDEX).then(|| a.mul(b))
}

/// A size parameter: still symbolic (a C parameter) or compiled in.
#[derive(Clone, Debug)]
pub enum SizeBinding {
    /// The C parameter of that name.
    Named(String),
    /// A constant.
    Value(u64),
}

/// A heap temporary, allocated once per call.
#[derive(Clone, Debug)]
pub struct HeapTemp {
    /// The C name.
    pub name: String,
    /// The element type.
    pub scalar: ScalarType,
    /// The number of elements.
    pub len: Ix,
    /// Whether each OpenMP thread has its own `len` elements (a temporary of a symbolic size
    /// inside a parallel loop): the buffer holds one slice per thread, 64-byte aligned, and the
    /// loop body takes its thread's slice ([`Stmt::ThreadSlice`]).
    pub per_thread: bool,
}

/// The state of one function's translation to C.
pub struct Translator {
    /// Size parameters, outermost first (nat index 0 is the last).
    pub sizes: Vec<SizeBinding>,
    /// The program's divisibility facts: a size with a fractional coefficient (`m/32`) is
    /// compiled only when they prove it whole (the C division would silently truncate).
    pub facts: Vec<Nat>,
    blocks: Vec<Vec<Stmt>>,
    names: HashSet<String>,
    /// For each base of a fresh name, the suffix the search for a free variant starts at
    /// (every smaller one is taken): `fresh` is O(1) however often a hint is used.
    suffixes: HashMap<String, usize>,
    /// Temporaries to allocate at function entry.
    pub heap_temps: Vec<HeapTemp>,
    /// Warnings about slow code the translation had to write (vectors gathered lane by lane),
    /// each once.
    pub warnings: Vec<String>,
    /// The vector types used (for typedefs and helpers).
    pub vector_types: BTreeSet<CType>,
    loop_depth: usize,
    /// Whether copy loops are unrolled (set while filling or emptying a register accumulator).
    unroll_copies: bool,
    /// The vector width at which the register accumulator being filled or emptied is accessed
    /// in its loop: its copies use the same width, or the C compiler cannot keep it in
    /// registers (a row copied as 16 lanes and updated as 8 stays in memory).
    copy_lanes: Option<u64>,
    par_depth: usize,
    /// The loop iterations unrolled so far (at most [`MAX_UNROLLED`]).
    unrolled: u64,
    /// Whether copies of the caller's arrays are edge arrays (the edges kernel, see
    /// [`super::edges::extents`]): their padding is neither written nor read.
    pub edge_temporaries: bool,
    /// Whether `f32` scalar values are computed in `double` ([`super::CodegenOptions::wide_scalars`]).
    pub wide_scalars: bool,
}

/// The loop a primitive asks for; [`Translator::loop_`] decides the C loop's [`Schedule`].
enum LoopKind {
    Seq,
    Par,
    Unroll,
}

impl Translator {
    /// A translator with these sizes; `reserved` names (parameters, the output, the function's
    /// names) are never generated, nor names that are not safe in C
    /// ([`super::names::is_safe_c_name`]).
    pub fn new(sizes: Vec<SizeBinding>, reserved: &[String]) -> Translator {
        Translator {
            sizes,
            facts: Vec::new(),
            blocks: vec![Vec::new()],
            names: reserved.iter().cloned().collect(),
            suffixes: HashMap::new(),
            heap_temps: Vec::new(),
            warnings: Vec::new(),
            vector_types: BTreeSet::new(),
            loop_depth: 0,
            unroll_copies: false,
            copy_lanes: None,
            par_depth: 0,
            unrolled: 0,
            edge_temporaries: false,
            wide_scalars: false,
        }
    }

    /// The statements generated so far (at the outermost level), with the copy loops between
    /// parallel loops made parallel (`parallelise_top_level_copies`) and the parallel loops
    /// that compute shared dynamically (`share_computing_loops_dynamically`).
    pub fn finish(mut self) -> (Vec<Stmt>, Vec<HeapTemp>, BTreeSet<CType>) {
        let mut stmts = self.blocks.pop().unwrap_or_default();
        parallelise_top_level_copies(&mut stmts);
        share_computing_loops_dynamically(&mut stmts);
        (stmts, self.heap_temps, self.vector_types)
    }

    /// Takes the statements generated so far at the outermost level (to rewrite them; see
    /// [`Translator::put_statements`]).
    pub fn take_statements(&mut self) -> Vec<Stmt> {
        self.blocks
            .first_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Puts back statements taken with [`Translator::take_statements`].
    pub fn put_statements(&mut self, stmts: Vec<Stmt>) {
        if let Some(b) = self.blocks.first_mut() {
            *b = stmts;
        }
    }

    /// A fresh C identifier based on `hint`, safe in C ([`is_safe_c_name`]) and unused.
    pub fn fresh(&mut self, hint: &str) -> String {
        let base: String = hint
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let base = if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
            format!("v{base}")
        } else {
            base
        };
        let base = if is_safe_c_name(&base) {
            base
        } else {
            c_identifier(&base, &|_| false)
        };
        // Terminates: numbered variants of a safe name are unsafe only when listed.
        let mut candidate = base.clone();
        let first = self.suffixes.get(&base).copied();
        if first.is_some() || self.names.contains(&candidate) || !is_safe_c_name(&candidate) {
            let mut n = first.unwrap_or(1);
            candidate = format!("{base}{n}");
            while self.names.contains(&candidate) || !is_safe_c_name(&candidate) {
                n += 1;
                candidate = format!("{base}{n}");
            }
            self.suffixes.insert(base, n + 1);
        }
        self.names.insert(candidate.clone());
        candidate
    }

    /// Emits a statement, its initialiser split first if it nests too deeply
    /// (`split`).
    fn emit(&mut self, s: Stmt) {
        let s = match s {
            Stmt::Decl {
                ty,
                name,
                init: Some(e),
            } => Stmt::Decl {
                init: Some(self.shallow(e, ty)),
                ty,
                name,
            },
            // `x = x` (a reduction step whose term folded away: a zero weight) is nothing.
            Stmt::Store(Place::Var(v, None), ref value) if matches!(value, CExpr::Var(w) if *w == v) => {
                return
            }
            s => s,
        };
        self.push_stmt(s);
    }

    fn push_stmt(&mut self, s: Stmt) {
        if let Some(b) = self.blocks.last_mut() {
            b.push(s);
        }
    }

    fn push_block(&mut self) {
        self.blocks.push(Vec::new());
    }

    fn pop_block(&mut self) -> Vec<Stmt> {
        self.blocks.pop().unwrap_or_default()
    }

    // ---- sizes and types -------------------------------------------------------------------

    /// A size as an index expression.
    pub fn nat(&self, n: &Nat) -> R<Ix> {
        let mut denominators: i128 = 1;
        for (_, c) in n.terms() {
            denominators = denominators.lcm(&c.denom());
        }
        let symbolic = self
            .sizes
            .iter()
            .any(|s| matches!(s, SizeBinding::Named(_)));
        if denominators != 1 && symbolic && !crate::ir::nat::is_integral_given(n, &self.facts) {
            let shown = self.nat_source(n);
            return err(format!(
                "the size `{shown}` is not known to be a whole number: the program must state the divisibility fact it relies on (in a type, as in `((m/32)*32).f32`, or in `TypedProgram::facts`)"
            ));
        }
        let mut total = Ix::constant(0);
        for (m, c) in n.terms() {
            let coef = c.numer() * (denominators / c.denom());
            let coef = i64::try_from(coef).map_err(|_| CodegenError::new("size too large"))?;
            let mut term = Ix::constant(coef);
            for (atom, power) in m.factors() {
                let a = self.nat_atom(atom)?;
                for _ in 0..*power {
                    term = index_mul(&term, &a).ok_or_else(|| self.too_large(n))?;
                }
            }
            total = total.add(&term);
        }
        if coefficient_sum(&total) > MAX_INDEX {
            return Err(self.too_large(n));
        }
        let d = i64::try_from(denominators).map_err(|_| CodegenError::new("size too large"))?;
        Ok(total.div(&Ix::constant(d)))
    }

    /// A size in source syntax, with the size parameters' names (or compiled-in values).
    fn nat_source(&self, n: &Nat) -> String {
        crate::ir::nat::to_source(n, false, &|a| match a {
            NatAtom::Index(i) => self
                .sizes
                .len()
                .checked_sub(*i as usize + 1)
                .and_then(|p| self.sizes.get(p))
                .map(|b| match b {
                    SizeBinding::Named(name) => name.clone(),
                    SizeBinding::Value(v) => v.to_string(),
                })
                .unwrap_or_else(|| format!("#{i}")),
            other => crate::ir::nat::default_atom_name(other),
        })
    }

    /// The error for a size beyond the range of the C function's `int` indices.
    fn too_large(&self, n: &Nat) -> CodegenError {
        CodegenError::new(format!(
            "the size `{}` is too large for the generated C, whose sizes and indices are `int`s (at most {MAX_INDEX})",
            self.nat_source(n)
        ))
    }

    fn nat_atom(&self, a: &NatAtom) -> R<Ix> {
        match a {
            NatAtom::Index(i) => {
                let pos = (self.sizes.len() as i64) - 1 - (*i as i64);
                match usize::try_from(pos).ok().and_then(|p| self.sizes.get(p)) {
                    Some(SizeBinding::Named(n)) => Ok(Ix::size(n)),
                    Some(SizeBinding::Value(v)) => Ok(Ix::constant(*v as i64)),
                    None => err("a size bound inside the program body (a size lambda) cannot be compiled: only the entry point's size parameters may be used"),
                }
            }
            NatAtom::Op(op, x, y) => {
                let (x, y) = (self.nat(x)?, self.nat(y)?);
                match op {
                    NatOp::Add => Ok(x.add(&y)),
                    NatOp::Mul => index_mul(&x, &y)
                        .ok_or_else(|| self.too_large(&crate::ir::nat::atom(a.clone()))),
                    NatOp::Div => Ok(x.div(&y)),
                    NatOp::Mod => Ok(x.rem(&y)),
                    NatOp::Pow => match (x.as_const(), y.as_const()) {
                        (Some(b), Some(e)) if e >= 0 => b
                            .checked_pow(e as u32)
                            .map(Ix::constant)
                            .ok_or_else(|| CodegenError::new("size too large")),
                        _ => err("a size `a ^ b` with a symbolic exponent cannot be compiled"),
                    },
                }
            }
            NatAtom::Binder(_) | NatAtom::Meta(_) => {
                err("internal: an unresolved size variable reached code generation")
            }
        }
    }

    /// The length of an array type.
    fn len(&self, ty: &Type) -> R<Ix> {
        match ty.get() {
            TypeNode::Array(n, _) => self.nat(n),
            _ => err(format!("expected an array, found a value of type {ty}")),
        }
    }

    /// The number of scalars a value of this data type occupies in memory.
    pub fn scalars(&self, ty: &Type) -> R<Ix> {
        match ty.get() {
            TypeNode::Scalar(_) => Ok(Ix::constant(1)),
            TypeNode::Vector(w, _) => self.nat(w),
            TypeNode::Array(n, t) => index_mul(&self.nat(n)?, &self.scalars(t)?).ok_or_else(|| {
                CodegenError::new(format!(
                    "a value of type {ty} has more elements than the generated C's `int` indices reach (at most {MAX_INDEX})"
                ))
            }),
            TypeNode::Pair(..) => err(format!(
                "values of type {ty} cannot be stored in memory: pairs must be taken apart (fst, snd, unzip) before a store"
            )),
            TypeNode::Idx(_) => err("indices (idx[n]) cannot be stored in memory"),
            _ => err(format!("a value of type {ty} is not data and cannot be stored in memory")),
        }
    }

    /// The scalar type at the bottom of a data type.
    pub fn base_scalar(ty: &Type) -> R<ScalarType> {
        match ty.get() {
            TypeNode::Scalar(s) => Ok(*s),
            TypeNode::Vector(_, t) | TypeNode::Array(_, t) => Translator::base_scalar(t),
            _ => err(format!("values of type {ty} cannot be stored in memory")),
        }
    }

    /// The C type of a scalar or vector type.
    pub fn ctype(&mut self, ty: &Type) -> R<CType> {
        match ty.get() {
            TypeNode::Scalar(ScalarType::F32) if self.wide_scalars => Ok(CType {
                scalar: ScalarType::F64,
                lanes: 1,
            }),
            TypeNode::Scalar(s) => Ok(CType {
                scalar: *s,
                lanes: 1,
            }),
            TypeNode::Vector(w, t) => {
                let lanes = self.nat(w)?.as_const().filter(|w| *w > 0).ok_or_else(|| {
                    CodegenError::new(format!(
                        "vector type {ty}: the lane count must be a constant"
                    ))
                })?;
                if !(2..=MAX_LANES).contains(&lanes) || !(lanes as u64).is_power_of_two() {
                    return err(format!(
                        "vector type {ty}: the generated C has vectors of 2, 4, 8, 16, 32 or 64 lanes (a power of two, as GCC's vector types need), not {lanes}"
                    ));
                }
                let TypeNode::Scalar(s) = t.get() else {
                    return err(format!("vector type {ty}: lanes must be scalars"));
                };
                if *s == ScalarType::Bool {
                    return err("vectors of bool are not supported");
                }
                let c = CType {
                    scalar: *s,
                    lanes: lanes as u64,
                };
                self.vector_types.insert(c);
                Ok(c)
            }
            _ => err(format!("expected a scalar or vector, found type {ty}")),
        }
    }

    // ---- evaluation -----------------------------------------------------------------------

    /// Evaluates a term to a value (views and deferred computations; statements are emitted
    /// only for values that must be materialised).
    pub fn eval<'a>(&mut self, e: &'a Expr, env: &Bindings<'a>) -> R<Val<'a>> {
        crate::support::stack::guarded(|| self.eval_unguarded(e, env))
    }

    fn eval_unguarded<'a>(&mut self, e: &'a Expr, env: &Bindings<'a>) -> R<Val<'a>> {
        let ty = e.ty.clone();
        match &e.kind {
            ExprKind::Var(i) => env
                .len()
                .checked_sub(*i as usize + 1)
                .and_then(|p| env.get(p))
                .cloned()
                .ok_or_else(|| CodegenError::new(format!("internal: unbound variable #{i}"))),
            ExprKind::Lambda(body) => Ok(Val {
                ty,
                kind: ValKind::Fun(Rc::new(Func::Closure {
                    body,
                    env: env.clone(),
                })),
            }),
            ExprKind::App(f, a) => {
                let f = self.eval(f, env)?;
                let a = self.eval(a, env)?;
                self.apply(f, a)
            }
            ExprKind::NatApp(f, n) => {
                let f = self.eval(f, env)?;
                let n = self.nat(n)?;
                match &f.kind {
                    ValKind::Fun(func) => match &**func {
                        Func::Prim { prim, nats, args } if args.is_empty() => {
                            let mut nats = nats.clone();
                            nats.push(n);
                            if nats.len() == prim.nat_arity() && prim.value_arity() == 0 {
                                // `natToFloat k`: complete with its size.
                                return self.apply_prim(*prim, &nats, Vec::new(), ty);
                            }
                            Ok(Val {
                                ty,
                                kind: ValKind::Fun(Rc::new(Func::Prim {
                                    prim: *prim,
                                    nats,
                                    args: Vec::new(),
                                })),
                            })
                        }
                        _ => err("size lambdas inside the program body are not supported by code generation (beta-normalise the program first)"),
                    },
                    _ => err("internal: a size argument applied to a non-function"),
                }
            }
            ExprKind::NatLambda(_) => err(
                "a size lambda inside the program body cannot be compiled: only the entry point may take sizes",
            ),
            ExprKind::Prim(p) => Ok(Val {
                ty,
                kind: ValKind::Fun(Rc::new(Func::Prim {
                    prim: *p,
                    nats: Vec::new(),
                    args: Vec::new(),
                })),
            }),
            ExprKind::Literal(l) => Ok(Val {
                ty,
                kind: ValKind::Scalar(literal_c(*l)),
            }),
        }
    }

    /// Applies a function value.
    pub fn apply<'a>(&mut self, f: Val<'a>, arg: Val<'a>) -> R<Val<'a>> {
        let result_ty = match f.ty.get() {
            TypeNode::Fun(_, r) => r.clone(),
            _ => return err(format!("internal: applying a value of type {}", f.ty)),
        };
        let ValKind::Fun(func) = &f.kind else {
            return err("internal: applying a non-function");
        };
        match &**func {
            Func::Closure { body, env } => {
                let mut env2: Vec<Val<'a>> = (**env).clone();
                env2.push(arg);
                self.eval(body, &Rc::new(env2))
            }
            Func::Prim { prim, nats, args } => {
                let mut args = args.clone();
                args.push(arg);
                if args.len() == prim.value_arity() {
                    self.apply_prim(*prim, nats, args, result_ty)
                } else {
                    Ok(Val {
                        ty: result_ty,
                        kind: ValKind::Fun(Rc::new(Func::Prim {
                            prim: *prim,
                            nats: nats.clone(),
                            args,
                        })),
                    })
                }
            }
        }
    }

    fn apply2<'a>(&mut self, f: &Val<'a>, a: Val<'a>, b: Val<'a>) -> R<Val<'a>> {
        let g = self.apply(f.clone(), a)?;
        self.apply(g, b)
    }

    fn lanes_of_elements(&self, ty: &Type) -> R<u64> {
        match ty.get() {
            TypeNode::Array(_, v) => match v.get() {
                TypeNode::Vector(w, _) => self
                    .nat(w)?
                    .as_const()
                    .filter(|w| *w > 0)
                    .map(|w| w as u64)
                    .ok_or_else(|| {
                        CodegenError::new("asScalar: the lane count must be a constant")
                    }),
                _ => err("internal: asScalar of an array of non-vectors"),
            },
            _ => err("internal: asScalar of a non-array"),
        }
    }

    /// A value usable as a C expression (scalar or vector), computing it first if deferred.
    fn scalar<'a>(&mut self, v: Val<'a>) -> R<CExpr> {
        let v = self.force(v)?;
        match v.kind {
            ValKind::Scalar(e) => Ok(e),
            ValKind::Index(i) => Ok(CExpr::Index(i)),
            _ => err(format!(
                "a value of type {} is used where a scalar is needed",
                v.ty
            )),
        }
    }

    /// Materialises a deferred value (a temporary, or a local variable for scalars); other
    /// values are returned as they are.
    pub fn force<'a>(&mut self, v: Val<'a>) -> R<Val<'a>> {
        let ValKind::Deferred(d) = &v.kind else {
            return Ok(v);
        };
        if let Deferred::Slot = &**d {
            return err("internal: the placeholder of a layout function is read");
        }
        if let Deferred::Reduce { prim, f, init, xs } = &**d {
            if self.is_value_type(&v.ty) {
                let name = self.reduce_scalar(*prim, f, init, xs, &v.ty)?;
                return Ok(Val {
                    ty: v.ty.clone(),
                    kind: ValKind::Scalar(CExpr::Var(name)),
                });
            }
        }
        if self.is_value_type(&v.ty) {
            let ct = self.ctype(&v.ty)?;
            let name = self.fresh("x");
            self.emit(Stmt::Decl {
                ty: ct,
                name: name.clone(),
                init: None,
            });
            self.write(v.clone(), &Acc::var(&name))?;
            return Ok(Val {
                ty: v.ty.clone(),
                kind: ValKind::Scalar(CExpr::Var(name)),
            });
        }
        let (hint, what) = match &**d {
            Deferred::Reduce { prim, .. } => ("acc", prim.name()),
            Deferred::Map { prim, .. } => ("tmp", prim.name()),
            Deferred::ToMem(_) => ("mem", "toMem"),
            Deferred::Layout { .. } | Deferred::Slot => ("tmp", "a computed array"),
        };
        let (buf, _) = self.alloc_temp(&v.ty, hint)?;
        if let Some(array) = self.edge_temporary(&buf, d, &v.ty)? {
            self.emit(Stmt::Comment(format!(
                "{what}: materialised into {buf} because it is read (reads past its real sizes give zero)"
            )));
            let acc = Acc {
                node: Rc::new(AccNode::Edge(array.clone())),
                path: Vec::new(),
            };
            self.write(v.clone(), &acc)?;
            return Ok(Val {
                ty: v.ty,
                kind: ValKind::Array(Rc::new(View::Edge {
                    array,
                    path: Vec::new(),
                })),
            });
        }
        let acc = Acc::mem(&buf, v.ty.clone(), Ix::constant(0), true);
        self.emit(Stmt::Comment(format!(
            "{what}: materialised into {buf} because it is read"
        )));
        self.write(v.clone(), &acc)?;
        Ok(Val {
            ty: v.ty,
            kind: ValKind::Array(Rc::new(View::Mem {
                buf,
                offset: Ix::constant(0),
                aligned_base: true,
            })),
        })
    }
}

/// Whether a vector access at element offset `idx` of a 64-byte-aligned buffer is aligned to
/// the vector's size.
fn aligned_ok(ct: CType, idx: &Ix) -> bool {
    let bytes = ct.lanes as i64 * scalar_bytes(ct.scalar);
    ct.lanes > 1 && bytes <= 64 && idx.multiple_of(ct.lanes as i64)
}

fn root_is_temp(v: &Val<'_>) -> bool {
    match &v.kind {
        ValKind::Array(view) => match &**view {
            View::Mem { aligned_base, .. } => *aligned_base,
            View::Offset { inner, .. }
            | View::Split { inner, .. }
            | View::Slide { inner, .. }
            | View::Join { inner, .. } => root_is_temp(inner),
            _ => false,
        },
        _ => false,
    }
}

/// A name for a loop over the elements of `v`: its buffer and what the elements are (`a_row`,
/// `b_col`, `a_blk` for blocks of `split`, `tmp_vec` for vectors, `g_i` for `generate`).
fn loop_name(v: &Val<'_>) -> String {
    let what = match &v.kind {
        ValKind::Array(view) => match &**view {
            View::Split { .. } | View::Slide { .. } => "blk",
            View::Transpose { .. } => "col",
            View::AsVector { .. } => "vec",
            _ => match v.ty.get() {
                TypeNode::Array(_, e) if matches!(e.get(), TypeNode::Array(..)) => "row",
                TypeNode::Array(_, e) if matches!(e.get(), TypeNode::Vector(..)) => "vec",
                _ => "i",
            },
        },
        _ => "i",
    };
    format!("{}_{what}", root_name(v))
}

/// The buffer a view reads.
fn root_name(v: &Val<'_>) -> String {
    match &v.kind {
        ValKind::Array(view) => match &**view {
            View::Mem { buf, .. } => buf.clone(),
            View::Offset { inner, .. }
            | View::Split { inner, .. }
            | View::Slide { inner, .. }
            | View::Join { inner, .. }
            | View::Transpose { inner }
            | View::Column { inner, .. }
            | View::Proj { inner, .. }
            | View::AsVector { inner, .. }
            | View::AsScalar { inner, .. }
            | View::Pad { inner, .. }
            | View::Choose { inside: inner, .. }
            | View::Zip(inner, _) => root_name(inner),
            View::Edge { array, .. } => array.buf.clone(),
            View::Map { xs, .. } => root_name(xs),
            View::Generate { .. } => "g".into(),
            View::Written(acc) => acc_root_name(&acc.node),
        },
        _ => "x".into(),
    }
}

/// The variable or buffer an acceptor finally writes to.
pub(super) fn acc_root_name(node: &AccNode) -> String {
    match node {
        AccNode::Mem { buf, .. } => buf.clone(),
        AccNode::Var(name) => name.clone(),
        AccNode::Edge(array) => array.buf.clone(),
        AccNode::Layout { inner, .. } => acc_root_name(inner),
    }
}

/// The size of a scalar in bytes.
pub(crate) fn scalar_bytes(s: ScalarType) -> i64 {
    match s {
        ScalarType::F64 | ScalarType::I64 => 8,
        ScalarType::Bool => 1,
        _ => 4,
    }
}

/// A literal in C syntax (negative infinities as negations).
fn literal_c(l: Literal) -> CExpr {
    let text = match l {
        Literal::F32(bits) => {
            let v = f32::from_bits(bits);
            if v.is_nan() {
                "__builtin_nanf(\"\")".into()
            } else if v.is_infinite() {
                let inf = CExpr::Lit("__builtin_inff()".into());
                return if v > 0.0 {
                    inf
                } else {
                    CExpr::Neg(Rc::new(inf))
                };
            } else {
                format!("{v:?}f")
            }
        }
        Literal::F64(bits) => {
            let v = f64::from_bits(bits);
            if v.is_nan() {
                "__builtin_nan(\"\")".into()
            } else if v.is_infinite() {
                let inf = CExpr::Lit("__builtin_inf()".into());
                return if v > 0.0 {
                    inf
                } else {
                    CExpr::Neg(Rc::new(inf))
                };
            } else {
                format!("{v:?}")
            }
        }
        Literal::I32(v) => format!("{v}"),
        Literal::I64(v) => format!("{v}LL"),
        Literal::Bool(b) => if b { "1" } else { "0" }.into(),
    };
    CExpr::Lit(text)
}
