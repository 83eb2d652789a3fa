//! A small C syntax tree for generated kernels: pure expressions, statements, and their printing.
//!
//! Keeping statements as a tree (rather than text) lets the translation inspect what it generated,
//! e.g. to prove that a reduction may update its accumulator in place.

use super::ix::Ix;
use crate::support::stack::guarded;
use crate::ir::primitive::Primitive;
use crate::ir::types::ScalarType;
use std::fmt::Write as _;
use std::rc::Rc;

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

/// A pure C expression. Sub-expressions are shared (`Rc`): a value used many times (a running
/// sum, an accumulator read in every lane) is one tree, and cloning an expression is O(1).
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
    Bin(BinOp, Rc<CExpr>, Rc<CExpr>),
    /// Negation.
    Neg(Rc<CExpr>),
    /// A lane of a vector.
    Lane(Rc<CExpr>, Ix),
    /// A vector from its lanes: `(f32x8){a, b, …}` (a broadcast repeats one simple expression).
    Lanes(CType, Vec<CExpr>),
    /// `c ? a : b`.
    Cond(Rc<CExpr>, Rc<CExpr>, Rc<CExpr>),
    /// `a < b` on indices.
    IxLess(Ix, Ix),
    /// An index evaluated in `long long` rather than `int`: every variable in it is cast
    /// (`(long long)m * (long long)n`), so that checking it against `INT_MAX` cannot overflow.
    WideIndex(Ix),
}

impl CExpr {
    /// Calls `f` on every load in the expression.
    pub fn for_each_load(&self, f: &mut dyn FnMut(&str, &Ix, CType)) {
        guarded(|| match self {
            CExpr::Load { buf, idx, ty, .. } => f(buf, idx, *ty),
            CExpr::Lit(_)
            | CExpr::Var(_)
            | CExpr::Index(_)
            | CExpr::WideIndex(_)
            | CExpr::IxLess(..) => {}
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
        })
    }

    /// Whether the expression is a variable or a literal, possibly negated (cheap to repeat).
    pub fn is_simple(&self) -> bool {
        match self {
            CExpr::Lit(_) | CExpr::Var(_) => true,
            CExpr::Neg(a) => matches!(**a, CExpr::Lit(_)),
            _ => false,
        }
    }

    /// C syntax.
    pub fn to_c(&self) -> String {
        let mut out = String::new();
        self.write_c(&mut out);
        out
    }

    /// Appends [`CExpr::to_c`] to `out`: one buffer for the whole expression, so printing is
    /// linear in its size however deep it is.
    pub fn write_c(&self, out: &mut String) {
        match self {
            CExpr::Bin(..) | CExpr::Neg(_) | CExpr::Cond(..) | CExpr::IxLess(..) => {
                out.push('(');
                self.write_c_bare(out);
                out.push(')');
            }
            CExpr::Lit(s) | CExpr::Var(s) => out.push_str(s),
            CExpr::Load {
                buf,
                idx,
                ty,
                aligned,
            } if ty.lanes == 1 => {
                let _ = aligned;
                let _ = write!(out, "{buf}[{}]", idx.to_c());
            }
            CExpr::Load {
                buf,
                idx,
                ty,
                aligned,
            } => {
                let _ = write!(
                    out,
                    "{}_load{}(&{buf}[{}])",
                    ty.name(),
                    if *aligned { "_aligned" } else { "" },
                    idx.to_c()
                );
            }
            CExpr::Index(i) => out.push_str(&i.to_c()),
            CExpr::Lane(v, l) => {
                guarded(|| v.write_c(out));
                let _ = write!(out, "[{}]", l.to_c());
            }
            CExpr::Lanes(ty, xs) => {
                let _ = write!(out, "({}){{", ty.name());
                for (k, x) in xs.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    guarded(|| x.write_c(out));
                }
                out.push('}');
            }
            CExpr::WideIndex(i) => out.push_str(&i.to_c_cast("long long")),
        }
    }

    /// Appends C syntax without parentheses around the whole expression, for a value that
    /// stands alone (an initialiser or the right-hand side of an assignment): `a + b` rather
    /// than `(a + b)`.
    pub fn write_c_bare(&self, out: &mut String) {
        guarded(|| match self {
            CExpr::Bin(op, a, b) => {
                a.write_c(out);
                let _ = write!(out, " {} ", op.symbol());
                b.write_c(out);
            }
            CExpr::Neg(a) => {
                out.push('-');
                a.write_c(out);
            }
            CExpr::Cond(c, a, b) => {
                c.write_c(out);
                out.push_str(" ? ");
                a.write_c(out);
                out.push_str(" : ");
                b.write_c(out);
            }
            CExpr::IxLess(a, b) => {
                let _ = write!(out, "{} < {}", a.to_c(), b.to_c());
            }
            CExpr::Index(i) => out.push_str(&i.to_c_bare()),
            _ => self.write_c(out),
        })
    }

    /// Whether the C variable or buffer `name` occurs in the expression.
    pub fn mentions(&self, name: &str) -> bool {
        guarded(|| match self {
            CExpr::Lit(_) => false,
            CExpr::Var(v) => v == name,
            CExpr::Load { buf, idx, .. } => buf == name || idx.mentions(name),
            CExpr::Index(i) | CExpr::WideIndex(i) => i.mentions(name),
            CExpr::Bin(_, a, b) => a.mentions(name) || b.mentions(name),
            CExpr::Neg(a) => a.mentions(name),
            CExpr::Lane(v, l) => v.mentions(name) || l.mentions(name),
            CExpr::Lanes(_, xs) => xs.iter().any(|x| x.mentions(name)),
            CExpr::Cond(c, a, b) => c.mentions(name) || a.mentions(name) || b.mentions(name),
            CExpr::IxLess(a, b) => a.mentions(name) || b.mentions(name),
        })
    }
}

