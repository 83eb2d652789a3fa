//! Helpers shared by the end-to-end tests that drive the `risec` binary.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the `risec` binary in the crate root with `args`.
pub fn risec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_risec"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("risec runs")
}

/// What a run printed on standard output.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What a run printed on standard error.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes `text` to a file in the target directory and returns its path.
pub fn temp_file(name: &str, text: &[u8]) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, text).unwrap();
    path
}
