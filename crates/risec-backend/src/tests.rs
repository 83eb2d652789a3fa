//! Unit tests of the backend: generated text for small programs and the errors for terms it
//! cannot translate. (Compiling and running the C is in `tests/suite/codegen_c.rs`.)

use super::{emit_c, CodegenOptions};
use crate::diagnostics::SourceFile;

fn compile(src: &str) -> Result<String, String> {
    let p = crate::frontend::load::compile_source(&SourceFile::new("t.rise", src), None)
        .map_err(|e| e.render())?;
    emit_c(&p, &CodegenOptions::new("t.h"))
        .map(|c| c.source)
        .map_err(|e| e.to_string())
}

#[test]
fn map_par_is_an_openmp_loop_and_map_seq_a_plain_one() {
    let c = compile(
        "def f {n m : nat} (x : n.m.f32) : n.m.f32 = x |> mapPar (fun r => mapSeq (fun v => v + 1.0) r)",
    )
    .unwrap();
    assert!(
        c.contains(
            "#pragma omp parallel for\n    for (int x_row = 0; x_row < n; x_row++) { // mapPar"
        ),
        "{c}"
    );
    assert!(
        c.contains("for (int x_i = 0; x_i < m; x_i++) { // mapSeq"),
        "{c}"
    );
    assert!(
        c.contains("out[x_row * m + x_i] = x[x_row * m + x_i] + 1.0f;"),
        "{c}"
    );
}

#[test]
fn nested_map_par_runs_sequentially_inside_the_parallel_loop() {
    let c = compile(
        "def f {n m : nat} (x : n.m.f32) : n.m.f32 = x |> mapPar (fun r => mapPar (fun v => v + 1.0) r)",
    )
    .unwrap();
    assert_eq!(c.matches("#pragma omp parallel for").count(), 1, "{c}");
    assert!(
        c.contains("mapPar (nested in a parallel loop: sequential)"),
        "{c}"
    );
}

#[test]
fn broadcasts_are_initialisers_and_temporaries_are_aligned() {
    let c = compile(
        "def f {n : nat} (s : f32) (x : (n*8).f32) : (n*8).f32 = \
         x |> asVector 8 |> mapSeq (fun v => v * vectorFromScalar s) |> toMem |> mapSeq (fun v => v + v) |> asScalar",
    )
    .unwrap();
    assert!(c.contains("(f32x8){s, s, s, s, s, s, s, s}"), "{c}");
    assert!(!c.contains("+ s"), "{c}");
    assert!(
        c.contains("f32x8_load(&x["),
        "inputs are not known to be aligned: {c}"
    );
    assert!(
        c.contains("f32x8_load_aligned(&mem["),
        "temporaries are: {c}"
    );
    // Kept between calls (reused), handed back at the end of every call.
    assert!(
        c.contains("= rise_temp_get(rise_kept, &f_temps[0], "),
        "{c}"
    );
    assert!(c.contains("rise_temp_put(rise_kept, mem);"), "{c}");
    assert!(c.contains("void f_release_temporaries(void)"), "{c}");
}

#[test]
fn join_on_the_output_side_is_index_arithmetic() {
    let c = compile(
        "def f {n : nat} (x : (n*4).f32) : (n*4).f32 = x |> split 4 |> mapSeq (fun r => mapSeq (fun v => v * v) r) |> join",
    )
    .unwrap();
    assert!(
        c.contains("out[x_blk * 4 + x_i] = x[x_blk * 4 + x_i] * x[x_blk * 4 + x_i];"),
        "{c}"
    );
    assert!(!c.contains("tmp"), "no temporary: {c}");
}

#[test]
fn facts_become_runtime_checks_before_anything_is_written() {
    let c = compile("def f {m : nat} (x : ((m/32)*32).f32) : m.f32 = x |> split 32 |> mapSeq (mapSeq (fun v => v)) |> join").unwrap();
    let check = c
        .find("% 32 != 0) return 1;")
        .expect("a divisibility check");
    let first_store = c.find("out[").unwrap();
    assert!(check < first_store, "{c}");
    assert!(c.contains("if (m <= 0) return 1;"), "{c}");
}

#[test]
fn a_map_in_a_write_position_is_an_error() {
    let e = compile("def f {n : nat} (x : n.f32) : n.f32 = map (fun v => v + 1.0) x").unwrap_err();
    assert!(e.contains("high-level `map` is in a write position"), "{e}");
}

