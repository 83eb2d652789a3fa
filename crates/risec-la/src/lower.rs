//! From checked linear algebra to the e-graph: every term is added twice, as the matrix
//! operations it is written with and as its relational translation (SPORES' rules R_LR, applied
//! once, here, instead of as rewrites), and the two are made equal through `bind`.
//!
//! Translating `A %*% B`, `sum(A)`, `rowSums(A)` and `colSums(A)` needs an index for the
//! dimension they sum over; each gets a fresh one, registered with its size. Their number is the
//! number of such operations in the input, so it does not grow during saturation (the rules
//! never make new indices; alpha-equivalent terms meet through their matrix forms instead).
//!
//! A term is translated once per pair of indices it is used at, and the pairs multiply along
//! long chains of `let`s (a term used by a product's right operand and by an elementwise
//! operation gets the indices of both contexts, and so on up the chain: 660 `let`s made 130,000
//! translations and 250,000 e-nodes). So the translations are bounded: [`FRESH_TRANSLATIONS`]
//! with fresh indices, then [`CONTEXTS_PER_TERM`] index pairs per term; a use past them, or past
//! a limit of the [`Guard`] (time, memory, e-nodes), is the term's matrix bound to the pair,
//! `bind(i, j, M)`: equal to the translation by definition, opaque to the relational rules.
//! The work is then linear in the number of terms, and within the saturation's limits: each
//! term's translations are planned top-down (cheap: indices and memo look-ups), then added to
//! the e-graph operands first, so that a limit stops the adding at once and what is left is
//! bound as a whole (a recursion that adds on the way back up had, on a chain of 30,000
//! `let`s, up to 30,000 frames of adding left when the deadline passed).

use super::check::{Input, Node, Op, Term};
use super::guard::Guard;
use super::lang::{Constant, IndexName, LaEGraph, Literal, Math};
use egg::{Id, Symbol};
use rustc_hash::FxHashMap;

/// How many translations may use fresh indices for the sums of each use of a term (so that
/// a product of two uses, `E ^ 2`, can pull both sums out) before uses share their
/// translation.
pub const FRESH_TRANSLATIONS: usize = 2_000;

/// Once [`FRESH_TRANSLATIONS`] are made: the index pairs at which one term is translated; its
/// uses at other pairs bind its matrix.
pub const CONTEXTS_PER_TERM: usize = 4;

/// An operand of a planned translation.
enum Arg<'t> {
    /// Translated by an earlier [`Lowering::add`].
    Built(Id),
    /// Planned: the step at this position.
    Step(usize),
    /// Past the bounds: the term's matrix bound to the indices.
    Opaque(&'t Term, IndexName, IndexName),
}

/// One translation to build: the term at rows `i` and columns `j`, its operands' translations,
/// and the indices it sums over (for a product, the first; for a sum, both).
struct Step<'t> {
    term: &'t Term,
    i: IndexName,
    j: IndexName,
    args: Vec<Arg<'t>>,
    sums: [IndexName; 2],
}

/// The translations of one term, in the order they can be built (operands first).
#[derive(Default)]
struct Plan<'t> {
    steps: Vec<Step<'t>>,
    planned: FxHashMap<(*const Node, IndexName, IndexName), usize>,
}

