//! Rise types, hash-consed: structural equality of two [`Type`]s is a pointer compare.
//!
//! Types are duplicated on every node of a typed term and on every e-class of the e-graph, so they
//! are interned once. Size parameters of a type are [`Nat`]s; a size bound by an enclosing nat
//! lambda or by a dependent function type `(n : nat) -> t` is a De Bruijn index in the nat index
//! space (index 0 is the innermost nat binder). [`TypeNode::Meta`] appears only during inference.

use crate::ir::intern::{self, Table};
use crate::ir::nat::{self, Nat, NatAtom};
use hashconsing::HConsed;
use std::fmt;

/// An interned type.
pub type Type = HConsed<TypeNode>;

/// Scalar element types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    /// 32-bit float.
    F32,
    /// 64-bit float.
    F64,
    /// 32-bit signed integer.
    I32,
    /// 64-bit signed integer.
    I64,
    /// Boolean.
    Bool,
}

impl ScalarType {
    /// The surface name (`f32`, …).
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::Bool => "bool",
        }
    }

    /// Parses a surface name.
    pub fn from_name(s: &str) -> Option<ScalarType> {
        Some(match s {
            "f32" => ScalarType::F32,
            "f64" => ScalarType::F64,
            "i32" => ScalarType::I32,
            "i64" => ScalarType::I64,
            "bool" => ScalarType::Bool,
            _ => return None,
        })
    }

    /// Whether arithmetic (`add`, `mul`, …) is defined on it.
    pub fn is_numeric(self) -> bool {
        self != ScalarType::Bool
    }
}

/// What an inference variable may stand for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MetaKind {
    /// Any type, functions included.
    Any,
    /// A data type only (array elements, pair components, primitives' `{s t}` parameters).
    Data,
}

/// The structure of a type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeNode {
    /// `f32`, `i32`, …
    Scalar(ScalarType),
    /// `idx[n]`: an index below `n`.
    Idx(Nat),
    /// `n.t`: an array of `n` elements.
    Array(Nat, Type),
    /// `(s, t)`.
    Pair(Type, Type),
    /// `<n>t`: a vector of `n` lanes of a scalar.
    Vector(Nat, Type),
    /// `s -> t`.
    Fun(Type, Type),
    /// `(n : nat) -> t`; inside `t`, nat index 0 is `n`.
    NatFun(Type),
    /// An inference variable; never part of a finished core term.
    Meta(u32, MetaKind),
}

/// The one table of interned types.
static TYPES: Table<TypeNode> = intern::table();

/// Interns a type node.
pub fn mk(node: TypeNode) -> Type {
    intern::intern(&TYPES, node)
}

/// A scalar type.
pub fn scalar(s: ScalarType) -> Type {
    mk(TypeNode::Scalar(s))
}

/// `n.elem`.
pub fn array(n: Nat, elem: Type) -> Type {
    mk(TypeNode::Array(n, elem))
}

/// `(a, b)`.
pub fn pair(a: Type, b: Type) -> Type {
    mk(TypeNode::Pair(a, b))
}

/// `<n>elem`.
pub fn vector(n: Nat, elem: Type) -> Type {
    mk(TypeNode::Vector(n, elem))
}

/// `idx[n]`.
pub fn idx(n: Nat) -> Type {
    mk(TypeNode::Idx(n))
}

/// `a -> b`.
pub fn fun(a: Type, b: Type) -> Type {
    mk(TypeNode::Fun(a, b))
}

/// `(n : nat) -> body`, with the bound size as nat index 0 of `body`.
pub fn nat_fun(body: Type) -> Type {
    mk(TypeNode::NatFun(body))
}

/// An inference variable.
pub fn meta(id: u32, kind: MetaKind) -> Type {
    mk(TypeNode::Meta(id, kind))
}

/// `f32`, the most common element type.
pub fn f32() -> Type {
    scalar(ScalarType::F32)
}

impl TypeNode {
    /// Whether this is a data type (no functions, no dependent functions).
    pub fn is_data(&self) -> bool {
        match self {
            TypeNode::Scalar(_) | TypeNode::Idx(_) => true,
            TypeNode::Array(_, t) | TypeNode::Vector(_, t) => t.is_data(),
            TypeNode::Pair(a, b) => a.is_data() && b.is_data(),
            TypeNode::Fun(..) | TypeNode::NatFun(_) => false,
            TypeNode::Meta(_, kind) => *kind == MetaKind::Data,
        }
    }

    /// Whether any inference variable (type or size) occurs.
    pub fn has_metas(&self) -> bool {
        let nat_has = |n: &Nat| n.any_atom(&mut |a| matches!(a, NatAtom::Meta(_)));
        match self {
            TypeNode::Scalar(_) => false,
            TypeNode::Idx(n) => nat_has(n),
            TypeNode::Array(n, t) | TypeNode::Vector(n, t) => nat_has(n) || t.has_metas(),
            TypeNode::Pair(a, b) | TypeNode::Fun(a, b) => a.has_metas() || b.has_metas(),
            TypeNode::NatFun(t) => t.has_metas(),
            TypeNode::Meta(..) => true,
        }
    }
}

