//! Interning support shared by [`crate::ir::nat`] and [`crate::ir::types`]: a global hash-consing table
//! per interned type, hashed with [`rustc_hash::FxHasher`].
//!
//! Interning is on the hot path of type inference and rewriting (every type built is looked up),
//! and the keys are small trees whose children are already interned (hashed by their unique
//! id), so the Fx multiply-rotate hash is much cheaper than the standard SipHash and good enough.

use hashconsing::{HConsed, HConsign, HashConsign};
use rustc_hash::FxBuildHasher;
use std::hash::Hash;
use std::sync::{LazyLock, RwLock};

/// The hash builder of every interning table.
pub type FastBuild = FxBuildHasher;

/// A global interning table.
pub type Table<T> = LazyLock<RwLock<HConsign<T, FastBuild>>>;

/// A new, empty table (for a `static`).
pub const fn table<T: Hash + Eq + Clone>() -> Table<T> {
    LazyLock::new(|| {
        RwLock::new(HConsign::with_capacity_and_hasher(
            1024,
            FastBuild::default(),
        ))
    })
}

/// Interns `value` in `table`.
pub fn intern<T: Hash + Eq + Clone>(table: &Table<T>, value: T) -> HConsed<T> {
    let mut guard = table
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    (&mut *guard).mk(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    static WORDS: Table<String> = table();

    #[test]
    fn equal_values_share_one_entry() {
        let a = intern(&WORDS, "map".to_string());
        let b = intern(&WORDS, "map".to_string());
        let c = intern(&WORDS, "zip".to_string());
        assert_eq!(a.uid(), b.uid());
        assert_ne!(a.uid(), c.uid());
        assert_eq!(*a, "map");
    }
}
