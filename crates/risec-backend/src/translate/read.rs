//! Reading element `i` of a view.

use super::*;

impl Translator {
    // ---- reading ---------------------------------------------------------------------------

    /// Element `i` of an array value. Views that only rearrange indices are read here; reading
    /// memory, the caller's arrays at rounded-up sizes, written acceptors and vectors made of
    /// lanes have a function each below.
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
            } => self.read_memory(buf, offset, *aligned_base, i, elem_ty),
            View::Edge { array, path } => self.read_edge(array, path, i, elem_ty),
            View::Written(acc) => self.read_written(acc, i, elem_ty),
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
            View::AsVector { inner, w } => self.read_as_vector(inner, *w, i, elem_ty),
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
                let x = self.elem(inner, &i.sub(l))?;
                self.choose(elem_ty, i, l, n, x, value.clone())
            }
            View::Choose {
                i: at,
                l,
                n,
                inside,
                outside,
            } => {
                let x = self.elem(inside, i)?;
                let y = self.elem(outside, i)?;
                self.choose(elem_ty, at, l, n, x, y)
            }
        }
    }

    /// Element `i` (of type `elem_ty`) of the array in `buf` from `offset` on: the view of a
    /// row, or a load (aligned when the buffer's base is and the offset keeps it).
    fn read_memory<'a>(
        &mut self,
        buf: &str,
        offset: &Ix,
        aligned_base: bool,
        i: &Ix,
        elem_ty: Type,
    ) -> R<Val<'a>> {
        let off = offset.add(&i.mul(&self.scalars(&elem_ty)?));
        match elem_ty.get() {
            TypeNode::Array(..) => Ok(Val {
                ty: elem_ty.clone(),
                kind: ValKind::Array(Rc::new(View::Mem {
                    buf: buf.to_string(),
                    offset: off,
                    aligned_base,
                })),
            }),
            TypeNode::Scalar(_) | TypeNode::Vector(..) => {
                let ct = self.ctype(&elem_ty)?;
                let aligned = aligned_base && aligned_ok(ct, &off);
                Ok(Val {
                    ty: elem_ty,
                    kind: ValKind::Scalar(CExpr::Load {
                        buf: buf.to_string(),
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

    /// Element `i` (of type `elem_ty`) of the caller's array `array` at rounded-up sizes, at
    /// `path` inside it: the view of a row, or a load that gives zero past the real sizes.
    fn read_edge<'a>(
        &mut self,
        array: &Rc<crate::view::EdgeArray>,
        path: &[Ix],
        i: &Ix,
        elem_ty: Type,
    ) -> R<Val<'a>> {
        let mut path = path.to_vec();
        path.push(i.clone());
        if matches!(elem_ty.get(), TypeNode::Array(..)) {
            return Ok(Val {
                ty: elem_ty,
                kind: ValKind::Array(Rc::new(View::Edge {
                    array: array.clone(),
                    path,
                })),
            });
        }
        let ct = self.ctype(&elem_ty)?;
        let Some((idx, guard)) = array.access(&path, 1) else {
            return err("internal: an element of the caller's array at a partial path");
        };
        let aligned = array.aligned_base && aligned_ok(ct, &idx);
        Ok(Val {
            ty: elem_ty,
            kind: ValKind::Scalar(CExpr::edge_load(&array.buf, idx, ct, guard, aligned)),
        })
    }

    /// Element `i` (of type `elem_ty`) of an array already written through acceptor `acc`:
    /// the view of a row, or read back from where it was written.
    fn read_written<'a>(&mut self, acc: &Acc, i: &Ix, elem_ty: Type) -> R<Val<'a>> {
        let at = acc.elem(i.clone());
        if matches!(elem_ty.get(), TypeNode::Array(..)) {
            return Ok(Val {
                ty: elem_ty,
                kind: ValKind::Array(Rc::new(View::Written(at))),
            });
        }
        let ct = self.ctype(&elem_ty)?;
        let value = match resolve(&at.node, &at.path, self)? {
            Some(Resolved::Mem {
                buf,
                idx,
                aligned_base,
            }) => CExpr::Load {
                aligned: aligned_base && aligned_ok(ct, &idx),
                buf,
                idx,
                ty: ct,
            },
            Some(Resolved::Edge {
                buf,
                idx,
                guard,
                aligned_base,
            }) => {
                let aligned = aligned_base && aligned_ok(ct, &idx);
                CExpr::edge_load(&buf, idx, ct, guard, aligned)
            }
            // A vector written through a layout that addresses lanes one by one
            // (`asScalar`): read it back lane by lane.
            None if ct.lanes > 1 => self.written_lanes(&at, ct)?,
            _ => return err("internal: reading back an element that is not in memory"),
        };
        Ok(Val {
            ty: elem_ty,
            kind: ValKind::Scalar(value),
        })
    }

    /// Vector `i` (of type `elem_ty`, `w` lanes) of `asVector w inner`: one vector load when
    /// the lanes are consecutive in memory, a broadcast when they are one element, the
    /// operations on vectors when every lane computes alike, else the lanes gathered one by
    /// one (with a warning when they are loads).
    fn read_as_vector<'a>(&mut self, inner: &Val<'a>, w: u64, i: &Ix, elem_ty: Type) -> R<Val<'a>> {
        let ct = self.ctype(&elem_ty)?;
        let mut lanes = Vec::new();
        for l in 0..w {
            let x = self.elem(inner, &i.scale(w as i64).add(&Ix::constant(l as i64)))?;
            lanes.push(self.scalar(x)?);
        }
        let load = contiguous_loads(&lanes)
            .map(|(buf, idx)| {
                let aligned = root_is_temp(inner) && aligned_ok(ct, &idx);
                CExpr::Load {
                    buf,
                    idx,
                    ty: ct,
                    aligned,
                }
            })
            .or_else(|| contiguous_edge_loads(&lanes, ct));
        let value = match load {
            Some(load) => load,
            // The same element in every lane (a row of A seen along B's columns): a
            // broadcast, as `vectorFromScalar` gives.
            None if lanes.windows(2).all(|p| p[0] == p[1]) => {
                let s = lanes.swap_remove(0);
                self.broadcast(ct, s)
            }
            // The same operations in every lane on consecutive elements (`asVector`
            // of a mapped array): the operations on vectors.
            None => match self.lanewise(&lanes, ct) {
                Some(v) => v,
                None => {
                    if lanes
                        .iter()
                        .any(|l| matches!(l, CExpr::Load { .. } | CExpr::EdgeLoad { .. }))
                    {
                        self.warn(format!(
                            "`asVector {w}` of `{}` gathers each vector's {w} lanes from elements that are not consecutive in memory ({w} scalar loads per vector, often slower than no vectors): vectorise along the dimension that is contiguous, or copy the array into that layout first (`toMem`, as the packing steps of sketches/matmul do)",
                            root_name(inner)
                        ));
                    }
                    CExpr::Lanes(ct, lanes)
                }
            },
        };
        Ok(Val {
            ty: elem_ty,
            kind: ValKind::Scalar(value),
        })
    }

    /// `inside` where `l <= i < l + n`, else `outside` (values of type `ty`): a conditional
    /// expression for scalars and vectors, a [`View::Choose`] for arrays.
    fn choose<'a>(
        &mut self,
        ty: Type,
        i: &Ix,
        l: &Ix,
        n: &Ix,
        inside: Val<'a>,
        outside: Val<'a>,
    ) -> R<Val<'a>> {
        if !self.is_value_type(&ty) {
            let view = View::Choose {
                i: i.clone(),
                l: l.clone(),
                n: n.clone(),
                inside,
                outside,
            };
            return Ok(Val {
                ty,
                kind: ValKind::Array(Rc::new(view)),
            });
        }
        let x = self.scalar(inside)?;
        let pad = self.scalar(outside)?;
        let e = crate::c_fold::choose(i, l, n, x, pad);
        Ok(Val {
            ty,
            kind: ValKind::Scalar(e),
        })
    }

    /// The vector whose lanes are `lanes`, when every lane applies the same operations to the
    /// same variables and literals and to consecutive elements of the same buffers: the
    /// operations applied to vector loads and broadcasts (`(f32x16){a[i]*x[i], a[i+1]*x[i+1],
    /// …}` is `f32x16_load(&a[i]) * f32x16_load(&x[i])`); `None` otherwise.
    fn lanewise(&mut self, lanes: &[CExpr], ct: CType) -> Option<CExpr> {
        let first = lanes.first()?;
        if lanes.iter().all(|l| l == first) {
            return Some(self.broadcast(ct, first.clone()));
        }
        if let Some((buf, idx)) = contiguous_loads(lanes) {
            return Some(CExpr::Load {
                buf,
                idx,
                ty: ct,
                aligned: false,
            });
        }
        if let Some(load) = contiguous_edge_loads(lanes, ct) {
            return Some(load);
        }
        match first {
            CExpr::Bin(op, ..)
                if matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) =>
            {
                let mut lhs = Vec::with_capacity(lanes.len());
                let mut rhs = Vec::with_capacity(lanes.len());
                for l in lanes {
                    match l {
                        CExpr::Bin(o, a, b) if o == op => {
                            lhs.push((**a).clone());
                            rhs.push((**b).clone());
                        }
                        _ => return None,
                    }
                }
                let a = self.lanewise(&lhs, ct)?;
                let b = self.lanewise(&rhs, ct)?;
                Some(CExpr::Bin(*op, Rc::new(a), Rc::new(b)))
            }
            CExpr::Neg(_) => {
                let inner = lanes
                    .iter()
                    .map(|l| match l {
                        CExpr::Neg(a) => Some((**a).clone()),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()?;
                Some(CExpr::Neg(Rc::new(self.lanewise(&inner, ct)?)))
            }
            // The same math function in every lane: the function on vectors.
            CExpr::Math(op, mt, _) if mt.lanes == 1 && mt.scalar == ct.scalar => {
                let mut parts: Vec<Vec<CExpr>> = vec![Vec::with_capacity(lanes.len()); op.arity()];
                for l in lanes {
                    match l {
                        CExpr::Math(o, t, xs) if o == op && t == mt && xs.len() == parts.len() => {
                            for (part, x) in parts.iter_mut().zip(xs) {
                                part.push((**x).clone());
                            }
                        }
                        _ => return None,
                    }
                }
                let operands = parts
                    .iter()
                    .map(|p| self.lanewise(p, ct).map(Rc::new))
                    .collect::<Option<Vec<_>>>()?;
                Some(CExpr::Math(*op, ct, operands))
            }
            // `select (lt x y) a b` in every lane: the comparison on vectors chooses lane by
            // lane (`abs` written with `select`, a ReLU).
            CExpr::Cond(c, ..) => {
                let CExpr::Bin(op @ (BinOp::Lt | BinOp::Gt | BinOp::Eq), ..) = &**c else {
                    return None;
                };
                let mut parts: [Vec<CExpr>; 4] = Default::default();
                for l in lanes {
                    let CExpr::Cond(c, a, b) = l else {
                        return None;
                    };
                    let CExpr::Bin(o, x, y) = &**c else {
                        return None;
                    };
                    if o != op {
                        return None;
                    }
                    for (part, e) in parts.iter_mut().zip([x, y, a, b]) {
                        part.push((**e).clone());
                    }
                }
                let [x, y, a, b] = parts;
                let cond = CExpr::Bin(
                    *op,
                    Rc::new(self.lanewise(&x, ct)?),
                    Rc::new(self.lanewise(&y, ct)?),
                );
                let a = self.lanewise(&a, ct)?;
                let b = self.lanewise(&b, ct)?;
                Some(CExpr::VecSelect(Rc::new(cond), Rc::new(a), Rc::new(b)))
            }
            _ => None,
        }
    }

    /// The vector at acceptor `at` read back from where its lanes were written one by one: one
    /// load when the lanes are consecutive elements of one buffer, else the lanes gathered.
    fn written_lanes(&mut self, at: &Acc, ct: CType) -> R<CExpr> {
        let places = resolve_lanes(at, ct.lanes, self)?;
        if let Some((buf, idx, guard, aligned_base)) = consecutive_in_edge(&places) {
            let aligned = aligned_base && aligned_ok(ct, &idx);
            return Ok(CExpr::edge_load(&buf, idx, ct, guard, aligned));
        }
        if let Some((buf, idx, aligned_base)) = consecutive_in_memory(&places) {
            return Ok(CExpr::Load {
                aligned: aligned_base && aligned_ok(ct, &idx),
                buf,
                idx,
                ty: ct,
            });
        }
        let lane_ty = CType {
            scalar: ct.scalar,
            lanes: 1,
        };
        let lanes = places
            .into_iter()
            .map(|place| match place {
                Resolved::Mem { buf, idx, .. } => Ok(CExpr::Load {
                    buf,
                    idx,
                    ty: lane_ty,
                    aligned: false,
                }),
                Resolved::Edge {
                    buf, idx, guard, ..
                } => Ok(CExpr::edge_load(&buf, idx, lane_ty, guard, false)),
                Resolved::Var(..) => err("internal: reading back a lane that is not in memory"),
            })
            .collect::<R<Vec<_>>>()?;
        Ok(CExpr::Lanes(ct, lanes))
    }
}