/// Rebuilds `t`, replacing every size with `on_nat(size, depth)` (where `depth` counts the
/// `(n : nat) ->` binders crossed inside `t`) and every inference variable `m` with
/// `on_meta(m, kind, depth)` when that returns a type.
pub fn rebuild(
    t: &Type,
    depth: u32,
    on_nat: &mut dyn FnMut(&Nat, u32) -> Nat,
    on_meta: &mut dyn FnMut(u32, MetaKind, u32) -> Option<Type>,
) -> Type {
    // Unchanged subtrees are returned as they are, without interning them again.
    let same = |a: &Type, b: &Type| a == b;
    match t.get() {
        TypeNode::Scalar(_) => t.clone(),
        TypeNode::Idx(n) => {
            let n2 = on_nat(n, depth);
            if n2 == *n {
                t.clone()
            } else {
                idx(n2)
            }
        }
        TypeNode::Array(n, e) | TypeNode::Vector(n, e) => {
            let (n2, e2) = (on_nat(n, depth), rebuild(e, depth, on_nat, on_meta));
            if n2 == *n && same(&e2, e) {
                t.clone()
            } else if matches!(t.get(), TypeNode::Array(..)) {
                array(n2, e2)
            } else {
                vector(n2, e2)
            }
        }
        TypeNode::Pair(a, b) | TypeNode::Fun(a, b) => {
            let (a2, b2) = (
                rebuild(a, depth, on_nat, on_meta),
                rebuild(b, depth, on_nat, on_meta),
            );
            if same(&a2, a) && same(&b2, b) {
                t.clone()
            } else if matches!(t.get(), TypeNode::Pair(..)) {
                pair(a2, b2)
            } else {
                fun(a2, b2)
            }
        }
        TypeNode::NatFun(b) => {
            let b2 = rebuild(b, depth + 1, on_nat, on_meta);
            if same(&b2, b) {
                t.clone()
            } else {
                nat_fun(b2)
            }
        }
        TypeNode::Meta(id, kind) => on_meta(*id, *kind, depth).unwrap_or_else(|| t.clone()),
    }
}

