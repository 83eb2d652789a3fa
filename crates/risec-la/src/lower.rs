//! From checked linear algebra to the e-graph: every term is added twice, as the matrix
//! operations it is written with and as its relational translation (SPORES' rules R_LR, applied
//! once, here, instead of as rewrites), and the two are made equal through `bind`.
//!
//! Translating `A %*% B`, `sum(A)`, `rowSums(A)` and `colSums(A)` needs an index for the
//! dimension they sum over; each gets a fresh one, registered with its size. Their number is the
//! number of such operations in the input, so it does not grow during saturation (the rules
//! never make new indices; alpha-equivalent terms meet through their matrix forms instead).

use super::check::{Input, Node, Op, Term};
use super::lang::{Constant, IndexName, LaEGraph, Literal, Math};
use egg::{Id, Symbol};
use rustc_hash::FxHashMap;

/// Adds terms to an e-graph in both sorts.
pub struct Lowering<'a> {
    egraph: &'a mut LaEGraph,
    inputs: &'a [Input],
    matrices: FxHashMap<*const Node, Id>,
    relations: FxHashMap<(*const Node, IndexName, IndexName), Id>,
    /// How many more relational nodes may be made before uses share their translation.
    budget: usize,
    binders: FxHashMap<*const Node, bool>,
    /// Once the budget is spent: the index each term's sums bind.
    inner: FxHashMap<(*const Node, u8), IndexName>,
}

/// The matrix-sort node of operator `op` over operand classes `args`: an input is named after
/// `inputs`, and `func` gives the class of an elementwise function's name (`None` where it
/// has none, which makes the node `None`).
pub(crate) fn matrix_node(
    op: Op,
    args: &[Id],
    inputs: &[Input],
    func: impl FnOnce(crate::check::Func) -> Option<Id>,
) -> Option<Math> {
    Some(match op {
        Op::Input(k) => Math::Var(Symbol::from(&inputs[k].name)),
        Op::Const(c) => Math::Lit(Literal(Constant::new(c))),
        Op::MatMul => Math::MMul([args[0], args[1]]),
        Op::Mul => Math::Mul([args[0], args[1]]),
        Op::Add => Math::Add([args[0], args[1]]),
        Op::T => Math::T(args[0]),
        Op::Sum => Math::Sum(args[0]),
        Op::RowSums => Math::RowSums(args[0]),
        Op::ColSums => Math::ColSums(args[0]),
        Op::Map(f) => Math::Map([func(f)?, args[0]]),
    })
}

/// Whether the term's translation sums over an index of its own (memoised: terms share).
fn binds_index(term: &Term, memo: &mut FxHashMap<*const Node, bool>) -> bool {
    let key = std::rc::Rc::as_ptr(term);
    if let Some(&b) = memo.get(&key) {
        return b;
    }
    let own = match term.op {
        Op::MatMul => term.args[0].shape.cols > 1,
        Op::Sum | Op::RowSums | Op::ColSums => true,
        _ => false,
    };
    let b = own
        || term
            .args
            .iter()
            .any(|a| crate::support::stack::guarded(|| binds_index(a, memo)));
    memo.insert(key, b);
    b
}

