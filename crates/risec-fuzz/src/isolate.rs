//! Running a case in a child process, so that what would stop a campaign run in process is
//! counted instead: a hang (a loop that never looks at its deadline) is killed by a watchdog,
//! an abort (an allocation past the address-space limit, a stack overflow) ends only the child.
//!
//! The child is a program that understands [`child_args`] (the campaign example itself, run
//! with `--run-one FAMILY:SEED`): it draws the case, runs it in process ([`run_child`]) and
//! prints its [`Record`] as one line of JSON after [`RECORD_PREFIX`]. The parent
//! ([`run_isolated`]) starts it in its own process group under a soft address-space limit
//! (`ulimit -S -v`: an allocation past it fails and Rust aborts; the sanitized C kernels of
//! the C check lift it), waits at most [`watchdog`], and classifies the end: the child's record,
//! a signal (abort), the watchdog (hang), or an exit without a record (panic or other).

use super::tally::{Class, Record};
use super::{Case, CaseOptions, Family};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What starts the line of a child's record on its standard output.
pub const RECORD_PREFIX: &str = "FUZZ-RECORD ";

/// How children are run.
#[derive(Clone, Debug)]
pub struct Isolation {
    /// The child program: an executable that takes [`child_args`].
    pub exe: PathBuf,
    /// The address-space limit of every child, in bytes (a case may draw a smaller one).
    pub memory_cap: u64,
    /// Time added to ten times the case's budget before the child counts as hung.
    pub grace: Duration,
    /// Time the checks after risec's work may take (a minute more when C is compiled and run).
    pub checks: Duration,
}

/// The watchdog's limits for `case`: for risec's own work, ten times its budget (or the
/// campaign's default time) plus the grace; for the checks that follow (interpreter, C
/// compiled and run), from the moment the child announces them ([`CHECKS_MARK`]), the
/// isolation's `checks`, and a minute more when its C is compiled and run under sanitizers.
pub fn watchdog(case: &Case, options: &CaseOptions, isolation: &Isolation) -> (Duration, Duration) {
    let budget = case.budget(options.time).unwrap_or(options.time);
    let c = Duration::from_secs(if options.run_c { 60 } else { 0 });
    (budget * 10 + isolation.grace, isolation.checks + c)
}

/// The line a child prints when risec's work is done and the checks begin.
pub const CHECKS_MARK: &str = "FUZZ-PHASE checks";

thread_local! {
    /// Whether this thread runs a child's case, which announces its checks.
    static ANNOUNCE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Prints [`CHECKS_MARK`] on the thread of a child's case (nothing in process), and lifts the
/// child's soft address-space limit: it bounds risec, not the C compiler and the sanitized
/// kernels of the checks (`prlimit`; where it is missing, the kernels lift it themselves).
pub(crate) fn announce_checks() {
    if ANNOUNCE.with(|a| a.get()) {
        let _ = Command::new("prlimit")
            .args([
                "--pid",
                &std::process::id().to_string(),
                "--as=unlimited:unlimited",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{CHECKS_MARK}");
        let _ = out.flush();
    }
}

/// The arguments that make the child run `case` with `options`.
pub fn child_args(case: &Case, options: &CaseOptions) -> Vec<String> {
    vec![
        "--run-one".into(),
        case.id(),
        "--time-ms".into(),
        options.time.as_millis().to_string(),
        "--run-c".into(),
        (options.run_c as u8).to_string(),
        "--dir".into(),
        options.dir.display().to_string(),
    ]
}

/// The child's side: the value after `name` in `args`.
fn value<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1).map(String::as_str)
}

/// Parses `family:seed`.
pub fn parse_id(id: &str) -> Result<(Family, u64), String> {
    let (family, seed) = id
        .split_once(':')
        .ok_or_else(|| format!("`{id}`: expected FAMILY:SEED, e.g. offset:12"))?;
    let seed = seed
        .parse()
        .map_err(|_| format!("`{seed}` is not a seed (a whole number)"))?;
    Ok((family.parse()?, seed))
}

/// The child's side: if `args` hold `--run-one FAMILY:SEED`, runs that case in process (on a
/// thread with a 64 MiB stack) and prints its record; returns whether it did.
pub fn run_child(args: &[String]) -> Result<bool, String> {
    let Some(id) = value(args, "--run-one") else {
        return Ok(false);
    };
    let (family, seed) = parse_id(id)?;
    let number = |name: &str, default: u64| -> Result<u64, String> {
        value(args, name).map_or(Ok(default), |v| {
            v.parse().map_err(|_| format!("{name} {v}: not a number"))
        })
    };
    let options = CaseOptions {
        time: Duration::from_millis(number("--time-ms", 300)?),
        run_c: number("--run-c", 0)? == 1,
        dir: PathBuf::from(value(args, "--dir").unwrap_or(".")),
    };
    let worker = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            ANNOUNCE.with(|a| a.set(true));
            let case = family.draw(seed);
            let finished = super::run_case_timed(&case, &options);
            Record::of(&case, &finished, case.budget(options.time))
        })
        .map_err(|e| e.to_string())?;
    let record = worker
        .join()
        .map_err(|_| "the worker thread failed".to_string())?;
    let json = serde_json::to_string(&record).map_err(|e| e.to_string())?;
    println!("{RECORD_PREFIX}{json}");
    Ok(true)
}

