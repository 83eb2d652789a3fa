//! Which sizes a program tolerates rounding up: whether zero-padding its inputs along some size
//! parameters leaves the in-range part of its result unchanged.
//!
//! A tiled kernel relies on divisibility facts (`m/32`: 32 divides m). When a size does not
//! satisfy them, the C backend can still run the kernel: it rounds the size up to the next
//! multiple, copies the inputs into zero-filled buffers of the rounded sizes, and copies the
//! in-range corner of the result back (`risec_backend::edges`). That is correct when the
//! *original* program (the one the kernel was derived from, which computes the same function at
//! every size the facts allow) gives, on the padded inputs, the same values at every in-range
//! position of its result. [`check_paddable`] decides this by an abstract interpretation of the program:
//!
//! * an array whose length is a padded size has *real* elements and *padding* elements, each
//!   described abstractly; inputs' padding elements are zeros;
//! * `map`, `zip`, `transpose`, `fst`, … keep real and padding elements apart;
//! * a reduction over a padded dimension keeps its real result only when the padding elements
//!   are neutral for the operator: applied to an accumulator and a padding element, it must give
//!   the accumulator back (`acc + 0`, `acc + 0 * 0`); `acc * 0` or `acc + 0 * x` (with `x`
//!   possibly infinite) are not;
//! * the result's real elements must equal the original ones; what padding positions hold does
//!   not matter, as they are not copied back.
//!
//! Anything the analysis does not model (`split`, `join`, `take`, … of a padded dimension;
//! `generate`, `idx`, nat lambdas) makes it answer no, with the reason: the kernel then keeps
//! its divisibility checks.

use super::{Expr, ExprKind, Literal};
use crate::ir::nat::{Nat, NatAtom};
use crate::ir::primitive::Primitive;
use crate::ir::types::{Type, TypeNode};
use std::rc::Rc;

mod primitives;
mod reshape;
use reshape::{array, forget, same_facts, scalar};

/// Why a program cannot be padded along the requested sizes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotPaddable(pub String);

type R<T> = Result<T, NotPaddable>;

fn refuse<T>(why: impl Into<String>) -> R<T> {
    Err(NotPaddable(why.into()))
}

/// What is known about a scalar value at one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Facts {
    /// Equals the value of the unpadded program at this position.
    same: bool,
    /// Is zero.
    zero: bool,
    /// Is the accumulator given to the operator being probed, unchanged.
    acc: bool,
}

impl Facts {
    const SAME: Facts = Facts {
        same: true,
        zero: false,
        acc: false,
    };
    const ZERO: Facts = Facts {
        same: false,
        zero: true,
        acc: false,
    };

    fn meet(self, o: Facts) -> Facts {
        Facts {
            same: self.same && o.same,
            zero: self.zero && o.zero,
            acc: self.acc && o.acc,
        }
    }
}

/// An abstract value.
#[derive(Clone, Debug)]
enum Abs<'a> {
    Scalar(Facts),
    Pair(Rc<Abs<'a>>, Rc<Abs<'a>>),
    /// An array: its real elements and, when its length is a padded size, its padding elements.
    Array {
        real: Rc<Abs<'a>>,
        pad: Option<Rc<Abs<'a>>>,
    },
    Closure {
        body: &'a Expr,
        env: Env<'a>,
    },
    /// A primitive with its size arguments (`slide 3 1`), applied to fewer arguments than it
    /// takes.
    Prim(Primitive, Vec<Nat>, Vec<Abs<'a>>),
}

type Env<'a> = Rc<Vec<Abs<'a>>>;

/// Abstract evaluation steps after which the analysis gives up (nested maps over padded arrays
/// evaluate their functions once for real and once for padding elements).
const STEP_LIMIT: usize = 1_000_000;

