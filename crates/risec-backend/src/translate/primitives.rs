//! The primitives: each applied to its arguments becomes a view, a deferred computation or a
//! C expression.

use super::*;

impl Translator {
    pub(super) fn apply_prim<'a>(
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
            Map | MapSeq | MapSeqUnroll | MapPar => {
                let xs = args.remove(0);
                // `map f xs` of a computed `xs` with `f` only rearranging (any kind of map: it
                // computes nothing) is written by writing `xs` through `f`'s layouts one level
                // down, without a temporary.
                if let ValKind::Deferred(_) = xs.kind {
                    if let Some(layouts) = self.layout_function(&a0, &xs.ty)? {
                        return Ok(layouts.into_iter().rev().fold(xs, |inner, (layout, depth)| {
                            deferred(
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
                if prim == Map {
                    let xs = self.force(xs)?;
                    array(View::Map { f: a0, xs }, ty)
                } else {
                    deferred(Deferred::Map { prim, f: a0, xs }, ty)
                }
            }
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
                    deferred(
                        Deferred::Layout {
                            layout,
                            depth: 0,
                            inner: a0,
                        },
                        ty,
                    )
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
                let body = args.remove(0);
                // A value the body never reads is not computed (no temporary, no unused C
                // variable).
                let unused = matches!(&body.kind, ValKind::Fun(f) if matches!(&**f,
                    Func::Closure { body, .. } if !crate::core::debruijn::free_vars(body).contains(&0)));
                let value = if unused { a0 } else { self.force(a0)? };
                self.apply(body, value)?
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
                    kind: ValKind::Scalar(CExpr::Bin(op, Rc::new(a), Rc::new(b))),
                }
            }
            Neg => Val {
                ty,
                kind: ValKind::Scalar(CExpr::Neg(Rc::new(self.scalar(a0)?))),
            },
            Select => {
                let c = self.scalar(a0)?;
                let a = self.scalar(args.remove(0))?;
                let b = self.scalar(args.remove(0))?;
                Val {
                    ty,
                    kind: ValKind::Scalar(CExpr::Cond(Rc::new(c), Rc::new(a), Rc::new(b))),
                }
            }
            ToMem => deferred(Deferred::ToMem(a0), ty),
            VectorFromScalar => {
                let vt = self.ctype(&ty)?;
                let s = self.scalar(a0)?;
                Val {
                    ty,
                    kind: ValKind::Scalar(self.broadcast(vt, s)),
                }
            }
        })
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
