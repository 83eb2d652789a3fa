//! The library API as a Rust caller uses it: the five calls of the main job, and errors matched
//! by variant, each carrying what a caller needs (diagnostics into the file, the failed step).

use risec::{
    emit_c, load_program, load_sketch, optimize, optimize_with_progress, parse_program,
    CodegenOptions, Error, LoadError, SearchOptions, SourceFile,
};
use std::time::Duration;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn matmul() -> risec::TypedProgram {
    load_program(format!("{ROOT}/examples/matmul.rise"), None).unwrap()
}

#[test]
fn the_main_job_through_the_api_gives_the_clis_c() {
    let program = matmul();
    let steps = load_sketch(format!("{ROOT}/sketches/matmul/loop-perm.sk"), &program).unwrap();
    let optimized = optimize(&program, &steps, &SearchOptions::default()).unwrap();
    assert_eq!(optimized.facts, ["m/32", "n/32", "k/4"]);
    let options = CodegenOptions {
        function_name: Some("rise_loop_perm".into()),
        ..CodegenOptions::new("rise_loop_perm.h")
    };
    let c = emit_c(&optimized.program, &options).unwrap();
    let shipped =
        std::fs::read_to_string(format!("{ROOT}/codegen/generated/rise_loop_perm.c")).unwrap();
    assert_eq!(c.source, shipped);
}

#[test]
fn a_type_error_is_a_program_error_with_its_diagnostic() {
    let file = SourceFile::new(
        "bad.rise",
        "def f {n m : nat} (xs : n.f32) (ys : m.f32) =\n  zip xs ys\n",
    );
    let e = parse_program(&file, None).unwrap_err();
    assert!(matches!(e, Error::Program(LoadError::Invalid(_))), "{e:?}");
    let diagnostics = e.diagnostics();
    assert_eq!(diagnostics.len(), 1);
    let (in_file, d) = diagnostics[0];
    assert_eq!(in_file.name, "bad.rise");
    assert_eq!(d.message, "type mismatch");
    assert!(e.to_string().contains("bad.rise:2:10"), "{e}");
}

#[test]
fn a_missing_file_is_a_read_error() {
    let e = load_program(format!("{ROOT}/examples/no-such-file.rise"), None).unwrap_err();
    assert!(matches!(e, Error::Program(LoadError::Read { .. })), "{e:?}");
    assert!(e.diagnostics().is_empty());
}

#[test]
fn a_bad_sketch_is_a_sketch_error_pointing_into_the_sketch_file() {
    let program = matmul();
    let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("api-bad.sk");
    std::fs::write(
        &path,
        "step s {\n  rules = map-fusion, no-such-rule\n  sketch = ?\n}\n",
    )
    .unwrap();
    let e = load_sketch(&path, &program).unwrap_err();
    let Error::Sketch(sketch) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(sketch.diagnostics.len(), 1);
    assert!(sketch.diagnostics[0].0.name.ends_with("api-bad.sk"));
    assert!(e.to_string().contains("no-such-rule"), "{e}");
    assert!(!e.diagnostics().is_empty());
}

#[test]
fn an_unreachable_sketch_is_not_found_with_the_failed_step() {
    let program = matmul();
    let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("api-unreachable.sk");
    std::fs::write(
        &path,
        "step never {\n  rules = map-fusion\n  sketch = contains(split)\n}\n",
    )
    .unwrap();
    let steps = load_sketch(&path, &program).unwrap();
    let options = SearchOptions::within(Duration::from_secs(10));
    match optimize(&program, &steps, &options) {
        Err(Error::NotFound(nf)) => {
            let step = nf.failed_step().unwrap();
            assert_eq!(step.name.as_deref(), Some("never"));
            assert!(!step.summary.found);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_high_level_program_is_a_codegen_error() {
    let e = emit_c(&matmul(), &CodegenOptions::new("mm.h")).unwrap_err();
    assert!(matches!(e, Error::Codegen(_)), "{e:?}");
    assert!(e.to_string().starts_with("cannot generate C"), "{e}");
}

#[test]
fn progress_is_reported_per_iteration_and_programs_print_as_rise() {
    let program = matmul();
    assert!(program.to_source().starts_with("def matmul {m n k : nat}"));
    let steps = load_sketch(format!("{ROOT}/sketches/matmul/blocking.sk"), &program).unwrap();
    let mut seen = Vec::new();
    let optimized = optimize_with_progress(&program, &steps, &SearchOptions::default(), &mut |p| {
        seen.push((p.step.to_string(), p.index, p.iteration.iteration))
    })
    .unwrap();
    // Iteration 0 (the e-graph as given) and then every iteration, for both steps.
    let per_step = |name: &str| seen.iter().filter(|(s, _, _)| s == name).count();
    for (i, s) in optimized.steps.iter().enumerate() {
        let name = s.name.as_deref().unwrap();
        assert_eq!(per_step(name), s.summary.iterations + 1, "{name}");
        assert!(seen
            .iter()
            .any(|(n, index, _)| n == name && *index == (i + 1, 2)));
    }
}

#[test]
fn a_missing_sketch_file_is_reported_as_unreadable() {
    let e = load_sketch(format!("{ROOT}/sketches/no-such.sk"), &matmul()).unwrap_err();
    assert!(matches!(e, Error::Sketch(_)), "{e:?}");
    let text = e.to_string();
    assert!(
        text.contains("cannot read") && text.contains("no-such.sk"),
        "{text}"
    );
}

/// Runs `f` on a thread with an ordinary 8 MiB stack, as a library caller's thread has.
fn on_an_ordinary_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .expect("the library call panicked or overflowed its stack");
}

#[test]
fn deep_programs_do_not_overflow_a_callers_stack() {
    on_an_ordinary_stack(|| {
        let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let sum = format!("def sum (x : f32) : f32 = x{}\n", " + x".repeat(99_999));
        let file = SourceFile::new("sum100k.rise", sum);
        let program = parse_program(&file, None).unwrap();
        let sketch = dir.join("api-deep.sk");
        std::fs::write(
            &sketch,
            "step any {\n  rules = [map-fusion]\n  sketch = ?\n}\n",
        )
        .unwrap();
        let steps = load_sketch(&sketch, &program).unwrap();
        let optimized = optimize(&program, &steps, &SearchOptions::default()).unwrap();
        let c = emit_c(&optimized.program, &CodegenOptions::new("sum.h")).unwrap();
        assert!(c.source.contains("x + x"));
    });
}