/// What a loop, or an unrolled iteration, comes from: printed as its comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopOrigin {
    /// The loop of a Rise primitive (`mapSeq`, `mapPar`, `reduceSeq`, …).
    Primitive(Primitive),
    /// A copy of a view into an acceptor (a materialised value, an accumulator filled or
    /// emptied).
    Copy,
}

impl LoopOrigin {
    /// The name printed in the loop's comment: the primitive's, or `copy`.
    pub fn name(self) -> &'static str {
        match self {
            LoopOrigin::Primitive(p) => p.name(),
            LoopOrigin::Copy => "copy",
        }
    }
}

/// How the iterations of a counted loop run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// One after the other.
    Sequential,
    /// Shared among threads: `#pragma omp parallel for`.
    Parallel,
    /// Asked to run in parallel (`mapPar`) inside a parallel loop, so one after the other.
    NestedParallel,
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
        /// What produced it.
        origin: LoopOrigin,
        /// How its iterations run.
        schedule: Schedule,
        /// The body.
        body: Vec<Stmt>,
    },
    /// One iteration of an unrolled loop, `{ … }`, its index already substituted in the body.
    Unrolled {
        /// What produced the loop.
        origin: LoopOrigin,
        /// Which iteration (from 0).
        iteration: i64,
        /// The body.
        body: Vec<Stmt>,
    },
}

/// What [`Stmt::for_each_expr`] calls on each expression: the store it is the value of, if any
/// (`(buffer, index)`), and the expression.
pub type ExprVisitor<'f> = dyn FnMut(Option<(&str, &Ix)>, &CExpr) + 'f;

impl Stmt {
    /// Visits every expression with whether it is the value of a store to `Place::Mem` of
    /// `buf` at index `idx` (`Some((buf, idx))`), or elsewhere (`None`).
    pub fn for_each_expr(&self, f: &mut ExprVisitor<'_>) {
        match self {
            Stmt::Comment(_) | Stmt::LocalArray { .. } => {}
            Stmt::Decl { init, .. } => {
                if let Some(e) = init {
                    f(None, e)
                }
            }
            Stmt::Store(Place::Mem { buf, idx, .. }, e) => f(Some((buf, idx)), e),
            Stmt::Store(Place::Var(..), e) => f(None, e),
            Stmt::For { body, .. } | Stmt::Unrolled { body, .. } => {
                body.iter().for_each(|s| s.for_each_expr(f))
            }
        }
    }

