//! The dense operations of plans as Rise programs, compiled to C by risec's own pipeline
//! (front end, naive lowering to low-level Rise, C backend). Each is compiled once per C file
//! that uses it, under its own function name.

use crate::diagnostics::SourceFile;
use crate::support::budget::Budget;

/// An elementwise binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementwiseOp {
    /// `*`
    Mul,
    /// `+`
    Add,
}

/// How the two operands of an elementwise operation meet (the broadcast one is on the left).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Broadcast {
    /// Same shape: a flat loop over `n` entries.
    Same,
    /// A scalar and `n` entries.
    Scalar,
    /// A column vector (m) along the rows of an m x n matrix.
    Column,
    /// A row vector (n) along the columns of an m x n matrix.
    Row,
    /// A column (m) and a row (n): the m x n outer combination.
    Outer,
}

/// A dense operation compiled from Rise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DenseKernel {
    /// `out(m x n) = a(m x k) %*% b(k x n)`; C arguments `m, n, k, out, a, b`.
    MatMul,
    /// An elementwise operation; C arguments are the sizes (`n`, or `m, n`), `out`, then the
    /// operands (a scalar by value).
    Elementwise(ElementwiseOp, Broadcast),
    /// `out(n x m) = t(a(m x n))`; C arguments `m, n, out, a`.
    Transpose,
    /// `out = sum(a(n))`; C arguments `n, out, a`.
    Sum,
    /// `out(m) = rowSums(a(m x n))`; C arguments `m, n, out, a`.
    RowSums,
    /// `out(n) = colSums(a(m x n))`; C arguments `m, n, out, a`.
    ColSums,
    /// `abs`, `relu` or `1 / x` over `n` entries; C arguments `n, out, a`.
    Map(&'static str),
}

impl DenseKernel {
    /// The C function's name.
    pub fn name(self) -> String {
        match self {
            DenseKernel::MatMul => "la_mmul".into(),
            DenseKernel::Elementwise(op, b) => format!("la_{op:?}_{b:?}").to_lowercase(),
            DenseKernel::Transpose => "la_transpose".into(),
            DenseKernel::Sum => "la_sum".into(),
            DenseKernel::RowSums => "la_rowsums".into(),
            DenseKernel::ColSums => "la_colsums".into(),
            DenseKernel::Map(f) => format!("la_map_{f}"),
        }
    }

    /// The Rise program.
    pub fn rise(self) -> String {
        let name = self.name();
        match self {
            DenseKernel::MatMul => format!(
                "def {name} {{m n k : nat}} (a : m.k.f32) (b : k.n.f32) : m.n.f32 =\n  a |> map (fun arow =>\n    transpose b |> map (fun bcol =>\n      zip arow bcol |> map (fun p => fst p * snd p) |> reduce (+) 0.0))\n"
            ),
            DenseKernel::Elementwise(op, b) => {
                let op = if op == ElementwiseOp::Mul { "*" } else { "+" };
                match b {
                    Broadcast::Same => format!("def {name} {{n : nat}} (a : n.f32) (b : n.f32) : n.f32 =\n  zip a b |> map (fun p => fst p {op} snd p)\n"),
                    Broadcast::Scalar => format!("def {name} {{n : nat}} (s : f32) (b : n.f32) : n.f32 =\n  b |> map (fun x => s {op} x)\n"),
                    Broadcast::Column => format!("def {name} {{m n : nat}} (v : m.f32) (a : m.n.f32) : m.n.f32 =\n  zip v a |> map (fun p => snd p |> map (fun x => fst p {op} x))\n"),
                    Broadcast::Row => format!("def {name} {{m n : nat}} (v : n.f32) (a : m.n.f32) : m.n.f32 =\n  a |> map (fun row => zip v row |> map (fun p => fst p {op} snd p))\n"),
                    Broadcast::Outer => format!("def {name} {{m n : nat}} (u : m.f32) (v : n.f32) : m.n.f32 =\n  u |> map (fun x => v |> map (fun y => x {op} y))\n"),
                }
            }
            DenseKernel::Transpose => format!("def {name} {{m n : nat}} (a : m.n.f32) : n.m.f32 = transpose a\n"),
            DenseKernel::Sum => format!("def {name} {{n : nat}} (a : n.f32) : f32 = a |> reduce (+) 0.0\n"),
            DenseKernel::RowSums => format!("def {name} {{m n : nat}} (a : m.n.f32) : m.f32 =\n  a |> map (fun row => row |> reduce (+) 0.0)\n"),
            DenseKernel::ColSums => format!("def {name} {{m n : nat}} (a : m.n.f32) : n.f32 =\n  transpose a |> map (fun col => col |> reduce (+) 0.0)\n"),
            DenseKernel::Map(f) => {
                let body = match f {
                    "abs" => "select (lt x 0.0) (neg x) x",
                    "relu" => "select (lt x 0.0) 0.0 x",
                    _ => "1.0 / x",
                };
                format!("def {name} {{n : nat}} (a : n.f32) : n.f32 = a |> map (fun x => {body})\n")
            }
        }
    }

