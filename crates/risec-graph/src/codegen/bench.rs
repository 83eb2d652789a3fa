//! `risec graph --bench`: the graph as written and the optimised graph, both compiled to C,
//! run on the same random inputs, checked against the reference evaluation, and timed (the
//! median of `rounds` calls each, interleaved; `prepare`, the values of weights alone, is run
//! once and timed apart). The driver starts with the prelude of every risec driver
//! (`risec_bench::prelude`: the same clock and median as `risec bench`).

use super::c_file_with;
use crate::check::Graph;
use crate::eval::{eval, random_inputs, Tensor};
use crate::lang::TensorLang;
use egg::RecExpr;
use risec_bench::compile::compile_executable;
use risec_bench::prelude::PRELUDE;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a benchmark measured.
#[derive(Clone, Debug)]
pub struct Timing {
    /// Median time of the graph as written, in milliseconds.
    pub original_ms: f64,
    /// Median time of the optimised graph.
    pub optimised_ms: f64,
    /// Time of each graph's `prepare` (values of weights alone), in milliseconds.
    pub prepare_ms: (f64, f64),
    /// The largest relative difference of each graph's outputs to the reference evaluation.
    pub errors: (f64, f64),
    /// Calls timed per graph.
    pub rounds: usize,
    /// The kernels and the sketch each was compiled with, for the optimised graph.
    pub kernels: Vec<(String, Option<PathBuf>)>,
}

/// How a benchmark runs.
#[derive(Clone, Copy, Debug)]
pub struct BenchOptions<'a> {
    /// Calls timed per graph.
    pub rounds: usize,
    /// OpenMP threads.
    pub threads: usize,
    /// The inputs' seed.
    pub seed: u64,
    /// The folder of shipped sketches (`None`: the naive lowering of every kernel).
    pub sketches: Option<&'a Path>,
    /// Under AddressSanitizer and UndefinedBehaviorSanitizer.
    pub sanitize: bool,
}

/// The largest relative difference accepted between C (in `float`) and the reference.
pub const TOLERANCE: f64 = 1e-4;

fn driver(graph: &Graph, rounds: usize) -> String {
    let mut c = String::from("/* risec graph benchmark driver (generated). */\n");
    c.push_str(PRELUDE);
    c.push_str("#include \"original.h\"\n#include \"optimised.h\"\n\n");
    c.push_str("static float *rg_read(FILE *f, long long n) {\n    float *a = malloc(sizeof(float) * (size_t)n);\n    if (!a || fread(a, sizeof(float), (size_t)n, f) != (size_t)n) { printf(\"FAIL cannot read the inputs\\n\"); exit(1); }\n    return a;\n}\n\n");
    let _ = writeln!(c, "int main(int argc, char **argv) {{\n    if (argc < 4) return 2;\n    int rounds = atoi(argv[1]); if (rounds < 1) rounds = {rounds};\n    FILE *in = fopen(argv[2], \"rb\"); if (!in) {{ printf(\"FAIL cannot open the inputs\\n\"); return 1; }}");
    let (mut weights, mut inputs) = (Vec::new(), Vec::new());
    for (i, s) in graph.order.iter().enumerate() {
        let d = &graph.decls[s];
        let n: usize = d.shape.iter().product();
        let _ = writeln!(c, "    float *x{i} = rg_read(in, {n}LL);");
        if d.weight {
            weights.push(format!("x{i}"));
        } else {
            inputs.push(format!("x{i}"));
        }
    }
    let _ = writeln!(c, "    fclose(in);");
    let sizes = output_sizes(graph);
    let (mut o, mut p) = (Vec::new(), Vec::new());
    for (k, n) in sizes.iter().enumerate() {
        let _ = writeln!(c, "    float *o{k} = calloc({n}ULL, sizeof(float)), *p{k} = calloc({n}ULL, sizeof(float));");
        o.push(format!("o{k}"));
        p.push(format!("p{k}"));
    }
    let w = weights.join(", ");
    let args = |outs: &[String]| {
        inputs
            .iter()
            .chain(outs)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (oa, pa) = (args(&o), args(&p));
    let _ = write!(
        c,
        r#"    double t0 = now_ms();
    rg_original_state *so = rg_original_prepare({w});
    double prep_o = now_ms() - t0; t0 = now_ms();
    rg_optimised_state *sp = rg_optimised_prepare({w});
    double prep_p = now_ms() - t0;
    if (!so || !sp) {{ printf("FAIL prepare ran out of memory\n"); return 1; }}
    if (rg_original(so, {oa}) || rg_optimised(sp, {pa})) {{ printf("FAIL a graph function returned an error\n"); return 1; }}
    FILE *out = fopen(argv[3], "wb"); if (!out) {{ printf("FAIL cannot write the outputs\n"); return 1; }}
"#
    );
    for (k, n) in sizes.iter().enumerate() {
        let _ = writeln!(c, "    fwrite(o{k}, sizeof(float), {n}ULL, out);");
    }
    for (k, n) in sizes.iter().enumerate() {
        let _ = writeln!(c, "    fwrite(p{k}, sizeof(float), {n}ULL, out);");
    }
    let _ = write!(
        c,
        r#"    fclose(out);
    double *ta = malloc(sizeof(double) * (size_t)rounds), *tb = malloc(sizeof(double) * (size_t)rounds);
    for (int r = 0; r < rounds; r++) {{
        t0 = now_ms(); rg_original(so, {oa}); ta[r] = now_ms() - t0;
        t0 = now_ms(); rg_optimised(sp, {pa}); tb[r] = now_ms() - t0;
    }}
    printf("PREPARE %.4f %.4f\n", prep_o, prep_p);
    printf("TIME %.4f %.4f\n", median_ms(ta, rounds), median_ms(tb, rounds));
    rg_original_release(so); rg_optimised_release(sp);
    return 0;
}}
"#
    );
    c
}

