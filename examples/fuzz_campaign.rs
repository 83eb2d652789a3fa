//! A fuzzing campaign over the whole pipeline (`risec_fuzz`): cases of the chosen families
//! (mutated sketch files and programs, offset sizes and large splits, `prove` goals, `.la`
//! files, budgets), each run in process or, with `--isolate`, in a child process under a
//! watchdog and an address-space limit, so that hangs and aborts are counted. Prints the table
//! (family × runs, ok, limits, errors, panics, aborts, hangs, wrong results, other defects,
//! budget overshoots) and every defect with the command that replays it.
//!
//! ```sh
//! cargo run --release --example fuzz_campaign -- --families offset,prove,la,budget \
//!     --cases 20000 --isolate --jobs 2 --records fuzz.jsonl --defects-dir fuzz-defects
//! ```
//!
//! Options:
//! * `--families LIST` (comma-separated: sketch, offset, prove, la, budget; default all);
//! * `--cases N` runs in all (default 1000): run `i` is case `first + i / F` of family
//!   `i mod F`, for F families;
//! * `--first-seed S` (0), `--jobs J` (parallel runs, 2);
//! * `--time-ms T`: the budget of cases that draw none (300);
//! * `--run-c-every K`: compile and run the C of one case in K of each family under
//!   sanitizers (10; 0: never);
//! * `--isolate`: each case in a child process; `--memory-cap SIZE` its address-space limit
//!   (2GiB); `--grace-s S` what the watchdog adds to ten times the budget (5);
//! * `--records FILE`: append every run's record (one JSON line); `--table-from FILE…` prints
//!   the table of such files and exits;
//! * `--defects-dir DIR`: each defect's files and `replay.sh` in `DIR/FAMILY-SEED`;
//! * `--replay FAMILY:SEED`: run one case (in a child with `--isolate`), print it, its files'
//!   folder and `risec` command, and its result;
//! * `--run-one FAMILY:SEED`: the child's mode (used by `--isolate`).

use risec_fuzz::isolate::{self, Isolation};
use risec_fuzz::{self as fuzz, Case, CaseOptions, Family, Record, Tally};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn value<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    let i = args.iter().position(|a| a == name)?;
    Some(args.get(i + 1).map(String::as_str).unwrap_or_else(|| {
        eprintln!("{name} needs a value");
        std::process::exit(1)
    }))
}

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    value(args, name).map_or(default, |v| {
        v.parse().unwrap_or_else(|_| {
            eprintln!("{name} {v}: not a whole number");
            std::process::exit(1)
        })
    })
}

/// What a worker is running (in process) and since when, for the watchdog.
type Running = (Option<Case>, Instant);

/// The campaign's settings.
struct Campaign {
    families: Vec<Family>,
    cases: u64,
    first: u64,
    jobs: u64,
    time: Duration,
    run_c_every: u64,
    isolation: Option<Isolation>,
    root: PathBuf,
    records: Option<Mutex<std::fs::File>>,
    defects_dir: Option<PathBuf>,
}

impl Campaign {
    /// Run `i`: its case and options.
    fn case(&self, i: u64, worker: usize) -> (Case, CaseOptions) {
        let f = self.families.len() as u64;
        let (family, j) = (self.families[(i % f) as usize], i / f);
        let case = family.draw(self.first + j);
        let options = CaseOptions {
            time: self.time,
            run_c: self.run_c_every > 0 && j % self.run_c_every == 0,
            dir: self.root.join(format!("worker{worker}")),
        };
        (case, options)
    }

    /// Runs a case in process or in a child, as the campaign says.
    fn run(&self, case: &Case, options: &CaseOptions) -> Record {
        match &self.isolation {
            Some(isolation) => isolate::run_isolated(case, options, isolation),
            None => {
                let finished = fuzz::run_case_timed(case, options);
                Record::of(case, &finished, case.budget(options.time))
            }
        }
    }

