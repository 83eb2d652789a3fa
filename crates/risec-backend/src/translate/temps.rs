//! Where a value's temporaries live: registers, the stack, a heap buffer allocated once per
//! call (one slice per thread inside a parallel loop), or, in the edges kernel, an edge array.
//! Also the warnings about slow code the translation records.

use super::*;

impl Translator {
    /// In the edges kernel, the temporary `buf` for the copy `d` (of type `ty`) as an edge
    /// array, when the copy is an arrangement of the caller's arrays that is zero past a real
    /// length along some dimension ([`crate::edges::extents`]).
    pub(super) fn edge_temporary(
        &self,
        buf: &str,
        d: &Deferred<'_>,
        ty: &Type,
    ) -> R<Option<Rc<crate::view::EdgeArray>>> {
        let Deferred::ToMem(x) = d else {
            return Ok(None);
        };
        if !self.edge_temporaries {
            return Ok(None);
        }
        let Some(extents) = crate::edges::extents::real_extents(x) else {
            return Ok(None);
        };
        let mut strides = Vec::new();
        let mut t = ty;
        while let TypeNode::Array(n, e) = t.get() {
            strides.push(self.nat(n)?);
            t = e;
        }
        if !matches!(t.get(), TypeNode::Scalar(_))
            || extents.len() != strides.len()
            || extents.iter().all(Option::is_none)
        {
            return Ok(None);
        }
        Ok(Some(Rc::new(crate::view::EdgeArray {
            buf: buf.to_string(),
            real: extents
                .iter()
                .zip(&strides)
                .map(|(e, s)| e.clone().unwrap_or_else(|| s.clone()))
                .collect(),
            rounded: extents.iter().map(Option::is_some).collect(),
            strides,
            aligned_base: true,
        })))
    }

    /// Whether an accumulator of type `ty` is small enough to be kept in registers.
    pub(super) fn fits_in_registers(&self, ty: &Type) -> bool {
        self.constant_bytes(ty)
            .is_some_and(|b| b <= MAX_REGISTER_BYTES)
    }

    /// Whether a temporary of type `ty` is a local array (`alloc_temp` puts it on the stack).
    pub(super) fn fits_on_stack(&self, ty: &Type) -> bool {
        self.constant_bytes(ty).is_some_and(|b| b <= MAX_STACK_TEMP)
    }

    /// The size in bytes of a value of type `ty`, when it is a constant.
    pub(super) fn constant_bytes(&self, ty: &Type) -> Option<i64> {
        let n = self.scalars(ty).ok()?.as_const()?;
        Some(n * scalar_bytes(Translator::base_scalar(ty).ok()?))
    }

    pub(super) fn is_value_type(&self, ty: &Type) -> bool {
        matches!(ty.get(), TypeNode::Scalar(_) | TypeNode::Vector(..))
    }

    /// Records a warning (once).
    pub(super) fn warn(&mut self, message: String) {
        if !self.warnings.contains(&message) {
            self.warnings.push(message);
        }
    }

    /// Allocates a temporary for a value of type `ty`: a local array when its size is a small
    /// constant, else a heap buffer allocated once per call (inside `mapPar`, one slice per
    /// thread).
    pub(super) fn alloc_temp(&mut self, ty: &Type, hint: &str) -> R<(String, bool)> {
        let len = self.scalars(ty)?;
        let scalar = Translator::base_scalar(ty)?;
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
        if self.loop_depth > 0 && self.par_depth > 0 {
            // Private to the thread: its slice of a buffer holding one per thread.
            let all = self.fresh(&format!("{name}_threads"));
            self.heap_temps.push(HeapTemp {
                name: all.clone(),
                scalar,
                len: len.clone(),
                per_thread: true,
            });
            self.emit(Stmt::ThreadSlice {
                scalar,
                name: name.clone(),
                all,
                len,
            });
            return Ok((name, true));
        }
        self.heap_temps.push(HeapTemp {
            name: name.clone(),
            scalar,
            len,
            per_thread: false,
        });
        Ok((name, true))
    }
}
