//! Sketches: patterns that say what the optimised program should look like (§4 of the
//! sketch-guided equality saturation paper), and `.sk` files, which chain them into guide steps.
//!
//! * [`lexer`], [`parser`], [`ast`]: the `.sk` syntax (logos + LALRPOP `grammar/sketch.lalrpop`).
//! * [`resolve`]: a file with its imports → [`resolve::GuideStep`]s: definitions expanded,
//!   names resolved (primitives, sizes of the entry point, rules), user rules compiled.
//! * [`Sketch`] (here): the resolved sketch language, SketchBasic with type sketches, and
//!   [`Sketch::satisfied_by`], the definition of satisfaction on a single term.
//! * [`extract`]: satisfaction on an e-graph and sketch-constrained extraction of the cheapest
//!   satisfying term, bottom-up and memoised per (sketch node, e-class).
//! * [`cost`]: the cost models a step may name.
//! * [`guided`]: the guided search (Listing 3 of the paper): per guide step, a fresh e-graph
//!   grown until the step's sketch is satisfied, then the cheapest satisfying term extracted.
//! * [`diagnose`]: why a step found no program: where the closest partial match ([`closest`])
//!   stops, located in the `.sk` file ([`origin`]), rules that never fired, and library rules
//!   that would help ([`lookahead`], bounded).
//! * [`params`]: `param` and `require` items: the file's numbers named once, their candidates
//!   and constraints, substituted before the steps are resolved.
//! * `expand`: sketch definitions applied to their arguments (used by [`resolve`]).
//!
//! ```
//! use risec_sketch::{parser::parse_sketch, Sketch};
//! assert!(parse_sketch("contains(map (fun => ?) ?)").is_ok());
//! ```

// The stages below this crate, under the names the code uses (`crate::ir::…`).
#[allow(unused_imports)]
use risec_core::{core, diagnostics, interp, ir, support};
#[allow(unused_imports)]
use risec_eqsat as eqsat;
#[allow(unused_imports)]
use risec_frontend as frontend;

pub mod ast;
pub mod closest;
pub mod cost;
pub mod diagnose;
mod expand;
pub mod extract;
pub mod guided;
pub mod lexer;
pub mod lookahead;
pub mod origin;
pub mod params;
pub mod parser;
pub mod resolve;
mod rule_sets;
pub mod validate;

use crate::core::{Expr, ExprKind, Literal};
use crate::ir::nat::Nat;
use crate::ir::primitive::Primitive;
use crate::ir::types::{ScalarType, Type, TypeNode};
use std::fmt;

/// A resolved sketch.
#[derive(Clone, Debug, PartialEq)]
pub enum Sketch {
    /// `?`: every term.
    Any,
    /// A primitive.
    Prim(Primitive),
    /// A literal.
    Literal(Literal),
    /// `S1 S2`: an application whose function satisfies S1 and argument S2. With `S2 = ?` it also
    /// matches an application to a size (`split 32`).
    App(Box<Sketch>, Box<Sketch>),
    /// `S n`: an application to a size equal to `n` (`split 32`).
    NatApp(Box<Sketch>, Nat),
    /// `fun => S`
    Lambda(Box<Sketch>),
    /// `contains(S)`: a term with a subterm (itself included) satisfying S.
    Contains(Box<Sketch>),
    /// `S1 or S2`
    Or(Box<Sketch>, Box<Sketch>),
    /// `S : T`
    Typed(Box<Sketch>, TypeSketch),
}

/// A size in a type sketch: any, or a size after normalisation.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeSketch {
    /// `?`
    Any,
    /// A size over the entry point's size parameters (nat index 0 = the last one).
    Is(Nat),
}

/// A type sketch: a type in which `?` stands for any type or size.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeSketch {
    /// `?`
    Any,
    /// A scalar type.
    Scalar(ScalarType),
    /// `n.t`
    Array(SizeSketch, Box<TypeSketch>),
    /// `<n>t`
    Vector(SizeSketch, Box<TypeSketch>),
    /// `(a, b)`
    Pair(Box<TypeSketch>, Box<TypeSketch>),
    /// `a -> b`
    Fun(Box<TypeSketch>, Box<TypeSketch>),
    /// `idx[n]`
    Idx(SizeSketch),
}

impl SizeSketch {
    /// Whether `n` is this size.
    pub fn matches(&self, n: &Nat) -> bool {
        match self {
            SizeSketch::Any => true,
            SizeSketch::Is(m) => m == n,
        }
    }
}