#[cfg(unix)]
fn own_group(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
}

#[cfg(not(unix))]
fn own_group(_: &mut Command) {}

#[cfg(unix)]
fn signal(status: &ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn signal(_: &ExitStatus) -> Option<i32> {
    None
}

/// Kills the child's process group (the child, and the compiler or kernel it may be running).
fn kill_group(child: &mut std::process::Child) {
    if cfg!(unix) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
}

/// A signal's name.
fn signal_name(n: i32) -> &'static str {
    match n {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        _ => "a signal",
    }
}

/// The last `n` characters of a file (standard error's end).
fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let start = text
        .char_indices()
        .rev()
        .nth(n.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    text[start..].trim().to_string()
}

/// Runs `case` in a child process (see the module documentation); its files go under
/// `options.dir`. The child is started by `start_child`, watched by `watch`, and its end
/// classified by `classify`.
pub fn run_isolated(case: &Case, options: &CaseOptions, isolation: &Isolation) -> Record {
    let limits = watchdog(case, options, isolation);
    let defects = Defects {
        case,
        budget: case.budget(options.time),
    };
    let failed = |e: std::io::Error| {
        defects.record(
            Class::Other,
            "child not started",
            e.to_string(),
            Duration::ZERO,
        )
    };
    let mut child = match start_child(case, options, isolation) {
        Ok(c) => c,
        Err(e) => return failed(e),
    };
    let ended = match watch(&mut child, limits) {
        Ok(ended) => ended,
        Err(e) => return failed(e),
    };
    classify(&defects, &child, &ended, limits)
}

/// Makes the records of the defects the parent finds in a case's run.
struct Defects<'a> {
    case: &'a Case,
    /// The case's budget.
    budget: Option<Duration>,
}

impl Defects<'_> {
    /// The record of a defect of class `class`: what happened (`outcome`), the details, and
    /// the time it took.
    fn record(&self, class: Class, outcome: &str, detail: String, elapsed: Duration) -> Record {
        Record {
            family: self.case.family,
            seed: self.case.seed,
            origin: self.case.origin.clone(),
            class,
            outcome: outcome.to_string(),
            detail,
            elapsed_ms: elapsed.as_secs_f64() * 1e3,
            budget_ms: self.budget.map(|b| b.as_secs_f64() * 1e3),
        }
    }
}

/// A child started on a case: the process, the files its standard output and error go to,
/// and when it started.
struct Started {
    process: std::process::Child,
    out_path: PathBuf,
    err_path: PathBuf,
    started: Instant,
}

/// Starts the child on `case` in its own process group, under the address-space limit (the
/// case's, or the isolation's cap when lower), its output in files under `options.dir`.
fn start_child(
    case: &Case,
    options: &CaseOptions,
    isolation: &Isolation,
) -> std::io::Result<Started> {
    let cap = case
        .settings
        .address_space
        .map_or(isolation.memory_cap, |a| a.min(isolation.memory_cap));
    std::fs::create_dir_all(&options.dir)?;
    let (out_path, err_path) = (options.dir.join("stdout"), options.dir.join("stderr"));
    let (out, err) = match (
        std::fs::File::create(&out_path),
        std::fs::File::create(&err_path),
    ) {
        (Ok(o), Ok(e)) => (o, e),
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!(
            "ulimit -S -v {} 2>/dev/null; exec \"$0\" \"$@\"",
            cap >> 10
        ))
        .arg(&isolation.exe)
        .args(child_args(case, options))
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    own_group(&mut command);
    let started = Instant::now();
    let process = command.spawn()?;
    Ok(Started {
        process,
        out_path,
        err_path,
        started,
    })
}