/// Adds terms to an e-graph in both sorts, under the limits of a [`Guard`] (see the module's
/// documentation); the caller rebuilds the e-graph once every term is added.
pub struct Lowering<'a> {
    egraph: &'a mut LaEGraph,
    inputs: &'a [Input],
    guard: &'a Guard,
    matrices: FxHashMap<*const Node, Id>,
    relations: FxHashMap<(*const Node, IndexName, IndexName), Id>,
    /// How many more translations may use fresh indices before uses share their translation.
    budget: usize,
    binders: FxHashMap<*const Node, bool>,
    /// Once the budget is spent: the index each term's sums bind.
    inner: FxHashMap<(*const Node, u8), IndexName>,
    /// Once the budget is spent: the index pairs each term was translated at.
    contexts: FxHashMap<*const Node, usize>,
    /// Translations added to the e-graph (each a few e-nodes).
    translations: usize,
    /// Uses that bound the term's matrix instead of translating it.
    opaque: usize,
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
    /// A lowering into `egraph`, whose analysis learns the inputs' shapes and non-zeros, that
    /// stops translating into relations once `guard` stops.
    pub fn new(egraph: &'a mut LaEGraph, inputs: &'a [Input], guard: &'a Guard) -> Lowering<'a> {
        for input in inputs {
            egraph
                .analysis
                .inputs
                .insert(Symbol::from(&input.name), (input.shape, input.nnz));
        }
        Lowering {
            egraph,
            inputs,
            guard,
            matrices: FxHashMap::default(),
            relations: FxHashMap::default(),
            budget: FRESH_TRANSLATIONS,
            binders: FxHashMap::default(),
            inner: FxHashMap::default(),
            contexts: FxHashMap::default(),
            translations: 0,
            opaque: 0,
        }
    }

    /// Adds `term` (and its relational translation, equal to it) and returns its matrix class
    /// (the e-graph needs a rebuild before it is searched).
    pub fn add(&mut self, term: &Term) -> Id {
        let matrix = self.matrix(term);
        let i = self.egraph.analysis.fresh_index(term.shape.rows);
        let j = self.egraph.analysis.fresh_index(term.shape.cols);
        let relation = self.relation(term, i, j);
        // unbind(i, j, R) is the matrix again.
        let (ii, jj) = (self.index(i), self.index(j));
        let unbound = self.egraph.add(Math::Unbind([ii, jj, relation]));
        self.egraph.union(matrix, unbound);
        self.egraph.find(matrix)
    }

    /// Translations made so far, and uses that bound a term's matrix instead.
    #[cfg(test)]
    pub fn work(&self) -> (usize, usize) {
        (self.translations, self.opaque)
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
    /// for a dimension of size 1): planned top-down, then built bottom-up, so that a limit
    /// stops the building at once (a translation built by recursion alone adds its nodes on
    /// the way back up: the deeper the chain, the more work is left when the deadline passes).
    fn relation(&mut self, term: &Term, i: IndexName, j: IndexName) -> Id {
        let mut plan = Plan::default();
        let root = self.plan(term, i, j, &mut plan);
        let mut built: Vec<Id> = Vec::with_capacity(plan.steps.len());
        for step in &plan.steps {
            if self.guard.tick(1) || self.guard.full(self.egraph) {
                break;
            }
            let id = self.build(step, &built);
            built.push(id);
        }
        self.translations += built.len();
        match root {
            Arg::Step(s) if s >= built.len() => self.opaque(term, i, j),
            root => self.resolve(&root, &built),
        }
    }

    /// Plans the translation of `term` at `(i, j)` into `plan`, operands first.
    fn plan<'t>(
        &mut self,
        term: &'t Term,
        i: IndexName,
        j: IndexName,
        plan: &mut Plan<'t>,
    ) -> Arg<'t> {
        crate::support::stack::guarded(|| self.plan_unguarded(term, i, j, plan))
    }

    fn plan_unguarded<'t>(
        &mut self,
        term: &'t Term,
        i: IndexName,
        j: IndexName,
        plan: &mut Plan<'t>,
    ) -> Arg<'t> {
        // A term that sums over an index is translated afresh at each use, with new index
        // names, so that a product of two uses (`E ^ 2`) can pull both sums out; the memo
        // takes over when the input repeats such terms so often that this would grow large.
        let key = (std::rc::Rc::as_ptr(term), i, j);
        let fresh_each_use = self.budget > 0 && binds_index(term, &mut self.binders);
        if self.budget == 0 || !binds_index(term, &mut self.binders) {
            if let Some(&id) = self.relations.get(&key) {
                return Arg::Built(id);
            }
            if let Some(&s) = plan.planned.get(&key) {
                return Arg::Step(s);
            }
        }
        let spent =
            self.budget == 0 && *self.contexts.get(&key.0).unwrap_or(&0) >= CONTEXTS_PER_TERM;
        if spent || self.guard.tick(1) {
            return Arg::Opaque(term, i, j);
        }
        if self.budget == 0 {
            *self.contexts.entry(key.0).or_insert(0) += 1;
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
        let (args, sums) = match term.op {
            Op::Input(_) | Op::Const(_) => (Vec::new(), [IndexName::UNIT; 2]),
            Op::MatMul => {
                let (a, b) = (&term.args[0], &term.args[1]);
                let k = inner(self, a.shape.cols, 0);
                let x = self.plan(a, i, k, plan);
                let y = self.plan(b, k, j, plan);
                (vec![x, y], [k, IndexName::UNIT])
            }
            Op::Mul | Op::Add => {
                let (a, b) = (&term.args[0], &term.args[1]);
                let x = self.plan(a, unit_or(a.shape.rows, i), unit_or(a.shape.cols, j), plan);
                let y = self.plan(b, unit_or(b.shape.rows, i), unit_or(b.shape.cols, j), plan);
                (vec![x, y], [IndexName::UNIT; 2])
            }
            Op::T => (
                vec![self.plan(&term.args[0], j, i, plan)],
                [IndexName::UNIT; 2],
            ),
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
                (vec![self.plan(a, r, c, plan)], [r, c])
            }
            Op::Map(_) => (
                vec![self.plan(&term.args[0], i, j, plan)],
                [IndexName::UNIT; 2],
            ),
        };
        plan.steps.push(Step {
            term,
            i,
            j,
            args,
            sums,
        });
        let s = plan.steps.len() - 1;
        plan.planned.insert(key, s);
        Arg::Step(s)
    }

    /// The class of a planned operand, given the classes of the steps built so far.
    fn resolve(&mut self, arg: &Arg, built: &[Id]) -> Id {
        match *arg {
            Arg::Built(id) => id,
            Arg::Step(s) => built[s],
            Arg::Opaque(term, i, j) => self.opaque(term, i, j),
        }
    }

    /// Not translated: the matrix at these indices (what the translation equals).
    fn opaque(&mut self, term: &Term, i: IndexName, j: IndexName) -> Id {
        self.opaque += 1;
        let m = self.matrix(term);
        let (ii, jj) = (self.index(i), self.index(j));
        self.egraph.add(Math::Bind([ii, jj, m]))
    }

    /// Adds one planned translation, whose operands are built.
    fn build(&mut self, step: &Step, built: &[Id]) -> Id {
        let (term, i, j) = (step.term, step.i, step.j);
        let mut args = step.args.iter();
        let mut arg = |lowering: &mut Self| {
            let arg = args.next().expect("the operands planned");
            lowering.resolve(arg, built)
        };
        let id = match term.op {
            Op::Input(_) => {
                let m = self.matrix(term);
                let (ii, jj) = (self.index(i), self.index(j));
                self.egraph.add(Math::Bind([ii, jj, m]))
            }
            Op::Const(c) => self.egraph.add(Math::Num(Constant::new(c))),
            Op::MatMul => {
                let (x, y) = (arg(self), arg(self));
                let product = self.egraph.add(Math::Join([x, y]));
                self.aggregate(step.sums[0], product)
            }
            Op::Mul | Op::Add => {
                let (x, y) = (arg(self), arg(self));
                if term.op == Op::Mul {
                    self.egraph.add(Math::Join([x, y]))
                } else {
                    self.egraph.add(Math::Union([x, y]))
                }
            }
            Op::T => arg(self),
            Op::Sum | Op::RowSums | Op::ColSums => {
                let [r, c] = step.sums;
                let body = arg(self);
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
                let x = arg(self);
                let func = self.egraph.add(Math::Func(f));
                self.egraph.add(Math::Map([func, x]))
            }
        };
        // The relation is the matrix, bound to (i, j).
        let m = self.matrix(term);
        let (ii, jj) = (self.index(i), self.index(j));
        let bound = self.egraph.add(Math::Bind([ii, jj, m]));
        self.egraph.union(id, bound);
        self.relations.insert((std::rc::Rc::as_ptr(term), i, j), id);
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::guard::{Limit, UNITS_PER_CLOCK};
    use crate::lang::LaAnalysis;
    use std::time::Duration;

    /// A chain of `lets` `let`s as the fuzz campaign writes them: each one the previous one
    /// combined with an earlier one or an input (drawn by a fixed xorshift), then the sum, and
    /// with `assert`, an assertion that it equals the sum of its transpose.
    pub(crate) fn let_chain(lets: usize, assert: bool) -> crate::LaProgram {
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut draw = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut text = "input X : 1000 x 1000\ninput Y : 1000 x 1000\nlet a0 = X\n".to_string();
        for k in 1..lets {
            let op = ["+", "*", "-", "%*%"][draw(4) as usize];
            let other = if draw(2) == 0 {
                format!("a{}", draw(k as u64))
            } else {
                "Y".to_string()
            };
            text.push_str(&format!("let a{k} = a{} {op} {other}\n", k - 1));
        }
        let last = lets - 1;
        text.push_str(&format!("output s = sum(a{last})\n"));
        if assert {
            text.push_str(&format!("assert sum(t(a{last})) == sum(a{last})\n"));
        }
        crate::parse(&crate::SourceFile::new("chain.la", text)).expect("a valid chain")
    }

    #[test]
    fn a_long_let_chain_is_translated_in_linear_work() {
        // 400 `let`s: every use translated once per index pair made 38,000 translations; now
        // the terms past the fresh translations get at most a few pairs each.
        let program = let_chain(400, false);
        let guard = Guard::new(Duration::MAX, u64::MAX, usize::MAX);
        let mut egraph = LaEGraph::new(LaAnalysis::default());
        let mut lowering = Lowering::new(&mut egraph, &program.inputs, &guard);
        lowering.add(&program.outputs[0].1);
        let terms = lowering.matrices.len();
        let (translations, opaque) = lowering.work();
        assert!(
            translations <= FRESH_TRANSLATIONS + CONTEXTS_PER_TERM * terms,
            "{translations} translations of {terms} terms"
        );
        assert!(
            opaque > 0,
            "the bound was not reached: a chain too short to test it"
        );
        assert_eq!(guard.stopped(), None);
        egraph.rebuild();
        assert!(egraph.total_size() < 20 * (FRESH_TRANSLATIONS + terms));
    }

    #[test]
    fn the_translation_stops_at_the_guards_limits() {
        let program = let_chain(400, false);
        let lower = |guard: &Guard| {
            let mut egraph = LaEGraph::new(LaAnalysis::default());
            let mut lowering = Lowering::new(&mut egraph, &program.inputs, guard);
            lowering.add(&program.outputs[0].1);
            let (terms, (translations, opaque)) = (lowering.matrices.len(), lowering.work());
            (egraph.total_size(), terms, translations, opaque)
        };
        // Past the deadline: the clock is read within a few hundred units of work.
        let guard = Guard::new(Duration::ZERO, u64::MAX, usize::MAX);
        let (_, _, translations, _) = lower(&guard);
        assert_eq!(guard.stopped(), Some(Limit::Time));
        assert!(translations < UNITS_PER_CLOCK, "{translations}");
        // At the e-node limit: past it, one translation's nodes and the root's `bind`.
        let guard = Guard::new(Duration::MAX, u64::MAX, 1_000);
        let (enodes, terms, translations, _) = lower(&guard);
        assert_eq!(guard.stopped(), Some(Limit::Nodes));
        assert!(terms < 1_000 && translations > 0);
        assert!(enodes < 1_000 + 16, "{enodes} e-nodes");
    }
}
