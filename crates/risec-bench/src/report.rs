//! The benchmark's outputs: an aligned table, CSV, and an SVG bar chart (plotters).

use super::{BenchError, BenchReport, Measurement, Origin};
use std::fmt::Write as _;
use std::path::Path;

/// How the table names who wrote a kernel.
fn origin_name(o: Origin) -> &'static str {
    match o {
        Origin::Generated => "risec",
        Origin::Baseline => "hand C",
        Origin::OpenBlas => "OpenBLAS",
    }
}

impl BenchReport {
    fn find(&self, threads: u32, pred: &dyn Fn(&Measurement) -> bool) -> Option<&Measurement> {
        self.rows.iter().find(|r| r.threads == threads && pred(r))
    }

    /// The hand-written twin of a generated version (the baseline of the same name).
    pub fn twin(&self, row: &Measurement) -> Option<&Measurement> {
        let name = format!("{} (C)", row.name);
        self.find(row.threads, &|r| {
            r.origin == Origin::Baseline && r.name == name
        })
    }

    /// `baseline median / row median` for the naive baseline, the twin and OpenBLAS.
    pub fn ratios(&self, row: &Measurement) -> [Option<f64>; 3] {
        // The naive loop is sequential: when it was timed at one thread count only (slower
        // than 2 s), that time serves the others.
        let naive = self
            .find(row.threads, &|r| r.name == "naive (C)")
            .or_else(|| self.rows.iter().find(|r| r.name == "naive (C)"));
        let twin = if row.origin == Origin::Generated {
            self.twin(row)
        } else {
            None
        };
        let blas = self.find(row.threads, &|r| r.origin == Origin::OpenBlas);
        [naive, twin, blas].map(|b| b.and_then(|b| super::speed_up(b.median_ms, row.median_ms)))
    }

