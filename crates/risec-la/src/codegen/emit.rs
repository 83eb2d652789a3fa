//! One C function for a plan: each operation is a call of a dense kernel compiled from Rise
//! ([`super::kernels`]) or of the sparse runtime (`runtime.c`, CSR); intermediates are
//! allocated, and freed when the function returns.
//!
//! A value is stored sparse (CSR) when it is a sparse input, or an elementwise product,
//! an elementwise function with `f(0) = 0`, or a transpose of a sparse value (these keep the
//! operand's non-zeros). A sparse operand of any other operation is expanded to dense first.

use super::kernels::{Broadcast, DenseKernel, ElementwiseOp};
use crate::check::{Func, Input, Shape};
use crate::lang::Math;
use egg::{Id, Language, RecExpr};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The C of one plan function and the dense kernels it calls.
pub struct PlanFunction {
    /// The function's definition.
    pub source: String,
    /// Its prototype, without the semicolon.
    pub signature: String,
    /// The Rise kernels it calls.
    pub kernels: BTreeSet<DenseKernel>,
}

#[derive(Clone)]
enum Value {
    /// A dense row-major array: a C pointer expression.
    Dense(String),
    /// A CSR matrix: a C pointer expression to an `la_csr`.
    Sparse(String),
}

/// The shapes of a plan's nodes (`None` for function names).
pub fn shapes(expr: &RecExpr<Math>, inputs: &[Input]) -> Vec<Option<Shape>> {
    let mut out: Vec<Option<Shape>> = Vec::new();
    for node in expr.as_ref() {
        let s = |id: &Id| out[usize::from(*id)].unwrap_or(Shape::SCALAR);
        let shape = match node {
            Math::Var(v) => inputs
                .iter()
                .find(|i| i.name == v.as_str())
                .map(|i| i.shape),
            Math::Lit(_) => Some(Shape::SCALAR),
            Math::Func(_) => None,
            Math::MMul([a, b]) => Some(Shape {
                rows: s(a).rows,
                cols: s(b).cols,
            }),
            Math::Mul([a, b]) | Math::Add([a, b]) => s(a).broadcast(s(b)),
            Math::T(a) => Some(Shape {
                rows: s(a).cols,
                cols: s(a).rows,
            }),
            Math::Sum(_) => Some(Shape::SCALAR),
            Math::RowSums(a) => Some(Shape {
                rows: s(a).rows,
                cols: 1,
            }),
            Math::ColSums(a) => Some(Shape {
                rows: 1,
                cols: s(a).cols,
            }),
            Math::Map([_, a]) => Some(s(a)),
            _ => None,
        };
        out.push(shape);
    }
    out
}

struct Emitter<'a> {
    nodes: &'a [Math],
    shapes: Vec<Option<Shape>>,
    values: Vec<Option<Value>>,
    dense_copies: Vec<Option<String>>,
    body: String,
    decls: String,
    frees: String,
    kernels: BTreeSet<DenseKernel>,
}

/// A C identifier for a `.la` name (prefixed, so that it is never a C keyword).
fn ident(prefix: &str, name: &str) -> String {
    format!("{prefix}_{name}")
}

