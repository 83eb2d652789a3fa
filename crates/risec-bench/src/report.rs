//! What a benchmark shows: an aligned table, CSV and an SVG bar chart (plotters) of one
//! [`Report`], the same for every program. Per kernel and thread count: the times, GFLOP/s where
//! the program's floating-point operations are counted, the bytes one call reads and writes per
//! second (GB/s) and their share of the copy bandwidth measured in the same run, and the
//! speed-ups over the naive lowering, over the version's hand-written twin (a baseline named
//! `NAME (C)`, as the matrix multiplication's TVM steps are) and over OpenBLAS.

use crate::driver::COPY;
use crate::measure::{Report, Row};
use crate::{BenchError, Origin};
use std::fmt::Write as _;
use std::path::Path;

/// How the table names who wrote a row's kernel.
fn origin_name(origin: Option<Origin>) -> &'static str {
    match origin {
        Some(Origin::Generated) => "risec",
        Some(Origin::Baseline) => "hand C",
        Some(Origin::OpenBlas) => "OpenBLAS",
        None => "memcpy",
    }
}

/// What a kernel's non-zero return code means.
fn refusal_text(code: i32) -> String {
    let what = match code {
        1 => "sizes it does not take".to_string(),
        2 => "out of memory".to_string(),
        3 => "too large for int indices".to_string(),
        c => format!("error {c}"),
    };
    format!("refused: returned {code} ({what})")
}

/// A row's speed-ups over the naive lowering, its twin and OpenBLAS.
struct Ratios {
    naive: Option<f64>,
    twin: Option<f64>,
    openblas: Option<f64>,
}

impl Report {
    /// The naive lowering's row at `threads`; timed once (slower than 2 s), it serves every
    /// thread count.
    fn naive(&self, threads: u32) -> Option<&Row> {
        let naive = |r: &&Row| r.name == "naive" && r.origin == Some(Origin::Generated);
        self.rows
            .iter()
            .filter(naive)
            .find(|r| r.threads == threads && r.code == 0)
            .or_else(|| self.rows.iter().filter(naive).find(|r| r.code == 0))
    }

