//! The end-to-end tests of risec, one binary (one link after a change anywhere below it): each
//! module is a concern, named as its file (`cargo test --release --test suite cli::` runs one).
//! The documented commands are a separate binary, `doc_commands`, run by CI.

mod common;

mod any_size;
mod api;
mod bounds_sweep;
mod budget;
mod c_safety;
mod cli;
mod cli_table;
mod codegen_c;
mod codegen_cli;
mod diagnose;
mod docs;
mod engine;
mod entry_params;
mod fuzz;
mod generated;
mod generic_bench;
mod graph;
mod kernels;
mod la;
mod long_programs;
mod primitives;
mod prove;
mod register_blocking;
mod robustness;
mod rough_edges;
mod rule_validation;
mod search_strategies;
mod sketch_kernels;
mod sketches;
mod tuning;
mod user_rules;
