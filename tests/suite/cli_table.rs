//! The command line as a table: each row a `risec` command, the exit status it ends with, and
//! what it must print. Rows that need an input file of their own give its text; `{file}` in
//! the arguments stands for its path. Every row runs (side by side, one per core), and the test
//! reports every row that failed, not only the first.

use crate::common::{risec, stderr, stdout};

/// What a command's output must show.
#[derive(Clone, Copy, Debug)]
enum Shows {
    /// Exactly this text.
    Exactly(&'static str),
    /// Each of these pieces, in any order.
    Contains(&'static [&'static str]),
    /// Anything.
    Anything,
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
struct Row {
    /// The arguments (`{file}` is replaced by the path of [`Row::file`]).
    args: &'static [&'static str],
    /// An input file the command reads: its name and text.
    file: Option<(&'static str, &'static [u8])>,
    /// The exit status.
    status: i32,
    /// Standard output.
    stdout: Shows,
    /// Standard error.
    stderr: Shows,
}

/// A row that fails with status 1, says each of `messages` on standard error and prints
/// nothing.
const fn refused(args: &'static [&'static str], messages: &'static [&'static str]) -> Row {
    Row {
        args,
        file: None,
        status: 1,
        stdout: Shows::Exactly(""),
        stderr: Shows::Contains(messages),
    }
}

/// [`refused`], reading a file of its own.
const fn refused_file(
    args: &'static [&'static str],
    file: (&'static str, &'static [u8]),
    messages: &'static [&'static str],
) -> Row {
    Row {
        file: Some(file),
        ..refused(args, messages)
    }
}

const SCALE: &[u8] = b"def scale {n : nat} (xs : n.f32) : n.f32 = xs |> map (fun x => x * 2.0)\n";

