//! A small C syntax tree for generated kernels: pure expressions (statements are in
//! [`super::c_stmt`], printing in [`super::c_print`]).
//!
//! Keeping statements as a tree (rather than text) lets the translation inspect what it generated,
//! e.g. to prove that a reduction may update its accumulator in place.

use super::c_math::{MathHelper, MathOp};
use super::ix::Ix;
use crate::ir::types::ScalarType;
use crate::support::stack::guarded;
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
    /// Lane by lane, `a` where the vector comparison `c` holds and `b` elsewhere:
    /// `RISE_SELECT(c, a, b)` (C has no `?:` on vectors).
    VecSelect(Rc<CExpr>, Rc<CExpr>, Rc<CExpr>),
    /// `a < b` on indices.
    IxLess(Ix, Ix),
    /// A math function of `ty` (a scalar, or lane by lane a vector) applied to its operands:
    /// `rise_expf(x)`, `RISE_MAX((a), (b))`.
    Math(MathOp, CType, Vec<Rc<CExpr>>),
    /// A size converted to a float scalar of type `ty`, computed in `long long` first:
    /// `((float)((long long)n * 2))`.
    SizeAs(CType, Ix),
    /// An index evaluated in `long long` rather than `int`: every variable in it is cast
    /// (`(long long)m * (long long)n`), so that checking it against `INT_MAX` cannot overflow.
    WideIndex(Ix),
    /// A load from an array whose sizes were rounded up inside the kernel (the edges kernel of
    /// [`super::edges`]): `buf[idx]` where `guard` holds, zero elsewhere (lane by lane for a
    /// vector).
    EdgeLoad {
        /// The buffer (the caller's array, at its real sizes).
        buf: String,
        /// The element offset of the first lane, with the real sizes' strides.
        idx: Ix,
        /// The loaded type.
        ty: CType,
        /// Where the element is in range.
        guard: Rc<Guard>,
        /// Whether the address is proven aligned (a temporary of the kernel's).
        aligned: bool,
    },
}

/// One dimension of an access to an array whose size along it was rounded up: the index
/// used and the array's real length there.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EdgeDim {
    /// The index along the dimension (of the first lane, for a vector).
    pub index: Ix,
    /// The real length.
    pub bound: Ix,
    /// Whether it is the array's innermost dimension (the one consecutive elements run along).
    pub innermost: bool,
    /// Whether a vector's lanes run along this dimension (lane `l` is at `index + l`).
    pub along_lanes: bool,
}

/// The condition under which an access to an array whose sizes were rounded up is in range:
/// every rounded-up dimension's index below its real length. Other dimensions need no check.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Guard {
    /// The rounded-up dimensions, outermost first.
    pub dims: Vec<EdgeDim>,
}

impl Guard {
    /// The condition in C for lane `lane` (`1` when there is nothing to check).
    pub fn condition(&self, lane: i64) -> String {
        let parts: Vec<String> = self
            .dims
            .iter()
            .map(|d| {
                let index = if d.along_lanes {
                    d.index.add(&Ix::constant(lane))
                } else {
                    d.index.clone()
                };
                format!("{} < {}", index.to_c(), d.bound.to_c())
            })
            .collect();
        if parts.is_empty() {
            "1".into()
        } else {
            parts.join(" && ")
        }
    }

    /// How many of the `lanes` lanes from the first one are in range, as C: the real length
    /// less the index along the lanes' dimension (the helpers `…_load_first` and
    /// `…_store_first` take every lane when it is `lanes` or more, none when it is 0 or less),
    /// where the other dimensions are in range.
    pub fn lanes_in_range(&self, lanes: u64) -> String {
        let others: Vec<String> = self
            .dims
            .iter()
            .filter(|d| !d.along_lanes)
            .map(|d| format!("{} < {}", d.index.to_c(), d.bound.to_c()))
            .collect();
        let count = match self.dims.iter().find(|d| d.along_lanes) {
            Some(d) => d.bound.sub(&d.index).to_c(),
            None => lanes.to_string(),
        };
        if others.is_empty() {
            count
        } else {
            format!("({} ? {count} : 0)", others.join(" && "))
        }
    }
}

impl CExpr {
    /// Calls `f` on every load in the expression.
    pub fn for_each_load(&self, f: &mut dyn FnMut(&str, &Ix, CType)) {
        guarded(|| match self {
            CExpr::Load { buf, idx, ty, .. } | CExpr::EdgeLoad { buf, idx, ty, .. } => {
                f(buf, idx, *ty)
            }
            _ => self.for_each_child(&mut |c| c.for_each_load(f)),
        })
    }

