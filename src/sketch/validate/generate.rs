//! Random well-typed instances of a user rule's pattern variables, as Rise source text.
//!
//! The types come from the rule's two sides ([`crate::frontend::elab::infer_rule_variables`]),
//! with unknowns drawn at random ([`Choices`]): element types among `f32`, arrays and pairs of
//! it, sizes small or multiples of the sizes the rule names. A value of a data type is a fresh
//! program parameter (a random input); a function builds its result from its arguments and from
//! fresh parameters ([`Generator::value`]), so that what a rule does to a function's argument
//! shows in the result: every scalar it returns sums a projection of every argument in scope
//! (arrays summed with `reduce`, pairs by both components), each times a random coefficient.

use crate::ir::nat::{Nat, NatAtom};
use crate::ir::types::{MetaKind, ScalarType, Type, TypeNode};
use crate::interp::random::Rng;
use std::collections::HashMap;
use std::fmt;

/// A concrete type of an instance: every size a number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Ty {
    /// A scalar.
    Scalar(ScalarType),
    /// `idx[n]`.
    Idx(u64),
    /// `n.t`.
    Array(u64, Box<Ty>),
    /// `<n>t`.
    Vector(u64, Box<Ty>),
    /// `(a, b)`.
    Pair(Box<Ty>, Box<Ty>),
    /// `a -> b`.
    Fun(Box<Ty>, Box<Ty>),
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Scalar(s) => write!(f, "{}", s.name()),
            Ty::Idx(n) => write!(f, "idx[{n}]"),
            Ty::Array(n, e) => write!(f, "{n}.{e}"),
            Ty::Vector(n, e) => write!(f, "<{n}>{e}"),
            Ty::Pair(a, b) => write!(f, "({a}, {b})"),
            Ty::Fun(a, b) => write!(f, "({a} -> {b})"),
        }
    }
}

impl Ty {
    /// How many scalars a value of this type holds (saturating; functions count 1).
    pub(super) fn elements(&self) -> u64 {
        match self {
            Ty::Array(n, e) | Ty::Vector(n, e) => n.saturating_mul(e.elements()),
            Ty::Pair(a, b) => a.elements().saturating_add(b.elements()),
            _ => 1,
        }
    }
}

/// Why no instance could be built from the types drawn.
#[derive(Clone, Debug)]
pub(super) enum Unfit {
    /// These draws do not work (a size is not a natural number); others may.
    Redraw(String),
    /// No draw can work (a type the generator cannot build a value of).
    Never(String),
}

/// The random choices for the unknowns of one trial: types and sizes, drawn on first use.
pub(super) struct Choices<'r> {
    rng: &'r mut Rng,
    types: HashMap<u32, Ty>,
    nats: HashMap<u32, u64>,
    /// Largest "small" size.
    max_size: u64,
    /// A size the rule names (the lcm of its literal sizes), of which sizes are often multiples.
    multiple: u64,
    /// Whether unknown types are all `f32` (simple instances, tried first).
    simple: bool,
}

