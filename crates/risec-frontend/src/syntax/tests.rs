//! Tests of the parser (and, through it, the lexer): examples, precedence, types, spans, error
//! messages, nesting limits and a no-panic property test.

use super::{parse_expr, parse_module, parse_type, MAX_NESTING};
use crate::diagnostics::{Diagnostic, SourceFile};
use crate::syntax::ast::*;
use proptest::prelude::*;

const EXAMPLES: &[(&str, &str)] = &[
    (
        "dot.rise",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../..",
            "/examples/dot.rise"
        )),
    ),
    (
        "fuse-transpose.rise",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../..",
            "/examples/fuse-transpose.rise"
        )),
    ),
    (
        "matmul.rise",
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../..",
            "/examples/matmul.rise"
        )),
    ),
];

/// An expression as an s-expression, for compact assertions.
fn sx(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Name(n) => n.clone(),
        ExprKind::Nat(n) => n.to_string(),
        ExprKind::Float { value, suffix } => format!("{value:?}{}", suffix_str(*suffix)),
        ExprKind::Int { value, suffix } => format!("{value}{}", suffix_str(Some(*suffix))),
        ExprKind::Lambda(bs, body) => {
            let bs: Vec<_> = bs.iter().map(binder).collect();
            format!("(fun {} {})", bs.join(" "), sx(body))
        }
        ExprKind::Let(x, v, body) => format!("(let {} {} {})", x.name, sx(v), sx(body)),
        ExprKind::App(f, x) => format!("({} {})", sx(f), sx(x)),
        ExprKind::Pipe(a, f) => format!("(|> {} {})", sx(a), sx(f)),
        ExprKind::Compose(f, g) => format!("(>> {} {})", sx(f), sx(g)),
        ExprKind::Annot(e, t) => format!("(: {} {})", sx(e), st(t)),
        ExprKind::Binary(op, a, b) => format!("({op} {} {})", sx(a), sx(b)),
        ExprKind::Neg(a) => format!("(neg {})", sx(a)),
        ExprKind::Pair(a, b) => format!("(pair {} {})", sx(a), sx(b)),
        ExprKind::Section(op) => format!("({op})"),
    }
}

fn suffix_str(s: Option<NumSuffix>) -> &'static str {
    match s {
        None => "",
        Some(NumSuffix::F32) => "f32",
        Some(NumSuffix::F64) => "f64",
        Some(NumSuffix::I32) => "i32",
        Some(NumSuffix::I64) => "i64",
    }
}

fn binder(b: &Binder) -> String {
    match b {
        Binder::Plain(x) => x.name.clone(),
        Binder::Typed(x, t) => format!("[{} {}]", x.name, st(t)),
        Binder::Size(n) => format!("[{} nat]", n.name),
    }
}

/// A type as an s-expression.
fn st(t: &TypeExpr) -> String {
    match &t.kind {
        TypeExprKind::Name(n) => n.clone(),
        TypeExprKind::Idx(n) => format!("(idx {})", sn(n)),
        TypeExprKind::Array(n, t) => format!("(arr {} {})", sn(n), st(t)),
        TypeExprKind::Pair(a, b) => format!("(tpair {} {})", st(a), st(b)),
        TypeExprKind::Vector(n, t) => format!("(vec {} {})", sn(n), st(t)),
        TypeExprKind::Fun(a, b) => format!("(-> {} {})", st(a), st(b)),
        TypeExprKind::NatFun(n, t) => format!("(nat-> {} {})", n.name, st(t)),
    }
}

/// A size as an s-expression.
fn sn(n: &NatExpr) -> String {
    match &n.kind {
        NatExprKind::Lit(v) => v.to_string(),
        NatExprKind::Name(x) => x.clone(),
        NatExprKind::Binary(op, a, b) => format!("({op} {} {})", sn(a), sn(b)),
    }
}

fn e(source: &str) -> String {
    match parse_expr(source) {
        Ok(expr) => sx(&expr),
        Err(d) => panic!("{source:?} failed: {d:?}"),
    }
}

fn t(source: &str) -> String {
    match parse_type(source) {
        Ok(ty) => st(&ty),
        Err(d) => panic!("{source:?} failed: {d:?}"),
    }
}

