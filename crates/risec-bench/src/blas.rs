//! OpenBLAS as a baseline where the program is a BLAS operation: the program is recognised by
//! running it and a reference Rise definition of each operation on the same random inputs
//! (the reference interpreter decides, so any way of writing the operation is recognised, and a
//! program that differs anywhere is not), and OpenBLAS is then called through a C function of
//! the program's own signature.

use super::shape::Shape;
use crate::backend_c::translate::{SizeBinding, Translator};
use crate::core::TypedProgram;
use crate::diagnostics::SourceFile;
use crate::interp::random::{random_value, Rng};
use crate::interp::{eval_nat_in, program_signature, run_program, slice_lookup};
use crate::ir::types::{ScalarType, TypeNode};
use std::fmt::Write as _;

/// The C function of the baseline.
pub const FUNCTION: &str = "baseline_blas";

/// A BLAS operation risec can compare with.
pub struct Operation {
    /// Its name in the table (`sgemv`).
    pub name: &'static str,
    /// Its reference definition in Rise; its size parameters are named after the BLAS
    /// arguments (`m`, `n`, `k`, `b`).
    rise: &'static str,
    /// Where each of the reference's size parameters is read off the program's operands:
    /// (operand: 0 the output, 1… the inputs; dimension).
    sizes_from: &'static [(usize, usize)],
    /// The C statements that compute `out` from `in0`, `in1`, … with the sizes as `int`s
    /// named as in the reference.
    body: &'static str,
}

/// The operations, each tried in turn.
pub const OPERATIONS: &[Operation] = &[
    Operation {
        name: "sdot",
        rise: "def r {n : nat} (x : n.f32) (y : n.f32) : f32 = \
               zip x y |> map (fun p => fst p * snd p) |> reduce (fun a b => a + b) 0.0",
        sizes_from: &[(1, 0)],
        body: "out[0] = cblas_sdot(n, in0, 1, in1, 1);",
    },
    Operation {
        name: "sasum",
        rise: "def r {n : nat} (x : n.f32) : f32 = \
               x |> map (fun v => select (lt v 0.0) (neg v) v) |> reduce (fun a b => a + b) 0.0",
        sizes_from: &[(1, 0)],
        body: "out[0] = cblas_sasum(n, in0, 1);",
    },
    Operation {
        name: "saxpy",
        rise: "def r {n : nat} (a : f32) (x : n.f32) (y : n.f32) : n.f32 = \
               zip x y |> map (fun p => a * fst p + snd p)",
        sizes_from: &[(2, 0)],
        body: "memcpy(out, in2, (size_t)n * sizeof(float)); cblas_saxpy(n, in0, in1, 1, out, 1);",
    },
    Operation {
        name: "sscal",
        rise: "def r {n : nat} (a : f32) (x : n.f32) : n.f32 = x |> map (fun v => a * v)",
        sizes_from: &[(2, 0)],
        body: "memcpy(out, in1, (size_t)n * sizeof(float)); cblas_sscal(n, in0, out, 1);",
    },
    Operation {
        name: "sgemv",
        rise: "def r {m n : nat} (a : m.n.f32) (x : n.f32) : m.f32 = \
               a |> map (fun row => zip row x |> map (fun p => fst p * snd p) \
               |> reduce (fun s t => s + t) 0.0)",
        sizes_from: &[(1, 0), (1, 1)],
        body: "cblas_sgemv(CblasRowMajor, CblasNoTrans, m, n, 1.0f, in0, n, in1, 1, 0.0f, out, 1);",
    },
    Operation {
        name: "sgemv (transposed)",
        rise: "def r {m n : nat} (a : m.n.f32) (x : m.f32) : n.f32 = \
               transpose a |> map (fun col => zip col x |> map (fun p => fst p * snd p) \
               |> reduce (fun s t => s + t) 0.0)",
        sizes_from: &[(1, 0), (1, 1)],
        body: "cblas_sgemv(CblasRowMajor, CblasTrans, m, n, 1.0f, in0, n, in1, 1, 0.0f, out, 1);",
    },
    Operation {
        name: "sgemm",
        rise: "def r {m n k : nat} (a : m.k.f32) (b : k.n.f32) : m.n.f32 = \
               a |> map (fun row => transpose b |> map (fun col => zip row col \
               |> map (fun p => fst p * snd p) |> reduce (fun s t => s + t) 0.0))",
        sizes_from: &[(1, 0), (2, 1), (1, 1)],
        body: "cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, in0, k, \
               in1, n, 0.0f, out, n);",
    },
    Operation {
        name: "sgemm (B transposed)",
        rise: "def r {m n k : nat} (a : m.k.f32) (b : n.k.f32) : m.n.f32 = \
               a |> map (fun row => b |> map (fun col => zip row col \
               |> map (fun p => fst p * snd p) |> reduce (fun s t => s + t) 0.0))",
        sizes_from: &[(1, 0), (2, 0), (1, 1)],
        body: "cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, in0, k, \
               in1, k, 0.0f, out, n);",
    },
    Operation {
        name: "sgemm (batched)",
        rise: "def r {b m n k : nat} (x : b.m.k.f32) (y : b.k.n.f32) : b.m.n.f32 = \
               zip x y |> map (fun p => fst p |> map (fun row => transpose (snd p) \
               |> map (fun col => zip row col |> map (fun q => fst q * snd q) \
               |> reduce (fun s t => s + t) 0.0)))",
        sizes_from: &[(1, 0), (1, 1), (2, 2), (1, 2)],
        body: "for (int i = 0; i < b; i++) cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, \
               m, n, k, 1.0f, in0 + (size_t)i * m * k, k, in1 + (size_t)i * k * n, n, 0.0f, \
               out + (size_t)i * m * n, n);",
    },
];