/// A program's term seen through its binders: the value parameters' types (outermost first)
/// and the body, inside `size_params` size lambdas; `None` when the size lambdas are not the
/// outermost binders.
fn peel(term: &Expr, size_params: usize) -> Option<(Vec<&Type>, &Expr)> {
    let mut body = term;
    for _ in 0..size_params {
        match &body.kind {
            ExprKind::NatLambda(b) => body = b,
            _ => return None,
        }
    }
    let mut params = Vec::new();
    while let (ExprKind::Lambda(b), TypeNode::Fun(param, _)) = (&body.kind, body.ty.get()) {
        params.push(param);
        body = b;
    }
    Some((params, body))
}

/// The size parameter (outermost first, of `count`) that nat index `j` inside all size
/// binders names.
fn size_param(count: usize, j: u32) -> Option<usize> {
    count.checked_sub(1 + j as usize)
}

/// Whether `n` is `a·P + c` for a size parameter `P` marked in `padded` (of `count`), a
/// positive constant `a` and any constant `c`: an array of that length has a prefix of real
/// elements and, when `P` is rounded up, padding after them (a stencil's input `(n+2)`, the
/// windows `slide` makes of it).
fn padded_form(n: &Nat, count: usize, padded: &[bool]) -> bool {
    let mut found = false;
    for (monomial, coefficient) in n.terms() {
        if monomial.is_constant() {
            continue;
        }
        let linear_padded = match monomial.factors() {
            [(NatAtom::Index(j), 1)] => size_param(count, *j).is_some_and(|p| padded[p]),
            _ => false,
        };
        let positive_whole = coefficient.is_integer() && coefficient.numer() > 0;
        if !linear_padded || !positive_whole || found {
            return false;
        }
        found = true;
    }
    found
}

/// Whether zero-padding the inputs along the size parameters marked in `padded` (one flag per
/// size parameter of `term`, outermost first) leaves every in-range element of the result
/// unchanged. `term` is a program's closed term: its size lambdas, then its value lambdas.
/// `names` are the size parameters' names (outermost first), for messages.
pub fn check_paddable(term: &Expr, padded: &[bool], names: &[String]) -> Result<(), NotPaddable> {
    let count = padded.len();
    let show = |t: &Type| {
        crate::ir::types::to_source(t, &mut names.to_vec(), &crate::ir::nat::default_atom_name)
    };
    let is_padded = |n: &Nat| padded_form(n, count, padded);
    let mentions_padded = |n: &Nat| {
        let mut found = Vec::new();
        crate::ir::nat::free_indices(n, 0, &mut found);
        found
            .iter()
            .any(|j| size_param(count, *j).is_some_and(|p| padded[p]))
    };
    let Some((params, body)) = peel(term, count) else {
        return refuse("the program's size parameters are not its outermost binders");
    };
    let inputs: Vec<Abs> = params
        .iter()
        .map(|param| input(param, false, &is_padded, &mentions_padded, &show))
        .collect::<R<_>>()?;
    check_dims(&body.ty, &is_padded, &mentions_padded, &show)?;
    let mut interp = Interp {
        steps: 0,
        mentions_padded: &mentions_padded,
        padded_form: &is_padded,
    };
    let result = interp.eval(body, &Rc::new(inputs))?;
    if real_same(&result) {
        Ok(())
    } else {
        refuse("the result's in-range elements would change: a reduction over a rounded-up size whose operator does not ignore zeros")
    }
}

