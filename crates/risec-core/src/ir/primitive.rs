//! The primitives of Rise: a fieldless enum with names and type schemes.
//!
//! Implicit size and type arguments (`{n s t}` in the spec) are not nodes of a term: the type of a
//! primitive node carries its instantiation. Explicit size arguments (`split 32`) are dependent
//! function types `(k : nat) -> …`, applied with a nat application node.

use crate::ir::nat::{self, Nat};
use crate::ir::types::{self, MetaKind, Type};

/// A Rise primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Primitive {
    // High level
    /// `map : {n s t} (s -> t) -> n.s -> n.t`
    Map,
    /// `reduce : {n t} (t -> t -> t) -> t -> n.t -> t`
    Reduce,
    /// `zip : {n s t} n.s -> n.t -> n.(s, t)`
    Zip,
    /// `unzip : {n s t} n.(s, t) -> (n.s, n.t)`
    Unzip,
    /// `fst : {s t} (s, t) -> s`
    Fst,
    /// `snd : {s t} (s, t) -> t`
    Snd,
    /// `makePair : {s t} s -> t -> (s, t)`
    MakePair,
    /// `split : (k : nat) -> {m t} (m*k).t -> m.k.t`
    Split,
    /// `join : {n m t} n.m.t -> (n*m).t`
    Join,
    /// `transpose : {n m t} n.m.t -> m.n.t`
    Transpose,
    /// `slide : (sz sp : nat) -> {n t} (sp*n + sz - sp).t -> n.sz.t`
    Slide,
    /// `pad : (l r : nat) -> {n t} t -> n.t -> (l+n+r).t`: pads with a constant.
    Pad,
    /// `padClamp : (l r : nat) -> {n t} n.t -> (l+n+r).t`: pads by repeating the border.
    PadClamp,
    /// `take : (n : nat) -> {m t} (n+m).t -> n.t`
    Take,
    /// `drop : (n : nat) -> {m t} (n+m).t -> m.t`
    Drop,
    /// `generate : {n t} (idx[n] -> t) -> n.t`
    Generate,
    /// `idx : {n t} idx[n] -> n.t -> t`
    Idx,
    /// `let : {s t} s -> (s -> t) -> t`
    Let,
    /// `add : {t} t -> t -> t` on scalars and vectors
    Add,
    /// `sub : {t} t -> t -> t`
    Sub,
    /// `mul : {t} t -> t -> t`
    Mul,
    /// `div : {t} t -> t -> t`
    Div,
    /// `neg : {t} t -> t`
    Neg,
    /// `lt : {t} t -> t -> bool`
    Lt,
    /// `gt : {t} t -> t -> bool`
    Gt,
    /// `eq : {t} t -> t -> bool`
    Eq,
    /// `select : {t} bool -> t -> t -> t`
    Select,
    // Low level
    /// `mapSeq`: `map` as a sequential loop.
    MapSeq,
    /// `mapSeqUnroll`: `map` as an unrolled loop.
    MapSeqUnroll,
    /// `mapPar`: `map` as an OpenMP parallel loop.
    MapPar,
    /// `reduceSeq : {n s t} (t -> s -> t) -> t -> n.s -> t`
    ReduceSeq,
    /// `reduceSeqUnroll`: `reduceSeq` as an unrolled loop.
    ReduceSeqUnroll,
    /// `toMem : {t} t -> t`: materialise a value in memory.
    ToMem,
    /// `asVector : (w : nat) -> {m t} (m*w).t -> m.<w>t`
    AsVector,
    /// `asVectorAligned`: `asVector` on aligned memory.
    AsVectorAligned,
    /// `asScalar : {m w t} m.<w>t -> (m*w).t`
    AsScalar,
    /// `vectorFromScalar : {w t} t -> <w>t`
    VectorFromScalar,
    // Math (after the others, so that the older primitives keep their discriminants)
    /// `exp : {t} t -> t`: e to the power of a float (lane-wise on vectors).
    Exp,
    /// `log : {t} t -> t`: the natural logarithm of a float (NaN below 0, -inf at 0).
    Log,
    /// `sqrt : {t} t -> t`: the square root of a float (NaN below 0).
    Sqrt,
    /// `abs : {t} t -> t`: the absolute value of a float (its sign bit cleared).
    Abs,
    /// `max : {t} t -> t -> t`: the larger of two floats; a NaN operand gives the other one.
    Max,
    /// `min : {t} t -> t -> t`: the smaller of two floats; a NaN operand gives the other one.
    Min,
    /// `natToFloat : (k : nat) -> {t} t`: the size `k` as an `f32` or `f64`.
    NatToFloat,
}

