//! The reference evaluation: every operator by its definition, in `f64`, on dense tensors.
//!
//! It is the oracle of the rules ([`crate::validate`]) and of optimised graphs (`risec graph
//! --check`): plain loops, no blocking, no reordering beyond what the definition states.
//! Average pooling divides by the whole window (padding counts as zeros); maximum pooling
//! ignores padding; `layernorm` normalises the last axis with ε = 1e-5 and no scale or shift;
//! `softmax` is taken along the last axis.

use crate::lang::{Act, TensorLang};
use egg::{Id, RecExpr, Symbol};
use rand::{RngExt, SeedableRng};
use rand_xorshift::XorShiftRng;
use rustc_hash::FxHashMap;

/// A dense tensor, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// The dimensions.
    pub shape: Vec<usize>,
    /// The elements, last dimension fastest.
    pub data: Vec<f64>,
}

impl Tensor {
    /// A tensor of zeros.
    pub fn zeros(shape: &[usize]) -> Tensor {
        Tensor {
            shape: shape.to_vec(),
            data: vec![0.0; shape.iter().product()],
        }
    }

    /// Uniform random elements in [-1, 1).
    pub fn random(shape: &[usize], rng: &mut XorShiftRng) -> Tensor {
        let n = shape.iter().product();
        Tensor {
            shape: shape.to_vec(),
            data: (0..n).map(|_| rng.random::<f64>() * 2.0 - 1.0).collect(),
        }
    }

    fn map(&self, f: impl Fn(f64) -> f64) -> Tensor {
        Tensor {
            shape: self.shape.clone(),
            data: self.data.iter().map(|x| f(*x)).collect(),
        }
    }

    /// The largest difference to `other`, relative to the larger of 1 and the largest
    /// magnitude of `other`; infinity when the shapes differ.
    pub fn distance(&self, other: &Tensor) -> f64 {
        if self.shape != other.shape {
            return f64::INFINITY;
        }
        let scale = other.data.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        self.data
            .iter()
            .zip(&other.data)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()))
            / scale
    }
}

/// The value of a node.
#[derive(Clone, Debug)]
enum Value {
    T(Tensor),
    Pair(Tensor, Tensor),
    Num(i64),
    Act(Act),
    Outputs(Vec<Tensor>),
}

/// Random values for the declared tensors, seeded.
pub fn random_inputs(
    decls: &crate::lang::Decls,
    order: &[Symbol],
    seed: u64,
) -> FxHashMap<Symbol, Tensor> {
    let mut rng = XorShiftRng::seed_from_u64(seed);
    order
        .iter()
        .map(|s| (*s, Tensor::random(&decls[s].shape, &mut rng)))
        .collect()
}

/// Evaluates `expr` (whose last node is `outputs`) on `inputs`: the outputs, in order.
///
/// # Panics
/// When a tensor is missing from `inputs` or the expression is not shape-correct (a checked
/// graph and rules whose conditions hold never are).
pub fn eval(expr: &RecExpr<TensorLang>, inputs: &FxHashMap<Symbol, Tensor>) -> Vec<Tensor> {
    let nodes = expr.as_ref();
    let mut vals: Vec<Value> = Vec::with_capacity(nodes.len());
    for node in nodes {
        let v = eval_node(node, &vals, inputs);
        vals.push(v);
    }
    match vals.pop() {
        Some(Value::Outputs(ts)) => ts,
        Some(Value::T(t)) => vec![t],
        _ => panic!("the expression's last node is not a tensor or `outputs`"),
    }
}

