//! The e-graph language of the linear-algebra optimiser and the facts every e-class carries.
//!
//! One language holds two sorts, as in SPORES:
//! * **matrices** (linear algebra): inputs, literals, `mmul`, `mul`, `add`, `t`, `sum`,
//!   `rowsums`, `colsums`, `map` — the operations a plan is made of;
//! * **relations** (relational algebra over named indices): `*` (join), `+` (union),
//!   `agg` (sum over one index), numbers.
//!
//! `bind(i, j, M)` turns matrix `M` into the relation `M(i, j)`; `unbind(i, j, R)` turns a
//! relation back into a matrix. A dimension of size 1 has no index: it is bound to the unit
//! index `@_`, which is in no schema. That is what lets vectors and broadcasting need no rules
//! of their own.
//!
//! [`LaAnalysis`] gives every e-class its [`Kind`] (a matrix's shape, a relation's schema), an
//! estimate of its non-zeros (SPORES' sparsity estimate; equal classes keep the tighter one) and
//! its constant value, which is folded as soon as it is known.

use super::check::{Func, Shape};
use egg::{define_language, Analysis, DidMerge, EGraph, Id, Language, Symbol};
use std::fmt;
use std::str::FromStr;

/// A number of the relational sort (a relation with no indices), hashed by its bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Constant(u64);

impl Constant {
    /// The constant `v` (`-0.0` is `0.0`).
    pub fn new(v: f64) -> Constant {
        Constant(if v == 0.0 { 0.0f64 } else { v }.to_bits())
    }

    /// Its value.
    pub fn value(self) -> f64 {
        f64::from_bits(self.0)
    }
}

impl FromStr for Constant {
    type Err = ();
    fn from_str(s: &str) -> Result<Constant, ()> {
        s.parse::<f64>().map(Constant::new).map_err(|_| ())
    }
}

impl fmt::Display for Constant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value())
    }
}

/// A number of the matrix sort (a 1 x 1 matrix), written `lit:V` in patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Literal(pub Constant);

impl FromStr for Literal {
    type Err = ();
    fn from_str(s: &str) -> Result<Literal, ()> {
        s.strip_prefix("lit:").ok_or(())?.parse().map(Literal)
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "lit:{}", self.0)
    }
}

/// An index name: `@N`, or the unit index `@_` of a dimension of size 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IndexName(pub u32);

impl IndexName {
    /// The index of dimensions of size 1 (in no schema).
    pub const UNIT: IndexName = IndexName(u32::MAX);

    /// Whether this is the unit index.
    pub fn is_unit(self) -> bool {
        self == IndexName::UNIT
    }
}

impl FromStr for IndexName {
    type Err = ();
    fn from_str(s: &str) -> Result<IndexName, ()> {
        match s.strip_prefix('@').ok_or(())? {
            "_" => Ok(IndexName::UNIT),
            n => n.parse().map(IndexName).map_err(|_| ()),
        }
    }
}

impl fmt::Display for IndexName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_unit() {
            f.write_str("@_")
        } else {
            write!(f, "@{}", self.0)
        }
    }
}

impl fmt::Display for Func {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

define_language! {
    /// The nodes of the linear-algebra e-graph (see the module documentation).
    pub enum Math {
        "mmul" = MMul([Id; 2]),
        "mul" = Mul([Id; 2]),
        "add" = Add([Id; 2]),
        "t" = T(Id),
        "sum" = Sum(Id),
        "rowsums" = RowSums(Id),
        "colsums" = ColSums(Id),
        "map" = Map([Id; 2]),
        "*" = Join([Id; 2]),
        "+" = Union([Id; 2]),
        "agg" = Agg([Id; 2]),
        "bind" = Bind([Id; 3]),
        "unbind" = Unbind([Id; 3]),
        Num(Constant),
        Lit(Literal),
        Index(IndexName),
        Func(Func),
        Var(Symbol),
    }
}

/// What an e-class is.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// A matrix of this shape.
    Matrix(Shape),
    /// A relation with these free indices (sorted, without the unit index).
    Relation(Vec<IndexName>),
    /// An index name.
    Index(IndexName),
    /// An elementwise function's name.
    Func(Func),
}

/// The facts of one e-class.
#[derive(Clone, Debug)]
pub struct Data {
    /// Its sort and shape or schema.
    pub kind: Kind,
    /// Estimated number of non-zeros (0 for indices and functions).
    pub nnz: f64,
    /// Its value, when it is a known number.
    pub constant: Option<f64>,
    /// Whether every entry is surely finite (no `log`, `1 / x`, `exp` or `sqrt` on the way,
    /// which can make infinities or NaN, for which `0 * x = 0` fails).
    pub finite: bool,
}

