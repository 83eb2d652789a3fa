//! Typed Rise in an e-graph (egg 0.11).
//!
//! Every e-class has exactly one type ([`ClassData::ty`]); types are part of node identity
//! ([`RiseNode`]). Terms go in with [`add_expr`] and the smallest term of a class comes out with
//! [`extract_smallest`], which is also the extraction step of extraction-based substitution and
//! shifting ([`add_renamed`], [`add_beta`], [`add_nat_beta`]): no substitution node ever enters
//! the e-graph.

mod analysis;
pub mod enumerate;
mod footprint;
mod indices;
mod lang;
mod nat_handles;

pub use analysis::{type_free_nats, RiseAnalysis};
pub use analysis::{ClassData, RiseEGraph};
pub use footprint::footprint;
pub use footprint::imminent_growth;
pub use indices::{FreeIndices, IndexBuf, Indices};
pub use lang::{OpVariant, RiseNode, RiseOp};

use crate::core::{debruijn, Expr, ExprKind};
use crate::ir::nat::Nat;
use egg::Id;

/// The e-node of the root of `e`, with its children turned into ids by `child`.
fn root_node(e: &Expr, child: &mut dyn FnMut(&Expr) -> Id) -> RiseNode {
    let (op, children): (RiseOp, Vec<Id>) = match &e.kind {
        ExprKind::Var(i) => (RiseOp::Var(*i), vec![]),
        ExprKind::Lambda(b) => (RiseOp::Lambda, vec![child(b)]),
        ExprKind::App(f, a) => {
            let f = child(f);
            (RiseOp::App, vec![f, child(a)])
        }
        ExprKind::NatLambda(b) => (RiseOp::NatLambda, vec![child(b)]),
        ExprKind::NatApp(f, n) => (RiseOp::NatApp(n.clone()), vec![child(f)]),
        ExprKind::Prim(p) => (RiseOp::Prim(*p), vec![]),
        ExprKind::Literal(l) => (RiseOp::Literal(*l), vec![]),
    };
    RiseNode::new(op, &children, e.ty.clone())
}

/// Adds a core term, returning its e-class.
pub fn add_expr(egraph: &mut RiseEGraph, e: &Expr) -> Id {
    crate::support::stack::guarded(|| {
        let node = root_node(e, &mut |c| add_expr(egraph, c));
        egraph.add(node)
    })
}

/// The term as an egg expression (for look-ups with [`egg::EGraph::lookup_expr`]).
pub fn to_recexpr(e: &Expr) -> egg::RecExpr<RiseNode> {
    fn go(e: &Expr, rec: &mut egg::RecExpr<RiseNode>) -> Id {
        crate::support::stack::guarded(|| {
            let node = root_node(e, &mut |c| go(c, rec));
            rec.add(node)
        })
    }
    let mut rec = egg::RecExpr::default();
    go(e, &mut rec);
    rec
}

/// The class that represents `e`, if the e-graph contains it (without adding anything).
pub fn lookup(egraph: &RiseEGraph, e: &Expr) -> Option<Id> {
    egraph.lookup_expr(&to_recexpr(e))
}

/// The smallest term of a class (following each class's [`smallest_node`]).
pub fn extract_smallest(egraph: &RiseEGraph, id: Id) -> Expr {
    node_to_expr(&smallest_node(egraph, id), &mut |c| {
        extract_smallest(egraph, c)
    })
}

/// The root node of the smallest term of a class (the one its data records).
pub fn smallest_node(egraph: &RiseEGraph, id: Id) -> RiseNode {
    let data = &egraph[id].data;
    data.best.with_type(data.ty.clone())
}

