//! Stack space for the passes that recurse over terms.
//!
//! Programs may be long in ways that nest their trees deeply without nesting their text: a
//! 100,000-term sum `x + x + … + x`, or a 1,000-stage pipeline `x |> map f |> …`, is one chain
//! in the source but a tree 100,000 levels deep after elaboration. The recursive passes call
//! [`guarded`] at every level, which runs them on a fresh heap-allocated stack segment
//! ([`stacker`], as rustc does) whenever the current one runs low, so depth is bounded by memory
//! rather than by the thread's stack. Truly nested text stays bounded by the parser's limit.

/// Below this much remaining stack, [`guarded`] switches to a new segment.
const RED_ZONE: usize = 256 * 1024;

/// The size of each new stack segment.
const SEGMENT: usize = 4 * 1024 * 1024;

/// Runs `f`, first moving to a new stack segment if the current one is nearly used up.
#[inline]
pub fn guarded<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

#[cfg(test)]
mod tests {
    use super::guarded;

    fn depth(n: u64) -> u64 {
        guarded(|| if n == 0 { 0 } else { 1 + depth(n - 1) })
    }

    #[test]
    fn recursion_deeper_than_the_thread_stack_completes() {
        // Test threads have 2 MiB of stack; a million frames need far more.
        assert_eq!(depth(1_000_000), 1_000_000);
    }
}
