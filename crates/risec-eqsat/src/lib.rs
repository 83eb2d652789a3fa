//! Equality saturation for typed Rise: the e-graph ([`egraph`]), rules written with names and
//! their typed instantiation ([`rewrite`]), the rule library validated against the interpreter
//! ([`rules`]), the saturation loop ([`runner`]) with its [`limits`], one pass of the rules under
//! them ([`pass`]) and the rule schedulers behind a trait ([`schedule`]: simple, back-off,
//! sampling, Monte Carlo tree search), its statistics ([`stats`]), `risec prove`'s search
//! ([`prove`]), and the greedy DAG extractor that the other front ends' optimisers share
//! ([`dag_extract`]), and with the feature `ilp` the optimal extractor by integer linear
//! programming (`ilp_extract`). `growth` holds the workloads that measure the e-graph's growth (tests, benches).

// The stages below this crate, under the names the code uses (`crate::ir::…`).
#[allow(unused_imports)]
use risec_core::{core, diagnostics, interp, ir, support};
#[allow(unused_imports)]
use risec_frontend as frontend;

pub mod dag_extract;
pub mod egraph;
pub mod explain;
pub mod growth;
#[cfg(feature = "ilp")]
pub mod ilp_extract;
pub mod limits;
pub mod pass;
pub mod prove;
pub mod rewrite;
pub mod rules;
pub mod runner;
pub mod schedule;
pub mod stats;
