//! The e-class analysis of typed Rise: the class's type, the variables that may be free in it,
//! and its smallest term (size and best node only, never a whole term: storing terms per class
//! makes every merge look like a change and rebuilding pathological, egg issue #239).

use super::indices::{unbind, union, FreeIndices, IndexBuf};
use super::lang::{RiseNode, RiseOp, UntypedNode};
use crate::ir::types::Type;
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
    pub(crate) reduced: HashMap<ReduceKey, Id>,
}

/// A body, its smallest size, an argument and its smallest size.
pub(crate) type ReduceKey = (Id, u32, Id, u32);

/// A class, its smallest size and the new index of each of its free variables.
pub(crate) type RenameKey = (Id, u32, Box<[Option<u32>]>);

/// The e-graph of typed Rise.
pub type RiseEGraph = EGraph<RiseNode, RiseAnalysis>;

/// What the analysis knows about an e-class.
#[derive(Clone, Debug)]
pub struct ClassData {
    /// The one type of every node in the class.
    pub ty: Type,
    /// The root node of the smallest term in the class, without its type (the class's type):
    /// a whole e-node here would take 32 bytes per e-class in egg's class table, the largest
    /// table of the e-graph. See [`super::smallest_node`].
    pub best: UntypedNode,
    /// Expression indices that may be free in some term of the class (a union over its nodes:
    /// conservative for side conditions, and safe for shifting an extracted representative),
    /// and nat indices that may be free, in terms and in their types.
    pub free: FreeIndices,
    /// Size of the smallest term in the class.
    pub size: u32,
}

impl ClassData {
    /// The one type of every node in the class.
    pub fn ty(&self) -> &Type {
        &self.ty
    }

    /// Whether expression index `i` may be free.
    pub fn may_use(&self, i: u32) -> bool {
        self.free.exprs().contains(i)
    }
}

/// The nat indices free in a type.
pub fn type_free_nats(t: &Type) -> IndexBuf {
    IndexBuf::from_sorted(&crate::ir::types::free_nats(t))
}

impl Analysis<RiseNode> for RiseAnalysis {
    type Data = ClassData;

    fn make(egraph: &mut RiseEGraph, enode: &RiseNode, _id: egg::Id) -> ClassData {
        let child = |i: usize| &egraph[enode.children_ids()[i]].data;
        let own_nats = type_free_nats(&enode.ty);
        let own = own_nats.view();
        let (free, free_nats) = match &enode.op() {
            RiseOp::Var(i) => (IndexBuf::single(*i), own_nats),
            RiseOp::Prim(_) | RiseOp::Literal(_) => (IndexBuf::EMPTY, own_nats),
            RiseOp::Lambda => (
                unbind(child(0).free.exprs()),
                union(own, child(0).free.nats()),
            ),
            RiseOp::App => (
                union(child(0).free.exprs(), child(1).free.exprs()),
                union(
                    own,
                    union(child(0).free.nats(), child(1).free.nats()).view(),
                ),
            ),
            RiseOp::NatLambda => (
                child(0).free.exprs().to_buf(),
                union(own, unbind(child(0).free.nats()).view()),
            ),
            RiseOp::NatApp(n) => {
                let mut ns = Vec::new();
                crate::ir::nat::free_indices(n, 0, &mut ns);
                ns.sort_unstable();
                ns.dedup();
                let ns = IndexBuf::from_sorted(&ns);
                (
                    child(0).free.exprs().to_buf(),
                    union(own, union(ns.view(), child(0).free.nats()).view()),
                )
            }
        };
        let size = enode
            .children_ids()
            .iter()
            .fold(1u32, |acc, c| acc.saturating_add(egraph[*c].data.size));
        ClassData {
            ty: enode.ty.clone(),
            best: enode.untyped(),
            free: FreeIndices::new(free, free_nats),
            size,
        }
    }

    fn merge(&mut self, a: &mut ClassData, b: ClassData) -> DidMerge {
        debug_assert_eq!(
            a.ty(),
            b.ty(),
            "union of e-classes of different types: {} and {}",
            a.ty(),
            b.ty()
        );
        let (a_exprs, a_nats) = (a.free.exprs(), a.free.nats());
        let (b_exprs, b_nats) = (b.free.exprs(), b.free.nats());
        let exprs = union(a_exprs, b_exprs);
        let nats = union(a_nats, b_nats);
        let (exprs_len, nats_len) = (exprs.view().len(), nats.view().len());
        let a_changed = exprs_len != a_exprs.len() || nats_len != a_nats.len() || b.size < a.size;
        let b_changed = exprs_len != b_exprs.len() || nats_len != b_nats.len() || a.size < b.size;
        if exprs_len != a_exprs.len() || nats_len != a_nats.len() {
            a.free = FreeIndices::new(exprs, nats);
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
