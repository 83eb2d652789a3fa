//! The math functions in the generated C: `exp`, `log`, `sqrt`, `abs`, `max` and `min` on
//! `float` and `double`, and lane by lane on vectors of them.
//!
//! Scalars call GCC's builtins (`__builtin_expf`, `__builtin_sqrt`, …), which need no header (so
//! no name of `math.h` can clash with a program's names) and link to the C library's `expf`,
//! `logf`, … (the harness links with `-lm`); `sqrt` and `abs` become single instructions. `max`
//! and `min` are the helper macros `RISE_MAX` and `RISE_MIN`: the first operand where it is
//! larger (smaller) or the second is NaN, else the second, exactly the interpreter's rule (C's
//! `fmaxf` is a library call at `-O3` without `-ffast-math`, and may differ on the sign of a
//! zero). Vectors: `RISE_VMAX` and `RISE_VMIN` choose lanes with bit masks (C has no `?:` on
//! vectors), and `RISE_LANEWISE(f, v)` applies a scalar builtin to each lane (GCC's vector
//! extension has no `exp`; gcc turns the lane loop of `sqrt` and `abs` into vector
//! instructions). Each helper is written into the file only when a kernel uses it, so files
//! without math functions are unchanged. The macros' locals start with `_rise_`, a spelling
//! no name of the generated code has (program names are never given a leading underscore), so
//! they cannot capture an argument.

use crate::c_ast::CType;
use crate::ir::primitive::Primitive;
use crate::ir::types::ScalarType;

/// A math function of the generated C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathOp {
    /// `e` to the power of the operand.
    Exp,
    /// The natural logarithm.
    Log,
    /// The square root.
    Sqrt,
    /// The absolute value.
    Abs,
    /// The larger of two operands (a NaN operand gives the other).
    Max,
    /// The smaller of two operands (a NaN operand gives the other).
    Min,
}

/// A helper macro that math functions need in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MathHelper {
    /// `RISE_MAX(a, b)` on scalars.
    Max,
    /// `RISE_MIN(a, b)` on scalars.
    Min,
    /// `RISE_VMAX(a, b)` on vectors.
    VecMax,
    /// `RISE_VMIN(a, b)` on vectors.
    VecMin,
    /// `RISE_LANEWISE(f, v)`: a scalar function applied to each lane of a vector.
    Lanewise,
}

impl MathOp {
    /// The C math function of a Rise primitive; `None` for the other primitives.
    pub fn of_primitive(p: Primitive) -> Option<MathOp> {
        Some(match p {
            Primitive::Exp => MathOp::Exp,
            Primitive::Log => MathOp::Log,
            Primitive::Sqrt => MathOp::Sqrt,
            Primitive::Abs => MathOp::Abs,
            Primitive::Max => MathOp::Max,
            Primitive::Min => MathOp::Min,
            _ => return None,
        })
    }

    /// How many operands it takes.
    pub fn arity(self) -> usize {
        match self {
            MathOp::Max | MathOp::Min => 2,
            _ => 1,
        }
    }

    /// The GCC builtin on scalars of type `s` (`__builtin_expf` on `float`, `__builtin_exp` on
    /// `double`; `max` and `min` use the helpers instead).
    fn builtin(self, s: ScalarType) -> String {
        let base = match self {
            MathOp::Exp => "exp",
            MathOp::Log => "log",
            MathOp::Sqrt => "sqrt",
            MathOp::Abs => "fabs",
            MathOp::Max => "fmax",
            MathOp::Min => "fmin",
        };
        let suffix = if s == ScalarType::F32 { "f" } else { "" };
        format!("__builtin_{base}{suffix}")
    }

    /// The helper macro the call at C type `ty` uses, if any.
    pub fn helper(self, ty: CType) -> Option<MathHelper> {
        let vector = ty.lanes > 1;
        match self {
            MathOp::Max if vector => Some(MathHelper::VecMax),
            MathOp::Min if vector => Some(MathHelper::VecMin),
            MathOp::Max => Some(MathHelper::Max),
            MathOp::Min => Some(MathHelper::Min),
            _ if vector => Some(MathHelper::Lanewise),
            _ => None,
        }
    }

    /// How the call at C type `ty` opens, up to its first operand, and whether it is a macro
    /// (whose operands are parenthesised: a vector literal's commas would split them):
    /// `__builtin_expf(`, `RISE_MAX(`, `RISE_LANEWISE(__builtin_expf, `.
    pub fn call_opening(self, ty: CType) -> (String, bool) {
        match self.helper(ty) {
            Some(MathHelper::Lanewise) => {
                (format!("RISE_LANEWISE({}, ", self.builtin(ty.scalar)), true)
            }
            Some(h) => (format!("{}(", h.name()), true),
            None => (format!("{}(", self.builtin(ty.scalar)), false),
        }
    }
}

impl MathHelper {
    /// The macro's name.
    pub fn name(self) -> &'static str {
        match self {
            MathHelper::Max => "RISE_MAX",
            MathHelper::Min => "RISE_MIN",
            MathHelper::VecMax => "RISE_VMAX",
            MathHelper::VecMin => "RISE_VMIN",
            MathHelper::Lanewise => "RISE_LANEWISE",
        }
    }

    /// The macro's definition, as the file has it.
    pub fn definition(self) -> &'static str {
        match self {
            MathHelper::Max => MAX,
            MathHelper::Min => MIN,
            MathHelper::VecMax => VEC_MAX,
            MathHelper::VecMin => VEC_MIN,
            MathHelper::Lanewise => LANEWISE,
        }
    }
}

