//! A direct, dense evaluator: the independent check of every plan. It evaluates the checked
//! input expressions ([`Term`]s, as written) and the extracted plans on the same random inputs,
//! so that a wrong rewrite shows up as a numerical difference.

use super::check::{Func, Input, Op, Shape, Term};
use super::lang::Math;
use egg::{Id, RecExpr};
use rand::{RngExt, SeedableRng};
use rand_xorshift::XorShiftRng;
use rustc_hash::FxHashMap;

/// A dense row-major matrix of `f64`.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    /// Its shape.
    pub shape: Shape,
    /// Its entries, row by row.
    pub data: Vec<f64>,
}

impl Matrix {
    fn new(shape: Shape, f: impl Fn(usize, usize) -> f64) -> Matrix {
        let (r, c) = (shape.rows as usize, shape.cols as usize);
        let mut data = Vec::with_capacity(r * c);
        for i in 0..r {
            for j in 0..c {
                data.push(f(i, j));
            }
        }
        Matrix { shape, data }
    }

    /// Entry `(i, j)`, broadcasting a dimension of size 1.
    fn at(&self, i: usize, j: usize) -> f64 {
        let i = if self.shape.rows == 1 { 0 } else { i };
        let j = if self.shape.cols == 1 { 0 } else { j };
        self.data[i * self.shape.cols as usize + j]
    }
}

/// Random inputs: entries in [0.5, 1.5) (so that `log`, `sqrt` and `1 / x` stay finite), with
/// a sparse input's share of zeros.
pub fn random_inputs(inputs: &[Input], seed: u64) -> Vec<Matrix> {
    let mut rng = XorShiftRng::seed_from_u64(seed);
    inputs
        .iter()
        .map(|input| {
            let density = input.nnz / input.shape.size();
            let (r, c) = (input.shape.rows as usize, input.shape.cols as usize);
            let mut data = Vec::with_capacity(r * c);
            for _ in 0..r * c {
                let keep = density >= 1.0 || rng.random::<f64>() < density;
                let v = 0.5 + rng.random::<f64>();
                data.push(if keep { v } else { 0.0 });
            }
            Matrix {
                shape: input.shape,
                data,
            }
        })
        .collect()
}

fn matmul(a: &Matrix, b: &Matrix) -> Matrix {
    let (r, k, c) = (
        a.shape.rows as usize,
        a.shape.cols as usize,
        b.shape.cols as usize,
    );
    let mut data = vec![0.0; r * c];
    for i in 0..r {
        for p in 0..k {
            let x = a.data[i * k + p];
            if x == 0.0 {
                continue;
            }
            for j in 0..c {
                data[i * c + j] += x * b.data[p * c + j];
            }
        }
    }
    Matrix {
        shape: Shape {
            rows: a.shape.rows,
            cols: b.shape.cols,
        },
        data,
    }
}

fn elementwise(a: &Matrix, b: &Matrix, f: impl Fn(f64, f64) -> f64) -> Matrix {
    let shape = a.shape.broadcast(b.shape).unwrap_or(a.shape);
    Matrix::new(shape, |i, j| f(a.at(i, j), b.at(i, j)))
}

fn unary(op: &str, a: &Matrix) -> Matrix {
    let s = a.shape;
    match op {
        "t" => Matrix::new(
            Shape {
                rows: s.cols,
                cols: s.rows,
            },
            |i, j| a.at(j, i),
        ),
        "sum" => Matrix::new(Shape::SCALAR, |_, _| a.data.iter().sum()),
        "rowsums" => Matrix::new(
            Shape {
                rows: s.rows,
                cols: 1,
            },
            |i, _| (0..s.cols as usize).map(|j| a.at(i, j)).sum(),
        ),
        _ => Matrix::new(
            Shape {
                rows: 1,
                cols: s.cols,
            },
            |_, j| (0..s.rows as usize).map(|i| a.at(i, j)).sum(),
        ),
    }
}

fn map(f: Func, a: &Matrix) -> Matrix {
    Matrix {
        shape: a.shape,
        data: a.data.iter().map(|&x| f.apply(x)).collect(),
    }
}

