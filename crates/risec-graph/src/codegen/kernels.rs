//! The operators of graphs as Rise programs, compiled to C by risec's own pipeline: the front
//! end, then a shipped sketch where one fits the operator (the register-blocked GEMM, the
//! convolutions as GEMMs, softmax and layer normalisation with their reductions in vector
//! lanes), else the naive lowering; then the C backend. Each kernel is compiled once per C
//! file that uses it; sizes stay symbolic (C arguments).

use risec_core::diagnostics::SourceFile;
use std::path::{Path, PathBuf};

/// An elementwise function of one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unary {
    /// `max(x, 0)`.
    Relu,
    /// `1 − 2 / (exp(2x) + 1)`.
    Tanh,
    /// `1 / (1 + exp(−x))`.
    Sigmoid,
}

/// An operator kernel compiled from Rise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kernel {
    /// `out(m×n) = a(m×k)·b(k×n)`; C arguments `m, n, k, out, a, b`.
    Matmul,
    /// Batched products; C arguments `b, m, n, k, out, x, y`.
    BatchMatmul,
    /// Elementwise sum of `n` entries; C arguments `n, out, a, b`.
    Add,
    /// Elementwise product; C arguments `n, out, a, b`.
    Mul,
    /// An elementwise function; C arguments `n, out, a`.
    Map(Unary),
    /// Softmax of each of `m` rows of `n`; `lanes` when `n` is a multiple of 16 (the sketch
    /// that keeps 16 partial results needs it). C arguments `m, n, out, a`.
    Softmax { lanes: bool },
    /// Layer normalisation of each row, as [`Kernel::Softmax`].
    LayerNorm { lanes: bool },
    /// `out(n×m) = aᵀ`; C arguments `m, n, out, a`.
    Transpose,
    /// A 3×3 convolution of a padded input, stride 1; C arguments `co, ci, h, w, out,
    /// weights, input` (input `ci × (h+2) × (w+2)`).
    Conv3x3,
    /// A 1×1 convolution; C arguments `co, ci, h, w, out, weights (co × ci), input`.
    Conv1x1,
}

const DOT: &str = "def dot {k : nat} (a : k.f32) (b : k.f32) : f32 =\n  zip a b |> map (fun q => fst q * snd q) |> reduce (+) 0.0\n\n";

impl Kernel {
    /// The C function's name.
    pub fn name(self) -> String {
        match self {
            Kernel::Matmul => "rg_matmul".into(),
            Kernel::BatchMatmul => "rg_bmm".into(),
            Kernel::Add => "rg_add".into(),
            Kernel::Mul => "rg_mul".into(),
            Kernel::Map(u) => format!("rg_{}", format!("{u:?}").to_lowercase()),
            Kernel::Softmax { lanes } => format!("rg_softmax{}", if lanes { "_lanes" } else { "" }),
            Kernel::LayerNorm { lanes } => {
                format!("rg_layernorm{}", if lanes { "_lanes" } else { "" })
            }
            Kernel::Transpose => "rg_transpose".into(),
            Kernel::Conv3x3 => "rg_conv3x3".into(),
            Kernel::Conv1x1 => "rg_conv1x1".into(),
        }
    }