impl TypeSketch {
    /// Whether type `t` matches the sketch.
    pub fn matches(&self, t: &Type) -> bool {
        match (self, t.get()) {
            (TypeSketch::Any, _) => true,
            (TypeSketch::Scalar(s), TypeNode::Scalar(u)) => s == u,
            (TypeSketch::Array(n, e), TypeNode::Array(m, f)) => n.matches(m) && e.matches(f),
            (TypeSketch::Vector(n, e), TypeNode::Vector(m, f)) => n.matches(m) && e.matches(f),
            (TypeSketch::Pair(a, b), TypeNode::Pair(c, d)) => a.matches(c) && b.matches(d),
            (TypeSketch::Fun(a, b), TypeNode::Fun(c, d)) => a.matches(c) && b.matches(d),
            (TypeSketch::Idx(n), TypeNode::Idx(m)) => n.matches(m),
            _ => false,
        }
    }
}

impl Sketch {
    /// The number of sketch nodes.
    pub fn size(&self) -> usize {
        match self {
            Sketch::Any | Sketch::Prim(_) | Sketch::Literal(_) => 1,
            Sketch::App(a, b) | Sketch::Or(a, b) => 1 + a.size() + b.size(),
            Sketch::NatApp(a, _)
            | Sketch::Lambda(a)
            | Sketch::Contains(a)
            | Sketch::Typed(a, _) => 1 + a.size(),
        }
    }

    /// Whether the term `e` satisfies the sketch (the definition, on one term; the e-graph
    /// version is [`extract::SketchTable`]).
    pub fn satisfied_by(&self, e: &Expr) -> bool {
        match self {
            Sketch::Any => true,
            Sketch::Prim(p) => e.kind == ExprKind::Prim(*p),
            Sketch::Literal(l) => e.kind == ExprKind::Literal(*l),
            Sketch::App(f, a) => match &e.kind {
                ExprKind::App(g, b) => f.satisfied_by(g) && a.satisfied_by(b),
                ExprKind::NatApp(g, _) => **a == Sketch::Any && f.satisfied_by(g),
                _ => false,
            },
            Sketch::NatApp(f, n) => {
                matches!(&e.kind, ExprKind::NatApp(g, m) if m == n && f.satisfied_by(g))
            }
            Sketch::Lambda(b) => matches!(&e.kind, ExprKind::Lambda(body) if b.satisfied_by(body)),
            Sketch::Contains(s) => {
                let mut stack = vec![e];
                while let Some(t) = stack.pop() {
                    if s.satisfied_by(t) {
                        return true;
                    }
                    match &t.kind {
                        ExprKind::Lambda(b) | ExprKind::NatLambda(b) | ExprKind::NatApp(b, _) => {
                            stack.push(b)
                        }
                        ExprKind::App(f, a) => {
                            stack.push(f);
                            stack.push(a);
                        }
                        _ => {}
                    }
                }
                false
            }
            Sketch::Or(a, b) => a.satisfied_by(e) || b.satisfied_by(e),
            Sketch::Typed(s, t) => t.matches(&e.ty) && s.satisfied_by(e),
        }
    }
}

impl Sketch {
    /// The sketch as text, with sizes written by `nat` (e.g. with the program's size names).
    pub fn to_text(&self, nat: &dyn Fn(&Nat) -> String) -> String {
        match self {
            Sketch::Any => "?".into(),
            Sketch::Prim(p) => p.name().into(),
            Sketch::Literal(l) => crate::core::print::literal_to_source(*l),
            Sketch::App(a, b) => format!("({} {})", a.to_text(nat), b.to_text(nat)),
            Sketch::NatApp(a, n) => format!("({} {})", a.to_text(nat), nat(n)),
            Sketch::Lambda(b) => format!("(fun => {})", b.to_text(nat)),
            Sketch::Contains(b) => format!("contains({})", b.to_text(nat)),
            Sketch::Or(a, b) => format!("({} or {})", a.to_text(nat), b.to_text(nat)),
            Sketch::Typed(b, t) => format!("({} : {})", b.to_text(nat), t.to_text(nat)),
        }
    }
}

impl SizeSketch {
    fn to_text(&self, nat: &dyn Fn(&Nat) -> String) -> String {
        match self {
            SizeSketch::Any => "?".into(),
            SizeSketch::Is(n) => nat(n),
        }
    }
}

impl TypeSketch {
    /// The type sketch as text, with sizes written by `nat`.
    pub fn to_text(&self, nat: &dyn Fn(&Nat) -> String) -> String {
        match self {
            TypeSketch::Any => "?".into(),
            TypeSketch::Scalar(s) => s.name().into(),
            TypeSketch::Array(n, e) => format!("{}.{}", n.to_text(nat), e.to_text(nat)),
            TypeSketch::Vector(n, e) => format!("<{}>{}", n.to_text(nat), e.to_text(nat)),
            TypeSketch::Pair(a, b) => format!("({}, {})", a.to_text(nat), b.to_text(nat)),
            TypeSketch::Fun(a, b) => format!("{} -> {}", a.to_text(nat), b.to_text(nat)),
            TypeSketch::Idx(n) => format!("idx[{}]", n.to_text(nat)),
        }
    }
}

impl fmt::Display for Sketch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text(&|n| n.to_string()))
    }
}