/// Whether row `i` of the result depends only on row `i` of the inputs along size parameter
/// `size` (outermost first): the program's body is `map f x` over an input `x` whose outermost
/// dimension is that size, `f` reads no input that mentions it, and the size is the outermost
/// dimension of the result and of every input that mentions it, and appears nowhere else. The
/// C backend then computes the rows the tiles divide in place and only the last rows on
/// zero-padded copies (a prefix of rows is a prefix of memory). A syntactic check: `false`
/// means "not known".
pub fn rows_independent(term: &Expr, size_params: usize, size: usize) -> bool {
    let index = (size_params - 1 - size) as u32;
    let is_size = |n: &Nat| matches!(n.as_atom(), Some(NatAtom::Index(j)) if *j == index);
    // Where the size may appear in a type: as its outermost dimension only.
    let outermost_only = |t: &Type| -> Option<bool> {
        let (outer, rest) = match t.get() {
            TypeNode::Array(n, e) => (is_size(n), e.clone()),
            _ => (false, t.clone()),
        };
        if crate::ir::types::free_nats(&rest).contains(&index) {
            return None;
        }
        Some(outer)
    };
    let Some((params, body)) = peel(term, size_params) else {
        return false;
    };
    // For each value parameter (outermost first): whether the size is its outermost dimension.
    let Some(rows) = params
        .iter()
        .map(|param| outermost_only(param))
        .collect::<Option<Vec<bool>>>()
    else {
        return false;
    };
    if outermost_only(&body.ty) != Some(true) {
        return false;
    }
    let params = rows.len();
    // `map f x`, `x` a parameter whose rows are along the size.
    let ExprKind::App(mf, x) = &body.kind else {
        return false;
    };
    let ExprKind::App(m, f) = &mf.kind else {
        return false;
    };
    if !matches!(
        m.kind,
        ExprKind::Prim(Primitive::Map | Primitive::MapSeq | Primitive::MapPar)
    ) {
        return false;
    }
    let ExprKind::Var(xi) = x.kind else {
        return false;
    };
    let Some(xp) = params.checked_sub(1 + xi as usize) else {
        return false;
    };
    if !rows[xp] {
        return false;
    }
    let ExprKind::Lambda(inner) = &f.kind else {
        return false;
    };
    // Inside `f`'s body, parameter p is variable (params - 1 - p) + 1.
    (0..params)
        .filter(|p| rows[*p])
        .all(|p| !uses_var(inner, (params - p) as u32))
}

/// Whether variable `i` (a De Bruijn index at `e`'s root) occurs in `e`.
fn uses_var(e: &Expr, i: u32) -> bool {
    crate::support::stack::guarded(|| match &e.kind {
        ExprKind::Var(j) => *j == i,
        ExprKind::Lambda(b) => uses_var(b, i + 1),
        ExprKind::App(f, a) => uses_var(f, i) || uses_var(a, i),
        ExprKind::NatLambda(b) | ExprKind::NatApp(b, _) => uses_var(b, i),
        ExprKind::Prim(_) | ExprKind::Literal(_) => false,
    })
}

/// Every array dimension of `ty` is a padded size or does not mention one.
fn check_dims(
    ty: &Type,
    is_padded: &dyn Fn(&Nat) -> bool,
    mentions_padded: &dyn Fn(&Nat) -> bool,
    show: &dyn Fn(&Type) -> String,
) -> R<()> {
    match ty.get() {
        TypeNode::Array(n, t) => {
            if !is_padded(n) && mentions_padded(n) {
                return refuse(format!(
                    "a dimension of `{}` combines a rounded-up size with others",
                    show(ty)
                ));
            }
            check_dims(t, is_padded, mentions_padded, show)
        }
        TypeNode::Pair(a, b) => {
            check_dims(a, is_padded, mentions_padded, show)?;
            check_dims(b, is_padded, mentions_padded, show)
        }
        _ => Ok(()),
    }
}

