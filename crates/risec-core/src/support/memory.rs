//! The process's memory as the system reports it (Linux: `/proc/self/status`): what the
//! saturation loop's memory limit, the interpreter's budget and the statistics read; and how
//! much the process may allocate at all (`ulimit -v`, a cgroup's `memory.max`), which the
//! default budgets respect and the limit checks watch ([`would_exceed`]).

use std::sync::OnceLock;

/// The default memory budget where nothing smaller is imposed: 4 GiB.
pub const DEFAULT_LIMIT: u64 = 4 << 30;

/// A `/proc/self/status` field given in kB, in bytes.
fn status_field(name: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(name))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Resident memory of this process in bytes (`VmRSS`, reported in kB, so that no page size is
/// assumed), or `None` where the system does not tell.
pub fn resident_memory() -> Option<u64> {
    status_field("VmRSS:")
}

/// Peak resident memory of this process in bytes (`VmHWM`), or `None`.
pub fn peak_memory() -> Option<u64> {
    status_field("VmHWM:")
}

/// Virtual memory of this process in bytes (`VmSize`), or `None`.
pub fn virtual_memory() -> Option<u64> {
    status_field("VmSize:")
}

/// The process's address-space limit in bytes (`ulimit -v`, `RLIMIT_AS`), if it has one: past
/// it, allocations fail and the process aborts. Read once.
pub fn address_space_limit() -> Option<u64> {
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
        let line = limits
            .lines()
            .find(|l| l.starts_with("Max address space"))?;
        // The soft limit is the first value after the name.
        line["Max address space".len()..]
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    })
}

/// The memory limit of the process's cgroup in bytes (`memory.max`, cgroup v2, or
/// `memory.limit_in_bytes`, v1), if it has one. Read once.
pub fn cgroup_limit() -> Option<u64> {
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        [
            "/sys/fs/cgroup/memory.max",
            "/sys/fs/cgroup/memory/memory.limit_in_bytes",
        ]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok()?.trim().parse::<u64>().ok())
        // v1 writes "no limit" as a huge number.
        .filter(|&l| l < 1 << 60)
    })
}

/// The machine's memory in bytes (`MemTotal` of `/proc/meminfo`), or its cgroup's limit where
/// that is lower; `None` where the system does not tell. Read once.
pub fn machine_memory() -> Option<u64> {
    static TOTAL: OnceLock<Option<u64>> = OnceLock::new();
    let total = *TOTAL.get_or_init(|| {
        let info = std::fs::read_to_string("/proc/meminfo").ok()?;
        let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: u64 = line["MemTotal:".len()..]
            .split_whitespace()
            .next()?
            .parse()
            .ok()?;
        kib.checked_mul(1024)
    });
    match (total, cgroup_limit()) {
        (Some(t), Some(c)) => Some(t.min(c)),
        (t, c) => t.or(c),
    }
}

/// The default limit on resident memory: [`DEFAULT_LIMIT`], or less where the process may not
/// allocate that much: 3/4 of its address-space limit, 9/10 of its cgroup's limit.
pub fn default_limit() -> u64 {
    let mut limit = DEFAULT_LIMIT;
    if let Some(a) = address_space_limit() {
        limit = limit.min(a / 4 * 3);
    }
    if let Some(c) = cgroup_limit() {
        limit = limit.min(c / 10 * 9);
    }
    limit
}

/// Whether allocating `extra` more bytes would take the process to `limit` bytes of resident
/// memory, or close to its address-space limit (within 1/16 of it: virtual memory runs ahead
/// of resident memory, and an allocation past the limit aborts the process). Returns the
/// resident memory when it would; `None` when it would not or the system does not tell.
pub fn would_exceed(limit: u64, extra: u64) -> Option<u64> {
    let resident = resident_memory()?;
    if resident.saturating_add(extra) >= limit {
        return Some(resident);
    }
    let space = address_space_limit()?;
    let used = virtual_memory()?;
    (used.saturating_add(extra) >= space - space / 16).then_some(resident)
}

/// Frees `value` on another thread: freeing an e-graph of two million e-nodes takes most of
/// a second, which an answer need not wait for (nor, at the end of a command, the process's
/// exit, which frees its memory at once). Where no thread can be started, it is freed here.
pub fn discard<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new()
        .name("discard".into())
        .spawn(move || drop(value));
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(target_os = "linux")]
    fn the_peak_is_at_least_the_current_use() {
        let now = super::resident_memory().unwrap();
        let peak = super::peak_memory().unwrap();
        assert!(now > 0 && peak >= now, "{now} {peak}");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn the_limit_checks_read_the_process() {
        assert!(super::would_exceed(1, 0).is_some());
        assert!(
            super::would_exceed(u64::MAX, 0).is_none() || super::address_space_limit().is_some()
        );
        assert!(super::default_limit() <= super::DEFAULT_LIMIT);
    }
}
