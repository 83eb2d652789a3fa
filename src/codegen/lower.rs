//! The translation of typed low-level Rise into C statements: evaluation of terms to values
//! ([`Val`]), reading views, and writing values into acceptors.

use super::c_ast::{BinOp, CExpr, CType, Place, Stmt};
use super::ix::Ix;
use super::value::{rewrite_path, Acc, AccNode, Deferred, Env, Func, Layout, Val, ValKind, View};
use super::CodegenError;
use crate::core::{Expr, ExprKind, Literal};
use crate::nat::{Nat, NatAtom, NatOp};
use crate::primitive::Primitive;
use crate::types::{ScalarType, Type, TypeNode};
use std::collections::BTreeSet;
use std::collections::HashSet;
use std::rc::Rc;

type R<T> = Result<T, CodegenError>;

fn err<T>(msg: impl Into<String>) -> R<T> {
    Err(CodegenError::new(msg))
}

/// The largest temporary placed on the stack inside a loop, in bytes.
const MAX_STACK_TEMP: i64 = 64 * 1024;

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
}

/// The state of one function's lowering.
pub struct Lowering {
    /// Size parameters, outermost first (nat index 0 is the last).
    pub sizes: Vec<SizeBinding>,
    blocks: Vec<Vec<Stmt>>,
    names: HashSet<String>,
    /// Temporaries to allocate at function entry.
    pub heap_temps: Vec<HeapTemp>,
    /// The vector types used (for typedefs and helpers).
    pub vector_types: BTreeSet<CType>,
    loop_depth: usize,
    par_depth: usize,
}

enum LoopKind {
    Seq,
    Par,
    Unroll,
}

impl Lowering {
    /// A lowering with these sizes; `reserved` names (parameters) are never generated.
    pub fn new(sizes: Vec<SizeBinding>, reserved: &[String]) -> Lowering {
        Lowering {
            sizes,
            blocks: vec![Vec::new()],
            names: reserved.iter().cloned().collect(),
            heap_temps: Vec::new(),
            vector_types: BTreeSet::new(),
            loop_depth: 0,
            par_depth: 0,
        }
    }

    /// The statements generated so far (at the outermost level).
    pub fn finish(mut self) -> (Vec<Stmt>, Vec<HeapTemp>, BTreeSet<CType>) {
        (
            self.blocks.pop().unwrap_or_default(),
            self.heap_temps,
            self.vector_types,
        )
    }

