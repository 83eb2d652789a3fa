//! Reductions: a local variable for scalars and vectors, memory for arrays, updated in place
//! when that is safe.

use super::*;

impl Lowering {
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

/// Whether every read of `buf` in `stmts` is inside a store to `buf` at the same index.
pub(super) fn in_place_safe(stmts: &[Stmt], buf: &str) -> bool {
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