impl Operation {
    /// The reference program.
    fn reference(&self) -> Option<TypedProgram> {
        crate::frontend::load::compile_source(&SourceFile::new("blas.rise", self.rise), None).ok()
    }

    /// The C source of the baseline for a program of interface `shape`: the sizes of the
    /// operation read off the operands' dimensions, then the call.
    pub fn c_source(&self, shape: &Shape) -> String {
        let names: Vec<String> = (0..shape.sizes.len()).map(|i| format!("s{i}")).collect();
        let low = Translator::new(names.iter().cloned().map(SizeBinding::Named).collect(), &[]);
        let mut s = String::from(
            "/* OpenBLAS called with the benchmarked program's signature (generated). */\n\
             #include <cblas.h>\n#include <string.h>\n\n\
             void openblas_set_num_threads(int);\n\n",
        );
        let mut params: Vec<String> = names.iter().map(|n| format!("int {n}")).collect();
        params.push("float *restrict out".into());
        for (i, input) in shape.inputs.iter().enumerate() {
            params.push(if input.is_scalar() {
                format!("float in{i}")
            } else {
                format!("const float *restrict in{i}")
            });
        }
        let _ = writeln!(s, "int {FUNCTION}({}) {{", params.join(", "));
        let reference = self.reference();
        let size_names = reference
            .as_ref()
            .map(|r| r.size_params.clone())
            .unwrap_or_default();
        for (name, (operand, dim)) in size_names.iter().zip(self.sizes_from) {
            let o = if *operand == 0 {
                &shape.output
            } else {
                &shape.inputs[operand - 1]
            };
            let value = o
                .dims
                .get(*dim)
                .and_then(|d| low.nat(d).ok())
                .map_or_else(|| "0".to_string(), |ix| ix.to_c());
            let _ = writeln!(s, "    const int {name} = {value};");
        }
        for n in &names {
            let _ = writeln!(s, "    (void){n};");
        }
        let _ = writeln!(s, "    {}\n    return 0;\n}}", self.body);
        s
    }
}

/// The operation `program` computes, if it is one of [`OPERATIONS`]: the program and the
/// operation's reference agree on three random inputs at two sizes each.
pub fn recognise(program: &TypedProgram, shape: &Shape) -> Option<&'static Operation> {
    let all_f32 = shape
        .inputs
        .iter()
        .chain([&shape.output])
        .all(|o| o.scalar == ScalarType::F32);
    if !all_f32 {
        return None;
    }
    OPERATIONS
        .iter()
        .find(|op| agrees(program, shape, op).unwrap_or(false))
}