    /// The table printed by `risec bench`.
    pub fn table(&self) -> String {
        let [m, n, k] = self.sizes;
        let mut out = format!(
            "matmul {m}x{n}x{k} f32; every kernel verified against the naive C baseline (max |c - ref| / max |ref| <= {:e})\n\
             ratios are speed-ups: baseline median / kernel median (twin: the hand-written C of the same TVM step)\n\n",
            super::REL_ERROR_BOUND
        );
        let naive_threads: Vec<u32> = self
            .rows
            .iter()
            .filter(|r| r.name == "naive (C)")
            .map(|r| r.threads)
            .collect();
        if naive_threads.len() == 1 && self.rows.iter().any(|r| r.threads != naive_threads[0]) {
            out.insert_str(
                out.len() - 1,
                "the naive loop (sequential, slower than 2 s) was timed once, with the first thread count; its time serves the others\n",
            );
        }
        let header = [
            "kernel",
            "origin",
            "threads",
            "median ms",
            "min ms",
            "max ms",
            "GFLOP/s",
            "x naive",
            "x twin",
            "x OpenBLAS",
        ];
        let mut lines: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
        for r in &self.rows {
            let ratio = |x: Option<f64>| x.map(|v| format!("{v:.2}")).unwrap_or_else(|| "-".into());
            let [naive, twin, blas] = self.ratios(r);
            lines.push(vec![
                r.name.clone(),
                origin_name(r.origin).into(),
                r.threads.to_string(),
                format!("{:.2}", r.median_ms),
                format!("{:.2}", r.min_ms),
                format!("{:.2}", r.max_ms),
                format!("{:.1}", r.gflops(self.sizes)),
                ratio(naive),
                ratio(twin),
                ratio(blas),
            ]);
        }
        for r in &self.refused {
            let what = match r.code {
                1 => "sizes it does not support".to_string(),
                3 => "too large for int indices".to_string(),
                2 => "out of memory".to_string(),
                c => format!("error {c}"),
            };
            let mut row = vec![
                r.name.clone(),
                origin_name(r.origin).into(),
                r.threads.to_string(),
                format!("refused: returned {} ({what})", r.code),
            ];
            row.resize(header.len(), String::new());
            lines.push(row);
        }
        let widths: Vec<usize> = (0..header.len())
            .map(|c| {
                // A refusal's note spans the figures' columns: it does not widen them.
                let measured = if c < 3 {
                    lines.len()
                } else {
                    lines.len() - self.refused.len()
                };
                lines[..measured]
                    .iter()
                    .map(|l| l[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for (i, l) in lines.iter().enumerate() {
            let note = i >= lines.len() - self.refused.len();
            let cells: Vec<String> = l
                .iter()
                .enumerate()
                .map(|(c, s)| {
                    if c < 2 || (note && c == 3) {
                        format!("{s:<w$}", w = widths[c])
                    } else {
                        format!("{s:>w$}", w = widths[c])
                    }
                })
                .collect();
            let _ = writeln!(out, "{}", cells.join("  ").trim_end());
        }
        if !self.openblas {
            out.push_str("\nOpenBLAS is not installed (apt-get install libopenblas-dev): no OpenBLAS column.\n");
        }
        out
    }

    /// CSV with one row per kernel and thread count (a kernel that refused the sizes: a row
    /// with empty figures).
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "kernel,origin,threads,median_ms,min_ms,max_ms,gflops,rel_error,ratio_naive,ratio_twin,ratio_openblas\n",
        );
        for r in &self.rows {
            let f = |x: Option<f64>| x.map(|v| format!("{v:.4}")).unwrap_or_default();
            let [naive, twin, blas] = self.ratios(r);
            let _ = writeln!(
                out,
                "\"{}\",{:?},{},{:.4},{:.4},{:.4},{:.3},{:.3e},{},{},{}",
                r.name.replace('"', "\"\""),
                r.origin,
                r.threads,
                r.median_ms,
                r.min_ms,
                r.max_ms,
                r.gflops(self.sizes),
                r.error,
                f(naive),
                f(twin),
                f(blas)
            );
        }
        for r in &self.refused {
            let _ = writeln!(
                out,
                "\"{}\",{:?},{},,,,,,,,",
                r.name.replace('"', "\"\""),
                r.origin,
                r.threads
            );
        }
        out
    }

    /// Draws GFLOP/s per kernel, one bar per thread count, as SVG written to `path` (through
    /// [`crate::support::output::write_atomically`]).
    pub fn plot(&self, path: &Path) -> Result<(), BenchError> {
        use plotters::prelude::*;
        use plotters::style::text_anchor::{HPos, Pos, VPos};
        let mut names: Vec<String> = Vec::new();
        for r in &self.rows {
            if !names.contains(&r.name) {
                names.push(r.name.clone());
            }
        }
        let mut threads: Vec<u32> = self.rows.iter().map(|r| r.threads).collect();
        threads.sort_unstable();
        threads.dedup();
        let max = self
            .rows
            .iter()
            .map(|r| r.gflops(self.sizes))
            .fold(1.0f64, f64::max);
        let [m, n, k] = self.sizes;
        let mut svg = String::new();
        let mut draw = || -> Result<(), Box<dyn std::error::Error>> {
            let root = SVGBackend::with_string(&mut svg, (1100, 560)).into_drawing_area();
            root.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(&root)
                .caption(
                    format!("matmul {m}x{n}x{k} f32: GFLOP/s (higher is better)"),
                    ("sans-serif", 22),
                )
                .margin(12)
                .x_label_area_size(170)
                .y_label_area_size(60)
                .build_cartesian_2d(0f64..names.len() as f64, 0f64..max * 1.1)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(names.len() * 2 + 1)
                // The names are drawn below (the mesh centres rotated labels on their tick,
                // which hides their first letters behind the axis).
                .x_label_formatter(&|_| String::new())
                .y_desc("GFLOP/s")
                .draw()?;
            let palette = [
                RGBColor(66, 133, 244),
                RGBColor(234, 67, 53),
                RGBColor(52, 168, 83),
                RGBColor(251, 188, 5),
            ];
            let width = 0.8 / threads.len().max(1) as f64;
            for (ti, t) in threads.iter().enumerate() {
                let color = palette[ti % palette.len()];
                let bars: Vec<Rectangle<(f64, f64)>> = self
                    .rows
                    .iter()
                    .filter(|r| r.threads == *t)
                    .filter_map(|r| {
                        let i = names.iter().position(|n| *n == r.name)? as f64;
                        let x0 = i + 0.1 + ti as f64 * width;
                        Some(Rectangle::new(
                            [(x0, 0.0), (x0 + width, r.gflops(self.sizes))],
                            color.filled(),
                        ))
                    })
                    .collect();
                chart
                    .draw_series(bars)?
                    .label(format!("{t} thread(s)"))
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                    });
            }
            // Each kernel's name reads downwards from below its pair of bars.
            let name_style = TextStyle::from(
                ("sans-serif", 12)
                    .into_font()
                    .transform(FontTransform::Rotate90),
            )
            .pos(Pos::new(HPos::Left, VPos::Center));
            for (i, name) in names.iter().enumerate() {
                let (x, y) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
                root.draw(&Text::new(name.clone(), (x, y + 8), name_style.clone()))?;
            }
            chart
                .configure_series_labels()
                // The first kernels (naive, blocking) are the slowest: their corner is free.
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()?;
            root.present()?;
            Ok(())
        };
        draw().map_err(|e| BenchError::Plot {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        Ok(crate::support::output::write_atomically(path, &svg)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, origin: Origin, median_ms: f64) -> Measurement {
        Measurement {
            name: name.into(),
            origin,
            threads: 1,
            median_ms,
            min_ms: median_ms,
            max_ms: median_ms,
            error: 0.0,
        }
    }

    fn report(version_ms: f64) -> BenchReport {
        BenchReport {
            sizes: [64, 64, 64],
            rows: vec![
                row("naive (C)", Origin::Baseline, 2.0),
                row("blocking", Origin::Generated, version_ms),
            ],
            refused: Vec::new(),
            openblas: false,
        }
    }

    #[test]
    fn the_plot_is_written_through_the_safe_writer() {
        let dir = tempfile::tempdir().unwrap();
        let svg = dir.path().join("bars.svg");
        report(0.5).plot(&svg).unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.starts_with("<svg"), "{text}");
        assert!(text.contains("blocking"));
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "no temporary file is left behind");
        let e = report(0.5).plot(dir.path()).unwrap_err();
        assert!(e.to_string().contains("it is a folder"), "{e}");
    }

    #[test]
    fn a_zero_time_has_no_ratio() {
        let r = report(0.0);
        assert_eq!(r.ratios(&r.rows[1])[0], None);
        let r = report(0.5);
        assert_eq!(r.ratios(&r.rows[1])[0], Some(4.0));
    }
}