/// The abstract value of an input of type `ty`; `in_padding`: at a padding position.
fn input<'a>(
    ty: &Type,
    in_padding: bool,
    is_padded: &dyn Fn(&Nat) -> bool,
    mentions_padded: &dyn Fn(&Nat) -> bool,
    show: &dyn Fn(&Type) -> String,
) -> R<Abs<'a>> {
    Ok(match ty.get() {
        TypeNode::Scalar(_) => Abs::Scalar(if in_padding { Facts::ZERO } else { Facts::SAME }),
        TypeNode::Array(n, t) => {
            check_dims(ty, is_padded, mentions_padded, show)?;
            Abs::Array {
                real: Rc::new(input(t, in_padding, is_padded, mentions_padded, show)?),
                pad: if is_padded(n) {
                    Some(Rc::new(input(t, true, is_padded, mentions_padded, show)?))
                } else {
                    None
                },
            }
        }
        TypeNode::Pair(a, b) => Abs::Pair(
            Rc::new(input(a, in_padding, is_padded, mentions_padded, show)?),
            Rc::new(input(b, in_padding, is_padded, mentions_padded, show)?),
        ),
        _ => return refuse(format!("an input of type `{}`", show(ty))),
    })
}

/// Whether every real element (following real positions only) equals the unpadded one.
fn real_same(v: &Abs) -> bool {
    match v {
        Abs::Scalar(f) => f.same,
        Abs::Pair(a, b) => real_same(a) && real_same(b),
        Abs::Array { real, .. } => real_same(real),
        Abs::Closure { .. } | Abs::Prim(..) => false,
    }
}

/// Whether the value is, everywhere, the probed accumulator unchanged.
fn is_acc(v: &Abs) -> bool {
    match v {
        Abs::Scalar(f) => f.acc,
        Abs::Pair(a, b) => is_acc(a) && is_acc(b),
        Abs::Array { real, pad } => is_acc(real) && pad.as_deref().is_none_or(is_acc),
        Abs::Closure { .. } | Abs::Prim(..) => false,
    }
}

/// `v` with every scalar marked as the probed accumulator (and nothing else known).
fn as_acc<'a>(v: &Abs<'a>) -> R<Abs<'a>> {
    Ok(match v {
        Abs::Scalar(_) => Abs::Scalar(Facts {
            same: false,
            zero: false,
            acc: true,
        }),
        Abs::Pair(a, b) => Abs::Pair(Rc::new(as_acc(a)?), Rc::new(as_acc(b)?)),
        Abs::Array { real, pad } => Abs::Array {
            real: Rc::new(as_acc(real)?),
            pad: pad.as_deref().map(as_acc).transpose()?.map(Rc::new),
        },
        Abs::Closure { .. } | Abs::Prim(..) => return refuse("a reduction over functions"),
    })
}

/// What two values of the same shape have in common.
fn meet<'a>(a: &Abs<'a>, b: &Abs<'a>) -> R<Abs<'a>> {
    Ok(match (a, b) {
        (Abs::Scalar(x), Abs::Scalar(y)) => Abs::Scalar(x.meet(*y)),
        (Abs::Pair(a1, a2), Abs::Pair(b1, b2)) => {
            Abs::Pair(Rc::new(meet(a1, b1)?), Rc::new(meet(a2, b2)?))
        }
        (Abs::Array { real: r1, pad: p1 }, Abs::Array { real: r2, pad: p2 }) => Abs::Array {
            real: Rc::new(meet(r1, r2)?),
            pad: match (p1, p2) {
                (Some(x), Some(y)) => Some(Rc::new(meet(x, y)?)),
                (None, None) => None,
                _ => return refuse("arrays of one length padded differently"),
            },
        },
        _ => return refuse("a reduction whose accumulator changes shape"),
    })
}

/// How many value arguments a primitive takes (its size arguments are applied before);
/// `None` for those the analysis does not model this way (`generate` is handled where it is
/// applied, `idx` not at all).
fn arity(p: Primitive) -> Option<usize> {
    match p {
        Primitive::Generate | Primitive::Idx => None,
        _ => Some(p.value_arity()),
    }
}

struct Interp<'p> {
    steps: usize,
    /// Whether a length mentions a rounded-up size.
    mentions_padded: &'p dyn Fn(&Nat) -> bool,
    /// Whether a length is `a·P + c` for a rounded-up size `P` (constants `a > 0`, `c`): its
    /// array has real elements (a prefix) and padding.
    padded_form: &'p dyn Fn(&Nat) -> bool,
}

