//! A small C syntax tree for generated kernels: pure expressions, statements, and their printing.
//!
//! Keeping statements as a tree (rather than text) lets the lowering inspect what it generated,
//! e.g. to prove that a reduction may update its accumulator in place.

use super::ix::Ix;
use crate::ir::types::ScalarType;
use std::fmt::Write as _;

/// The C type of a scalar or vector value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CType {
    /// The scalar (or lane) type.
    pub scalar: ScalarType,
    /// Lanes, 1 for a scalar.
    pub lanes: u64,
}

impl CType {
    /// The C spelling: `float`, or the vector typedef `f32x8`.
    pub fn name(self) -> String {
        if self.lanes == 1 {
            scalar_c_name(self.scalar).to_string()
        } else {
            format!("{}x{}", self.scalar.name(), self.lanes)
        }
    }
}

/// The C spelling of a scalar type.
pub fn scalar_c_name(s: ScalarType) -> &'static str {
    match s {
        ScalarType::F32 => "float",
        ScalarType::F64 => "double",
        ScalarType::I32 => "int32_t",
        ScalarType::I64 => "int64_t",
        ScalarType::Bool => "_Bool",
    }
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `==`
    Eq,
}

impl BinOp {
    fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Lt => "<",
            BinOp::Gt => ">",
            BinOp::Eq => "==",
        }
    }
}

/// A pure C expression.
#[derive(Clone, Debug, PartialEq)]
pub enum CExpr {
    /// A literal in C syntax.
    Lit(String),
    /// A local variable.
    Var(String),
    /// `buf[idx]`, or a vector load of `ty.lanes` consecutive elements starting there.
    Load {
        /// The buffer.
        buf: String,
        /// The element offset.
        idx: Ix,
        /// The loaded type.
        ty: CType,
        /// Whether the address is proven aligned to the vector size.
        aligned: bool,
    },
    /// An index value (`int`).
    Index(Ix),
    /// A binary operation.
    Bin(BinOp, Box<CExpr>, Box<CExpr>),
    /// Negation.
    Neg(Box<CExpr>),
    /// A lane of a vector.
    Lane(Box<CExpr>, Ix),
    /// A vector from its lanes: `(f32x8){a, b, …}` (a broadcast repeats one simple expression).
    Lanes(CType, Vec<CExpr>),
    /// `c ? a : b`.
    Cond(Box<CExpr>, Box<CExpr>, Box<CExpr>),
    /// `a < b` on indices.
    IxLess(Ix, Ix),
}

impl CExpr {
    /// Calls `f` on every load in the expression.
    pub fn for_each_load(&self, f: &mut dyn FnMut(&str, &Ix, CType)) {
        match self {
            CExpr::Load { buf, idx, ty, .. } => f(buf, idx, *ty),
            CExpr::Lit(_) | CExpr::Var(_) | CExpr::Index(_) | CExpr::IxLess(..) => {}
            CExpr::Bin(_, a, b) => {
                a.for_each_load(f);
                b.for_each_load(f);
            }
            CExpr::Neg(a) | CExpr::Lane(a, _) => a.for_each_load(f),
            CExpr::Lanes(_, xs) => xs.iter().for_each(|x| x.for_each_load(f)),
            CExpr::Cond(c, a, b) => {
                c.for_each_load(f);
                a.for_each_load(f);
                b.for_each_load(f);
            }
        }
    }

    /// Whether the expression is a variable or literal (cheap to repeat).
    pub fn is_simple(&self) -> bool {
        matches!(self, CExpr::Lit(_) | CExpr::Var(_))
    }

    /// C syntax.
    pub fn to_c(&self) -> String {
        match self {
            CExpr::Lit(s) | CExpr::Var(s) => s.clone(),
            CExpr::Load {
                buf,
                idx,
                ty,
                aligned,
            } if ty.lanes == 1 => {
                let _ = aligned;
                format!("{buf}[{}]", idx.to_c())
            }
            CExpr::Load {
                buf,
                idx,
                ty,
                aligned,
            } => format!(
                "{}_load{}(&{buf}[{}])",
                ty.name(),
                if *aligned { "_aligned" } else { "" },
                idx.to_c()
            ),
            CExpr::Index(i) => i.to_c(),
            CExpr::Bin(op, a, b) => format!("({} {} {})", a.to_c(), op.symbol(), b.to_c()),
            CExpr::Neg(a) => format!("(-{})", a.to_c()),
            CExpr::Lane(v, l) => format!("{}[{}]", v.to_c(), l.to_c()),
            CExpr::Lanes(ty, xs) => format!(
                "({}){{{}}}",
                ty.name(),
                xs.iter().map(|x| x.to_c()).collect::<Vec<_>>().join(", ")
            ),
            CExpr::Cond(c, a, b) => format!("({} ? {} : {})", c.to_c(), a.to_c(), b.to_c()),
            CExpr::IxLess(a, b) => format!("({} < {})", a.to_c(), b.to_c()),
        }
    }
}

