//! Parsing `.la` files: the lexer's tokens through the LALRPOP grammar `grammar/la.lalrpop`
//! into the statements of [`super::ast`], with errors as [`Diagnostic`]s.

use super::ast::{BinOp, Expr, ExprKind, Name, Number, ShapeDecl, Stmt};
use super::lexer::{lex, Token};
use crate::diagnostics::parse_error::Expected;
use crate::diagnostics::{Diagnostic, Span};
use lalrpop_util::ParseError;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_parens, dead_code, missing_docs)]
    grammar,
    "/la.rs"
);

/// Parses a whole `.la` file.
pub fn parse_file(source: &str) -> Result<Vec<Stmt>, Vec<Diagnostic>> {
    let tokens = lex(source)?;
    grammar::FileParser::new()
        .parse(tokens)
        .map_err(|e| vec![convert_error(source, e)])
}

/// A binary node (grammar action).
pub(crate) fn bin(op: BinOp, a: Expr, b: Expr, l: usize, r: usize) -> Expr {
    Expr {
        kind: ExprKind::Bin(op, Box::new(a), Box::new(b)),
        span: Span::new(l, r),
    }
}

/// `ROWS x COLS` (grammar action): the middle name must be `x`.
pub(crate) fn shape(
    rows: Number,
    x: Name,
    cols: Number,
) -> Result<ShapeDecl, ParseError<usize, Token, Diagnostic>> {
    if x.text != "x" {
        return Err(ParseError::User {
            error: Diagnostic::error(
                format!("unexpected name `{}` in a shape", x.text),
                x.span,
                "expected `x`, as in `1000 x 500`",
            ),
        });
    }
    Ok(ShapeDecl::Matrix(rows, cols))
}

/// `ROWSxCOLS` written without spaces (grammar action): the name must be `x` and digits.
pub(crate) fn glued_shape(
    rows: Number,
    x: Name,
) -> Result<ShapeDecl, ParseError<usize, Token, Diagnostic>> {
    match x.text.strip_prefix('x') {
        Some(digits) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            let cols = Number {
                text: digits.to_string(),
                span: Span::new(x.span.start + 1, x.span.end),
            };
            Ok(ShapeDecl::Matrix(rows, cols))
        }
        _ => Err(ParseError::User {
            error: Diagnostic::error(
                format!("unexpected name `{}` in a shape", x.text),
                x.span,
                "expected `x` and the number of columns, as in `1000 x 500`",
            ),
        }),
    }
}

/// How the `.la` grammar's expected tokens read.
const EXPECTED: Expected<'static> = Expected {
    phrase_start: &["Ident", "NumText", "\"(\"", "\"-\""],
    phrase: "an expression",
    words: |token| match token {
        "Ident" => Some("a name"),
        "NumText" => Some("a number"),
        _ => None,
    },
    after_end: "expected a statement: `input`, `let`, `output` or `assert`",
    invalid: "not a token of `.la` files",
};

fn convert_error(source: &str, error: ParseError<usize, Token, Diagnostic>) -> Diagnostic {
    EXPECTED.diagnostic(source, error, |_, expected| {
        expected
            .iter()
            .any(|e| e == "\"input\"")
            .then_some("a statement starts with `input`, `let`, `output` or `assert`")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_statements_with_r_precedence() {
        let stmts = parse_file(
            "input X : 10 x 5, nnz 7\ninput a : scalar\nlet E = X - a * X %*% t(X) ^ 2\noutput s = sum(E)\nassert sum(t(X)) == sum(X)",
        )
        .unwrap();
        assert_eq!(stmts.len(), 5);
        let Stmt::Let { value, .. } = &stmts[2] else {
            panic!()
        };
        // X - ((a * (X %*% (t(X) ^ 2))))
        let ExprKind::Bin(BinOp::Sub, _, rhs) = &value.kind else {
            panic!("{value:?}")
        };
        let ExprKind::Bin(BinOp::Mul, _, mm) = &rhs.kind else {
            panic!()
        };
        assert!(matches!(mm.kind, ExprKind::Bin(BinOp::MatMul, _, _)));
    }

    #[test]
    fn errors_point_at_the_token() {
        let e = parse_file("output y = A +").unwrap_err();
        assert!(e[0].label.contains("an expression"), "{}", e[0].label);
        let e = parse_file("input X : 3 by 4").unwrap_err();
        assert!(e[0].message.contains("`by`"), "{}", e[0].message);
        let glued = parse_file("input X : 3x4\noutput y = X").unwrap();
        assert!(
            matches!(&glued[0], Stmt::Input { shape: ShapeDecl::Matrix(r, c), .. } if r.text == "3" && c.text == "4")
        );
        let e = parse_file("input X : 3 y4\noutput y = X").unwrap_err();
        assert!(e[0].message.contains("`y4`"), "{}", e[0].message);
        let e = parse_file("output y = A B").unwrap_err();
        assert!(e[0].message.contains("name `B`"), "{}", e[0].message);
    }
}