/// `RISE_MAX(a, b)`: `a` where it is larger or `b` is NaN, else `b` (one `maxss` and a NaN
/// check).
const MAX: &str = "#ifndef RISE_MAX
#define RISE_MAX(a, b) ({ __typeof__(a) _rise_a = (a), _rise_b = (b); \\
    (_rise_a > _rise_b || _rise_b != _rise_b) ? _rise_a : _rise_b; })
#endif
";

/// `RISE_MIN(a, b)`: `a` where it is smaller or `b` is NaN, else `b`.
const MIN: &str = "#ifndef RISE_MIN
#define RISE_MIN(a, b) ({ __typeof__(a) _rise_a = (a), _rise_b = (b); \\
    (_rise_a < _rise_b || _rise_b != _rise_b) ? _rise_a : _rise_b; })
#endif
";

/// `RISE_VMAX(a, b)`: `RISE_MAX` lane by lane, the lanes chosen with bit masks.
const VEC_MAX: &str = "#ifndef RISE_VMAX
#define RISE_VMAX(a, b) ({ __typeof__(a) _rise_a = (a), _rise_b = (b); \\
    __typeof__(_rise_a > _rise_b) _rise_m = (_rise_a > _rise_b) | (_rise_b != _rise_b); \\
    (__typeof__(_rise_a))(((__typeof__(_rise_m))_rise_a & _rise_m) | ((__typeof__(_rise_m))_rise_b & ~_rise_m)); })
#endif
";

/// `RISE_VMIN(a, b)`: `RISE_MIN` lane by lane.
const VEC_MIN: &str = "#ifndef RISE_VMIN
#define RISE_VMIN(a, b) ({ __typeof__(a) _rise_a = (a), _rise_b = (b); \\
    __typeof__(_rise_a < _rise_b) _rise_m = (_rise_a < _rise_b) | (_rise_b != _rise_b); \\
    (__typeof__(_rise_a))(((__typeof__(_rise_m))_rise_a & _rise_m) | ((__typeof__(_rise_m))_rise_b & ~_rise_m)); })
#endif
";

/// `RISE_LANEWISE(f, v)`: the scalar function `f` applied to each lane of the vector `v`.
const LANEWISE: &str = "#ifndef RISE_LANEWISE
#define RISE_LANEWISE(f, v) ({ __typeof__(v) _rise_v = (v), _rise_r = _rise_v; \\
    for (int _rise_l = 0; _rise_l < (int)(sizeof _rise_v / sizeof _rise_v[0]); _rise_l++) \\
        _rise_r[_rise_l] = f(_rise_v[_rise_l]); \\
    _rise_r; })
#endif
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::c_ast::{BinOp, CExpr};
    use crate::ix::Ix;
    use std::rc::Rc;

    fn ty(scalar: ScalarType, lanes: u64) -> CType {
        CType { scalar, lanes }
    }

    #[test]
    fn scalars_call_builtins_and_vectors_use_the_helpers() {
        let f = ty(ScalarType::F32, 1);
        let d = ty(ScalarType::F64, 1);
        let v = ty(ScalarType::F32, 8);
        assert_eq!(MathOp::Exp.call_opening(f).0, "__builtin_expf(");
        assert_eq!(MathOp::Abs.call_opening(d).0, "__builtin_fabs(");
        assert_eq!(MathOp::Max.call_opening(f), ("RISE_MAX(".into(), true));
        assert_eq!(MathOp::Min.call_opening(v).0, "RISE_VMIN(");
        assert_eq!(
            MathOp::Sqrt.call_opening(v).0,
            "RISE_LANEWISE(__builtin_sqrtf, "
        );
        assert_eq!(MathOp::Log.helper(f), None);
        for h in [
            MathHelper::Max,
            MathHelper::Min,
            MathHelper::VecMax,
            MathHelper::VecMin,
            MathHelper::Lanewise,
        ] {
            assert!(h.definition().contains(&format!("#define {}(", h.name())));
        }
    }

    #[test]
    fn calls_print_with_the_operands_of_macros_parenthesised() {
        let f = ty(ScalarType::F32, 1);
        let v = ty(ScalarType::F32, 4);
        let x = Rc::new(CExpr::Var("x".into()));
        let lanes = Rc::new(CExpr::Lanes(v, vec![CExpr::Var("a".into()); 4]));
        let e = CExpr::Math(MathOp::Max, v, vec![lanes, x.clone()]);
        assert_eq!(e.to_c(), "RISE_VMAX(((f32x4){a, a, a, a}), (x))");
        let d = Rc::new(CExpr::Bin(BinOp::Sub, x.clone(), x));
        assert_eq!(
            CExpr::Math(MathOp::Exp, f, vec![d]).to_c(),
            "__builtin_expf(x - x)"
        );
        let n = CExpr::SizeAs(f, Ix::size("n").mul(&Ix::constant(2)));
        assert_eq!(n.to_c(), "((float)((long long)n * 2))");
    }
}
