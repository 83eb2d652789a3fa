//! A guide step that finds no program explains why (issue 19, point 4): the sketch node where
//! the closest partial match stops, located and underlined in the `.sk` file, what the e-graph
//! has there instead, the step's rules that never fired, and the library rule that would help.

use crate::common::{risec, stderr, temp_file};
use risec::{load_program, load_sketch, optimize, Error};
use risec_sketch::closest::MissKind;
use risec_sketch::guided::SearchOptions;

/// A 2D element-wise map: the inner loop can only be tiled by `split-join-1m` (its maps are
/// partially applied after eta-reduction, so `split-join` matches only the outer one).
const SCALE2: &[u8] = b"def scale2 {m n : nat} (a : m.n.f32) : m.n.f32 =\n  \
                        map (fun row => map (fun x => x * 2.0) row) a\n";

/// A sketch that tiles the inner loop by 4, with `split-join(4)` but not `split-join-1m(4)`.
const TILE2: &[u8] = b"def containsMap(n, f) = contains((map : ? -> n.? -> ?) f)\n\
                       step tile {\n  rules = [split-join(4), map-fusion]\n  \
                       sketch = containsMap(m, containsMap(n/4, containsMap(4, contains(mul))))\n}\n";

#[test]
fn the_binary_names_the_node_the_rules_that_never_fired_and_the_missing_rule() {
    let program = temp_file("diagnose-scale2.rise", SCALE2);
    let sketch = temp_file("diagnose-tile2.sk", TILE2);
    let o = risec(&[
        program.to_str().unwrap(),
        "--sketch",
        sketch.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    // The headline and the closest partial match, as before.
    assert!(
        err.contains("step `tile`: the sketch was not satisfied"),
        "{err}"
    );
    assert!(err.contains("closest partial match"), "{err}");
    // The node, located in the step (the call that brought it in) and underlined.
    assert!(
        err.contains("no match for `(map : ? -> (n/4).? -> ?)`"),
        "{err}"
    );
    assert!(err.contains("diagnose-tile2.sk:4:27"), "{err}");
    assert!(
        err.contains("^^^^^^^^^^^^^^^ the closest partial match stops here"),
        "{err}"
    );
    // What is wanted beside what the e-graph has.
    assert!(err.contains("(a loop over n/4 elements)"), "{err}");
    assert!(
        err.contains("`map` of type `(f32 -> f32) -> n.f32 -> n.f32` (a loop over n elements)"),
        "{err}"
    );
    // The rules that never fired, and the rule to add, spelled as in a rules list.
    assert!(
        err.contains("rules of the step that never fired: `map-fusion` (no match)"),
        "{err}"
    );
    assert!(err.contains("help: add `split-join-1m(4)`"), "{err}");
}

#[test]
fn the_library_error_carries_the_diagnosis_and_its_diagnostic() {
    let program = temp_file("diagnose-lib-scale2.rise", SCALE2);
    // The definition is imported: the node is underlined at the call, the definition noted.
    let lib = temp_file(
        "diagnose-lib.sk",
        b"def containsMap(n, f) = contains((map : ? -> n.? -> ?) f)\n",
    );
    let text = String::from_utf8_lossy(TILE2).replace(
        "def containsMap(n, f) = contains((map : ? -> n.? -> ?) f)",
        &format!("import \"{}\"", lib.display()),
    );
    let sketch = temp_file("diagnose-lib-tile2.sk", text.as_bytes());
    let p = load_program(&program, None).unwrap();
    let steps = load_sketch(&sketch, &p).unwrap();
    let err = optimize(&p, &steps, &SearchOptions::default()).unwrap_err();
    let Error::NotFound(nf) = &err else {
        panic!("expected NotFound, got {err}");
    };
    let d = nf.diagnosis.as_ref().expect("a failed step is diagnosed");
    let miss = d
        .miss
        .as_ref()
        .expect("the sketch has a node with no match");
    assert_eq!(miss.kind, MissKind::Type);
    assert_eq!(miss.node, "(map : ? -> (n/4).? -> ?)");
    assert_eq!(d.never_fired[0].0, "map-fusion");
    assert!(d
        .suggestions
        .iter()
        .any(|s| s.satisfies && s.rules == ["split-join-1m(4)"]));

    let located = err.diagnostics();
    assert_eq!(located.len(), 1);
    let rendered = located[0].0.render(&[located[0].1.clone()]);
    assert!(
        rendered.contains("diagnose-lib-tile2.sk:4:27"),
        "{rendered}"
    );
    assert!(
        rendered.contains("`map : ? -> n.? -> ?`, in the definition at"),
        "{rendered}"
    );
    assert!(err.to_string().contains("help: add"), "{err}");
}

#[test]
fn a_saturated_step_is_reported_at_once_with_why_its_rule_never_fired() {
    // 4 does not divide 30: split-join(4) matches but can never apply, and the e-graph
    // saturates after two iterations; the report comes long before the 10 s limit.
    let program = temp_file(
        "diagnose-c30.rise",
        b"def f (xs : 30.f32) : 30.f32 = map (fun x => x * 2.0) xs\n",
    );
    let sketch = temp_file(
        "diagnose-c30.sk",
        b"step tile {\n  rules = [split-join(4)]\n  sketch = contains((map : ? -> 4.? -> ?) ?)\n}\n",
    );
    let o = risec(&[
        program.to_str().unwrap(),
        "--sketch",
        sketch.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("the e-graph saturated"), "{err}");
    assert!(err.contains("diagnose-c30.sk:3:22"), "{err}");
    assert!(err.contains("(a loop over 30 elements)"), "{err}");
    assert!(
        err.contains(
            "`split-join(4)` (it matches, but each match needs a size that is not a whole number"
        ),
        "{err}"
    );
    assert!(err.contains("no library rule added to the step"), "{err}");
}

#[test]
fn every_node_of_every_shipped_sketch_is_located() {
    let program = load_program("examples/matmul.rise", None).unwrap();
    let mut checked = 0;
    for entry in std::fs::read_dir("sketches/matmul").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "sk") || path.ends_with("lib.sk") {
            continue;
        }
        for step in load_sketch(&path, &program).unwrap() {
            assert_eq!(
                step.origins.nodes.len(),
                step.sketch.size(),
                "{}: step {}",
                path.display(),
                step.name
            );
            for i in 0..step.sketch.size() {
                let place = step.origins.primary(i).unwrap();
                // Underlined in the step's own file.
                assert_eq!(place.file, step.origins.main, "{}", path.display());
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} steps");
}