fn eval_node(node: &TensorLang, vals: &[Value], inputs: &FxHashMap<Symbol, Tensor>) -> Value {
    use TensorLang as T;
    let t = |id: &Id| match &vals[usize::from(*id)] {
        Value::T(t) => t,
        other => panic!("expected a tensor, found {other:?}"),
    };
    let n = |id: &Id| match &vals[usize::from(*id)] {
        Value::Num(n) => *n as usize,
        other => panic!("expected a number, found {other:?}"),
    };
    let act = |id: &Id| match &vals[usize::from(*id)] {
        Value::Act(a) => *a,
        other => panic!("expected an activation, found {other:?}"),
    };
    Value::T(match node {
        T::Num(v) => return Value::Num(*v),
        T::Act(a) => return Value::Act(*a),
        T::Tensor(name) => inputs
            .get(&name.0)
            .unwrap_or_else(|| panic!("no value for tensor `{}`", name.0))
            .clone(),
        T::Matmul([a, x, y]) => matmul(t(x), t(y)).map(|v| act(a).apply(v)),
        T::Conv2d([s, p, a, x, w]) => conv2d(t(x), t(w), n(s), n(p)).map(|v| act(a).apply(v)),
        T::Add([a, b]) => zip(t(a), t(b), |x, y| x + y),
        T::Mul([a, b]) => zip(t(a), t(b), |x, y| x * y),
        T::Relu(a) => t(a).map(|x| Act::Relu.apply(x)),
        T::Tanh(a) => t(a).map(|x| Act::Tanh.apply(x)),
        T::Sigmoid(a) => t(a).map(|x| Act::Sigmoid.apply(x)),
        T::Softmax(a) => rows(t(a), |row| {
            let m = row.iter().fold(f64::NEG_INFINITY, |m, x| m.max(*x));
            let e: Vec<f64> = row.iter().map(|x| (x - m).exp()).collect();
            let s: f64 = e.iter().sum();
            e.into_iter().map(|x| x / s).collect()
        }),
        T::LayerNorm(a) => rows(t(a), |row| {
            let k = row.len() as f64;
            let mean = row.iter().sum::<f64>() / k;
            let var = row.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / k;
            row.iter()
                .map(|x| (x - mean) / (var + 1e-5).sqrt())
                .collect()
        }),
        T::Transpose(a) => transpose(t(a)),
        T::MaxPool([k, s, p, x]) => pool(t(x), n(k), n(s), n(p), true),
        T::AvgPool([k, s, p, x]) => pool(t(x), n(k), n(s), n(p), false),
        T::Concat([axis, a, b]) => concat(n(axis), t(a), t(b)),
        T::Split([axis, at, x]) => {
            let (a, b) = split(n(axis), n(at), t(x));
            return Value::Pair(a, b);
        }
        T::Split0(p) | T::Split1(p) => match &vals[usize::from(*p)] {
            Value::Pair(a, b) => {
                if matches!(node, T::Split0(_)) {
                    a.clone()
                } else {
                    b.clone()
                }
            }
            other => panic!("expected a split, found {other:?}"),
        },
        T::Enlarge([k, w]) => enlarge(t(w), n(k)),
        T::Outputs(rs) => return Value::Outputs(rs.iter().map(|r| t(r).clone()).collect()),
    })
}

fn zip(a: &Tensor, b: &Tensor, f: impl Fn(f64, f64) -> f64) -> Tensor {
    Tensor {
        shape: a.shape.clone(),
        data: a.data.iter().zip(&b.data).map(|(x, y)| f(*x, *y)).collect(),
    }
}

fn rows(a: &Tensor, f: impl Fn(&[f64]) -> Vec<f64>) -> Tensor {
    let k = *a.shape.last().unwrap_or(&1);
    Tensor {
        shape: a.shape.clone(),
        data: a.data.chunks(k.max(1)).flat_map(f).collect(),
    }
}

fn matmul(a: &Tensor, b: &Tensor) -> Tensor {
    let r = a.shape.len();
    let (m, k, n) = (a.shape[r - 2], a.shape[r - 1], b.shape[r - 1]);
    let batch: usize = a.shape[..r - 2].iter().product();
    let mut shape = a.shape.clone();
    shape[r - 1] = n;
    let mut out = Tensor::zeros(&shape);
    for bt in 0..batch {
        let (ao, bo, oo) = (bt * m * k, bt * k * n, bt * m * n);
        for i in 0..m {
            for l in 0..k {
                let x = a.data[ao + i * k + l];
                for j in 0..n {
                    out.data[oo + i * n + j] += x * b.data[bo + l * n + j];
                }
            }
        }
    }
    out
}

