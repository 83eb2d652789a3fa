//! Sizes of nat applications as 32-bit handles, so that an e-node fits in 32 bytes.
//!
//! A [`Nat`] is a hash-consed pointer and its unique id (16 bytes); an e-node stores a handle
//! into this process-wide table instead. Handles are handed out once per distinct size, in the
//! order sizes first appear in e-nodes, and the table keeps each size alive for the rest of the
//! process (there are as many entries as distinct sizes ever applied in an e-graph, a few
//! hundred at most in practice).

use crate::ir::nat::Nat;
use std::collections::HashMap;
use std::sync::{LazyLock, RwLock};

#[derive(Default)]
struct Table {
    nats: Vec<Nat>,
    handles: HashMap<u64, u32, crate::ir::intern::FastBuild>,
}

static TABLE: LazyLock<RwLock<Table>> = LazyLock::new(Default::default);

/// The handle of `n`.
pub fn handle(n: &Nat) -> u32 {
    let uid = n.uid();
    if let Some(&h) = TABLE
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .handles
        .get(&uid)
    {
        return h;
    }
    let mut table = TABLE.write().unwrap_or_else(|p| p.into_inner());
    if let Some(&h) = table.handles.get(&uid) {
        return h;
    }
    let h = u32::try_from(table.nats.len()).expect("fewer than 2^32 distinct sizes");
    table.nats.push(n.clone());
    table.handles.insert(uid, h);
    h
}

/// The size with handle `h`.
pub fn nat(h: u32) -> Nat {
    TABLE.read().unwrap_or_else(|p| p.into_inner()).nats[h as usize].clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_sizes_share_a_handle() {
        let a = crate::ir::nat::lit(17);
        let h = handle(&a);
        assert_eq!(handle(&crate::ir::nat::lit(17)), h);
        assert_ne!(handle(&crate::ir::nat::lit(18)), h);
        assert_eq!(nat(h), a);
    }
}