impl<'r> Choices<'r> {
    /// Fresh choices drawn with `rng`; `simple` ones make every unknown type `f32`.
    pub(super) fn new(rng: &'r mut Rng, max_size: u64, multiple: u64, simple: bool) -> Choices<'r> {
        Choices {
            rng,
            types: HashMap::new(),
            nats: HashMap::new(),
            max_size: max_size.max(1),
            multiple: multiple.max(1),
            simple,
        }
    }

    /// The random number generator (for the values drawn after the types).
    pub(super) fn rng(&mut self) -> &mut Rng {
        self.rng
    }

    fn size(&mut self) -> u64 {
        if self.multiple > 1 && self.rng.coin() {
            self.multiple * (1 + self.rng.below(2))
        } else {
            1 + self.rng.below(self.max_size)
        }
    }

    /// The value of a size, drawing its unknowns.
    pub(super) fn nat(&mut self, n: &Nat) -> Result<u64, Unfit> {
        let mut metas = Vec::new();
        n.any_atom(&mut |a| {
            if let NatAtom::Meta(id) = a {
                metas.push(*id);
            }
            false
        });
        for id in metas {
            if !self.nats.contains_key(&id) {
                let v = self.size();
                self.nats.insert(id, v);
            }
        }
        let nats = &self.nats;
        n.eval(&|a| match a {
            NatAtom::Meta(id) => nats.get(id).copied(),
            _ => None,
        })
        .map_err(|e| Unfit::Redraw(format!("a size is not a natural number: {e}")))
    }

    fn meta_type(&mut self, id: u32, kind: MetaKind) -> Ty {
        if let Some(t) = self.types.get(&id) {
            return t.clone();
        }
        let _ = kind; // functions are never drawn: a meta that must be one is solved already
        let f32 = || Ty::Scalar(ScalarType::F32);
        let t = match self.rng.below(10) {
            _ if self.simple => f32(),
            0..=4 => f32(),
            5..=7 => Ty::Array(self.size(), Box::new(f32())),
            8 => Ty::Pair(Box::new(f32()), Box::new(f32())),
            _ => {
                let (a, b) = (self.size(), self.size());
                Ty::Array(a, Box::new(Ty::Array(b, Box::new(f32()))))
            }
        };
        self.types.insert(id, t.clone());
        t
    }

    /// The concrete type of `t`, drawing its unknowns.
    pub(super) fn ty(&mut self, t: &Type) -> Result<Ty, Unfit> {
        Ok(match t.get() {
            TypeNode::Scalar(s) => Ty::Scalar(*s),
            TypeNode::Idx(n) => Ty::Idx(self.nat(n)?),
            TypeNode::Array(n, e) => Ty::Array(self.nat(n)?, Box::new(self.ty(e)?)),
            TypeNode::Vector(n, e) => Ty::Vector(self.nat(n)?, Box::new(self.ty(e)?)),
            TypeNode::Pair(a, b) => Ty::Pair(Box::new(self.ty(a)?), Box::new(self.ty(b)?)),
            TypeNode::Fun(a, b) => Ty::Fun(Box::new(self.ty(a)?), Box::new(self.ty(b)?)),
            TypeNode::Meta(id, kind) => self.meta_type(*id, *kind),
            TypeNode::NatFun(_) => {
                return Err(Unfit::Never(format!(
                    "values of the type `{t}`, which takes a size, cannot be generated"
                )))
            }
        })
    }
}

/// Builds the source text of values, adding the program parameters they read.
pub(super) struct Generator {
    /// The program parameters: name and type.
    pub(super) params: Vec<(String, Ty)>,
    fresh: usize,
}

/// How deep generated functions may nest (functions returning functions, arrays of arrays).
const MAX_DEPTH: usize = 8;

impl Generator {
    /// A generator without parameters yet.
    pub(super) fn new() -> Generator {
        Generator {
            params: Vec::new(),
            fresh: 0,
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("_{prefix}{}", self.fresh)
    }

    /// A new program parameter of type `ty`; its name.
    pub(super) fn param(&mut self, ty: &Ty) -> String {
        let name = self.fresh("in");
        self.params.push((name.clone(), ty.clone()));
        name
    }

    /// The source of a value of type `ty` that depends on every variable of `scope` (their
    /// names and types) that can be summed into it.
    pub(super) fn value(&mut self, ty: &Ty, scope: &[(String, Ty)]) -> Result<String, Unfit> {
        self.value_at(ty, scope, 0)
    }

    fn value_at(&mut self, ty: &Ty, scope: &[(String, Ty)], depth: usize) -> Result<String, Unfit> {
        if depth > MAX_DEPTH {
            return Err(Unfit::Never(format!(
                "the type `{ty}` nests too deeply to generate values of it"
            )));
        }
        Ok(match ty {
            Ty::Fun(a, b) => {
                let x = self.fresh("a");
                let mut inner = scope.to_vec();
                inner.push((x.clone(), (**a).clone()));
                let body = self.value_at(b, &inner, depth + 1)?;
                format!("(fun ({x} : {a}) => {body})")
            }
            Ty::Array(_, e) => {
                let source = self.param(ty);
                let x = self.fresh("e");
                let mut inner = scope.to_vec();
                inner.push((x.clone(), (**e).clone()));
                let body = self.value_at(e, &inner, depth + 1)?;
                format!("(map (fun ({x} : {e}) => {body}) {source})")
            }
            Ty::Pair(a, b) => {
                let (a, b) = (
                    self.value_at(a, scope, depth + 1)?,
                    self.value_at(b, scope, depth + 1)?,
                );
                format!("({a}, {b})")
            }
            Ty::Scalar(s) if s.is_numeric() => {
                let mut sum = self.param(ty);
                for (name, t) in scope {
                    if let Some(p) = project(name, t, *s, &mut || self.fresh("e")) {
                        let c = self.param(ty);
                        sum = format!("{sum} + {c} * {p}");
                    }
                }
                format!("({sum})")
            }
            Ty::Vector(_, e) if matches!(**e, Ty::Scalar(s) if s.is_numeric()) => {
                let mut sum = self.param(ty);
                for (name, t) in scope {
                    if t == ty {
                        sum = format!("{sum} + {name}");
                    }
                }
                format!("({sum})")
            }
            Ty::Idx(_) => {
                let same: Vec<&String> = scope
                    .iter()
                    .filter(|(_, t)| t == ty)
                    .map(|(n, _)| n)
                    .collect();
                match same.last() {
                    Some(n) => (*n).clone(),
                    None => self.param(ty),
                }
            }
            Ty::Scalar(_) | Ty::Vector(..) => self.param(ty),
        })
    }
}

/// The zero of a numeric scalar type, as a literal.
fn zero(s: ScalarType) -> &'static str {
    match s {
        ScalarType::F64 => "0.0f64",
        ScalarType::I32 => "0i32",
        ScalarType::I64 => "0i64",
        _ => "0.0",
    }
}

/// A scalar of type `s` computed from the variable `name` of type `t` (its elements summed),
/// or `None` when it holds no such scalar.
fn project(name: &str, t: &Ty, s: ScalarType, fresh: &mut dyn FnMut() -> String) -> Option<String> {
    match t {
        Ty::Scalar(u) if *u == s => Some(name.to_string()),
        Ty::Array(_, e) if **e == Ty::Scalar(s) => Some(format!("(reduce (+) {} {name})", zero(s))),
        Ty::Array(_, e) => {
            let x = fresh();
            let inner = project(&x, e, s, fresh)?;
            Some(format!(
                "(reduce (+) {} (map (fun ({x} : {e}) => {inner}) {name}))",
                zero(s)
            ))
        }
        Ty::Pair(a, b) => {
            let pa = project(&format!("(fst {name})"), a, s, fresh);
            let pb = project(&format!("(snd {name})"), b, s, fresh);
            match (pa, pb) {
                (Some(a), Some(b)) => Some(format!("({a} + {b})")),
                (one, other) => one.or(other),
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::SourceFile;
    use crate::frontend::load::compile_source;

    #[test]
    fn generated_values_have_their_types() {
        let f32 = || Box::new(Ty::Scalar(ScalarType::F32));
        let types = [
            Ty::Fun(f32(), f32()),
            Ty::Fun(Box::new(Ty::Array(3, f32())), Box::new(Ty::Pair(f32(), f32()))),
            Ty::Array(2, Box::new(Ty::Array(3, f32()))),
            Ty::Fun(
                Box::new(Ty::Pair(f32(), Box::new(Ty::Array(2, f32())))),
                Box::new(Ty::Fun(f32(), Box::new(Ty::Array(4, f32())))),
            ),
        ];
        for ty in &types {
            let mut g = Generator::new();
            let scope = [("y".to_string(), Ty::Array(2, f32()))];
            let v = g.value(ty, &scope).unwrap();
            let params: String = std::iter::once("(y : 2.f32)".to_string())
                .chain(g.params.iter().map(|(n, t)| format!("({n} : {t})")))
                .collect::<Vec<_>>()
                .join(" ");
            let src = format!("def p {params} : {ty} = {v}");
            compile_source(&SourceFile::new("g.rise", src.clone()), None)
                .unwrap_or_else(|e| panic!("{src}\n{e}"));
        }
    }

    #[test]
    fn unknowns_are_drawn_once() {
        let mut rng = Rng::new(3);
        let mut c = Choices::new(&mut rng, 4, 6, false);
        let m = crate::ir::types::meta(7, MetaKind::Data);
        let a = c.ty(&m).unwrap();
        assert_eq!(c.ty(&m).unwrap(), a);
        let n = crate::ir::nat::meta(9);
        let v = c.nat(&n).unwrap();
        assert!((1..=4).contains(&v) || v % 6 == 0, "{v}");
        assert_eq!(c.nat(&n).unwrap(), v);
    }
}
