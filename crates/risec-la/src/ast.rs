//! The surface tree of a `.la` file, as parsed: statements and expressions with their spans.
//! [`super::check`] turns it into checked expressions with shapes.

use crate::diagnostics::Span;

/// A name with its place in the file.
#[derive(Clone, Debug, PartialEq)]
pub struct Name {
    /// The name.
    pub text: String,
    /// Where it is written.
    pub span: Span,
}

/// A number as written, with its place.
#[derive(Clone, Debug, PartialEq)]
pub struct Number {
    /// The text (`2`, `0.5`, `1e-3`).
    pub text: String,
    /// Where it is written.
    pub span: Span,
}

/// How sparse an input is said to be.
#[derive(Clone, Debug, PartialEq)]
pub enum Density {
    /// No sparsity given: dense.
    Dense,
    /// `nnz N`: about N non-zeros.
    Nnz(Number),
    /// `sparsity S`: the share of non-zeros, in (0, 1].
    Sparsity(Number),
}

/// The declared shape of an input.
#[derive(Clone, Debug, PartialEq)]
pub enum ShapeDecl {
    /// `scalar`
    Scalar(Span),
    /// `ROWS x COLS` (the `x` is a name token, checked by the parser).
    Matrix(Number, Number),
}

/// One statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `input NAME : SHAPE [, nnz N | , sparsity S]`
    Input {
        /// The input's name.
        name: Name,
        /// Its shape.
        shape: ShapeDecl,
        /// Its sparsity.
        density: Density,
    },
    /// `let NAME = EXPR`
    Let {
        /// The bound name.
        name: Name,
        /// Its value.
        value: Expr,
    },
    /// `output NAME = EXPR`
    Output {
        /// The output's name.
        name: Name,
        /// Its value.
        value: Expr,
    },
    /// `assert LHS == RHS`
    Assert {
        /// The left side.
        lhs: Expr,
        /// The right side.
        rhs: Expr,
        /// The whole statement.
        span: Span,
    },
}

/// A binary operator of the surface language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*` (elementwise)
    Mul,
    /// `/` (elementwise)
    Div,
    /// `%*%` or `@`
    MatMul,
}

/// An expression with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is written.
    pub span: Span,
}

/// The kinds of expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A number.
    Num(Number),
    /// A name of an input, `let` or output.
    Var(Name),
    /// `-e`
    Neg(Box<Expr>),
    /// `a OP b`
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `e ^ N` (the exponent may carry a sign: `e ^ -1`).
    Pow(Box<Expr>, Number),
    /// `f(args)`
    Call(Name, Vec<Expr>),
}
