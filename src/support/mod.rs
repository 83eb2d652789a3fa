//! Plumbing shared by every stage: deep recursion without stack overflow ([`stack`]),
//! durations and byte sizes as people write them ([`units`]), output files written
//! atomically ([`output`]), and the process's memory ([`memory`]).

pub mod memory;
pub mod output;
pub mod stack;
pub mod units;