/// A polymorphic type: a template whose placeholders are inference variables numbered from 0
/// (sizes and types separately), replaced by fresh ones at each use.
#[derive(Clone, Debug)]
pub struct Scheme {
    /// How many size placeholders the template uses.
    pub nat_vars: u32,
    /// How many type placeholders the template uses.
    pub type_vars: u32,
    /// The type, with placeholders as metas `0..nat_vars` and `0..type_vars`.
    pub template: Type,
}

impl Scheme {
    /// The kind of type placeholder `i` (data-only or any type), as used in the template.
    pub fn template_kind(&self, i: u32) -> Option<MetaKind> {
        fn find(t: &Type, i: u32) -> Option<MetaKind> {
            use types::TypeNode::*;
            match t.get() {
                Meta(id, kind) if *id == i => Some(*kind),
                Meta(..) | Scalar(_) | Idx(_) => None,
                Array(_, e) | Vector(_, e) | NatFun(e) => find(e, i),
                Pair(a, b) | Fun(a, b) => find(a, i).or_else(|| find(b, i)),
            }
        }
        find(&self.template, i)
    }
}

impl Primitive {
    /// Every primitive, in declaration order.
    pub const ALL: [Primitive; 44] = {
        use Primitive::*;
        [
            Map,
            Reduce,
            Zip,
            Unzip,
            Fst,
            Snd,
            MakePair,
            Split,
            Join,
            Transpose,
            Slide,
            Pad,
            PadClamp,
            Take,
            Drop,
            Generate,
            Idx,
            Let,
            Add,
            Sub,
            Mul,
            Div,
            Neg,
            Lt,
            Gt,
            Eq,
            Select,
            MapSeq,
            MapSeqUnroll,
            MapPar,
            ReduceSeq,
            ReduceSeqUnroll,
            ToMem,
            AsVector,
            AsVectorAligned,
            AsScalar,
            VectorFromScalar,
            Exp,
            Log,
            Sqrt,
            Abs,
            Max,
            Min,
            NatToFloat,
        ]
    };

