//! The vocabulary every stage shares: sizes ([`nat`]), types ([`types`]) and primitives
//! ([`primitive`]), hash-consed through [`intern`].

pub mod intern;
pub mod nat;
pub mod primitive;
pub mod types;