impl<'a> Lowering<'a> {
    /// A lowering into `egraph`, whose analysis learns the inputs' shapes and non-zeros.
    pub fn new(egraph: &'a mut LaEGraph, inputs: &'a [Input]) -> Lowering<'a> {
        for input in inputs {
            egraph
                .analysis
                .inputs
                .insert(Symbol::from(&input.name), (input.shape, input.nnz));
        }
        Lowering {
            egraph,
            inputs,
            matrices: FxHashMap::default(),
            relations: FxHashMap::default(),
            budget: 2_000,
            binders: FxHashMap::default(),
            inner: FxHashMap::default(),
        }
    }

    /// Adds `term` (and its relational translation, equal to it) and returns its matrix class.
    pub fn add(&mut self, term: &Term) -> Id {
        let matrix = self.matrix(term);
        let i = self.egraph.analysis.fresh_index(term.shape.rows);
        let j = self.egraph.analysis.fresh_index(term.shape.cols);
        let relation = self.relation(term, i, j);
        // unbind(i, j, R) is the matrix again.
        let (ii, jj) = (self.index(i), self.index(j));
        let unbound = self.egraph.add(Math::Unbind([ii, jj, relation]));
        self.egraph.union(matrix, unbound);
        self.egraph.rebuild();
        self.egraph.find(matrix)
    }

    fn index(&mut self, i: IndexName) -> Id {
        self.egraph.add(Math::Index(i))
    }

    /// The term written with matrix operations.
    fn matrix(&mut self, term: &Term) -> Id {
        let key = std::rc::Rc::as_ptr(term);
        if let Some(&id) = self.matrices.get(&key) {
            return id;
        }
        let args: Vec<Id> = term
            .args
            .iter()
            .map(|a| crate::support::stack::guarded(|| self.matrix(a)))
            .collect();
        let inputs = self.inputs;
        let egraph = &mut *self.egraph;
        let node = matrix_node(term.op, &args, inputs, |f| Some(egraph.add(Math::Func(f))))
            .expect("every function name can be added");
        let id = self.egraph.add(node);
        self.matrices.insert(key, id);
        id
    }

    /// The term as a relation whose rows are index `i` and columns index `j` (the unit index
    /// for a dimension of size 1).
    fn relation(&mut self, term: &Term, i: IndexName, j: IndexName) -> Id {
        crate::support::stack::guarded(|| self.relation_unguarded(term, i, j))
    }

    fn relation_unguarded(&mut self, term: &Term, i: IndexName, j: IndexName) -> Id {
        // A term that sums over an index is translated afresh at each use, with new index
        // names, so that a product of two uses (`E ^ 2`) can pull both sums out; the memo
        // takes over when the input repeats such terms so often that this would grow large.
        let key = (std::rc::Rc::as_ptr(term), i, j);
        let fresh_each_use = self.budget > 0 && binds_index(term, &mut self.binders);
        if self.budget == 0 || !binds_index(term, &mut self.binders) {
            if let Some(&id) = self.relations.get(&key) {
                return id;
            }
        }
        self.budget = self.budget.saturating_sub(1);
        // The index a sum of this term binds: fresh at each use while the budget lasts, then
        // one per term (sound: an aggregate's index is local to it).
        let inner = |lowering: &mut Self, size: u64, which: u8| {
            if fresh_each_use {
                lowering.egraph.analysis.fresh_index(size)
            } else {
                *lowering
                    .inner
                    .entry((key.0, which))
                    .or_insert_with(|| lowering.egraph.analysis.fresh_index(size))
            }
        };
        let unit_or = |size: u64, index: IndexName| {
            if size == 1 {
                IndexName::UNIT
            } else {
                index
            }
        };
        let id = match term.op {
            Op::Input(_) => {
                let m = self.matrix(term);
                let (ii, jj) = (self.index(i), self.index(j));
                self.egraph.add(Math::Bind([ii, jj, m]))
            }
            Op::Const(c) => self.egraph.add(Math::Num(Constant::new(c))),
            Op::MatMul => {
                let (a, b) = (&term.args[0], &term.args[1]);
                let k = inner(self, a.shape.cols, 0);
                let x = self.relation(a, i, k);
                let y = self.relation(b, k, j);
                let product = self.egraph.add(Math::Join([x, y]));
                self.aggregate(k, product)
            }
            Op::Mul | Op::Add => {
                let (a, b) = (&term.args[0], &term.args[1]);
                let x = self.relation(a, unit_or(a.shape.rows, i), unit_or(a.shape.cols, j));
                let y = self.relation(b, unit_or(b.shape.rows, i), unit_or(b.shape.cols, j));
                if term.op == Op::Mul {
                    self.egraph.add(Math::Join([x, y]))
                } else {
                    self.egraph.add(Math::Union([x, y]))
                }
            }
            Op::T => self.relation(&term.args[0], j, i),
            Op::Sum | Op::RowSums | Op::ColSums => {
                let a = &term.args[0];
                let r = if term.op == Op::RowSums {
                    i
                } else {
                    inner(self, a.shape.rows, 0)
                };
                let c = if term.op == Op::ColSums {
                    j
                } else {
                    inner(self, a.shape.cols, 1)
                };
                let body = self.relation(a, r, c);
                let inner = if term.op == Op::RowSums {
                    body
                } else {
                    self.aggregate(r, body)
                };
                if term.op == Op::ColSums {
                    inner
                } else {
                    self.aggregate(c, inner)
                }
            }
            Op::Map(f) => {
                let x = self.relation(&term.args[0], i, j);
                let func = self.egraph.add(Math::Func(f));
                self.egraph.add(Math::Map([func, x]))
            }
        };
        // The relation is the matrix, bound to (i, j).
        let m = self.matrix(term);
        let (ii, jj) = (self.index(i), self.index(j));
        let bound = self.egraph.add(Math::Bind([ii, jj, m]));
        self.egraph.union(id, bound);
        self.relations.insert(key, id);
        id
    }

    /// `Σ_k body`, or `body` itself when `k` is the unit index (a dimension of size 1).
    fn aggregate(&mut self, k: IndexName, body: Id) -> Id {
        if k.is_unit() {
            return body;
        }
        let kk = self.index(k);
        self.egraph.add(Math::Agg([kk, body]))
    }
}
