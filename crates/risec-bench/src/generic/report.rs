//! The generic benchmark's table and CSV: per kernel and thread count, the times, the bytes one
//! call reads and writes per second (GB/s), the speed-up over the naive lowering and over the
//! baseline (OpenBLAS or the user's C), and the share of the copy bandwidth measured in the
//! same run.

use super::driver::COPY;
use super::{GenericReport, Row};
use crate::Origin;
use std::fmt::Write as _;

impl GenericReport {
    fn naive(&self, threads: u32) -> Option<&Row> {
        // The naive lowering timed once (slower than 2 s) serves every thread count.
        self.rows
            .iter()
            .find(|r| r.name == "naive" && r.threads == threads && r.code == 0)
            .or_else(|| self.rows.iter().find(|r| r.name == "naive" && r.code == 0))
    }

    fn copy(&self, threads: u32) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.name == COPY && r.threads == threads)
    }

    fn baseline(&self, threads: u32) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.threads == threads && r.code == 0 && r.origin == Some(Origin::OpenBlas))
    }

    /// The bytes one call moves per second, in GB/s.
    pub fn gb_per_s(&self, row: &Row) -> f64 {
        self.bytes as f64 / (row.median_ms * 1e6)
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

    /// The table `risec bench` prints.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{} at {}; {} bytes read and written per call; every kernel verified against the naive lowering{} (max |c - ref| / max |ref| <= {:e}, or no more than twice the naive lowering's own error)\n\
             ratios are speed-ups (baseline median / kernel median); \"of copy\": the kernel's GB/s over memcpy's in this run\n",
            self.shape.program,
            self.sizes_text(),
            self.bytes,
            if matches!(self.shape.output.scalar, crate::ir::types::ScalarType::F32 | crate::ir::types::ScalarType::F64) {
                " computed in double precision"
            } else {
                ""
            },
            super::REL_ERROR_BOUND
        );
        if let Some(op) = self.blas {
            let _ = writeln!(
                out,
                "OpenBLAS runs the program as {op} (recognised by the reference interpreter)"
            );
        }
        out.push('\n');
        let header = [
            "kernel",
            "origin",
            "threads",
            "median ms",
            "min ms",
            "max ms",
            "GB/s",
            "of copy",
            "x naive",
            "x OpenBLAS",
        ];
        let mut lines: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
        let ratio = |x: Option<f64>| x.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"));
        for r in &self.rows {
            let origin = match r.origin {
                Some(Origin::Generated) => "risec",
                Some(Origin::Baseline) => "user C",
                Some(Origin::OpenBlas) => "OpenBLAS",
                None => "memcpy",
            };
            if r.code != 0 {
                let mut row = vec![
                    r.name.clone(),
                    origin.into(),
                    r.threads.to_string(),
                    format!("refused: returned {}", r.code),
                ];
                row.resize(header.len(), String::new());
                lines.push(row);
                continue;
            }
            let gbs = self.gb_per_s(r);
            let of_copy = self.copy(r.threads).map(|c| gbs / self.gb_per_s(c));
            let is_kernel = r.origin.is_some();
            lines.push(vec![
                r.name.clone(),
                origin.into(),
                r.threads.to_string(),
                format!("{:.3}", r.median_ms),
                format!("{:.3}", r.min_ms),
                format!("{:.3}", r.max_ms),
                format!("{gbs:.1}"),
                of_copy.map_or_else(|| "-".into(), |v| format!("{:.0} %", v * 100.0)),
                ratio(
                    is_kernel
                        .then(|| {
                            self.naive(r.threads)
                                .and_then(|n| crate::speed_up(n.median_ms, r.median_ms))
                        })
                        .flatten(),
                ),
                ratio(
                    is_kernel
                        .then(|| {
                            self.baseline(r.threads)
                                .and_then(|b| crate::speed_up(b.median_ms, r.median_ms))
                        })
                        .flatten(),
                ),
            ]);
        }
        let widths: Vec<usize> = (0..header.len())
            .map(|c| {
                lines
                    .iter()
                    .map(|l| l[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for l in &lines {
            let cells: Vec<String> = l
                .iter()
                .enumerate()
                .map(|(c, s)| {
                    if c < 2 || s.starts_with("refused") {
                        format!("{s:<w$}", w = widths[c])
                    } else {
                        format!("{s:>w$}", w = widths[c])
                    }
                })
                .collect();
            let _ = writeln!(out, "{}", cells.join("  ").trim_end());
        }
        out
    }

    /// CSV, one row per kernel and thread count.
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "kernel,origin,threads,returned,median_ms,min_ms,max_ms,gb_per_s,of_copy,rel_error,ratio_naive,ratio_openblas\n",
        );
        for r in &self.rows {
            let origin = match r.origin {
                Some(Origin::Generated) => "Generated",
                Some(Origin::Baseline) => "User",
                Some(Origin::OpenBlas) => "OpenBlas",
                None => "Copy",
            };
            let num = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.6}"));
            let ok = r.code == 0;
            let gbs = ok.then(|| self.gb_per_s(r));
            let of_copy = gbs.and_then(|g| self.copy(r.threads).map(|c| g / self.gb_per_s(c)));
            let naive = (ok && r.origin.is_some())
                .then(|| {
                    self.naive(r.threads)
                        .and_then(|n| crate::speed_up(n.median_ms, r.median_ms))
                })
                .flatten();
            let blas = (ok && r.origin.is_some())
                .then(|| {
                    self.baseline(r.threads)
                        .and_then(|b| crate::speed_up(b.median_ms, r.median_ms))
                })
                .flatten();
            let _ = writeln!(
                out,
                "\"{}\",{origin},{},{},{},{},{},{},{},{},{},{}",
                r.name.replace('"', "'"),
                r.threads,
                r.code,
                num(ok.then_some(r.median_ms)),
                num(ok.then_some(r.min_ms)),
                num(ok.then_some(r.max_ms)),
                num(gbs),
                num(of_copy),
                if r.origin.is_some() && ok {
                    format!("{:.3e}", r.error)
                } else {
                    String::new()
                },
                num(naive),
                num(blas),
            );
        }
        out
    }
}