fn output_sizes(graph: &Graph) -> Vec<usize> {
    let nodes = graph.expr.as_ref();
    let Some(TensorLang::Outputs(rs)) = nodes.last() else {
        return Vec::new();
    };
    // The outputs' shapes, from the reference evaluation's point of view: the checked graph's.
    let mut metas = Vec::new();
    for node in nodes {
        let m = crate::shape::infer(node, &|id| &metas[usize::from(id)], &graph.decls)
            .unwrap_or(crate::lang::Meta::Outputs);
        metas.push(m);
    }
    rs.iter()
        .map(|r| {
            metas[usize::from(*r)]
                .shape()
                .map_or(0, |s| s.iter().product())
        })
        .collect()
}

/// Compiles both graphs into `dir`, runs the driver with `threads` OpenMP threads and checks
/// both graphs' outputs against the reference evaluation on the same inputs (seeded); with
/// `sanitize`, under AddressSanitizer and UndefinedBehaviorSanitizer (a report fails the run).
pub fn run(
    graph: &Graph,
    optimised: &RecExpr<TensorLang>,
    options: &BenchOptions,
    dir: &Path,
) -> Result<Timing, String> {
    let BenchOptions {
        rounds,
        threads,
        seed,
        sketches,
        sanitize,
    } = *options;
    let mut cache = super::KernelCache::default();
    let original = c_file_with(
        "rg_original",
        "original.h",
        graph,
        &graph.expr,
        sketches,
        &mut cache,
    )?;
    let opt = c_file_with(
        "rg_optimised",
        "optimised.h",
        graph,
        optimised,
        sketches,
        &mut cache,
    )?;
    let write = |name: &str, bytes: &[u8]| {
        std::fs::write(dir.join(name), bytes).map_err(|e| format!("cannot write {name}: {e}"))
    };
    write("original.c", original.source.as_bytes())?;
    write("original.h", original.header.as_bytes())?;
    write("optimised.c", opt.source.as_bytes())?;
    write("optimised.h", opt.header.as_bytes())?;
    write("driver.c", driver(graph, rounds).as_bytes())?;
    // Inputs: the reference's random values, rounded to float; the reference then sees the
    // same values as the C.
    let mut values = random_inputs(&graph.decls, &graph.order, seed);
    let mut bytes = Vec::new();
    for s in &graph.order {
        let t = values.get_mut(s).expect("every tensor has a value");
        for x in t.data.iter_mut() {
            let f = *x as f32;
            *x = f as f64;
            bytes.extend_from_slice(&f.to_le_bytes());
        }
    }
    write("inputs.bin", &bytes)?;
    let exe = dir.join("graph_bench");
    let flags: &[&str] = if sanitize {
        &[
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer",
        ]
    } else {
        &[]
    };
    compile_executable(
        &["original.c", "optimised.c", "driver.c"].map(|f| dir.join(f)),
        &[dir.to_path_buf()],
        &exe,
        flags,
        &[],
    )
    .map_err(|e| e.to_string())?;
    let out = Command::new(&exe)
        .arg(rounds.to_string())
        .arg(dir.join("inputs.bin"))
        .arg(dir.join("outputs.bin"))
        .env("OMP_NUM_THREADS", threads.to_string())
        // Kernels keep their packing buffers between calls on purpose (not a leak).
        .env("ASAN_OPTIONS", "detect_leaks=0")
        .output()
        .map_err(|e| format!("cannot run the benchmark: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let pair = |tag: &str| -> Option<(f64, f64)> {
        let v: Vec<f64> = text
            .lines()
            .find_map(|l| l.strip_prefix(tag))?
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        (v.len() == 2).then(|| (v[0], v[1]))
    };
    let (Some(prepare_ms), Some((original_ms, optimised_ms))) = (pair("PREPARE "), pair("TIME "))
    else {
        return Err(format!(
            "the benchmark failed: {}{}",
            text.trim(),
            String::from_utf8_lossy(&out.stderr)
        ));
    };
    let reference = eval(&graph.expr, &values);
    let raw = std::fs::read(dir.join("outputs.bin"))
        .map_err(|e| format!("cannot read the outputs: {e}"))?;
    let floats: Vec<f64> = raw
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64)
        .collect();
    let mut at = 0;
    let mut errors = (0.0f64, 0.0f64);
    for which in 0..2 {
        for r in &reference {
            let n = r.data.len();
            let got = Tensor {
                shape: r.shape.clone(),
                data: floats
                    .get(at..at + n)
                    .ok_or("the outputs file is short")?
                    .to_vec(),
            };
            at += n;
            let d = got.distance(r);
            let e = if which == 0 {
                &mut errors.0
            } else {
                &mut errors.1
            };
            *e = if d.is_nan() { f64::NAN } else { e.max(d) };
        }
    }
    Ok(Timing {
        original_ms,
        optimised_ms,
        prepare_ms,
        errors,
        rounds,
        kernels: opt.kernels,
    })
}