/// Emits the function `name` computing `roots` of `expr`. Every input is a parameter (dense:
/// `const float *in_NAME`, row-major; sparse: `const la_csr *in_NAME`), every output a dense
/// `float *out_NAME`. Returns 0, or the first non-zero status of a kernel (2: out of memory).
pub fn plan_function(
    name: &str,
    expr: &RecExpr<Math>,
    roots: &[(String, Id)],
    inputs: &[Input],
) -> Result<PlanFunction, String> {
    let nodes = expr.as_ref();
    let mut params: Vec<String> = inputs
        .iter()
        .map(|i| {
            if i.is_sparse() {
                format!("const la_csr *{}", ident("in", &i.name))
            } else {
                format!("const float *{}", ident("in", &i.name))
            }
        })
        .collect();
    params.extend(
        roots
            .iter()
            .map(|(n, _)| format!("float *{}", ident("out", n))),
    );
    let signature = format!("int {name}({})", params.join(", "));
    let mut e = Emitter {
        nodes,
        shapes: shapes(expr, inputs),
        values: vec![None; nodes.len()],
        dense_copies: vec![None; nodes.len()],
        body: String::new(),
        decls: String::new(),
        frees: String::new(),
        kernels: BTreeSet::new(),
    };
    // The C indexes with `int`: every array and every non-zero count must fit.
    for (i, s) in e.shapes.iter().enumerate() {
        if let Some(s) = s {
            if s.rows * s.cols > i32::MAX as u64 {
                return Err(format!(
                    "error: a value of the plan has {} x {} entries, more than the C backend's int indices reach (2^31 - 1)",
                    s.rows, s.cols
                ));
            }
        }
        if let Math::Lit(l) = &nodes[i] {
            if l.0.value().abs() > f32::MAX as f64 {
                return Err(format!(
                    "error: the number {} is out of the range of f32, the C backend's type",
                    l.0.value()
                ));
            }
        }
    }
    for i in 0..nodes.len() {
        e.node(i, inputs)?;
    }
    for (out, root) in roots {
        let r = usize::from(*root);
        let shape = e.shape(r);
        let target = ident("out", out);
        match e.values[r].clone() {
            Some(Value::Dense(p)) => {
                let _ = writeln!(
                    e.body,
                    "    memcpy({target}, {p}, sizeof(float) * {}u);",
                    shape.rows * shape.cols
                );
            }
            Some(Value::Sparse(p)) => {
                let _ = writeln!(e.body, "    la_csr_to_dense({p}, {target});");
            }
            None => return Err(format!("output `{out}` has no value")),
        }
    }
    let mut source = String::new();
    let _ = writeln!(source, "{signature} {{\n    int rc = 0;");
    source.push_str(&e.decls);
    source.push_str(&e.body);
    source.push_str("done:\n");
    source.push_str(&e.frees);
    source.push_str("    return rc;\n}\n");
    Ok(PlanFunction {
        source,
        signature,
        kernels: e.kernels,
    })
}

