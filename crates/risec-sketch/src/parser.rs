//! Parsing `.sk` files: the lexer's tokens through the LALRPOP grammar `grammar/sketch.lalrpop`
//! into the surface tree of [`super::ast`], with errors as [`Diagnostic`]s.

use super::ast::{Item, Name, SizeOp, SkExpr, SkKind, TyExpr, TyKind};
use super::lexer::{lex, Token};
use crate::diagnostics::parse_error::Expected;
use crate::diagnostics::Diagnostic;
use crate::frontend::syntax::ast::Span;
use lalrpop_util::ParseError;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_parens, dead_code, missing_docs)]
    grammar,
    "/sketch.rs"
);

/// Parses a whole sketch file.
pub fn parse_file(source: &str) -> Result<Vec<Item>, Vec<Diagnostic>> {
    let tokens = lex(source)?;
    grammar::FileParser::new()
        .parse(tokens)
        .map_err(|e| vec![convert_error(source, e)])
}

/// Parses one sketch expression (used by tests and by `risec` options that take a sketch).
pub fn parse_sketch(source: &str) -> Result<SkExpr, Vec<Diagnostic>> {
    let tokens = lex(source)?;
    grammar::SkParser::new()
        .parse(tokens)
        .map_err(|e| vec![convert_error(source, e)])
}

/// A size-arithmetic node of a sketch (grammar action).
pub fn size(op: SizeOp, a: SkExpr, b: SkExpr, l: usize, r: usize) -> SkExpr {
    SkExpr {
        kind: SkKind::Size(op, Box::new(a), Box::new(b)),
        span: Span::new(l, r),
    }
}

/// A type-sketch node (grammar action).
pub fn ty(kind: TyKind, l: usize, r: usize) -> TyExpr {
    TyExpr {
        kind,
        span: Span::new(l, r),
    }
}

/// `idx[n]` (grammar action); any other name before `[` is an error.
pub fn idx_type(
    name: Name,
    n: TyExpr,
    l: usize,
    r: usize,
) -> Result<TyExpr, ParseError<usize, Token, Diagnostic>> {
    if name.text != "idx" {
        return Err(ParseError::User {
            error: Diagnostic::error(
                format!("unknown type constructor `{}`", name.text),
                name.span,
                "only `idx[N]` takes a size in brackets",
            ),
        });
    }
    Ok(ty(TyKind::Idx(Box::new(n)), l, r))
}

/// How the sketch grammar's expected tokens read.
const EXPECTED: Expected<'static> = Expected {
    phrase_start: &["\"?\"", "Ident", "Num", "\"(\"", "\"contains\"", "\"fun\""],
    phrase: "a sketch",
    words: |token| match token {
        "Ident" => Some("a name"),
        "Num" => Some("a number"),
        "Quantity" => Some("a quantity such as `10s`"),
        "Str" => Some("a quoted path"),
        "RuleBody" => Some("a rule `lhs => rhs`"),
        "\"call(\"" => Some("`(`"),
        _ => None,
    },
    after_end:
        "expected an item: `import`, `param`, `require`, `budget`, `def`, `rules`, `rule` or `step`",
    invalid: "not a token of sketch files",
};

fn convert_error(source: &str, error: ParseError<usize, Token, Diagnostic>) -> Diagnostic {
    EXPECTED.diagnostic(source, error, |token, expected| {
        (matches!(token, Token::Ident(_)) && expected.iter().any(|e| e == "\"}\"")).then_some(
            "a step's fields are `sketch = …`, `rules = …`, `cost = …` and `limits = { … }`",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_spec_example() {
        let text = r#"
// lib/matmul.sk
def containsMap(n, f) = contains((map : ? -> n.? -> ?) f)
def containsReduceSeq(n, f) = contains((reduceSeq : ? -> ? -> n.? -> ?) f)
def containsAddMul = contains(add ? contains(mul))
rules split = [map-fission, split-join(32), blocked-reduce(4)]
rule map-fusion2 : map f (map g xs) => map (fun x => f (g x)) xs
step split {
  rules = split
  sketch = containsMap(m/32, containsMap(32, containsReduceSeq(k/4, containsAddMul)))
  limits = { time = 10s, nodes = 1000000 }
}
"#;
        let items = parse_file(text).unwrap();
        assert_eq!(items.len(), 6);
        assert!(matches!(&items[3], Item::Rules { rules, .. } if rules.len() == 3));
        assert!(matches!(&items[4], Item::Rule { text, .. } if text.starts_with("map f")));
        assert!(matches!(&items[5], Item::Step { fields, .. } if fields.len() == 3));
    }

    #[test]
    fn annotations_or_and_lambdas() {
        let s =
            parse_sketch("fun => mapSeq ? or (reduceSeq : ? -> ? -> (m/32).<8>f32 -> ?)").unwrap();
        assert!(matches!(s.kind, SkKind::Lambda(_)));
        let t = parse_sketch("? : (idx[n], 32.f32) -> ?").unwrap();
        assert!(matches!(t.kind, SkKind::Annot(..)));
    }

    #[test]
    fn errors_point_at_the_token() {
        let e = parse_file("step s { sketch = map ( }").unwrap_err();
        assert_eq!(e.len(), 1);
        assert!(e[0].message.contains("unexpected `}`"), "{}", e[0].message);
        assert!(e[0].label.contains("a sketch"), "{}", e[0].label);
        let e = parse_file("step s { skech = ? }").unwrap_err();
        assert!(e[0].notes[0].contains("fields"));
    }
}
