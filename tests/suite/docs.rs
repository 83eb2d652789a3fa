//! The documentation's examples are real: every `rise` block of `docs/language.md` compiles,
//! every `rise-error` block fails with the error its first comment names, and the error shown
//! in `docs/language.md` and README.md is what `risec check` prints.

use crate::common::{risec, stderr, temp_file};
use risec_core::diagnostics::SourceFile;
use risec_frontend::load::compile_source;

/// The fenced blocks of `text` whose info string is `lang`, with their line numbers.
fn blocks(text: &str, lang: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut current {
            None if line.trim_end() == format!("```{lang}") => {
                current = Some((i + 1, String::new()))
            }
            None => {}
            Some(_) if line.trim_end() == "```" => out.extend(current.take()),
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    out
}

fn language_md() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/language.md")).unwrap()
}

#[test]
fn every_example_of_the_language_reference_compiles() {
    let text = language_md();
    let examples = blocks(&text, "rise");
    assert!(examples.len() >= 8, "{} examples", examples.len());
    for (line, source) in examples {
        let file = SourceFile::new(format!("docs/language.md:{line}"), source.clone());
        // The last definition is the entry point; every other one is checked on its own too.
        if let Err(e) = compile_source(&file, None) {
            panic!(
                "the example at line {line} does not compile:\n{}",
                e.render()
            );
        }
    }
}

#[test]
fn every_error_example_fails_as_documented() {
    let text = language_md();
    let examples = blocks(&text, "rise-error");
    assert!(!examples.is_empty());
    for (line, source) in examples {
        let expected = source
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// error: "))
            .expect("an error example starts with `// error: …`");
        let file = SourceFile::new("example.rise", source.clone());
        match compile_source(&file, None) {
            Ok(_) => panic!("the error example at line {line} compiles"),
            Err(e) => assert!(
                e.render().contains(&format!("error: {expected}")),
                "line {line}: {}",
                e.render()
            ),
        }
    }
}

#[test]
fn the_documented_error_output_is_the_real_one() {
    let path = temp_file(
        "bad.rise",
        b"def f {n m : nat} (xs : n.f32) (ys : m.f32) =\n  zip xs ys\n",
    );
    let out = risec(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let real = stderr(&out).replace(path.to_str().unwrap(), "bad.rise");
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    for (name, doc) in [("docs/language.md", language_md()), ("README.md", readme)] {
        let shown = blocks(&doc, "text")
            .into_iter()
            .map(|(_, b)| b)
            .find(|b| b.contains("error: type mismatch"))
            .unwrap_or_else(|| panic!("{name} shows no type error"));
        let shown = shown
            .lines()
            .skip_while(|l| !l.starts_with("error:"))
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(shown.trim_end(), real.trim_end(), "{name}");
    }
}

#[test]
fn the_readme_stands_alone() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(
        !readme.contains("../shared"),
        "README.md points outside the repository"
    );
    assert!(readme.contains("docs/language.md"));
}
