//! Splitting deeply nested expressions: a long flat sum `x + x + … + x` is one C expression
//! nested as deep as it is long, which C compilers refuse (clang's bracket depth limit is 256)
//! or crash on (gcc's parser recursion, near 100,000 levels). Before a statement is emitted, every
//! sub-expression [`MAX_EXPR_DEPTH`] levels deep whose C type is known is computed into a local
//! variable first (`float part = …;`), so no statement nests deeper than that. Expressions are
//! pure and the variables are declared just before the statement, in the same block, so the
//! values are the same; the statements of shallower programs are emitted unchanged.

use super::*;
use crate::support::stack::guarded;
use std::collections::HashMap;

/// The deepest expression a statement keeps; deeper parts are named first.
pub(super) const MAX_EXPR_DEPTH: usize = 128;

impl Translator {
    /// `e`, of C type `ty`, with its parts deeper than [`MAX_EXPR_DEPTH`] levels computed into
    /// local variables first (their declarations are emitted here).
    pub(super) fn shallow(&mut self, e: CExpr, ty: CType) -> CExpr {
        let mut splitter = Splitter {
            low: self,
            seen: HashMap::new(),
        };
        match splitter.visit(&e, Some(ty)) {
            (Some(replaced), _) => replaced,
            (None, _) => e,
        }
    }
}

/// One expression's split: each node visited once (shared sub-trees included), by address.
struct Splitter<'t> {
    low: &'t mut Translator,
    /// Visited nodes: the replacement (`None`: unchanged) and the depth.
    seen: HashMap<*const CExpr, (Option<CExpr>, usize)>,
}

