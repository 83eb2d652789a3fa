//! Cost models for sketch-constrained extraction: monotone and local, the cost of a term is the
//! sum of its nodes' costs, each at least 1 (so that a cheapest term never contains itself).

use crate::eqsat::egraph::{OpVariant, RiseNode, RiseOp};
use crate::ir::primitive::Primitive;

/// A cost model a guide step may name (`cost = ast-size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CostModel {
    /// Every node costs 1: the smallest term.
    #[default]
    AstSize,
    /// Like `ast-size`, but parallel and unrolled loops (`mapPar`, `mapSeqUnroll`,
    /// `reduceSeqUnroll`) cost 2: they appear only where the sketch asks for them.
    SequentialFirst,
}

/// Every cost model with its name and a one-line description (`risec costs`).
pub const COST_MODELS: &[(&str, CostModel, &str)] = &[
    (
        "ast-size",
        CostModel::AstSize,
        "every node costs 1: the smallest program (default)",
    ),
    (
        "sequential-first",
        CostModel::SequentialFirst,
        "like ast-size, but parallel and unrolled loops cost 2, so they appear only where the \
         sketch asks for them",
    ),
];

impl CostModel {
    /// The model named `name`.
    pub fn by_name(name: &str) -> Option<CostModel> {
        COST_MODELS
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, m, _)| *m)
    }

    /// The model's name.
    pub fn name(self) -> &'static str {
        COST_MODELS
            .iter()
            .find(|(_, m, _)| *m == self)
            .map_or("?", |(n, _, _)| n)
    }

    /// The cost of one node (not counting its children); at least 1.
    pub fn node_cost(self, node: &RiseNode) -> u64 {
        match self {
            CostModel::AstSize => 1,
            CostModel::SequentialFirst if node.variant() != OpVariant::Prim => 1,
            CostModel::SequentialFirst => match node.op() {
                RiseOp::Prim(
                    Primitive::MapPar | Primitive::MapSeqUnroll | Primitive::ReduceSeqUnroll,
                ) => 2,
                _ => 1,
            },
        }
    }
}