    /// Calls `f` on each direct sub-expression, in the order C evaluates them (a load's index
    /// is an [`Ix`], not a sub-expression): the one traversal the walks over loads, checked loads and math functions share.
    fn for_each_child(&self, f: &mut dyn FnMut(&CExpr)) {
        match self {
            CExpr::Bin(_, a, b) => {
                f(a);
                f(b);
            }
            CExpr::Math(_, _, xs) => xs.iter().for_each(|x| f(x)),
            CExpr::Lanes(_, xs) => xs.iter().for_each(&mut *f),
            CExpr::Neg(a) | CExpr::Lane(a, _) => f(a),
            CExpr::Cond(c, a, b) | CExpr::VecSelect(c, a, b) => {
                f(c);
                f(a);
                f(b);
            }
            CExpr::Lit(_)
            | CExpr::Var(_)
            | CExpr::Load { .. }
            | CExpr::Index(_)
            | CExpr::WideIndex(_)
            | CExpr::SizeAs(..)
            | CExpr::IxLess(..)
            | CExpr::EdgeLoad { .. } => {}
        }
    }

    /// A load from an array of the edges kernel: checked where `guard` has a dimension, plain
    /// otherwise.
    pub fn edge_load(buf: &str, idx: Ix, ty: CType, guard: Guard, aligned: bool) -> CExpr {
        if guard.dims.is_empty() {
            return CExpr::Load {
                buf: buf.to_string(),
                idx,
                ty,
                aligned,
            };
        }
        CExpr::EdgeLoad {
            buf: buf.to_string(),
            idx,
            ty,
            guard: Rc::new(guard),
            aligned,
        }
    }

    /// Calls `f` on every checked load ([`CExpr::EdgeLoad`]) in the expression.
    pub fn for_each_edge_load(&self, f: &mut dyn FnMut(&CExpr)) {
        guarded(|| match self {
            CExpr::EdgeLoad { .. } => f(self),
            _ => self.for_each_child(&mut |c| c.for_each_edge_load(f)),
        })
    }

    /// The expression with each checked load replaced by what `f` gives for it (kept where
    /// `f` gives `None`). Shared sub-trees are rewritten once, and stay shared.
    pub fn map_edge_loads(&self, f: &mut dyn FnMut(&CExpr) -> Option<CExpr>) -> CExpr {
        let mut seen: std::collections::HashMap<*const CExpr, Rc<CExpr>> =
            std::collections::HashMap::new();
        map_loads_in(self, f, &mut seen)
    }

    /// Whether a [`CExpr::VecSelect`] occurs in the expression (its C needs `RISE_SELECT`).
    pub fn has_vec_select(&self) -> bool {
        guarded(|| match self {
            CExpr::VecSelect(..) => true,
            CExpr::Bin(_, a, b) => a.has_vec_select() || b.has_vec_select(),
            CExpr::Neg(a) | CExpr::Lane(a, _) => a.has_vec_select(),
            CExpr::Lanes(_, xs) => xs.iter().any(CExpr::has_vec_select),
            CExpr::Cond(c, a, b) => c.has_vec_select() || a.has_vec_select() || b.has_vec_select(),
            CExpr::Math(_, _, xs) => xs.iter().any(|x| x.has_vec_select()),
            _ => false,
        })
    }

    /// Whether the expression calls a math function ([`CExpr::Math`]).
    pub fn calls_math(&self) -> bool {
        let mut found = false;
        self.for_each_math(&mut |_, _| found = true);
        found
    }

    /// Calls `f` on the helpers (macros, functions) every math function in the expression needs.
    pub fn for_each_math_helper(&self, f: &mut dyn FnMut(MathHelper)) {
        self.for_each_math(&mut |op, ty| op.helpers(ty).for_each(&mut *f));
    }