    fn copy(&self, threads: u32) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.name == COPY && r.threads == threads)
    }

    fn openblas(&self, threads: u32) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.threads == threads && r.code == 0 && r.origin == Some(Origin::OpenBlas))
    }

    /// The hand-written twin of a generated version: the baseline `NAME (C)`.
    fn twin(&self, row: &Row) -> Option<&Row> {
        if row.origin != Some(Origin::Generated) {
            return None;
        }
        let name = format!("{} (C)", row.name);
        self.rows.iter().find(|r| {
            r.threads == row.threads
                && r.code == 0
                && r.origin == Some(Origin::Baseline)
                && r.name == name
        })
    }

    fn has_twins(&self) -> bool {
        self.rows.iter().any(|r| self.twin(r).is_some())
    }

    fn ratios(&self, row: &Row) -> Ratios {
        let over = |base: Option<&Row>| {
            (row.code == 0 && row.origin.is_some())
                .then(|| base.and_then(|b| crate::speed_up(b.median_ms, row.median_ms)))
                .flatten()
        };
        Ratios {
            naive: over(self.naive(row.threads)),
            twin: over(self.twin(row)),
            openblas: over(self.openblas(row.threads)),
        }
    }

    /// The bytes one call moves per second, in GB/s.
    pub fn gb_per_s(&self, row: &Row) -> f64 {
        self.bytes as f64 / (row.median_ms * 1e6)
    }

    /// Floating-point operations per second of a kernel's median call, in GFLOP/s, where the
    /// program's are counted.
    pub fn gflops(&self, row: &Row) -> Option<f64> {
        let flops = self.flops? as f64;
        (row.origin.is_some() && row.code == 0 && row.median_ms > 0.0)
            .then(|| flops / (row.median_ms * 1e6))
    }

    /// The sizes as `n=4096,m=…`.
    pub fn sizes_text(&self) -> String {
        self.shape
            .sizes
            .iter()
            .zip(&self.sizes)
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The lines above the table: what was run and what the columns mean.
    fn preamble(&self) -> String {
        let precise = matches!(
            self.shape.output.scalar,
            crate::ir::types::ScalarType::F32 | crate::ir::types::ScalarType::F64
        );
        let mut out = format!(
            "{} at {}; {} bytes read and written per call{}; every kernel verified against the naive lowering{} (max |c - ref| / max |ref| <= {:e}, or no more than twice the naive lowering's own error)\n\
             ratios are speed-ups (baseline median / kernel median); \"of copy\": the kernel's GB/s over memcpy's in this run{}\n",
            self.shape.program,
            self.sizes_text(),
            self.bytes,
            self.flops
                .map(|f| format!(", {f} floating-point operations"))
                .unwrap_or_default(),
            if precise { " computed in double precision" } else { "" },
            crate::REL_ERROR_BOUND,
            if self.has_twins() {
                "; twin: the hand-written C of the same version (`NAME (C)`)"
            } else {
                ""
            }
        );
        if let Some(op) = self.blas {
            let _ = writeln!(
                out,
                "OpenBLAS runs the program as {op} (recognised by the reference interpreter)"
            );
        }
        out
    }

    /// The table's columns: always the times, GB/s, the copy share and the naive ratio; GFLOP/s,
    /// the twin ratio and the OpenBLAS ratio where the run has them.
    fn columns(&self) -> Vec<&'static str> {
        let mut header = vec![
            "kernel",
            "origin",
            "threads",
            "median ms",
            "min ms",
            "max ms",
        ];
        if self.flops.is_some() {
            header.push("GFLOP/s");
        }
        header.extend(["GB/s", "of copy", "x naive"]);
        if self.has_twins() {
            header.push("x twin");
        }
        if self.rows.iter().any(|r| r.origin == Some(Origin::OpenBlas)) {
            header.push("x OpenBLAS");
        }
        header
    }

    /// The table `risec bench` prints.
    pub fn table(&self) -> String {
        let mut out = self.preamble();
        out.push('\n');
        let header = self.columns();
        let mut lines: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
        let mut notes = Vec::new();
        let ratio = |x: Option<f64>| x.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"));
        for r in &self.rows {
            if r.code != 0 {
                notes.push(lines.len());
                let mut row = vec![
                    r.name.clone(),
                    origin_name(r.origin).into(),
                    r.threads.to_string(),
                    refusal_text(r.code),
                ];
                row.resize(header.len(), String::new());
                lines.push(row);
                continue;
            }
            let gbs = self.gb_per_s(r);
            let of_copy = self.copy(r.threads).map(|c| gbs / self.gb_per_s(c));
            let ratios = self.ratios(r);
            let mut row = Vec::with_capacity(header.len());
            for column in &header {
                row.push(match *column {
                    "kernel" => r.name.clone(),
                    "origin" => origin_name(r.origin).into(),
                    "threads" => r.threads.to_string(),
                    "median ms" => format!("{:.3}", r.median_ms),
                    "min ms" => format!("{:.3}", r.min_ms),
                    "max ms" => format!("{:.3}", r.max_ms),
                    "GFLOP/s" => self
                        .gflops(r)
                        .map_or_else(|| "-".into(), |g| format!("{g:.1}")),
                    "GB/s" => format!("{gbs:.1}"),
                    "of copy" => {
                        of_copy.map_or_else(|| "-".into(), |v| format!("{:.0} %", v * 100.0))
                    }
                    "x naive" => ratio(ratios.naive),
                    "x twin" => ratio(ratios.twin),
                    _ => ratio(ratios.openblas),
                });
            }
            lines.push(row);
        }
        write_aligned(&mut out, &lines, &notes);
        out
    }

    /// CSV, one row per kernel and thread count (a kernel that refused the sizes: its return
    /// code and empty figures).
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "kernel,origin,threads,returned,median_ms,min_ms,max_ms,gflops,gb_per_s,of_copy,rel_error,ratio_naive,ratio_twin,ratio_openblas\n",
        );
        for r in &self.rows {
            let origin = match r.origin {
                Some(Origin::Generated) => "Generated",
                Some(Origin::Baseline) => "Baseline",
                Some(Origin::OpenBlas) => "OpenBlas",
                None => "Copy",
            };
            let num = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.6}"));
            let ok = r.code == 0;
            let gbs = ok.then(|| self.gb_per_s(r));
            let of_copy = gbs.and_then(|g| self.copy(r.threads).map(|c| g / self.gb_per_s(c)));
            let ratios = self.ratios(r);
            let _ = writeln!(
                out,
                "\"{}\",{origin},{},{},{},{},{},{},{},{},{},{},{},{}",
                r.name.replace('"', "\"\""),
                r.threads,
                r.code,
                num(ok.then_some(r.median_ms)),
                num(ok.then_some(r.min_ms)),
                num(ok.then_some(r.max_ms)),
                num(self.gflops(r)),
                num(gbs),
                num(of_copy),
                if r.origin.is_some() && ok {
                    format!("{:.3e}", r.error)
                } else {
                    String::new()
                },
                num(ratios.naive),
                num(ratios.twin),
                num(ratios.openblas),
            );
        }
        out
    }

    /// What the plot's bars show: GFLOP/s where the program's operations are counted, else
    /// GB/s; one value per kernel row that ran (the copy included for GB/s).
    fn plotted(&self, row: &Row) -> Option<f64> {
        if row.code != 0 {
            return None;
        }
        match self.flops {
            Some(_) => self.gflops(row),
            None => Some(self.gb_per_s(row)),
        }
    }

    /// Draws GFLOP/s (or GB/s, where the program's operations are not counted) per kernel, one
    /// bar per thread count, as SVG written to `path` (through
    /// [`crate::support::output::write_atomically`]).
    pub fn plot(&self, path: &Path) -> Result<(), BenchError> {
        let unit = if self.flops.is_some() {
            "GFLOP/s"
        } else {
            "GB/s"
        };
        let mut names: Vec<String> = Vec::new();
        for r in self.rows.iter().filter(|r| self.plotted(r).is_some()) {
            if !names.contains(&r.name) {
                names.push(r.name.clone());
            }
        }
        let mut threads: Vec<u32> = self.rows.iter().map(|r| r.threads).collect();
        threads.sort_unstable();
        threads.dedup();
        let bars: Vec<Bar> = self
            .rows
            .iter()
            .filter_map(|r| {
                Some(Bar {
                    slot: names.iter().position(|n| *n == r.name)?,
                    series: threads.iter().position(|t| *t == r.threads)?,
                    value: self.plotted(r)?,
                })
            })
            .collect();
        let chart = BarChart {
            title: format!(
                "{} at {}: {unit} (higher is better)",
                self.shape.program,
                self.sizes_text()
            ),
            unit,
            names,
            series: threads.iter().map(|t| format!("{t} thread(s)")).collect(),
            bars,
        };
        let svg = chart.svg().map_err(|reason| BenchError::Plot {
            path: path.to_path_buf(),
            reason,
        })?;
        Ok(crate::support::output::write_atomically(path, &svg)?)
    }
}