/// When the lanes are checked loads of consecutive elements along the last dimension of one
/// array: the vector load of them all (checked lane by lane where it is partly in range).
fn contiguous_edge_loads(lanes: &[CExpr], ct: CType) -> Option<CExpr> {
    let CExpr::EdgeLoad {
        buf: buf0,
        idx: idx0,
        guard: guard0,
        ..
    } = lanes.first()?
    else {
        return None;
    };
    let vector_guard = lanes_guard(guard0)?;
    for (l, x) in lanes.iter().enumerate() {
        let l = l as i64;
        match x {
            CExpr::EdgeLoad {
                buf,
                idx,
                guard,
                ty,
                ..
            } if ty.lanes == 1
                && buf == buf0
                && *idx == idx0.add(&Ix::constant(l))
                && **guard == lane_of(&vector_guard, l) => {}
            _ => return None,
        }
    }
    Some(CExpr::EdgeLoad {
        buf: buf0.clone(),
        idx: idx0.clone(),
        ty: ct,
        guard: Rc::new(vector_guard),
        aligned: false,
    })
}

/// The guard of a vector whose first lane has the scalar guard `g` and whose lanes run along
/// the innermost dimension: checked lane by lane when that dimension was rounded up, else the
/// first lane's check serves them all.
pub(super) fn lanes_guard(g: &Guard) -> Option<Guard> {
    let mut v = g.clone();
    if v.dims.iter().any(|d| d.along_lanes) {
        return None;
    }
    if let Some(d) = v.dims.last_mut().filter(|d| d.innermost) {
        d.along_lanes = true;
    }
    Some(v)
}

/// The scalar guard of lane `l` of a vector guard.
pub(super) fn lane_of(g: &Guard, l: i64) -> Guard {
    let mut s = g.clone();
    for d in &mut s.dims {
        if d.along_lanes {
            d.index = d.index.add(&Ix::constant(l));
            d.along_lanes = false;
        }
    }
    s
}

/// Lane `l` of a vector expression, reading the scalar directly where possible.
pub(super) fn lane(v: CExpr, l: Ix) -> CExpr {
    match &v {
        CExpr::Load { buf, idx, ty, .. } => CExpr::Load {
            buf: buf.clone(),
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
        _ => CExpr::Lane(Rc::new(v), l),
    }
}

/// When the lanes are loads of consecutive elements of one buffer: the buffer and first index.
pub(super) fn contiguous_loads(lanes: &[CExpr]) -> Option<(String, Ix)> {
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