    /// Whether any store writes to `buf`.
    #[cfg(any(test, feature = "testkit"))]
    pub fn stores_to(&self, target: &str) -> bool {
        match self {
            Stmt::Store(Place::Mem { buf, .. }, _) => buf == target,
            Stmt::For { body, .. } | Stmt::Unrolled { body, .. } => {
                body.iter().any(|s| s.stores_to(target))
            }
            _ => false,
        }
    }

    /// Whether the C variable or buffer `name` occurs in the statement (comments aside).
    pub fn mentions(&self, name: &str) -> bool {
        match self {
            Stmt::Comment(_) => false,
            Stmt::Decl { name: n, init, .. } => {
                n == name || init.as_ref().is_some_and(|e| e.mentions(name))
            }
            Stmt::LocalArray { name: n, .. } => n == name,
            Stmt::Store(place, e) => {
                e.mentions(name)
                    || match place {
                        Place::Mem { buf, idx, .. } => buf == name || idx.mentions(name),
                        Place::Var(v, lane) => {
                            v == name || lane.as_ref().is_some_and(|l| l.mentions(name))
                        }
                    }
            }
            Stmt::For {
                var, extent, body, ..
            } => var == name || extent.mentions(name) || body.iter().any(|s| s.mentions(name)),
            Stmt::Unrolled { body, .. } => body.iter().any(|s| s.mentions(name)),
        }
    }

    /// Whether the statement is, or contains, a parallel loop.
    pub fn has_parallel_loop(&self) -> bool {
        match self {
            Stmt::For {
                schedule: Schedule::Parallel,
                ..
            } => true,
            Stmt::For { body, .. } | Stmt::Unrolled { body, .. } => {
                body.iter().any(Stmt::has_parallel_loop)
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
                let _ = write!(out, "{pad}{} {name} = ", ty.name());
                e.write_c_bare(out);
                out.push_str(";\n");
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
            let mut value = String::new();
            e.write_c_bare(&mut value);
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
            origin,
            schedule,
            body,
        } => {
            let note = match schedule {
                Schedule::Sequential => "",
                Schedule::Parallel => {
                    let _ = writeln!(out, "{pad}#pragma omp parallel for");
                    ""
                }
                Schedule::NestedParallel => " (nested in a parallel loop: sequential)",
            };
            let _ = writeln!(
                out,
                "{pad}for (int {var} = 0; {var} < {}; {var}++) {{ // {}{note}",
                extent.to_c(),
                origin.name()
            );
            print_stmts(body, depth + 1, out);
            let _ = writeln!(out, "{pad}}}");
        }
        Stmt::Unrolled {
            origin,
            iteration,
            body,
        } => {
            let _ = writeln!(out, "{pad}{{ // {}: iteration {iteration}", origin.name());
            print_stmts(body, depth + 1, out);
            let _ = writeln!(out, "{pad}}}");
        }
    }
}
impl Drop for CExpr {
    /// Moves uniquely owned children out onto an explicit stack, so that dropping a deep
    /// expression (a 100,000-term sum) does not recurse once per level.
    fn drop(&mut self) {
        let mut pending: Vec<CExpr> = Vec::new();
        take_children(self, &mut pending);
        while let Some(mut e) = pending.pop() {
            take_children(&mut e, &mut pending);
        }
    }
}

/// Moves the children of `e` that nothing else shares into `out`, leaving leaves behind.
fn take_children(e: &mut CExpr, out: &mut Vec<CExpr>) {
    let mut take = |rc: &mut Rc<CExpr>| {
        if let Some(inner) = Rc::get_mut(rc) {
            out.push(std::mem::replace(inner, CExpr::Lit(String::new())));
        }
    };
    match e {
        CExpr::Bin(_, a, b) => {
            take(a);
            take(b);
        }
        CExpr::Neg(a) | CExpr::Lane(a, _) => take(a),
        CExpr::Cond(c, a, b) => {
            take(c);
            take(a);
            take(b);
        }
        CExpr::Lanes(_, xs) => out.append(xs),
        CExpr::Lit(_)
        | CExpr::Var(_)
        | CExpr::Load { .. }
        | CExpr::Index(_)
        | CExpr::IxLess(..)
        | CExpr::WideIndex(_) => {}
    }
}
