//! A fuzzing campaign over the whole pipeline (`risec::fuzz`): mutated sketch files and
//! programs through the main job, mutated low-level programs through C generation, a sample of
//! the C run under AddressSanitizer and UBSan against the interpreter. Prints the counts and
//! every defect with the seed that replays it.
//!
//! ```sh
//! cargo run --release --example fuzz_campaign -- --cases 2000 --first-seed 0 --run-c-every 20
//! ```
//! Options: `--cases N` (default 1000), `--first-seed S` (0), `--jobs J` (threads, 2),
//! `--time-ms T` (each run's budget, 300), `--run-c-every K` (run the C of one case in K, 10;
//! 0: never), `--replay SEED` (run one case and print it).

use risec::fuzz::{self, CaseOptions, Tally};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().expect("a number"))
        .unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cases = arg(&args, "--cases", 1000);
    let first = arg(&args, "--first-seed", 0);
    let jobs = arg(&args, "--jobs", 2).max(1);
    let time = Duration::from_millis(arg(&args, "--time-ms", 300));
    let run_c_every = arg(&args, "--run-c-every", 10);
    let root = std::env::temp_dir().join(format!("risec-fuzz-{}", std::process::id()));
    if let Some(i) = args.iter().position(|a| a == "--replay") {
        let seed: u64 = args[i + 1].parse().expect("a seed");
        let case = fuzz::draw(seed);
        println!("{case:#?}");
        let options = CaseOptions {
            time,
            run_c: true,
            dir: root.join("replay"),
        };
        println!("{:?}", fuzz::run_case(&case, &options));
        return;
    }
    std::panic::set_hook(Box::new(|_| {}));
    let next = Arc::new(AtomicU64::new(first));
    let tally = Arc::new(Mutex::new(Tally::default()));
    // The case each worker is running and since when, for the watchdog.
    let running: Arc<Mutex<Vec<(u64, Instant)>>> =
        Arc::new(Mutex::new(vec![(u64::MAX, Instant::now()); jobs as usize]));
    let began = Instant::now();
    let workers: Vec<_> = (0..jobs as usize)
        .map(|w| {
            let (next, tally, running, root) =
                (next.clone(), tally.clone(), running.clone(), root.clone());
            std::thread::Builder::new()
                .stack_size(64 << 20)
                .spawn(move || loop {
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    if seed >= first + cases {
                        running.lock().unwrap()[w].0 = u64::MAX;
                        break;
                    }
                    running.lock().unwrap()[w] = (seed, Instant::now());
                    let case = fuzz::draw(seed);
                    let options = CaseOptions {
                        time,
                        run_c: run_c_every > 0 && seed % run_c_every == 0,
                        dir: root.join(format!("worker{w}")),
                    };
                    let result = fuzz::run_case(&case, &options);
                    if let Err(d) = &result {
                        eprintln!("DEFECT seed {seed} ({}): {d}", case.origin);
                    }
                    let mut t = tally.lock().unwrap();
                    t.add(&case, &result);
                    if t.cases % 1000 == 0 {
                        eprintln!("{} cases, {:.0} s", t.cases, began.elapsed().as_secs_f64());
                    }
                })
                .unwrap()
        })
        .collect();
    // The watchdog: a case that runs ten times its budget plus a minute is a hang.
    let limit = time * 10 + Duration::from_secs(60);
    while !workers.iter().all(|w| w.is_finished()) {
        std::thread::sleep(Duration::from_millis(500));
        for &(seed, since) in running.lock().unwrap().iter() {
            if seed != u64::MAX && since.elapsed() > limit {
                println!(
                    "HANG: case {seed} ran {:?}: {:?}",
                    since.elapsed(),
                    fuzz::draw(seed)
                );
                let t = tally.lock().unwrap();
                print!("{}", t.table());
                for (seed, origin, defect) in &t.defects {
                    println!("DEFECT seed {seed} ({origin}): {defect}");
                }
                std::process::exit(3);
            }
        }
    }
    let t = tally.lock().unwrap();
    print!("{}", t.table());
    println!("{:.0} s", began.elapsed().as_secs_f64());
    for (seed, origin, defect) in &t.defects {
        println!("DEFECT seed {seed} ({origin}): {defect}");
    }
    let _ = std::fs::remove_dir_all(&root);
}
