//! Plumbing shared by every stage: deep recursion without stack overflow ([`stack`]) and
//! durations and byte sizes as people write them ([`units`]).

pub mod stack;
pub mod units;
