//! Checking a parsed `.la` file: names defined once and before use, shapes that agree, sizes and
//! sparsities that make sense. The result is a [`LaProgram`]: inputs, outputs and assertions as
//! [`Term`]s, small trees over the core operators in which `-`, `/` and `^` are already
//! written with `*`, `+` and elementwise functions (SPORES' translation needs only these).

use super::ast::{BinOp, Density, Expr, ExprKind, Name, Number, ShapeDecl, Stmt};
use crate::diagnostics::{Diagnostic, SourceFile, Span};
use rustc_hash::FxHashMap;
use std::fmt;
use std::rc::Rc;

/// Rows and columns of a matrix (a scalar is 1 x 1, a column vector n x 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Number of rows.
    pub rows: u64,
    /// Number of columns.
    pub cols: u64,
}

impl Shape {
    /// A 1 x 1 matrix.
    pub const SCALAR: Shape = Shape { rows: 1, cols: 1 };

    /// Number of entries.
    pub fn size(self) -> f64 {
        self.rows as f64 * self.cols as f64
    }

    /// The shape of an elementwise operation on `self` and `other`, broadcasting a dimension
    /// of size 1; `None` when they do not agree.
    pub fn broadcast(self, other: Shape) -> Option<Shape> {
        let dim = |a: u64, b: u64| match (a, b) {
            _ if a == b => Some(a),
            (1, b) => Some(b),
            (a, 1) => Some(a),
            _ => None,
        };
        Some(Shape {
            rows: dim(self.rows, other.rows)?,
            cols: dim(self.cols, other.cols)?,
        })
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} x {}", self.rows, self.cols)
    }
}

/// An elementwise function. Those with `f(0) = 0` keep a sparse operand sparse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Func {
    /// `exp`
    Exp,
    /// `log`
    Log,
    /// `sqrt` (also `^ 0.5`)
    Sqrt,
    /// `abs`
    Abs,
    /// `sigmoid(x) = 1 / (1 + exp(-x))`
    Sigmoid,
    /// `relu(x) = max(x, 0)`
    Relu,
    /// `1 / x` (from `/` and negative powers)
    Inv,
}

impl Func {
    /// Every function, for parsing and messages.
    pub const ALL: [Func; 7] = [
        Func::Exp,
        Func::Log,
        Func::Sqrt,
        Func::Abs,
        Func::Sigmoid,
        Func::Relu,
        Func::Inv,
    ];

    /// The name written in `.la` files (`inv` is only printed, as `1 / x`).
    pub fn name(self) -> &'static str {
        match self {
            Func::Exp => "exp",
            Func::Log => "log",
            Func::Sqrt => "sqrt",
            Func::Abs => "abs",
            Func::Sigmoid => "sigmoid",
            Func::Relu => "relu",
            Func::Inv => "inv",
        }
    }

    /// Whether `f(0) = 0`, so that the result has no more non-zeros than the operand.
    pub fn keeps_zero(self) -> bool {
        matches!(self, Func::Sqrt | Func::Abs | Func::Relu)
    }

    /// The function on one number.
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Func::Exp => x.exp(),
            Func::Log => x.ln(),
            Func::Sqrt => x.sqrt(),
            Func::Abs => x.abs(),
            Func::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            Func::Relu => x.max(0.0),
            Func::Inv => 1.0 / x,
        }
    }
}

impl std::str::FromStr for Func {
    type Err = ();
    fn from_str(s: &str) -> Result<Func, ()> {
        Func::ALL.into_iter().find(|f| f.name() == s).ok_or(())
    }
}

/// The core operators a checked expression is made of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// Input number `i` of [`LaProgram::inputs`].
    Input(usize),
    /// A number (a 1 x 1 matrix).
    Const(f64),
    /// Matrix product.
    MatMul,
    /// Elementwise product, broadcasting dimensions of size 1.
    Mul,
    /// Elementwise sum, broadcasting dimensions of size 1.
    Add,
    /// Transpose.
    T,
    /// Sum of all entries.
    Sum,
    /// Row sums (a column vector).
    RowSums,
    /// Column sums (a row vector).
    ColSums,
    /// An elementwise function.
    Map(Func),
}