    /// A fresh C identifier based on `hint`.
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
        let mut candidate = base.clone();
        let mut n = 1;
        while self.names.contains(&candidate) || super::function::is_c_reserved(&candidate) {
            candidate = format!("{base}{n}");
            n += 1;
        }
        self.names.insert(candidate.clone());
        candidate
    }

    fn emit(&mut self, s: Stmt) {
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
            denominators = lcm(denominators, c.denom());
        }
        let mut total = Ix::constant(0);
        for (m, c) in n.terms() {
            let coef = c.numer() * (denominators / c.denom());
            let coef = i64::try_from(coef).map_err(|_| CodegenError::new("size too large"))?;
            let mut term = Ix::constant(coef);
            for (atom, power) in m.factors() {
                let a = self.nat_atom(atom)?;
                for _ in 0..*power {
                    term = term.mul(&a);
                }
            }
            total = total.add(&term);
        }
        let d = i64::try_from(denominators).map_err(|_| CodegenError::new("size too large"))?;
        Ok(total.div(&Ix::constant(d)))
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
                    NatOp::Mul => Ok(x.mul(&y)),
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
            TypeNode::Array(n, t) => Ok(self.nat(n)?.mul(&self.scalars(t)?)),
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
            TypeNode::Vector(_, t) | TypeNode::Array(_, t) => Lowering::base_scalar(t),
            _ => err(format!("values of type {ty} cannot be stored in memory")),
        }
    }

    /// The C type of a scalar or vector type.
    pub fn ctype(&mut self, ty: &Type) -> R<CType> {
        match ty.get() {
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
    pub fn eval<'a>(&mut self, e: &'a Expr, env: &Env<'a>) -> R<Val<'a>> {
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
                kind: ValKind::Scalar(CExpr::Lit(literal_c(*l))),
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

    fn apply_prim<'a>(
        &mut self,
        prim: Primitive,
        nats: &[Ix],
        mut args: Vec<Val<'a>>,
        ty: Type,
    ) -> R<Val<'a>> {
        use Primitive::*;
        let array = |view: View<'a>, ty: Type| Val {
            ty,
            kind: ValKind::Array(Rc::new(view)),
        };
        let deferred = |d: Deferred<'a>, ty: Type| Val {
            ty,
            kind: ValKind::Deferred(Rc::new(d)),
        };
        let nat = |i: usize| nats.get(i).cloned().unwrap_or_default();
        let a0 = args.remove(0);
        Ok(match prim {
            Map => {
                let xs = self.force(args.remove(0))?;
                array(View::Map { f: a0, xs }, ty)
            }
            MapSeq | MapSeqUnroll | MapPar => deferred(
                Deferred::Map {
                    prim,
                    f: a0,
                    xs: args.remove(0),
                },
                ty,
            ),
            Reduce => {
                return err(
                    "`reduce` is high-level: lower it to `reduceSeq` (a sequential accumulator loop) before code generation",
                )
            }
            ReduceSeq | ReduceSeqUnroll => {
                let init = args.remove(0);
                deferred(
                    Deferred::Reduce {
                        prim,
                        f: a0,
                        init,
                        xs: args.remove(0),
                    },
                    ty,
                )
            }
            Zip => {
                let a = self.force(a0)?;
                let b = self.force(args.remove(0))?;
                array(View::Zip(a, b), ty)
            }
            Unzip => {
                let xs = self.force(a0)?;
                let TypeNode::Pair(t1, t2) = ty.get() else {
                    return err("internal: unzip's type");
                };
                let first = array(
                    View::Proj {
                        inner: xs.clone(),
                        second: false,
                    },
                    t1.clone(),
                );
                let second = array(View::Proj { inner: xs, second: true }, t2.clone());
                Val {
                    ty,
                    kind: ValKind::Pair(Rc::new(first), Rc::new(second)),
                }
            }
            Fst | Snd => match &a0.kind {
                ValKind::Pair(x, y) => {
                    if prim == Fst {
                        (**x).clone()
                    } else {
                        (**y).clone()
                    }
                }
                ValKind::Deferred(_) => {
                    return err(format!(
                        "`{}` of a computed pair is not supported: compute the components separately",
                        prim.name()
                    ))
                }
                _ => return err(format!("internal: `{}` of a non-pair", prim.name())),
            },
            MakePair => Val {
                ty,
                kind: ValKind::Pair(Rc::new(a0), Rc::new(args.remove(0))),
            },
            Split | Join | Transpose | AsScalar | AsVector | AsVectorAligned => {
                let layout = match prim {
                    Split => Layout::Split(nat(0)),
                    Join => Layout::Join(match a0.ty.get() {
                        TypeNode::Array(_, row) => self.len(row)?,
                        _ => return err("internal: join of a non-matrix"),
                    }),
                    Transpose => Layout::Transpose,
                    AsScalar => Layout::AsScalar(self.lanes_of_elements(&a0.ty)?),
                    _ => Layout::AsVector(nat(0).as_const().filter(|w| *w > 0).ok_or_else(
                        || CodegenError::new("asVector: the lane count must be a constant"),
                    )? as u64),
                };
                if matches!(a0.kind, ValKind::Deferred(_)) {
                    deferred(Deferred::Layout(layout, a0), ty)
                } else {
                    let inner = self.force(a0)?;
                    array(layout_view(layout, inner), ty)
                }
            }
            Slide => array(
                View::Slide {
                    inner: self.force(a0)?,
                    sp: nat(1),
                },
                ty,
            ),
            Take => array(
                View::Offset {
                    inner: self.force(a0)?,
                    start: Ix::constant(0),
                },
                ty,
            ),
            Drop => array(
                View::Offset {
                    inner: self.force(a0)?,
                    start: nat(0),
                },
                ty,
            ),
            Pad => {
                let xs = self.force(args.remove(0))?;
                let n = self.len(&xs.ty)?;
                let value = self.force(a0)?;
                array(
                    View::Pad {
                        inner: xs,
                        l: nat(0),
                        n,
                        value,
                    },
                    ty,
                )
            }
            PadClamp => {
                return err("`padClamp` is not supported by code generation yet")
            }
            Generate => array(View::Generate { f: a0 }, ty),
            Idx => {
                let i = match self.force(a0)?.kind {
                    ValKind::Index(i) => i,
                    _ => return err("`idx` needs an index computed from a loop or generate"),
                };
                let xs = self.force(args.remove(0))?;
                self.elem(&xs, &i)?
            }
            Let => {
                let value = self.force(a0)?;
                self.apply(args.remove(0), value)?
            }
            Add | Sub | Mul | Div | Lt | Gt | Eq => {
                let op = match prim {
                    Add => BinOp::Add,
                    Sub => BinOp::Sub,
                    Mul => BinOp::Mul,
                    Div => BinOp::Div,
                    Lt => BinOp::Lt,
                    Gt => BinOp::Gt,
                    _ => BinOp::Eq,
                };
                let a = self.scalar(a0)?;
                let b = self.scalar(args.remove(0))?;
                Val {
                    ty,
                    kind: ValKind::Scalar(CExpr::Bin(op, Box::new(a), Box::new(b))),
                }
            }
            Neg => Val {
                ty,
                kind: ValKind::Scalar(CExpr::Neg(Box::new(self.scalar(a0)?))),
            },
            Select => {
                let c = self.scalar(a0)?;
                let a = self.scalar(args.remove(0))?;
                let b = self.scalar(args.remove(0))?;
                Val {
                    ty,
                    kind: ValKind::Scalar(CExpr::Cond(Box::new(c), Box::new(a), Box::new(b))),
                }
            }
            ToMem => deferred(Deferred::ToMem(a0), ty),
            VectorFromScalar => {
                let vt = self.ctype(&ty)?;
                let mut s = self.scalar(a0)?;
                if !s.is_simple() {
                    // Name the scalar once: the initializer repeats it in every lane.
                    let name = self.fresh("s");
                    self.emit(Stmt::Decl {
                        ty: CType {
                            scalar: vt.scalar,
                            lanes: 1,
                        },
                        name: name.clone(),
                        init: Some(s),
                    });
                    s = CExpr::Var(name);
                }
                Val {
                    ty,
                    kind: ValKind::Scalar(CExpr::Lanes(vt, vec![s; vt.lanes as usize])),
                }
            }
        })
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
            Deferred::Layout(..) => ("tmp", "a computed array"),
        };
        let (buf, _) = self.alloc_temp(&v.ty, hint)?;
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

    fn is_value_type(&self, ty: &Type) -> bool {
        matches!(ty.get(), TypeNode::Scalar(_) | TypeNode::Vector(..))
    }

    /// Allocates a temporary for a value of type `ty`: a local array when its size is a small
    /// constant, else a heap buffer allocated once per call (not possible inside `mapPar`).
    fn alloc_temp(&mut self, ty: &Type, hint: &str) -> R<(String, bool)> {
        let len = self.scalars(ty)?;
        let scalar = Lowering::base_scalar(ty)?;
        let name = self.fresh(hint);
        let bytes = len.as_const().map(|l| l * scalar_bytes(scalar));
        if let (Some(l), Some(b)) = (len.as_const(), bytes) {
            if b <= MAX_STACK_TEMP {
                self.emit(Stmt::LocalArray {
                    scalar,
                    name: name.clone(),
                    len: l.max(1),
                });
                return Ok((name, false));
            }
        }
        if self.loop_depth > 0 {
            if self.par_depth > 0 {
                return err(format!(
                    "a temporary of type {ty} ({} elements) is needed inside a parallel loop (mapPar); only constant-size temporaries of at most {MAX_STACK_TEMP} bytes can be private to a thread: use --size, smaller tiles, or move the toMem out of the mapPar",
                    len.to_c()
                ));
            }
        }
        self.heap_temps.push(HeapTemp {
            name: name.clone(),
            scalar,
            len,
        });
        Ok((name, true))
    }

    // ---- reading ---------------------------------------------------------------------------

    /// Element `i` of an array value.
    pub fn elem<'a>(&mut self, xs: &Val<'a>, i: &Ix) -> R<Val<'a>> {
        let xs = self.force(xs.clone())?;
        let elem_ty = match xs.ty.get() {
            TypeNode::Array(_, t) => t.clone(),
            _ => return err(format!("internal: indexing a value of type {}", xs.ty)),
        };
        let view = match &xs.kind {
            ValKind::Array(v) => v.clone(),
            _ => return err("internal: indexing a non-array value"),
        };
        let arr = |v: View<'a>| Val {
            ty: elem_ty.clone(),
            kind: ValKind::Array(Rc::new(v)),
        };
        match &*view {
            View::Mem {
                buf,
                offset,
                aligned_base,
            } => {
                let off = offset.add(&i.mul(&self.scalars(&elem_ty)?));
                match elem_ty.get() {
                    TypeNode::Array(..) => Ok(arr(View::Mem {
                        buf: buf.clone(),
                        offset: off,
                        aligned_base: *aligned_base,
                    })),
                    TypeNode::Scalar(_) | TypeNode::Vector(..) => {
                        let ct = self.ctype(&elem_ty)?;
                        let aligned = *aligned_base && aligned_ok(ct, &off);
                        Ok(Val {
                            ty: elem_ty,
                            kind: ValKind::Scalar(CExpr::Load {
                                buf: buf.clone(),
                                idx: off,
                                ty: ct,
                                aligned,
                            }),
                        })
                    }
                    _ => err(format!(
                        "values of type {elem_ty} cannot be read from memory"
                    )),
                }
            }
            View::Offset { inner, start } => self.elem(inner, &start.add(i)),
            View::Split { inner, k } => Ok(arr(View::Offset {
                inner: inner.clone(),
                start: i.mul(k),
            })),
            View::Slide { inner, sp } => Ok(arr(View::Offset {
                inner: inner.clone(),
                start: i.mul(sp),
            })),
            View::Join { inner, m } => {
                let row = self.elem(inner, &i.div(m))?;
                self.elem(&row, &i.rem(m))
            }
            View::Transpose { inner } => Ok(arr(View::Column {
                inner: inner.clone(),
                col: i.clone(),
            })),
            View::Column { inner, col } => {
                let row = self.elem(inner, i)?;
                self.elem(&row, col)
            }
            View::Zip(a, b) => {
                let x = self.elem(a, i)?;
                let y = self.elem(b, i)?;
                Ok(Val {
                    ty: elem_ty,
                    kind: ValKind::Pair(Rc::new(x), Rc::new(y)),
                })
            }
            View::Proj { inner, second } => {
                let p = self.elem(inner, i)?;
                match p.kind {
                    ValKind::Pair(x, y) => Ok(if *second { (*y).clone() } else { (*x).clone() }),
                    _ => err("internal: unzip of a non-pair array"),
                }
            }
            View::Map { f, xs } => {
                let x = self.elem(xs, i)?;
                self.apply(f.clone(), x)
            }
            View::Generate { f } => {
                let idx_ty = match f.ty.get() {
                    TypeNode::Fun(d, _) => d.clone(),
                    _ => return err("internal: generate of a non-function"),
                };
                let index = Val {
                    ty: idx_ty,
                    kind: ValKind::Index(i.clone()),
                };
                self.apply(f.clone(), index)
            }
            View::AsVector { inner, w } => {
                let ct = self.ctype(&elem_ty)?;
                let mut lanes = Vec::new();
                for l in 0..*w {
                    let x = self.elem(inner, &i.scale(*w as i64).add(&Ix::constant(l as i64)))?;
                    lanes.push(self.scalar(x)?);
                }
                let load = contiguous_loads(&lanes).map(|(buf, idx)| {
                    let aligned = root_is_temp(inner) && aligned_ok(ct, &idx);
                    CExpr::Load {
                        buf,
                        idx,
                        ty: ct,
                        aligned,
                    }
                });
                Ok(Val {
                    ty: elem_ty,
                    kind: ValKind::Scalar(load.unwrap_or(CExpr::Lanes(ct, lanes))),
                })
            }
            View::AsScalar { inner, w } => {
                let wi = Ix::constant(*w as i64);
                let v = self.elem(inner, &i.div(&wi))?;
                let v = self.scalar(v)?;
                Ok(Val {
                    ty: elem_ty,
                    kind: ValKind::Scalar(lane(v, i.rem(&wi))),
                })
            }
            View::Pad { inner, l, n, value } => {
                if !self.is_value_type(&elem_ty) {
                    return err("`pad` of arrays whose elements are arrays is not supported");
                }
                let pad = self.scalar(value.clone())?;
                let x = self.elem(inner, &i.sub(l))?;
                let x = self.scalar(x)?;
                let e = CExpr::Cond(
                    Box::new(CExpr::IxLess(i.clone(), l.clone())),
                    Box::new(pad.clone()),
                    Box::new(CExpr::Cond(
                        Box::new(CExpr::IxLess(i.clone(), l.add(n))),
                        Box::new(x),
                        Box::new(pad),
                    )),
                );
                Ok(Val {
                    ty: elem_ty,
                    kind: ValKind::Scalar(e),
                })
            }
        }
    }

    // ---- writing ---------------------------------------------------------------------------

    /// Emits the statements that write `v` into `acc`.
    pub fn write<'a>(&mut self, v: Val<'a>, acc: &Acc) -> R<()> {
        match &v.kind {
            ValKind::Deferred(d) => match &**d {
                Deferred::Map { prim, f, xs } => {
                    let xs = self.force(xs.clone())?;
                    let n = self.len(&xs.ty)?;
                    let kind = match prim {
                        Primitive::MapPar => LoopKind::Par,
                        Primitive::MapSeqUnroll => LoopKind::Unroll,
                        _ => LoopKind::Seq,
                    };
                    let hint = loop_name(&xs);
                    self.loop_(kind, &hint, n, prim.name(), &mut |s, i| {
                        let x = s.elem(&xs, &i)?;
                        let y = s.apply(f.clone(), x)?;
                        s.write(y, &acc.elem(i))
                    })
                }
                Deferred::Reduce { prim, f, init, xs } => {
                    if self.is_value_type(&v.ty) {
                        let name = self.reduce_scalar(*prim, f, init, xs, &v.ty)?;
                        self.store(acc, CExpr::Var(name), &v.ty)
                    } else {
                        self.reduce_array(*prim, f, init, xs, &v.ty, acc)
                    }
                }
                Deferred::ToMem(x) => self.write(x.clone(), acc),
                Deferred::Layout(layout, inner) => self.write(inner.clone(), &acc.through(layout)),
            },
            ValKind::Array(view) => match &**view {
                View::Map { .. } => err(
                    "a high-level `map` is in a write position (its result is stored): lower it to `mapSeq`, `mapPar` or `mapSeqUnroll`; `map` may only remain where it is a view that is read",
                ),
                View::Mem { .. } | View::Offset { .. } | View::Slide { .. } | View::Column { .. }
                | View::Zip(..) | View::Proj { .. } | View::Generate { .. } | View::Pad { .. } => {
                    self.copy(&v, acc)
                }
                View::Split { inner, k } => {
                    self.write(inner.clone(), &acc.through(&Layout::Split(k.clone())))
                }
                View::Join { inner, m } => {
                    self.write(inner.clone(), &acc.through(&Layout::Join(m.clone())))
                }
                // A transposed view is copied in the destination's order: contiguous writes
                // (and, for a transpose of a transpose, contiguous reads too).
                View::Transpose { .. } => self.copy(&v, acc),
                View::AsScalar { inner, w } => {
                    self.write(inner.clone(), &acc.through(&Layout::AsScalar(*w)))
                }
                View::AsVector { inner, w } => {
                    self.write(inner.clone(), &acc.through(&Layout::AsVector(*w)))
                }
            },
            ValKind::Scalar(e) => self.store(acc, e.clone(), &v.ty),
            ValKind::Index(_) => err("indices (idx[n]) cannot be stored in memory"),
            ValKind::Pair(..) => err(format!(
                "a pair (type {}) cannot be stored: write its components to separate outputs",
                v.ty
            )),
            ValKind::Fun(_) => err(format!(
                "a function-typed value (type {}) cannot be stored; it must be applied",
                v.ty
            )),
        }
    }

    /// A copy loop from a view into an acceptor.
    fn copy<'a>(&mut self, v: &Val<'a>, acc: &Acc) -> R<()> {
        let n = self.len(&v.ty)?;
        let hint = loop_name(v);
        self.loop_(LoopKind::Seq, &hint, n, "copy", &mut |s, i| {
            let x = s.elem(v, &i)?;
            s.write(x, &acc.elem(i))
        })
    }

    fn loop_(
        &mut self,
        kind: LoopKind,
        hint: &str,
        extent: Ix,
        comment: &str,
        body: &mut dyn FnMut(&mut Lowering, Ix) -> R<()>,
    ) -> R<()> {
        if let LoopKind::Unroll = kind {
            let Some(n) = extent.as_const() else {
                return err(format!(
                    "`{comment}` over {} elements: unrolling needs a constant size",
                    extent.to_c()
                ));
            };
            for c in 0..n {
                self.push_block();
                body(self, Ix::constant(c))?;
                let stmts = self.pop_block();
                self.emit(Stmt::Block(format!("{comment}: iteration {c}"), stmts));
            }
            return Ok(());
        }
        let var = self.fresh(hint);
        let i = Ix::loop_var(&var, &extent);
        let parallel = matches!(kind, LoopKind::Par) && self.par_depth == 0;
        self.push_block();
        self.loop_depth += 1;
        if parallel {
            self.par_depth += 1;
        }
        let result = body(self, i);
        self.loop_depth -= 1;
        if parallel {
            self.par_depth -= 1;
        }
        let stmts = self.pop_block();
        result?;
        let comment = if matches!(kind, LoopKind::Par) && !parallel {
            format!("{comment} (nested in a parallel loop: sequential)")
        } else {
            comment.to_string()
        };
        self.emit(Stmt::For {
            var,
            extent,
            parallel,
            comment,
            body: stmts,
        });
        Ok(())
    }

    /// Stores a scalar or vector.
    fn store(&mut self, acc: &Acc, e: CExpr, ty: &Type) -> R<()> {
        let ct = self.ctype(ty)?;
        if let Some(place) = resolve(&acc.node, &acc.path, self)? {
            let place = match place {
                Resolved::Mem {
                    buf,
                    idx,
                    aligned_base,
                } => Place::Mem {
                    aligned: aligned_base && aligned_ok(ct, &idx),
                    buf,
                    idx,
                    ty: ct,
                },
                Resolved::Var(name, lane) => Place::Var(name, lane),
            };
            self.emit(Stmt::Store(place, e));
            return Ok(());
        }
        // A vector stored through a layout that addresses lanes one by one.
        let mut places = Vec::new();
        for l in 0..ct.lanes {
            let lane_acc = acc.elem(Ix::constant(l as i64));
            match resolve(&lane_acc.node, &lane_acc.path, self)? {
                Some(p) => places.push(p),
                None => return err("internal: an acceptor path could not be resolved"),
            }
        }
        let mem: Vec<(String, Ix, bool)> = places
            .iter()
            .filter_map(|p| match p {
                Resolved::Mem {
                    buf,
                    idx,
                    aligned_base,
                } => Some((buf.clone(), idx.clone(), *aligned_base)),
                _ => None,
            })
            .collect();
        if mem.len() == places.len()
            && mem.iter().enumerate().all(|(l, (b, idx, _))| {
                *b == mem[0].0 && *idx == mem[0].1.add(&Ix::constant(l as i64))
            })
        {
            let (buf, idx, base) = mem[0].clone();
            self.emit(Stmt::Store(
                Place::Mem {
                    aligned: base && aligned_ok(ct, &idx),
                    buf,
                    idx,
                    ty: ct,
                },
                e,
            ));
            return Ok(());
        }
        let name = self.fresh("v");
        self.emit(Stmt::Decl {
            ty: ct,
            name: name.clone(),
            init: Some(e),
        });
        let scalar = CType {
            scalar: ct.scalar,
            lanes: 1,
        };
        for (l, p) in places.into_iter().enumerate() {
            let value = CExpr::Lane(Box::new(CExpr::Var(name.clone())), Ix::constant(l as i64));
            let place = match p {
                Resolved::Mem { buf, idx, .. } => Place::Mem {
                    buf,
                    idx,
                    ty: scalar,
                    aligned: false,
                },
                Resolved::Var(n, lane) => Place::Var(n, lane),
            };
            self.emit(Stmt::Store(place, value));
        }
        Ok(())
    }

    // ---- reductions ------------------------------------------------------------------------

    fn reduce_scalar<'a>(
        &mut self,
        prim: Primitive,
        f: &Val<'a>,
        init: &Val<'a>,
        xs: &Val<'a>,
        ty: &Type,
    ) -> R<String> {
        let xs = self.force(xs.clone())?;
        let n = self.len(&xs.ty)?;
        let ct = self.ctype(ty)?;
        let init = self.scalar(init.clone())?;
        let name = self.fresh("acc");
        self.emit(Stmt::Decl {
            ty: ct,
            name: name.clone(),
            init: Some(init),
        });
        let acc_val = Val {
            ty: ty.clone(),
            kind: ValKind::Scalar(CExpr::Var(name.clone())),
        };
        let kind = if prim == Primitive::ReduceSeqUnroll {
            LoopKind::Unroll
        } else {
            LoopKind::Seq
        };
        let hint = format!("k_{}", loop_name(&xs));
        let target = Acc::var(&name);
        self.loop_(kind, &hint, n, prim.name(), &mut |s, i| {
            let x = s.elem(&xs, &i)?;
            let y = s.apply2(f, acc_val.clone(), x)?;
            s.write(y, &target)
        })?;
        Ok(name)
    }

    /// A reduction with an array accumulator: in the destination when it is plain memory of the
    /// accumulator's type, else in a temporary copied out at the end. The body updates the
    /// accumulator in place when it only reads each element where it writes it.
    fn reduce_array<'a>(
        &mut self,
        prim: Primitive,
        f: &Val<'a>,
        init: &Val<'a>,
        xs: &Val<'a>,
        ty: &Type,
        dest: &Acc,
    ) -> R<()> {
        let xs = self.force(xs.clone())?;
        let n = self.len(&xs.ty)?;
        let plain = mem_region(dest, self)?.filter(|(_, _, t, _)| t == ty);
        let (buf, offset, aligned_base, copy_out) = match plain {
            Some((b, o, _, a)) => (b, o, a, false),
            None => {
                let (b, _) = self.alloc_temp(ty, "acc")?;
                (b, Ix::constant(0), true, true)
            }
        };
        let acc_view = Val {
            ty: ty.clone(),
            kind: ValKind::Array(Rc::new(View::Mem {
                buf: buf.clone(),
                offset: offset.clone(),
                aligned_base,
            })),
        };
        let acc_mem = Acc::mem(&buf, ty.clone(), offset.clone(), aligned_base);
        let same_region = matches!(&init.kind, ValKind::Array(v) if matches!(&**v, View::Mem { buf: b, offset: o, .. } if *b == buf && *o == offset));
        if !same_region {
            self.emit(Stmt::Comment(format!(
                "{}: initialise the accumulator {buf}",
                prim.name()
            )));
            self.write(init.clone(), &acc_mem)?;
        }
        let kind = || {
            if prim == Primitive::ReduceSeqUnroll {
                LoopKind::Unroll
            } else {
                LoopKind::Seq
            }
        };
        let hint = format!("k_{}", loop_name(&xs));
        // First attempt: update in place.
        self.push_block();
        let attempt = self.loop_(kind(), &hint, n.clone(), prim.name(), &mut |s, i| {
            let x = s.elem(&xs, &i)?;
            let y = s.apply2(f, acc_view.clone(), x)?;
            s.write(y, &acc_mem)
        });
        let stmts = self.pop_block();
        attempt?;
        if in_place_safe(&stmts, &buf) {
            for s in stmts {
                self.emit(s);
            }
        } else {
            // The body reads the accumulator elsewhere than where it writes: compute each step
            // into a temporary, then copy it back.
            let (next, _) = self.alloc_temp(ty, "next")?;
            let next_acc = Acc::mem(&next, ty.clone(), Ix::constant(0), true);
            let next_view = Val {
                ty: ty.clone(),
                kind: ValKind::Array(Rc::new(View::Mem {
                    buf: next.clone(),
                    offset: Ix::constant(0),
                    aligned_base: true,
                })),
            };
            self.loop_(kind(), &hint, n, prim.name(), &mut |s, i| {
                let x = s.elem(&xs, &i)?;
                let y = s.apply2(f, acc_view.clone(), x)?;
                s.write(y, &next_acc)?;
                s.copy(&next_view, &acc_mem)
            })?;
        }
        if copy_out {
            self.copy(&acc_view, dest)?;
        }
        Ok(())
    }
}