    /// Calls `f` on every math function in the expression, with its C type.
    fn for_each_math(&self, f: &mut dyn FnMut(MathOp, CType)) {
        guarded(|| {
            if let CExpr::Math(op, ty, _) = self {
                f(*op, *ty);
            }
            self.for_each_child(&mut |c| c.for_each_math(f));
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
            CExpr::VecSelect(..) => self.write_c_bare(out),
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
            CExpr::SizeAs(ty, i) => {
                let _ = write!(out, "(({})({}))", ty.name(), i.to_c_cast("long long"));
            }
            CExpr::Math(op, ty, xs) => {
                let (opening, is_macro) = op.call_opening(*ty);
                out.push_str(&opening);
                for (k, x) in xs.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    if is_macro {
                        out.push('(');
                    }
                    x.write_c_bare(out);
                    if is_macro {
                        out.push(')');
                    }
                }
                out.push(')');
            }
            CExpr::EdgeLoad {
                buf,
                idx,
                ty,
                guard,
                ..
            } => {
                if ty.lanes == 1 {
                    let _ = write!(out, "({} ? {buf}[{}] : 0)", guard.condition(0), idx.to_c());
                } else {
                    let _ = write!(
                        out,
                        "{}_load_first(&{buf}[{}], {})",
                        ty.name(),
                        idx.to_c(),
                        guard.lanes_in_range(ty.lanes)
                    );
                }
            }
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
            CExpr::VecSelect(c, a, b) => {
                // Each argument in parentheses: a vector literal's commas would split it.
                out.push_str("RISE_SELECT((");
                c.write_c_bare(out);
                out.push_str("), (");
                a.write_c_bare(out);
                out.push_str("), (");
                b.write_c_bare(out);
                out.push_str("))");
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
            CExpr::Math(_, _, xs) => xs.iter().any(|x| x.mentions(name)),
            CExpr::SizeAs(_, i) => i.mentions(name),
            CExpr::Neg(a) => a.mentions(name),
            CExpr::Lane(v, l) => v.mentions(name) || l.mentions(name),
            CExpr::Lanes(_, xs) => xs.iter().any(|x| x.mentions(name)),
            CExpr::Cond(c, a, b) | CExpr::VecSelect(c, a, b) => {
                c.mentions(name) || a.mentions(name) || b.mentions(name)
            }
            CExpr::IxLess(a, b) => a.mentions(name) || b.mentions(name),
            CExpr::EdgeLoad {
                buf, idx, guard, ..
            } => buf == name || idx.mentions(name) || guard.mentions(name),
        })
    }
}

impl Guard {
    /// Whether a variable or size named `name` occurs in the guard.
    pub fn mentions(&self, name: &str) -> bool {
        self.dims
            .iter()
            .any(|d| d.index.mentions(name) || d.bound.mentions(name))
    }
}

fn map_loads_in(
    e: &CExpr,
    f: &mut dyn FnMut(&CExpr) -> Option<CExpr>,
    seen: &mut std::collections::HashMap<*const CExpr, Rc<CExpr>>,
) -> CExpr {
    let mut rc = |x: &Rc<CExpr>, f: &mut dyn FnMut(&CExpr) -> Option<CExpr>| {
        let key = Rc::as_ptr(x);
        if let Some(done) = seen.get(&key) {
            return done.clone();
        }
        let done = Rc::new(guarded(|| map_loads_in(x, f, seen)));
        seen.insert(key, done.clone());
        done
    };
    match e {
        CExpr::EdgeLoad { .. } => f(e).unwrap_or_else(|| e.clone()),
        CExpr::Bin(op, a, b) => {
            let a = rc(a, f);
            CExpr::Bin(*op, a, rc(b, f))
        }
        CExpr::Neg(a) => CExpr::Neg(rc(a, f)),
        CExpr::Math(op, ty, xs) => CExpr::Math(*op, *ty, xs.iter().map(|x| rc(x, f)).collect()),
        CExpr::Lane(a, l) => CExpr::Lane(rc(a, f), l.clone()),
        CExpr::Lanes(t, xs) => CExpr::Lanes(
            *t,
            xs.iter()
                .map(|x| guarded(|| map_loads_in(x, f, seen)))
                .collect(),
        ),
        CExpr::Cond(c, a, b) => {
            let c = rc(c, f);
            let a = rc(a, f);
            CExpr::Cond(c, a, rc(b, f))
        }
        CExpr::VecSelect(c, a, b) => {
            let c = rc(c, f);
            let a = rc(a, f);
            CExpr::VecSelect(c, a, rc(b, f))
        }
        other => other.clone(),
    }
}

pub use super::c_print::print_stmts;
pub use super::c_stmt::{LoopOrigin, Place, Schedule, Stmt};

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
        CExpr::Cond(c, a, b) | CExpr::VecSelect(c, a, b) => {
            take(c);
            take(a);
            take(b);
        }
        CExpr::Lanes(_, xs) => out.append(xs),
        CExpr::Math(_, _, xs) => xs.iter_mut().for_each(&mut take),
        CExpr::Lit(_)
        | CExpr::Var(_)
        | CExpr::Load { .. }
        | CExpr::Index(_)
        | CExpr::IxLess(..)
        | CExpr::WideIndex(_)
        | CExpr::SizeAs(..)
        | CExpr::EdgeLoad { .. } => {}
    }
}
