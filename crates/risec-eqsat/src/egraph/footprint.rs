//! Where an e-graph's memory goes: estimated bytes by component, from the sizes of the stored
//! structures and their counts (hash tables at their bucket counts). The `eqsat_table` example
//! prints them next to the measured heap and resident memory.

use super::analysis::{ReduceKey, RenameKey};
use super::{ClassData, RiseEGraph, RiseNode};
use std::mem::size_of;

/// Buckets of a hashbrown table holding `len` entries (load factor 7/8, power of two).
fn buckets(len: usize) -> usize {
    if len == 0 {
        0
    } else {
        (len * 8 / 7 + 1).next_power_of_two()
    }
}

/// Bytes that egg's two big hash tables (the hash-cons memo and the class table) will allocate
/// when they next grow, counted only when that growth is near (within an eighth of their
/// current size). A table that grows allocates its doubled successor before freeing itself, a
/// jump of tens of megabytes on large e-graphs, so the runner's memory limit looks ahead by it.
pub fn imminent_growth(egraph: &RiseEGraph) -> usize {
    let table = |len: usize, entry: usize| {
        let b = buckets(len);
        let threshold = b / 8 * 7;
        if len + len / 8 >= threshold {
            2 * b * entry
        } else {
            0
        }
    };
    table(
        egraph.total_size(),
        size_of::<RiseNode>() + size_of::<egg::Id>() + 1,
    ) + table(
        egraph.number_of_classes(),
        size_of::<egg::EClass<RiseNode, ClassData>>() + 8 + 1,
    )
}

/// Estimated bytes per component of `egraph`, largest share first.
pub fn footprint(egraph: &RiseEGraph) -> Vec<(&'static str, usize)> {
    let node = size_of::<RiseNode>();
    let memo = egraph.total_size();
    let classes = egraph.number_of_classes();
    // egg keeps one e-node and one union-find entry per id ever created, including nodes that
    // turned out to be duplicates; ids are handed out in order, so the largest id in use
    // bounds their number from below.
    let ids = egraph
        .classes()
        .flat_map(|c| {
            std::iter::once(c.id).chain(
                c.nodes
                    .iter()
                    .flat_map(|n| n.children_ids().iter().copied()),
            )
        })
        .map(usize::from)
        .max()
        .map_or(0, |m| m + 1);
    let mut class_nodes = 0;
    let mut parents = 0;
    let mut index_sets = 0;
    for class in egraph.classes() {
        class_nodes += class.nodes.capacity() * node;
        parents += class.parents().len() * size_of::<egg::Id>();
        index_sets += class.data.free.heap_bytes();
    }
    let analysis = &egraph.analysis;
    let renamed_keys: usize = analysis.renamed.keys().map(|k| k.2.len() * 8).sum();
    let mut parts = vec![
        ("e-nodes in their classes", class_nodes),
        ("egg's list of added e-nodes (one per id)", ids * node),
        (
            "egg's hash-cons memo (e-node -> id)",
            buckets(memo) * (node + size_of::<egg::Id>() + 1),
        ),
        (
            "class table (class, analysis data)",
            buckets(classes) * (size_of::<egg::EClass<RiseNode, ClassData>>() + 8 + 1),
        ),
        ("parent lists", parents),
        ("free-index sets", index_sets),
        (
            "extraction memo tables",
            buckets(analysis.renamed.len()) * (size_of::<(RenameKey, egg::Id)>() + 1)
                + renamed_keys
                + buckets(analysis.reduced.len()) * (size_of::<(ReduceKey, egg::Id)>() + 1),
        ),
        ("union-find", ids * size_of::<egg::Id>()),
    ];
    parts.sort_by_key(|p| std::cmp::Reverse(p.1));
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_component_of_a_nonempty_egraph_is_counted() {
        let e = crate::frontend::load::test_term("def f (x : f32) (y : f32) = x + y");
        let mut eg = RiseEGraph::default();
        super::super::add_expr(&mut eg, &e);
        eg.rebuild();
        let parts = footprint(&eg);
        let get = |name: &str| parts.iter().find(|p| p.0.starts_with(name)).unwrap().1;
        assert!(
            get("e-nodes in their classes") >= eg.total_number_of_nodes() * size_of::<RiseNode>()
        );
        assert!(get("class table") > 0 && get("parent lists") > 0);
        assert_eq!(get("extraction memo tables"), 0);
        // A handful of nodes: the next table growth is small but counted once near.
        assert!(imminent_growth(&eg) < 1 << 16);
    }
}
