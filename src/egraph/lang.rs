//! The e-node type of typed Rise: an operator, up to two children, and the node's type.
//!
//! The type is part of a node's identity (it takes part in hashing and equality), so two nodes
//! that differ only in type — `map` at two instantiations, say — land in different e-classes, and
//! every e-class has exactly one type. Pattern matching ([`egg::Language::matches`]) compares the
//! operator only: patterns are untyped and the class they match gives the types.

use crate::core::Literal;
use crate::nat::Nat;
use crate::primitive::Primitive;
use crate::types::Type;
use egg::{Id, Language};
use std::fmt;

/// The operator of a Rise e-node.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RiseOp {
    /// Expression variable (De Bruijn index); no children.
    Var(u32),
    /// Expression lambda; one child, the body.
    Lambda,
    /// Application; children function and argument.
    App,
    /// Nat lambda; one child, the body.
    NatLambda,
    /// Application to a size; one child, the function.
    NatApp(Nat),
    /// A primitive; no children.
    Prim(Primitive),
    /// A literal; no children.
    Literal(Literal),
}

impl RiseOp {
    /// How many children a node with this operator has.
    pub fn arity(&self) -> usize {
        match self {
            RiseOp::Var(_) | RiseOp::Prim(_) | RiseOp::Literal(_) => 0,
            RiseOp::Lambda | RiseOp::NatLambda | RiseOp::NatApp(_) => 1,
            RiseOp::App => 2,
        }
    }
}

/// A typed Rise e-node.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RiseNode {
    /// The operator.
    pub op: RiseOp,
    children: [Id; 2],
    /// The node's type; every node of an e-class has the class's type.
    pub ty: Type,
}

impl RiseNode {
    /// A node; `children` must have the operator's arity.
    pub fn new(op: RiseOp, children: &[Id], ty: Type) -> RiseNode {
        assert_eq!(
            children.len(),
            op.arity(),
            "wrong number of children for {op:?}"
        );
        let mut ids = [Id::from(0usize); 2];
        ids[..children.len()].copy_from_slice(children);
        RiseNode {
            op,
            children: ids,
            ty,
        }
    }

    /// A leaf node.
    pub fn leaf(op: RiseOp, ty: Type) -> RiseNode {
        RiseNode::new(op, &[], ty)
    }
}

impl Language for RiseNode {
    type Discriminant = std::mem::Discriminant<RiseOp>;

    fn discriminant(&self) -> Self::Discriminant {
        std::mem::discriminant(&self.op)
    }

    fn matches(&self, other: &Self) -> bool {
        self.op == other.op
    }

    fn children(&self) -> &[Id] {
        &self.children[..self.op.arity()]
    }

    fn children_mut(&mut self) -> &mut [Id] {
        let n = self.op.arity();
        &mut self.children[..n]
    }
}

impl fmt::Display for RiseNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.op {
            RiseOp::Var(i) => write!(f, "%{i}"),
            RiseOp::Lambda => write!(f, "lam"),
            RiseOp::App => write!(f, "app"),
            RiseOp::NatLambda => write!(f, "natLam"),
            RiseOp::NatApp(n) => write!(f, "natApp[{n}]"),
            RiseOp::Prim(p) => write!(f, "{}", p.name()),
            RiseOp::Literal(l) => write!(f, "{}", crate::core::print::literal_to_source(*l)),
        }
    }
}