/// The nat indices free in `t` (relative to the outside of `t`), sorted.
pub fn free_nats(t: &Type) -> Vec<u32> {
    use nat::free_indices as nat_indices;
    fn go(t: &Type, depth: u32, out: &mut Vec<u32>) {
        match t.get() {
            TypeNode::Scalar(_) | TypeNode::Meta(..) => {}
            TypeNode::Idx(n) => nat_indices(n, depth, out),
            TypeNode::Array(n, e) | TypeNode::Vector(n, e) => {
                nat_indices(n, depth, out);
                go(e, depth, out);
            }
            TypeNode::Pair(a, b) | TypeNode::Fun(a, b) => {
                go(a, depth, out);
                go(b, depth, out);
            }
            TypeNode::NatFun(b) => go(b, depth + 1, out),
        }
    }
    let mut out = Vec::new();
    go(t, 0, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}

/// Shifts the free nat indices `>= cutoff` of `t` by `delta` (binders inside `t` respected).
pub fn shift_nats(t: &Type, delta: i64, cutoff: u32) -> Type {
    rebuild(
        t,
        0,
        &mut |n, d| nat::shift(n, delta, cutoff + d),
        &mut |_, _, _| None,
    )
}

/// Substitutes `value` for the free nat index `target` of `t` and lowers the indices above it,
/// as when the binder of `target` is removed (nat beta reduction).
pub fn subst_nat(t: &Type, target: u32, value: &Nat) -> Type {
    rebuild(
        t,
        0,
        &mut |n, d| nat::subst_index(n, target + d, value),
        &mut |_, _, _| None,
    )
}

/// Instantiates a dependent function type `(n : nat) -> body` at `value`.
pub fn instantiate_nat_fun(body: &Type, value: &Nat) -> Type {
    subst_nat(body, 0, value)
}

/// Writes `t` in surface syntax. `nat_names` holds the names of the enclosing nat binders,
/// innermost last; binders inside `t` get fresh names. `other` names binder and meta atoms.
pub fn to_source(
    t: &Type,
    nat_names: &mut Vec<String>,
    other: &dyn Fn(&NatAtom) -> String,
) -> String {
    write_type(
        t,
        nat_names,
        other,
        &|id| format!("?t{id}"),
        &mut |_| None,
        false,
    )
}

/// [`to_source`], with the extent of an array written as `extent` gives it where it gives a
/// text (that must denote the same size). `extent` sees every array extent outside the nat
/// binders of `t`, in the order they are written.
pub fn to_source_with_extents(
    t: &Type,
    nat_names: &mut Vec<String>,
    other: &dyn Fn(&NatAtom) -> String,
    extent: &mut dyn FnMut(&Nat) -> Option<String>,
) -> String {
    write_type(t, nat_names, other, &|id| format!("?t{id}"), extent, false)
}

/// [`to_source`], with type inference variables named by `meta` (from their id) rather than
/// as `?t<id>`.
pub fn to_source_with_metas(
    t: &Type,
    nat_names: &mut Vec<String>,
    other: &dyn Fn(&NatAtom) -> String,
    meta: &dyn Fn(u32) -> String,
) -> String {
    write_type(t, nat_names, other, meta, &mut |_| None, false)
}

/// Writes a size in surface syntax: nat index `i` is named by `names` (innermost last), other
/// atoms by `other`; `atomic` parenthesises compound sizes.
pub fn nat_to_source(
    n: &Nat,
    names: &[String],
    other: &dyn Fn(&NatAtom) -> String,
    atomic: bool,
) -> String {
    nat::to_source(n, atomic, &|a| match a {
        NatAtom::Index(i) => names
            .len()
            .checked_sub(*i as usize + 1)
            .map(|k| names[k].clone())
            .unwrap_or_else(|| format!("#{i}")),
        other_atom => other(other_atom),
    })
}

/// A name for a new nat binder that clashes with none in `names`.
pub fn fresh_nat_name(names: &[String]) -> String {
    (names.len()..)
        .map(|i| format!("n{i}"))
        .find(|c| !names.contains(c))
        .expect("an unused name exists")
}

fn write_type(
    t: &Type,
    names: &mut Vec<String>,
    other: &dyn Fn(&NatAtom) -> String,
    meta: &dyn Fn(u32) -> String,
    extent: &mut dyn FnMut(&Nat) -> Option<String>,
    fun_lhs: bool,
) -> String {
    match t.get() {
        TypeNode::Scalar(s) => s.name().to_string(),
        TypeNode::Idx(n) => format!("idx[{}]", nat_to_source(n, names, other, false)),
        TypeNode::Array(n, e) => {
            let size = extent(n).unwrap_or_else(|| nat_to_source(n, names, other, true));
            format!("{size}.{}", write_type(e, names, other, meta, extent, true))
        }
        TypeNode::Vector(n, e) => {
            format!(
                "<{}>{}",
                nat_to_source(n, names, other, false),
                write_type(e, names, other, meta, extent, true)
            )
        }
        TypeNode::Pair(a, b) => format!(
            "({}, {})",
            write_type(a, names, other, meta, extent, false),
            write_type(b, names, other, meta, extent, false)
        ),
        TypeNode::Fun(a, b) => {
            let s = format!(
                "{} -> {}",
                write_type(a, names, other, meta, extent, true),
                write_type(b, names, other, meta, extent, false)
            );
            if fun_lhs {
                format!("({s})")
            } else {
                s
            }
        }
        TypeNode::NatFun(b) => {
            let name = fresh_nat_name(names);
            names.push(name.clone());
            // Extents under the binder are not the caller's: they may use it.
            let body = write_type(b, names, other, meta, &mut |_| None, false);
            names.pop();
            let s = format!("({name} : nat) -> {body}");
            if fun_lhs {
                format!("({s})")
            } else {
                s
            }
        }
        TypeNode::Meta(id, _) => meta(*id),
    }
}

impl fmt::Display for TypeNode {
    /// Debug rendering with indices as `#i`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = mk(self.clone());
        f.write_str(&to_source(&t, &mut Vec::new(), &nat::default_atom_name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_makes_equal_types_identical() {
        let a = array(nat::index(0), array(nat::lit(32), f32()));
        let b = array(nat::index(0), array(nat::lit(32), f32()));
        assert_eq!(a.uid(), b.uid());
        assert!(a.is_data());
        assert!(!fun(a.clone(), a).is_data());
    }

    #[test]
    fn nat_fun_instantiation_substitutes_and_shifts() {
        // (k : nat) -> (#1 * k).f32 -> #1.k.f32, instantiated at 4 in a context where #0 = m
        let body = fun(
            array(nat::mul(&nat::index(1), &nat::index(0)), f32()),
            array(nat::index(1), array(nat::index(0), f32())),
        );
        let inst = instantiate_nat_fun(&body, &nat::lit(4));
        let expected = fun(
            array(nat::mul(&nat::index(0), &nat::lit(4)), f32()),
            array(nat::index(0), array(nat::lit(4), f32())),
        );
        assert_eq!(inst, expected);
    }

    #[test]
    fn prints_surface_syntax() {
        let t = fun(
            array(
                nat::div(&nat::index(0), &nat::lit(32)),
                array(nat::lit(32), f32()),
            ),
            vector(nat::lit(4), f32()),
        );
        let mut names = vec!["m".to_string()];
        assert_eq!(
            to_source(&t, &mut names, &nat::default_atom_name),
            "(m/32).32.f32 -> <4>f32"
        );
        let dep = nat_fun(array(nat::index(0), f32()));
        assert_eq!(
            to_source(&dep, &mut names, &nat::default_atom_name),
            "(n1 : nat) -> n1.f32"
        );
    }
}