const ROWS: &[Row] = &[
    // What a program is and means.
    Row {
        args: &["check", "examples/matmul.rise"],
        file: None,
        status: 0,
        stdout: Shows::Exactly(
            "matmul : (m : nat) -> (n : nat) -> (k : nat) -> m.k.f32 -> k.n.f32 -> m.n.f32\n",
        ),
        stderr: Shows::Exactly(""),
    },
    Row {
        args: &["check", "{file}"],
        file: Some(("bom.rise", b"\xEF\xBB\xBFdef f (x : f32) : f32 = x + 1.0\n")),
        status: 0,
        stdout: Shows::Exactly("f : f32 -> f32\n"),
        stderr: Shows::Exactly(""),
    },
    refused_file(
        &["check", "{file}"],
        ("bom-bad.rise", b"\xEF\xBB\xBFdef f (x : f32) : f32 = y\n"),
        &["bom-bad.rise:1:25"],
    ),
    refused(&["check", "does/not/exist.rise"], &["cannot read"]),
    refused_file(
        &["check", "{file}"],
        ("binary.rise", &[0xff, 0xfe, 0x00, 0x41]),
        &["not valid UTF-8", "binary.rise:1:1"],
    ),
    // Sizes a program cannot have.
    refused_file(
        &["check", "{file}"],
        ("odd.rise", b"def f {n : nat} (x : ((2*n+1)/2*2).f32) = x\n"),
        &[
            "error: this size is never a whole number",
            "no sizes make `n + 1/2` a whole number",
        ],
    ),
    refused_file(
        &["check", "{file}"],
        (
            "odd-large.rise",
            // 4n + 1 is odd: however large the divisor (more residues than are tried).
            b"def f {n : nat} (x : ((4*n+1)/1048576*1048576).f32) = x\n",
        ),
        &[
            "error: this size is never a whole number",
            "no sizes make `(4*n + 1)/1048576` a whole number",
        ],
    ),
    refused_file(
        &["check", "{file}"],
        ("negative.rise", b"def f {n : nat} (x : (3-n-5).f32) = x\n"),
        &[
            "error: this size is always negative",
            "is below 0 for every size",
        ],
    ),
    refused_file(
        &["check", "{file}"],
        ("slide0.rise", b"def f (x : 10.f32) = slide 3 0 x\n"),
        &[
            "error: the step of `slide` must be at least 1",
            ".rise:1:30",
        ],
    ),
    refused_file(
        &["check", "{file}"],
        ("split0.rise", b"def f (x : 10.f32) = split 0 x\n"),
        &[
            "error: the chunk size of `split` must be at least 1",
            ".rise:1:28",
        ],
    ),
    // Sizes on the command line.
    refused(
        &["eval", "examples/matmul.rise", "--size", "m=2,n=3"],
        &["missing sizes for k"],
    ),
    refused(
        &["eval", "examples/matmul.rise", "--size", "m=2,n=3,k=4,q=1"],
        &["no size parameter `q`"],
    ),
    refused(
        &["eval", "examples/dot.rise", "--size", "n=2,n=3"],
        &["`--size` gives `n` twice"],
    ),
    refused(
        &[
            "eval",
            "examples/dot.rise",
            "--size",
            "n=99999999999999999999",
        ],
        &["size `n=99999999999999999999` is too large"],
    ),
    refused(
        &["eval", "examples/dot.rise", "--size", "n=two"],
        &["expected a natural number"],
    ),
    refused_file(
        &["eval", "{file}", "--size", "m=6"],
        (
            "blocks.rise",
            b"def f {m : nat} (x : m.f32) : (m/4).4.f32 = split 4 x",
        ),
        &["assumes `m/4` is a whole number"],
    ),
    Row {
        args: &["eval", "{file}", "--size", "m=8"],
        file: Some((
            "blocks.rise",
            b"def f {m : nat} (x : m.f32) : (m/4).4.f32 = split 4 x",
        )),
        status: 0,
        stdout: Shows::Anything,
        stderr: Shows::Anything,
    },
    // The check at the benchmark size under the sanitizers: the driver's own buffers are no
    // leak LeakSanitizer reports.
    Row {
        args: &[
            "verify",
            "examples/gelu.rise",
            "--sanitize",
            "--check-size",
            "m=3,n=5",
            "--size",
            "m=17,n=33",
            "--threads",
            "1",
        ],
        file: None,
        status: 0,
        stdout: Shows::Contains(&[
            "gelu, 1 thread(s): against the naive lowering at m=17,n=33:\n  naive  ok",
        ]),
        stderr: Shows::Anything,
    },
    // Inputs read from JSON.
    refused_file(
        &["eval", "examples/dot.rise", "--inputs", "{file}"],
        ("lengths.json", b"{\"xs\": [1, 2], \"ys\": [1, 2, 3]}"),
        &["`ys`: expected a list of 2 elements, found a list of 3 elements"],
    ),
    refused_file(
        &["eval", "examples/dot.rise", "--inputs", "{file}"],
        ("string.json", b"{\"xs\": [1, \"a\"]}"),
        &["`xs[1]`: expected f32, found a string"],
    ),
    refused_file(
        &["eval", "examples/dot.rise", "--inputs", "{file}"],
        ("unknown.json", b"{\"zs\": [1]}"),
        &["gives `zs`, which is not a parameter of `dot`"],
    ),
    refused_file(
        &["eval", "examples/dot.rise", "--inputs", "{file}"],
        ("list.json", b"[1, 2]"),
        &["must hold a JSON object"],
    ),
    refused_file(
        &["eval", "examples/dot.rise", "--inputs", "{file}"],
        ("cut.json", b"{\"xs\": [1,"),
        &["is not valid JSON"],
    ),
    // Benchmarks and verification.
    refused(&["bench", "--rounds", "0"], &["at least 1 timed round"]),
    // Arrays larger than the machine's memory are refused before the driver allocates them.
    refused(
        &[
            "bench",
            "examples/jacobi3d.rise",
            "--size",
            "n=3000,m=3000,p=3000",
            "--rounds",
            "1",
        ],
        &[
            "need 402.7 GiB, more than this machine's",
            "give a smaller `--size`",
        ],
    ),
    // A baseline named as a version (or as the naive lowering) would share its row's name.
    refused(
        &[
            "bench",
            "examples/gauss5.rise",
            "--sketch",
            "sketches/gauss5/parallel.sk",
            "--baseline",
            "parallel=codegen/baselines/loops.c:gauss5_loops",
            "--size",
            "n=8,m=8",
        ],
        &["two kernels are named `parallel`", "rename one"],
    ),
    refused(
        &[
            "bench",
            "examples/dot.rise",
            "--rounds",
            "0",
            "--size",
            "n=1024",
        ],
        &["at least 1 timed round"],
    ),
    refused(
        &["la", "tests/la/kernels.la", "--bench", "--rounds", "0"],
        &["at least 1 timed round"],
    ),
    refused(
        &["bench", "--size", "m=4,n=4,k=4"],
        &["`risec bench` needs the program and its versions"],
    ),
    refused(
        &[
            "bench",
            "--version",
            "parallel=examples/lowlevel/parallel.rise",
            "--size",
            "m=0,n=4,k=4",
        ],
        &["size `m` is 0"],
    ),
    refused(
        &[
            "bench",
            "--version",
            "dot=examples/lowlevel/dot.rise",
            "--size",
            "m=32,n=32,k=32",
        ],
        &["; the program has type (m : nat) -> (n : nat) -> (k : nat)"],
    ),
    refused(
        &["bench", "--version", "nofile"],
        &["expected NAME=FILE.rise"],
    ),
    refused(
        &[
            "bench",
            "--version",
            "naive=examples/lowlevel/naive.rise",
            "--size",
            "m=32,n=32,k=32",
        ],
        &["a version is named `naive`, the name of the program's naive lowering"],
    ),
    refused(
        &[
            "bench",
            "examples/dot.rise",
            "--size",
            "n=64",
            "--baselines",
            "parallel",
        ],
        &["unknown baseline `parallel` in --baselines (known for this program: openblas)"],
    ),
    refused_file(
        &["bench", "{file}"],
        ("scale.rise", SCALE),
        &["error: `scale` is not a matrix multiplication: give its sizes, as in `--size n=…`"],
    ),
    refused_file(
        &["verify", "{file}", "--baseline", "x=nofile.c"],
        ("scale.rise", SCALE),
        &["expected NAME=FILE.c:FUNCTION"],
    ),
    refused_file(
        &["verify", "{file}", "--baseline", "x=nofile.c:f"],
        ("scale.rise", SCALE),
        &["no file `nofile.c`"],
    ),
    refused(
        &["verify", "examples/dot.rise", "--check-size", "n=0"],
        &["error: size `n` is 0 in `n=0`: the generated C runs on positive sizes only"],
    ),
    refused(
        &["verify", "examples/dot.rise", "--size", "n=0"],
        &["error: size `n` is 0 in `n=0`: the generated C runs on positive sizes only"],
    ),
    refused(
        &["bench", "examples/dot.rise", "--size", "n=0"],
        &["error: size `n` is 0 in `n=0`: the generated C runs on positive sizes only"],
    ),
];

