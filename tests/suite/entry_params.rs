//! An entry point keeps its parameters whatever eta does inside the search (issue 21): a body
//! that ends in one call on its input (`xs |> map f` is `map f xs`) eta-reduces to `map f`,
//! and the program still takes `xs`. Each program here used to stop the C backend with
//! "internal: missing binder for parameter"; now the main job prints it with its parameters
//! and writes C that compiles cleanly.

use std::path::Path;

/// A program, a one-step sketch that makes the search rewrite it, and the C function's
/// signature.
struct Case {
    name: &'static str,
    program: &'static str,
    rules: &'static str,
    sketch: &'static str,
    signature: &'static str,
}

const CASES: [Case; 3] = [
    Case {
        name: "scale",
        program: "def scale {n : nat} (xs : n.f32) : n.f32 = xs |> map (fun x => x * 2.0)\n",
        rules: "map-seq",
        sketch: "contains(mapSeq)",
        signature: "int scale(int n, float *restrict out, const float *restrict xs);",
    },
    Case {
        name: "sumsq",
        program: "def sumsq {n : nat} (xs : n.f32) : f32 =\n  \
                  xs |> map (fun x => x * x) |> reduce (fun a b => a + b) 0.0\n",
        rules: "reduce-seq, reduce-seq-map-fusion",
        sketch: "contains(reduceSeq)",
        signature: "int sumsq(int n, float *restrict out, const float *restrict xs);",
    },
    Case {
        name: "shifted",
        program: "def shifted {n : nat} (xs : n.f32) : n.f32 =\n  \
                  xs |> map (fun x => x + 1.0) |> map (fun y => y * 3.0)\n",
        rules: "map-fusion, map-seq",
        sketch: "contains(mapSeq)",
        signature: "int shifted(int n, float *restrict out, const float *restrict xs);",
    },
];

#[test]
fn programs_whose_body_is_one_call_on_their_input_keep_their_parameters() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("entry-params");
    std::fs::create_dir_all(&dir).unwrap();
    for case in CASES {
        let program = dir.join(format!("{}.rise", case.name));
        std::fs::write(&program, case.program).unwrap();
        let sketch = dir.join(format!("{}.sk", case.name));
        std::fs::write(
            &sketch,
            format!(
                "step s {{\n  rules = [{}]\n  sketch = {}\n}}\n",
                case.rules, case.sketch
            ),
        )
        .unwrap();
        // Printed as Rise: the parameter is there.
        let o = crate::common::risec(&[
            program.to_str().unwrap(),
            "--sketch",
            sketch.to_str().unwrap(),
            "-q",
        ]);
        assert!(
            o.status.success(),
            "{}: {}",
            case.name,
            crate::common::stderr(&o)
        );
        let printed = crate::common::stdout(&o);
        assert!(printed.contains("(xs : n.f32)"), "{}: {printed}", case.name);
        // Compiled to C, which compiles cleanly.
        let c = dir.join(format!("{}.c", case.name));
        let o = crate::common::risec(&[
            program.to_str().unwrap(),
            "--sketch",
            sketch.to_str().unwrap(),
            "-o",
            c.to_str().unwrap(),
            "-q",
        ]);
        assert!(
            o.status.success(),
            "{}: {}",
            case.name,
            crate::common::stderr(&o)
        );
        let header = std::fs::read_to_string(c.with_extension("h")).unwrap();
        assert!(header.contains(case.signature), "{}: {header}", case.name);
        let cc = std::process::Command::new("cc")
            .args(["-O2", "-fopenmp", "-Wall", "-Wextra", "-Werror", "-c", "-o"])
            .arg(c.with_extension("o"))
            .arg(&c)
            .output()
            .unwrap();
        assert!(
            cc.status.success(),
            "{}: {}",
            case.name,
            String::from_utf8_lossy(&cc.stderr)
        );
    }
}