impl Emitter<'_> {
    fn shape(&self, i: usize) -> Shape {
        self.shapes[i].unwrap_or(Shape::SCALAR)
    }

    /// A new dense temporary for node `i`.
    fn dense_temp(&mut self, i: usize, tag: &str) -> String {
        let s = self.shape(i);
        let v = format!("v{i}{tag}");
        let _ = writeln!(self.decls, "    float *{v} = NULL;");
        let _ = writeln!(
            self.body,
            "    {v} = malloc(sizeof(float) * {}u);\n    if (!{v}) {{ rc = 2; goto done; }}",
            s.rows * s.cols
        );
        let _ = writeln!(self.frees, "    free({v});");
        v
    }

    /// A new sparse temporary for node `i` (a pointer expression to it).
    fn sparse_temp(&mut self, i: usize) -> String {
        let v = format!("v{i}");
        let _ = writeln!(self.decls, "    la_csr {v} = {{0}};");
        let _ = writeln!(self.frees, "    la_csr_free(&{v});");
        format!("(&{v})")
    }

    fn call(&mut self, call: String) {
        let _ = writeln!(self.body, "    rc = {call};\n    if (rc) goto done;");
    }

    /// Node `i`'s value as a dense array (expanding a sparse one once).
    fn dense(&mut self, i: usize) -> String {
        match self.values[i].clone() {
            Some(Value::Dense(p)) => p,
            Some(Value::Sparse(p)) => {
                if let Some(d) = &self.dense_copies[i] {
                    return d.clone();
                }
                let d = self.dense_temp(i, "_dense");
                let _ = writeln!(self.body, "    la_csr_to_dense({p}, {d});");
                self.dense_copies[i] = Some(d.clone());
                d
            }
            None => "NULL".into(),
        }
    }

    fn sparse(&self, i: usize) -> Option<String> {
        match &self.values[i] {
            Some(Value::Sparse(p)) => Some(p.clone()),
            _ => None,
        }
    }

    /// Emits node `i`: its value (an input, a literal, or a temporary its operation writes),
    /// recorded in `values`. Each operation has a function below.
    fn node(&mut self, i: usize, inputs: &[Input]) -> Result<(), String> {
        let value = match &self.nodes[i] {
            Math::Var(v) => {
                let input = inputs
                    .iter()
                    .find(|x| x.name == v.as_str())
                    .ok_or_else(|| format!("unknown input `{v}`"))?;
                let p = ident("in", &input.name);
                if input.is_sparse() {
                    Value::Sparse(p)
                } else {
                    Value::Dense(p)
                }
            }
            Math::Lit(l) => {
                let v = format!("v{i}");
                let _ = writeln!(
                    self.decls,
                    "    float {v}[1] = {{{:?}f}};",
                    l.0.value() as f32
                );
                Value::Dense(v)
            }
            Math::Func(_) => return Ok(()),
            Math::MMul([a, b]) => self.mmul(i, usize::from(*a), usize::from(*b)),
            Math::Mul([a, b]) => self.mul(i, usize::from(*a), usize::from(*b)),
            Math::Add([a, b]) => {
                self.elementwise(i, ElementwiseOp::Add, usize::from(*a), usize::from(*b))
            }
            Math::T(a) => self.transpose(i, usize::from(*a)),
            Math::Sum(a) | Math::RowSums(a) | Math::ColSums(a) => self.sums(i, usize::from(*a)),
            Math::Map([f, a]) => {
                let func = match &self.nodes[usize::from(*f)] {
                    Math::Func(func) => *func,
                    other => return Err(format!("not a function: {other}")),
                };
                self.map(i, func, usize::from(*a))
            }
            other => return Err(format!("not a linear-algebra operation: {other}")),
        };
        self.values[i] = Some(value);
        Ok(())
    }

    /// `mmul a b` (node `i`): the sparse runtime when one side is sparse, else the dense
    /// Rise kernel.
    fn mmul(&mut self, i: usize, a: usize, b: usize) -> Value {
        let (sa, sb) = (self.shape(a), self.shape(b));
        let out = self.dense_temp(i, "");
        match (self.sparse(a), self.sparse(b)) {
            (Some(x), None) => {
                let d = self.dense(b);
                let _ = writeln!(
                    self.body,
                    "    la_csr_mm_dense({x}, {}, {d}, {out});",
                    sb.cols
                );
            }
            (None, Some(y)) => {
                let d = self.dense(a);
                let _ = writeln!(
                    self.body,
                    "    la_dense_mm_csr({}, {d}, {y}, {out});",
                    sa.rows
                );
            }
            _ => {
                let (da, db) = (self.dense(a), self.dense(b));
                self.kernels.insert(DenseKernel::MatMul);
                self.call(format!(
                    "la_mmul({}, {}, {}, {out}, {da}, {db})",
                    sa.rows, sb.cols, sa.cols
                ));
            }
        }
        Value::Dense(out)
    }

    /// `mul a b` (node `i`): sparse when an operand of the result's shape is (it keeps its
    /// non-zeros), else dense.
    fn mul(&mut self, i: usize, a: usize, b: usize) -> Value {
        let s = self.shape(i);
        // A sparse operand of the result's shape keeps its non-zeros under `*`.
        let sparse_side = [(a, b), (b, a)].into_iter().find(|&(x, y)| {
            self.sparse(x).is_some() && self.sparse(y).is_none() && self.shape(x) == s
        });
        let both_sparse = self.sparse(a).is_some()
            && self.sparse(b).is_some()
            && self.shape(a) == s
            && self.shape(b) == s;
        if both_sparse {
            let (x, y) = (
                self.sparse(a).unwrap_or_default(),
                self.sparse(b).unwrap_or_default(),
            );
            let out = self.sparse_temp(i);
            self.call(format!("la_csr_mul_csr({x}, {y}, {out})"));
            return Value::Sparse(out);
        }
        match sparse_side {
            Some((x, y)) => {
                let sx = self.sparse(x).unwrap_or_default();
                let dy = self.dense(y);
                let sy = self.shape(y);
                let out = self.sparse_temp(i);
                self.call(format!(
                    "la_csr_mul_dense({sx}, {dy}, {}, {}, {out})",
                    sy.rows, sy.cols
                ));
                Value::Sparse(out)
            }
            None => self.elementwise(i, ElementwiseOp::Mul, a, b),
        }
    }

    /// `t a` (node `i`): the sparse runtime's transpose of a sparse operand, else the dense
    /// Rise kernel.
    fn transpose(&mut self, i: usize, a: usize) -> Value {
        let sa = self.shape(a);
        if let Some(x) = self.sparse(a) {
            let out = self.sparse_temp(i);
            self.call(format!("la_csr_transpose({x}, {out})"));
            Value::Sparse(out)
        } else {
            let d = self.dense(a);
            let out = self.dense_temp(i, "");
            self.kernels.insert(DenseKernel::Transpose);
            self.call(format!(
                "la_transpose({}, {}, {out}, {d})",
                sa.rows, sa.cols
            ));
            Value::Dense(out)
        }
    }

    /// `sum a`, `rowsums a` or `colsums a` (node `i`): dense, by the sparse runtime or the
    /// dense Rise kernel.
    fn sums(&mut self, i: usize, a: usize) -> Value {
        let sa = self.shape(a);
        let out = self.dense_temp(i, "");
        let (kernel, which) = match self.nodes[i] {
            Math::Sum(_) => (DenseKernel::Sum, "sum"),
            Math::RowSums(_) => (DenseKernel::RowSums, "rowsums"),
            _ => (DenseKernel::ColSums, "colsums"),
        };
        if let Some(x) = self.sparse(a) {
            let _ = writeln!(self.body, "    la_csr_{which}({x}, {out});");
        } else {
            let d = self.dense(a);
            self.kernels.insert(kernel);
            let sizes = if kernel == DenseKernel::Sum {
                format!("{}", sa.rows * sa.cols)
            } else {
                format!("{}, {}", sa.rows, sa.cols)
            };
            self.call(format!("{}({sizes}, {out}, {d})", kernel.name()));
        }
        Value::Dense(out)
    }

    /// `map func a` (node `i`): sparse for a sparse operand and a function with `f(0) = 0`
    /// the runtime has; else dense, by a Rise kernel or the runtime's C `map`.
    fn map(&mut self, i: usize, func: Func, a: usize) -> Value {
        let s = self.shape(i);
        let sparse_code = match func {
            Func::Abs => Some(0),
            Func::Relu => Some(1),
            Func::Sqrt => Some(2),
            _ => None,
        };
        match (self.sparse(a), sparse_code) {
            (Some(x), Some(code)) => {
                let out = self.sparse_temp(i);
                self.call(format!("la_csr_map({x}, {code}, {out})"));
                Value::Sparse(out)
            }
            _ => {
                let d = self.dense(a);
                let out = self.dense_temp(i, "");
                let n = s.rows * s.cols;
                match func {
                    Func::Abs | Func::Relu | Func::Inv => {
                        let k = DenseKernel::Map(func.name());
                        self.kernels.insert(k);
                        self.call(format!("{}({n}, {out}, {d})", k.name()));
                    }
                    _ => {
                        let code = match func {
                            Func::Exp => 0,
                            Func::Log => 1,
                            Func::Sqrt => 2,
                            _ => 3,
                        };
                        let _ = writeln!(self.body, "    la_map_c({code}, {n}, {out}, {d});");
                    }
                }
                Value::Dense(out)
            }
        }
    }

    /// A dense elementwise operation through the Rise kernel of its broadcast.
    fn elementwise(&mut self, i: usize, op: ElementwiseOp, a: usize, b: usize) -> Value {
        let s = self.shape(i);
        let (sa, sb) = (self.shape(a), self.shape(b));
        let (da, db) = (self.dense(a), self.dense(b));
        let out = self.dense_temp(i, "");
        let scalar = Shape::SCALAR;
        let col = |x: Shape| x.cols == 1 && x.rows == s.rows && s.cols > 1;
        let row = |x: Shape| x.rows == 1 && x.cols == s.cols && s.rows > 1;
        let (kernel, args) = if sa == sb {
            (
                Broadcast::Same,
                format!("{}, {out}, {da}, {db}", s.rows * s.cols),
            )
        } else if sa == scalar {
            (
                Broadcast::Scalar,
                format!("{}, {out}, {da}[0], {db}", s.rows * s.cols),
            )
        } else if sb == scalar {
            (
                Broadcast::Scalar,
                format!("{}, {out}, {db}[0], {da}", s.rows * s.cols),
            )
        } else if col(sa) && sb == s {
            (
                Broadcast::Column,
                format!("{}, {}, {out}, {da}, {db}", s.rows, s.cols),
            )
        } else if col(sb) && sa == s {
            (
                Broadcast::Column,
                format!("{}, {}, {out}, {db}, {da}", s.rows, s.cols),
            )
        } else if row(sa) && sb == s {
            (
                Broadcast::Row,
                format!("{}, {}, {out}, {da}, {db}", s.rows, s.cols),
            )
        } else if row(sb) && sa == s {
            (
                Broadcast::Row,
                format!("{}, {}, {out}, {db}, {da}", s.rows, s.cols),
            )
        } else if col(sa) && row(sb) {
            (
                Broadcast::Outer,
                format!("{}, {}, {out}, {da}, {db}", s.rows, s.cols),
            )
        } else {
            (
                Broadcast::Outer,
                format!("{}, {}, {out}, {db}, {da}", s.rows, s.cols),
            )
        };
        let k = DenseKernel::Elementwise(op, kernel);
        self.kernels.insert(k);
        self.call(format!("{}({args})", k.name()));
        Value::Dense(out)
    }
}

/// Every `Math` node is a matrix operation or a leaf the emitter knows.
pub fn is_plan(expr: &RecExpr<Math>) -> bool {
    expr.as_ref().iter().all(|n| {
        !matches!(
            n,
            Math::Join(_)
                | Math::Union(_)
                | Math::Agg(_)
                | Math::Bind(_)
                | Math::Unbind(_)
                | Math::Num(_)
                | Math::Index(_)
        ) && n.children().len() <= 2
    })
}