    /// The C source of the kernel (its header's declaration included, its `#include` of that
    /// header dropped), compiled from [`Self::rise`] by the front end, the naive lowering and
    /// the C backend.
    pub fn c_source(self) -> Result<String, String> {
        self.c_source_with(None)
    }

    /// The kernel as a typed Rise program.
    fn program(self) -> Result<crate::core::TypedProgram, String> {
        let file = SourceFile::new(format!("{}.rise", self.name()), self.rise());
        crate::frontend::load::compile_source(&file, None).map_err(|e| format!("{e:?}"))
    }

    /// [`Self::c_source`]; the matrix product is first optimised with the guide steps of the
    /// sketch file `sketch` when one is given (a matmul sketch: `sketches/matmul/*.sk`).
    pub fn c_source_with(self, sketch: Option<&std::path::Path>) -> Result<String, String> {
        let program = self.program()?;
        let lowered = match sketch.filter(|_| self == DenseKernel::MatMul) {
            Some(path) => {
                let steps = risec::load_sketch(path, &program).map_err(sketch_context(path))?;
                risec::optimize(&program, &steps, &risec::SearchOptions::default())
                    .map_err(sketch_context(path))?
                    .program
            }
            None => {
                let budget = Budget::new(std::time::Duration::from_secs(60), u64::MAX);
                crate::lowlevel::lower_within(&program, &budget).map_err(|e| e.to_string())?
            }
        };
        let mut options = crate::backend_c::CodegenOptions::new("");
        // Sums of millions of entries need a double accumulator to stay accurate in f32.
        options.wide_scalars = true;
        let c = crate::backend_c::emit_c(&lowered, &options).map_err(|e| e.to_string())?;
        Ok(format!("{}\n{}", c.header, c.source))
    }
}

/// Says which kernel a matmul sketch's error is about: its messages speak of Rise, not of
/// `.la`.
fn sketch_context(path: &std::path::Path) -> impl Fn(risec::Error) -> String + '_ {
    move |e| {
        format!(
            "{}\n  (while compiling the plan's matrix products with --matmul-sketch {}: it must describe a matrix multiplication)",
            e.to_string().trim_end(),
            path.display()
        )
    }
}

/// Loads the matmul sketch file at `sketch` for the matrix-product kernel (so that its errors
/// come before any work) and returns the files it reads: the sketch and its imports.
pub fn matmul_sketch_files(sketch: &std::path::Path) -> Result<Vec<std::path::PathBuf>, String> {
    let program = DenseKernel::MatMul.program()?;
    risec::load_sketch_with(sketch, &program, &risec::SketchOptions::default())
        .map(|loaded| loaded.files)
        .map_err(sketch_context(sketch))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_compiles_from_rise() {
        let mut all = vec![
            DenseKernel::MatMul,
            DenseKernel::Transpose,
            DenseKernel::Sum,
            DenseKernel::RowSums,
            DenseKernel::ColSums,
            DenseKernel::Map("abs"),
            DenseKernel::Map("relu"),
            DenseKernel::Map("inv"),
        ];
        for op in [ElementwiseOp::Mul, ElementwiseOp::Add] {
            for b in [
                Broadcast::Same,
                Broadcast::Scalar,
                Broadcast::Column,
                Broadcast::Row,
                Broadcast::Outer,
            ] {
                all.push(DenseKernel::Elementwise(op, b));
            }
        }
        for k in all {
            let c = k.c_source().unwrap_or_else(|e| panic!("{k:?}: {e}"));
            if std::env::var("RISEC_SHOW").is_ok() {
                println!("{c}");
            }
            assert!(c.contains(&k.name()), "{k:?}");
        }
    }
}
