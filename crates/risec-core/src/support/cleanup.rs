//! What risec leaves on disk when a signal stops it: the temporary files of [`super::output`]
//! and the work folders of `risec bench`, `verify` and `la --bench` are registered here while
//! they exist, and on SIGINT, SIGTERM or SIGHUP (see [`install`]) every registered path is
//! removed before risec exits with the conventional status, 128 plus the signal's number (130
//! for SIGINT, 143 for SIGTERM).
//!
//! A path is registered in the same step as it is made ([`register_while`]), under the lock
//! that the signal's cleanup takes, so that a signal between the two cannot leave it behind; and
//! the cleanup exits while holding that lock, so that nothing is registered after it.
//!
//! For the tests of this, the environment variable `RISEC_TEST_PAUSE=POINT` makes risec stop at
//! [`test_pause`] point `POINT` (`write`: temporary files written, not yet renamed; `work-dir`:
//! a work folder made), print `risec: paused at POINT: PATH` on standard error and wait there
//! for a minute (for a signal), so that a test can interrupt a write deterministically.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The registered paths, each with the key of its guard.
static PENDING: Mutex<Vec<(u64, PathBuf)>> = Mutex::new(Vec::new());

/// The key of the next registration.
static NEXT_KEY: AtomicU64 = AtomicU64::new(0);

/// Child processes to stop on a signal (a benchmark driver), each with the key of its guard.
type SharedChild = std::sync::Arc<Mutex<std::process::Child>>;
static CHILDREN: Mutex<Vec<(u64, SharedChild)>> = Mutex::new(Vec::new());

fn children() -> MutexGuard<'static, Vec<(u64, SharedChild)>> {
    CHILDREN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Registers a child process: killed on a signal while the returned guard lives, so that a
/// stopped risec leaves no driver running.
pub fn register_child(child: SharedChild) -> Registered {
    let key = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
    children().push((key, child));
    Registered { key }
}

fn pending() -> MutexGuard<'static, Vec<(u64, PathBuf)>> {
    // A thread that panicked while holding the lock left the list whole (each change is one
    // push or retain).
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// A registered path: removed on a signal while this guard lives; dropping it unregisters the
/// path (without removing it: its owner removes or keeps it). Hold it in a field declared
/// after the file's or folder's own guard, so that the path is removed before it is
/// unregistered.
#[derive(Debug)]
pub struct Registered {
    key: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        pending().retain(|(k, _)| *k != self.key);
        children().retain(|(k, _)| *k != self.key);
    }
}

/// Makes something on disk with `create` and registers its path (`path_of`) in the same step,
/// under the cleanup's lock.
pub fn register_while<T, E>(
    create: impl FnOnce() -> Result<T, E>,
    path_of: impl FnOnce(&T) -> &Path,
) -> Result<(T, Registered), E> {
    let mut list = pending();
    let made = create()?;
    let key = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
    list.push((key, path_of(&made).to_path_buf()));
    Ok((made, Registered { key }))
}

/// A temporary work folder ([`tempfile::TempDir`]), removed when dropped and on a signal.
#[derive(Debug)]
pub struct WorkDir {
    // Declared first: dropped (the folder removed) before the registration.
    dir: tempfile::TempDir,
    _registered: Registered,
}

impl WorkDir {
    /// A new temporary folder in the system's temporary directory.
    pub fn new() -> std::io::Result<WorkDir> {
        let (dir, registered) = register_while(tempfile::tempdir, |d| d.path())?;
        test_pause("work-dir", dir.path());
        Ok(WorkDir {
            dir,
            _registered: registered,
        })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Kills every registered child process, then removes every registered path (a folder with
/// its contents); returns the lock, held, so that nothing more is registered.
fn remove_all() -> MutexGuard<'static, Vec<(u64, PathBuf)>> {
    for (_, child) in children().iter() {
        let mut child = child.lock().unwrap_or_else(|e| e.into_inner());
        // It may have ended already: a failed kill is harmless.
        let _ = child.kill();
        let _ = child.wait();
    }
    let list = pending();
    for (_, path) in list.iter() {
        let _ = match std::fs::symlink_metadata(path) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
            Ok(_) => std::fs::remove_file(path),
            Err(_) => Ok(()),
        };
    }
    list
}

/// Handles SIGINT, SIGTERM and SIGHUP for the rest of the process: on the first one, kills
/// every registered child process, removes every registered path and exits with status 128 + the signal's number. The handler is
/// signal-hook's (a thread woken through a pipe; the cleanup runs on that thread, not in the
/// signal handler). Does nothing where signals cannot be handled.
pub fn install() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("risec-signals".into())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    let _held = remove_all();
                    std::process::exit(128 + signal);
                }
            });
    }
}

/// The test hook described in the module's documentation: waits at `point` (for at most a
/// minute) when `RISEC_TEST_PAUSE` names it.
pub fn test_pause(point: &str, path: &Path) {
    if std::env::var_os("RISEC_TEST_PAUSE").is_some_and(|v| v == point) {
        eprintln!("risec: paused at {point}: {}", path.display());
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // `remove_all` itself is tested through the binary (tests/suite/cli.rs): here it would
    // remove the paths of other tests running in this process.
    #[test]
    fn paths_are_registered_while_they_exist() {
        let is_pending = |p: &Path| pending().iter().any(|(_, q)| q == p);
        let folder = tempfile::tempdir().unwrap();
        let (file, guard) = register_while(
            || tempfile::NamedTempFile::new_in(folder.path()),
            |f| f.path(),
        )
        .unwrap();
        let path = file.path().to_path_buf();
        let work = WorkDir::new().unwrap();
        let work_path = work.path().to_path_buf();
        assert!(is_pending(&path) && is_pending(&work_path));
        drop((file, guard));
        drop(work);
        assert!(!path.exists() && !work_path.exists());
        assert!(!is_pending(&path) && !is_pending(&work_path));
        let failed = register_while(|| Err::<PathBuf, _>("no"), |p| p.as_path());
        assert_eq!(failed.unwrap_err(), "no");
    }
}