/// A checked expression: an operator, its operands and its shape. Shared by `Rc` where a `let`
/// or output is used more than once.
pub type Term = Rc<Node>;

/// One node of a [`Term`].
#[derive(Debug, PartialEq)]
pub struct Node {
    /// The operator.
    pub op: Op,
    /// Its operands.
    pub args: Vec<Term>,
    /// The shape of its value.
    pub shape: Shape,
}

/// A declared input.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// Its name.
    pub name: String,
    /// Its shape.
    pub shape: Shape,
    /// Its (estimated) number of non-zeros; the size when dense.
    pub nnz: f64,
}

impl Input {
    /// Whether `nnz` or `sparsity` was given below the full size.
    pub fn is_sparse(&self) -> bool {
        self.nnz < self.shape.size()
    }
}

/// An `assert LHS == RHS` statement.
#[derive(Debug)]
pub struct Assertion {
    /// The left side.
    pub lhs: Term,
    /// The right side.
    pub rhs: Term,
    /// The statement as written (for messages).
    pub text: String,
    /// The 1-based line it is on.
    pub line: usize,
}

/// A checked `.la` file.
#[derive(Debug)]
pub struct LaProgram {
    /// The file, for messages.
    pub file: SourceFile,
    /// The inputs, in order of declaration.
    pub inputs: Vec<Input>,
    /// The outputs, in order: name and value.
    pub outputs: Vec<(String, Term)>,
    /// The assertions, in order.
    pub assertions: Vec<Assertion>,
}

/// The deepest expression nesting accepted (deeper files are an error, not a stack overflow).
const MAX_DEPTH: usize = 400;

/// Checks parsed statements against `file` (which their spans point into).
pub fn check(file: &SourceFile, stmts: &[Stmt]) -> Result<LaProgram, Vec<Diagnostic>> {
    let mut checker = Checker {
        names: FxHashMap::default(),
        inputs: Vec::new(),
    };
    let mut outputs = Vec::new();
    let mut assertions = Vec::new();
    let mut errors = Vec::new();
    for stmt in stmts {
        match stmt {
            Stmt::Input {
                name,
                shape,
                density,
            } => match checker.input(shape, density) {
                Ok((shape, nnz)) => {
                    let index = checker.inputs.len();
                    checker.inputs.push(Input {
                        name: name.text.clone(),
                        shape,
                        nnz,
                    });
                    let term = Rc::new(Node {
                        op: Op::Input(index),
                        args: Vec::new(),
                        shape,
                    });
                    if let Err(e) = checker.define(&name.text, name.span, term) {
                        errors.push(e);
                    }
                }
                Err(e) => errors.push(e),
            },
            Stmt::Let { name, value } | Stmt::Output { name, value } => {
                match checker.expr(value, 0) {
                    Ok(term) => {
                        if matches!(stmt, Stmt::Output { .. }) {
                            outputs.push((name.text.clone(), term.clone()));
                        }
                        if let Err(e) = checker.define(&name.text, name.span, term) {
                            errors.push(e);
                        }
                    }
                    Err(e) => errors.push(e),
                }
            }
            Stmt::Assert { lhs, rhs, span } => match (checker.expr(lhs, 0), checker.expr(rhs, 0)) {
                (Ok(l), Ok(r)) if l.shape != r.shape => errors.push(
                    Diagnostic::error(
                        "the two sides of an assertion have different shapes",
                        rhs.span,
                        format!("this is {}", r.shape),
                    )
                    .with_secondary(lhs.span, format!("this is {}", l.shape)),
                ),
                (Ok(l), Ok(r)) => assertions.push(Assertion {
                    lhs: l,
                    rhs: r,
                    text: file.text[span.range()].trim().to_string(),
                    line: file.line_col(span.start).0,
                }),
                (l, r) => errors.extend(l.err().into_iter().chain(r.err())),
            },
        }
    }
    if errors.is_empty() && outputs.is_empty() && assertions.is_empty() {
        let end = file.text.len();
        errors.push(Diagnostic::error(
            "nothing to do: the file has no `output` and no `assert`",
            Span::new(end, end),
            "expected an `output NAME = …` or `assert A == B` statement",
        ));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(LaProgram {
        file: file.clone(),
        inputs: checker.inputs,
        outputs,
        assertions,
    })
}

struct Checker {
    /// Every defined name: its value and where it was defined.
    names: FxHashMap<String, (Term, Span)>,
    inputs: Vec<Input>,
}

fn node(op: Op, args: Vec<Term>, shape: Shape) -> Term {
    Rc::new(Node { op, args, shape })
}

fn constant(value: f64) -> Term {
    node(Op::Const(value), Vec::new(), Shape::SCALAR)
}

fn number(n: &Number) -> Result<f64, Diagnostic> {
    n.text
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| Diagnostic::error("number out of range", n.span, "not a finite number"))
}

