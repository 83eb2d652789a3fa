//! Whether a loop body does nothing when the padding it reads is zero: the test behind
//! [`super::trim`]'s no-op iterations. The body is evaluated symbolically: the loads of
//! padding are zero, locals carry their symbolic values, `x + 0` is `x`, a product is zero
//! when both factors are (`0 * inf` is not zero), and every store must put back what was
//! there (`acc = acc + 0 * 0`).

use crate::c_ast::{BinOp, CExpr, Place, Stmt};
use crate::ix::Ix;
use std::collections::HashSet;
use std::rc::Rc;

/// A symbolic value in [`NoOp`]'s evaluation.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Sym {
    /// Zero.
    Zero,
    /// This expression (its variables and zero loads replaced).
    Expr(CExpr),
    /// Not known.
    Unknown,
}

/// The evaluation of a body with its padding loads as zero: does every store put back what
/// was there?
pub(super) struct NoOp<'a> {
    /// The locals of the body (declared inside it).
    pub locals: &'a HashSet<String>,
    /// The loads that read padding: (buffer, index, lanes).
    pub zero: &'a [(String, Ix, u64)],
    /// Local variables' values so far.
    pub vars: Vec<(String, Sym)>,
    /// Local array elements at constant offsets: (array, offset, lanes).
    pub cells: Vec<((String, i64, u64), Sym)>,
}

