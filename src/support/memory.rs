//! The process's memory as the system reports it (Linux: `/proc/self/status`): what the
//! saturation loop's memory limit, the interpreter's budget and the statistics read.

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

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(target_os = "linux")]
    fn the_peak_is_at_least_the_current_use() {
        let now = super::resident_memory().unwrap();
        let peak = super::peak_memory().unwrap();
        assert!(now > 0 && peak >= now, "{now} {peak}");
    }
}
