//! What each primitive costs and how often it runs the functions it is given (the rules the
//! module documentation of [`super`] lists).

use super::count::{Counter, Uncountable, R};
use super::value::{eval_nat, Dep, Partial, Val};
use crate::ir::primitive::Primitive;
use crate::ir::types::{ScalarType, Type, TypeNode};

impl Counter {
    /// Runs a primitive that has all its arguments.
    pub(super) fn call<'a>(&mut self, p: &Partial<'a>) -> R<Val<'a>> {
        use Primitive::*;
        let arg = |i: usize| p.args.get(i).ok_or(Uncountable)?.data();
        let dep = match p.prim {
            Map | MapSeq | MapSeqUnroll | MapPar => {
                let (f, xs) = (p.args.first().ok_or(Uncountable)?, arg(1)?);
                let n = p.array_len(p.arg_type(1)?)?;
                self.repeated(n, |c| c.apply(f.clone(), Val::Data(xs.clone())))?
                    .into_data()?
            }
            Generate => {
                let f = p.args.first().ok_or(Uncountable)?;
                let n = p.array_len(p.result_type()?)?;
                self.repeated(n, |c| c.apply(f.clone(), Val::Data(Dep::Const)))?
                    .into_data()?
            }
            Reduce | ReduceSeq | ReduceSeqUnroll => {
                let f = p.args.first().ok_or(Uncountable)?;
                let n = p.array_len(p.arg_type(2)?)?;
                self.reduce(f, arg(1)?, arg(2)?, n)?
            }
            Let => {
                let f = p.args.get(1).ok_or(Uncountable)?;
                let x = p.args.first().ok_or(Uncountable)?;
                return self.apply(f.clone(), x.clone());
            }
            Zip | MakePair => Dep::pair(arg(0)?.clone(), arg(1)?.clone()),
            Fst => arg(0)?.fst(),
            Snd => arg(0)?.snd(),
            Unzip | Split | Join | Transpose | Slide | PadClamp | Take | Drop | ToMem
            | AsVector | AsVectorAligned | AsScalar | VectorFromScalar => arg(0)?.clone(),
            Pad => arg(0)?.join(arg(1)?),
            Idx => arg(1)?.clone().taint_if(arg(0)?.any_input()),
            Select => arg(1)?.join(arg(2)?).taint_if(arg(0)?.any_input()),
            Lt | Gt | Eq => Dep::leaf(arg(0)?.any_input() || arg(1)?.any_input()),
            Add | Sub | Mul | Div | Max | Min => self.arithmetic(p, arg(0)?.join(arg(1)?))?,
            Neg | Exp | Log | Sqrt | Abs => self.arithmetic(p, arg(0)?.clone())?,
            // A conversion of a size: known before the program reads its inputs.
            NatToFloat => Dep::Const,
        };
        Ok(Val::Data(dep))
    }

    /// Charges an arithmetic primitive whose result is described by `result`: one operation
    /// per float lane when an operand depends on an input, none when all are constants.
    fn arithmetic(&mut self, p: &Partial, result: Dep) -> R<Dep> {
        if result.any_input() {
            let lanes = float_lanes(p.arg_type(0)?, &|t| p.array_len(t))?;
            self.charge(lanes)?;
        }
        Ok(result)
    }

    /// `reduce f init xs` over `n` elements: `f` runs `n` times, each time on the loop-carried
    /// accumulator, described as input-dependent when any step's may be (the fixed point of
    /// `init ⊔ f acc x`, found without charging).
    fn reduce(&mut self, f: &Val, init: &Dep, xs: &Dep, n: u64) -> R<Dep> {
        if n == 0 {
            return Ok(init.clone());
        }
        let mut acc = init.clone();
        loop {
            // Each round only adds input dependence, so this ends within the depth of the type.
            let step = self.repeated(0, |c| c.apply2(f, &acc, xs))?;
            let next = acc.join(&step);
            if next == acc {
                break;
            }
            acc = next;
        }
        self.repeated(n, |c| c.apply2(f, &acc, xs))?;
        Ok(acc)
    }
}

impl Partial<'_> {
    /// The type of value argument `i`, in the context of the primitive's size arguments.
    fn arg_type(&self, i: usize) -> R<&Type> {
        let mut ty = self.strip_nats()?;
        for _ in 0..i {
            ty = match ty.get() {
                TypeNode::Fun(_, r) => r,
                _ => return Err(Uncountable),
            };
        }
        match ty.get() {
            TypeNode::Fun(a, _) => Ok(a),
            _ => Err(Uncountable),
        }
    }

    /// The type of the result, in the context of the primitive's size arguments.
    fn result_type(&self) -> R<&Type> {
        let mut ty = self.strip_nats()?;
        for _ in 0..self.prim.value_arity() {
            ty = match ty.get() {
                TypeNode::Fun(_, r) => r,
                _ => return Err(Uncountable),
            };
        }
        Ok(ty)
    }

    /// The node's type inside its dependent function types (one per size argument).
    fn strip_nats(&self) -> R<&Type> {
        let mut ty = self.ty;
        for _ in 0..self.prim.nat_arity() {
            ty = match ty.get() {
                TypeNode::NatFun(b) => b,
                _ => return Err(Uncountable),
            };
        }
        Ok(ty)
    }

    /// The length of an array type (or the lane count of a vector type) at these sizes.
    fn array_len(&self, ty: &Type) -> R<u64> {
        match ty.get() {
            TypeNode::Array(n, _) | TypeNode::Vector(n, _) => {
                eval_nat(n, &self.nats, &self.nat_env).ok_or(Uncountable)
            }
            _ => Err(Uncountable),
        }
    }
}

/// Whether `ty` is a float scalar or a vector of them.
pub(super) fn is_float(ty: &Type) -> bool {
    match ty.get() {
        TypeNode::Scalar(s) => matches!(s, ScalarType::F32 | ScalarType::F64),
        TypeNode::Vector(_, e) => is_float(e),
        _ => false,
    }
}

/// The float operations one arithmetic operation on `ty` performs: 1 on `f32` and `f64`, one
/// per lane on a vector of them, 0 on integers (`len` gives a vector's lane count).
fn float_lanes(ty: &Type, len: &dyn Fn(&Type) -> R<u64>) -> R<u64> {
    if !is_float(ty) {
        return Ok(0);
    }
    match ty.get() {
        TypeNode::Vector(..) => len(ty),
        _ => Ok(1),
    }
}