/// What is wrong with `shown` against `expected`, if anything.
fn mismatch(what: &str, shown: &str, expected: Shows) -> Option<String> {
    match expected {
        Shows::Exactly(text) if shown != text => {
            Some(format!("{what} is not exactly {text:?}:\n{shown}"))
        }
        Shows::Contains(pieces) => {
            let missing: Vec<&&str> = pieces.iter().filter(|p| !shown.contains(**p)).collect();
            (!missing.is_empty()).then(|| format!("{what} lacks {missing:?}:\n{shown}"))
        }
        _ => None,
    }
}

/// Runs one row; what went wrong, if anything.
fn run(index: usize, row: &Row) -> Option<String> {
    let dir =
        std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-table-{index}"));
    std::fs::create_dir_all(&dir).unwrap();
    let path = row.file.map(|(name, text)| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    });
    let args: Vec<&str> = row
        .args
        .iter()
        .map(|a| match (&path, *a) {
            (Some(p), "{file}") => p.as_str(),
            _ => a,
        })
        .collect();
    let out = risec(&args);
    let mut problems = Vec::new();
    if out.status.code() != Some(row.status) {
        problems.push(format!(
            "exit status {:?}, expected {}:\n{}",
            out.status.code(),
            row.status,
            stderr(&out)
        ));
    }
    problems.extend(mismatch("standard output", &stdout(&out), row.stdout));
    problems.extend(mismatch("standard error", &stderr(&out), row.stderr));
    (!problems.is_empty()).then(|| format!("risec {}\n  {}", args.join(" "), problems.join("\n  ")))
}

#[test]
fn every_row_of_the_command_table_ends_and_prints_as_it_says() {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(row) = ROWS.get(i) else { break };
                if let Some(f) = run(i, row) {
                    failures.lock().unwrap().push(f);
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n\n{}",
        failures.len(),
        ROWS.len(),
        failures.join("\n\n")
    );
}