/// The memory region an acceptor writes when it is plain memory indexed by array levels only:
/// buffer, offset, type of the region, aligned base.
fn mem_region(acc: &Acc, low: &Lowering) -> R<Option<(String, Ix, Type, bool)>> {
    let AccNode::Mem {
        buf,
        ty,
        offset,
        aligned_base,
    } = &*acc.node
    else {
        return Ok(None);
    };
    let mut idx = offset.clone();
    let mut t = ty.clone();
    for i in &acc.path {
        let next = match t.get() {
            TypeNode::Array(_, e) => {
                idx = idx.add(&i.mul(&low.scalars(e)?));
                e.clone()
            }
            _ => return Ok(None),
        };
        t = next;
    }
    Ok(Some((buf.clone(), idx, t, *aligned_base)))
}

/// Whether every read of `buf` in `stmts` is inside a store to `buf` at the same index.
fn in_place_safe(stmts: &[Stmt], buf: &str) -> bool {
    let mut ok = true;
    for s in stmts {
        s.for_each_expr(&mut |target, e| {
            e.for_each_load(&mut |b, idx, _| {
                if b == buf {
                    match target {
                        Some((tb, tidx)) if tb == buf && tidx == idx => {}
                        _ => ok = false,
                    }
                }
            })
        });
    }
    ok
}