fn agrees(program: &TypedProgram, shape: &Shape, op: &Operation) -> Option<bool> {
    let reference = op.reference()?;
    let (ref_params, _) = program_signature(&reference).ok()?;
    if ref_params.len() != shape.inputs.len() {
        return Some(false);
    }
    let mut rng = Rng::new(7);
    for trial in 0..3u64 {
        // Sizes of the program's own parameters: small and different from each other.
        let sizes: Vec<u64> = (0..program.size_params.len() as u64)
            .map(|i| 3 + ((i * 2 + trial) % 5))
            .collect();
        if program.violated_fact(&sizes).is_some() {
            continue;
        }
        let lookup = slice_lookup(&sizes);
        let mut ref_sizes = Vec::new();
        for (operand, dim) in op.sizes_from {
            let o = if *operand == 0 {
                &shape.output
            } else {
                shape.inputs.get(operand - 1)?
            };
            ref_sizes.push(eval_nat_in(o.dims.get(*dim)?, &lookup).ok()?);
        }
        let (params, _) = program_signature(program).ok()?;
        let nat_env: Vec<u64> = sizes.iter().rev().copied().collect();
        let args = params
            .iter()
            .map(|t| random_value(t, &nat_env, &mut rng))
            .collect::<Result<Vec<_>, _>>()
            .ok()?;
        if !params
            .iter()
            .all(|t| matches!(t.get(), TypeNode::Scalar(_) | TypeNode::Array(..)))
        {
            return Some(false);
        }
        let Ok(mine) = run_program(program, &sizes, args.clone()) else {
            return Some(false);
        };
        let Ok(theirs) = run_program(&reference, &ref_sizes, args) else {
            return Some(false);
        };
        if !mine.approx_eq(&theirs, 1e-4, 1e-5) {
            return Some(false);
        }
    }
    Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recognised(source: &str) -> Option<&'static str> {
        let p = crate::frontend::load::compile_source(&SourceFile::new("p.rise", source), None)
            .unwrap();
        let shape = Shape::of(&p).unwrap();
        recognise(&p, &shape).map(|op| op.name)
    }

    #[test]
    fn blas_operations_are_recognised_however_they_are_written() {
        assert_eq!(
            recognised(
                "def dot {n : nat} (xs : n.f32) (ys : n.f32) : f32 = \
                 zip xs ys |> map (fun p => fst p * snd p) |> reduce (+) 0.0"
            ),
            Some("sdot")
        );
        // The product written the other way round, with its own size names.
        assert_eq!(
            recognised(
                "def mv {rows cols : nat} (a : rows.cols.f32) (v : cols.f32) : rows.f32 = \
                 a |> map (fun r => zip v r |> map (fun p => snd p * fst p) |> reduce (+) 0.0)"
            ),
            Some("sgemv")
        );
        assert_eq!(
            recognised(
                "def mtv {m n : nat} (a : m.n.f32) (x : m.f32) : n.f32 = transpose a |> \
                 map (fun c => zip c x |> map (fun p => fst p * snd p) |> reduce (+) 0.0)"
            ),
            Some("sgemv (transposed)")
        );
        assert_eq!(
            recognised(
                "def axpy {n : nat} (alpha : f32) (x : n.f32) (y : n.f32) : n.f32 = \
                 zip x y |> map (fun p => snd p + alpha * fst p)"
            ),
            Some("saxpy")
        );
    }

    #[test]
    fn other_programs_are_not() {
        // A matrix-vector product plus one is no BLAS call.
        assert_eq!(
            recognised(
                "def mv {m k : nat} (a : m.k.f32) (x : k.f32) : m.f32 = a |> map (fun row => \
                 zip row x |> map (fun p => fst p * snd p) |> reduce (+) 1.0)"
            ),
            None
        );
        assert_eq!(
            recognised("def scale {n : nat} (xs : n.f32) : n.f32 = xs |> map (fun x => x * 2.0)"),
            None
        );
    }
}
