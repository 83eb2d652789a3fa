//! The abstract values of the count: what the counter knows about a value instead of the value
//! itself. Data is described only by whether it depends on the program's inputs ([`Dep`]);
//! functions are kept as closures, so that the counter can run their bodies where they are
//! applied.

use crate::core::Expr;
use crate::ir::nat::{Nat, NatAtom};
use crate::ir::primitive::Primitive;
use crate::ir::types::Type;
use std::rc::Rc;

/// Whether a data value depends on the program's value parameters, followed through pairs
/// (an array is described by its elements: `zip consts xs` is `Pair(Const, Input)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Dep {
    /// Known before the program runs: literals, indices, and what is computed from them alone.
    Const,
    /// May depend on a value parameter.
    Input,
    /// A pair whose components differ (never `Pair(Const, Const)` nor `Pair(Input, Input)`).
    Pair(Rc<Dep>, Rc<Dep>),
}

impl Dep {
    /// `Input` when `input`, else `Const`.
    pub(super) fn leaf(input: bool) -> Dep {
        if input {
            Dep::Input
        } else {
            Dep::Const
        }
    }

    /// The description of the pair `(a, b)`.
    pub(super) fn pair(a: Dep, b: Dep) -> Dep {
        match (a, b) {
            (Dep::Const, Dep::Const) => Dep::Const,
            (Dep::Input, Dep::Input) => Dep::Input,
            (a, b) => Dep::Pair(Rc::new(a), Rc::new(b)),
        }
    }

    /// The first component of a pair.
    pub(super) fn fst(&self) -> Dep {
        match self {
            Dep::Pair(a, _) => (**a).clone(),
            leaf => leaf.clone(),
        }
    }

    /// The second component of a pair.
    pub(super) fn snd(&self) -> Dep {
        match self {
            Dep::Pair(_, b) => (**b).clone(),
            leaf => leaf.clone(),
        }
    }

    /// Whether any part may depend on an input.
    pub(super) fn any_input(&self) -> bool {
        match self {
            Dep::Const => false,
            Dep::Input => true,
            Dep::Pair(a, b) => a.any_input() || b.any_input(),
        }
    }

    /// A value that may be either: input-dependent wherever one of them is.
    pub(super) fn join(&self, other: &Dep) -> Dep {
        match (self, other) {
            (Dep::Const, d) | (d, Dep::Const) => d.clone(),
            (Dep::Input, _) | (_, Dep::Input) => Dep::Input,
            (Dep::Pair(a, b), Dep::Pair(c, d)) => Dep::pair(a.join(c), b.join(d)),
        }
    }

    /// `Input` when `cond` (a value chosen by an input-dependent index or condition), else
    /// unchanged.
    pub(super) fn taint_if(self, cond: bool) -> Dep {
        if cond {
            Dep::Input
        } else {
            self
        }
    }
}

/// An abstract value.
#[derive(Clone)]
pub(super) enum Val<'a> {
    /// Data (scalars, indices, arrays, pairs, vectors).
    Data(Dep),
    /// `fun x => body` with its environment.
    Closure(&'a Expr, Env<'a>),
    /// `fun (n : nat) => body` with its environment.
    NatClosure(&'a Expr, Env<'a>),
    /// A primitive waiting for more arguments.
    Prim(Rc<Partial<'a>>),
}

/// A primitive with the arguments it has received so far.
#[derive(Clone)]
pub(super) struct Partial<'a> {
    /// The primitive.
    pub(super) prim: Primitive,
    /// The type of its node (in the nat context `nat_env` describes).
    pub(super) ty: &'a Type,
    /// The sizes of the nat variables in scope at the node.
    pub(super) nat_env: List<u64>,
    /// Its size arguments so far.
    pub(super) nats: Vec<u64>,
    /// Its value arguments so far.
    pub(super) args: Vec<Val<'a>>,
}

/// A persistent singly linked list, indexed from its head (De Bruijn index 0).
pub(super) struct List<T>(Option<Rc<(T, List<T>)>>);

