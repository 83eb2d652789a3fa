//! Tables of the equality-saturation engine's growth, speed and memory (issue 8).
//!
//! ```sh
//! cargo run --release --example eqsat_table -- growth   # e-nodes per iteration, chains of 3-5
//! cargo run --release --example eqsat_table -- goals    # the shipped goals
//! cargo run --release --example eqsat_table -- memory   # bytes per e-node at 200,000 e-nodes
//! ```
//!
//! "old" is the engine without reduction passes (`Limits::reduction_passes = 0`, the schedule
//! before issue 8: one pass of every rule per iteration), "new" the default. Run `memory` on its
//! own: peak resident memory is per process.

use risec_core::support::memory::{peak_memory, resident_memory};
use risec_eqsat::egraph::{self, RiseEGraph};
use risec_eqsat::growth::{chain_problem, GOALS};
use risec_eqsat::limits::Limits;
use risec_eqsat::prove::Problem;
use risec_eqsat::rewrite::Assumptions;
use risec_eqsat::runner;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The system allocator, counting live and peak heap bytes.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let grown = new_size - layout.size();
            let live = LIVE.fetch_add(grown, Ordering::Relaxed) + grown;
            PEAK.fetch_max(live, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn limits(reduction_passes: usize, iterations: usize) -> Limits {
    Limits {
        iterations,
        nodes: 2_000_000,
        time: Duration::from_secs(20),
        reduction_passes,
        ..Limits::default()
    }
}

fn growth() {
    const ITERATIONS: usize = 25;
    let mut columns = Vec::new();
    for k in [3, 4, 5] {
        let problem = chain_problem(k);
        for (label, passes) in [("old", 0), ("new", 1)] {
            let out = problem.search(&limits(passes, ITERATIONS));
            let nodes: Vec<usize> = out.search.iterations.iter().map(|i| i.nodes).collect();
            columns.push((format!("chain {k} {label}"), nodes, out.search.summary.stop));
        }
    }
    print!("{:>4}", "iter");
    for (name, _, _) in &columns {
        print!(" {name:>13}");
    }
    println!();
    for i in 0..ITERATIONS {
        print!("{:>4}", i + 1);
        for (_, nodes, _) in &columns {
            match nodes.get(i) {
                Some(n) => print!(" {n:>13}"),
                None => print!(" {:>13}", "-"),
            }
        }
        println!();
    }
    print!("{:>4}", "stop");
    for (_, _, stop) in &columns {
        print!(" {:>13}", stop.to_string());
    }
    println!();
}

fn goals() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/goals");
    println!(
        "{:<22} {:>6} {:>6} {:>9} {:>9} {:>10} {:>10}",
        "goal", "found", "iters", "e-nodes", "classes", "median ms", "engine"
    );
    for goal in GOALS {
        let problem = goal
            .problem(dir)
            .unwrap_or_else(|e| panic!("goal {}: {e}", goal.name));
        for (label, passes) in [("old", 0), ("new", 1)] {
            let limits = limits(passes, 40);
            let mut times = Vec::new();
            let mut last = None;
            for _ in 0..5 {
                let out = problem.search(&limits);
                times.push(out.search.summary.time);
                last = Some(out);
            }
            times.sort();
            let out = last.expect("five runs");
            println!(
                "{:<22} {:>6} {:>6} {:>9} {:>9} {:>10.1} {:>10}",
                goal.name,
                out.found(),
                out.search.summary.iterations,
                out.search.summary.nodes,
                out.search.summary.classes,
                times[2].as_secs_f64() * 1e3,
                label
            );
        }
    }
}

/// Every rule of the library, size parameters at 32.
fn all_rules() -> String {
    risec_eqsat::rules::catalogue()
        .iter()
        .map(|r| {
            if r.params.is_empty() {
                r.name.to_string()
            } else {
                let args: Vec<&str> = r.params.iter().map(|_| "32").collect();
                format!("{}({})", r.name, args.join(","))
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn memory(nodes: usize) {
    // The chain of 5 with every rule of the library: a search that cannot finish.
    let chain = chain_problem(5);
    let options = risec_eqsat::prove::ProveOptions {
        rules: all_rules(),
        ..Default::default()
    };
    let problem = Problem::new(
        chain.start.clone(),
        chain.goal.clone(),
        "chain.rise",
        "reversed.rise",
        &options,
    )
    .expect("the chain with every rule");
    let before_rss = resident_memory().unwrap_or(0);
    let before_heap = LIVE.load(Ordering::Relaxed);
    PEAK.store(before_heap, Ordering::Relaxed);
    let mut egraph = RiseEGraph::default();
    let root = egraph::add_expr(&mut egraph, &problem.start_term);
    let mut assumptions = Assumptions {
        allow_new: true,
        ..Assumptions::default()
    };
    let limits = Limits {
        nodes,
        time: Duration::from_secs(120),
        ..Limits::default()
    };
    let search = runner::run(
        &mut egraph,
        &problem.rules,
        &limits,
        &mut assumptions,
        &mut |_| false,
        &mut |_| {},
    );
    let report = &search.summary;
    let n = report.nodes as f64;
    let live = (LIVE.load(Ordering::Relaxed) - before_heap) as f64;
    let peak_heap = (PEAK.load(Ordering::Relaxed) - before_heap) as f64;
    let peak_rss = peak_memory().unwrap_or(0) as f64;
    println!(
        "stop: {} after {} iterations, {} e-nodes, {} e-classes ({:.2} s)",
        report.stop,
        report.iterations,
        report.nodes,
        report.classes,
        report.time.as_secs_f64()
    );
    println!("peak RSS            {:>8.0} bytes per e-node", peak_rss / n);
    println!(
        "peak RSS - start    {:>8.0} bytes per e-node",
        (peak_rss - before_rss as f64) / n
    );
    println!(
        "peak heap           {:>8.0} bytes per e-node",
        peak_heap / n
    );
    println!("live heap at end    {:>8.0} bytes per e-node", live / n);
    println!("where the live heap goes (estimates from sizes and counts):");
    let parts = egraph::footprint(&egraph);
    for (what, bytes) in &parts {
        println!("  {what:<40} {:>8.0} bytes per e-node", *bytes as f64 / n);
    }
    let estimated: usize = parts.iter().map(|p| p.1).sum();
    drop(egraph);
    let _ = root;
    let outside = LIVE.load(Ordering::Relaxed).saturating_sub(before_heap) as f64;
    println!(
        "  {:<40} {:>8.0} bytes per e-node",
        "rest of the e-graph (capacity slack*)",
        (live - outside - estimated as f64) / n
    );
    println!(
        "  {:<40} {:>8.0} bytes per e-node",
        "outside the e-graph (typing caches, …)",
        outside / n
    );
    println!("* tables and vectors keep the capacity of their largest size (the memo before a");
    println!("  rebuild removes duplicates), egg's index of classes by operator, its work queues");
}

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    match mode.as_str() {
        "growth" => growth(),
        "goals" => goals(),
        "memory" => {
            let nodes = std::env::args()
                .nth(2)
                .map(|n| n.parse().expect("a number of e-nodes"))
                .unwrap_or(200_000);
            memory(nodes)
        }
        _ => {
            eprintln!("usage: eqsat_table growth | goals | memory [E-NODES]");
            std::process::exit(1);
        }
    }
}
