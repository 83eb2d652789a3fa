//! The surface syntax tree of `.rise` files, with a byte span on every node.
//!
//! The tree mirrors the written program (names, sugar such as `|>`, `>>`, infix operators and
//! sections); the elaborator resolves names to De Bruijn indices, removes the sugar and infers types.

use std::fmt;

pub use crate::diagnostics::Span;

/// A name with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    /// The name.
    pub name: String,
    /// Where it is written.
    pub span: Span,
}

/// A whole `.rise` file: definitions in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// The definitions, in source order.
    pub defs: Vec<Def>,
}

/// `def NAME PARAMS* (: TYPE)? = EXPR`
#[derive(Clone, Debug, PartialEq)]
pub struct Def {
    /// The defined name.
    pub name: Ident,
    /// Size and value parameters, in order.
    pub params: Vec<Param>,
    /// The declared result type, if any.
    pub result: Option<TypeExpr>,
    /// The body.
    pub body: Expr,
    /// The whole definition.
    pub span: Span,
}

/// A parameter of a definition.
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    /// `{m n k : nat}`: size parameters (nat binders).
    Sizes(Vec<Ident>),
    /// `(x : t)`: a value parameter.
    Value(Ident, TypeExpr),
}

/// A binder of `fun`.
#[derive(Clone, Debug, PartialEq)]
pub enum Binder {
    /// `x`
    Plain(Ident),
    /// `(x : t)`
    Typed(Ident, TypeExpr),
    /// `(n : nat)`: a size binder.
    Size(Ident),
}

/// Infix arithmetic operators in expressions and in sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%` (sizes only)
    Mod,
    /// `^` (sizes only)
    Pow,
}

impl BinOp {
    /// The primitive an expression-level operator stands for (`+` is `add`); `None` for the
    /// size-only operators `%` and `^`.
    pub fn primitive(self) -> Option<crate::ir::primitive::Primitive> {
        use crate::ir::primitive::Primitive;
        match self {
            BinOp::Add => Some(Primitive::Add),
            BinOp::Sub => Some(Primitive::Sub),
            BinOp::Mul => Some(Primitive::Mul),
            BinOp::Div => Some(Primitive::Div),
            BinOp::Mod | BinOp::Pow => None,
        }
    }

    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Pow => "^",
        }
    }
}

/// Suffix of a numeric literal that fixes its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumSuffix {
    /// `f32` (the default for floats)
    F32,
    /// `f64`
    F64,
    /// `i32`
    I32,
    /// `i64`
    I64,
}

/// An expression with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// The node.
    pub kind: ExprKind,
    /// Where it is written.
    pub span: Span,
}

/// Expression forms of the surface language.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A name: a variable, a definition, a primitive or a size variable.
    Name(String),
    /// A natural literal without suffix (`32`): a size argument.
    Nat(u64),
    /// A float literal (`1.5`, `2.0f64`); `suffix` is `None` for the default `f32`.
    Float {
        /// The value as written.
        value: f64,
        /// The type suffix, if any.
        suffix: Option<NumSuffix>,
    },
    /// An integer literal with a suffix (`7i32`).
    Int {
        /// The value as written.
        value: i64,
        /// The type suffix.
        suffix: NumSuffix,
    },
    /// `fun b1 b2 … => body`
    Lambda(Vec<Binder>, Box<Expr>),
    /// `let x = value in body`
    Let(Ident, Box<Expr>, Box<Expr>),
    /// `f arg`
    App(Box<Expr>, Box<Expr>),
    /// `arg |> f`
    Pipe(Box<Expr>, Box<Expr>),
    /// `f >> g`
    Compose(Box<Expr>, Box<Expr>),
    /// `e : t`
    Annot(Box<Expr>, TypeExpr),
    /// `a op b`
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `-a`
    Neg(Box<Expr>),
    /// `(a, b)`
    Pair(Box<Expr>, Box<Expr>),
    /// `(+)`, `(*)`, `(-)`, `(/)`
    Section(BinOp),
}

/// A type with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeExpr {
    /// The node.
    pub kind: TypeExprKind,
    /// Where it is written.
    pub span: Span,
}

/// Type forms of the surface language.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeExprKind {
    /// A named type: a scalar (`f32`, `bool`, …); other names are reported as unknown types.
    Name(String),
    /// `idx[N]`
    Idx(NatExpr),
    /// `N.t`
    Array(NatExpr, Box<TypeExpr>),
    /// `(s, t)`
    Pair(Box<TypeExpr>, Box<TypeExpr>),
    /// `<N>t`
    Vector(NatExpr, Box<TypeExpr>),
    /// `s -> t`
    Fun(Box<TypeExpr>, Box<TypeExpr>),
    /// `(n : nat) -> t`
    NatFun(Ident, Box<TypeExpr>),
}

/// A size expression with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct NatExpr {
    /// The node.
    pub kind: NatExprKind,
    /// Where it is written.
    pub span: Span,
}

/// Size expression forms.
#[derive(Clone, Debug, PartialEq)]
pub enum NatExprKind {
    /// A literal.
    Lit(u64),
    /// A size variable.
    Name(String),
    /// `a op b`
    Binary(BinOp, Box<NatExpr>, Box<NatExpr>),
}

impl fmt::Display for BinOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// Dropping a tree recurses once per level, and a long left-associated chain (`x + x + … + x`)
/// is a deep tree: the expressions below a node are taken out and dropped from a work list.
impl Drop for Expr {
    fn drop(&mut self) {
        let mut pending: Vec<Box<Expr>> = Vec::new();
        take_children(&mut self.kind, &mut pending);
        while let Some(mut e) = pending.pop() {
            take_children(&mut e.kind, &mut pending);
        }
    }
}

/// Moves the sub-expressions of `kind` to `out`, leaving a leaf. They stay boxed: the drop
/// loop re-boxes nothing and moves only pointers.
#[allow(clippy::vec_box)]
fn take_children(kind: &mut ExprKind, out: &mut Vec<Box<Expr>>) {
    match std::mem::replace(kind, ExprKind::Nat(0)) {
        ExprKind::Let(_, a, b)
        | ExprKind::App(a, b)
        | ExprKind::Pipe(a, b)
        | ExprKind::Compose(a, b)
        | ExprKind::Binary(_, a, b)
        | ExprKind::Pair(a, b) => {
            out.push(a);
            out.push(b);
        }
        ExprKind::Lambda(_, a) | ExprKind::Annot(a, _) | ExprKind::Neg(a) => out.push(a),
        ExprKind::Name(_)
        | ExprKind::Nat(_)
        | ExprKind::Float { .. }
        | ExprKind::Int { .. }
        | ExprKind::Section(_) => {}
    }
}

/// As for [`Expr`]: size chains (`1 + 1 + … + 1`) are dropped from a work list.
impl Drop for NatExpr {
    fn drop(&mut self) {
        let mut pending: Vec<Box<NatExpr>> = Vec::new();
        let take = |kind: &mut NatExprKind, out: &mut Vec<Box<NatExpr>>| {
            if let NatExprKind::Binary(_, a, b) = std::mem::replace(kind, NatExprKind::Lit(0)) {
                out.push(a);
                out.push(b);
            }
        };
        take(&mut self.kind, &mut pending);
        while let Some(mut n) = pending.pop() {
            take(&mut n.kind, &mut pending);
        }
    }
}