enum Resolved {
    Mem {
        buf: String,
        idx: Ix,
        aligned_base: bool,
    },
    Var(String, Option<Ix>),
}

/// Where the element at `path` of an acceptor is stored; `None` when a layout needs lanes the
/// path does not give.
fn resolve(node: &AccNode, path: &[Ix], low: &Lowering) -> R<Option<Resolved>> {
    match node {
        AccNode::Mem {
            buf,
            ty,
            offset,
            aligned_base,
        } => {
            let mut idx = offset.clone();
            let mut t = ty.clone();
            for i in path {
                let next = match t.get() {
                    TypeNode::Array(_, e) => {
                        idx = idx.add(&i.mul(&low.scalars(e)?));
                        e.clone()
                    }
                    TypeNode::Vector(_, e) => {
                        idx = idx.add(i);
                        e.clone()
                    }
                    _ => return err("internal: an acceptor path deeper than its type"),
                };
                t = next;
            }
            Ok(Some(Resolved::Mem {
                buf: buf.clone(),
                idx,
                aligned_base: *aligned_base,
            }))
        }
        AccNode::Var(name) => match path {
            [] => Ok(Some(Resolved::Var(name.clone(), None))),
            [lane] => Ok(Some(Resolved::Var(name.clone(), Some(lane.clone())))),
            _ => err("internal: an acceptor path into a scalar variable"),
        },
        AccNode::Layout { inner, layout, at } => match rewrite_path(layout, *at, path) {
            Some(p) => resolve(inner, &p, low),
            None => Ok(None),
        },
    }
}