/// Evaluates a checked expression on `inputs` (memoised on shared subterms); also returns the
/// largest finite magnitude of any intermediate value (the scale rounding errors grow from).
pub fn term_with_scale(t: &Term, inputs: &[Matrix]) -> (Matrix, f64) {
    let mut memo = FxHashMap::default();
    let m = eval_term(t, inputs, &mut memo);
    let scale = memo
        .values()
        .flat_map(|m| m.data.iter())
        .filter(|x| x.is_finite())
        .fold(1.0f64, |s, x| s.max(x.abs()));
    (m, scale)
}

fn eval_term(
    t: &Term,
    inputs: &[Matrix],
    memo: &mut FxHashMap<*const super::check::Node, Matrix>,
) -> Matrix {
    fn go(
        t: &Term,
        inputs: &[Matrix],
        memo: &mut FxHashMap<*const super::check::Node, Matrix>,
    ) -> Matrix {
        let key = std::rc::Rc::as_ptr(t);
        if let Some(m) = memo.get(&key) {
            return m.clone();
        }
        let args: Vec<Matrix> = t
            .args
            .iter()
            .map(|a| crate::support::stack::guarded(|| go(a, inputs, memo)))
            .collect();
        let m = match t.op {
            Op::Input(k) => inputs[k].clone(),
            Op::Const(c) => Matrix::new(Shape::SCALAR, |_, _| c),
            Op::MatMul => matmul(&args[0], &args[1]),
            Op::Mul => elementwise(&args[0], &args[1], |x, y| x * y),
            Op::Add => elementwise(&args[0], &args[1], |x, y| x + y),
            Op::T => unary("t", &args[0]),
            Op::Sum => unary("sum", &args[0]),
            Op::RowSums => unary("rowsums", &args[0]),
            Op::ColSums => unary("colsums", &args[0]),
            Op::Map(f) => map(f, &args[0]),
        };
        memo.insert(key, m.clone());
        m
    }
    go(t, inputs, memo)
}

/// Evaluates the plan `expr` at `root`; `names` maps input names to their index in `inputs`.
/// `None` if the plan holds a node that is not a matrix operation (an extractor bug).
pub fn plan(
    expr: &RecExpr<Math>,
    root: Id,
    names: &FxHashMap<String, usize>,
    inputs: &[Matrix],
) -> Option<Matrix> {
    let nodes = expr.as_ref();
    let mut values: Vec<Option<Matrix>> = vec![None; usize::from(root) + 1];
    for (i, node) in nodes.iter().enumerate().take(usize::from(root) + 1) {
        let v = |id: &Id| values[usize::from(*id)].as_ref();
        let m = match node {
            Math::Var(s) => Some(inputs[*names.get(s.as_str())?].clone()),
            Math::Lit(l) => Some(Matrix::new(Shape::SCALAR, |_, _| l.0.value())),
            Math::Func(_) => None,
            Math::MMul([a, b]) => Some(matmul(v(a)?, v(b)?)),
            Math::Mul([a, b]) => Some(elementwise(v(a)?, v(b)?, |x, y| x * y)),
            Math::Add([a, b]) => Some(elementwise(v(a)?, v(b)?, |x, y| x + y)),
            Math::T(a) => Some(unary("t", v(a)?)),
            Math::Sum(a) => Some(unary("sum", v(a)?)),
            Math::RowSums(a) => Some(unary("rowsums", v(a)?)),
            Math::ColSums(a) => Some(unary("colsums", v(a)?)),
            Math::Map([f, a]) => match &nodes[usize::from(*f)] {
                Math::Func(func) => Some(map(*func, v(a)?)),
                _ => return None,
            },
            _ => return None,
        };
        values[i] = m;
    }
    values[usize::from(root)].take()
}

/// The largest difference between two matrices relative to their scale (their largest entry,
/// or `floor`, the scale of the intermediates, if larger); `None` when their shapes differ,
/// infinite where one is NaN and the other not.
pub fn relative_error_at(a: &Matrix, b: &Matrix, floor: f64) -> Option<f64> {
    if a.shape != b.shape {
        return None;
    }
    let scale = a
        .data
        .iter()
        .chain(&b.data)
        .filter(|x| x.is_finite())
        .fold(floor.max(1.0), |m, x| m.max(x.abs()));
    let mut worst = 0.0f64;
    for (x, y) in a.data.iter().zip(&b.data) {
        if x.is_nan() && y.is_nan() || x == y {
            continue;
        }
        let d = (x - y).abs() / scale;
        if d.is_nan() {
            return Some(f64::INFINITY);
        }
        worst = worst.max(d);
    }
    Some(worst)
}