#[test]
fn a_high_level_reduce_is_an_error() {
    let e = compile(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../..",
        "/examples/dot.rise"
    )))
    .unwrap_err();
    assert!(e.contains("`reduce` is high-level"), "{e}");
}

#[test]
fn a_function_result_is_an_error() {
    let e = compile("def f (x : f32) = fun (y : f32) => x + y").unwrap_err();
    assert!(
        e.contains("only scalars and arrays of scalars can be returned"),
        "{e}"
    );
}

#[test]
fn a_symbolic_temporary_inside_map_par_is_one_slice_per_thread() {
    let c = compile(
        "def f {n m : nat} (x : n.m.f32) : n.m.f32 = x |> mapPar (fun r => toMem (mapSeq (fun v => v * 2.0) r) |> mapSeq (fun v => v + 1.0))",
    )
    .unwrap();
    // One buffer for every thread, allocated once per call; each iteration takes its thread's
    // slice, a multiple of 64 bytes apart.
    assert!(
        c.contains("(((size_t)(m) + 15) / 16 * 16) * RISE_THREADS() * sizeof(float)"),
        "{c}"
    );
    assert!(
        c.contains("float *restrict mem = mem_threads + (size_t)RISE_THREAD() * (((size_t)(m) + 15) / 16 * 16);"),
        "{c}"
    );
}

#[test]
fn vectors_gathered_from_strided_elements_are_warned_about() {
    let compile_warnings = |src: &str| {
        let p =
            crate::frontend::load::compile_source(&SourceFile::new("t.rise", src), None).unwrap();
        emit_c(&p, &CodegenOptions::new("t.h")).unwrap().warnings
    };
    // Vectors along a column: 16 loads a row apart each.
    let w = compile_warnings(
        "def f {k : nat} (a : (16*k).16.f32) : 16.(16*k).f32 = \
         a |> transpose |> mapSeq (fun col => col |> asVector 16 |> mapSeq (fun v => v + v) |> asScalar)",
    );
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("`asVector 16` of `a` gathers each vector's 16 lanes"),
        "{w:?}"
    );
    // Along a row: one load each, no warning.
    let w = compile_warnings(
        "def f {k : nat} (a : 16.(16*k).f32) : 16.(16*k).f32 = \
         a |> mapSeq (fun row => row |> asVector 16 |> mapSeq (fun v => v + v) |> asScalar)",
    );
    assert!(w.is_empty(), "{w:?}");
}

#[test]
fn a_program_that_transposes_copies_in_tiles() {
    let c = compile("def f {n m : nat} (a : n.m.f32) : m.n.f32 = transpose a").unwrap();
    // Tiles of 32 x 32, the last ones cut to the sizes.
    assert!(c.contains("tile_i < ((m + 31) / 32)"), "{c}");
    assert!(
        c.contains("i < (m - tile_i * 32 < 32 ? m - tile_i * 32 : 32)"),
        "{c}"
    );
    // A copy that reads along rows stays one loop per dimension.
    let c = compile("def f {n m : nat} (a : n.m.f32) : n.m.f32 = a |> split 1 |> join").unwrap();
    assert!(!c.contains("tile_i"), "{c}");
}

#[test]
fn unrolling_a_symbolic_loop_is_an_error() {
    let e =
        compile("def f {n : nat} (x : n.f32) : n.f32 = mapSeqUnroll (fun v => v) x").unwrap_err();
    assert!(e.contains("unrolling needs a constant size"), "{e}");
}

#[test]
fn compiled_in_sizes_violating_a_fact_are_an_error() {
    let p = crate::frontend::load::compile_source(
        &SourceFile::new("t.rise", "def f {m : nat} (x : ((m/32)*32).f32) : m.f32 = x |> split 32 |> mapSeq (mapSeq (fun v => v)) |> join"),
        None,
    )
    .unwrap();
    let mut o = CodegenOptions::new("t.h");
    o.sizes = Some(vec![48]);
    let e = emit_c(&p, &o).unwrap_err();
    assert!(e.message.contains("`m/32` is a whole number"), "{e}");
    o.sizes = Some(vec![64]);
    let c = emit_c(&p, &o).unwrap();
    assert!(
        c.signature == "int f(float *restrict out, const float *restrict x)",
        "{}",
        c.signature
    );
    assert!(c.source.contains("< 2;"), "{}", c.source);
}