    /// Reports a defect as it happens: its record and, with `--defects-dir`, its files.
    fn report(&self, case: &Case, record: &Record) {
        let mut text = format!(
            "DEFECT {}:{} [{:?}] {} ({}): {}\n  replay: {}\n",
            record.family,
            record.seed,
            record.class,
            record.outcome,
            record.origin,
            record.detail.trim(),
            record.replay()
        );
        if let Some(dir) = &self.defects_dir {
            let dir = dir.join(format!("{}-{}", record.family, record.seed));
            match fuzz::replay::write(case, &dir, self.time) {
                Ok(command) => text.push_str(&format!("  cd {} && {command}\n", dir.display())),
                Err(e) => text.push_str(&format!("  (files not written: {e})\n")),
            }
        }
        eprint!("{text}");
    }
}

fn print_tally(t: &Tally) {
    print!("{}", t.table());
    for r in &t.defects {
        println!(
            "DEFECT {}:{} [{:?}] {} ({}): {}\n  replay: {}",
            r.family,
            r.seed,
            r.class,
            r.outcome,
            r.origin,
            r.detail.trim(),
            r.replay()
        );
    }
    let mut over: Vec<&Record> = t.overshoots.iter().collect();
    over.sort_by(|a, b| b.elapsed_ms.total_cmp(&a.elapsed_ms));
    for r in over.iter().take(20) {
        println!(
            "OVERSHOOT {}:{} {:.0} ms for a budget of {:.0} ms ({}; {})",
            r.family,
            r.seed,
            r.elapsed_ms,
            r.budget_ms.unwrap_or(0.0),
            r.outcome,
            r.origin
        );
    }
}

/// `--table-from FILE…`: the table of the records in those files (one JSON record a line).
fn table_from(paths: &[String]) {
    let mut tally = Tally::default();
    for path in paths {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
            eprintln!("{path}: {e}");
            std::process::exit(1)
        });
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str::<Record>(line) {
                Ok(r) => tally.record(r),
                Err(e) => eprintln!("{path}: a line that is not a record: {e}"),
            }
        }
    }
    print_tally(&tally);
}

impl Campaign {
    /// The campaign the command line asks for (exits on a bad option); its runs' files go
    /// under `root`.
    fn from_args(args: &[String], root: &std::path::Path) -> Campaign {
        let families: Vec<Family> = value(args, "--families")
            .map(|list| {
                list.split(',')
                    .map(|f| {
                        f.parse().unwrap_or_else(|e: String| {
                            eprintln!("{e}");
                            std::process::exit(1)
                        })
                    })
                    .collect()
            })
            .unwrap_or_else(|| Family::ALL.to_vec());
        let memory_cap = value(args, "--memory-cap")
            .map(|v| {
                risec_core::support::units::parse_size(v).unwrap_or_else(|e| {
                    eprintln!("--memory-cap {v}: {e}");
                    std::process::exit(1)
                })
            })
            .unwrap_or(2 << 30);
        let records = value(args, "--records").map(|path| {
            Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .unwrap_or_else(|e| {
                        eprintln!("{path}: {e}");
                        std::process::exit(1)
                    }),
            )
        });
        Campaign {
            families,
            cases: arg(args, "--cases", 1000),
            first: arg(args, "--first-seed", 0),
            jobs: arg(args, "--jobs", 2).max(1),
            time: Duration::from_millis(arg(args, "--time-ms", 300)),
            run_c_every: arg(args, "--run-c-every", 10),
            isolation: args.iter().any(|a| a == "--isolate").then(|| Isolation {
                exe: std::env::current_exe().expect("the campaign's own executable"),
                memory_cap,
                grace: Duration::from_secs(arg(args, "--grace-s", 5)),
                checks: Duration::from_secs(20),
            }),
            root: root.to_path_buf(),
            records,
            defects_dir: value(args, "--defects-dir").map(PathBuf::from),
        }
    }

    /// `--replay FAMILY:SEED`: prints the case, writes its files and prints its command, runs
    /// it (in a child with `--isolate`) and prints its record.
    fn replay(&self, id: &str) {
        let (family, seed) = isolate::parse_id(id).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1)
        });
        let case = family.draw(seed);
        println!("{case:#?}");
        let dir = self.root.join("replay-files");
        match fuzz::replay::write(&case, &dir, self.time) {
            Ok(command) => println!("files: {}\ncommand: {command}", dir.display()),
            Err(e) => println!("files not written: {e}"),
        }
        let options = CaseOptions {
            time: self.time,
            run_c: true,
            dir: self.root.join("replay"),
        };
        let record = self.run(&case, &options);
        println!("{record:#?}");
        // The files stay for the command above; the run's own folder goes.
        let _ = std::fs::remove_dir_all(&options.dir);
    }
}