fn layout_view<'a>(layout: Layout, inner: Val<'a>) -> View<'a> {
    match layout {
        Layout::Join(m) => View::Join { inner, m },
        Layout::Split(k) => View::Split { inner, k },
        Layout::Transpose => View::Transpose { inner },
        Layout::AsScalar(w) => View::AsScalar { inner, w },
        Layout::AsVector(w) => View::AsVector { inner, w },
    }
}

/// Lane `l` of a vector expression, reading the scalar directly where possible.
fn lane(v: CExpr, l: Ix) -> CExpr {
    match v {
        CExpr::Load { buf, idx, ty, .. } => CExpr::Load {
            buf,
            idx: idx.add(&l),
            ty: CType {
                scalar: ty.scalar,
                lanes: 1,
            },
            aligned: false,
        },
        CExpr::Lanes(_, xs) if l.as_const().is_some_and(|c| (c as usize) < xs.len()) => {
            xs[l.as_const().unwrap_or(0) as usize].clone()
        }
        other => CExpr::Lane(Box::new(other), l),
    }
}

/// When the lanes are loads of consecutive elements of one buffer: the buffer and first index.
fn contiguous_loads(lanes: &[CExpr]) -> Option<(String, Ix)> {
    let (buf0, idx0) = match lanes.first()? {
        CExpr::Load { buf, idx, ty, .. } if ty.lanes == 1 => (buf, idx),
        _ => return None,
    };
    for (l, x) in lanes.iter().enumerate() {
        match x {
            CExpr::Load { buf, idx, ty, .. }
                if ty.lanes == 1 && buf == buf0 && *idx == idx0.add(&Ix::constant(l as i64)) => {}
            _ => return None,
        }
    }
    Some((buf0.clone(), idx0.clone()))
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
            | View::Zip(inner, _) => root_name(inner),
            View::Map { xs, .. } => root_name(xs),
            View::Generate { .. } => "g".into(),
        },
        _ => "x".into(),
    }
}