/// Where a store goes.
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    /// `buf[idx]` (a vector store when `ty` has lanes).
    Mem {
        /// The buffer.
        buf: String,
        /// The element offset.
        idx: Ix,
        /// The stored type.
        ty: CType,
        /// Whether the address is proven aligned.
        aligned: bool,
    },
    /// A local variable, or one lane of a vector variable.
    Var(String, Option<Ix>),
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `// text`
    Comment(String),
    /// `T name = init;` (or without initialiser).
    Decl {
        /// The type.
        ty: CType,
        /// The name.
        name: String,
        /// The initial value.
        init: Option<CExpr>,
    },
    /// A local array `T name[len] __attribute__((aligned(64)));`.
    LocalArray {
        /// The element type.
        scalar: ScalarType,
        /// The name.
        name: String,
        /// Elements.
        len: i64,
    },
    /// A store.
    Store(Place, CExpr),
    /// A counted loop `for (int var = 0; var < extent; var++)`.
    For {
        /// The loop variable.
        var: String,
        /// The trip count.
        extent: Ix,
        /// `#pragma omp parallel for` on it.
        parallel: bool,
        /// What produced it (a Rise primitive).
        comment: String,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `{ … }` with a leading comment (an unrolled iteration).
    Block(String, Vec<Stmt>),
}

impl Stmt {
    /// Visits every expression with whether it is the value of a store to `Place::Mem` of
    /// `buf` at index `idx` (`Some((buf, idx))`), or elsewhere (`None`).
    pub fn for_each_expr(&self, f: &mut dyn FnMut(Option<(&str, &Ix)>, &CExpr)) {
        match self {
            Stmt::Comment(_) | Stmt::LocalArray { .. } => {}
            Stmt::Decl { init, .. } => {
                if let Some(e) = init {
                    f(None, e)
                }
            }
            Stmt::Store(Place::Mem { buf, idx, .. }, e) => f(Some((buf, idx)), e),
            Stmt::Store(Place::Var(..), e) => f(None, e),
            Stmt::For { body, .. } | Stmt::Block(_, body) => {
                body.iter().for_each(|s| s.for_each_expr(f))
            }
        }
    }

    /// Whether any store writes to `buf`.
    #[cfg(any(test, feature = "testkit"))]
    pub fn stores_to(&self, target: &str) -> bool {
        match self {
            Stmt::Store(Place::Mem { buf, .. }, _) => buf == target,
            Stmt::For { body, .. } | Stmt::Block(_, body) => {
                body.iter().any(|s| s.stores_to(target))
            }
            _ => false,
        }
    }
}

/// Prints statements at the given indentation (four spaces per level).
pub fn print_stmts(stmts: &[Stmt], depth: usize, out: &mut String) {
    for s in stmts {
        print_stmt(s, depth, out);
    }
}

fn print_stmt(s: &Stmt, depth: usize, out: &mut String) {
    let pad = "    ".repeat(depth);
    match s {
        Stmt::Comment(c) => {
            let _ = writeln!(out, "{pad}// {c}");
        }
        Stmt::Decl { ty, name, init } => match init {
            Some(e) => {
                let _ = writeln!(out, "{pad}{} {name} = {};", ty.name(), strip(&e.to_c()));
            }
            None => {
                let _ = writeln!(out, "{pad}{} {name};", ty.name());
            }
        },
        Stmt::LocalArray { scalar, name, len } => {
            let _ = writeln!(
                out,
                "{pad}{} {name}[{len}] __attribute__((aligned(64)));",
                scalar_c_name(*scalar)
            );
        }
        Stmt::Store(place, e) => {
            let text = e.to_c();
            let value = strip(&text);
            match place {
                Place::Mem { buf, idx, ty, .. } if ty.lanes == 1 => {
                    let _ = writeln!(out, "{pad}{buf}[{}] = {value};", idx.to_c());
                }
                Place::Mem {
                    buf,
                    idx,
                    ty,
                    aligned,
                } => {
                    let _ = writeln!(
                        out,
                        "{pad}{}_store{}(&{buf}[{}], {value});",
                        ty.name(),
                        if *aligned { "_aligned" } else { "" },
                        idx.to_c()
                    );
                }
                Place::Var(name, None) => {
                    let _ = writeln!(out, "{pad}{name} = {value};");
                }
                Place::Var(name, Some(lane)) => {
                    let _ = writeln!(out, "{pad}{name}[{}] = {value};", lane.to_c());
                }
            }
        }
        Stmt::For {
            var,
            extent,
            parallel,
            comment,
            body,
        } => {
            if *parallel {
                let _ = writeln!(out, "{pad}#pragma omp parallel for");
            }
            let _ = writeln!(
                out,
                "{pad}for (int {var} = 0; {var} < {}; {var}++) {{ // {comment}",
                extent.to_c()
            );
            print_stmts(body, depth + 1, out);
            let _ = writeln!(out, "{pad}}}");
        }
        Stmt::Block(comment, body) => {
            let _ = writeln!(out, "{pad}{{ // {comment}");
            print_stmts(body, depth + 1, out);
            let _ = writeln!(out, "{pad}}}");
        }
    }
}

/// Removes one pair of redundant outer parentheses.
fn strip(s: &str) -> &str {
    if s.starts_with('(') && s.ends_with(')') {
        let inner = &s[1..s.len() - 1];
        let mut depth = 0i32;
        for ch in inner.chars() {
            match ch {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth < 0 {
                        return s;
                    }
                }
                _ => {}
            }
        }
        if depth == 0 {
            return inner;
        }
    }
    s
}
