use super::*;

use crate::frontend::load::test_term as program;

#[test]
fn terms_round_trip_through_the_egraph() {
    let e = program(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../..",
        "/examples/matmul.rise"
    )));
    let mut eg = RiseEGraph::default();
    let id = add_expr(&mut eg, &e);
    eg.rebuild();
    assert_eq!(extract_smallest(&eg, id), e);
    assert_eq!(eg[id].data.size as usize, e.size());
    assert!(eg[id].data.free.exprs().is_empty());
    check_types(&eg).unwrap();
}

#[test]
fn nodes_differing_only_in_type_are_different_classes() {
    // `map` at two instantiations must not share a class.
    let e = program("def f {n : nat} (x : n.f32) (y : n.n.f32) = (x |> map (fun a => a), y |> map (fun r => r))");
    let mut eg = RiseEGraph::default();
    add_expr(&mut eg, &e);
    let maps: Vec<_> = eg
        .classes()
        .filter(|c| {
            c.nodes
                .iter()
                .any(|n| n.op() == RiseOp::Prim(crate::ir::primitive::Primitive::Map))
        })
        .collect();
    assert_eq!(maps.len(), 2);
    check_types(&eg).unwrap();
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "different types")]
fn unions_of_different_types_are_caught_in_debug_builds() {
    let e = program("def f (x : f32) (y : f64) = (x, y)");
    let mut eg = RiseEGraph::default();
    add_expr(&mut eg, &e);
    let x = eg
        .lookup(RiseNode::leaf(RiseOp::Var(1), crate::ir::types::f32()))
        .unwrap();
    let y = eg
        .lookup(RiseNode::leaf(
            RiseOp::Var(0),
            crate::ir::types::scalar(crate::ir::types::ScalarType::F64),
        ))
        .unwrap();
    eg.union(x, y);
    eg.rebuild();
}

#[test]
fn free_variables_are_tracked_per_class() {
    let e = program("def f (x : f32) = fun (y : f32) => x + y");
    let mut eg = RiseEGraph::default();
    let root = add_expr(&mut eg, &e);
    eg.rebuild();
    assert!(eg[root].data.free.exprs().is_empty());
    let ExprKind::Lambda(outer) = &e.kind else {
        panic!()
    };
    let ExprKind::Lambda(inner) = &outer.kind else {
        panic!()
    };
    let body = eg.lookup_expr(&to_recexpr(inner)).unwrap();
    assert_eq!(eg[body].data.free.exprs().to_vec(), [0, 1]);
}

#[test]
fn extraction_based_beta_reduction() {
    // (fun y => y + x) 2.0  ~>  2.0 + x
    let e = program("def f (x : f32) = (fun (y : f32) => y + x) 2.0");
    let expected = program("def f (x : f32) = 2.0 + x");
    let mut eg = RiseEGraph::default();
    let root = add_expr(&mut eg, &e);
    let ExprKind::Lambda(body) = &e.kind else {
        panic!()
    };
    let ExprKind::App(lam, arg) = &body.kind else {
        panic!()
    };
    let ExprKind::Lambda(lam_body) = &lam.kind else {
        panic!()
    };
    let b = add_expr(&mut eg, lam_body);
    let a = add_expr(&mut eg, arg);
    let reduced = add_beta(&mut eg, b, a);
    let redex = eg.lookup_expr(&to_recexpr(body)).unwrap();
    eg.union(redex, reduced);
    eg.rebuild();
    assert_eq!(extract_smallest(&eg, root), expected);
    check_types(&eg).unwrap();
}
