//! The C backend: low-level Rise ([`TypedProgram`]) to a C function with OpenMP and GCC vector
//! extensions.
//!
//! ```text
//! TypedProgram ─ translate (views, deferred computations, acceptors) ─▶ c_ast statements
//!              ─ function (signature, size checks, temporaries, helpers) ─▶ CProgram { source, header }
//! ```
//!
//! * [`ix`]: index expressions, normalised (`(i*32 + j) / 32` is `i`).
//! * [`c_ast`]: the C syntax tree; [`c_print`] prints its statements; [`c_math`]: the math
//!   functions and their helper macros.
//! * [`view`]: views (read side), acceptors (write side), deferred computations.
//! * [`translate`]: the translation of terms.
//! * [`files`]: `risec emit-c`'s output files.
//! * [`function`]: the function around the body, and the header.
//! * [`guards`]: the overflow-proof checks of sizes, facts and element counts on entry.
//! * [`edges`]: sizes that do not divide the tiles, rounded up on entry.
//!
//! Data-layout primitives (`split`, `join`, `transpose`, `zip`, `unzip`, `fst`, `snd`,
//! `slide`, `pad`, `take`, `drop`, `asVector`, `asScalar`, `idx`, `generate`, and high-level
//! `map` in read positions) become index arithmetic; `mapSeq`/`mapPar`/`mapSeqUnroll` become
//! loops (`#pragma omp parallel for` for the outermost `mapPar`), `reduceSeq` an accumulator
//! loop (a local variable for scalars and vectors, a local array for constant-size arrays),
//! `toMem`/`let` of a computation a temporary buffer. The entry point
//! `def f {m n : nat} (a : …) (b : …) : t` becomes
//! `int f(int m, int n, float *restrict out, const float *restrict a, const float *restrict b)`.
//! Names of the program that are safe C identifiers ([`names::is_safe_c_name`]) are kept;
//! others are renamed ([`names::c_identifier`]: `int` is `p_int`, `size_t` is `p_size_t_`).
//!
//! ```
//! use risec_core::diagnostics::SourceFile;
//! let file = SourceFile::new("scale.rise",
//!     "def scale {n : nat} (xs : n.f32) : n.f32 = mapSeq (fun x => x * 2.0) xs");
//! let program = risec_frontend::load::compile_source(&file, None).unwrap();
//! let options = risec_backend::CodegenOptions::new("scale.h");
//! let c = risec_backend::emit_c(&program, &options).unwrap();
//! assert!(c.header.contains("int scale(int n, float *restrict out, const float *restrict xs);"));
//! assert!(c.source.contains("out[xs_i] = xs[xs_i] * 2.0f;"));
//! ```

// The stages below this crate, under the names the code uses (`crate::ir::…`).
#[allow(unused_imports)]
use risec_core::{core, diagnostics, interp, ir, support};
#[allow(unused_imports)]
use risec_frontend as frontend;

pub mod body;
pub mod c_ast;
pub mod c_fold;
pub mod c_math;
pub mod c_print;
pub mod c_stmt;
pub mod edges;
pub mod files;
pub mod function;
pub mod guards;
pub mod interior;
pub mod ix;
pub mod lowlevel;
pub mod names;
pub mod translate;
pub mod view;

#[cfg(test)]
mod tests;

use crate::core::TypedProgram;

/// What to generate.
#[derive(Clone, Debug, Default)]
pub struct CodegenOptions {
    /// Sizes compiled in, in the order of the entry point's size parameters (`--size`); the
    /// size parameters then disappear from the signature. `None` keeps them symbolic.
    pub sizes: Option<Vec<u64>>,
    /// The header file name the source `#include`s (`out.h` for `-o out.c`); empty: the
    /// function's name with `.h`.
    pub header_name: String,
    /// The C function's name; `None` keeps the definition's name.
    pub function_name: Option<String>,
    /// Refuse sizes that violate a divisibility fact (the function returns 1), as the kernel
    /// alone does, instead of rounding them up (the backend's `edges` module): no copies, no edge code.
    pub exact_sizes: bool,
    /// Compute `f32` scalars in `double` (locals, accumulators and arithmetic; arrays stay
    /// `float`): the precise reference the generic benchmark checks reassociated sums against.
    pub wide_scalars: bool,
}

impl CodegenOptions {
    /// Symbolic sizes, the definition's name, and this header name.
    pub fn new(header_name: &str) -> CodegenOptions {
        CodegenOptions {
            sizes: None,
            header_name: header_name.to_string(),
            function_name: None,
            exact_sizes: false,
            wide_scalars: false,
        }
    }
}

/// Generated C.
#[derive(Clone, Debug)]
pub struct CProgram {
    /// The `.c` file: includes the header, defines the function.
    pub source: String,
    /// The `.h` file: the function's declaration.
    pub header: String,
    /// The C function's name.
    pub function_name: String,
    /// The C signature, without the semicolon.
    pub signature: String,
    /// What the function does with sizes that violate the kernel's divisibility facts.
    pub sizes: edges::SizeHandling,
    /// Warnings about slow code in the function: vectors whose lanes are gathered from
    /// elements that are not consecutive in memory. The CLI prints them.
    pub warnings: Vec<String>,
}

/// A term the backend cannot translate to C, with the reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot generate C: {message}")]
pub struct CodegenError {
    /// What cannot be compiled and why.
    pub message: String,
}

impl CodegenError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> CodegenError {
        CodegenError {
            message: message.into(),
        }
    }
}

/// Compiles a low-level Rise program to a C function and its header.
pub fn emit_c(program: &TypedProgram, options: &CodegenOptions) -> Result<CProgram, CodegenError> {
    function::emit(program, options)
}
