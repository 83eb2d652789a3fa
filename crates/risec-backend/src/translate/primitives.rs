//! The primitives: each applied to its arguments becomes a view, a deferred computation or a
//! C expression.

use super::*;
use crate::c_math::MathOp;

/// An array value of type `ty` read through `view`.
fn array_val(view: View<'_>, ty: Type) -> Val<'_> {
    Val {
        ty,
        kind: ValKind::Array(Rc::new(view)),
    }
}

/// A value of type `ty` computed where it is written (`d`), not where it is made.
fn deferred_val(d: Deferred<'_>, ty: Type) -> Val<'_> {
    Val {
        ty,
        kind: ValKind::Deferred(Rc::new(d)),
    }
}

/// A scalar (or vector) value of type `ty`: the C expression `e`.
fn scalar_val<'a>(e: CExpr, ty: Type) -> Val<'a> {
    Val {
        ty,
        kind: ValKind::Scalar(e),
    }
}

impl Translator {
    /// `prim` applied to its size arguments `nats` and all of its value arguments `args`, as a
    /// value of type `ty`. The primitives that need more than a line have a function each
    /// below, by family: maps, pairs, layouts, padding, indexing, `let`, scalar operations.
    pub(super) fn apply_prim<'a>(
        &mut self,
        prim: Primitive,
        nats: &[Ix],
        mut args: Vec<Val<'a>>,
        ty: Type,
    ) -> R<Val<'a>> {
        use Primitive::*;
        let nat = |i: usize| nats.get(i).cloned().unwrap_or_default();
        if prim == NatToFloat {
            // The one primitive without value arguments.
            let ct = self.ctype(&ty)?;
            return Ok(scalar_val(CExpr::SizeAs(ct, nat(0)), ty));
        }
        if args.is_empty() {
            return err(format!("internal: `{}` without arguments", prim.name()));
        }
        let a0 = args.remove(0);
        Ok(match prim {
            Map | MapSeq | MapSeqUnroll | MapPar => {
                let xs = args.remove(0);
                self.apply_map(prim, a0, xs, ty)?
            }
            Reduce => {
                return err(
                    "`reduce` is high-level: lower it to `reduceSeq` (a sequential accumulator loop) before code generation",
                )
            }
            ReduceSeq | ReduceSeqUnroll => {
                let init = args.remove(0);
                deferred_val(
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
                array_val(View::Zip(a, b), ty)
            }
            Unzip => self.apply_unzip(a0, ty)?,
            Fst | Snd => project(prim, a0)?,
            MakePair => Val {
                ty,
                kind: ValKind::Pair(Rc::new(a0), Rc::new(args.remove(0))),
            },
            Split | Join | Transpose | AsScalar | AsVector | AsVectorAligned => {
                self.apply_layout(prim, nat(0), a0, ty)?
            }
            Slide => array_val(
                View::Slide {
                    inner: self.force(a0)?,
                    sp: nat(1),
                },
                ty,
            ),
            Take => array_val(
                View::Offset {
                    inner: self.force(a0)?,
                    start: Ix::constant(0),
                },
                ty,
            ),
            Drop => array_val(
                View::Offset {
                    inner: self.force(a0)?,
                    start: nat(0),
                },
                ty,
            ),
            Pad => self.apply_pad(nat(0), a0, args.remove(0), ty)?,
            PadClamp => {
                return err("`padClamp` is not supported by code generation yet")
            }
            Generate => array_val(View::Generate { f: a0 }, ty),
            Idx => self.apply_idx(a0, args.remove(0))?,
            Let => self.apply_let(a0, args.remove(0))?,
            Add | Sub | Mul | Div | Lt | Gt | Eq => {
                self.apply_binary(prim, a0, args.remove(0), ty)?
            }
            Neg => scalar_val(CExpr::Neg(Rc::new(self.scalar(a0)?)), ty),
            Select => {
                let (a, b) = (args.remove(0), args.remove(0));
                self.apply_select(a0, a, b, ty)?
            }
            Exp | Log | Sqrt | Abs | Max | Min => self.apply_math(prim, a0, args, ty)?,
            NatToFloat => return err("internal: `natToFloat` with a value argument"),
            ToMem => deferred_val(Deferred::ToMem(a0), ty),
            VectorFromScalar => {
                let vt = self.ctype(&ty)?;
                let s = self.scalar(a0)?;
                scalar_val(self.broadcast(vt, s), ty)
            }
        })
    }

    /// `map f xs` (any kind of map): a view that applies `f` to each element for `map`, a loop
    /// made where the result is written for the others. When `xs` is computed and `f` only
    /// rearranges, `xs` is written through `f`'s layouts instead.
    fn apply_map<'a>(&mut self, prim: Primitive, f: Val<'a>, xs: Val<'a>, ty: Type) -> R<Val<'a>> {
        // `map f xs` of a computed `xs` with `f` only rearranging (any kind of map: it
        // computes nothing) is written by writing `xs` through `f`'s layouts one level
        // down, without a temporary.
        if let ValKind::Deferred(_) = xs.kind {
            if let Some(layouts) = self.layout_function(&f, &xs.ty)? {
                return Ok(layouts
                    .into_iter()
                    .rev()
                    .fold(xs, |inner, (layout, depth)| {
                        deferred_val(
                            Deferred::Layout {
                                layout,
                                depth: depth + 1,
                                inner,
                            },
                            ty.clone(),
                        )
                    }));
            }
        }
        Ok(if prim == Primitive::Map {
            let xs = self.force(xs)?;
            array_val(View::Map { f, xs }, ty)
        } else {
            deferred_val(Deferred::Map { prim, f, xs }, ty)
        })
    }

    /// `unzip xs`: the pair of the views of its first and of its second components.
    fn apply_unzip<'a>(&mut self, xs: Val<'a>, ty: Type) -> R<Val<'a>> {
        let xs = self.force(xs)?;
        let TypeNode::Pair(t1, t2) = ty.get() else {
            return err("internal: unzip's type");
        };
        let first = array_val(
            View::Proj {
                inner: xs.clone(),
                second: false,
            },
            t1.clone(),
        );
        let second = array_val(
            View::Proj {
                inner: xs,
                second: true,
            },
            t2.clone(),
        );
        Ok(Val {
            ty,
            kind: ValKind::Pair(Rc::new(first), Rc::new(second)),
        })
    }

    /// `split`, `join`, `transpose`, `asScalar` and `asVector` (lane count or split size
    /// `n`): a layout, deferred with a computed array (written through it), else a view.
    fn apply_layout<'a>(&mut self, prim: Primitive, n: Ix, xs: Val<'a>, ty: Type) -> R<Val<'a>> {
        use Primitive::*;
        let layout =
            match prim {
                Split => Layout::Split(n),
                Join => Layout::Join(match xs.ty.get() {
                    TypeNode::Array(_, row) => self.len(row)?,
                    _ => return err("internal: join of a non-matrix"),
                }),
                Transpose => Layout::Transpose,
                AsScalar => Layout::AsScalar(self.lanes_of_elements(&xs.ty)?),
                _ => Layout::AsVector(n.as_const().filter(|w| *w > 0).ok_or_else(|| {
                    CodegenError::new("asVector: the lane count must be a constant")
                })? as u64),
            };
        Ok(if matches!(xs.kind, ValKind::Deferred(_)) {
            deferred_val(
                Deferred::Layout {
                    layout,
                    depth: 0,
                    inner: xs,
                },
                ty,
            )
        } else {
            let inner = self.force(xs)?;
            array_val(layout_view(layout, inner), ty)
        })
    }

    /// `pad l r value xs`: the view of `xs` with `value` before (`l` elements) and after it.
    fn apply_pad<'a>(&mut self, l: Ix, value: Val<'a>, xs: Val<'a>, ty: Type) -> R<Val<'a>> {
        let xs = self.force(xs)?;
        let n = self.len(&xs.ty)?;
        let value = self.force(value)?;
        Ok(array_val(
            View::Pad {
                inner: xs,
                l,
                n,
                value,
            },
            ty,
        ))
    }

    /// `idx i xs`: element `i` of `xs`, `i` an index computed from a loop or `generate`.
    fn apply_idx<'a>(&mut self, i: Val<'a>, xs: Val<'a>) -> R<Val<'a>> {
        let i = match self.force(i)?.kind {
            ValKind::Index(i) => i,
            _ => return err("`idx` needs an index computed from a loop or generate"),
        };
        let xs = self.force(xs)?;
        self.elem(&xs, &i)
    }

    /// `let value body`: `body` applied to `value`, computed first unless `body` never reads it.
    fn apply_let<'a>(&mut self, value: Val<'a>, body: Val<'a>) -> R<Val<'a>> {
        // A value the body never reads is not computed (no temporary, no unused C
        // variable).
        let unused = matches!(&body.kind, ValKind::Fun(f) if matches!(&**f,
            Func::Closure { body, .. } if !crate::core::debruijn::free_vars(body).contains(&0)));
        let value = if unused { value } else { self.force(value)? };
        // A scalar that calls a math function is computed once, into a local: gcc does not
        // move a call that may set `errno` (`sqrtf` of a negative number) out of the loops that
        // read it.
        let value = match &value.kind {
            ValKind::Scalar(e) if !unused && e.calls_math() => {
                let ty = self.ctype(&value.ty)?;
                let name = self.fresh("x");
                self.emit(Stmt::Decl {
                    ty,
                    name: name.clone(),
                    init: Some(e.clone()),
                });
                Val {
                    ty: value.ty.clone(),
                    kind: ValKind::Scalar(CExpr::Var(name)),
                }
            }
            _ => value,
        };
        self.apply(body, value)
    }

    /// An arithmetic operation or a comparison of two scalars (or vectors): a C expression.
    fn apply_binary<'a>(
        &mut self,
        prim: Primitive,
        a: Val<'a>,
        b: Val<'a>,
        ty: Type,
    ) -> R<Val<'a>> {
        use Primitive::*;
        let op = match prim {
            Add => BinOp::Add,
            Sub => BinOp::Sub,
            Mul => BinOp::Mul,
            Div => BinOp::Div,
            Lt => BinOp::Lt,
            Gt => BinOp::Gt,
            _ => BinOp::Eq,
        };
        let a = self.scalar(a)?;
        let b = self.scalar(b)?;
        Ok(scalar_val(crate::c_fold::binary(op, a, b), ty))
    }

    /// A math function of its operand (`a`) and, for `max` and `min`, of `rest`'s one: a call
    /// at the C type of the result ([`crate::c_math`]).
    fn apply_math<'a>(
        &mut self,
        prim: Primitive,
        a: Val<'a>,
        rest: Vec<Val<'a>>,
        ty: Type,
    ) -> R<Val<'a>> {
        let Some(op) = MathOp::of_primitive(prim) else {
            return err(format!(
                "internal: `{}` is not a math function",
                prim.name()
            ));
        };
        let ct = self.ctype(&ty)?;
        let mut operands = vec![Rc::new(self.scalar(a)?)];
        for v in rest {
            operands.push(Rc::new(self.scalar(v)?));
        }
        if operands.len() != op.arity() {
            return err(format!(
                "internal: `{}` with {} operands",
                prim.name(),
                operands.len()
            ));
        }
        Ok(scalar_val(CExpr::Math(op, ct, operands), ty))
    }

    /// `select c a b`: the C conditional expression.
    fn apply_select<'a>(&mut self, c: Val<'a>, a: Val<'a>, b: Val<'a>, ty: Type) -> R<Val<'a>> {
        let c = self.scalar(c)?;
        let a = self.scalar(a)?;
        let b = self.scalar(b)?;
        Ok(scalar_val(
            CExpr::Cond(Rc::new(c), Rc::new(a), Rc::new(b)),
            ty,
        ))
    }
}