impl Splitter<'_> {
    /// The node's replacement when a part of it was named (`None` when unchanged) and its depth
    /// afterwards. `ty` is its C type where the context tells it (arithmetic keeps its
    /// operands' type), `None` elsewhere (a comparison's operands, a vector whose lane is read).
    fn visit(&mut self, e: &CExpr, ty: Option<CType>) -> (Option<CExpr>, usize) {
        let key = e as *const CExpr;
        if let Some(known) = self.seen.get(&key) {
            return known.clone();
        }
        let result = guarded(|| self.visit_new(e, ty));
        self.seen.insert(key, result.clone());
        result
    }

    fn visit_new(&mut self, e: &CExpr, ty: Option<CType>) -> (Option<CExpr>, usize) {
        let (replaced, depth) = match e {
            CExpr::Bin(op, a, b) => {
                let operands = match op {
                    BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => ty,
                    BinOp::Lt | BinOp::Gt | BinOp::Eq => None,
                };
                let (a2, da) = self.visit_rc(a, operands);
                let (b2, db) = self.visit_rc(b, operands);
                let changed = a2.is_some() || b2.is_some();
                let node = changed.then(|| {
                    CExpr::Bin(
                        *op,
                        a2.unwrap_or_else(|| a.clone()),
                        b2.unwrap_or_else(|| b.clone()),
                    )
                });
                (node, 1 + da.max(db))
            }
            CExpr::Neg(a) => {
                let (a2, da) = self.visit_rc(a, ty);
                (a2.map(CExpr::Neg), 1 + da)
            }
            CExpr::Math(op, mt, xs) => {
                // The operands have the function's type.
                let visited: Vec<(Option<Rc<CExpr>>, usize)> =
                    xs.iter().map(|x| self.visit_rc(x, Some(*mt))).collect();
                let depth = 1 + visited.iter().map(|(_, d)| *d).max().unwrap_or(0);
                let node = visited.iter().any(|(r, _)| r.is_some()).then(|| {
                    let operands = visited
                        .into_iter()
                        .zip(xs)
                        .map(|((r, _), x)| r.unwrap_or_else(|| x.clone()))
                        .collect();
                    CExpr::Math(*op, *mt, operands)
                });
                (node, depth)
            }
            CExpr::Lane(v, l) => {
                let (v2, dv) = self.visit_rc(v, None);
                (v2.map(|v| CExpr::Lane(v, l.clone())), 1 + dv)
            }
            CExpr::Cond(c, a, b) | CExpr::VecSelect(c, a, b) => {
                // The same three parts, rebuilt with the same constructor.
                let rebuild: fn(Rc<CExpr>, Rc<CExpr>, Rc<CExpr>) -> CExpr =
                    if matches!(e, CExpr::Cond(..)) {
                        CExpr::Cond
                    } else {
                        CExpr::VecSelect
                    };
                let (c2, dc) = self.visit_rc(c, None);
                let (a2, da) = self.visit_rc(a, ty);
                let (b2, db) = self.visit_rc(b, ty);
                let changed = c2.is_some() || a2.is_some() || b2.is_some();
                let node = changed.then(|| {
                    rebuild(
                        c2.unwrap_or_else(|| c.clone()),
                        a2.unwrap_or_else(|| a.clone()),
                        b2.unwrap_or_else(|| b.clone()),
                    )
                });
                (node, 1 + dc.max(da).max(db))
            }
            CExpr::Lanes(vt, xs) => {
                let lane = Some(CType {
                    scalar: vt.scalar,
                    lanes: 1,
                });
                let visited: Vec<(Option<CExpr>, usize)> =
                    xs.iter().map(|x| self.visit(x, lane)).collect();
                let depth = 1 + visited.iter().map(|(_, d)| *d).max().unwrap_or(0);
                let node = visited.iter().any(|(r, _)| r.is_some()).then(|| {
                    let lanes = visited
                        .into_iter()
                        .zip(xs)
                        .map(|((r, _), x)| r.unwrap_or_else(|| x.clone()))
                        .collect();
                    CExpr::Lanes(*vt, lanes)
                });
                (node, depth)
            }
            CExpr::Lit(_)
            | CExpr::Var(_)
            | CExpr::Load { .. }
            | CExpr::Index(_)
            | CExpr::IxLess(..)
            | CExpr::WideIndex(_)
            | CExpr::SizeAs(..)
            | CExpr::EdgeLoad { .. } => (None, 1),
        };
        match ty {
            Some(ty) if depth >= MAX_EXPR_DEPTH => {
                let name = self.low.fresh("part");
                let init = replaced.unwrap_or_else(|| e.clone());
                self.low.push_stmt(Stmt::Decl {
                    ty,
                    name: name.clone(),
                    init: Some(init),
                });
                (Some(CExpr::Var(name)), 1)
            }
            _ => (replaced, depth),
        }
    }

    fn visit_rc(&mut self, e: &Rc<CExpr>, ty: Option<CType>) -> (Option<Rc<CExpr>>, usize) {
        let (replaced, depth) = self.visit(e, ty);
        (replaced.map(Rc::new), depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32() -> CType {
        CType {
            scalar: ScalarType::F32,
            lanes: 1,
        }
    }

    /// `x + x + … + x` with `n` terms, left-nested as the front end builds it.
    fn sum(n: usize) -> CExpr {
        let x = Rc::new(CExpr::Var("x".into()));
        (1..n).fold(CExpr::Var("x".into()), |acc, _| {
            CExpr::Bin(BinOp::Add, Rc::new(acc), x.clone())
        })
    }

    fn depth(e: &CExpr) -> usize {
        match e {
            CExpr::Bin(_, a, b) => 1 + depth(a).max(depth(b)),
            CExpr::Neg(a) | CExpr::Lane(a, _) => 1 + depth(a),
            _ => 1,
        }
    }

    #[test]
    fn shallow_expressions_are_kept() {
        let mut low = Translator::new(Vec::new(), &[]);
        let e = sum(MAX_EXPR_DEPTH - 1);
        assert_eq!(low.shallow(e.clone(), f32()), e);
        assert!(low.pop_block().is_empty());
    }

    #[test]
    fn deep_sums_are_computed_in_parts_of_bounded_depth() {
        let mut low = Translator::new(Vec::new(), &[]);
        let e = low.shallow(sum(1000), f32());
        let parts = low.pop_block();
        // The first part adds MAX_EXPR_DEPTH terms, each next one the part before and
        // MAX_EXPR_DEPTH - 1 more.
        assert_eq!(
            parts.len(),
            1 + (1000 - MAX_EXPR_DEPTH) / (MAX_EXPR_DEPTH - 1)
        );
        let mut terms = 0;
        for p in &parts {
            let Stmt::Decl {
                init: Some(init), ..
            } = p
            else {
                panic!("a declaration")
            };
            assert!(depth(init) <= MAX_EXPR_DEPTH, "{}", init.to_c());
            terms += init.to_c().matches('x').count();
        }
        assert!(depth(&e) < MAX_EXPR_DEPTH);
        // Every term is added once: in a part, or in what is left.
        assert_eq!(terms + e.to_c().matches('x').count(), 1000);
        assert!(e.to_c().contains(&format!("(part{} + x)", parts.len() - 1)));
    }

    #[test]
    fn a_shared_deep_part_is_named_once() {
        let mut low = Translator::new(Vec::new(), &[]);
        let half = Rc::new(sum(MAX_EXPR_DEPTH));
        let e = CExpr::Bin(BinOp::Mul, half.clone(), half);
        let e = low.shallow(e, f32());
        let parts = low.pop_block();
        assert_eq!(parts.len(), 1);
        assert_eq!(e.to_c(), "(part * part)");
    }
}
