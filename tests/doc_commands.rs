//! Every command the documentation shows works as written: the `sh` and `console` blocks of
//! README.md, docs/, examples/goals/, sketches/ and codegen/ are run in order, in a scratch
//! directory (one per document) that sees the repository's examples, sketches, docs and codegen.
//! Documents run side by side, one per core.
//!
//! * An `sh` block runs in one shell that stops at the first failing command.
//! * A `console` block is a transcript: each `$ COMMAND` runs, and what it prints (standard
//!   output and error through one pipe) must match the lines shown under it, where a line `…`
//!   stands for any number of lines, `…` inside a line for any text, and a time or memory
//!   figure (`2.48 ms`, `6.9 MiB`) for any number in its unit.
//! * A `text` block is not run: the documents quote measurements made at production sizes
//!   there (their prose says with which command), and show the command at a smoke size in an
//!   `sh` block.
//! * An `sh slow` block (GitHub shows it as `sh`) holds commands that take a minute or more
//!   (README's growth table of the old engine): the slow group runs it
//!   (`cargo test --release -- --ignored slow_`), with the other blocks of its document.
//! * An `sh python` block (GitHub shows it as `sh`) holds commands that need the Python venv
//!   README.md sets up (`risec la --bench --target numpy|dask`): `tests/python` (pytest, run by
//!   `.ci/run`) runs them; this test lists them as left out.
//!
//! So the documents show commands that run in seconds (`--rounds 1`, small sizes); a command
//! that relies on a default size runs at that size here.
//!
//! `risec` is the binary under test; `cargo run --release [-q] -- ARGS` runs it with ARGS and
//! `cargo run --release --example NAME -- ARGS` the example cargo built for this test run.
//! `cargo test` (this run) and `cargo bench` (criterion, minutes per bench) are left out.

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

/// A fenced block whose commands the test runs.
#[derive(Debug, PartialEq)]
enum Block {
    /// An `sh` block: its commands (continuation lines joined, comments and blank lines
    /// dropped), run in one shell that stops at the first failing command.
    Sh(Vec<String>),
    /// An `sh slow` block (GitHub shows it as `sh`): an `sh` block of commands that take a
    /// minute or more, run only by the slow group.
    SlowSh(Vec<String>),
    /// An `sh python` block (GitHub shows it as `sh`): commands that need the Python venv of
    /// README.md; `tests/python` (pytest, run by `.ci/run`) runs them, this test lists them.
    PythonSh(Vec<String>),
    /// A `console` block: each `$ COMMAND` (continuation lines joined) with the output shown
    /// under it, which the command's output must match (see [`output_matches`]).
    Console(Vec<(String, Vec<String>)>),
}

/// The `sh` and `console` blocks of `text`, each with its first line number.
fn blocks(text: &str) -> Vec<(usize, Block)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, &str, Vec<&str>)> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut current {
            None => {
                let info = line.trim_end();
                if info == "```sh python" {
                    current = Some((i + 1, "sh python", Vec::new()));
                } else if info == "```sh" || info == "```sh slow" || info == "```console" {
                    current = Some((i + 1, &info[3..], Vec::new()));
                }
            }
            Some(_) if line.trim_end() == "```" => {
                let (at, kind, lines) = current.take().unwrap();
                blocks.push((
                    at,
                    if kind == "sh" {
                        Block::Sh(sh_commands(&lines))
                    } else if kind == "sh slow" {
                        Block::SlowSh(sh_commands(&lines))
                    } else if kind == "sh python" {
                        Block::PythonSh(sh_commands(&lines))
                    } else {
                        Block::Console(console_commands(&lines))
                    },
                ));
            }
            Some((_, _, lines)) => lines.push(line),
        }
    }
    blocks
}