impl Interp<'_> {
    fn eval<'a>(&mut self, e: &'a Expr, env: &Env<'a>) -> R<Abs<'a>> {
        self.steps += 1;
        if self.steps > STEP_LIMIT {
            return refuse("the program is too large to analyse");
        }
        crate::support::stack::guarded(|| match &e.kind {
            ExprKind::Var(i) => env
                .len()
                .checked_sub(1 + *i as usize)
                .map(|k| env[k].clone())
                .ok_or_else(|| NotPaddable("a free variable".into())),
            ExprKind::Lambda(body) => Ok(Abs::Closure {
                body,
                env: env.clone(),
            }),
            ExprKind::App(g, f) if matches!(g.kind, ExprKind::Prim(Primitive::Generate)) => {
                // `generate f`: its elements are `f` of an index; past the real length (when
                // its length is rounded up) they are what `f` gives there, unknown.
                let f = self.eval(f, env)?;
                let real = self.apply(f, Abs::Scalar(Facts::SAME))?;
                let pad = match e.ty.get() {
                    TypeNode::Array(n, _) if (self.mentions_padded)(n) => {
                        if !(self.padded_form)(n) {
                            return refuse("`generate` of a length that combines a rounded-up size with others");
                        }
                        Some(Rc::new(forget(&real)))
                    }
                    _ => None,
                };
                Ok(Abs::Array {
                    real: Rc::new(real),
                    pad,
                })
            }
            ExprKind::App(f, a) => {
                let f = self.eval(f, env)?;
                let a = self.eval(a, env)?;
                self.apply(f, a)
            }
            ExprKind::NatApp(f, n) => match &f.kind {
                // The size arguments of `slide 3 1` and the like.
                ExprKind::Prim(_) | ExprKind::NatApp(..) => match self.eval(f, env)? {
                    Abs::Prim(p, mut nats, args) if args.is_empty() => {
                        nats.push(n.clone());
                        if nats.len() == p.nat_arity() && p.value_arity() == 0 {
                            // `natToFloat k`: applied once its size is given.
                            return self.primitive(p, &nats, args);
                        }
                        Ok(Abs::Prim(p, nats, args))
                    }
                    _ => refuse("a function of sizes"),
                },
                _ => refuse("a function of sizes"),
            },
            ExprKind::NatLambda(_) => refuse("a function of sizes"),
            ExprKind::Prim(p) => Ok(Abs::Prim(*p, Vec::new(), Vec::new())),
            ExprKind::Literal(l) => {
                let zero = match l {
                    Literal::F32(b) => f32::from_bits(*b) == 0.0,
                    Literal::F64(b) => f64::from_bits(*b) == 0.0,
                    Literal::I32(i) => *i == 0,
                    Literal::I64(i) => *i == 0,
                    Literal::Bool(b) => !*b,
                };
                Ok(Abs::Scalar(Facts {
                    same: true,
                    zero,
                    acc: false,
                }))
            }
        })
    }

    fn apply<'a>(&mut self, f: Abs<'a>, a: Abs<'a>) -> R<Abs<'a>> {
        match f {
            Abs::Closure { body, env } => {
                let mut inner = (*env).clone();
                inner.push(a);
                self.eval(body, &Rc::new(inner))
            }
            Abs::Prim(p, nats, mut args) => {
                let Some(n) = arity(p) else {
                    return refuse(format!("`{}`", p.name()));
                };
                args.push(a);
                if args.len() < n {
                    Ok(Abs::Prim(p, nats, args))
                } else {
                    self.primitive(p, &nats, args)
                }
            }
            _ => refuse("applying a value that is not a function"),
        }
    }

    fn apply2<'a>(&mut self, f: &Abs<'a>, a: Abs<'a>, b: Abs<'a>) -> R<Abs<'a>> {
        let partial = self.apply(f.clone(), a)?;
        self.apply(partial, b)
    }
}
