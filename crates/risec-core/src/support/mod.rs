//! Plumbing shared by every stage: deep recursion without stack overflow ([`stack`]),
//! durations and byte sizes as people write them ([`units`]), output files written
//! atomically ([`output`]), temporary files and folders removed when a signal stops risec
//! ([`cleanup`]), the process's memory ([`memory`]), the machine's CPU and caches
//! ([`machine`]), and the one time and memory budget of a whole run ([`budget`]).

pub mod budget;
pub mod cleanup;
pub mod machine;
pub mod memory;
pub mod output;
pub mod stack;
pub mod units;