impl<T> Clone for List<T> {
    fn clone(&self) -> List<T> {
        List(self.0.clone())
    }
}

impl<T> List<T> {
    /// The empty list.
    pub(super) fn new() -> List<T> {
        List(None)
    }

    /// The list with `head` in front.
    pub(super) fn push(&self, head: T) -> List<T> {
        List(Some(Rc::new((head, self.clone()))))
    }

    /// The element at `index`.
    pub(super) fn get(&self, index: u32) -> Option<&T> {
        let mut list = self;
        for _ in 0..index {
            list = &list.0.as_ref()?.1;
        }
        list.0.as_ref().map(|cell| &cell.0)
    }
}

impl<T> Drop for List<T> {
    /// Unlinks the cells no one else holds one by one (a long list would otherwise be dropped
    /// by a recursion as deep as the list is long).
    fn drop(&mut self) {
        let mut next = self.0.take();
        while let Some(cell) = next {
            next = match Rc::try_unwrap(cell) {
                Ok((_head, mut tail)) => tail.0.take(),
                Err(_) => None,
            };
        }
    }
}

/// The environment: abstract values of the expression variables and sizes of the nat
/// variables, each by De Bruijn index.
#[derive(Clone)]
pub(super) struct Env<'a> {
    values: List<Val<'a>>,
    pub(super) nats: List<u64>,
}

impl<'a> Env<'a> {
    /// The empty environment.
    pub(super) fn new() -> Env<'a> {
        Env {
            values: List::new(),
            nats: List::new(),
        }
    }

    /// The environment under one more expression binder, bound to `v`.
    pub(super) fn with_value(&self, v: Val<'a>) -> Env<'a> {
        Env {
            values: self.values.push(v),
            nats: self.nats.clone(),
        }
    }

    /// The environment under one more nat binder, bound to `n`.
    pub(super) fn with_nat(&self, n: u64) -> Env<'a> {
        Env {
            values: self.values.clone(),
            nats: self.nats.push(n),
        }
    }

    /// The value of expression variable `index`.
    pub(super) fn value(&self, index: u32) -> Option<&Val<'a>> {
        self.values.get(index)
    }
}

/// Evaluates a size in the context of a primitive node's type: `nats` are the primitive's size
/// arguments in the order given (the last is nat index 0), then come the sizes of `env`;
/// `None` when it does not evaluate to a natural number.
pub(super) fn eval_nat(n: &Nat, nats: &[u64], env: &List<u64>) -> Option<u64> {
    n.eval(&|a| match a {
        NatAtom::Index(i) => match nats.len().checked_sub(*i as usize + 1) {
            Some(k) => nats.get(k).copied(),
            None => env.get(*i - nats.len() as u32).copied(),
        },
        _ => None,
    })
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_kept_only_where_their_components_differ() {
        let mixed = Dep::pair(Dep::Const, Dep::Input);
        assert_eq!(Dep::pair(Dep::Input, Dep::Input), Dep::Input);
        assert_eq!(Dep::pair(Dep::Const, Dep::Const), Dep::Const);
        assert_eq!((mixed.fst(), mixed.snd()), (Dep::Const, Dep::Input));
        assert!(mixed.any_input());
        let flipped = Dep::pair(Dep::Input, Dep::Const);
        assert_eq!(mixed.join(&flipped), Dep::Input);
        assert_eq!(mixed.join(&Dep::Const), mixed);
        assert_eq!(mixed.clone().taint_if(true), Dep::Input);
    }

    #[test]
    fn a_long_list_is_dropped_without_deep_recursion() {
        let mut list = List::new();
        for i in 0..1_000_000u64 {
            list = list.push(i);
        }
        assert_eq!(list.get(0), Some(&999_999));
        assert_eq!(list.get(999_999), Some(&0));
        assert_eq!(list.get(1_000_000), None);
        drop(list);
    }
}
