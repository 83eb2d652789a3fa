//! The typed core IR: De Bruijn terms in which every node carries its (hash-consed) type.
//!
//! Expression variables and size variables live in separate index spaces: an expression lambda
//! ([`ExprKind::Lambda`]) binds expression index 0 and shifts only expression indices; a nat
//! lambda ([`ExprKind::NatLambda`]) binds nat index 0, which types and nat arguments below it refer
//! to. Helper definitions of a source file are already inlined, so a [`TypedProgram`] is one
//! closed term. The [`print`](mod@print) module turns a term back into surface syntax that
//! re-elaborates to the same term; [`debruijn`] shifts and substitutes; [`normalize`] computes
//! beta-eta normal forms; [`sizes`] reads size assignments (`--size m=1024,n=512`); [`flops`]
//! counts the floating-point operations a program performs at given sizes.

pub mod debruijn;
pub mod flops;
pub mod normalize;
pub mod padding;
pub mod print;
pub mod sizes;

use crate::ir::nat::Nat;
use crate::ir::primitive::Primitive;
use crate::ir::types::{ScalarType, Type};

/// A typed core term.
///
/// Terms can be far deeper than their source is nested (a 100,000-term sum is a tree 100,000
/// levels deep), so cloning, comparing and hashing recurse through
/// [`crate::support::stack::guarded`], and dropping dismantles the tree with an explicit
/// stack: none of them overflows an ordinary thread's stack.
#[derive(Debug, Eq)]
pub struct Expr {
    /// The node.
    pub kind: ExprKind,
    /// Its type, in the nat context of the node (nat index 0 is the innermost enclosing nat lambda).
    pub ty: Type,
}

/// The nodes of the core IR.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExprKind {
    /// An expression variable: De Bruijn index into the enclosing expression lambdas.
    Var(u32),
    /// `fun x => body`; the parameter type is the domain of the node's type.
    Lambda(Box<Expr>),
    /// Function application.
    App(Box<Expr>, Box<Expr>),
    /// `fun (n : nat) => body`.
    NatLambda(Box<Expr>),
    /// Application to a size: `split 32`.
    NatApp(Box<Expr>, Nat),
    /// A primitive, instantiated at the node's type.
    Prim(Primitive),
    /// A scalar literal.
    Literal(Literal),
}

/// Scalar literals. Floats are kept as bit patterns so that terms can be hashed and compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Literal {
    /// An `f32`, as bits.
    F32(u32),
    /// An `f64`, as bits.
    F64(u64),
    /// An `i32`.
    I32(i32),
    /// An `i64`.
    I64(i64),
    /// A `bool`.
    Bool(bool),
}

impl Literal {
    /// An `f32` literal.
    pub fn f32(v: f32) -> Literal {
        Literal::F32(v.to_bits())
    }

    /// An `f64` literal.
    pub fn f64(v: f64) -> Literal {
        Literal::F64(v.to_bits())
    }

    /// The scalar type of the literal.
    pub fn scalar_type(self) -> ScalarType {
        match self {
            Literal::F32(_) => ScalarType::F32,
            Literal::F64(_) => ScalarType::F64,
            Literal::I32(_) => ScalarType::I32,
            Literal::I64(_) => ScalarType::I64,
            Literal::Bool(_) => ScalarType::Bool,
        }
    }
}

impl Expr {
    /// A node of the given kind and type.
    pub fn new(kind: ExprKind, ty: Type) -> Expr {
        Expr { kind, ty }
    }

    /// This node with each direct sub-term replaced by `f` of it (the kind, the type and the nat
    /// arguments kept; a leaf is cloned): the rebuilding step of a bottom-up rewrite.
    pub fn map_children(&self, mut f: impl FnMut(&Expr) -> Expr) -> Expr {
        let kind = match &self.kind {
            ExprKind::App(g, a) => ExprKind::App(Box::new(f(g)), Box::new(f(a))),
            ExprKind::Lambda(b) => ExprKind::Lambda(Box::new(f(b))),
            ExprKind::NatLambda(b) => ExprKind::NatLambda(Box::new(f(b))),
            ExprKind::NatApp(g, n) => ExprKind::NatApp(Box::new(f(g)), n.clone()),
            ExprKind::Var(_) | ExprKind::Prim(_) | ExprKind::Literal(_) => return self.clone(),
        };
        Expr::new(kind, self.ty.clone())
    }

    /// The number of nodes (nat arguments count as part of their application node).
    pub fn size(&self) -> usize {
        let mut count = 0;
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            count += 1;
            match &e.kind {
                ExprKind::Lambda(b) | ExprKind::NatLambda(b) | ExprKind::NatApp(b, _) => {
                    stack.push(b)
                }
                ExprKind::App(f, a) => {
                    stack.push(f);
                    stack.push(a);
                }
                ExprKind::Var(_) | ExprKind::Prim(_) | ExprKind::Literal(_) => {}
            }
        }
        count
    }

    /// The distinct literals of the term, in the order first met (the program's own
    /// constants: verification draws inputs near them).
    pub fn literals(&self) -> Vec<Literal> {
        let mut found = Vec::new();
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            match &e.kind {
                ExprKind::Lambda(b) | ExprKind::NatLambda(b) | ExprKind::NatApp(b, _) => {
                    stack.push(b)
                }
                ExprKind::App(f, a) => {
                    stack.push(a);
                    stack.push(f);
                }
                ExprKind::Literal(l) if !found.contains(l) => found.push(*l),
                ExprKind::Var(_) | ExprKind::Prim(_) | ExprKind::Literal(_) => {}
            }
        }
        found
    }

    /// The depth of the deepest node (a single node has depth 1).
    pub fn depth(&self) -> usize {
        let mut max = 0;
        let mut stack = vec![(self, 1usize)];
        while let Some((e, d)) = stack.pop() {
            max = max.max(d);
            match &e.kind {
                ExprKind::Lambda(b) | ExprKind::NatLambda(b) | ExprKind::NatApp(b, _) => {
                    stack.push((b, d + 1))
                }
                ExprKind::App(f, a) => {
                    stack.push((f, d + 1));
                    stack.push((a, d + 1));
                }
                ExprKind::Var(_) | ExprKind::Prim(_) | ExprKind::Literal(_) => {}
            }
        }
        max
    }
}