impl Data {
    /// The shape of a matrix class.
    pub fn shape(&self) -> Option<Shape> {
        match self.kind {
            Kind::Matrix(s) => Some(s),
            _ => None,
        }
    }

    /// The schema of a relation class (empty for anything else).
    pub fn schema(&self) -> &[IndexName] {
        match &self.kind {
            Kind::Relation(s) => s,
            _ => &[],
        }
    }

    /// The index of an index class.
    pub fn index(&self) -> Option<IndexName> {
        match self.kind {
            Kind::Index(i) => Some(i),
            _ => None,
        }
    }
}

/// The analysis: sizes of the index names and of the inputs, which the lowering registers.
#[derive(Default, Debug)]
pub struct LaAnalysis {
    /// The size of index `@N` is `index_sizes[N]`.
    pub index_sizes: Vec<u64>,
    /// Each input's shape and non-zeros, by name.
    pub inputs: rustc_hash::FxHashMap<Symbol, (Shape, f64)>,
}

/// The e-graph of the optimiser.
pub type LaEGraph = EGraph<Math, LaAnalysis>;

impl LaAnalysis {
    /// The size of an index (1 for the unit index).
    pub fn size(&self, i: IndexName) -> u64 {
        if i.is_unit() {
            1
        } else {
            self.index_sizes[i.0 as usize]
        }
    }

    /// The number of entries of a relation with this schema.
    pub fn extent(&self, schema: &[IndexName]) -> f64 {
        schema.iter().map(|&i| self.size(i) as f64).product()
    }

    /// Registers a new index of `size` (the unit index for size 1).
    pub fn fresh_index(&mut self, size: u64) -> IndexName {
        if size == 1 {
            return IndexName::UNIT;
        }
        self.index_sizes.push(size);
        IndexName(self.index_sizes.len() as u32 - 1)
    }
}

/// The union of two sorted schemas.
pub fn schema_union(a: &[IndexName], b: &[IndexName]) -> Vec<IndexName> {
    let mut s: Vec<IndexName> = a.iter().chain(b).copied().collect();
    s.sort_unstable();
    s.dedup();
    s
}

fn density(nnz: f64, size: f64) -> f64 {
    if size <= 0.0 {
        0.0
    } else {
        (nnz / size).min(1.0)
    }
}

fn nonzero(c: f64) -> f64 {
    if c == 0.0 {
        0.0
    } else {
        1.0
    }
}

fn fold(c: Option<f64>) -> Option<f64> {
    c.filter(|v| v.is_finite())
}

impl Analysis<Math> for LaAnalysis {
    type Data = Data;

    fn make(egraph: &mut LaEGraph, enode: &Math, _id: Id) -> Data {
        let mut data = Self::make_unchecked(egraph, enode);
        data.finite = match enode {
            Math::Map([f, _])
                if !matches!(
                    egraph[*f].data.kind,
                    Kind::Func(Func::Abs | Func::Relu | Func::Sigmoid)
                ) =>
            {
                false
            }
            _ => enode.children().iter().all(|c| egraph[*c].data.finite),
        };
        data
    }

    fn merge(&mut self, a: &mut Data, b: Data) -> DidMerge {
        let mut changed_a = false;
        let mut changed_b = false;
        if b.nnz < a.nnz {
            a.nnz = b.nnz;
            changed_a = true;
        } else if a.nnz < b.nnz {
            changed_b = true;
        }
        if b.finite && !a.finite {
            a.finite = true;
            changed_a = true;
        } else if a.finite && !b.finite {
            changed_b = true;
        }
        match (a.constant, b.constant) {
            (None, Some(c)) => {
                a.constant = Some(c);
                changed_a = true;
            }
            (Some(_), None) => changed_b = true,
            _ => {}
        }
        DidMerge(changed_a, changed_b)
    }

    fn modify(egraph: &mut LaEGraph, id: Id) {
        let data = &egraph[id].data;
        let Some(c) = data.constant else { return };
        match &data.kind {
            Kind::Relation(schema) if schema.is_empty() => {
                let num = egraph.add(Math::Num(Constant::new(c)));
                egraph.union(id, num);
                // The same number as a matrix, so that plans can use it.
                let unit = egraph.add(Math::Index(IndexName::UNIT));
                let lit = egraph.add(Math::Lit(Literal(Constant::new(c))));
                let bound = egraph.add(Math::Bind([unit, unit, lit]));
                egraph.union(id, bound);
            }
            Kind::Matrix(s) if *s == Shape::SCALAR => {
                let lit = egraph.add(Math::Lit(Literal(Constant::new(c))));
                egraph.union(id, lit);
            }
            _ => {}
        }
    }
}

