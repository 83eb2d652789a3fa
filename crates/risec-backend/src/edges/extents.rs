//! Where a copy of the caller's arrays holds only zeros: the real extent of each dimension of
//! a view built from them by layout alone.
//!
//! The edges kernel reads the caller's arrays as zero past their real sizes. A copy of such a
//! view (a packed panel of B: `map transpose (split 32 (transpose b))`) is then zero along a
//! dimension past that dimension's real length, when the dimension is one of the array's own,
//! moved but not split. [`real_extents`] follows the layout primitives to find those lengths;
//! the kernel then makes the copy an [`EdgeArray`](crate::view::EdgeArray) too, so
//! that its padding is never written (the copy loops stop at the real sizes) and never read (a
//! reduction along it stops there as well, see [`super::trim`]).

use crate::ir::primitive::Primitive;
use crate::ir::types::TypeNode;
use crate::ix::Ix;
use crate::view::{Deferred, Func, Val, ValKind, View};

/// For each dimension of the array `v` (outermost first), the real length past which its
/// elements are zero, where known (`None`: every element may be real); `None` for a value that
/// is not an arrangement of the caller's arrays.
pub fn real_extents(v: &Val) -> Option<Vec<Option<Ix>>> {
    let view = match &v.kind {
        ValKind::Array(view) => view,
        // A loop that only rearranges each element (`mapPar transpose`), or a copy.
        ValKind::Deferred(d) => {
            return match &**d {
                Deferred::Map { f, xs, .. } if is_transpose(f) => transposed_rows(xs),
                Deferred::ToMem(x) => real_extents(x),
                _ => None,
            }
        }
        _ => return None,
    };
    match &**view {
        View::Edge { array, path } => Some(
            (path.len()..array.real.len())
                .map(|d| array.rounded[d].then(|| array.real[d].clone()))
                .collect(),
        ),
        View::Transpose { inner } => {
            let mut e = real_extents(inner)?;
            if e.len() < 2 {
                return None;
            }
            e.swap(0, 1);
            Some(e)
        }
        View::Split { inner, .. } => {
            // Split rows mix real and padding elements in one block: neither new dimension
            // has a real length of its own.
            let mut e = real_extents(inner)?;
            let first = e.first_mut()?;
            *first = None;
            e.insert(0, None);
            Some(e)
        }
        View::Join { inner, m } => {
            let e = real_extents(inner)?;
            let (outer, rows) = (e.first()?.clone(), e.get(1)?.clone());
            let joined = match (outer, rows) {
                (Some(r), None) => Some(r.mul(m)),
                _ => None,
            };
            Some(
                std::iter::once(joined)
                    .chain(e[2..].iter().cloned())
                    .collect(),
            )
        }
        View::Map { f, xs } if is_transpose(f) => transposed_rows(xs),
        _ => None,
    }
}

/// The extents of `map transpose xs`.
fn transposed_rows(xs: &Val) -> Option<Vec<Option<Ix>>> {
    let mut e = real_extents(xs)?;
    if e.len() < 3 {
        return None;
    }
    e.swap(1, 2);
    Some(e)
}

/// Whether `f` is `transpose` itself (as `map transpose` passes it).
fn is_transpose(f: &Val) -> bool {
    matches!(&f.kind, ValKind::Fun(func) if matches!(&**func,
        Func::Prim { prim: Primitive::Transpose, args, .. } if args.is_empty()))
        && matches!(f.ty.get(), TypeNode::Fun(..))
}
