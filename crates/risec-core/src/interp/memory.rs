//! The interpreter's memory budget: evaluation stops with [`EvalError::OutOfMemory`] once the
//! values it builds take more memory than allowed, instead of the process aborting when an
//! allocation fails.
//!
//! Each array or vector built is counted as it is made (`account`); every [`CHECK_EVERY`]
//! bytes so counted, the process's resident memory is read (from `/proc`, where the platform
//! has it; elsewhere the bytes counted stand in for it) and compared with the budget
//! (`check`, called where evaluation can fail: before arrays are built and at every
//! application). The budget is per thread and set for the duration of a call with
//! [`with_limit`]; without one there is none.

use super::{EvalError, Value};
use std::cell::Cell;

/// Bytes of new values between two looks at the resident memory.
pub const CHECK_EVERY: u64 = 16 << 20;

thread_local! {
    /// The budget in bytes (`u64::MAX`: none).
    static LIMIT: Cell<u64> = const { Cell::new(u64::MAX) };
    /// Bytes of array and vector elements built since the budget was set.
    static BUILT: Cell<u64> = const { Cell::new(0) };
    /// The value of `BUILT` at which to look at the resident memory next.
    static NEXT_CHECK: Cell<u64> = const { Cell::new(CHECK_EVERY) };
    /// The resident memory when the budget was set (what evaluation adds is measured).
    static BASELINE: Cell<u64> = const { Cell::new(0) };
}

/// Runs `f` with a budget of `bytes` for the values it builds (on top of what the process
/// holds when it starts); the previous budget is restored afterwards.
pub fn with_limit<R>(bytes: u64, f: impl FnOnce() -> R) -> R {
    let saved = (LIMIT.get(), BUILT.get(), NEXT_CHECK.get(), BASELINE.get());
    LIMIT.set(bytes);
    BUILT.set(0);
    NEXT_CHECK.set(CHECK_EVERY);
    BASELINE.set(crate::support::memory::resident_memory().unwrap_or(0));
    let result = f();
    LIMIT.set(saved.0);
    BUILT.set(saved.1);
    NEXT_CHECK.set(saved.2);
    BASELINE.set(saved.3);
    result
}

/// Counts an array or vector of `len` elements just built.
pub(crate) fn account(len: usize) {
    let bytes = (len as u64).saturating_mul(std::mem::size_of::<Value>() as u64);
    BUILT.set(BUILT.get().saturating_add(bytes));
}

/// The memory the evaluation has used so far: the growth of the resident memory where it can
/// be read, else the bytes of values built.
fn used() -> u64 {
    match crate::support::memory::resident_memory() {
        Some(rss) => rss.saturating_sub(BASELINE.get()),
        None => BUILT.get(),
    }
}

/// An error if the budget is exceeded (looked at every [`CHECK_EVERY`] bytes built), or if
/// `about_to_build` more elements would exceed it on their own.
pub(crate) fn check(about_to_build: u64) -> Result<(), EvalError> {
    let limit = LIMIT.get();
    if limit == u64::MAX {
        return Ok(());
    }
    let upcoming = about_to_build.saturating_mul(std::mem::size_of::<Value>() as u64);
    if upcoming > limit {
        return Err(EvalError::OutOfMemory {
            limit,
            needed: upcoming,
        });
    }
    let built = BUILT.get();
    if built < NEXT_CHECK.get() && upcoming < CHECK_EVERY {
        return Ok(());
    }
    NEXT_CHECK.set(built.saturating_add(CHECK_EVERY));
    let used = used();
    // Under an address-space limit (`ulimit -v`), allocating may fail before the budget is
    // reached: stop near that limit too rather than abort.
    let near_address_limit = crate::support::memory::would_exceed(u64::MAX, upcoming).is_some();
    if used.saturating_add(upcoming) > limit || near_address_limit {
        return Err(EvalError::OutOfMemory {
            limit,
            needed: used.saturating_add(upcoming),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_budget_means_no_error() {
        account(1 << 30);
        assert!(check(1 << 24).is_ok());
    }

    #[test]
    fn a_single_array_beyond_the_budget_is_refused_before_it_is_built() {
        let r = with_limit(1 << 20, || check(1 << 20));
        assert!(
            matches!(r, Err(EvalError::OutOfMemory { limit, .. }) if limit == 1 << 20),
            "{r:?}"
        );
        // The budget ends with the call.
        assert!(check(1 << 20).is_ok());
    }
}