impl LaAnalysis {
    /// The facts of a new e-node, all but `finite`: leaves here, operations from their
    /// children's facts ([`Children`]).
    fn make_unchecked(egraph: &mut LaEGraph, enode: &Math) -> Data {
        let c = Children { egraph };
        let plain = |kind: Kind| Data {
            kind,
            nnz: 0.0,
            constant: None,
            finite: true,
        };
        match enode {
            Math::Num(n) => Data {
                kind: Kind::Relation(Vec::new()),
                nnz: nonzero(n.value()),
                constant: Some(n.value()),
                finite: true,
            },
            Math::Lit(Literal(n)) => matrix(Shape::SCALAR, nonzero(n.value()), Some(n.value())),
            Math::Var(name) => {
                let inputs = &egraph.analysis.inputs;
                let (shape, nnz) = inputs.get(name).copied().unwrap_or((Shape::SCALAR, 1.0));
                Data {
                    finite: true,
                    kind: Kind::Matrix(shape),
                    nnz,
                    constant: None,
                }
            }
            Math::Index(i) => plain(Kind::Index(*i)),
            Math::Func(f) => plain(Kind::Func(*f)),
            Math::MMul([x, y]) => c.mmul(x, y),
            Math::Mul([x, y]) => {
                let out = c.shape(x).broadcast(c.shape(y)).unwrap_or(c.shape(x));
                let s = c.sparsity(x).min(c.sparsity(y));
                matrix(out, s, c.both(x, y, |p, q| p * q))
            }
            Math::Add([x, y]) => {
                let out = c.shape(x).broadcast(c.shape(y)).unwrap_or(c.shape(x));
                let s = c.sparsity(x) + c.sparsity(y);
                matrix(out, s, c.both(x, y, |p, q| p + q))
            }
            Math::T(x) => {
                let s = c.shape(x);
                let out = Shape {
                    rows: s.cols,
                    cols: s.rows,
                };
                matrix(out, c.sparsity(x), c.data(x).constant)
            }
            Math::Sum(x) => matrix(Shape::SCALAR, c.data(x).nnz, c.data(x).constant),
            Math::RowSums(x) => c.row_sums(x),
            Math::ColSums(x) => c.col_sums(x),
            Math::Map([f, x]) => c.map(f, x),
            Math::Join([x, y]) => c.join_or_union(x, y, true),
            Math::Union([x, y]) => c.join_or_union(x, y, false),
            Math::Agg([i, x]) => c.agg(i, x),
            Math::Bind([i, j, m]) => c.bind(i, j, m),
            Math::Unbind([i, j, r]) => c.unbind(i, j, r),
        }
    }
}

/// The facts of a matrix of `shape` with non-zeros at `sparsity` (a share, capped at 1) and
/// the value `constant` when it is a known finite number.
fn matrix(shape: Shape, sparsity: f64, constant: Option<f64>) -> Data {
    Data {
        kind: Kind::Matrix(shape),
        nnz: sparsity.min(1.0) * shape.size(),
        constant: fold(constant),
        finite: true,
    }
}

/// The e-graph a new e-node's children are in: the facts of an operation (its sort, shape
/// or schema, non-zeros and constant value) from theirs.
struct Children<'g> {
    egraph: &'g LaEGraph,
}