    /// The Rise program.
    pub fn rise(self) -> String {
        let name = self.name();
        match self {
            Kernel::Matmul => format!("def {name} {{m n k : nat}} (a : m.k.f32) (b : k.n.f32) : m.n.f32 =\n  a |> map (fun arow =>\n    transpose b |> map (fun bcol =>\n      zip arow bcol |> map (fun p => fst p * snd p) |> reduce (+) 0.0))\n"),
            Kernel::BatchMatmul => format!("def {name} {{b m n k : nat}} (x : b.m.k.f32) (y : b.k.n.f32) : b.m.n.f32 =\n  zip x y |> map (fun p =>\n    fst p |> map (fun row =>\n      transpose (snd p) |> map (fun col =>\n        zip row col |> map (fun q => fst q * snd q) |> reduce (+) 0.0)))\n"),
            Kernel::Add | Kernel::Mul => {
                let op = if self == Kernel::Add { "+" } else { "*" };
                format!("def {name} {{n : nat}} (a : n.f32) (b : n.f32) : n.f32 =\n  zip a b |> map (fun p => fst p {op} snd p)\n")
            }
            Kernel::Map(u) => {
                let body = match u {
                    Unary::Relu => "max x 0.0",
                    Unary::Tanh => "1.0 - 2.0 / (exp (2.0 * x) + 1.0)",
                    Unary::Sigmoid => "1.0 / (1.0 + exp (neg x))",
                };
                format!("def {name} {{n : nat}} (a : n.f32) : n.f32 = a |> map (fun x => {body})\n")
            }
            Kernel::Softmax { .. } => format!("def {name} {{m n : nat}} (a : m.n.f32) : m.n.f32 =\n  a |> map (fun row =>\n    let mx = row |> reduce max (-1.0 / 0.0) in\n    let e = row |> map (fun x => exp (x - mx)) in\n    let s = e |> reduce (+) 0.0 in\n    e |> map (fun x => x / s))\n"),
            Kernel::LayerNorm { .. } => format!("def {name} {{m n : nat}} (a : m.n.f32) : m.n.f32 =\n  a |> map (fun row =>\n    let mean = (row |> reduce (+) 0.0) / natToFloat n in\n    let var = (row |> map (fun x => (x - mean) * (x - mean)) |> reduce (+) 0.0) / natToFloat n in\n    let d = sqrt (var + 0.00001) in\n    row |> map (fun x => (x - mean) / d))\n"),
            Kernel::Transpose => format!("def {name} {{m n : nat}} (a : m.n.f32) : n.m.f32 = transpose a\n"),
            Kernel::Conv3x3 => format!("{DOT}def windows {{ci h w : nat}} (input : ci.(h+2).(w+2).f32) : h.w.ci.3.3.f32 =\n  input |> map (fun ch => ch |> map (slide 3 1) |> slide 3 1 |> map transpose)\n        |> transpose |> map transpose\n\ndef {name} {{co ci h w : nat}} (weights : co.ci.3.3.f32) (input : ci.(h+2).(w+2).f32) : co.h.w.f32 =\n  weights |> map (fun wk =>\n    windows input |> map (map (fun nbh => dot (join (join wk)) (join (join nbh)))))\n"),
            Kernel::Conv1x1 => format!("{DOT}def {name} {{co ci h w : nat}} (weights : co.ci.f32) (input : ci.h.w.f32) : co.h.w.f32 =\n  weights |> map (fun wk =>\n    input |> transpose |> map transpose |> map (map (fun px => dot wk px)))\n"),
        }
    }

    /// The shipped sketch that optimises it, relative to the sketches folder.
    pub fn sketch(self) -> Option<&'static str> {
        Some(match self {
            Kernel::Matmul => "matmul/register-blocking-avx512.sk",
            Kernel::Conv3x3 => "conv3x3/gemm-avx512.sk",
            Kernel::Conv1x1 => "conv1x1/gemm-avx512.sk",
            Kernel::Softmax { lanes: true } => "softmax/lanes.sk",
            Kernel::Softmax { lanes: false } => "softmax/rows.sk",
            Kernel::LayerNorm { lanes: true } => "layernorm/lanes.sk",
            Kernel::LayerNorm { lanes: false } => "layernorm/rows.sk",
            Kernel::BatchMatmul => "bmm/parallel.sk",
            Kernel::Add | Kernel::Mul | Kernel::Map(_) => "scal/blocks.sk",
            Kernel::Transpose => return None,
        })
    }

    /// The kernel's C (its header's declaration included), and how it was lowered: the
    /// sketch file used, or `None` for the naive lowering (no sketch folder, or the sketch's
    /// file missing from it).
    pub fn c_source(self, sketches: Option<&Path>) -> Result<(String, Option<PathBuf>), String> {
        let file = SourceFile::new(format!("{}.rise", self.name()), self.rise());
        let program = risec_frontend::load::compile_source(&file, None)
            .map_err(|e| format!("{}: {e:?}", self.name()))?;
        let sketch = sketches
            .zip(self.sketch())
            .map(|(dir, f)| dir.join(f))
            .filter(|p| p.is_file());
        let lowered = match &sketch {
            Some(path) => {
                let steps = risec::load_sketch(path, &program)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                risec::optimize(&program, &steps, &risec::SearchOptions::default())
                    .map_err(|e| format!("{}: {e}", path.display()))?
                    .program
            }
            None => {
                let budget = risec_core::support::budget::Budget::new(
                    std::time::Duration::from_secs(60),
                    u64::MAX,
                );
                risec_backend::lowlevel::lower_within(&program, &budget)
                    .map_err(|e| e.to_string())?
            }
        };
        let options = risec_backend::CodegenOptions::new("");
        let c = risec_backend::emit_c(&lowered, &options).map_err(|e| e.to_string())?;
        Ok((format!("{}\n{}", c.header, c.source), sketch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_compiles_from_rise_naively() {
        let all = [
            Kernel::Matmul,
            Kernel::BatchMatmul,
            Kernel::Add,
            Kernel::Mul,
            Kernel::Map(Unary::Relu),
            Kernel::Map(Unary::Tanh),
            Kernel::Map(Unary::Sigmoid),
            Kernel::Softmax { lanes: false },
            Kernel::LayerNorm { lanes: false },
            Kernel::Transpose,
            Kernel::Conv3x3,
            Kernel::Conv1x1,
        ];
        for k in all {
            let (c, sketch) = k.c_source(None).unwrap_or_else(|e| panic!("{k:?}: {e}"));
            assert!(sketch.is_none());
            assert!(c.contains(&format!("int {}(", k.name())), "{k:?}");
        }
    }
}