fn size(n: &Number, what: &str) -> Result<u64, Diagnostic> {
    match n.text.parse::<u64>() {
        Ok(v) if (1..=i32::MAX as u64).contains(&v) => Ok(v),
        _ => Err(Diagnostic::error(
            format!("invalid {what}"),
            n.span,
            "expected a whole number from 1 to 2147483647",
        )),
    }
}

impl Checker {
    fn define(&mut self, name: &str, span: Span, term: Term) -> Result<(), Diagnostic> {
        if Func::ALL.iter().any(|f| f.name() == name)
            || ["t", "sum", "rowSums", "colSums"].contains(&name)
        {
            return Err(Diagnostic::error(
                format!("`{name}` is the name of a function"),
                span,
                "choose another name",
            ));
        }
        if let Some((_, first)) = self.names.get(name) {
            return Err(Diagnostic::error(
                format!("`{name}` is defined twice"),
                span,
                "defined again here",
            )
            .with_secondary(*first, "first defined here"));
        }
        self.names.insert(name.to_string(), (term, span));
        Ok(())
    }

    fn input(&self, shape: &ShapeDecl, density: &Density) -> Result<(Shape, f64), Diagnostic> {
        let shape = match shape {
            ShapeDecl::Scalar(_) => Shape::SCALAR,
            ShapeDecl::Matrix(r, c) => Shape {
                rows: size(r, "number of rows")?,
                cols: size(c, "number of columns")?,
            },
        };
        let nnz = match density {
            Density::Dense => shape.size(),
            Density::Nnz(n) => match n.text.parse::<u64>() {
                Ok(v) if v as f64 <= shape.size() => v as f64,
                _ => {
                    return Err(Diagnostic::error(
                        "invalid number of non-zeros",
                        n.span,
                        format!("expected a whole number from 0 to {}", shape.size()),
                    ))
                }
            },
            Density::Sparsity(s) => match s.text.parse::<f64>() {
                Ok(v) if v > 0.0 && v <= 1.0 => (v * shape.size()).round().max(1.0),
                _ => {
                    return Err(Diagnostic::error(
                        "invalid sparsity",
                        s.span,
                        "expected the share of non-zeros, above 0 and at most 1",
                    ))
                }
            },
        };
        Ok((shape, nnz))
    }

