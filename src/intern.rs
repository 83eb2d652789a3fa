//! Interning support shared by [`crate::nat`] and [`crate::types`]: a global hash-consing table
//! per interned type, hashed with a fast non-cryptographic hasher.
//!
//! Interning is on the hot path of type inference and rewriting (every type built is looked up),
//! and the keys are small trees whose children are already interned (hashed by their unique
//! id), so a multiply-rotate hasher is much cheaper than the standard SipHash and good enough.

use hashconsing::{HConsed, HConsign, HashConsign};
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::{LazyLock, RwLock};

/// A multiply-rotate hasher in the style of the Firefox/rustc "Fx" hash.
#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(SEED);
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The hash builder of every interning table.
pub type FastBuild = BuildHasherDefault<FastHasher>;

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
