//! Plumbing shared by every stage: deep recursion without stack overflow ([`stack`]),
//! durations and byte sizes as people write them ([`units`]), and output files written
//! atomically ([`output`]).

pub mod output;
pub mod stack;
pub mod units;
