//! The surface tree of `.sk` files, as parsed (names unresolved, spans kept for diagnostics).

use crate::frontend::syntax::ast::Span;

/// A name with its place in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    /// The text.
    pub text: String,
    /// Where it is written.
    pub span: Span,
}

/// Arithmetic operators of sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
}

/// The comparisons of a `require` constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// Whether `a OP b` holds.
    pub fn holds(self, a: u64, b: u64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }

    /// The operator as written.
    pub fn text(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// A sketch expression (also used for the size arguments of definitions: `m/32`).
#[derive(Clone, Debug, PartialEq)]
pub struct SkExpr {
    /// The node.
    pub kind: SkKind,
    /// Its extent in the file.
    pub span: Span,
}

/// The forms of sketch expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum SkKind {
    /// `?`
    Hole,
    /// A primitive, a definition without parameters, a parameter or a size name.
    Name(Name),
    /// `NAME(A, …)`: a definition with its arguments.
    Call(Name, Vec<SkExpr>),
    /// `S1 S2`
    App(Box<SkExpr>, Box<SkExpr>),
    /// `fun => S` (binder names, if written, are ignored: sketches cannot refer to variables).
    Lambda(Box<SkExpr>),
    /// `contains(S)`
    Contains(Box<SkExpr>),
    /// `S1 or S2`
    Or(Box<SkExpr>, Box<SkExpr>),
    /// `S : T`
    Annot(Box<SkExpr>, TyExpr),
    /// A natural number: a size argument (`split 32`) or a definition's size argument.
    Num(u64),
    /// Size arithmetic: `m/32`.
    Size(SizeOp, Box<SkExpr>, Box<SkExpr>),
}

/// A type sketch as written: types with `?` holes and sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct TyExpr {
    /// The node.
    pub kind: TyKind,
    /// Its extent in the file.
    pub span: Span,
}

/// The forms of type sketches.
#[derive(Clone, Debug, PartialEq)]
pub enum TyKind {
    /// `?`: any type, or any size.
    Hole,
    /// A scalar type (`f32`), a size name (`m`) or a definition parameter.
    Name(Name),
    /// A natural number (a size).
    Num(u64),
    /// Size arithmetic.
    Size(SizeOp, Box<TyExpr>, Box<TyExpr>),
    /// `a -> b`
    Fun(Box<TyExpr>, Box<TyExpr>),
    /// `n.t`
    Array(Box<TyExpr>, Box<TyExpr>),
    /// `<n>t`
    Vector(Box<TyExpr>, Box<TyExpr>),
    /// `(a, b)`
    Pair(Box<TyExpr>, Box<TyExpr>),
    /// `idx[n]`
    Idx(Box<TyExpr>),
}

/// A rule named in a rule set: `eta`, `split-join(32)`, or another rule set's name.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleRef {
    /// The name.
    pub name: Name,
    /// Size arguments, if written.
    pub args: Vec<SkExpr>,
    /// The whole reference.
    pub span: Span,
}

/// The rules of a step: a rule set's name or a list.
#[derive(Clone, Debug, PartialEq)]
pub enum RuleSetExpr {
    /// `rules = NAME`
    Named(Name),
    /// `rules = [ … ]`
    List(Vec<RuleRef>),
}

/// A limit value: a number or a quantity with a unit (`10s`, `4GiB`).
#[derive(Clone, Debug, PartialEq)]
pub struct LimitValue {
    /// The text as written.
    pub text: String,
    /// Where.
    pub span: Span,
}

/// A field of a `step { … }`.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    /// `sketch = S`
    Sketch(SkExpr, Span),
    /// `rules = R`
    Rules(RuleSetExpr, Span),
    /// `cost = NAME`
    Cost(Name, Span),
    /// `limits = { name = value, … }`
    Limits(Vec<(Name, LimitValue)>, Span),
    /// `scheduler = NAME` or `scheduler = NAME(N, …)`
    Scheduler(Name, Vec<u64>, Span),
}

/// A top-level item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `import "path"`
    Import {
        /// The path, relative to the importing file.
        path: String,
        /// Where.
        span: Span,
    },
    /// `def NAME(P, …) = S`
    Def {
        /// The name.
        name: Name,
        /// The parameters.
        params: Vec<Name>,
        /// The body.
        body: SkExpr,
    },
    /// `rules NAME = [ … ]`
    Rules {
        /// The name.
        name: Name,
        /// The rules.
        rules: Vec<RuleRef>,
    },
    /// `rule NAME : lhs => rhs`
    Rule {
        /// The name.
        name: Name,
        /// The Rise text `lhs => rhs`.
        text: String,
        /// Where the text is.
        span: Span,
    },
    /// `param NAME = VALUE` (a number derived from other parameters) or
    /// `param NAME = DEFAULT in [C, …]` (a tunable number with its candidates).
    Param {
        /// The name.
        name: Name,
        /// The value (a number, or arithmetic over earlier parameters).
        value: SkExpr,
        /// The candidates a tuner may try, each with its place; `None` for a derived number.
        candidates: Option<Vec<SkExpr>>,
        /// The whole item.
        span: Span,
    },
    /// `require A OP B`: a constraint every choice of the parameters must meet; `budget A OP B`:
    /// a resource budget (registers, caches) that tuning does not exceed and compiling warns
    /// about.
    Require {
        /// The left side.
        left: SkExpr,
        /// The comparison.
        op: CmpOp,
        /// The right side.
        right: SkExpr,
        /// Whether it is a `budget` (a warning) rather than a `require` (an error).
        budget: bool,
        /// The whole item.
        span: Span,
    },
    /// `step NAME { … }`
    Step {
        /// The name.
        name: Name,
        /// The fields, in order.
        fields: Vec<Field>,
        /// The whole item.
        span: Span,
    },
}