/// `fst p` or `snd p` of a pair made by the program (not computed: those are refused).
fn project(prim: Primitive, p: Val<'_>) -> R<Val<'_>> {
    match &p.kind {
        ValKind::Pair(x, y) => Ok(if prim == Primitive::Fst {
            (**x).clone()
        } else {
            (**y).clone()
        }),
        ValKind::Deferred(_) => err(format!(
            "`{}` of a computed pair is not supported: compute the components separately",
            prim.name()
        )),
        _ => err(format!("internal: `{}` of a non-pair", prim.name())),
    }
}

impl Translator {
    /// The vector of type `vt` with `s` in every lane: `(f32x8){s, s, …}`, which C compilers
    /// turn into one broadcast instruction; `s` is named first unless it is a variable or a
    /// constant, so that it is computed (or loaded) once.
    pub(super) fn broadcast(&mut self, vt: CType, s: CExpr) -> CExpr {
        let s = if s.is_simple() {
            s
        } else {
            let name = self.fresh("s");
            self.emit(Stmt::Decl {
                ty: CType {
                    scalar: vt.scalar,
                    lanes: 1,
                },
                name: name.clone(),
                init: Some(s),
            });
            CExpr::Var(name)
        };
        CExpr::Lanes(vt, vec![s; vt.lanes as usize])
    }

    /// When `f` only rearranges its argument (split, join, transpose, asScalar, asVector,
    /// possibly under `map`s), the layouts it applies, outermost first, each with the number of
    /// `map`s it sits under; `None` when it computes anything. Found by applying `f` to a
    /// placeholder that any computation would have to read (which fails).
    pub(super) fn layout_function<'a>(
        &mut self,
        f: &Val<'a>,
        xs_ty: &Type,
    ) -> R<Option<Vec<(Layout, usize)>>> {
        let (TypeNode::Array(_, elem), ValKind::Fun(_)) = (xs_ty.get(), &f.kind) else {
            return Ok(None);
        };
        let slot = Val {
            ty: elem.clone(),
            kind: ValKind::Deferred(Rc::new(Deferred::Slot)),
        };
        let temps = self.heap_temps.len();
        self.push_block();
        let applied = self.apply(f.clone(), slot);
        let emitted = self.pop_block();
        self.heap_temps.truncate(temps);
        let Ok(mut v) = applied else { return Ok(None) };
        if !emitted.is_empty() {
            return Ok(None);
        }
        let mut chain = Vec::new();
        loop {
            let ValKind::Deferred(d) = &v.kind else {
                return Ok(None);
            };
            match &**d {
                Deferred::Slot => return Ok(Some(chain)),
                Deferred::Layout {
                    layout,
                    depth,
                    inner,
                } => {
                    chain.push((layout.clone(), *depth));
                    let next = inner.clone();
                    v = next;
                }
                _ => return Ok(None),
            }
        }
    }
}

pub(super) fn layout_view<'a>(layout: Layout, inner: Val<'a>) -> View<'a> {
    match layout {
        Layout::Join(m) => View::Join { inner, m },
        Layout::Split(k) => View::Split { inner, k },
        Layout::Transpose => View::Transpose { inner },
        Layout::AsScalar(w) => View::AsScalar { inner, w },
        Layout::AsVector(w) => View::AsVector { inner, w },
    }
}