/// Writes `lines` as columns: the first two left-aligned, the figures right-aligned; a row in
/// `notes` (a refusal) has its note left-aligned in the fourth column, not widening it.
fn write_aligned(out: &mut String, lines: &[Vec<String>], notes: &[usize]) {
    let columns = lines.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            lines
                .iter()
                .enumerate()
                .filter(|(i, _)| c < 3 || !notes.contains(i))
                .map(|(_, l)| l[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for (i, l) in lines.iter().enumerate() {
        let note = notes.contains(&i);
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
}

/// One bar of a [`BarChart`].
struct Bar {
    /// Its kernel's slot on the x axis.
    slot: usize,
    /// Its series (thread count).
    series: usize,
    /// Its height.
    value: f64,
}

/// A grouped bar chart: one slot per kernel, one bar per series in each.
struct BarChart {
    title: String,
    unit: &'static str,
    names: Vec<String>,
    series: Vec<String>,
    bars: Vec<Bar>,
}

impl BarChart {
    /// The chart as SVG text.
    fn svg(&self) -> Result<String, String> {
        let mut svg = String::new();
        self.draw(&mut svg).map_err(|e| e.to_string())?;
        Ok(svg)
    }

    fn draw(&self, svg: &mut String) -> Result<(), Box<dyn std::error::Error>> {
        use plotters::prelude::*;
        use plotters::style::text_anchor::{HPos, Pos, VPos};
        let max = self.bars.iter().map(|b| b.value).fold(1e-9f64, f64::max);
        let root = SVGBackend::with_string(svg, (1100, 560)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&self.title, ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(170)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..self.names.len().max(1) as f64, 0f64..max * 1.1)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(self.names.len() * 2 + 1)
            // The names are drawn below (the mesh centres rotated labels on their tick, which
            // hides their first letters behind the axis).
            .x_label_formatter(&|_| String::new())
            .y_desc(self.unit)
            .draw()?;
        let palette = [
            RGBColor(66, 133, 244),
            RGBColor(234, 67, 53),
            RGBColor(52, 168, 83),
            RGBColor(251, 188, 5),
        ];
        let width = 0.8 / self.series.len().max(1) as f64;
        for (si, label) in self.series.iter().enumerate() {
            let color = palette[si % palette.len()];
            let rects = self.bars.iter().filter(|b| b.series == si).map(|b| {
                let x0 = b.slot as f64 + 0.1 + si as f64 * width;
                Rectangle::new([(x0, 0.0), (x0 + width, b.value)], color.filled())
            });
            chart
                .draw_series(rects)?
                .label(label.clone())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                });
        }
        // Each kernel's name reads downwards from below its bars.
        let name_style = TextStyle::from(
            ("sans-serif", 12)
                .into_font()
                .transform(FontTransform::Rotate90),
        )
        .pos(Pos::new(HPos::Left, VPos::Center));
        for (i, name) in self.names.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
            root.draw(&Text::new(name.clone(), (x, y + 8), name_style.clone()))?;
        }
        chart
            .configure_series_labels()
            // The first kernels (the naive ones) are the slowest: their corner is free.
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::Shape;

    fn row(name: &str, origin: Option<Origin>, median_ms: f64, code: i32) -> Row {
        Row {
            name: name.into(),
            origin,
            threads: 1,
            code,
            median_ms,
            min_ms: median_ms,
            max_ms: median_ms,
            error: 0.0,
        }
    }

    fn report(version_ms: f64, flops: Option<u64>) -> Report {
        let file = crate::diagnostics::SourceFile::new("m.rise", crate::presets::MATMUL_SOURCE);
        let program = crate::frontend::load::compile_source(&file, None).unwrap();
        Report {
            shape: Shape::of(&program).unwrap(),
            sizes: vec![64, 64, 64],
            bytes: 3 * 64 * 64 * 4,
            rows: vec![
                row("naive", Some(Origin::Generated), 2.0, 0),
                row("blocking", Some(Origin::Generated), version_ms, 0),
                row("exact", Some(Origin::Generated), 0.0, 1),
                row("blocking (C)", Some(Origin::Baseline), 1.0, 0),
                row(COPY, None, 0.01, 0),
            ],
            blas: None,
            flops,
        }
    }

    #[test]
    fn the_table_has_the_columns_the_run_has() {
        let t = report(0.5, Some(2 * 64 * 64 * 64)).table();
        assert!(t.contains("GFLOP/s"), "{t}");
        assert!(t.contains("x twin"), "{t}");
        assert!(!t.contains("x OpenBLAS"), "{t}");
        let blocking = t.lines().find(|l| l.starts_with("blocking ")).unwrap();
        // 524288 flops in 0.5 ms: 1.0 GFLOP/s; 4x the naive lowering, 2x its twin.
        assert!(blocking.contains(" 1.0 "), "{blocking}");
        assert!(blocking.ends_with("4.00    2.00"), "{blocking}");
        assert!(
            t.contains("refused: returned 1 (sizes it does not take)"),
            "{t}"
        );
        let t = report(0.5, None).table();
        assert!(!t.contains("GFLOP/s"), "{t}");
    }

    #[test]
    fn a_zero_time_has_no_ratio() {
        let r = report(0.0, None);
        assert_eq!(r.ratios(&r.rows[1]).naive, None);
        let r = report(0.5, None);
        assert_eq!(r.ratios(&r.rows[1]).naive, Some(4.0));
        assert_eq!(r.ratios(&r.rows[1]).twin, Some(2.0));
    }

    #[test]
    fn the_csv_has_one_line_per_row() {
        let csv = report(0.5, Some(524_288)).csv();
        assert_eq!(csv.lines().count(), 6, "{csv}");
        assert!(csv
            .lines()
            .nth(2)
            .unwrap()
            .starts_with("\"blocking\",Generated,1,0,"));
    }

    #[test]
    fn the_plot_is_written_through_the_safe_writer() {
        let dir = tempfile::tempdir().unwrap();
        let svg = dir.path().join("bars.svg");
        report(0.5, Some(524_288)).plot(&svg).unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.starts_with("<svg"), "{text}");
        assert!(text.contains("blocking") && text.contains("GFLOP/s"));
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "no temporary file is left behind");
        let e = report(0.5, None).plot(dir.path()).unwrap_err();
        assert!(e.to_string().contains("it is a folder"), "{e}");
    }
}
