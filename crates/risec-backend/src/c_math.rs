//! The math functions in the generated C: `exp`, `log`, `sqrt`, `abs`, `max` and `min` on
//! `float` and `double`, and lane by lane on vectors of them.
//!
//! Scalars call GCC's builtins (`__builtin_logf`, `__builtin_sqrt`, …), which need no header (so
//! no name of `math.h` can clash with a program's names) and link to the C library's `logf`, …
//! (the harness links with `-lm`); `sqrt` and `abs` become single instructions. `exp` on
//! `float` is `rise_expf`, a branch-free function of the file's own (below), so that gcc
//! vectorises the loops that call it: a call of the C library's `expf` per element kept
//! softmax and GELU at 8–10 % of the copy bandwidth. `max`
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

/// A helper macro (or function) that math functions need in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MathHelper {
    /// `rise_expf(x)`: `e` to the power of a `float`, without a library call.
    ExpF32,
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
        if self == MathOp::Exp && s == ScalarType::F32 {
            return "rise_expf".into();
        }
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

    /// The helper macro the call at C type `ty` is written with, if any.
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

    /// Every helper the call at C type `ty` needs in the file: its macro, and the scalar
    /// function it applies (`rise_expf`, also lane by lane).
    pub fn helpers(self, ty: CType) -> impl Iterator<Item = MathHelper> {
        let function =
            (self == MathOp::Exp && ty.scalar == ScalarType::F32).then_some(MathHelper::ExpF32);
        self.helper(ty).into_iter().chain(function)
    }

    /// How the call at C type `ty` opens, up to its first operand, and whether it is a macro
    /// (whose operands are parenthesised: a vector literal's commas would split them):
    /// `rise_expf(`, `RISE_MAX(`, `RISE_LANEWISE(__builtin_sqrtf, `.
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
            MathHelper::ExpF32 => "rise_expf",
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
            MathHelper::ExpF32 => EXP_F32,
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

/// `rise_expf(x)`: `e^x` on a `float` in straight-line code that gcc vectorises (the C
/// library's `expf` is a call per element). `x = k ln 2 + r` with `|r| <= ln 2 / 2` (ln 2 in
/// two parts, so that `r` is exact), `e^r` by a polynomial of degree 7 (Cephes' `expf`
/// coefficients; at most 1.43 ulp from `e^x` over every float, checked by
/// `tests/suite/codegen_c.rs`), and `2^k` written into the exponent bits of two factors
/// (each a normal float), so that results past the largest float are infinity and results
/// below the smallest normal one come out as subnormals or 0. A NaN gives itself; `x` is
/// clamped to [-104, 89] first, past which `e^x` is 0 or infinity in float. `k` is read off
/// the bits of `x / ln 2 + 1.5 * 2^23` (no float-to-int conversion, undefined for NaN), and
/// halved with an arithmetic shift (gcc's `>>` on a negative `int`; a division by 2 costs
/// three vector instructions more).
const EXP_F32: &str = "#ifndef RISE_EXPF
#define RISE_EXPF
static inline float rise_expf(float x) {
    float c = x != x ? 0.0f : x;
    c = c < -104.0f ? -104.0f : c;
    c = c > 89.0f ? 89.0f : c;
    float shifted = c * 1.44269504f + 12582912.0f;
    float kf = shifted - 12582912.0f;
    int shifted_bits;
    __builtin_memcpy(&shifted_bits, &shifted, sizeof shifted_bits);
    int k = shifted_bits - 0x4B400000;
    float r = c - kf * 0.693359375f;
    r = r - kf * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    int k1 = k >> 1, k2 = k - k1;
    int b1 = (k1 + 127) << 23, b2 = (k2 + 127) << 23;
    float s1, s2;
    __builtin_memcpy(&s1, &b1, sizeof s1);
    __builtin_memcpy(&s2, &b2, sizeof s2);
    float y = p * s1 * s2;
    return x != x ? x : y;
}
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
        assert_eq!(MathOp::Exp.call_opening(f).0, "rise_expf(");
        assert_eq!(MathOp::Exp.call_opening(d).0, "__builtin_exp(");
        assert_eq!(MathOp::Exp.call_opening(v).0, "RISE_LANEWISE(rise_expf, ");
        assert_eq!(
            MathOp::Exp.helpers(v).collect::<Vec<_>>(),
            [MathHelper::Lanewise, MathHelper::ExpF32]
        );
        assert_eq!(MathOp::Exp.helpers(d).count(), 0);
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
        assert!(MathHelper::ExpF32
            .definition()
            .contains("static inline float rise_expf(float x)"));
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
            "rise_expf(x - x)"
        );
        let n = CExpr::SizeAs(f, Ix::size("n").mul(&Ix::constant(2)));
        assert_eq!(n.to_c(), "((float)((long long)n * 2))");
    }
}