#[test]
fn a_fractional_size_without_its_fact_is_an_error() {
    let mut p = crate::frontend::load::compile_source(
        &SourceFile::new("t.rise", "def f {m : nat} (x : ((m/32)*32).f32) : m.f32 = x |> split 32 |> mapSeq (mapSeq (fun v => v)) |> join"),
        None,
    )
    .unwrap();
    p.facts.clear();
    let e = emit_c(&p, &CodegenOptions::new("t.h")).unwrap_err();
    assert!(
        e.message
            .contains("the size `m/32` is not known to be a whole number"),
        "{e}"
    );
}

#[test]
fn maps_that_only_rearrange_are_written_through_without_a_temporary() {
    // The rows computed by the mapSeq are written transposed, column-block by column-block.
    let c = compile(
        "def f {n : nat} (x : n.(4*8).f32) : n.(4*8).f32 = \
         x |> mapSeq (fun r => r |> split 8 |> mapSeq (fun b => mapSeq (fun v => v * 2.0) b)) \
           |> mapSeq (fun r => join r)",
    )
    .unwrap();
    assert!(!c.contains("rise_temp_alloc") && !c.contains("tmp["), "{c}");
    assert!(c.contains("out[x_row * 32 + "), "{c}");
}

#[test]
fn a_small_tile_accumulator_stays_in_registers_and_updates_the_output_in_place() {
    // An outer reduction accumulating into the output; each step loads 2×8 tiles of it into a
    // register accumulator, adds 4 vectors, and stores them back.
    let c = compile(
        "def f {n : nat} (xs : n.2.8.f32) : 2.8.f32 = \
         xs |> reduceSeq (fun acc x => \
           zip (acc |> split 2) (x |> split 2) |> mapSeq (fun p => \
             generate (fun (i : idx[4]) => snd p) \
             |> reduceSeq (fun t y => zip t y |> mapSeqUnroll (fun q => \
                  zip (asVector 8 (fst q)) (asVector 8 (snd q)) |> mapSeqUnroll (fun v => fst v + snd v) |> asScalar)) \
                (fst p)) |> join) \
           (generate (fun i => generate (fun j => 0.0)))",
    )
    .unwrap();
    assert!(c.contains("small enough to stay in registers"), "{c}");
    // No second copy of the output for the outer reduction: the tile is read before it is
    // written back.
    assert!(!c.contains("next"), "{c}");
    assert!(c.contains("f32x8_store"), "{c}");
}

#[test]
fn a_vector_of_one_repeated_element_is_a_broadcast() {
    let c = compile(
        "def f {n : nat} (a : n.f32) (b : n.8.f32) : n.8.f32 = \
         zip a b |> mapSeq (fun p => \
           zip (generate (fun (j : idx[8]) => fst p) |> asVector 8) (snd p |> asVector 8) \
           |> mapSeq (fun v => fst v * snd v) |> asScalar)",
    )
    .unwrap();
    assert!(c.contains("(f32x8){s, s, s, s, s, s, s, s}"), "{c}");
}

/// A reduction whose destination is a block of columns of the output (reached through
/// `transpose` and `join`) accumulates there, read back where it is written: no temporary, no
/// copy; the zeroing of each block runs in parallel, as top-level copies do.
#[test]
fn a_reduction_into_a_block_of_columns_accumulates_in_the_output() {
    let c = compile(
        "def f {n m k : nat} (x : k.n.(m*4).f32) : n.(m*4).f32 = \
         x |> map (map (split 4)) |> map transpose |> transpose \
           |> mapSeq (fun blk => blk |> reduceSeq (fun acc row => zip acc row \
                |> mapPar (fun p => zip (fst p) (snd p) |> mapSeq (fun q => fst q + snd q))) \
              (generate (fun i => generate (fun j => 0.0)))) \
           |> transpose |> map join",
    )
    .unwrap();
    assert!(!c.contains("rise_temp_get(rise_kept"), "no temporary: {c}");
    assert!(
        c.contains("// reduceSeq: initialise the accumulator out"),
        "{c}"
    );
    assert_eq!(c.matches("#pragma omp parallel for").count(), 2, "{c}");
    let update = c
        .lines()
        .find(|l| l.contains("out[") && l.contains(" = out["))
        .unwrap_or_else(|| panic!("an in-place update of out: {c}"));
    let (lhs, rhs) = update.trim().split_once(" = ").unwrap();
    assert!(rhs.starts_with(lhs), "reads where it writes: {update}");
}