/// The first error of parsing `source` as a module.
fn module_err(source: &str) -> Diagnostic {
    parse_module(source).expect_err("should fail").remove(0)
}

/// The iterative depth of an expression (AST levels, types and sizes included).
fn depth(root: &Expr) -> usize {
    enum N<'a> {
        E(&'a Expr),
        T(&'a TypeExpr),
        S(&'a NatExpr),
    }
    let mut stack = vec![(N::E(root), 1)];
    let mut max = 0;
    while let Some((node, d)) = stack.pop() {
        max = max.max(d);
        match node {
            N::E(e) => match &e.kind {
                ExprKind::Lambda(bs, body) => {
                    stack.push((N::E(body), d + 1));
                    for b in bs {
                        if let Binder::Typed(_, t) = b {
                            stack.push((N::T(t), d + 1));
                        }
                    }
                }
                ExprKind::Let(_, a, b)
                | ExprKind::App(a, b)
                | ExprKind::Pipe(a, b)
                | ExprKind::Compose(a, b)
                | ExprKind::Binary(_, a, b)
                | ExprKind::Pair(a, b) => {
                    stack.push((N::E(a), d + 1));
                    stack.push((N::E(b), d + 1));
                }
                ExprKind::Annot(a, t) => {
                    stack.push((N::E(a), d + 1));
                    stack.push((N::T(t), d + 1));
                }
                ExprKind::Neg(a) => stack.push((N::E(a), d + 1)),
                _ => {}
            },
            N::T(t) => match &t.kind {
                TypeExprKind::Name(_) => {}
                TypeExprKind::Idx(n) => stack.push((N::S(n), d + 1)),
                TypeExprKind::Array(n, t) | TypeExprKind::Vector(n, t) => {
                    stack.push((N::S(n), d + 1));
                    stack.push((N::T(t), d + 1));
                }
                TypeExprKind::Pair(a, b) | TypeExprKind::Fun(a, b) => {
                    stack.push((N::T(a), d + 1));
                    stack.push((N::T(b), d + 1));
                }
                TypeExprKind::NatFun(_, t) => stack.push((N::T(t), d + 1)),
            },
            N::S(n) => {
                if let NatExprKind::Binary(_, a, b) = &n.kind {
                    stack.push((N::S(a), d + 1));
                    stack.push((N::S(b), d + 1));
                }
            }
        }
    }
    max
}

#[test]
fn examples_parse() {
    for (name, source) in EXAMPLES {
        let module = parse_module(source)
            .unwrap_or_else(|d| panic!("{name}:\n{}", SourceFile::new(*name, *source).render(&d)));
        assert_eq!(module.defs.len(), 1, "{name}");
    }
}

#[test]
fn matmul_shape() {
    let module = parse_module(EXAMPLES[2].1).unwrap();
    let def = &module.defs[0];
    assert_eq!(def.name.name, "matmul");
    assert_eq!(&EXAMPLES[2].1[def.name.span.range()], "matmul");
    assert_eq!(&EXAMPLES[2].1[def.span.range()][..10], "def matmul");
    assert!(EXAMPLES[2].1[def.span.range()].ends_with("0.0))"));
    let names = |p: &Param| match p {
        Param::Sizes(ns) => ns
            .iter()
            .map(|n| n.name.clone())
            .collect::<Vec<_>>()
            .join(" "),
        Param::Value(x, t) => format!("{} : {}", x.name, st(t)),
    };
    let params: Vec<_> = def.params.iter().map(names).collect();
    assert_eq!(
        params,
        [
            "m n k",
            "a : (arr m (arr k f32))",
            "b : (arr k (arr n f32))"
        ]
    );
    assert_eq!(st(def.result.as_ref().unwrap()), "(arr m (arr n f32))");
    assert_eq!(
        sx(&parse_module(EXAMPLES[0].1).unwrap().defs[0].body),
        "(|> (|> ((zip xs) ys) (map (fun p (* (fst p) (snd p))))) ((reduce (+)) 0.0))"
    );
}

#[test]
fn expression_precedence() {
    assert_eq!(e("a |> f >> g"), "(|> a (>> f g))");
    assert_eq!(e("a |> f |> g"), "(|> (|> a f) g)");
    assert_eq!(e("f >> g >> h"), "(>> (>> f g) h)");
    assert_eq!(e("x * 2.0 + 1.0"), "(+ (* x 2.0) 1.0)");
    assert_eq!(e("a - b - c"), "(- (- a b) c)");
    assert_eq!(e("a / b * c"), "(* (/ a b) c)");
    assert_eq!(e("-a * b"), "(* (neg a) b)");
    assert_eq!(e("- - a"), "(neg (neg a))");
    assert_eq!(e("f -a"), "(- f a)");
    assert_eq!(e("f (-a) b"), "((f (neg a)) b)");
    assert_eq!(e("f x y"), "((f x) y)");
    assert_eq!(e("-f x"), "(neg (f x))");
    assert_eq!(e("fun x => x |> f"), "(fun x (|> x f))");
    assert_eq!(e("fun x y => x + y"), "(fun x y (+ x y))");
    assert_eq!(
        e("fun (x : f32) (n : nat) y => x"),
        "(fun [x f32] [n nat] y x)"
    );
    assert_eq!(e("let x = 1.0 in x + x"), "(let x 1.0 (+ x x))");
    assert_eq!(
        e("let x = a |> f in fun y => x"),
        "(let x (|> a f) (fun y x))"
    );
    assert_eq!(e("a |> fun x => x |> g"), "(|> a (fun x (|> x g)))");
    assert_eq!(e("f >> fun x => x"), "(>> f (fun x x))");
    assert_eq!(e("a + let y = b in y * 2.0"), "(+ a (let y b (* y 2.0)))");
    assert_eq!(e("a * - fun x => x"), "(* a (neg (fun x x)))");
    assert_eq!(e("a |> map (fun x => x)"), "(|> a (map (fun x x)))");
}

#[test]
fn annotations_sections_pairs_literals() {
    assert_eq!(e("a + b : f32"), "(: (+ a b) f32)");
    assert_eq!(e("f >> g : f32 -> f32"), "(>> f (: g (-> f32 f32)))");
    assert_eq!(e("a : n.f32 |> f"), "(|> (: a (arr n f32)) f)");
    assert_eq!(e("(x : f32)"), "(: x f32)");
    assert_eq!(e("g : (n : nat) -> n.f32"), "(: g (nat-> n (arr n f32)))");
    assert_eq!(e("fun x => x : f32"), "(fun x (: x f32))");
    assert_eq!(e("reduce (+) 0.0"), "((reduce (+)) 0.0)");
    assert_eq!(e("(-) (*) (/)"), "(((-) (*)) (/))");
    assert_eq!(e("(a, b + c)"), "(pair a (+ b c))");
    assert_eq!(e("split 32 xs"), "((split 32) xs)");
    assert_eq!(
        e("2.0f64 7i32 7i64 1.5e-3 1.0f32"),
        "((((2.0f64 7i32) 7i64) 0.0015) 1.0f32)"
    );
    assert_eq!(e("split (n*2) xs"), "((split (* n 2)) xs)");
}

#[test]
fn types() {
    assert_eq!(t("3.3.f32"), "(arr 3 (arr 3 f32))");
    assert_eq!(t("2.3.4.f32"), "(arr 2 (arr 3 (arr 4 f32)))");
    assert_eq!(t("m.k.f32"), "(arr m (arr k f32))");
    assert_eq!(t("(m/32).32.f32"), "(arr (/ m 32) (arr 32 f32))");
    assert_eq!(t("(n).f32"), "(arr n f32)");
    assert_eq!(t("((n)).f32"), "(arr n f32)");
    assert_eq!(t("(f32)"), "f32");
    assert_eq!(t("((f32))"), "f32");
    assert_eq!(t("(3).f32"), "(arr 3 f32)");
    assert_eq!(t("((n+1)).f32"), "(arr (+ n 1) f32)");
    assert_eq!(t("<4>f32"), "(vec 4 f32)");
    assert_eq!(t("n.<4>f32"), "(arr n (vec 4 f32))");
    assert_eq!(t("<n*2>f32"), "(vec (* n 2) f32)");
    assert_eq!(t("idx[n]"), "(idx n)");
    assert_eq!(t("idx[n + 1]"), "(idx (+ n 1))");
    assert_eq!(t("(n : nat) -> n.f32"), "(nat-> n (arr n f32))");
    assert_eq!(t("f32 -> f32 -> f32"), "(-> f32 (-> f32 f32))");
    assert_eq!(t("(f32 -> f32) -> f32"), "(-> (-> f32 f32) f32)");
    assert_eq!(t("(f32, n.i32)"), "(tpair f32 (arr n i32))");
    assert_eq!(t("n.(f32, f32)"), "(arr n (tpair f32 f32))");
    assert_eq!(t("(f32, f32) -> f32"), "(-> (tpair f32 f32) f32)");
    assert_eq!(t("(n.f32)"), "(arr n f32)");
    assert_eq!(t("((n : nat) -> f32)"), "(nat-> n f32)");
    assert_eq!(
        t("(a+b*c^2^d%e-f).f32"),
        "(arr (- (+ a (% (* b (^ c (^ 2 d))) e)) f) f32)"
    );
    assert_eq!(t("(n*(m+1)).f32"), "(arr (* n (+ m 1)) f32)");
}

#[test]
fn spans() {
    let src = "x * 2.0 + f y";
    let expr = parse_expr(src).unwrap();
    assert_eq!(expr.span, Span::new(0, 13));
    let ExprKind::Binary(_, a, b) = &expr.kind else {
        panic!()
    };
    assert_eq!(&src[a.span.range()], "x * 2.0");
    assert_eq!(&src[b.span.range()], "f y");
    let src = "(m/32).32.f32";
    let ty = parse_type(src).unwrap();
    assert_eq!(ty.span, Span::new(0, 13));
    let TypeExprKind::Array(n, inner) = &ty.kind else {
        panic!()
    };
    assert_eq!(&src[n.span.range()], "(m/32)");
    let ExprKind::Binary(_, a, _) = &parse_expr("(a - b) * c").unwrap().kind else {
        panic!()
    };
    assert_eq!(a.span, Span::new(0, 7));
    assert_eq!(&src[inner.span.range()], "32.f32");
    let src = "fun (x : 3.3.f32) => x";
    let expr = parse_expr(src).unwrap();
    let ExprKind::Lambda(bs, _) = &expr.kind else {
        panic!()
    };
    let Binder::Typed(x, t) = &bs[0] else {
        panic!()
    };
    assert_eq!(
        (&src[x.span.range()], &src[t.span.range()]),
        ("x", "3.3.f32")
    );
}

#[test]
fn definitions() {
    let m = parse_module("def a = 1.0\ndef b (x : f32) = x def c {n : nat} {m : nat} = n").unwrap();
    let names: Vec<_> = m.defs.iter().map(|d| d.name.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(m.defs[0].span, Span::new(0, 11));
    assert_eq!(m.defs[2].params.len(), 2);
    let m = parse_module("def one : f32 = 1.0").unwrap();
    assert_eq!(st(m.defs[0].result.as_ref().unwrap()), "f32");
    assert!(m.defs[0].params.is_empty());
    assert_eq!(parse_module("").unwrap().defs.len(), 0);
    assert_eq!(
        parse_module("// only a comment\n/* */").unwrap().defs.len(),
        0
    );
}

#[test]
fn nested_comments_in_programs() {
    let src = "/* a /* nested */ comment */ def f = x /* inside */ + // end\n y";
    assert_eq!(sx(&parse_module(src).unwrap().defs[0].body), "(+ x y)");
}

#[test]
fn missing_equals() {
    let src = "def f (x : f32) : f32 x";
    let d = module_err(src);
    assert_eq!(d.message, "unexpected `x`");
    assert_eq!(d.span, Span::new(22, 23));
    assert!(d.label.contains("`=`"), "{}", d.label);
    assert!(d.label.contains("`->`"), "{}", d.label);
}

#[test]
fn unbalanced_parens() {
    let d = module_err("def f = (x + y");
    assert_eq!(d.message, "unexpected end of file");
    assert_eq!(d.span, Span::new(14, 14));
    assert!(d.label.contains("`)`"), "{}", d.label);
    let d = module_err("def f = x + y)");
    assert_eq!(d.message, "unexpected `)`");
    assert_eq!(d.span, Span::new(13, 14));
    let d = module_err("def f = x +");
    assert_eq!(d.message, "unexpected end of file");
    assert_eq!(d.label, "expected an expression");
    let d = module_err("def f = (x +)");
    assert_eq!(d.label, "expected an expression");
}

#[test]
fn lexical_errors() {
    let d = module_err("def f = x @ y");
    assert_eq!(
        (d.message.as_str(), d.span),
        ("unexpected character `@`", Span::new(10, 11))
    );
    let d = module_err("def f = x /* never closed");
    assert_eq!(
        (d.message.as_str(), d.span),
        ("unterminated block comment", Span::new(10, 12))
    );
    let d = module_err("def f = 123456789012345678901234567890");
    assert_eq!(d.message, "number too large");
}

#[test]
fn other_errors() {
    let d = module_err("def f (x : idy[3]) = x");
    assert_eq!(d.message, "unknown type constructor `idy`");
    assert_eq!(d.span, Span::new(11, 14));
    let d = module_err("def f = a % b");
    assert_eq!(d.message, "unexpected `%`");
    assert!(d.notes[0].contains("operators on sizes"), "{d:?}");
    assert!(module_err("def f = (a, b, c)").notes[0].contains("(a, (b, c))"));
    assert_eq!(module_err("def data = 1").message, "unexpected `data`");
    let d = module_err("f x");
    assert_eq!(
        (d.message.as_str(), d.label.as_str()),
        ("unexpected `f`", "expected `def`")
    );
    let d = module_err("def f (x : ) = x");
    assert_eq!(d.label, "expected a type");
    let d = module_err("def f (x : idx[]) = x");
    assert_eq!(d.label, "expected a size");
    let text = SourceFile::new("bad.rise", "def f =\n  (x + y\n")
        .render(&[module_err("def f =\n  (x + y\n")]);
    assert!(text.contains("error: unexpected end of file"), "{text}");
    assert!(text.contains("bad.rise:3:1"), "{text}");
}

/// `def f = ` followed by `open` repeated `n` times, `core`, and `close` repeated `n` times.
fn nested(n: usize, open: &str, core: &str, close: &str) -> String {
    format!("def f = {}{core}{}", open.repeat(n), close.repeat(n))
}

fn assert_too_deep(source: &str) {
    let d = module_err(source);
    assert_eq!(d.message, "nesting too deep", "{d:?}");
    assert!(d.label.contains("more than 512 levels"), "{d:?}");
    assert!(d.span.end <= source.len());
}

#[test]
fn deep_nesting_is_an_orderly_error() {
    let n = 20_000;
    assert_too_deep(&nested(n, "(", "x", ")"));
    assert_too_deep(&nested(100_000, "(", "x", ")"));
    assert_too_deep(&nested(n, "[", "x", "]"));
    assert_too_deep(&format!("def f = x{}", " >> f".repeat(n)));
    assert_too_deep(&nested(n, "fun x => ", "x", ""));
    assert_too_deep(&nested(n, "let x = y in ", "x", ""));
    assert_too_deep(&nested(n, "-", "x", ""));
    assert_too_deep(&nested(n, "- ", "fun x => x", ""));
    assert_too_deep(&format!("def f = fun{} => x", " x".repeat(n)));
    assert_too_deep(&format!("def f{} = x", " (x : f32)".repeat(n)));
    assert_too_deep(&format!("def f (x : {}f32) = x", "2.".repeat(n)));
    assert_too_deep(&format!("def f (x : {}f32) = x", "<4>".repeat(n)));
    assert_too_deep(&format!("def f (x : {}f32) = x", "f32 -> ".repeat(n)));
    assert_too_deep(&format!("def f (x : idx[2{}]) = x", " ^ 2".repeat(n)));
}

/// Runs `f` on a thread with the stack the `risec` binary gives its compiler thread (dropping a
/// 100,000-long chain recurses once per link).
fn with_compiler_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn long_left_associated_chains_are_flat() {
    with_compiler_stack(|| {
        let n = 100_000;
        for src in [
            format!("def f = 1.0{}", " + 1.0".repeat(n)),
            format!("def f = 1.0{}", " * 2.0 - 1.0".repeat(n)),
            format!("def f = x{}", " |> f".repeat(n)),
            format!("def f = f{}", " x".repeat(n)),
            format!("def f (x : idx[1{}]) = x", " + 1".repeat(n)),
        ] {
            let m = parse_module(&src).unwrap_or_else(|e| panic!("{:?}", e[0]));
            assert_eq!(m.defs.len(), 1);
        }
    });
}

#[test]
fn deep_chains_followed_by_syntax_errors_do_not_crash() {
    let n = 100_000;
    for src in [
        format!("def f = 1.0{} +)", " + 1.0".repeat(n)),
        format!("def f = {}x)", "fun x => ".repeat(n)),
        format!("def f = {}", "- ".repeat(n)),
        format!("def f = {}", "(".repeat(n)),
    ] {
        assert!(parse_module(&src).is_err());
    }
}

#[test]
fn nesting_within_the_limit_parses() {
    let half = MAX_NESTING - 12;
    let m = parse_module(&nested(MAX_NESTING - 8, "(", "x", ")")).unwrap();
    assert_eq!(sx(&m.defs[0].body), "x");
    let m = parse_module(&format!("def f = 1.0{}", " + 1.0".repeat(half))).unwrap();
    assert_eq!(depth(&m.defs[0].body), half + 1);
    let m = parse_module(&nested(half, "fun x => ", "x", "")).unwrap();
    assert_eq!(depth(&m.defs[0].body), half + 1);
    let m = parse_module(&nested(half, "-", "x", "")).unwrap();
    assert_eq!(depth(&m.defs[0].body), half + 1);
    let d = module_err(&format!("def f = x{}", " >> f".repeat(MAX_NESTING)));
    assert_eq!(d.message, "nesting too deep");
}

/// Pieces of Rise text for the token-soup property test.
const SOUP: &[&str] = &[
    "def", "fun", "let", "in", "nat", "data", "x", "f", "map", "idx", "f32", "n", "32", "3", "0.0",
    "1.5e-3", "2.0f64", "7i32", "3.3", "=>", "->", ":", ".", ",", "=", "|>", ">>", "+", "-", "*",
    "/", "%", "^", "(", ")", "[", "]", "{", "}", "<", ">", "/*", "*/", "//", "\n", "@", "é",
];

/// Parsing never panics; a successful parse is never deeper than the limit.
fn check_no_panic(source: &str) {
    if let Ok(m) = parse_module(source) {
        for d in &m.defs {
            assert!(depth(&d.body) <= MAX_NESTING);
        }
    }
    let _ = parse_expr(source);
    let _ = parse_type(source);
}

#[test]
fn truncated_and_mangled_examples_do_not_panic() {
    for (_, source) in EXAMPLES {
        for i in 0..=source.len() {
            if source.is_char_boundary(i) {
                check_no_panic(&source[..i]);
                check_no_panic(&source[i..]);
                let mut cut = source.to_string();
                cut.remove(i.min(source.len() - 1));
                check_no_panic(&cut);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn random_strings_do_not_panic(s in any::<String>()) {
        check_no_panic(&s);
    }

    #[test]
    fn random_bytes_do_not_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        check_no_panic(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn token_soup_does_not_panic(
        pieces in proptest::collection::vec(proptest::sample::select(SOUP), 0..80),
        spaced in any::<bool>(),
    ) {
        check_no_panic(&pieces.join(if spaced { " " } else { "" }));
    }

    #[test]
    fn soup_after_a_definition_head_does_not_panic(
        pieces in proptest::collection::vec(proptest::sample::select(SOUP), 0..40),
    ) {
        check_no_panic(&format!("def f (x : n.f32) = {}", pieces.join(" ")));
        check_no_panic(&format!("def f (x : {}) = x", pieces.join(" ")));
    }
}