/// Builds a core node from an e-node whose children are turned into terms by `child`.
pub fn node_to_expr(node: &RiseNode, child: &mut dyn FnMut(Id) -> Expr) -> Expr {
    let ids = node.children_ids();
    let kind = match &node.op() {
        RiseOp::Var(i) => ExprKind::Var(*i),
        RiseOp::Lambda => ExprKind::Lambda(Box::new(child(ids[0]))),
        RiseOp::App => ExprKind::App(Box::new(child(ids[0])), Box::new(child(ids[1]))),
        RiseOp::NatLambda => ExprKind::NatLambda(Box::new(child(ids[0]))),
        RiseOp::NatApp(n) => ExprKind::NatApp(Box::new(child(ids[0])), n.clone()),
        RiseOp::Prim(p) => ExprKind::Prim(*p),
        RiseOp::Literal(l) => ExprKind::Literal(*l),
    };
    Expr::new(kind, node.ty.clone())
}

/// Adds class `id` with its free expression variables renamed by `map` (extraction-based
/// shifting). When `map` is the identity on every variable that may be free, the class itself is
/// returned and nothing is extracted. `None` when `map` rejects a variable of the extracted term.
pub fn add_renamed(
    egraph: &mut RiseEGraph,
    id: Id,
    map: &dyn Fn(u32) -> Option<u32>,
) -> Option<Id> {
    let id = egraph.find(id);
    let data = &egraph[id].data;
    let mapped: Box<[Option<u32>]> = data.free.exprs().iter().map(map).collect();
    if data
        .free
        .exprs()
        .iter()
        .zip(&mapped)
        .all(|(i, m)| *m == Some(i))
    {
        return Some(id);
    }
    // The smallest size identifies the term extraction would return: it only changes when a
    // smaller term joins the class.
    let key = (id, data.size, mapped);
    if let Some(&done) = egraph.analysis.renamed.get(&key) {
        return Some(egraph.find(done));
    }
    let term = extract_smallest(egraph, id);
    let renamed = debruijn::rename_vars(&term, map)?;
    let new = add_expr(egraph, &renamed);
    egraph.analysis.renamed.insert(key, new);
    Some(new)
}

/// Extraction-based beta reduction of `(fun => body) arg`: adds `body[0 := arg]`.
pub fn add_beta(egraph: &mut RiseEGraph, body: Id, arg: Id) -> Id {
    if !egraph[body].data.may_use(0) {
        // Nothing to substitute: only lower the other free variables.
        return add_renamed(egraph, body, &|i| i.checked_sub(1)).expect("index 0 is not free");
    }
    let (body, arg) = (egraph.find(body), egraph.find(arg));
    let key = (body, egraph[body].data.size, arg, egraph[arg].data.size);
    if let Some(&done) = egraph.analysis.reduced.get(&key) {
        return egraph.find(done);
    }
    let b = extract_smallest(egraph, body);
    let a = extract_smallest(egraph, arg);
    let new = add_expr(egraph, &debruijn::subst_var(&b, &a));
    egraph.analysis.reduced.insert(key, new);
    new
}

/// Extraction-based nat beta reduction of `(fun (n : nat) => body) value`.
pub fn add_nat_beta(egraph: &mut RiseEGraph, body: Id, value: &Nat) -> Id {
    let b = extract_smallest(egraph, body);
    add_expr(egraph, &debruijn::subst_nat(&b, value))
}

/// A class holding a node of another type: the typed e-graph invariant is broken.
#[derive(Clone, Debug, thiserror::Error)]
#[error("class {class} of type {class_type} holds node {node} of type {}", node.ty)]
pub struct TypeInvariantError {
    /// The class.
    pub class: Id,
    /// Its type.
    pub class_type: crate::ir::types::Type,
    /// The node of another type.
    pub node: RiseNode,
}

/// Checks the typed e-graph invariant: every node of a class has the class's type. Returns the
/// first offending class.
pub fn check_types(egraph: &RiseEGraph) -> Result<(), TypeInvariantError> {
    for class in egraph.classes() {
        for node in &class.nodes {
            if node.ty != *class.data.ty() {
                return Err(TypeInvariantError {
                    class: class.id,
                    class_type: class.data.ty().clone(),
                    node: node.clone(),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