#[test]
fn the_printer_derives_pragmas_comments_casts_and_parentheses_from_the_tree() {
    use super::c_ast::{print_stmts, CExpr, CType, LoopOrigin, Place, Schedule, Stmt};
    use super::ix::Ix;
    use crate::ir::primitive::Primitive;
    use crate::ir::types::ScalarType;
    let f32 = CType {
        scalar: ScalarType::F32,
        lanes: 1,
    };
    let n = Ix::size("n");
    let i = Ix::loop_var("i", &n);
    let minus_inf = CExpr::Neg(std::rc::Rc::new(CExpr::Lit("__builtin_inff()".into())));
    let store = Stmt::Store(
        Place::Mem {
            buf: "out".into(),
            idx: i.clone(),
            ty: f32,
            aligned: false,
        },
        CExpr::Bin(
            super::c_ast::BinOp::Add,
            std::rc::Rc::new(CExpr::Var("acc".into())),
            std::rc::Rc::new(minus_inf.clone()),
        ),
    );
    let stmts = vec![
        Stmt::Decl {
            ty: f32,
            name: "acc".into(),
            init: Some(minus_inf),
        },
        Stmt::For {
            var: "i".into(),
            extent: n.clone(),
            origin: LoopOrigin::Copy,
            schedule: Schedule::Parallel,
            body: vec![Stmt::For {
                var: "j".into(),
                extent: Ix::constant(4),
                origin: LoopOrigin::Primitive(Primitive::MapPar),
                schedule: Schedule::NestedParallel,
                body: vec![store],
                limit: None,
            }],
            limit: None,
        },
        Stmt::Unrolled {
            origin: LoopOrigin::Primitive(Primitive::MapSeqUnroll),
            iteration: 2,
            body: Vec::new(),
        },
    ];
    let mut c = String::new();
    print_stmts(&stmts, 0, &mut c);
    assert_eq!(
        c,
        "float acc = -__builtin_inff();\n\
         #pragma omp parallel for\n\
         for (int i = 0; i < n; i++) { // copy\n    \
         for (int j = 0; j < 4; j++) { // mapPar (nested in a parallel loop: sequential)\n        \
         out[i] = acc + (-__builtin_inff());\n    \
         }\n\
         }\n\
         { // mapSeqUnroll: iteration 2\n\
         }\n"
    );
    assert!(stmts[1].mentions("out") && stmts[1].mentions("n") && !stmts[1].mentions("acc2"));
    let wide = CExpr::WideIndex(n.mul(&Ix::size("m")).div(&Ix::constant(32)));
    assert_eq!(wide.to_c(), "(((long long)m * (long long)n) / 32)");
}

#[test]
fn unsafe_c_names_are_renamed_and_ordinary_ones_kept() {
    use super::names::{c_identifier, is_safe_c_name};
    for ok in [
        "a",
        "xs",
        "m",
        "n",
        "k",
        "acc1",
        "a_row",
        "f32",
        "matmul",
        "p_int",
        "rise_naive",
    ] {
        assert!(is_safe_c_name(ok), "{ok}");
        assert_eq!(c_identifier(ok, &|_| false), ok);
    }
    for bad in [
        "int",
        "for",
        "restrict",
        "bool",
        "INT_MAX",
        "NULL",
        "EOF",
        "M_PI",
        "FILE",
        "N",
        "size_t",
        "int32_t",
        "memcpy",
        "free",
        "linux",
        "unix",
        "atomic_flag",
        "_Bool",
        "__x",
        "_y",
        "rise_kept",
        "rise_temp_get",
        "f32x8",
        "f32x8_load",
        "main",
        "l_",
        "v_",
        "9lives",
        "x'",
        "",
    ] {
        assert!(!is_safe_c_name(bad), "{bad}");
        let c = c_identifier(bad, &|_| false);
        assert!(is_safe_c_name(&c), "{bad} -> {c}");
    }
    assert_eq!(c_identifier("int", &|_| false), "p_int");
    assert_eq!(c_identifier("INT_MAX", &|_| false), "p_INT_MAX");
    assert_eq!(c_identifier("size_t", &|_| false), "p_size_t_");
    assert_eq!(c_identifier("x'", &|_| false), "x_");
    assert_eq!(c_identifier("int", &|n| n == "p_int"), "p_int_");
}