impl Children<'_> {
    /// A child's facts.
    fn data(&self, id: &Id) -> &Data {
        &self.egraph[*id].data
    }

    /// A matrix child's shape (a scalar's for anything else).
    fn shape(&self, id: &Id) -> Shape {
        self.data(id).shape().unwrap_or(Shape::SCALAR)
    }

    /// The share of a child's entries that are non-zero.
    fn sparsity(&self, id: &Id) -> f64 {
        let x = self.data(id);
        match &x.kind {
            Kind::Matrix(s) => density(x.nnz, s.size()),
            Kind::Relation(s) => density(x.nnz, self.egraph.analysis.extent(s)),
            _ => 0.0,
        }
    }

    /// `f` of two children's constant values, when both are known.
    fn both(&self, x: &Id, y: &Id, f: fn(f64, f64) -> f64) -> Option<f64> {
        Some(f(self.data(x).constant?, self.data(y).constant?))
    }

    /// `mmul x y`: each entry a sum over `x`'s columns of products.
    fn mmul(&self, x: &Id, y: &Id) -> Data {
        let (sx, sy) = (self.shape(x), self.shape(y));
        let out = Shape {
            rows: sx.rows,
            cols: sy.cols,
        };
        let s = self.sparsity(x) * self.sparsity(y) * sx.cols as f64;
        matrix(out, s, self.both(x, y, |p, q| p * q))
    }

    /// `rowsums x`: a column, each entry a sum over a row of `x`.
    fn row_sums(&self, x: &Id) -> Data {
        let s = self.shape(x);
        let c = self.data(x).constant.map(|c| c * s.cols as f64);
        matrix(
            Shape {
                rows: s.rows,
                cols: 1,
            },
            self.sparsity(x) * s.cols as f64,
            c,
        )
    }

    /// `colsums x`: a row, each entry a sum over a column of `x`.
    fn col_sums(&self, x: &Id) -> Data {
        let s = self.shape(x);
        let c = self.data(x).constant.map(|c| c * s.rows as f64);
        matrix(
            Shape {
                rows: 1,
                cols: s.cols,
            },
            self.sparsity(x) * s.rows as f64,
            c,
        )
    }

    /// `map f x` of a matrix or a relation: the same shape or schema, as sparse as `x` when
    /// `f(0) = 0`.
    fn map(&self, f: &Id, x: &Id) -> Data {
        let func = match self.data(f).kind {
            Kind::Func(func) => func,
            _ => Func::Exp,
        };
        let constant = self.data(x).constant.map(|c| func.apply(c));
        let s = if func.keeps_zero() {
            self.sparsity(x)
        } else {
            1.0
        };
        match &self.data(x).kind {
            Kind::Relation(schema) => Data {
                finite: true,
                kind: Kind::Relation(schema.clone()),
                nnz: s * self.egraph.analysis.extent(schema),
                constant: fold(constant),
            },
            _ => matrix(self.shape(x), s, constant),
        }
    }

    /// `x * y` (`join`: a product) or `x + y` (a union) of relations: the union of their
    /// schemas.
    fn join_or_union(&self, x: &Id, y: &Id, join: bool) -> Data {
        let schema = schema_union(self.data(x).schema(), self.data(y).schema());
        let s = if join {
            self.sparsity(x).min(self.sparsity(y))
        } else {
            (self.sparsity(x) + self.sparsity(y)).min(1.0)
        };
        let constant = if join {
            self.both(x, y, |p, q| p * q)
        } else {
            self.both(x, y, |p, q| p + q)
        };
        Data {
            finite: true,
            nnz: s * self.egraph.analysis.extent(&schema),
            kind: Kind::Relation(schema),
            constant: fold(constant),
        }
    }

    /// `agg i x`: the sum of relation `x` over index `i`, which leaves the schema (a sum over
    /// an index that `x` does not have multiplies it by the index's size).
    fn agg(&self, i: &Id, x: &Id) -> Data {
        let a = &self.egraph.analysis;
        let index = self.data(i).index().unwrap_or(IndexName::UNIT);
        let n = a.size(index) as f64;
        let inner = self.data(x).schema();
        if inner.contains(&index) {
            let schema: Vec<IndexName> = inner.iter().copied().filter(|&j| j != index).collect();
            let s = (self.sparsity(x) * n).min(1.0);
            Data {
                finite: true,
                nnz: s * a.extent(&schema),
                kind: Kind::Relation(schema),
                constant: None,
            }
        } else {
            Data {
                finite: true,
                kind: Kind::Relation(inner.to_vec()),
                nnz: self.data(x).nnz,
                constant: fold(self.data(x).constant.map(|c| c * n)),
            }
        }
    }

    /// `bind i j m`: matrix `m` as the relation over its indices (the unit index left out).
    fn bind(&self, i: &Id, j: &Id, m: &Id) -> Data {
        let schema = schema_union(
            &self
                .data(i)
                .index()
                .into_iter()
                .filter(|x| !x.is_unit())
                .collect::<Vec<_>>(),
            &self
                .data(j)
                .index()
                .into_iter()
                .filter(|x| !x.is_unit())
                .collect::<Vec<_>>(),
        );
        Data {
            finite: true,
            kind: Kind::Relation(schema),
            nnz: self.data(m).nnz,
            constant: self.data(m).constant,
        }
    }

    /// `unbind i j r`: relation `r` as the matrix of `i`'s rows and `j`'s columns.
    fn unbind(&self, i: &Id, j: &Id, r: &Id) -> Data {
        let a = &self.egraph.analysis;
        let rows = a.size(self.data(i).index().unwrap_or(IndexName::UNIT));
        let cols = a.size(self.data(j).index().unwrap_or(IndexName::UNIT));
        Data {
            finite: true,
            kind: Kind::Matrix(Shape { rows, cols }),
            nnz: self.data(r).nnz,
            constant: self.data(r).constant,
        }
    }
}
