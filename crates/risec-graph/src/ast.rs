//! The statements of a `.graph` file as written, with their places (before any check).

use risec_core::diagnostics::Span;

/// A name as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Name {
    /// The text.
    pub text: String,
    /// Where.
    pub span: Span,
}

/// The value of an attribute: `stride=2`, `act=relu`.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    /// A whole number.
    Int(i64),
    /// A word.
    Word(String),
}

/// `KEY=VALUE` in an operator's arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Attr {
    /// The key.
    pub key: Name,
    /// The value.
    pub value: AttrValue,
    /// The whole `KEY=VALUE`.
    pub span: Span,
}

/// One statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `input NAME : D x D …` (`weight: false`) or `weight NAME : D x D …` (`weight: true`).
    Tensor {
        /// The tensor's name.
        name: Name,
        /// Whether it is a weight: known when the graph is compiled, so that operations on
        /// weights alone are computed once, before inference.
        weight: bool,
        /// The dimensions, each with its place.
        dims: Vec<(usize, Span)>,
    },
    /// `let NAME, … = OP(ARG, …, KEY=VALUE, …)`.
    Let {
        /// The names bound (two for `split`).
        names: Vec<Name>,
        /// The operator.
        op: Name,
        /// The operands, in order.
        args: Vec<Name>,
        /// The attributes.
        attrs: Vec<Attr>,
        /// The whole statement.
        span: Span,
    },
    /// `output NAME, …`.
    Output {
        /// The values the graph returns, in order.
        names: Vec<Name>,
    },
}
