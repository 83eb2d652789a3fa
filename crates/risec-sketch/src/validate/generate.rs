//! Random well-typed instances of a user rule's pattern variables, as Rise source text.
//!
//! The types come from the rule's two sides ([`crate::frontend::elab::infer_rule_variables`]),
//! with unknowns drawn at random ([`Choices`]): element types among `f32`, arrays and pairs of
//! it, sizes small or multiples of the sizes the rule names. A value of a data type is a fresh
//! program parameter (a random input); a function builds its result from its arguments and from
//! fresh parameters ([`Generator::value`]), so that what a rule does to a function's argument
//! shows in the result: every scalar it returns starts from a sum of a projection of every
//! argument in scope (arrays summed with `reduce`, pairs by both components), each times a
//! random coefficient. Beyond the first trial that sum is often bent ([`Shapes`]): squared,
//! multiplied by a second such sum, cut at a threshold (`select (lt s K) …`, `K` one of the
//! rule's constants where it has some), or two of these composed, so that a rule that is only
//! right for affine functions (`f (x + x) = f x + f x - f 0`) shows too. A `bool` result
//! compares such a sum with a threshold.

use crate::interp::random::Rng;
use crate::interp::sampling::Constants;
use crate::ir::nat::{Nat, NatAtom};
use crate::ir::types::{MetaKind, ScalarType, Type, TypeNode};
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
    /// Whether a value of this type holds an array (is one, or a pair with one).
    pub(super) fn holds_array(&self) -> bool {
        match self {
            Ty::Array(..) => true,
            Ty::Pair(a, b) => a.holds_array() || b.holds_array(),
            _ => false,
        }
    }

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

/// How the scalar results of generated functions are shaped.
pub(super) struct Shapes {
    /// Draws the shapes (its own generator, so that shapes do not shift the other draws).
    pub(super) rng: Rng,
    /// Whether sums may be bent (squares, products, thresholds); affine only otherwise.
    pub(super) nonlinear: bool,
    /// The rule's constants, used as thresholds.
    pub(super) constants: Constants,
}

/// Builds the source text of values, adding the program parameters they read.
pub(super) struct Generator {
    /// The program parameters: name and type.
    pub(super) params: Vec<(String, Ty)>,
    fresh: usize,
    shapes: Shapes,
}

/// The numeric scalar types, in the order projections and predicates try them.
const NUMERIC: [ScalarType; 4] = [
    ScalarType::F32,
    ScalarType::F64,
    ScalarType::I32,
    ScalarType::I64,
];

/// How deep generated functions may nest (functions returning functions, arrays of arrays).
const MAX_DEPTH: usize = 8;