/// The commands of an `sh` block's lines: continuation lines joined, comments and blank lines
/// dropped.
fn sh_commands(lines: &[&str]) -> Vec<String> {
    let mut commands = Vec::new();
    let mut pending = String::new();
    for line in lines {
        let line = strip_comment(line);
        if let Some(head) = line.strip_suffix('\\') {
            pending.push_str(head);
            continue;
        }
        pending.push_str(&line);
        let command = std::mem::take(&mut pending).trim().to_string();
        if !command.is_empty() {
            commands.push(command);
        }
    }
    commands
}

/// The `$ COMMAND` lines of a `console` block (a line ending in `\` continues on the next),
/// each with the output lines shown under it.
fn console_commands(lines: &[&str]) -> Vec<(String, Vec<String>)> {
    let mut commands: Vec<(String, Vec<String>)> = Vec::new();
    let mut continued = false;
    for line in lines {
        if continued {
            let command = &mut commands.last_mut().unwrap().0;
            let part = line.trim();
            continued = part.ends_with('\\');
            command.push(' ');
            command.push_str(part.trim_end_matches('\\').trim_end());
        } else if let Some(command) = line.strip_prefix("$ ") {
            continued = command.trim_end().ends_with('\\');
            let command = command.trim_end().trim_end_matches('\\').trim_end();
            commands.push((command.to_string(), Vec::new()));
        } else {
            let (_, shown) = commands
                .last_mut()
                .expect("a console block starts with a `$ ` command");
            shown.push(line.trim_end().to_string());
        }
    }
    commands
}

/// Whether a command's `actual` output matches the `shown` lines of a `console` block: line by
/// line, where a line `…` stands for any number of lines, `…` inside a line for any text, and
/// a measured quantity (a number followed by a unit of time or memory: `2.48 ms`, `6.9 MiB`)
/// for any number in that unit. Everything else, counts included, must be as shown.
fn output_matches(shown: &[String], actual: &str) -> bool {
    let actual: Vec<String> = actual
        .lines()
        .map(|l| without_measurements(l.trim_end()))
        .collect();
    let shown: Vec<String> = shown.iter().map(|l| without_measurements(l)).collect();
    // matches[i][j]: shown[i..] matches actual[j..].
    let (n, m) = (shown.len(), actual.len());
    let mut matches = vec![vec![false; m + 1]; n + 1];
    matches[n][m] = true;
    for i in (0..n).rev() {
        for j in (0..=m).rev() {
            matches[i][j] = if shown[i].trim() == "…" {
                matches[i + 1][j] || (j < m && matches[i][j + 1])
            } else {
                j < m && line_matches(&shown[i], &actual[j]) && matches[i + 1][j + 1]
            };
        }
    }
    matches[0][0]
}

/// Whether `line` is `pattern`, where each `…` of the pattern stands for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let mut parts = pattern.split('…');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// `line` with every number followed by a unit of time or memory replaced by `#`.
fn without_measurements(line: &str) -> String {
    const UNITS: [&str; 9] = ["ns", "µs", "us", "ms", "s", "B", "KiB", "MiB", "GiB"];
    let words: Vec<&str> = line.split(' ').collect();
    let mut out: Vec<&str> = Vec::with_capacity(words.len());
    for (i, word) in words.iter().enumerate() {
        let unit = words
            .get(i + 1)
            .map(|u| u.trim_end_matches([',', ')', ';']));
        let is_number = !word.is_empty()
            && word.chars().any(|c| c.is_ascii_digit())
            && word
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == ',');
        if is_number && unit.is_some_and(|u| UNITS.contains(&u)) {
            out.push("#");
        } else {
            out.push(word);
        }
    }
    out.join(" ")
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

/// What running the documents needs: where the binaries are, the `PATH` that finds `risec`,
/// and the tallies.
struct Runner {
    /// Whether `sh slow` blocks run too (the slow group).
    slow: bool,
    examples: PathBuf,
    path: String,
    ran: AtomicUsize,
    left_out: Mutex<Vec<String>>,
}