    /// The term of expression `e` at nesting `depth`, its shape checked. Subexpressions are
    /// checked here (the recursion stays in this function); the operations are built by the
    /// functions below.
    fn expr(&self, e: &Expr, depth: usize) -> Result<Term, Diagnostic> {
        if depth > MAX_DEPTH {
            return Err(Diagnostic::error(
                "expression nested too deeply",
                e.span,
                format!("more than {MAX_DEPTH} levels; split it with `let`"),
            ));
        }
        let sub = |x: &Expr| self.expr(x, depth + 1);
        match &e.kind {
            ExprKind::Num(n) => Ok(constant(number(n)?)),
            ExprKind::Var(name) => match self.names.get(&name.text) {
                Some((term, _)) => Ok(term.clone()),
                None => Err(Diagnostic::error(
                    format!("unknown name `{}`", name.text),
                    name.span,
                    "not defined before this point",
                )
                .with_note(
                    "inputs, `let`s and outputs are defined by the statements above their use",
                )),
            },
            ExprKind::Neg(a) => {
                let a = sub(a)?;
                Ok(scale(-1.0, a))
            }
            ExprKind::Bin(op, a, b) => {
                let (x, y) = (sub(a)?, sub(b)?);
                binary(*op, x, y, e.span)
            }
            ExprKind::Pow(a, n) => {
                let a = sub(a)?;
                power(a, n)
            }
            ExprKind::Call(f, args) => {
                let func = called_function(f, args.len(), e.span)?;
                let a = sub(&args[0])?;
                Ok(call_term(f, func, a))
            }
        }
    }
}

/// `x op y` (at `span`): a matrix product, or an elementwise operation with broadcasting
/// (`-` adds the negation, `/` multiplies by the inverse).
fn binary(op: BinOp, x: Term, y: Term, span: Span) -> Result<Term, Diagnostic> {
    if op == BinOp::MatMul {
        if x.shape.cols != y.shape.rows {
            return Err(Diagnostic::error(
                "the shapes of a matrix product do not agree",
                span,
                format!(
                    "{} %*% {}: the left side's columns must be the right side's rows",
                    x.shape, y.shape
                ),
            ));
        }
        let shape = Shape {
            rows: x.shape.rows,
            cols: y.shape.cols,
        };
        return Ok(node(Op::MatMul, vec![x, y], shape));
    }
    let Some(shape) = x.shape.broadcast(y.shape) else {
        return Err(Diagnostic::error(
            "the shapes of an elementwise operation do not agree",
            span,
            format!(
                "{} and {}: each dimension must be equal or 1",
                x.shape, y.shape
            ),
        ));
    };
    Ok(match op {
        BinOp::Add => node(Op::Add, vec![x, y], shape),
        BinOp::Sub => node(Op::Add, vec![x, scale(-1.0, y)], shape),
        BinOp::Mul => node(Op::Mul, vec![x, y], shape),
        _ => {
            let inverse = match y.op {
                Op::Const(c) if c != 0.0 && (1.0 / c).is_finite() => constant(1.0 / c),
                _ => node(Op::Map(Func::Inv), vec![y.clone()], y.shape),
            };
            node(Op::Mul, vec![x, inverse], shape)
        }
    })
}

/// `a ^ n`: `sqrt` for 0.5, else repeated products (and the inverse for a negative power);
/// whole powers from -16 to 16 other than 0.
fn power(a: Term, n: &Number) -> Result<Term, Diagnostic> {
    let p = number(n)?;
    let shape = a.shape;
    if p == 0.5 {
        return Ok(node(Op::Map(Func::Sqrt), vec![a], shape));
    }
    if p.fract() != 0.0 || p == 0.0 || p.abs() > 16.0 {
        return Err(Diagnostic::error(
            "unsupported power",
            n.span,
            "expected a whole number from -16 to 16 other than 0, or 0.5",
        ));
    }
    let mut power = a.clone();
    for _ in 1..(p.abs() as u32) {
        power = node(Op::Mul, vec![power, a.clone()], shape);
    }
    Ok(if p < 0.0 {
        node(Op::Map(Func::Inv), vec![power], shape)
    } else {
        power
    })
}

