//! Equality saturation for typed Rise: the e-graph ([`egraph`]), rules written with names and
//! their typed instantiation ([`rewrite`]), the rule library validated against the interpreter
//! ([`rules`]), the saturation loop with its limits ([`runner`]) and its rule schedulers ([`schedule`],
//! Monte Carlo tree search in `mcts`), its statistics ([`stats`]),
//! and `risec prove`'s search ([`prove`]). With tests or the `testkit` feature, `growth` holds
//! the workloads that measure the e-graph's growth.

// The stages below this crate, under the names the code uses (`crate::ir::…`).
#[allow(unused_imports)]
use risec_core::{core, diagnostics, interp, ir, support};
#[allow(unused_imports)]
use risec_frontend as frontend;

pub mod egraph;
pub mod explain;
pub mod growth;
pub(crate) mod mcts;
pub mod prove;
pub mod rewrite;
pub mod rules;
pub mod runner;
pub mod schedule;
pub mod stats;
