//! Reductions: a local variable for scalars and vectors, memory for arrays, updated in place
//! when that is safe.

use super::*;

impl Translator {
    // ---- reductions ------------------------------------------------------------------------

    pub(super) fn reduce_scalar<'a>(
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
        self.loop_(kind, &hint, n, LoopOrigin::Primitive(prim), &mut |s, i| {
            let x = s.elem(&xs, &i)?;
            let y = s.apply2(f, acc_val.clone(), x)?;
            s.write(y, &target)
        })?;
        Ok(name)
    }

    /// A reduction with an array accumulator: in the destination when it is plain memory of the
    /// accumulator's type, or memory reached through layouts (a block of columns) and too large
    /// for a local block; else in a temporary copied out at the end; a small accumulator
    /// (at most `MAX_REGISTER_BYTES`) always in a local temporary, filled
    /// and emptied by unrolled copies, so that the C compiler keeps it in registers. The body updates the
    /// accumulator in place when it only reads each element where it writes it.
    pub(super) fn reduce_array<'a>(
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
        let in_registers = self.fits_in_registers(ty);
        let region = mem_region(dest, self)?;
        let plain = region
            .clone()
            .filter(|(_, _, t, _)| t == ty && !in_registers);
        // Where the accumulator lives: plain memory of the destination; else a local block (a
        // small constant size: a tile that stays in cache), copied out at the end; else memory
        // reached through layouts (a block of columns of the output), read back where it is
        // written; else a heap temporary, copied out at the end.
        let through_layouts = region.is_none()
            && !self.fits_on_stack(ty)
            && matches!(&*dest.node, AccNode::Layout { .. } | AccNode::Edge(_))
            && written_to_memory(&dest.node);
        let (buf, offset, acc_view, acc_mem, copy_out) = if through_layouts {
            let view = Val {
                ty: ty.clone(),
                kind: ValKind::Array(Rc::new(View::Written(dest.clone()))),
            };
            (acc_root_name(&dest.node), None, view, dest.clone(), false)
        } else {
            let (buf, offset, aligned_base, copy_out) = match plain {
                Some((b, o, _, a)) => (b, o, a, false),
                None => {
                    let (b, _) = self.alloc_temp(ty, "acc")?;
                    if in_registers {
                        self.emit(Stmt::Comment(format!(
                            "{}: the accumulator {b} ({ty}) is small enough to stay in registers",
                            prim.name()
                        )));
                    }
                    (b, Ix::constant(0), true, true)
                }
            };
            let view = Val {
                ty: ty.clone(),
                kind: ValKind::Array(Rc::new(View::Mem {
                    buf: buf.clone(),
                    offset: offset.clone(),
                    aligned_base,
                })),
            };
            let acc = Acc::mem(&buf, ty.clone(), offset.clone(), aligned_base);
            (buf, Some(offset), view, acc, copy_out)
        };
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
        let attempt = self.loop_(
            kind(),
            &hint,
            n.clone(),
            LoopOrigin::Primitive(prim),
            &mut |s, i| {
                let x = s.elem(&xs, &i)?;
                let y = s.apply2(f, acc_view.clone(), x)?;
                s.write(y, &acc_mem)
            },
        );
        let stmts = self.pop_block();
        attempt?;
        // The accumulator is initialised before the loop, lowered first so that a register
        // accumulator's copies use the width of its accesses in the loop.
        let lanes = if in_registers {
            access_lanes(&stmts, &buf)
        } else {
            None
        };
        let same_region = matches!(&init.kind, ValKind::Array(v) if matches!(&**v, View::Mem { buf: b, offset: o, .. } if *b == buf && Some(o) == offset.as_ref()));
        if !same_region {
            self.emit(Stmt::Comment(format!(
                "{}: initialise the accumulator {buf}",
                prim.name()
            )));
            let saved = (self.unroll_copies, self.copy_lanes);
            (self.unroll_copies, self.copy_lanes) = (in_registers, lanes);
            let written = self.write(init.clone(), &acc_mem);
            (self.unroll_copies, self.copy_lanes) = saved;
            written?;
        }
        // One iteration's statements: reading the previous iteration's result is the point.
        let iterations: Vec<&[Stmt]> = match stmts.as_slice() {
            [Stmt::For { body, .. }] => vec![body.as_slice()],
            blocks => blocks
                .iter()
                .map(|b| match b {
                    Stmt::Unrolled { body, .. } => body.as_slice(),
                    other => std::slice::from_ref(other),
                })
                .collect(),
        };
        if iterations.iter().all(|body| in_place_safe(body, &buf)) {
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
            self.loop_(
                kind(),
                &hint,
                n,
                LoopOrigin::Primitive(prim),
                &mut |s, i| {
                    let x = s.elem(&xs, &i)?;
                    let y = s.apply2(f, acc_view.clone(), x)?;
                    s.write(y, &next_acc)?;
                    s.copy(&next_view, &acc_mem)
                },
            )?;
        }
        if copy_out {
            let saved = (self.unroll_copies, self.copy_lanes);
            (self.unroll_copies, self.copy_lanes) = (in_registers, lanes);
            let copied = self.copy(&acc_view, dest);
            (self.unroll_copies, self.copy_lanes) = saved;
            copied?;
        }
        Ok(())
    }
}

