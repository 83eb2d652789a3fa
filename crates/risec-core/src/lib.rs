//! The floor every stage of risec stands on: Rise's sizes and types (`ir`), typed terms and
//! their normal forms (`core`), the reference interpreter every rewrite rule and kernel is
//! checked against (`interp`), diagnostics with source spans (`diagnostics`) and shared support
//! code (budgets, memory limits, output files, units: `support`).

pub mod core;
pub mod diagnostics;
pub mod interp;
pub mod ir;
pub mod support;
