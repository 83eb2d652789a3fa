//! Every command the documentation shows works as written, at its default sizes: the `sh` blocks
//! of README.md, docs/, examples/goals/, sketches/ and codegen/ are run in order, each block in one shell that
//! stops at the first failing command, in a scratch directory (one per document) that sees the
//! repository's examples, sketches and docs. Documents run side by side, one per core.
//!
//! `risec` is the binary under test; `cargo run --release [-q] -- ARGS` runs it with ARGS and
//! `cargo run --release --example NAME -- ARGS` the example cargo built for this test run.
//! `cargo test` (this run) and `cargo bench` (criterion, minutes per bench) are left out.
//!
//! The whole run takes minutes (the README's 1536³ benchmark times every kernel), so the test is
//! ignored by `cargo test --release`; CI runs it (`.ci/run`), and so does
//! `cargo test --release --test doc_commands -- --ignored`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The documents whose `sh` blocks are run.
fn documents() -> Vec<PathBuf> {
    let mut docs = vec![
        PathBuf::from(ROOT).join("README.md"),
        PathBuf::from(ROOT).join("codegen/README.md"),
    ];
    let mut dirs = vec![
        PathBuf::from("docs"),
        PathBuf::from("examples/goals"),
        PathBuf::from("sketches"),
    ];
    // Every kernel's folder of sketches.
    if let Ok(entries) = std::fs::read_dir(Path::new(ROOT).join("sketches")) {
        let mut kernels: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| PathBuf::from("sketches").join(e.file_name()))
            .collect();
        kernels.sort();
        dirs.extend(kernels);
    }
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(Path::new(ROOT).join(dir)) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        found.sort();
        docs.extend(found);
    }
    docs
}

/// The commands of every fenced `sh` block of `text`: continuation lines joined, comments and
/// blank lines dropped; with the block's first line number.
fn sh_blocks(text: &str) -> Vec<(usize, Vec<String>)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, Vec<String>, String)> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut current {
            None if line.trim_end() == "```sh" => {
                current = Some((i + 1, Vec::new(), String::new()))
            }
            None => {}
            Some(_) if line.trim_end() == "```" => {
                let (at, commands, _) = current.take().unwrap();
                blocks.push((at, commands));
            }
            Some((_, commands, pending)) => {
                let line = strip_comment(line);
                if let Some(head) = line.strip_suffix('\\') {
                    pending.push_str(head);
                    continue;
                }
                pending.push_str(&line);
                let command = std::mem::take(pending).trim().to_string();
                if !command.is_empty() {
                    commands.push(command);
                }
            }
        }
    }
    blocks
}

/// `line` without a trailing `# comment` (a `#` after whitespace, outside quotes).
fn strip_comment(line: &str) -> String {
    let mut quote = None;
    let mut prev_space = true;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev_space => return line[..i].trim_end().to_string(),
            _ => {}
        }
        prev_space = c.is_whitespace();
    }
    line.trim_end().to_string()
}

/// How a documented command runs here, or `None` for the commands this test leaves out.
fn translate(command: &str, examples: &Path) -> Option<String> {
    if command.starts_with("cargo test") || command.starts_with("cargo bench") {
        return None;
    }
    if let Some(rest) = command.strip_prefix("cargo run --release --example ") {
        let (name, args) = rest.split_once(" -- ").unwrap_or((rest, ""));
        return Some(format!("{} {args}", examples.join(name.trim()).display()));
    }
    for prefix in ["cargo run --release -q -- ", "cargo run --release -- "] {
        if let Some(args) = command.strip_prefix(prefix) {
            return Some(format!("risec {args}"));
        }
    }
    assert!(
        !command.starts_with("cargo "),
        "no rule for the documented command `{command}`"
    );
    Some(command.to_string())
}

#[test]
#[ignore = "runs every documented command at its default sizes (minutes); CI runs it"]
fn every_documented_command_works_as_written() {
    let risec = PathBuf::from(env!("CARGO_BIN_EXE_risec"));
    let bin_dir = risec.parent().unwrap().to_path_buf();
    let examples = bin_dir.join("examples");
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("doc-commands");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // Documents are independent: each runs its blocks in order in a scratch directory of its
    // own, and as many documents run at once as there are cores (most commands use one).
    let queue = Mutex::new(documents().into_iter().enumerate().collect::<Vec<_>>());
    let ran = AtomicUsize::new(0);
    let left_out = Mutex::new(Vec::new());
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let Some((index, doc)) = queue.lock().unwrap().pop() else {
                    break;
                };
                let dir = scratch.join(index.to_string());
                std::fs::create_dir_all(&dir).unwrap();
                for d in ["examples", "sketches", "docs", "codegen"] {
                    std::os::unix::fs::symlink(Path::new(ROOT).join(d), dir.join(d)).unwrap();
                }
                let started = Instant::now();
                let text = std::fs::read_to_string(&doc).unwrap();
                let name = doc.strip_prefix(ROOT).unwrap_or(&doc).display().to_string();
                for (line, commands) in sh_blocks(&text) {
                    let mut script = String::from("set -euo pipefail\n");
                    for command in &commands {
                        match translate(command, &examples) {
                            Some(c) => {
                                script.push_str(&c);
                                script.push('\n');
                                ran.fetch_add(1, Ordering::Relaxed);
                            }
                            None => left_out
                                .lock()
                                .unwrap()
                                .push(format!("{name}:{line}: {command}")),
                        }
                    }
                    let out = Command::new("bash")
                        .arg("-c")
                        .arg(&script)
                        .current_dir(&dir)
                        .env("PATH", &path)
                        .output()
                        .expect("bash runs");
                    if !out.status.success() {
                        failures.lock().unwrap().push(format!(
                            "{name}:{line}: the block failed ({}):\n{script}\nstderr:\n{}",
                            out.status,
                            String::from_utf8_lossy(&out.stderr)
                        ));
                        break;
                    }
                }
                eprintln!("{name}: {:.1} s", started.elapsed().as_secs_f64());
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let ran = ran.into_inner();
    eprintln!(
        "{ran} documented commands ran; left out:\n  {}",
        left_out.into_inner().unwrap().join("\n  ")
    );
    assert!(ran >= 10, "only {ran} documented commands found");
}

#[test]
fn documented_commands_are_parsed_as_a_shell_reads_them() {
    let text = "```sh\nrisec a \\\n    --b c   # note\n# a comment line\necho '#x' # y\n```\n";
    let blocks = sh_blocks(text);
    assert_eq!(
        blocks,
        [(
            1,
            vec!["risec a     --b c".to_string(), "echo '#x'".to_string()]
        )]
    );
    let examples = Path::new("/x");
    assert_eq!(
        translate("cargo run --release --example t -- goals", examples).as_deref(),
        Some("/x/t goals")
    );
    assert_eq!(
        translate("cargo run --release -q -- f.rise --sketch s.sk", examples).as_deref(),
        Some("risec f.rise --sketch s.sk")
    );
    assert_eq!(translate("cargo test --release", examples), None);
}
