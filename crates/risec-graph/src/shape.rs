//! Shape inference: what each operator makes of its operands, and what it requires of them.
//!
//! One function serves the front end (its message is the error at the statement) and the
//! e-graph analysis (a node a rule would build with operands that do not fit is a bug of that
//! rule's condition; the analysis marks it [`Meta::Invalid`] and extraction never picks it).

use crate::lang::{Decls, Meta, TensorLang};
use egg::Id;

/// The output size of a sliding window: `(n + 2·pad − k) / stride + 1`.
pub fn window_out(n: usize, k: usize, stride: usize, pad: usize) -> Result<usize, String> {
    if stride == 0 {
        return Err("the stride must be at least 1".into());
    }
    if n + 2 * pad < k {
        return Err(format!(
            "a window of {k} does not fit {n} elements padded by {pad} on each side"
        ));
    }
    Ok((n + 2 * pad - k) / stride + 1)
}

fn dims(s: &[usize]) -> String {
    s.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(" x ")
}

/// What node `node` is, given its children's facts (`meta`) and the declared tensors.
pub fn infer<'a>(
    node: &TensorLang,
    meta: &dyn Fn(Id) -> &'a Meta,
    decls: &Decls,
) -> Result<Meta, String> {
    use TensorLang as T;
    let tensor = |id: &Id, what: &str| -> Result<(&'a [usize], bool), String> {
        match meta(*id) {
            Meta::Tensor { shape, constant } => Ok((shape.as_slice(), *constant)),
            other => Err(format!("{what} must be a tensor, not {other:?}")),
        }
    };
    let num = |id: &Id, what: &str| -> Result<usize, String> {
        match meta(*id) {
            Meta::Num(n) if *n >= 0 => Ok(*n as usize),
            other => Err(format!("{what} must be a whole number, not {other:?}")),
        }
    };
    let out = |shape: Vec<usize>, constant: bool| Ok(Meta::Tensor { shape, constant });
    match node {
        T::Num(n) => Ok(Meta::Num(*n)),
        T::Act(a) => Ok(Meta::Act(*a)),
        T::Tensor(name) => match decls.get(&name.0) {
            Some(d) => out(d.shape.clone(), d.weight),
            None => Err(format!("no tensor `{}` is declared", name.0)),
        },
        T::Matmul([act, a, b]) => {
            if meta(*act).act().is_none() {
                return Err("a matmul's first child must be an activation".into());
            }
            let ((sa, ca), (sb, cb)) = (
                tensor(a, "the left operand")?,
                tensor(b, "the right operand")?,
            );
            match (sa, sb) {
                ([m, k], [k2, n]) if k == k2 => out(vec![*m, *n], ca && cb),
                ([bt, m, k], [bt2, k2, n]) if k == k2 && bt == bt2 => {
                    out(vec![*bt, *m, *n], ca && cb)
                }
                _ => Err(format!(
                    "matmul of {} by {}: expected m x k by k x n (or b x m x k by b x k x n)",
                    dims(sa),
                    dims(sb)
                )),
            }
        }
        T::Conv2d([stride, pad, act, x, w]) => {
            let (s, p) = (num(stride, "the stride")?, num(pad, "the padding")?);
            if meta(*act).act().is_none() {
                return Err("a conv2d's third child must be an activation".into());
            }
            let ((sx, cx), (sw, cw)) = (tensor(x, "the input")?, tensor(w, "the weights")?);
            match (sx, sw) {
                ([n, c, h, wd], [co, c2, kh, kw]) if c == c2 => {
                    let ho = window_out(*h, *kh, s, p)?;
                    let wo = window_out(*wd, *kw, s, p)?;
                    out(vec![*n, *co, ho, wo], cx && cw)
                }
                _ => Err(format!(
                    "conv2d of {} with weights {}: expected n x c x h x w and c_out x c x kh x kw",
                    dims(sx),
                    dims(sw)
                )),
            }
        }
        T::Add([a, b]) | T::Mul([a, b]) => {
            let ((sa, ca), (sb, cb)) = (tensor(a, "an operand")?, tensor(b, "an operand")?);
            if sa != sb {
                return Err(format!(
                    "elementwise operands of different shapes: {} and {}",
                    dims(sa),
                    dims(sb)
                ));
            }
            out(sa.to_vec(), ca && cb)
        }
        T::Relu(a) | T::Tanh(a) | T::Sigmoid(a) | T::Softmax(a) | T::LayerNorm(a) => {
            let (s, c) = tensor(a, "the operand")?;
            out(s.to_vec(), c)
        }
        T::Transpose(a) => {
            let (s, c) = tensor(a, "the operand")?;
            match s {
                [m, n] => out(vec![*n, *m], c),
                [b, m, n] => out(vec![*b, *n, *m], c),
                _ => Err(format!(
                    "transpose of {}: expected 2 or 3 dimensions (the last two are swapped)",
                    dims(s)
                )),
            }
        }
        T::MaxPool([k, stride, pad, x]) | T::AvgPool([k, stride, pad, x]) => {
            let (k, s, p) = (
                num(k, "the window")?,
                num(stride, "the stride")?,
                num(pad, "the padding")?,
            );
            let (sx, c) = tensor(x, "the input")?;
            if p >= k.max(1) {
                return Err(format!("padding {p} must be smaller than the window {k}"));
            }
            match sx {
                [n, ch, h, w] => out(
                    vec![*n, *ch, window_out(*h, k, s, p)?, window_out(*w, k, s, p)?],
                    c,
                ),
                _ => Err(format!("pooling of {}: expected n x c x h x w", dims(sx))),
            }
        }
        T::Concat([axis, a, b]) => {
            let axis = num(axis, "the axis")?;
            let ((sa, ca), (sb, cb)) = (tensor(a, "an operand")?, tensor(b, "an operand")?);
            let fits = sa.len() == sb.len()
                && axis < sa.len()
                && sa
                    .iter()
                    .zip(sb)
                    .enumerate()
                    .all(|(i, (x, y))| i == axis || x == y);
            if !fits {
                return Err(format!(
                    "concat along axis {axis} of {} and {}: expected the same dimensions but along the axis",
                    dims(sa),
                    dims(sb)
                ));
            }
            let mut s = sa.to_vec();
            s[axis] += sb[axis];
            out(s, ca && cb)
        }
        T::Split([axis, at, x]) => {
            let (axis, at) = (num(axis, "the axis")?, num(at, "the split point")?);
            let (s, c) = tensor(x, "the operand")?;
            if axis >= s.len() || at == 0 || at >= s[axis] {
                return Err(format!(
                    "split of {} along axis {axis} at {at}: expected an axis of the tensor and 0 < at < its size",
                    dims(s)
                ));
            }
            let (mut first, mut second) = (s.to_vec(), s.to_vec());
            first[axis] = at;
            second[axis] = s[axis] - at;
            Ok(Meta::Pair {
                first,
                second,
                constant: c,
            })
        }
        T::Split0(p) | T::Split1(p) => match meta(*p) {
            Meta::Pair {
                first,
                second,
                constant,
            } => {
                let s = if matches!(node, T::Split0(_)) {
                    first
                } else {
                    second
                };
                out(s.clone(), *constant)
            }
            other => Err(format!("split0/split1 read a split, not {other:?}")),
        },
        T::Enlarge([k, w]) => {
            let k = num(k, "the new window")?;
            let (sw, c) = tensor(w, "the weights")?;
            match sw {
                [co, ci, kh, kw]
                    if *kh <= k && *kw <= k && (k - kh) % 2 == 0 && (k - kw) % 2 == 0 =>
                {
                    out(vec![*co, *ci, k, k], c)
                }
                _ => Err(format!("enlarge of weights {} to {k} x {k}", dims(sw))),
            }
        }
        T::Outputs(results) => {
            for r in results.iter() {
                tensor(r, "a result")?;
            }
            Ok(Meta::Outputs)
        }
    }
}
