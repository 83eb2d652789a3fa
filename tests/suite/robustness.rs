//! No input may crash the front end: random bytes, random token sequences and truncations of the
//! examples all end in a typed program or in diagnostics, never a panic or a stack overflow.

use proptest::prelude::*;
use risec_core::diagnostics::SourceFile;
use risec_frontend::load::compile_source;

const EXAMPLES: [&str; 3] = [
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/matmul.rise")),
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/dot.rise")),
    include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/fuse-transpose.rise"
    )),
];

/// Runs the whole front end and, on failure, renders the diagnostics (which must not be empty).
fn front_end(text: &str) {
    let file = SourceFile::new("fuzz.rise", text);
    if let Err(e) = compile_source(&file, None) {
        assert!(
            !e.diagnostics.is_empty(),
            "an error without diagnostics for {text:?}"
        );
        let rendered = e.render();
        assert!(rendered.contains("error"), "{rendered}");
    }
}

/// Runs `f` on a thread with the stack the `risec` binary gives its compiler thread.
fn with_compiler_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

const TOKENS: &[&str] = &[
    "def",
    "fun",
    "let",
    "in",
    "nat",
    "=>",
    "->",
    ":",
    ".",
    ",",
    "=",
    "|>",
    ">>",
    "+",
    "-",
    "*",
    "/",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    "x",
    "y",
    "f",
    "n",
    "m",
    "map",
    "reduce",
    "zip",
    "split",
    "join",
    "transpose",
    "fst",
    "snd",
    "f32",
    "i32",
    "idx",
    "32",
    "4",
    "0.0",
    "2.5",
    "7i32",
    "1.0f64",
    "slide",
    "asVector",
    "vectorFromScalar",
    "generate",
    "(+)",
    "//c\n",
    "/*c*/",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_text_never_crashes(text in "\\PC{0,200}") {
        front_end(&text);
    }

    #[test]
    fn random_bytes_never_crash(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        front_end(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_token_sequences_never_crash(tokens in proptest::collection::vec(0..TOKENS.len(), 0..60)) {
        let text: Vec<&str> = tokens.iter().map(|&i| TOKENS[i]).collect();
        front_end(&format!("def f {{n m : nat}} (x : n.m.f32) = {}", text.join(" ")));
        front_end(&text.join(" "));
    }

    #[test]
    fn mutated_examples_never_crash(which in 0..EXAMPLES.len(), at in 0usize..400, token in 0..TOKENS.len()) {
        let src = EXAMPLES[which];
        let mut at = at.min(src.len());
        while !src.is_char_boundary(at) { at -= 1; }
        front_end(&format!("{}{}{}", &src[..at], TOKENS[token], &src[at..]));
    }
}

#[test]
fn every_truncation_of_every_example_is_handled() {
    for src in EXAMPLES {
        for end in (0..=src.len()).filter(|&i| src.is_char_boundary(i)) {
            front_end(&src[..end]);
        }
    }
}

#[test]
fn deep_nesting_of_every_kind_is_an_error_or_a_result() {
    with_compiler_stack(|| {
        let n = 20_000;
        let cases = [
            format!(
                "def f (x : f32) : f32 = {}x{}",
                "(".repeat(n),
                ")".repeat(n)
            ),
            format!("def f (x : f32) : f32 = x{}", " + x".repeat(n)),
            format!("def f (x : f32) : f32 = {}x", "-".repeat(n)),
            format!("def f = {}1.0", "fun (x : f32) => ".repeat(n)),
            format!("def f (x : f32) : f32 = x{}", " |> (fun y => y)".repeat(n)),
            format!("def f (x : {}f32) = x", "1.".repeat(n)),
            format!("def f (x : {}f32{}) = x", "(f32, ".repeat(n), ")".repeat(n)),
        ];
        for src in cases {
            front_end(&src);
        }
    });
}
