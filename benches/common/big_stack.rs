//! Running criterion benchmarks on a thread with the `risec` binary's 256 MiB stack: the
//! benchmarks feed programs far deeper than an ordinary thread's stack holds.

use criterion::Criterion;

/// Runs `bench` with criterion's command-line configuration on a 256 MiB stack, then prints
/// criterion's summary.
pub fn run(bench: fn(&mut Criterion)) {
    let worker = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let mut c = Criterion::default().configure_from_args();
            bench(&mut c);
            c.final_summary();
        })
        .expect("a benchmark thread");
    worker.join().expect("the benchmarks ran");
}
