//! Running a built driver as a child process under a time limit, and telling how it ended:
//! an exit status, a signal, a sanitizer's report, or the limit. The driver announces each
//! kernel call (`START index` on standard output, flushed) so that an end during a call is
//! attributed to the kernel that was running.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a driver run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this status.
    Exited(i32),
    /// A signal ended it (its number).
    Signal(i32),
    /// It ran past the limit and was killed.
    TimedOut(Duration),
}

/// A finished driver run.
#[derive(Clone, Debug)]
pub struct Finished {
    /// How it ended.
    pub ending: Ending,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
}

impl Finished {
    /// Whether it exited with status 0.
    pub fn success(&self) -> bool {
        self.ending == Ending::Exited(0)
    }

    /// The index of the kernel whose call was under way when the run ended: the last
    /// `START index` line not followed by that call's `DUMP` or `DONE` line.
    pub fn running_kernel(&self) -> Option<usize> {
        let mut running = None;
        for line in self.stdout.lines() {
            if let Some(rest) = line.strip_prefix("START ") {
                running = rest.trim().parse().ok();
            } else if line.starts_with("DUMP ") || line.starts_with("DONE ") {
                running = None;
            }
        }
        running
    }

    /// What a sanitizer reported on standard error (its first lines), if anything.
    pub fn sanitizer_report(&self) -> Option<String> {
        let start = self.stderr.lines().position(|l| {
            l.contains("ERROR: AddressSanitizer")
                || l.contains("runtime error:")
                || l.contains("ERROR: LeakSanitizer")
        })?;
        // The report's first two lines and the first frame of its stack.
        let mut lines: Vec<&str> = self.stderr.lines().skip(start).take(2).collect();
        if let Some(frame) = self
            .stderr
            .lines()
            .skip(start)
            .find(|l| l.trim_start().starts_with("#0 "))
        {
            lines.push(frame);
        }
        Some(
            lines
                .iter()
                .map(|l| l.trim())
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join("\n"),
        )
    }

    /// How the run ended, in words: `exited with status 3`, `was killed by signal 11
    /// (SIGSEGV: an access outside its memory)`, `ran past the limit of 60s`.
    pub fn ending_text(&self) -> String {
        match &self.ending {
            Ending::Exited(code) => format!("exited with status {code}"),
            Ending::Signal(sig) => format!("was killed by signal {sig} ({})", signal_name(*sig)),
            Ending::TimedOut(limit) => format!(
                "ran past the limit of {} (killed)",
                humantime::format_duration(*limit)
            ),
        }
    }
}

/// The name of a signal, with what it usually means for a kernel.
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        4 => "SIGILL: an instruction this CPU lacks",
        6 => "SIGABRT: aborted",
        7 => "SIGBUS: a misaligned or unmapped access",
        8 => "SIGFPE: an integer division by zero or overflow",
        9 => "SIGKILL: out of memory (the system's out-of-memory killer) or killed by another process",
        11 => "SIGSEGV: an access outside its memory",
        15 => "SIGTERM",
        _ => "a signal",
    }
}

/// Where a driver's standard error goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stderr {
    /// Into a file, read back into [`Finished::stderr`].
    Captured,
    /// To risec's own standard error (a benchmark's progress).
    Shown,
}

/// Runs `exe` with `args` and `env` in `dir`, its output captured in files of its own there (no
/// pipe can fill up; runs of one driver side by side do not read each other's output), killing
/// it after `limit` when one is given.
pub fn run(
    exe: &Path,
    args: &[String],
    env: &[(&str, String)],
    dir: &Path,
    limit: Option<Duration>,
    stderr: Stderr,
) -> std::io::Result<Finished> {
    let out_file = tempfile::Builder::new()
        .prefix("driver.stdout.")
        .tempfile_in(dir)?;
    let err_file = tempfile::Builder::new()
        .prefix("driver.stderr.")
        .tempfile_in(dir)?;
    let (out_path, err_path) = (out_file.path(), err_file.path());
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(out_file.reopen()?);
    match stderr {
        Stderr::Captured => cmd.stderr(err_file.reopen()?),
        Stderr::Shown => cmd.stderr(Stdio::inherit()),
    };
    for (k, v) in env {
        cmd.env(k, v);
    }
    // Shared with the signal handler, which kills it if risec is stopped meanwhile.
    let child = std::sync::Arc::new(std::sync::Mutex::new(cmd.spawn()?));
    let _registered = crate::support::cleanup::register_child(child.clone());
    // The test hook: `RISEC_TEST_PAUSE=driver-bench` waits here while a benchmark runs.
    if let Some(mode) = args.first() {
        crate::support::cleanup::test_pause(&format!("driver-{mode}"), exe);
    }
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    let status = loop {
        let mut running = child.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(status) = running.try_wait()? {
            break Some(status);
        }
        if limit.is_some_and(|l| started.elapsed() >= l) {
            // It may have ended just now; a failed kill is then harmless.
            let _ = running.kill();
            let _ = running.wait();
            break None;
        }
        drop(running);
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    };
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    let ending = match status {
        None => Ending::TimedOut(limit.unwrap_or_default()),
        Some(s) => match s.code() {
            Some(code) => Ending::Exited(code),
            None => Ending::Signal(exit_signal(&s)),
        },
    };
    Ok(Finished {
        ending,
        stdout: read(out_path),
        stderr: match stderr {
            Stderr::Captured => read(err_path),
            Stderr::Shown => String::new(),
        },
    })
}

#[cfg(unix)]
fn exit_signal(s: &std::process::ExitStatus) -> i32 {
    std::os::unix::process::ExitStatusExt::signal(s).unwrap_or(0)
}

#[cfg(not(unix))]
fn exit_signal(_: &std::process::ExitStatus) -> i32 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, limit: Option<Duration>) -> Finished {
        let dir = tempfile::tempdir().unwrap();
        run(
            Path::new("/bin/sh"),
            &["-c".to_string(), script.to_string()],
            &[],
            dir.path(),
            limit,
            Stderr::Captured,
        )
        .unwrap()
    }

    #[test]
    fn an_exit_status_a_signal_and_the_limit_are_told_apart() {
        assert_eq!(sh("exit 3", None).ending, Ending::Exited(3));
        assert_eq!(sh("kill -SEGV $$", None).ending, Ending::Signal(11));
        let slow = sh("sleep 30", Some(Duration::from_millis(100)));
        assert_eq!(slow.ending, Ending::TimedOut(Duration::from_millis(100)));
        assert!(
            slow.ending_text().contains("limit of 100ms"),
            "{}",
            slow.ending_text()
        );
    }

    #[test]
    fn the_kernel_running_when_the_driver_ended_is_the_last_started_without_a_result() {
        let f = sh("echo START 1; echo DUMP a 0 ok; echo START 2; exit 0", None);
        assert!(f.success());
        assert_eq!(f.running_kernel(), Some(2));
        let done = sh("echo START 1; echo DUMP a 0 ok", None);
        assert_eq!(done.running_kernel(), None);
    }
}