fn conv2d(x: &Tensor, w: &Tensor, s: usize, p: usize) -> Tensor {
    let [nb, c, h, wd] = x.shape[..] else {
        panic!("conv2d input")
    };
    let [co, _, kh, kw] = w.shape[..] else {
        panic!("conv2d weights")
    };
    let ho = (h + 2 * p - kh) / s + 1;
    let wo = (wd + 2 * p - kw) / s + 1;
    let mut out = Tensor::zeros(&[nb, co, ho, wo]);
    for b in 0..nb {
        for o in 0..co {
            for y in 0..ho {
                for xo in 0..wo {
                    let mut acc = 0.0;
                    for ci in 0..c {
                        for dy in 0..kh {
                            let iy = (y * s + dy) as isize - p as isize;
                            if iy < 0 || iy >= h as isize {
                                continue;
                            }
                            for dx in 0..kw {
                                let ix = (xo * s + dx) as isize - p as isize;
                                if ix < 0 || ix >= wd as isize {
                                    continue;
                                }
                                acc += x.data[((b * c + ci) * h + iy as usize) * wd + ix as usize]
                                    * w.data[((o * c + ci) * kh + dy) * kw + dx];
                            }
                        }
                    }
                    out.data[((b * co + o) * ho + y) * wo + xo] = acc;
                }
            }
        }
    }
    out
}

fn pool(x: &Tensor, k: usize, s: usize, p: usize, max: bool) -> Tensor {
    let [nb, c, h, wd] = x.shape[..] else {
        panic!("pooling input")
    };
    let ho = (h + 2 * p - k) / s + 1;
    let wo = (wd + 2 * p - k) / s + 1;
    let mut out = Tensor::zeros(&[nb, c, ho, wo]);
    for plane in 0..nb * c {
        for y in 0..ho {
            for xo in 0..wo {
                let mut acc = if max { f64::NEG_INFINITY } else { 0.0 };
                for dy in 0..k {
                    for dx in 0..k {
                        let (iy, ix) = (
                            (y * s + dy) as isize - p as isize,
                            (xo * s + dx) as isize - p as isize,
                        );
                        if iy < 0 || ix < 0 || iy >= h as isize || ix >= wd as isize {
                            continue;
                        }
                        let v = x.data[(plane * h + iy as usize) * wd + ix as usize];
                        acc = if max { acc.max(v) } else { acc + v };
                    }
                }
                out.data[(plane * ho + y) * wo + xo] = if max { acc } else { acc / (k * k) as f64 };
            }
        }
    }
    out
}

fn transpose(a: &Tensor) -> Tensor {
    let r = a.shape.len();
    let (m, n) = (a.shape[r - 2], a.shape[r - 1]);
    let mut shape = a.shape.clone();
    shape.swap(r - 2, r - 1);
    let mut out = Tensor::zeros(&shape);
    for b in 0..a.data.len() / (m * n).max(1) {
        for i in 0..m {
            for j in 0..n {
                out.data[b * m * n + j * m + i] = a.data[b * m * n + i * n + j];
            }
        }
    }
    out
}

/// (outer, size along the axis, inner) of a shape.
fn around(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    (
        shape[..axis].iter().product(),
        shape[axis],
        shape[axis + 1..].iter().product(),
    )
}

fn concat(axis: usize, a: &Tensor, b: &Tensor) -> Tensor {
    let (outer, na, inner) = around(&a.shape, axis);
    let nb = b.shape[axis];
    let mut shape = a.shape.clone();
    shape[axis] = na + nb;
    let mut data = Vec::with_capacity(a.data.len() + b.data.len());
    for o in 0..outer {
        data.extend_from_slice(&a.data[o * na * inner..(o + 1) * na * inner]);
        data.extend_from_slice(&b.data[o * nb * inner..(o + 1) * nb * inner]);
    }
    Tensor { shape, data }
}

fn split(axis: usize, at: usize, x: &Tensor) -> (Tensor, Tensor) {
    let (outer, n, inner) = around(&x.shape, axis);
    let (mut sa, mut sb) = (x.shape.clone(), x.shape.clone());
    sa[axis] = at;
    sb[axis] = n - at;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for o in 0..outer {
        let row = &x.data[o * n * inner..(o + 1) * n * inner];
        a.extend_from_slice(&row[..at * inner]);
        b.extend_from_slice(&row[at * inner..]);
    }
    (Tensor { shape: sa, data: a }, Tensor { shape: sb, data: b })
}

fn enlarge(w: &Tensor, k: usize) -> Tensor {
    let [co, ci, kh, kw] = w.shape[..] else {
        panic!("enlarge weights")
    };
    let (oy, ox) = ((k - kh) / 2, (k - kw) / 2);
    let mut out = Tensor::zeros(&[co, ci, k, k]);
    for plane in 0..co * ci {
        for y in 0..kh {
            for x in 0..kw {
                out.data[(plane * k + y + oy) * k + x + ox] = w.data[(plane * kh + y) * kw + x];
            }
        }
    }
    out
}
