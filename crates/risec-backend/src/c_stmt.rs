//! The statements of the C syntax tree ([`super::c_ast`] has the expressions): loops, stores,
//! declarations, and the checked forms of the edges kernel.

use super::c_ast::{CExpr, CType, Guard};
use super::ix::Ix;
use crate::ir::primitive::Primitive;
use crate::ir::types::ScalarType;

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
    /// Shared among threads in equal parts decided up front: `#pragma omp parallel for`.
    Parallel,
    /// Shared among threads one iteration at a time, taken as threads become free:
    /// `#pragma omp parallel for schedule(dynamic)` (loops that compute, see
    /// [`crate::translate::Translator::finish`]).
    ParallelDynamic,
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
    /// A thread's own slice of a per-thread heap temporary, taken inside a parallel loop:
    /// `T *restrict name = all + RISE_THREAD() * (len rounded up to 64 bytes);`.
    ThreadSlice {
        /// The element type.
        scalar: ScalarType,
        /// The slice's name (the temporary, as the body uses it).
        name: String,
        /// The buffer holding every thread's slice.
        all: String,
        /// Elements of one slice.
        len: Ix,
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
        /// A local `int` holding the number of iterations that do anything, when fewer than
        /// `extent` may (the edges kernel skips iterations that only write past the real
        /// sizes): the loop stops there.
        limit: Option<String>,
    },
    /// A store to an array whose sizes were rounded up inside the kernel: made only where
    /// `guard` holds (for a vector, the lanes in range, through `…_store_first`).
    EdgeStore {
        /// The buffer (the caller's array).
        buf: String,
        /// The element offset of the first lane, with the real sizes' strides.
        idx: Ix,
        /// The stored type.
        ty: CType,
        /// Where the element is in range.
        guard: Guard,
        /// The value.
        value: CExpr,
        /// Whether the address is proven aligned (a temporary of the kernel's).
        aligned: bool,
    },
    /// `if (cond) { then } else { otherwise }`: the edges kernel's loop bodies, without their
    /// checks where every access is in range, with them elsewhere; a loop split at padded
    /// borders, where its extent leaves an interior.
    IfElse {
        /// The condition, in C.
        cond: String,
        /// What the condition means, printed as its comment.
        note: &'static str,
        /// Where it holds.
        then: Vec<Stmt>,
        /// Where it does not.
        otherwise: Vec<Stmt>,
    },
    /// A loop over part of a variable's range, `for (int var = start; var < end; var++)`: the
    /// interior and borders of a loop split where padded views decide their choices
    /// ([`crate::interior`]); the variable keeps its full range's bounds in the body's indices.
    Range {
        /// The loop variable.
        var: String,
        /// The first iteration.
        start: Ix,
        /// One past the last iteration.
        end: Ix,
        /// What produced the loop it is part of.
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
            Stmt::Comment(_) | Stmt::LocalArray { .. } | Stmt::ThreadSlice { .. } => {}
            Stmt::Decl { init, .. } => {
                if let Some(e) = init {
                    f(None, e)
                }
            }
            Stmt::Store(Place::Mem { buf, idx, .. }, e) => f(Some((buf, idx)), e),
            Stmt::Store(Place::Var(..), e) => f(None, e),
            Stmt::EdgeStore {
                buf, idx, value, ..
            } => f(Some((buf, idx)), value),
            Stmt::For { body, .. } | Stmt::Range { body, .. } | Stmt::Unrolled { body, .. } => {
                body.iter().for_each(|s| s.for_each_expr(f))
            }
            Stmt::IfElse {
                then, otherwise, ..
            } => then
                .iter()
                .chain(otherwise)
                .for_each(|s| s.for_each_expr(f)),
        }
    }

    /// A store to an array of the edges kernel: checked where `guard` has a dimension, plain
    /// otherwise.
    pub fn edge_store(
        buf: String,
        idx: Ix,
        ty: CType,
        guard: Guard,
        value: CExpr,
        aligned: bool,
    ) -> Stmt {
        if guard.dims.is_empty() {
            return Stmt::Store(
                Place::Mem {
                    buf,
                    idx,
                    ty,
                    aligned,
                },
                value,
            );
        }
        Stmt::EdgeStore {
            buf,
            idx,
            ty,
            guard,
            value,
            aligned,
        }
    }

    /// Whether any store writes to `buf`.
    pub fn stores_to(&self, target: &str) -> bool {
        match self {
            Stmt::Store(Place::Mem { buf, .. }, _) | Stmt::EdgeStore { buf, .. } => buf == target,
            Stmt::For { body, .. } | Stmt::Range { body, .. } | Stmt::Unrolled { body, .. } => {
                body.iter().any(|s| s.stores_to(target))
            }
            Stmt::IfElse {
                then, otherwise, ..
            } => then.iter().chain(otherwise).any(|s| s.stores_to(target)),
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
            Stmt::ThreadSlice {
                name: n, all, len, ..
            } => n == name || all == name || len.mentions(name),
            Stmt::Store(place, e) => {
                e.mentions(name)
                    || match place {
                        Place::Mem { buf, idx, .. } => buf == name || idx.mentions(name),
                        Place::Var(v, lane) => {
                            v == name || lane.as_ref().is_some_and(|l| l.mentions(name))
                        }
                    }
            }
            Stmt::EdgeStore {
                buf,
                idx,
                guard,
                value,
                ..
            } => buf == name || idx.mentions(name) || guard.mentions(name) || value.mentions(name),
            Stmt::For {
                var,
                extent,
                body,
                limit,
                ..
            } => {
                var == name
                    || extent.mentions(name)
                    || limit.as_deref() == Some(name)
                    || body.iter().any(|s| s.mentions(name))
            }
            Stmt::Range {
                var,
                start,
                end,
                body,
                ..
            } => {
                var == name
                    || start.mentions(name)
                    || end.mentions(name)
                    || body.iter().any(|s| s.mentions(name))
            }
            Stmt::Unrolled { body, .. } => body.iter().any(|s| s.mentions(name)),
            Stmt::IfElse {
                cond,
                then,
                otherwise,
                ..
            } => cond.contains(name) || then.iter().chain(otherwise).any(|s| s.mentions(name)),
        }
    }

    /// The statement with each of its bodies (a loop's, an unrolled iteration's, both branches
    /// of an `if`) replaced by `f` of it; other statements as they are.
    pub fn with_bodies(&self, f: &mut dyn FnMut(&[Stmt]) -> Vec<Stmt>) -> Stmt {
        let mut s = self.clone();
        match &mut s {
            Stmt::For { body, .. } | Stmt::Range { body, .. } | Stmt::Unrolled { body, .. } => {
                *body = f(body)
            }
            Stmt::IfElse {
                then, otherwise, ..
            } => {
                *then = f(then);
                *otherwise = f(otherwise);
            }
            _ => {}
        }
        s
    }

    /// Whether the statement is, or contains, a parallel loop.
    pub fn has_parallel_loop(&self) -> bool {
        match self {
            Stmt::For {
                schedule: Schedule::Parallel | Schedule::ParallelDynamic,
                ..
            }
            | Stmt::Range {
                schedule: Schedule::Parallel | Schedule::ParallelDynamic,
                ..
            } => true,
            Stmt::For { body, .. } | Stmt::Range { body, .. } | Stmt::Unrolled { body, .. } => {
                body.iter().any(Stmt::has_parallel_loop)
            }
            Stmt::IfElse {
                then, otherwise, ..
            } => then.iter().chain(otherwise).any(Stmt::has_parallel_loop),
            _ => false,
        }
    }
}