/// Checks a call of `f` with `arity` arguments (the call at `span`): `f` must be a built-in
/// (`t`, `sum`, `rowSums`, `colSums`: `None`) or an elementwise function (`Some`), of one
/// argument.
fn called_function(f: &Name, arity: usize, span: Span) -> Result<Option<Func>, Diagnostic> {
    let builtin = ["t", "sum", "rowSums", "colSums"];
    let func = f.text.parse::<Func>().ok().filter(|f| *f != Func::Inv);
    if !builtin.contains(&f.text.as_str()) && func.is_none() {
        return Err(Diagnostic::error(
            format!("unknown function `{}`", f.text),
            f.span,
            "not a function of `.la` files",
        )
        .with_note(
            "the functions are t, sum, rowSums, colSums, exp, log, sqrt, abs, sigmoid and relu",
        ));
    }
    if arity != 1 {
        return Err(Diagnostic::error(
            format!("`{}` takes one argument, not {arity}", f.text),
            span,
            "expected one argument",
        ));
    }
    Ok(func)
}

/// The term of `f(a)`, `f` checked by [`called_function`] (`func`: the elementwise function, if it
/// is one).
fn call_term(f: &Name, func: Option<Func>, a: Term) -> Term {
    let s = a.shape;
    match (f.text.as_str(), func) {
        (_, Some(func)) => node(Op::Map(func), vec![a], s),
        ("t", _) => node(
            Op::T,
            vec![a],
            Shape {
                rows: s.cols,
                cols: s.rows,
            },
        ),
        ("sum", _) => node(Op::Sum, vec![a], Shape::SCALAR),
        ("rowSums", _) => node(
            Op::RowSums,
            vec![a],
            Shape {
                rows: s.rows,
                cols: 1,
            },
        ),
        _ => node(
            Op::ColSums,
            vec![a],
            Shape {
                rows: 1,
                cols: s.cols,
            },
        ),
    }
}

/// `c * a`.
fn scale(c: f64, a: Term) -> Term {
    let shape = a.shape;
    node(Op::Mul, vec![constant(c), a], shape)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::parse_file;

    fn check_text(text: &str) -> Result<LaProgram, Vec<Diagnostic>> {
        let file = SourceFile::new("t.la", text);
        check(&file, &parse_file(text)?)
    }

    #[test]
    fn shapes_and_broadcasting() {
        let p = check_text(
            "input X : 6 x 7\ninput y : 6 x 1\noutput a = X * y\noutput b = colSums(X) %*% t(X)",
        )
        .unwrap();
        assert_eq!(p.outputs[0].1.shape, Shape { rows: 6, cols: 7 });
        assert_eq!(p.outputs[1].1.shape, Shape { rows: 1, cols: 6 });
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let e = check_text("input X : 6 x 7\noutput a = X %*% X").unwrap_err();
        assert!(e[0].label.contains("6 x 7 %*% 6 x 7"), "{}", e[0].label);
        let e = check_text("input X : 6 x 7\noutput a = Y").unwrap_err();
        assert!(e[0].message.contains("unknown name `Y`"));
        let e = check_text("input X : 6 x 7\ninput X : 2 x 2\noutput a = X").unwrap_err();
        assert!(e[0].message.contains("defined twice"));
        let e = check_text("input X : 6 x 7\noutput a = X ^ 1.5").unwrap_err();
        assert!(e[0].message.contains("unsupported power"));
        let e = check_text("input X : 6 x 7, nnz 100").unwrap_err();
        assert!(e[0].message.contains("non-zeros"));
        let e = check_text("input X : 6 x 7").unwrap_err();
        assert!(e[0].message.contains("nothing to do"));
        let e = check_text("input X : 6 x 7\nassert sum(X) == X").unwrap_err();
        assert!(e[0].message.contains("different shapes"));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = format!(
            "input x : scalar\noutput y = {}x{}",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        // Parentheses alone do not nest terms; negations do.
        assert!(check_text(&text).is_ok());
        let text = format!("input x : scalar\noutput y = {}x", "-".repeat(5000));
        let e = check_text(&text).unwrap_err();
        assert!(e[0].message.contains("nested too deeply"));
    }
}