fn scalar_bytes(s: ScalarType) -> i64 {
    match s {
        ScalarType::F64 | ScalarType::I64 => 8,
        ScalarType::Bool => 1,
        _ => 4,
    }
}

fn lcm(a: i128, b: i128) -> i128 {
    fn gcd(a: i128, b: i128) -> i128 {
        if b == 0 {
            a.abs()
        } else {
            gcd(b, a % b)
        }
    }
    if a == 0 || b == 0 {
        return a.max(b).max(1);
    }
    (a / gcd(a, b) * b).abs()
}

/// A literal in C syntax.
fn literal_c(l: Literal) -> String {
    match l {
        Literal::F32(bits) => {
            let v = f32::from_bits(bits);
            if v.is_nan() {
                "__builtin_nanf(\"\")".into()
            } else if v.is_infinite() {
                if v > 0.0 {
                    "__builtin_inff()"
                } else {
                    "(-__builtin_inff())"
                }
                .into()
            } else {
                format!("{v:?}f")
            }
        }
        Literal::F64(bits) => {
            let v = f64::from_bits(bits);
            if v.is_nan() {
                "__builtin_nan(\"\")".into()
            } else if v.is_infinite() {
                if v > 0.0 {
                    "__builtin_inf()"
                } else {
                    "(-__builtin_inf())"
                }
                .into()
            } else {
                format!("{v:?}")
            }
        }
        Literal::I32(v) => format!("{v}"),
        Literal::I64(v) => format!("{v}LL"),
        Literal::Bool(b) => if b { "1" } else { "0" }.into(),
    }
}