/// How a child's run ended.
struct Ended {
    /// Its exit status; `None` when the watchdog killed it.
    status: Option<ExitStatus>,
    /// When (since its start) it announced its checks, if it did.
    checks_since: Option<Duration>,
    /// How long it ran.
    wall: Duration,
}

/// Waits for the child to end, polling at growing intervals; kills its process group when it
/// runs past `limits` (risec's work, then the checks from the moment it announces them).
fn watch(child: &mut Started, limits: (Duration, Duration)) -> std::io::Result<Ended> {
    let (run_limit, check_limit) = limits;
    let mut pause = Duration::from_millis(2);
    // Until the child announces its checks, risec is running.
    let mut checks_since: Option<Duration> = None;
    let status = loop {
        if let Some(status) = child.process.try_wait()? {
            break Some(status);
        }
        let now = child.started.elapsed();
        if checks_since.is_none()
            && std::fs::read_to_string(&child.out_path).is_ok_and(|t| t.contains(CHECKS_MARK))
        {
            checks_since = Some(now);
        }
        let over = match checks_since {
            None => now > run_limit,
            Some(since) => now > since + check_limit,
        };
        if over {
            kill_group(&mut child.process);
            let _ = child.process.wait();
            break None;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    };
    Ok(Ended {
        status,
        checks_since,
        wall: child.started.elapsed(),
    })
}

/// The record of a child's run: a hang (in risec's work or in the checks) when the watchdog
/// killed it, an abort when a signal ended it, else the record it printed, or a panic or
/// other defect when it printed none.
fn classify(
    defects: &Defects,
    child: &Started,
    ended: &Ended,
    limits: (Duration, Duration),
) -> Record {
    let (run_limit, check_limit) = limits;
    let Ended {
        status,
        checks_since,
        wall,
    } = *ended;
    let stderr = || tail(&child.err_path, 1500);
    let Some(status) = status else {
        // A hang after risec's work is the checks' (a C kernel that loops, an interpreter
        // run too large): another defect, not risec's hang.
        let (class, outcome, limit, elapsed) = match checks_since {
            None => (
                Class::Hang,
                "hang (killed by the watchdog)",
                run_limit,
                wall,
            ),
            Some(since) => (
                Class::Other,
                "hang in the checks (interpreter or C; killed by the watchdog)",
                check_limit,
                since,
            ),
        };
        return defects.record(
            class,
            outcome,
            format!(
                "still running after {:.1} s (watchdog {:.1} s{}); standard error ends:\n{}",
                wall.as_secs_f64(),
                limit.as_secs_f64(),
                if checks_since.is_some() {
                    " after risec's work"
                } else {
                    ""
                },
                stderr()
            ),
            elapsed,
        );
    };
    if let Some(n) = signal(&status) {
        return defects.record(
            Class::Abort,
            "abort (killed by a signal)",
            format!(
                "{} ({n}) after {:.2} s; standard error ends:\n{}",
                signal_name(n),
                wall.as_secs_f64(),
                stderr()
            ),
            wall,
        );
    }
    let stdout = std::fs::read_to_string(&child.out_path).unwrap_or_default();
    let record = stdout
        .lines()
        .filter_map(|l| l.strip_prefix(RECORD_PREFIX))
        .filter_map(|json| serde_json::from_str::<Record>(json).ok())
        .next_back();
    match record {
        Some(r) => r,
        None => {
            let text = stderr();
            let class = if text.contains("panicked") {
                Class::Panic
            } else {
                Class::Other
            };
            defects.record(
                class,
                "child exited without a result",
                format!(
                    "{status} after {:.2} s; standard error ends:\n{text}",
                    wall.as_secs_f64()
                ),
                wall,
            )
        }
    }
}
