//! The e-node type of typed Rise: an operator, up to two children, and the node's type.
//!
//! The type is part of a node's identity (it takes part in hashing and equality), so two nodes
//! that differ only in type — `map` at two instantiations, say — land in different e-classes, and
//! every e-class has exactly one type. Pattern matching ([`egg::Language::matches`]) compares the
//! operator only: patterns are untyped and the class they match gives the types.

use crate::core::Literal;
use crate::ir::nat::Nat;
use crate::ir::primitive::Primitive;
use crate::ir::types::Type;
use egg::{Id, Language};
use std::cmp::Ordering;
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

/// The variant of a node's operator, without its payload (egg's discriminant of a node).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpVariant {
    /// [`RiseOp::Var`].
    Var,
    /// [`RiseOp::Lambda`].
    Lambda,
    /// [`RiseOp::App`].
    App,
    /// [`RiseOp::NatLambda`].
    NatLambda,
    /// [`RiseOp::NatApp`].
    NatApp,
    /// [`RiseOp::Prim`].
    Prim,
    /// [`RiseOp::Literal`].
    Literal,
}

/// What kind of operator a node has, in the order of [`RiseOp`]'s variants (literals in the
/// order of [`Literal`]'s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Kind {
    Var,
    Lambda,
    App,
    NatLambda,
    NatApp,
    Prim,
    F32,
    F64,
    I32,
    I64,
    Bool,
}

/// A typed Rise e-node, in 32 bytes: the type, two 32-bit slots and the operator's kind.
///
/// The slots hold the children and, after them, the operator's payload: a variable's index, a
/// nat application's size (as a `super::nat_handles` handle) or a literal's bits. The node is
/// stored three times per e-node in egg (in its class, in the hash-cons memo, and in the list
/// of added nodes) and once more per class as its best node, so its size is the e-graph's.
/// Equality, hashing and order are those of `(op, children, ty)`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct RiseNode {
    /// The node's type; every node of an e-class has the class's type.
    pub ty: Type,
    slots: [Id; 2],
    kind: Kind,
    prim: Option<Primitive>,
}

/// A [`RiseNode`] without its type, in 12 bytes: what an e-class records of its smallest
/// term's root, whose type is the class's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UntypedNode {
    slots: [Id; 2],
    kind: Kind,
    prim: Option<Primitive>,
}

impl UntypedNode {
    /// The node with type `ty`.
    pub fn with_type(&self, ty: Type) -> RiseNode {
        RiseNode {
            ty,
            slots: self.slots,
            kind: self.kind,
            prim: self.prim,
        }
    }
}

fn slot(v: u32) -> Id {
    Id::from(v as usize)
}

fn value(id: Id) -> u32 {
    usize::from(id) as u32
}

impl RiseNode {
    /// A node; `children` must have the operator's arity.
    pub fn new(op: RiseOp, children: &[Id], ty: Type) -> RiseNode {
        assert_eq!(
            children.len(),
            op.arity(),
            "wrong number of children for {op:?}"
        );
        let mut slots = [Id::from(0usize); 2];
        slots[..children.len()].copy_from_slice(children);
        let bits = |lo: u64| [slot(lo as u32), slot((lo >> 32) as u32)];
        let (kind, prim) = match op {
            RiseOp::Var(i) => {
                slots[0] = slot(i);
                (Kind::Var, None)
            }
            RiseOp::Lambda => (Kind::Lambda, None),
            RiseOp::App => (Kind::App, None),
            RiseOp::NatLambda => (Kind::NatLambda, None),
            RiseOp::NatApp(n) => {
                slots[1] = slot(super::nat_handles::handle(&n));
                (Kind::NatApp, None)
            }
            RiseOp::Prim(p) => (Kind::Prim, Some(p)),
            RiseOp::Literal(l) => {
                let (kind, payload) = match l {
                    Literal::F32(b) => (Kind::F32, b as u64),
                    Literal::F64(b) => (Kind::F64, b),
                    Literal::I32(i) => (Kind::I32, i as u32 as u64),
                    Literal::I64(i) => (Kind::I64, i as u64),
                    Literal::Bool(b) => (Kind::Bool, b as u64),
                };
                slots = bits(payload);
                (kind, None)
            }
        };
        RiseNode {
            ty,
            slots,
            kind,
            prim,
        }
    }

