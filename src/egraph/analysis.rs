//! The e-class analysis of typed Rise: the class's type, the variables that may be free in it,
//! and its smallest term (size and best node only, never a whole term: storing terms per class
//! makes every merge look like a change and rebuilding pathological, egg issue #239).

use super::lang::{RiseNode, RiseOp};
use crate::types::Type;
use egg::{Analysis, DidMerge, EGraph, Id};
use std::collections::HashMap;

/// The analysis. Per-class facts live in [`ClassData`]; the analysis itself keeps memo tables
/// of extraction-based operations, so that re-applying a rule to the same classes does not
/// extract, transform and re-add the same terms every iteration.
#[derive(Clone, Debug, Default)]
pub struct RiseAnalysis {
    /// `(class, its smallest size, new index of each free variable)` → renamed class.
    pub(crate) renamed: HashMap<RenameKey, Id>,
    /// `(body, its smallest size, argument, its smallest size)` → beta-reduced class.
    pub(crate) reduced: HashMap<(Id, usize, Id, usize), Id>,
}

/// A class, its smallest size and the new index of each of its free variables.
pub(crate) type RenameKey = (Id, usize, Box<[Option<u32>]>);

/// The e-graph of typed Rise.
pub type RiseEGraph = EGraph<RiseNode, RiseAnalysis>;

/// A small sorted set of De Bruijn indices, allocated at its exact size (no spare capacity, no
/// allocation when empty): one is kept per e-class and kind of index.
pub type IndexSet = Box<[u32]>;

/// What the analysis knows about an e-class.
#[derive(Clone, Debug)]
pub struct ClassData {
    /// The one type of every node in the class.
    pub ty: Type,
    /// Expression indices that may be free in some term of the class (a union over its nodes:
    /// conservative for side conditions, and safe for shifting an extracted representative).
    pub free: IndexSet,
    /// Nat indices that may be free, in terms and in their types.
    pub free_nats: IndexSet,
    /// Size of the smallest term in the class.
    pub size: usize,
    /// The root node of that smallest term.
    pub best: RiseNode,
}

impl ClassData {
    /// Whether expression index `i` may be free.
    pub fn may_use(&self, i: u32) -> bool {
        self.free.binary_search(&i).is_ok()
    }
}

fn union(a: &[u32], b: &[u32]) -> IndexSet {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
                *x
            }
            (Some(x), Some(y)) if x < y => {
                i += 1;
                *x
            }
            (Some(x), None) => {
                i += 1;
                *x
            }
            (_, Some(y)) => {
                j += 1;
                *y
            }
            (None, None) => unreachable!("loop condition"),
        };
        out.push(next);
    }
    out.into_boxed_slice()
}

/// Removes index 0 and lowers the others: the free set seen from outside a binder.
fn unbind(s: &[u32]) -> IndexSet {
    s.iter().filter(|&&i| i > 0).map(|i| i - 1).collect()
}

/// The nat indices free in a type.
pub fn type_free_nats(t: &Type) -> IndexSet {
    crate::types::free_nats(t).into_boxed_slice()
}

impl Analysis<RiseNode> for RiseAnalysis {
    type Data = ClassData;

    fn make(egraph: &mut RiseEGraph, enode: &RiseNode, _id: egg::Id) -> ClassData {
        let child = |i: usize| &egraph[enode.children_ids()[i]].data;
        let own_nats = type_free_nats(&enode.ty);
        let (free, free_nats) = match &enode.op {
            RiseOp::Var(i) => (Box::from([*i]), own_nats),
            RiseOp::Prim(_) | RiseOp::Literal(_) => (IndexSet::default(), own_nats),
            RiseOp::Lambda => (
                unbind(&child(0).free),
                union(&own_nats, &child(0).free_nats),
            ),
            RiseOp::App => (
                union(&child(0).free, &child(1).free),
                union(&own_nats, &union(&child(0).free_nats, &child(1).free_nats)),
            ),
            RiseOp::NatLambda => (
                child(0).free.clone(),
                union(&own_nats, &unbind(&child(0).free_nats)),
            ),
            RiseOp::NatApp(n) => {
                let mut ns = Vec::new();
                crate::nat::free_indices(n, 0, &mut ns);
                ns.sort_unstable();
                ns.dedup();
                (
                    child(0).free.clone(),
                    union(&own_nats, &union(&ns, &child(0).free_nats)),
                )
            }
        };
        let size = enode
            .children_ids()
            .iter()
            .fold(1usize, |acc, c| acc.saturating_add(egraph[*c].data.size));
        ClassData {
            ty: enode.ty.clone(),
            free,
            free_nats,
            size,
            best: enode.clone(),
        }
    }

    fn merge(&mut self, a: &mut ClassData, b: ClassData) -> DidMerge {
        debug_assert_eq!(
            a.ty, b.ty,
            "union of e-classes of different types: {} and {}",
            a.ty, b.ty
        );
        let free = union(&a.free, &b.free);
        let free_nats = union(&a.free_nats, &b.free_nats);
        let a_changed =
            free.len() != a.free.len() || free_nats.len() != a.free_nats.len() || b.size < a.size;
        let b_changed =
            free.len() != b.free.len() || free_nats.len() != b.free_nats.len() || a.size < b.size;
        if free.len() != a.free.len() {
            a.free = free;
        }
        if free_nats.len() != a.free_nats.len() {
            a.free_nats = free_nats;
        }
        if b.size < a.size {
            a.size = b.size;
            a.best = b.best;
        }
        DidMerge(a_changed, b_changed)
    }
}

impl RiseNode {
    /// The children as a slice of ids (same as [`egg::Language::children`]).
    pub fn children_ids(&self) -> &[egg::Id] {
        egg::Language::children(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_sets() {
        assert_eq!(&*union(&[0, 2, 5], &[1, 2, 7]), &[0, 1, 2, 5, 7]);
        assert_eq!(&*unbind(&[0, 1, 3]), &[0, 2]);
    }
}