impl Runner {
    /// `bash -c SCRIPT` in `dir`, with `risec` on the `PATH`.
    fn bash(&self, script: &str, dir: &Path) -> std::process::Output {
        Command::new("bash")
            .arg("-c")
            .arg(script)
            .current_dir(dir)
            .env("PATH", &self.path)
            // Kernels that wait for a busy core yield it (the tests run side by side).
            .env("OMP_WAIT_POLICY", "passive")
            .output()
            .expect("bash runs")
    }

    /// `command` as this test runs it, counted (or left out, and listed).
    fn translate(&self, command: &str, at: &str) -> Option<String> {
        let translated = translate(command, &self.examples);
        match &translated {
            Some(_) => {
                self.ran.fetch_add(1, Ordering::Relaxed);
            }
            None => self
                .left_out
                .lock()
                .unwrap()
                .push(format!("{at}: {command}")),
        }
        translated
    }

    /// Runs the blocks of document `name` (text `text`) in order in `dir`; the first failure.
    fn document(&self, name: &str, text: &str, dir: &Path) -> Result<(), String> {
        for (line, block) in blocks(text) {
            let at = format!("{name}:{line}");
            match block {
                Block::SlowSh(commands) if !self.slow => {
                    let mut left_out = self.left_out.lock().unwrap();
                    for command in commands {
                        left_out.push(format!("{at}: {command} (the slow group runs it)"));
                    }
                }
                Block::PythonSh(commands) => {
                    let mut left_out = self.left_out.lock().unwrap();
                    for command in commands {
                        left_out.push(format!("{at}: {command} (tests/python runs it)"));
                    }
                }
                Block::Sh(commands) | Block::SlowSh(commands) => {
                    let mut script = String::from("set -euo pipefail\n");
                    for command in &commands {
                        if let Some(c) = self.translate(command, &at) {
                            script.push_str(&c);
                            script.push('\n');
                        }
                    }
                    let out = self.bash(&script, dir);
                    if !out.status.success() {
                        return Err(format!(
                            "{at}: the block failed ({}):\n{script}\nstderr:\n{}",
                            out.status,
                            String::from_utf8_lossy(&out.stderr)
                        ));
                    }
                }
                Block::Console(commands) => {
                    for (command, shown) in commands {
                        let Some(c) = self.translate(&command, &at) else {
                            continue;
                        };
                        // Standard output and error through one pipe, as a terminal shows
                        // them; the exit status is the output's to tell (`not found: …`).
                        let out = self.bash(&format!("set -o pipefail\n{{ {c}\n}} 2>&1"), dir);
                        let actual = String::from_utf8_lossy(&out.stdout);
                        if !output_matches(&shown, &actual) {
                            return Err(format!(
                                "{at}: `{command}` ({}) printed\n{actual}\nwhere the document \
                                 shows\n{}",
                                out.status,
                                shown.join("\n")
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[test]
fn every_documented_command_works_as_written() {
    let ran = run_documents(documents(), false);
    assert!(ran >= 10, "only {ran} documented commands found");
}

/// The slow group (`cargo test --release -- --ignored slow_`): the documents with `sh slow`
/// blocks, all their blocks.
#[test]
#[ignore = "slow: documented commands of a minute or more (cargo test --release -- --ignored slow_)"]
fn slow_every_long_documented_command_works_as_written() {
    let with_slow_blocks: Vec<PathBuf> = documents()
        .into_iter()
        .filter(|d| {
            let text = std::fs::read_to_string(d).unwrap();
            blocks(&text)
                .iter()
                .any(|(_, b)| matches!(b, Block::SlowSh(_)))
        })
        .collect();
    assert!(!with_slow_blocks.is_empty());
    run_documents(with_slow_blocks, true);
}

/// Runs the blocks of `docs` (with `sh slow` blocks if `slow`), fails the test with every
/// document's first failure, and returns how many commands ran.
fn run_documents(docs: Vec<PathBuf>, slow: bool) -> usize {
    let risec = PathBuf::from(env!("CARGO_BIN_EXE_risec"));
    let bin_dir = risec.parent().unwrap().to_path_buf();
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(if slow {
        "doc-commands-slow"
    } else {
        "doc-commands"
    });
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let runner = Runner {
        slow,
        examples: bin_dir.join("examples"),
        path: format!(
            "{}:{}",
            bin_dir.display(),
            std::env::var("PATH").unwrap_or_default()
        ),
        ran: AtomicUsize::new(0),
        left_out: Mutex::new(Vec::new()),
    };
    // Documents are independent: each runs its blocks in order in a scratch directory of its
    // own, and as many documents run at once as there are cores (most commands use one). The
    // workers take them from the end of the queue: README.md, the longest, first.
    let mut queue: Vec<_> = docs.into_iter().enumerate().collect();
    queue.reverse();
    let queue = Mutex::new(queue);
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
                if let Err(failure) = runner.document(&name, &text, &dir) {
                    failures.lock().unwrap().push(failure);
                }
                // For finding slow documents (`-- --nocapture`); nothing depends on it.
                eprintln!("{name}: {:.1} s", started.elapsed().as_secs_f64());
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let ran = runner.ran.into_inner();
    eprintln!(
        "{ran} documented commands ran; left out:\n  {}",
        runner.left_out.into_inner().unwrap().join("\n  ")
    );
    ran
}

#[test]
fn documented_commands_are_parsed_as_a_shell_reads_them() {
    let text = "```sh\nrisec a \\\n    --b c   # note\n# a comment line\necho '#x' # y\n```\n\
                ```console\n$ risec p \\\n    --q r\nfound\n  …\n$ cat f\n```\n\
                ```sh slow\nlong run\n```\n";
    assert_eq!(
        blocks(text),
        [
            (
                1,
                Block::Sh(vec![
                    "risec a     --b c".to_string(),
                    "echo '#x'".to_string()
                ])
            ),
            (
                7,
                Block::Console(vec![
                    (
                        "risec p --q r".to_string(),
                        vec!["found".to_string(), "  …".to_string()]
                    ),
                    ("cat f".to_string(), vec![]),
                ])
            ),
            (14, Block::SlowSh(vec!["long run".to_string()]))
        ]
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

#[test]
fn shown_output_is_compared_line_by_line_with_measurements_left_open() {
    let shown = |text: &str| text.lines().map(String::from).collect::<Vec<_>>();
    let out = "found: after 2 iterations\n  e-nodes      93\n  time         1.34 ms\n  peak memory  6.9 MiB\n";
    // Counts must be as shown; times and memory may be any number in their unit.
    assert!(output_matches(
        &shown("found: after 2 iterations\n  e-nodes      93\n  time         2.48 ms\n  peak memory  3.9 MiB"),
        out
    ));
    assert!(!output_matches(
        &shown("found: after 3 iterations\n  e-nodes      93\n  time         1.34 ms\n  peak memory  6.9 MiB"),
        out
    ));
    assert!(!output_matches(
        &shown("found: after 2 iterations\n  e-nodes      183\n  time         1.34 ms\n  peak memory  6.9 MiB"),
        out
    ));
    assert!(!output_matches(
        &shown("found: after 2 iterations\n  e-nodes      93\n  time         1.34 s\n  peak memory  6.9 MiB"),
        out
    ));
    // A line `…` stands for any number of lines (none too); `…` in a line for any text.
    assert!(output_matches(
        &shown("found: after 2 iterations\n  …"),
        out
    ));
    assert!(output_matches(&shown("…\n  peak memory  6.9 MiB\n…"), out));
    assert!(output_matches(&shown("found: … iterations\n…"), out));
    assert!(!output_matches(&shown("found: … iteration\n…"), out));
    // Every line is accounted for: none missing, none extra.
    assert!(!output_matches(&shown("found: after 2 iterations"), out));
    assert!(!output_matches(
        &shown("found: after 2 iterations\n  …\nmore"),
        out
    ));
    assert!(output_matches(&[], ""));
    assert!(!output_matches(&[], "unexpected\n"));
}
