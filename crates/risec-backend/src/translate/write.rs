//! Writing values into acceptors: loops, stores (vector stores where lanes are contiguous),
//! copies.

use super::read::{lane_of, lanes_guard};
use super::*;

impl Translator {
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
                    self.loop_(kind, &hint, n, LoopOrigin::Primitive(*prim), &mut |s, i| {
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
                Deferred::Layout {
                    layout,
                    depth,
                    inner,
                } => self.write(inner.clone(), &acc.through_at(layout, *depth)),
                Deferred::Slot => err("internal: the placeholder of a layout function is written"),
            },
            ValKind::Array(view) => match &**view {
                // A `map` that only rearranges (`map (asVector 8)`) is a view: copied.
                View::Map { f, xs } if self.layout_function(f, &xs.ty)?.is_some() => {
                    self.copy(&v, acc)
                }
                View::Map { .. } => err(
                    "a high-level `map` is in a write position (its result is stored): lower it to `mapSeq`, `mapPar` or `mapSeqUnroll`; `map` may only remain where it is a view that is read",
                ),
                View::Mem { .. } | View::Offset { .. } | View::Slide { .. } | View::Column { .. }
                | View::Zip(..) | View::Proj { .. } | View::Generate { .. } | View::Pad { .. } | View::Choose { .. }
                | View::Written(_) | View::Edge { .. } => {
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
                // Vectors of memory are copied as vectors (one load and store per vector).
                View::AsVector { inner, .. } if matches!(inner.kind, ValKind::Array(_)) => {
                    self.copy(&v, acc)
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
    pub(super) fn copy<'a>(&mut self, v: &Val<'a>, acc: &Acc) -> R<()> {
        let n = self.len(&v.ty)?;
        // Filling or emptying a register accumulator: rows of scalars move as vectors, so that
        // the accumulator is only ever accessed as whole vectors at constant offsets.
        if let (true, TypeNode::Array(_, elem), Some(len)) =
            (self.unroll_copies, v.ty.get(), n.as_const())
        {
            let lanes = self
                .copy_lanes
                .map(|w| w as i64)
                .into_iter()
                .chain([16, 8, 4])
                .find(|w| len % w == 0);
            if let (TypeNode::Scalar(s), Some(w)) = (elem.get(), lanes) {
                let vector_row = crate::ir::types::array(
                    crate::ir::nat::lit((len / w) as u64),
                    crate::ir::types::vector(
                        crate::ir::nat::lit(w as u64),
                        crate::ir::types::scalar(*s),
                    ),
                );
                let as_vectors = Val {
                    ty: vector_row,
                    kind: ValKind::Array(Rc::new(View::AsVector {
                        inner: v.clone(),
                        w: w as u64,
                    })),
                };
                return self.copy(&as_vectors, &acc.through(&Layout::AsScalar(w as u64)));
            }
        }
        if !self.unroll_copies && self.loop_depth == 0 && self.tiled_transposing_copy(v, acc)? {
            return Ok(());
        }
        let hint = loop_name(v);
        let kind = if self.unroll_copies {
            LoopKind::Unroll
        } else {
            LoopKind::Seq
        };
        self.loop_(kind, &hint, n, LoopOrigin::Copy, &mut |s, i| {
            let x = s.elem(v, &i)?;
            s.write(x, &acc.elem(i))
        })
    }

    /// A copy of a matrix read across its rows (a `transpose` of an input, written out), in
    /// tiles of [`TRANSPOSE_TILE`]²: row by row, each output row would read one element from
    /// each of as many input rows, a cache line apiece, and a 4096² transpose ran at 6 % of the
    /// copy bandwidth. Only for a copy that is the whole program's work (outside every loop),
    /// of a view of memory that only rearranges it; `false` when it does not apply.
    fn tiled_transposing_copy<'a>(&mut self, v: &Val<'a>, acc: &Acc) -> R<bool> {
        let TypeNode::Array(_, row) = v.ty.get() else {
            return Ok(false);
        };
        if !matches!(row.get(), TypeNode::Array(_, s) if matches!(s.get(), TypeNode::Scalar(_)))
            || !rearranges_memory(v)
        {
            return Ok(false);
        }
        let (n, m) = (self.len(&v.ty)?, self.len(row)?);
        // The distance in memory between neighbours along each dimension.
        let (i, j) = (Ix::size("rise_probe_i"), Ix::size("rise_probe_j"));
        let one = Ix::constant(1);
        let at = |s: &mut Translator, i: &Ix, j: &Ix| -> R<Option<Ix>> {
            let r = s.elem(v, i)?;
            Ok(match &s.elem(&r, j)?.kind {
                ValKind::Scalar(CExpr::Load { idx, .. }) => Some(idx.clone()),
                _ => None,
            })
        };
        let (Some(x0), Some(xi), Some(xj)) = (
            at(self, &i, &j)?,
            at(self, &i.add(&one), &j)?,
            at(self, &i, &j.add(&one))?,
        ) else {
            return Ok(false);
        };
        if xi.sub(&x0).as_const() != Some(1) || xj.sub(&x0).as_const() == Some(1) {
            return Ok(false);
        }
        let t = Ix::constant(TRANSPOSE_TILE);
        let blocks = |len: &Ix| len.add(&Ix::constant(TRANSPOSE_TILE - 1)).div(&t);
        let (bn, bm) = (blocks(&n), blocks(&m));
        let (n, m) = (n.clone(), m.clone());
        self.loop_(
            LoopKind::Seq,
            "tile_i",
            bn,
            LoopOrigin::Copy,
            &mut |s, bi| {
                let (n, m) = (n.clone(), m.clone());
                s.loop_(
                    LoopKind::Seq,
                    "tile_j",
                    bm.clone(),
                    LoopOrigin::Copy,
                    &mut |s, bj| {
                        let i0 = bi.scale(TRANSPOSE_TILE);
                        let j0 = bj.scale(TRANSPOSE_TILE);
                        let m = m.clone();
                        s.loop_(
                            LoopKind::Seq,
                            "i",
                            t.clone(),
                            LoopOrigin::Copy,
                            &mut |s, ii| {
                                let i = i0.add(&ii);
                                let row = s.elem(v, &i)?;
                                let out_row = acc.elem(i.clone());
                                s.loop_(
                                    LoopKind::Seq,
                                    "j",
                                    t.clone(),
                                    LoopOrigin::Copy,
                                    &mut |s, jj| {
                                        let j = j0.add(&jj);
                                        let x = s.elem(&row, &j)?;
                                        s.write(x, &out_row.elem(j))
                                    },
                                )?;
                                s.limit_last_loop(&m.sub(&j0));
                                Ok(())
                            },
                        )?;
                        s.limit_last_loop(&n.sub(&i0));
                        Ok(())
                    },
                )
            },
        )?;
        Ok(true)
    }

    /// Stops the loop just emitted after `left` iterations when fewer than its extent are left
    /// (the last tile of a tiled copy).
    fn limit_last_loop(&mut self, left: &Ix) {
        if let Some(Stmt::For { extent, limit, .. }) =
            self.blocks.last_mut().and_then(|b| b.last_mut())
        {
            let (e, l) = (extent.to_c(), left.to_c());
            *limit = Some(format!("({l} < {e} ? {l} : {e})"));
        }
    }

    /// Emits a loop over `0..extent` whose body `body` emits: a `for` loop, or for
    /// `LoopKind::Unroll` one block per iteration. A `LoopKind::Par` loop runs in parallel when
    /// it is not inside another parallel loop.
    pub(super) fn loop_(
        &mut self,
        kind: LoopKind,
        hint: &str,
        extent: Ix,
        origin: LoopOrigin,
        body: &mut dyn FnMut(&mut Translator, Ix) -> R<()>,
    ) -> R<()> {
        if let LoopKind::Unroll = kind {
            let Some(n) = extent.as_const() else {
                return err(format!(
                    "`{}` over {} elements: unrolling needs a constant size",
                    origin.name(),
                    extent.to_c()
                ));
            };
            let n_u64 = u64::try_from(n).unwrap_or(0);
            if n_u64 > MAX_UNROLLED - self.unrolled.min(MAX_UNROLLED) {
                let (what, advice) = match origin {
                    LoopOrigin::Primitive(p) => (
                        format!("`{}` over {n} elements", p.name()),
                        format!(
                            "use `{}` or smaller sizes",
                            p.name().trim_end_matches("Unroll")
                        ),
                    ),
                    LoopOrigin::Copy => (
                        format!("an unrolled copy of {n} elements"),
                        "use smaller tiles".to_string(),
                    ),
                };
                return err(format!(
                    "{what}: the generated C unrolls at most {MAX_UNROLLED} loop iterations in all ({} are unrolled already); {advice}",
                    self.unrolled
                ));
            }
            self.unrolled += n_u64;
            for c in 0..n {
                self.push_block();
                body(self, Ix::constant(c))?;
                let stmts = self.pop_block();
                if stmts.is_empty() {
                    continue;
                }
                self.emit(Stmt::Unrolled {
                    origin,
                    iteration: c,
                    body: stmts,
                });
            }
            return Ok(());
        }
        let var = self.fresh(hint);
        let i = Ix::loop_var(&var, &extent);
        let schedule = match kind {
            LoopKind::Par if self.par_depth == 0 => Schedule::Parallel,
            LoopKind::Par => Schedule::NestedParallel,
            _ => Schedule::Sequential,
        };
        let parallel = schedule == Schedule::Parallel;
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
        self.emit(Stmt::For {
            var,
            extent,
            origin,
            schedule,
            body: stmts,
            limit: None,
        });
        Ok(())
    }

    /// Stores a scalar or vector.
    pub(super) fn store(&mut self, acc: &Acc, e: CExpr, ty: &Type) -> R<()> {
        let ct = self.ctype(ty)?;
        let e = self.shallow(e, ct);
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
                Resolved::Edge {
                    buf,
                    idx,
                    guard,
                    aligned_base,
                } => {
                    let aligned = aligned_base && aligned_ok(ct, &idx);
                    let guard = if ct.lanes > 1 {
                        lanes_guard(&guard).ok_or_else(|| {
                            CodegenError::new("internal: a vector stored at a lane of the output")
                        })?
                    } else {
                        guard
                    };
                    self.emit(Stmt::edge_store(buf, idx, ct, guard, e, aligned));
                    return Ok(());
                }
            };
            self.emit(Stmt::Store(place, e));
            return Ok(());
        }
        // A vector stored through a layout that addresses lanes one by one.
        let places = resolve_lanes(acc, ct.lanes, self)?;
        if let Some((buf, idx, guard, aligned_base)) = consecutive_in_edge(&places) {
            let aligned = aligned_base && aligned_ok(ct, &idx);
            self.emit(Stmt::edge_store(buf, idx, ct, guard, e, aligned));
            return Ok(());
        }
        if let Some((buf, idx, aligned_base)) = consecutive_in_memory(&places) {
            self.emit(Stmt::Store(
                Place::Mem {
                    aligned: aligned_base && aligned_ok(ct, &idx),
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
            let value = CExpr::Lane(Rc::new(CExpr::Var(name.clone())), Ix::constant(l as i64));
            let place = match p {
                Resolved::Mem { buf, idx, .. } => Place::Mem {
                    buf,
                    idx,
                    ty: scalar,
                    aligned: false,
                },
                Resolved::Var(n, lane) => Place::Var(n, lane),
                Resolved::Edge {
                    buf, idx, guard, ..
                } => {
                    self.emit(Stmt::edge_store(buf, idx, scalar, guard, value, false));
                    continue;
                }
            };
            self.emit(Stmt::Store(place, value));
        }
        Ok(())
    }
}

/// The memory region an acceptor writes when it is plain memory indexed by array levels only:
/// buffer, offset, type of the region, aligned base.
pub(super) fn mem_region(acc: &Acc, low: &Translator) -> R<Option<(String, Ix, Type, bool)>> {
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

pub(super) enum Resolved {
    Mem {
        buf: String,
        idx: Ix,
        aligned_base: bool,
    },
    Var(String, Option<Ix>),
    /// An array of the edges kernel: stored only where `guard` holds.
    Edge {
        buf: String,
        idx: Ix,
        guard: Guard,
        aligned_base: bool,
    },
}

/// Where each lane of the vector at acceptor `acc` is stored, for a layout that addresses the
/// lanes one by one (`asScalar`). Shared by stores and by reads of what was stored.
pub(super) fn resolve_lanes(acc: &Acc, lanes: u64, low: &Translator) -> R<Vec<Resolved>> {
    (0..lanes)
        .map(|l| {
            let lane_acc = acc.elem(Ix::constant(l as i64));
            match resolve(&lane_acc.node, &lane_acc.path, low)? {
                Some(place) => Ok(place),
                None => err("internal: an acceptor path could not be resolved"),
            }
        })
        .collect()
}

/// When the lanes' places are consecutive elements of one buffer: the buffer, the first lane's
/// index and whether the buffer's base is aligned (one vector load or store serves them all).
pub(super) fn consecutive_in_memory(places: &[Resolved]) -> Option<(String, Ix, bool)> {
    let Some(Resolved::Mem {
        buf: buf0,
        idx: idx0,
        aligned_base,
    }) = places.first()
    else {
        return None;
    };
    let consecutive = places.iter().enumerate().all(|(l, p)| {
        matches!(p, Resolved::Mem { buf, idx, .. }
            if buf == buf0 && *idx == idx0.add(&Ix::constant(l as i64)))
    });
    consecutive.then(|| (buf0.clone(), idx0.clone(), *aligned_base))
}

/// When the lanes' places are consecutive elements along the innermost dimension of the
/// caller's output in the edges kernel: the buffer, the first lane's index and the vector's
/// guard (one vector store serves them all where the last lane is in range).
pub(super) fn consecutive_in_edge(places: &[Resolved]) -> Option<(String, Ix, Guard, bool)> {
    let Some(Resolved::Edge {
        buf: buf0,
        idx: idx0,
        guard: guard0,
        aligned_base,
    }) = places.first()
    else {
        return None;
    };
    let vector_guard = lanes_guard(guard0)?;
    let consecutive = places.iter().enumerate().all(|(l, p)| {
        matches!(p, Resolved::Edge { buf, idx, guard, .. }
            if buf == buf0
                && *idx == idx0.add(&Ix::constant(l as i64))
                && *guard == lane_of(&vector_guard, l as i64))
    });
    consecutive.then(|| (buf0.clone(), idx0.clone(), vector_guard, *aligned_base))
}

/// Where the element at `path` of an acceptor is stored; `None` when a layout needs lanes the
/// path does not give.
pub(super) fn resolve(node: &AccNode, path: &[Ix], low: &Translator) -> R<Option<Resolved>> {
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
        AccNode::Edge(array) => {
            // A path into a vector element of the array is not possible (its elements are
            // scalars); a shorter path is a whole row, which the caller addresses lane by lane.
            Ok(array.access(path, 1).map(|(idx, guard)| Resolved::Edge {
                buf: array.buf.clone(),
                idx,
                guard,
                aligned_base: array.aligned_base,
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

/// The side of the tiles of a copy that transposes ([`Translator::tiled_transposing_copy`]):
/// 32 floats are two cache lines, and a tile's 32 input rows stay in L1.
const TRANSPOSE_TILE: i64 = 32;

/// Whether `v` only rearranges memory (no computation, padding or generated values): reading
/// it twice costs nothing but the loads.
fn rearranges_memory(v: &Val<'_>) -> bool {
    match &v.kind {
        ValKind::Array(view) => match &**view {
            View::Mem { .. } => true,
            View::Transpose { inner }
            | View::Split { inner, .. }
            | View::Join { inner, .. }
            | View::Offset { inner, .. } => rearranges_memory(inner),
            _ => false,
        },
        _ => false,
    }
}