/// What the workers share: the next run's number, the tally, and (for the watchdog) what
/// each worker is running.
#[derive(Clone)]
struct Shared {
    campaign: Arc<Campaign>,
    next: Arc<AtomicU64>,
    tally: Arc<Mutex<Tally>>,
    running: Arc<Mutex<Vec<Running>>>,
    began: Instant,
}

impl Shared {
    /// Worker `w`'s loop: takes the next run until all are taken, runs it, reports a defect,
    /// appends the record to `--records`, tallies it, and every 500 runs prints a progress line.
    fn work(&self, w: usize) {
        let campaign = &self.campaign;
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= campaign.cases {
                self.running.lock().unwrap()[w].0 = None;
                break;
            }
            let (case, options) = campaign.case(i, w);
            self.running.lock().unwrap()[w] = (Some(case.clone()), Instant::now());
            let record = campaign.run(&case, &options);
            if record.class.is_defect() {
                campaign.report(&case, &record);
            }
            if let Some(file) = &campaign.records {
                let line = serde_json::to_string(&record).expect("a record as JSON");
                let _ = writeln!(file.lock().unwrap(), "{line}");
            }
            let mut t = self.tally.lock().unwrap();
            t.record(record);
            let runs = t.runs();
            if runs % 500 == 0 {
                eprintln!(
                    "{runs} runs, {} defects, {} overshoots, {:.0} s",
                    t.defects.len(),
                    t.overshoots.len(),
                    self.began.elapsed().as_secs_f64()
                );
            }
        }
    }

    /// In process, a case that runs ten times its budget plus a minute hangs the campaign: it
    /// is printed with the table so far, and the campaign exits (`--isolate` counts hangs
    /// instead).
    fn stop_on_hang(&self) {
        let campaign = &self.campaign;
        for (case, since) in self.running.lock().unwrap().iter() {
            let Some(case) = case else { continue };
            let limit =
                case.budget(campaign.time).unwrap_or(campaign.time) * 10 + Duration::from_secs(60);
            if since.elapsed() > limit {
                println!(
                    "HANG: case {} ran {:?} (rerun with --isolate to count hangs): {case:#?}",
                    case.id(),
                    since.elapsed()
                );
                print_tally(&self.tally.lock().unwrap());
                std::process::exit(3);
            }
        }
    }
}

/// Runs the campaign on its workers, watches them (in process) for hangs, and prints the
/// table and the time taken.
fn run_campaign(campaign: Arc<Campaign>) {
    if campaign.isolation.is_none() {
        std::panic::set_hook(Box::new(|_| {}));
    }
    let jobs = campaign.jobs as usize;
    let shared = Shared {
        campaign,
        next: Arc::new(AtomicU64::new(0)),
        tally: Arc::new(Mutex::new(Tally::default())),
        // In process, the case each worker is running and since when, for the watchdog.
        running: Arc::new(Mutex::new(vec![(None, Instant::now()); jobs])),
        began: Instant::now(),
    };
    let workers: Vec<_> = (0..jobs)
        .map(|w| {
            let shared = shared.clone();
            std::thread::Builder::new()
                .stack_size(64 << 20)
                .spawn(move || shared.work(w))
                .unwrap()
        })
        .collect();
    while !workers.iter().all(|w| w.is_finished()) {
        std::thread::sleep(Duration::from_millis(500));
        if shared.campaign.isolation.is_some() {
            continue;
        }
        shared.stop_on_hang();
    }
    let t = shared.tally.lock().unwrap();
    print_tally(&t);
    println!("{:.0} s", shared.began.elapsed().as_secs_f64());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match isolate::run_child(&args) {
        Ok(true) => return,
        Ok(false) => {}
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
    if let Some(i) = args.iter().position(|a| a == "--table-from") {
        table_from(&args[i + 1..]);
        return;
    }
    let root = std::env::temp_dir().join(format!("risec-fuzz-{}", std::process::id()));
    let campaign = Arc::new(Campaign::from_args(&args, &root));
    if let Some(id) = value(&args, "--replay") {
        campaign.replay(id);
        return;
    }
    run_campaign(campaign);
    let _ = std::fs::remove_dir_all(&root);
}
