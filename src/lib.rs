//! risec: a compiler for the Rise functional array language.
//!
//! Users write a naive program (`matmul.rise`) and *sketches* of the optimised program they want;
//! risec finds an equivalent program of that shape by sketch-guided equality saturation and
//! lowers it to C. This crate currently provides the front end and equality saturation:
//!
//! ```text
//! .rise ─ syntax::lexer + syntax::parser ─▶ syntax::ast (spans) ─ elab ─▶ core::TypedProgram
//!        (logos, LALRPOP)                                (De Bruijn, inferred types)
//!   ─ core::normalize ─▶ egraph (typed e-classes) ─ runner + rules ─▶ prove: found / not found
//!   ─ interp ─▶ values (the reference semantics every rule is validated against)
//! ```
//!
//! * [`nat`]: size expressions, normalised polynomials (`(m/32)*32 == m`), hash-consed.
//! * [`types`]: hash-consed types; sizes bound by nat binders are De Bruijn indices.
//! * [`primitive`]: the primitives and their type schemes.
//! * [`syntax`]: lexer, parser and surface tree of `.rise` files.
//! * [`elab`]: names → De Bruijn indices, helper inlining, type inference, divisibility facts.
//! * [`core`]: the typed core IR, De Bruijn operations, beta-eta normal form, printer.
//! * [`egraph`]: typed Rise on egg: e-nodes, class analysis, extraction-based substitution.
//! * [`rewrite`]: rules written with names, e-matching, typed right-hand-side instantiation.
//! * [`rules`]: the named rule library and its interpreter-based validation.
//! * [`runner`]: the saturation loop with its limits; [`prove`]: `risec prove`; [`growth`]: the
//!   workloads that measure the e-graph's growth.
//! * [`stats`]: a search's statistics as serialisable data; [`units`]: durations and byte sizes.
//! * [`intern`]: the hash-consing tables behind [`nat`] and [`types`].
//! * [`interp`]: the reference interpreter and random inputs.
//! * [`diagnostics`]: errors with file:line:col and underlined source.
//! * [`codegen`]: low-level Rise to C (views, acceptors, OpenMP, vector extensions).
//! * [`bench`]: `risec bench`: versions compiled with `cc`, verified and timed against baselines.
//! * [`driver`], [`cli`]: the pipeline as one call, and the `risec` subcommands.
//!
//! ```
//! use risec::diagnostics::SourceFile;
//! let file = SourceFile::new("dot.rise",
//!     "def dot {n : nat} (xs : n.f32) (ys : n.f32) : f32 =\n  zip xs ys |> map (fun p => fst p * snd p) |> reduce (+) 0.0");
//! let program = risec::frontend::load::compile_source(&file, None).unwrap();
//! assert_eq!(risec::core::print::program_type_to_source(&program), "(n : nat) -> n.f32 -> n.f32 -> f32");
//! ```

#![warn(missing_docs)]

pub mod backend_c;
pub mod bench;
pub mod cli;
pub mod core;
pub mod diagnostics;
pub mod eqsat;
pub mod frontend;
pub mod interp;
pub mod ir;
pub mod lowlevel;
pub mod pipeline;
pub mod sketch;
pub mod support;