/// The result of elaborating a source file: the entry definition as one closed, typed term.
#[derive(Clone, Debug)]
pub struct TypedProgram {
    /// The entry definition's name.
    pub name: String,
    /// `fun (m : nat) … => fun (a : …) … => body`: size parameters first, then value parameters.
    pub term: Expr,
    /// The names of the size parameters, outermost first (used when printing and reporting).
    pub size_params: Vec<String>,
    /// The names of the value parameters, in order.
    pub value_params: Vec<String>,
    /// Divisibility facts the type checker relied on, as nats known to be natural numbers
    /// (`m/32` means 32 divides m), in the context inside all size parameters (nat index 0 is the
    /// last size parameter).
    pub facts: Vec<Nat>,
    /// The term this program was optimised from (the search's input), which computes the same
    /// function at every size the facts allow; `None` for a program as written. C generation
    /// analyses it (`core::padding`) to decide which sizes it may round up to the multiples the
    /// facts ask for.
    pub derived_from: Option<std::sync::Arc<Expr>>,
}

impl TypedProgram {
    /// The term's type with the size parameters still bound: `(m : nat) -> … -> t`.
    pub fn ty(&self) -> &Type {
        &self.term.ty
    }

    /// The program as Rise source (`def name {sizes} (params) : type = body`), which checks
    /// again to the same program.
    pub fn to_source(&self) -> String {
        print::program_to_source(self)
    }

    /// The first fact the program relies on that is false for these sizes (given in the order
    /// of the size parameters, outermost first), or `None` when all hold: what `risec eval` and
    /// C generation with `--size` check before they use the sizes.
    pub fn violated_fact(&self, sizes: &[u64]) -> Option<&Nat> {
        // Nat index 0 is the innermost (last) size parameter.
        let env: Vec<u64> = sizes.iter().rev().copied().collect();
        self.facts.iter().find(|fact| {
            fact.eval(&|a| match a {
                crate::ir::nat::NatAtom::Index(i) => env.get(*i as usize).copied(),
                _ => None,
            })
            .is_err()
        })
    }
}

impl Clone for Expr {
    fn clone(&self) -> Expr {
        crate::support::stack::guarded(|| Expr {
            kind: self.kind.clone(),
            ty: self.ty.clone(),
        })
    }
}

impl PartialEq for Expr {
    fn eq(&self, other: &Expr) -> bool {
        crate::support::stack::guarded(|| self.ty == other.ty && self.kind == other.kind)
    }
}

impl std::hash::Hash for Expr {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        crate::support::stack::guarded(|| {
            self.kind.hash(state);
            self.ty.hash(state);
        })
    }
}

impl Drop for Expr {
    /// Moves the children out onto an explicit stack, so that no drop recurses more than one
    /// level (the derived drop recurses once per level of the tree).
    fn drop(&mut self) {
        if !has_children(&self.kind) {
            return;
        }
        let mut pending: Vec<Box<Expr>> = Vec::new();
        take_children(&mut self.kind, &mut pending);
        while let Some(mut child) = pending.pop() {
            if has_children(&child.kind) {
                take_children(&mut child.kind, &mut pending);
            }
        }
    }
}

fn has_children(kind: &ExprKind) -> bool {
    matches!(
        kind,
        ExprKind::Lambda(_) | ExprKind::App(..) | ExprKind::NatLambda(_) | ExprKind::NatApp(..)
    )
}

/// Replaces `kind` by a leaf and pushes its children onto `out` (the boxes themselves, moved
/// out of the tree without reallocating).
#[allow(clippy::vec_box)]
fn take_children(kind: &mut ExprKind, out: &mut Vec<Box<Expr>>) {
    match std::mem::replace(kind, ExprKind::Var(0)) {
        ExprKind::App(f, a) => {
            out.push(f);
            out.push(a);
        }
        ExprKind::Lambda(b) | ExprKind::NatLambda(b) | ExprKind::NatApp(b, _) => out.push(b),
        ExprKind::Var(_) | ExprKind::Prim(_) | ExprKind::Literal(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::types;

    #[test]
    fn map_children_rebuilds_one_level_and_keeps_leaves() {
        let f32 = types::f32();
        let x = Expr::new(ExprKind::Var(0), f32.clone());
        let id = Expr::new(
            ExprKind::Lambda(Box::new(x.clone())),
            types::fun(f32.clone(), f32.clone()),
        );
        let one = Expr::new(
            ExprKind::Literal(Literal::F32(1.0f32.to_bits())),
            f32.clone(),
        );
        let app = Expr::new(
            ExprKind::App(Box::new(id.clone()), Box::new(one.clone())),
            f32.clone(),
        );
        let mut seen = 0;
        let same = app.map_children(|c| {
            seen += 1;
            c.clone()
        });
        assert_eq!((same, seen), (app.clone(), 2));
        // Only the direct children are visited: the lambda's body is left to `f`.
        let replaced = app.map_children(|c| if *c == one { x.clone() } else { c.clone() });
        assert!(matches!(&replaced.kind, ExprKind::App(g, a) if **g == id && **a == x));
        assert_eq!(one.map_children(|_| unreachable!()), one);
    }
}