    /// The surface name.
    pub fn name(self) -> &'static str {
        use Primitive::*;
        match self {
            Map => "map",
            Reduce => "reduce",
            Zip => "zip",
            Unzip => "unzip",
            Fst => "fst",
            Snd => "snd",
            MakePair => "makePair",
            Split => "split",
            Join => "join",
            Transpose => "transpose",
            Slide => "slide",
            Pad => "pad",
            PadClamp => "padClamp",
            Take => "take",
            Drop => "drop",
            Generate => "generate",
            Idx => "idx",
            Let => "let",
            Add => "add",
            Sub => "sub",
            Mul => "mul",
            Div => "div",
            Neg => "neg",
            Lt => "lt",
            Gt => "gt",
            Eq => "eq",
            Select => "select",
            MapSeq => "mapSeq",
            MapSeqUnroll => "mapSeqUnroll",
            MapPar => "mapPar",
            ReduceSeq => "reduceSeq",
            ReduceSeqUnroll => "reduceSeqUnroll",
            ToMem => "toMem",
            AsVector => "asVector",
            AsVectorAligned => "asVectorAligned",
            AsScalar => "asScalar",
            VectorFromScalar => "vectorFromScalar",
            Exp => "exp",
            Log => "log",
            Sqrt => "sqrt",
            Abs => "abs",
            Max => "max",
            Min => "min",
            NatToFloat => "natToFloat",
        }
    }

    /// The primitive with this surface name.
    pub fn from_name(name: &str) -> Option<Primitive> {
        Primitive::ALL.iter().copied().find(|p| p.name() == name)
    }

    /// The number of explicit size arguments (`split 32` has one).
    pub fn nat_arity(self) -> usize {
        use Primitive::*;
        match self {
            Split | Take | Drop | AsVector | AsVectorAligned | NatToFloat => 1,
            Slide | Pad | PadClamp => 2,
            _ => 0,
        }
    }

    /// The number of value arguments after the size arguments.
    pub fn value_arity(self) -> usize {
        use Primitive::*;
        match self {
            Fst | Snd | Unzip | Split | Join | Transpose | Slide | PadClamp | Take | Drop
            | Generate | Neg | ToMem | AsVector | AsVectorAligned | AsScalar | VectorFromScalar
            | Exp | Log | Sqrt | Abs => 1,
            Zip | MakePair | Idx | Let | Add | Sub | Mul | Div | Lt | Gt | Eq | Pad | Map
            | MapSeq | MapSeqUnroll | MapPar | Max | Min => 2,
            Reduce | ReduceSeq | ReduceSeqUnroll | Select => 3,
            NatToFloat => 0,
        }
    }

    /// Whether the primitive is a scalar (or lane-wise vector) arithmetic operator whose type
    /// argument must be numeric.
    pub fn is_arithmetic(self) -> bool {
        use Primitive::*;
        matches!(self, Add | Sub | Mul | Div | Neg | Lt | Gt)
    }

    /// Whether the primitive is a math function on floats (`exp`, `log`, `sqrt`, `abs`, `max`,
    /// `min`): its type argument must be `f32`, `f64` or a vector of them, and it applies lane
    /// by lane to vectors.
    pub fn is_float_math(self) -> bool {
        use Primitive::*;
        matches!(self, Exp | Log | Sqrt | Abs | Max | Min)
    }

    /// Whether code generation understands it directly (the low-level primitives).
    pub fn is_low_level(self) -> bool {
        use Primitive::*;
        matches!(
            self,
            MapSeq
                | MapSeqUnroll
                | MapPar
                | ReduceSeq
                | ReduceSeqUnroll
                | ToMem
                | AsVector
                | AsVectorAligned
                | AsScalar
                | VectorFromScalar
        )
    }

    /// The type scheme.
    pub fn scheme(self) -> Scheme {
        use types::{array, fun, idx, nat_fun, pair, scalar, vector};
        use Primitive::*;
        let n = |i| nat::meta(i);
        let d = |i| types::meta(i, MetaKind::Data);
        let any = |i| types::meta(i, MetaKind::Any);
        let bool_t = || scalar(crate::ir::types::ScalarType::Bool);
        let k0 = || nat::index(0);
        let k1 = || nat::index(1);
        let (nat_vars, type_vars, template) = match self {
            Map | MapSeq | MapSeqUnroll | MapPar => (
                1,
                2,
                fun(fun(d(0), d(1)), fun(array(n(0), d(0)), array(n(0), d(1)))),
            ),
            Reduce => (
                1,
                1,
                fun(
                    fun(d(0), fun(d(0), d(0))),
                    fun(d(0), fun(array(n(0), d(0)), d(0))),
                ),
            ),
            ReduceSeq | ReduceSeqUnroll => (
                1,
                2,
                fun(
                    fun(d(1), fun(d(0), d(1))),
                    fun(d(1), fun(array(n(0), d(0)), d(1))),
                ),
            ),
            Zip => (
                1,
                2,
                fun(
                    array(n(0), d(0)),
                    fun(array(n(0), d(1)), array(n(0), pair(d(0), d(1)))),
                ),
            ),
            Unzip => (
                1,
                2,
                fun(
                    array(n(0), pair(d(0), d(1))),
                    pair(array(n(0), d(0)), array(n(0), d(1))),
                ),
            ),
            Fst => (0, 2, fun(pair(d(0), d(1)), d(0))),
            Snd => (0, 2, fun(pair(d(0), d(1)), d(1))),
            MakePair => (0, 2, fun(d(0), fun(d(1), pair(d(0), d(1))))),
            Split => (
                1,
                1,
                nat_fun(fun(
                    array(nat::mul(&n(0), &k0()), d(0)),
                    array(n(0), array(k0(), d(0))),
                )),
            ),
            Join => (
                2,
                1,
                fun(
                    array(n(0), array(n(1), d(0))),
                    array(nat::mul(&n(0), &n(1)), d(0)),
                ),
            ),
            Transpose => (
                2,
                1,
                fun(
                    array(n(0), array(n(1), d(0))),
                    array(n(1), array(n(0), d(0))),
                ),
            ),
            Slide => {
                // sz = #1, sp = #0
                let len = nat::sub(&nat::add(&nat::mul(&k0(), &n(0)), &k1()), &k0());
                (
                    1,
                    1,
                    nat_fun(nat_fun(fun(
                        array(len, d(0)),
                        array(n(0), array(k1(), d(0))),
                    ))),
                )
            }
            Pad => {
                let len = nat::add(&nat::add(&k1(), &n(0)), &k0());
                (
                    1,
                    1,
                    nat_fun(nat_fun(fun(d(0), fun(array(n(0), d(0)), array(len, d(0)))))),
                )
            }
            PadClamp => {
                let len = nat::add(&nat::add(&k1(), &n(0)), &k0());
                (
                    1,
                    1,
                    nat_fun(nat_fun(fun(array(n(0), d(0)), array(len, d(0))))),
                )
            }
            Take => (
                1,
                1,
                nat_fun(fun(array(nat::add(&k0(), &n(0)), d(0)), array(k0(), d(0)))),
            ),
            Drop => (
                1,
                1,
                nat_fun(fun(array(nat::add(&k0(), &n(0)), d(0)), array(n(0), d(0)))),
            ),
            Generate => (1, 1, fun(fun(idx(n(0)), d(0)), array(n(0), d(0)))),
            Idx => (1, 1, fun(idx(n(0)), fun(array(n(0), d(0)), d(0)))),
            Let => (0, 2, fun(any(0), fun(fun(any(0), any(1)), any(1)))),
            Add | Sub | Mul | Div | Max | Min => (0, 1, fun(d(0), fun(d(0), d(0)))),
            Neg | ToMem | Exp | Log | Sqrt | Abs => (0, 1, fun(d(0), d(0))),
            NatToFloat => (0, 1, nat_fun(d(0))),
            Lt | Gt | Eq => (0, 1, fun(d(0), fun(d(0), bool_t()))),
            Select => (0, 1, fun(bool_t(), fun(d(0), fun(d(0), d(0))))),
            AsVector | AsVectorAligned => (
                1,
                1,
                nat_fun(fun(
                    array(nat::mul(&n(0), &k0()), d(0)),
                    array(n(0), vector(k0(), d(0))),
                )),
            ),
            AsScalar => (
                2,
                1,
                fun(
                    array(n(0), vector(n(1), d(0))),
                    array(nat::mul(&n(0), &n(1)), d(0)),
                ),
            ),
            VectorFromScalar => (1, 1, fun(d(0), vector(n(0), d(0)))),
        };
        Scheme {
            nat_vars,
            type_vars,
            template,
        }
    }
}

/// Replaces the placeholders of `scheme` with the given sizes and types.
pub fn instantiate(scheme: &Scheme, nats: &[Nat], tys: &[Type]) -> Type {
    types::rebuild(
        &scheme.template,
        0,
        &mut |n, _| {
            nat::map_atoms(n, &mut |a| match a {
                nat::NatAtom::Meta(i) => nats.get(*i as usize).cloned(),
                _ => None,
            })
        },
        &mut |i, _, _| tys.get(i as usize).cloned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Primitive::ALL {
            assert_eq!(Primitive::from_name(p.name()), Some(p));
        }
    }

    #[test]
    fn arities_match_schemes() {
        for p in Primitive::ALL {
            let mut t = p.scheme().template;
            let mut nats = 0;
            while let types::TypeNode::NatFun(b) = t.get() {
                nats += 1;
                t = b.clone();
            }
            let mut values = 0;
            while let types::TypeNode::Fun(_, r) = t.get() {
                values += 1;
                t = r.clone();
            }
            assert_eq!(nats, p.nat_arity(), "{}", p.name());
            // `let`'s result may itself be a function; every other result is data.
            if p != Primitive::Let {
                assert_eq!(values, p.value_arity(), "{}", p.name());
            }
        }
    }
}