    /// The node without its type.
    pub fn untyped(&self) -> UntypedNode {
        UntypedNode {
            slots: self.slots,
            kind: self.kind,
            prim: self.prim,
        }
    }

    /// A leaf node.
    pub fn leaf(op: RiseOp, ty: Type) -> RiseNode {
        RiseNode::new(op, &[], ty)
    }

    /// The operator.
    pub fn op(&self) -> RiseOp {
        let bits = || value(self.slots[0]) as u64 | (value(self.slots[1]) as u64) << 32;
        match self.kind {
            Kind::Var => RiseOp::Var(value(self.slots[0])),
            Kind::Lambda => RiseOp::Lambda,
            Kind::App => RiseOp::App,
            Kind::NatLambda => RiseOp::NatLambda,
            Kind::NatApp => RiseOp::NatApp(super::nat_handles::nat(value(self.slots[1]))),
            Kind::Prim => RiseOp::Prim(self.prim.expect("a primitive node has one")),
            Kind::F32 => RiseOp::Literal(Literal::F32(bits() as u32)),
            Kind::F64 => RiseOp::Literal(Literal::F64(bits())),
            Kind::I32 => RiseOp::Literal(Literal::I32(bits() as u32 as i32)),
            Kind::I64 => RiseOp::Literal(Literal::I64(bits() as i64)),
            Kind::Bool => RiseOp::Literal(Literal::Bool(bits() != 0)),
        }
    }

    /// The operator's variant (cheaper than [`RiseNode::op`], which looks up a nat
    /// application's size).
    pub fn variant(&self) -> OpVariant {
        match self.kind {
            Kind::Var => OpVariant::Var,
            Kind::Lambda => OpVariant::Lambda,
            Kind::App => OpVariant::App,
            Kind::NatLambda => OpVariant::NatLambda,
            Kind::NatApp => OpVariant::NatApp,
            Kind::Prim => OpVariant::Prim,
            Kind::F32 | Kind::F64 | Kind::I32 | Kind::I64 | Kind::Bool => OpVariant::Literal,
        }
    }

    fn arity(&self) -> usize {
        match self.kind {
            Kind::Lambda | Kind::NatLambda | Kind::NatApp => 1,
            Kind::App => 2,
            _ => 0,
        }
    }

    /// The slots that hold the operator's payload rather than children.
    fn payload(&self) -> &[Id] {
        &self.slots[self.arity()..]
    }

    /// Compares the operators of two nodes of the same kind, as [`RiseOp`]'s order does.
    fn cmp_payload(&self, other: &RiseNode) -> Ordering {
        match self.kind {
            Kind::NatApp if self.slots[1] != other.slots[1] => self.op().cmp(&other.op()),
            Kind::Var | Kind::F32 | Kind::F64 | Kind::I32 | Kind::I64 | Kind::Bool => {
                self.op().cmp(&other.op())
            }
            _ => self.prim.cmp(&other.prim),
        }
    }
}

impl PartialOrd for RiseNode {
    fn partial_cmp(&self, other: &RiseNode) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for RiseNode {
    fn cmp(&self, other: &RiseNode) -> Ordering {
        self.kind
            .cmp(&other.kind)
            .then_with(|| self.cmp_payload(other))
            .then_with(|| self.slots[..self.arity()].cmp(&other.slots[..other.arity()]))
            .then_with(|| self.ty.cmp(&other.ty))
    }
}

impl fmt::Debug for RiseNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RiseNode")
            .field("op", &self.op())
            .field("children", &self.children_ids())
            .field("ty", &self.ty)
            .finish()
    }
}

impl Language for RiseNode {
    type Discriminant = OpVariant;

    fn discriminant(&self) -> OpVariant {
        self.variant()
    }

    fn matches(&self, other: &Self) -> bool {
        self.kind == other.kind && self.prim == other.prim && self.payload() == other.payload()
    }

    fn children(&self) -> &[Id] {
        &self.slots[..self.arity()]
    }

    fn children_mut(&mut self) -> &mut [Id] {
        let n = self.arity();
        &mut self.slots[..n]
    }
}

impl fmt::Display for RiseNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.op() {
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