/// Whether every write to an acceptor lands in a memory buffer (no local variable at its root).
fn written_to_memory(node: &AccNode) -> bool {
    match node {
        AccNode::Mem { .. } | AccNode::Edge(_) => true,
        AccNode::Var(_) => false,
        AccNode::Layout { inner, .. } => written_to_memory(inner),
    }
}

/// Whether updating the accumulator `buf` in place is safe for the body `stmts`: every read of
/// an element either sits in the store that writes it back (`acc[i] = acc[i] + x`), or comes
/// before the only writes of that element (a register accumulator loaded, updated, stored back).
/// Elements are compared by their index expressions; loop variables are unique, so equal
/// expressions name the same element in the same iteration. A read and a later write of the
/// same index inside a common loop whose variable the index does not mention would let a later
/// iteration read a new value: that is rejected.
pub(super) fn in_place_safe(stmts: &[Stmt], buf: &str) -> bool {
    let mut accesses = Vec::new();
    collect_accesses(stmts, buf, &mut Vec::new(), &mut accesses);
    accesses.iter().enumerate().all(|(at, a)| {
        let Access::Load {
            idx,
            loops,
            in_own_store,
        } = a
        else {
            return true;
        };
        if *in_own_store {
            return true;
        }
        let mut written_later = false;
        for (other_at, other) in accesses.iter().enumerate() {
            let Access::Store {
                idx: sidx,
                loops: sloops,
            } = other
            else {
                continue;
            };
            if sidx != idx {
                continue;
            }
            if other_at < at {
                return false;
            }
            let shared = loops.iter().zip(sloops).take_while(|(a, b)| a == b);
            if shared.into_iter().any(|(var, _)| !idx.mentions(var)) {
                return false;
            }
            written_later = true;
        }
        written_later
    })
}

/// The vector width of the loads of `buf` in `stmts`, when they all have one width above 1.
pub(super) fn access_lanes(stmts: &[Stmt], buf: &str) -> Option<u64> {
    let mut widths = BTreeSet::new();
    for s in stmts {
        s.for_each_expr(&mut |_, e| {
            e.for_each_load(&mut |b, _, ty| {
                if b == buf {
                    widths.insert(ty.lanes);
                }
            })
        });
    }
    match widths.into_iter().collect::<Vec<_>>()[..] {
        [w] if w > 1 => Some(w),
        _ => None,
    }
}

/// A read or a write of the accumulator, with the loops around it (outermost first).
enum Access {
    Load {
        idx: Ix,
        loops: Vec<String>,
        /// Whether the expression read is the value of a store to the same element.
        in_own_store: bool,
    },
    Store {
        idx: Ix,
        loops: Vec<String>,
    },
}

/// The accesses to `buf` in `stmts`, in program order (a statement's reads before its write).
fn collect_accesses(stmts: &[Stmt], buf: &str, loops: &mut Vec<String>, out: &mut Vec<Access>) {
    for s in stmts {
        match s {
            Stmt::For { var, body, .. } => {
                loops.push(var.clone());
                collect_accesses(body, buf, loops, out);
                loops.pop();
            }
            Stmt::Unrolled { body, .. } => collect_accesses(body, buf, loops, out),
            Stmt::IfElse {
                then, otherwise, ..
            } => {
                collect_accesses(then, buf, loops, out);
                collect_accesses(otherwise, buf, loops, out);
            }
            _ => s.for_each_expr(&mut |target, e| {
                let target = target.filter(|(tb, _)| *tb == buf);
                e.for_each_load(&mut |b, idx, _| {
                    if b == buf {
                        out.push(Access::Load {
                            idx: idx.clone(),
                            loops: loops.clone(),
                            in_own_store: matches!(target, Some((_, t)) if t == idx),
                        });
                    }
                });
                if let Some((_, idx)) = target {
                    out.push(Access::Store {
                        idx: idx.clone(),
                        loops: loops.clone(),
                    });
                }
            }),
        }
    }
}