impl NoOp<'_> {
    /// Whether the statements are a no-op; `dead_stores`: checked stores with a dimension past
    /// its length need not be checked (they are dropped).
    pub fn body(&mut self, stmts: &[Stmt], dead_stores: bool) -> bool {
        for s in stmts {
            let ok = match s {
                Stmt::Comment(_) => true,
                Stmt::LocalArray { name, .. } | Stmt::ThreadSlice { name, .. } => {
                    self.cells.retain(|((b, ..), _)| b != name);
                    true
                }
                Stmt::Decl { name, init, .. } => {
                    let v = init.as_ref().map_or(Sym::Unknown, |e| self.eval(e));
                    self.set_var(name, v);
                    true
                }
                Stmt::Store(Place::Var(name, lane), e) => {
                    let v = self.eval(e);
                    if self.locals.contains(name) {
                        let v = if lane.is_some() { Sym::Unknown } else { v };
                        self.set_var(name, v);
                        true
                    } else {
                        lane.is_none() && v == Sym::Expr(CExpr::Var(name.clone()))
                    }
                }
                Stmt::Store(Place::Mem { buf, idx, ty, .. }, e) => {
                    let v = self.eval(e);
                    if self.locals.contains(buf) {
                        self.cells.retain(|((b, o, l), _)| {
                            !(b == buf && (idx.as_const() != Some(*o) || *l != ty.lanes))
                        });
                        if let Some(o) = idx.as_const() {
                            self.cells.push(((buf.clone(), o, ty.lanes), v));
                        }
                        true
                    } else {
                        same_place(&v, buf, idx, ty.lanes)
                    }
                }
                Stmt::EdgeStore {
                    buf,
                    idx,
                    ty,
                    value,
                    ..
                } => dead_stores || same_place(&self.eval(value), buf, idx, ty.lanes),
                Stmt::Unrolled { body, .. } => self.body(body, dead_stores),
                Stmt::For { body, .. } => {
                    // A loop is a no-op when one pass through its body is, and leaves every
                    // local it started from as it was (what the body declares is its own).
                    let (vars, cells) = (self.vars.clone(), self.cells.clone());
                    self.body(body, dead_stores)
                        && unchanged(&vars, &self.vars)
                        && unchanged(&cells, &self.cells)
                }
                // Loops split at padded borders are not made in the edges kernel.
                Stmt::IfElse { .. } | Stmt::Range { .. } => false,
            };
            if !ok {
                return false;
            }
        }
        true
    }

    fn set_var(&mut self, name: &str, v: Sym) {
        self.vars.retain(|(n, _)| n != name);
        self.vars.push((name.to_string(), v));
    }

    fn eval(&self, e: &CExpr) -> Sym {
        match e {
            CExpr::Lit(s) if crate::c_fold::is_zero_literal(s) => Sym::Zero,
            CExpr::Var(v) => self
                .vars
                .iter()
                .find(|(n, _)| n == v)
                .map_or_else(|| Sym::Expr(e.clone()), |(_, s)| s.clone()),
            CExpr::EdgeLoad { buf, idx, ty, .. } => {
                if self
                    .zero
                    .iter()
                    .any(|(b, i, l)| b == buf && i == idx && *l == ty.lanes)
                {
                    Sym::Zero
                } else {
                    Sym::Expr(e.clone())
                }
            }
            CExpr::Load { buf, idx, ty, .. } if self.locals.contains(buf) => {
                let at = idx.as_const();
                self.cells
                    .iter()
                    .find(|((b, o, l), _)| b == buf && Some(*o) == at && *l == ty.lanes)
                    .map_or(Sym::Unknown, |(_, s)| s.clone())
            }
            CExpr::Bin(op, a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                match (op, &x, &y) {
                    (_, Sym::Unknown, _) | (_, _, Sym::Unknown) => Sym::Unknown,
                    (BinOp::Mul, Sym::Zero, Sym::Zero) => Sym::Zero,
                    (BinOp::Add | BinOp::Sub, _, Sym::Zero) => x,
                    (BinOp::Add, Sym::Zero, _) => y,
                    _ => Sym::Expr(CExpr::Bin(*op, Rc::new(rebuild(x)), Rc::new(rebuild(y)))),
                }
            }
            CExpr::Neg(a) => match self.eval(a) {
                Sym::Zero => Sym::Zero,
                Sym::Unknown => Sym::Unknown,
                x => Sym::Expr(CExpr::Neg(Rc::new(rebuild(x)))),
            },
            CExpr::Lanes(t, xs) => {
                let vs: Vec<Sym> = xs.iter().map(|x| self.eval(x)).collect();
                if vs.iter().all(|v| *v == Sym::Zero) {
                    Sym::Zero
                } else if vs.contains(&Sym::Unknown) {
                    Sym::Unknown
                } else {
                    Sym::Expr(CExpr::Lanes(*t, vs.into_iter().map(rebuild).collect()))
                }
            }
            CExpr::Lane(v, l) => match self.eval(v) {
                Sym::Zero => Sym::Zero,
                Sym::Unknown => Sym::Unknown,
                x => Sym::Expr(CExpr::Lane(Rc::new(rebuild(x)), l.clone())),
            },
            // Conditions and the other forms: kept as they are when they depend on nothing the
            // evaluation changed, else not known.
            other => {
                let mut touched = false;
                other.for_each_load(&mut |b, _, _| touched |= self.locals.contains(b));
                other.for_each_edge_load(&mut |_| touched = true);
                if touched {
                    Sym::Unknown
                } else {
                    Sym::Expr(other.clone())
                }
            }
        }
    }
}

/// Whether every entry of `before` has the same value in `after`.
fn unchanged<K: PartialEq>(before: &[(K, Sym)], after: &[(K, Sym)]) -> bool {
    before
        .iter()
        .all(|(k, v)| after.iter().any(|(k2, w)| k2 == k && w == v))
}

/// The expression of a known symbolic value (zero as the literal `0`).
fn rebuild(s: Sym) -> CExpr {
    match s {
        Sym::Zero => CExpr::Lit("0".into()),
        Sym::Expr(e) => e,
        Sym::Unknown => CExpr::Lit("0 /* unknown */".into()),
    }
}

/// Whether `v` is the value at `buf[idx]` (of `lanes` lanes) before the store: the store puts
/// back what was there.
fn same_place(v: &Sym, buf: &str, idx: &Ix, lanes: u64) -> bool {
    match v {
        Sym::Expr(CExpr::Load {
            buf: b, idx: i, ty, ..
        })
        | Sym::Expr(CExpr::EdgeLoad {
            buf: b, idx: i, ty, ..
        }) => b == buf && i == idx && ty.lanes == lanes,
        _ => false,
    }
}
