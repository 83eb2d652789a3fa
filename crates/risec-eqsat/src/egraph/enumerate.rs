//! Bounded enumeration of the terms an e-class represents.
//!
//! An e-class stands for a possibly infinite set of terms (cycles such as `x = map (fun y => y) x`
//! make it infinite). [`terms`] lists a finite, diverse sample of them: at most `max_terms`
//! distinct terms, none deeper than `max_depth` (which is what cuts cycles). Rule validation uses
//! it to evaluate the alternatives a rewrite added next to the original program.
//!
//! To keep the sample diverse when the cap bites, the alternatives of a class are interleaved
//! round-robin over its e-nodes (smallest first), and the combinations of an application's two
//! children are taken diagonal by diagonal, so that neither child's alternatives crowd out the
//! other's. Terms are built in an arena of shared subterms and only turned into [`Expr`] trees at
//! the root.

use super::{node_to_expr, RiseEGraph, RiseNode};
use crate::core::Expr;
use egg::Id;
use std::collections::HashMap;
use std::rc::Rc;

/// Up to `max_terms` distinct terms of class `class`, each at most `max_depth` nodes deep (a
/// single node has depth 1). The list is empty when `max_terms` or `max_depth` is 0. The e-graph
/// must be rebuilt (clean).
pub fn terms(egraph: &RiseEGraph, class: Id, max_terms: usize, max_depth: usize) -> Vec<Expr> {
    if max_terms == 0 {
        return Vec::new();
    }
    let mut e = Enumerator {
        egraph,
        max_terms,
        arena: Vec::new(),
        by_depth: HashMap::new(),
        complete: HashMap::new(),
    };
    let (root, _) = e.class_terms(egraph.find(class), max_depth);
    root.iter().map(|&t| e.to_expr(t)).collect()
}

/// A term of the arena: an e-node, the arena terms of its children, and its depth.
struct Term<'a> {
    node: &'a RiseNode,
    children: [u32; 2],
    depth: usize,
}

/// The terms of a class at some depth bound, and whether the bound cut any of them off.
type Listed = (Rc<Vec<u32>>, bool);

struct Enumerator<'a> {
    egraph: &'a RiseEGraph,
    max_terms: usize,
    arena: Vec<Term<'a>>,
    /// Lists computed for a class at a depth bound that cut something off.
    by_depth: HashMap<(Id, usize), Listed>,
    /// Lists of classes whose enumeration never reached the depth bound, with the depth of their
    /// deepest term: valid at any bound at least that deep.
    complete: HashMap<Id, (Rc<Vec<u32>>, usize)>,
}