impl Generator {
    /// A generator without parameters yet, whose functions are shaped by `shapes`.
    pub(super) fn new(shapes: Shapes) -> Generator {
        Generator {
            params: Vec::new(),
            fresh: 0,
            shapes,
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
                let (lets, inner) = self.bind(&x, a, scope);
                let body = self.value_at(b, &inner, depth + 1)?;
                format!("(fun ({x} : {a}) => {lets}{body})")
            }
            Ty::Array(_, e) => {
                let source = self.param(ty);
                let x = self.fresh("e");
                let (lets, inner) = self.bind(&x, e, scope);
                let body = self.value_at(e, &inner, depth + 1)?;
                format!("(map (fun ({x} : {e}) => {lets}{body}) {source})")
            }
            Ty::Pair(a, b) => {
                let (a, b) = (
                    self.value_at(a, scope, depth + 1)?,
                    self.value_at(b, scope, depth + 1)?,
                );
                format!("({a}, {b})")
            }
            Ty::Scalar(s) if s.is_numeric() => {
                let sum = self.sum(ty, *s, scope);
                self.bend(sum, ty, Some(*s), scope, 2)
            }
            Ty::Vector(_, e) if matches!(**e, Ty::Scalar(s) if s.is_numeric()) => {
                let sum = self.lane_sum(ty, scope);
                self.bend(sum, ty, None, scope, 2)
            }
            Ty::Scalar(ScalarType::Bool) => self.predicate(scope),
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

impl Generator {
    /// `scope` with the variable `x` of type `t` added, and the `let`s that go before a body in
    /// that scope. A variable that holds arrays is added as its projections to each numeric
    /// type, bound once, so that a body computed for every element of a large result does
    /// not sum the whole variable again each time.
    fn bind(&mut self, x: &str, t: &Ty, scope: &[(String, Ty)]) -> (String, Vec<(String, Ty)>) {
        let mut inner = scope.to_vec();
        if !t.holds_array() {
            inner.push((x.to_string(), t.clone()));
            return (String::new(), inner);
        }
        let mut lets = String::new();
        for s in NUMERIC {
            if let Some(p) = project(x, t, s, &mut || self.fresh("e")) {
                let name = self.fresh("p");
                lets.push_str(&format!("let {name} = {p} in "));
                inner.push((name, Ty::Scalar(s)));
            }
        }
        (lets, inner)
    }

    /// A parameter of scalar type `s` plus every variable of `scope` projected to `s` times a
    /// coefficient (a fresh parameter).
    fn sum(&mut self, ty: &Ty, s: ScalarType, scope: &[(String, Ty)]) -> String {
        let mut sum = self.param(ty);
        for (name, t) in scope {
            if let Some(p) = project(name, t, s, &mut || self.fresh("e")) {
                let c = self.param(ty);
                sum = format!("{sum} + {c} * {p}");
            }
        }
        format!("({sum})")
    }

    /// A parameter of vector type `ty` plus every variable of `scope` of that type.
    fn lane_sum(&mut self, ty: &Ty, scope: &[(String, Ty)]) -> String {
        let mut sum = self.param(ty);
        for (name, t) in scope {
            if t == ty {
                sum = format!("{sum} + {name}");
            }
        }
        format!("({sum})")
    }

    /// `sum` (of type `ty`, a scalar `scalar` or a vector of numbers; a function of `scope`)
    /// bent by a random shape, or left affine; `budget` bounds compositions.
    fn bend(
        &mut self,
        sum: String,
        ty: &Ty,
        scalar: Option<ScalarType>,
        scope: &[(String, Ty)],
        budget: usize,
    ) -> String {
        if !self.shapes.nonlinear || budget == 0 {
            return sum;
        }
        let shapes = if scalar.is_some() { 6 } else { 4 };
        match self.shapes.rng.below(shapes) {
            // Affine (a third of the time).
            0 | 1 => sum,
            // A square.
            2 => {
                let t = self.fresh("t");
                format!("(let {t} = {sum} in {t} * {t})")
            }
            // A product with another sum of the same arguments (other coefficients).
            3 => {
                let other = match scalar {
                    Some(s) => self.sum(ty, s, scope),
                    None => self.lane_sum(ty, scope),
                };
                format!("({sum} * {other})")
            }
            // A threshold: different functions below and above a constant.
            4 => {
                let s = scalar.expect("thresholds are drawn for scalars only");
                let (t, k) = (self.fresh("t"), self.threshold(ty, s));
                let (a, b) = (self.param(ty), self.param(ty));
                format!("(let {t} = {sum} in select (lt {t} {k}) ({t} * {a}) ({b} - {t}))")
            }
            // Two shapes composed.
            _ => {
                let inner = self.bend(sum, ty, scalar, scope, budget - 1);
                let t = self.fresh("t");
                let outer = self.bend(t.clone(), ty, scalar, scope, budget - 1);
                format!("(let {t} = {inner} in {outer})")
            }
        }
    }

    /// A value of type `ty` (scalar `s`) to compare with: one of the rule's constants of that
    /// kind (or, half of the time or without one, a fresh parameter).
    fn threshold(&mut self, ty: &Ty, s: ScalarType) -> String {
        let c = &self.shapes.constants;
        let float = matches!(s, ScalarType::F32 | ScalarType::F64);
        let k = if float { c.floats.len() } else { c.ints.len() };
        let rng = &mut self.shapes.rng;
        if k == 0 || rng.coin() {
            return self.param(ty);
        }
        let i = rng.below(k as u64) as usize;
        if float {
            literal_float(c.floats[i], s)
        } else {
            literal_int(c.ints[i], s)
        }
    }

    /// A `bool` that depends on the variables of `scope`: a sum of those of one numeric type
    /// (the first of `f32`, `f64`, `i32`, `i64` that one of them holds) compared with a
    /// threshold; a parameter where none holds a number.
    fn predicate(&mut self, scope: &[(String, Ty)]) -> String {
        let found = NUMERIC.into_iter().find(|s| {
            scope
                .iter()
                .any(|(n, t)| project(n, t, *s, &mut || String::new()).is_some())
        });
        let Some(s) = found else {
            return self.param(&Ty::Scalar(ScalarType::Bool));
        };
        let ty = Ty::Scalar(s);
        let sum = self.sum(&ty, s, scope);
        let sum = self.bend(sum, &ty, Some(s), scope, 1);
        let k = self.threshold(&ty, s);
        format!("(lt {sum} {k})")
    }
}

/// A float as a literal of type `s` (`f32` or `f64`), parenthesised when negative.
fn literal_float(v: f64, s: ScalarType) -> String {
    let (text, suffix) = if s == ScalarType::F64 {
        (format!("{:?}", v.abs()), "f64")
    } else {
        (format!("{:?}", (v as f32).abs()), "f32")
    };
    if v.is_sign_negative() {
        format!("(-{text}{suffix})")
    } else {
        format!("{text}{suffix}")
    }
}

/// An integer as a literal of type `s` (`i32` or `i64`, wrapped to it), parenthesised when
/// negative.
fn literal_int(v: i64, s: ScalarType) -> String {
    let (v, suffix) = if s == ScalarType::I32 {
        (v as i32 as i64, "i32")
    } else {
        (v, "i64")
    };
    if v < 0 {
        format!("(-{}{suffix})", v.unsigned_abs())
    } else {
        format!("{v}{suffix}")
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
        let i32 = || Box::new(Ty::Scalar(ScalarType::I32));
        let types = [
            Ty::Fun(f32(), f32()),
            Ty::Fun(
                Box::new(Ty::Array(3, f32())),
                Box::new(Ty::Pair(f32(), f32())),
            ),
            Ty::Array(2, Box::new(Ty::Array(3, f32()))),
            Ty::Fun(
                Box::new(Ty::Pair(f32(), Box::new(Ty::Array(2, f32())))),
                Box::new(Ty::Fun(f32(), Box::new(Ty::Array(4, f32())))),
            ),
            Ty::Fun(f32(), Box::new(Ty::Scalar(ScalarType::Bool))),
            Ty::Fun(i32(), i32()),
            Ty::Fun(
                Box::new(Ty::Vector(4, f32())),
                Box::new(Ty::Vector(4, f32())),
            ),
            Ty::Fun(
                Box::new(Ty::Scalar(ScalarType::F64)),
                Box::new(Ty::Scalar(ScalarType::F64)),
            ),
        ];
        let constants = Constants {
            floats: vec![1.0, -2.5, 1e8],
            ints: vec![3, -7],
        };
        let mut bent = 0;
        for seed in 0..24 {
            for ty in &types {
                let shapes = Shapes {
                    rng: Rng::new(seed),
                    nonlinear: seed > 0,
                    constants: constants.clone(),
                };
                let mut g = Generator::new(shapes);
                let scope = [("y".to_string(), Ty::Array(2, f32()))];
                let v = g.value(ty, &scope).unwrap();
                bent += usize::from(v.contains("let _t"));
                assert!(seed > 0 || !v.contains("let _t"), "{v}");
                let params: String = std::iter::once("(y : 2.f32)".to_string())
                    .chain(g.params.iter().map(|(n, t)| format!("({n} : {t})")))
                    .collect::<Vec<_>>()
                    .join(" ");
                let src = format!("def p {params} : {ty} = {v}");
                compile_source(&SourceFile::new("g.rise", src.clone()), None)
                    .unwrap_or_else(|e| panic!("{src}\n{e}"));
            }
        }
        assert!(bent > 24, "few functions are not affine: {bent}");
    }

    #[test]
    fn literals_read_back_as_the_constants() {
        assert_eq!(literal_float(1e8, ScalarType::F32), "100000000.0f32");
        assert_eq!(literal_float(-2.5, ScalarType::F64), "(-2.5f64)");
        assert_eq!(literal_int(-7, ScalarType::I32), "(-7i32)");
        assert_eq!(literal_int(3, ScalarType::I64), "3i64");
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