impl<'a> Enumerator<'a> {
    fn class_terms(&mut self, class: Id, depth: usize) -> Listed {
        if depth == 0 {
            return (Rc::new(Vec::new()), true);
        }
        if let Some((list, deepest)) = self.complete.get(&class) {
            if *deepest <= depth {
                return (list.clone(), false);
            }
        }
        if let Some(found) = self.by_depth.get(&(class, depth)) {
            return found.clone();
        }
        let egraph = self.egraph;
        let mut nodes: Vec<&'a RiseNode> = egraph[class].nodes.iter().collect();
        nodes.sort_by_key(|n| {
            n.children_ids()
                .iter()
                .map(|&c| egraph[c].data.size)
                .sum::<u32>()
        });
        let mut limited = false;
        let mut per_node: Vec<Vec<u32>> = Vec::with_capacity(nodes.len());
        for node in nodes {
            let (list, cut) = self.node_terms(node, depth);
            limited |= cut;
            per_node.push(list);
        }
        let mut out = Vec::new();
        let longest = per_node.iter().map(Vec::len).max().unwrap_or(0);
        'fill: for i in 0..longest {
            for list in &per_node {
                if let Some(&t) = list.get(i) {
                    out.push(t);
                    if out.len() >= self.max_terms {
                        break 'fill;
                    }
                }
            }
        }
        let out = Rc::new(out);
        if limited {
            self.by_depth.insert((class, depth), (out.clone(), true));
        } else {
            let deepest = out.iter().map(|&t| self.arena[t as usize].depth).max();
            self.complete
                .insert(class, (out.clone(), deepest.unwrap_or(0)));
        }
        (out, limited)
    }

    /// The terms rooted at `node`, at most `depth` deep, and whether the bound cut any off.
    fn node_terms(&mut self, node: &'a RiseNode, depth: usize) -> (Vec<u32>, bool) {
        let ids = node.children_ids();
        let mut limited = false;
        let mut lists = Vec::with_capacity(ids.len());
        for &c in ids {
            let (list, cut) = self.class_terms(self.egraph.find(c), depth - 1);
            limited |= cut;
            lists.push(list);
        }
        let mut out = Vec::new();
        match lists.as_slice() {
            [] => out.push(self.push(node, [0, 0])),
            [a] => {
                for &t in a.iter().take(self.max_terms) {
                    out.push(self.push(node, [t, 0]));
                }
            }
            [a, b] if a.is_empty() || b.is_empty() => {}
            [a, b] => {
                // Diagonals i + j = k, so both children vary before the cap is reached.
                let (a, b) = (a.clone(), b.clone());
                'diagonals: for k in 0..(a.len() + b.len()).saturating_sub(1) {
                    for i in k.saturating_sub(b.len() - 1)..=k.min(a.len() - 1) {
                        out.push(self.push(node, [a[i], b[k - i]]));
                        if out.len() >= self.max_terms {
                            break 'diagonals;
                        }
                    }
                }
            }
            _ => unreachable!("Rise nodes have at most two children"),
        }
        (out, limited)
    }

    fn push(&mut self, node: &'a RiseNode, children: [u32; 2]) -> u32 {
        let depth = 1 + children[..node.children_ids().len()]
            .iter()
            .map(|&c| self.arena[c as usize].depth)
            .max()
            .unwrap_or(0);
        self.arena.push(Term {
            node,
            children,
            depth,
        });
        (self.arena.len() - 1) as u32
    }

    fn to_expr(&self, t: u32) -> Expr {
        let term = &self.arena[t as usize];
        let mut next = term.children.iter();
        node_to_expr(term.node, &mut |_| {
            let child = *next.next().expect("one arena child per e-node child");
            self.to_expr(child)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ExprKind;
    use crate::egraph::{add_expr, RiseOp};
    use std::collections::HashSet;

    use crate::frontend::load::test_term as program;

    #[test]
    fn a_plain_term_enumerates_to_itself() {
        let e = program(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../..",
            "/examples/matmul.rise"
        )));
        let mut eg = RiseEGraph::default();
        let id = add_expr(&mut eg, &e);
        eg.rebuild();
        assert_eq!(terms(&eg, id, 10, 100), vec![e.clone()]);
        assert!(terms(&eg, id, 10, e.depth() - 1).is_empty(), "too shallow");
        assert!(terms(&eg, id, 0, 100).is_empty());
    }

    /// `X` or `Y` of `fun a => fun b => add X Y`.
    fn arg_of(t: &Expr, first: bool) -> &Expr {
        let ExprKind::Lambda(b) = &t.kind else {
            panic!()
        };
        let ExprKind::Lambda(b) = &b.kind else {
            panic!()
        };
        let ExprKind::App(f, y) = &b.kind else {
            panic!()
        };
        let ExprKind::App(_, x) = &f.kind else {
            panic!()
        };
        if first {
            x
        } else {
            y
        }
    }

    #[test]
    fn alternatives_multiply_and_are_distinct() {
        // Two independent unions in the two arguments of `add`: 2 x 2 terms.
        let e = program("def p (a : f32) (b : f32) = (a * 2.0) + (b * 3.0)");
        let alt_a = program("def p (a : f32) (b : f32) = (a + a) + (b * 3.0)");
        let alt_b = program("def p (a : f32) (b : f32) = (a * 2.0) + (b + b + b)");
        let mut eg = RiseEGraph::default();
        let root = add_expr(&mut eg, &e);
        let ra = add_expr(&mut eg, &alt_a);
        let rb = add_expr(&mut eg, &alt_b);
        // Union the differing subterms through the roots' congruence: find the `a * 2.0` and
        // `a + a` classes by their root positions.
        let arg = |eg: &RiseEGraph, id: Id, first: bool| -> Id {
            // p = fun a => fun b => add X Y
            let lam_a = &eg[id].nodes[0];
            let lam_b = &eg[lam_a.children_ids()[0]].nodes[0];
            let app = &eg[lam_b.children_ids()[0]].nodes[0];
            if first {
                let add_x = &eg[app.children_ids()[0]].nodes[0];
                add_x.children_ids()[1]
            } else {
                app.children_ids()[1]
            }
        };
        let (x1, x2) = (arg(&eg, root, true), arg(&eg, ra, true));
        let (y1, y2) = (arg(&eg, root, false), arg(&eg, rb, false));
        eg.union(x1, x2);
        eg.union(y1, y2);
        eg.rebuild();
        assert_eq!(eg.find(root), eg.find(ra));
        let all = terms(&eg, root, 100, 100);
        assert_eq!(all.len(), 4);
        let set: HashSet<&Expr> = all.iter().collect();
        assert_eq!(set.len(), 4, "distinct");
        assert!(set.contains(&e) && set.contains(&alt_a) && set.contains(&alt_b));
        // With a cap of 3, both arguments still vary (diagonal order, not one argument first).
        let three = terms(&eg, root, 3, 100);
        assert_eq!(three.iter().collect::<HashSet<_>>().len(), 3);
        let first_args: HashSet<String> = three
            .iter()
            .map(|t| format!("{:?}", arg_of(t, true)))
            .collect();
        let second_args: HashSet<String> = three
            .iter()
            .map(|t| format!("{:?}", arg_of(t, false)))
            .collect();
        assert_eq!((first_args.len(), second_args.len()), (2, 2));
    }

    #[test]
    fn cycles_are_cut_by_depth() {
        // xs = map (fun y => y) xs: an infinite class, enumerated up to the depth bound.
        let e = program("def p {n : nat} (xs : n.f32) = map (fun v => v) xs");
        let mut eg = RiseEGraph::default();
        let root = add_expr(&mut eg, &e);
        eg.rebuild();
        // The class of `xs` (variable 0 of array type) and the class of `map id xs`.
        let xs = eg
            .classes()
            .find(|c| {
                c.nodes.iter().any(|n| n.op() == RiseOp::Var(0))
                    && matches!(c.data.ty().get(), crate::ir::types::TypeNode::Array(..))
            })
            .unwrap();
        let (xs, ty) = (xs.id, xs.data.ty().clone());
        let body = eg
            .classes()
            .find(|c| *c.data.ty() == ty && c.nodes.iter().any(|n| n.op() == RiseOp::App))
            .unwrap()
            .id;
        assert_eq!(terms(&eg, root, 10, 100), vec![e.clone()]);
        eg.union(body, xs);
        eg.rebuild();
        let depth_of_maps = |t: &Expr| {
            let mut count = 0;
            let mut t = t;
            while let ExprKind::App(_, a) = &t.kind {
                count += 1;
                t = a;
            }
            count
        };
        let found = terms(&eg, body, 100, 9);
        // xs (depth 1), map id xs (depth 4: app, app, lambda, variable), and each further
        // `map id` one level deeper: up to six maps within depth 9.
        let mut maps: Vec<usize> = found.iter().map(depth_of_maps).collect();
        maps.sort();
        assert_eq!(maps, (0..=6).collect::<Vec<_>>());
        assert!(found.iter().all(|t| t.depth() <= 9));
        assert_eq!(terms(&eg, body, 2, 100).len(), 2);
    }
}
