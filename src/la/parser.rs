//! Parsing `.la` files: the lexer's tokens through the LALRPOP grammar `grammar/la.lalrpop`
//! into the statements of [`super::ast`], with errors as [`Diagnostic`]s.

use super::ast::{BinOp, Expr, ExprKind, Name, Number, ShapeDecl, Stmt};
use super::lexer::{lex, Token};
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

fn describe_expected(expected: &[String]) -> String {
    let expression_start = ["Ident", "NumText", "\"(\"", "\"-\""];
    let starts_expression = expression_start
        .iter()
        .all(|t| expected.iter().any(|e| e == t));
    let mut shown: Vec<String> = Vec::new();
    if starts_expression {
        shown.push("an expression".to_string());
    }
    for e in expected {
        if starts_expression && expression_start.contains(&e.as_str()) {
            continue;
        }
        let readable = match e.as_str() {
            "Ident" => "a name".to_string(),
            "NumText" => "a number".to_string(),
            quoted => format!("`{}`", quoted.trim_matches('"')),
        };
        if !shown.contains(&readable) {
            shown.push(readable);
        }
    }
    match shown.len() {
        0 => "unexpected here".to_string(),
        1 => format!("expected {}", shown[0]),
        _ => format!("expected one of: {}", shown.join(", ")),
    }
}

fn convert_error(source: &str, error: ParseError<usize, Token, Diagnostic>) -> Diagnostic {
    match error {
        ParseError::User { error } => error,
        ParseError::UnrecognizedEof { expected, .. } => Diagnostic::error(
            "unexpected end of file",
            Span::new(source.len(), source.len()),
            describe_expected(&expected),
        ),
        ParseError::UnrecognizedToken {
            token: (start, token, end),
            expected,
        } => {
            let d = Diagnostic::error(
                format!("unexpected {token}"),
                Span::new(start, end),
                describe_expected(&expected),
            );
            if expected.iter().any(|e| e == "\"input\"") {
                d.with_note("a statement starts with `input`, `let`, `output` or `assert`")
            } else {
                d
            }
        }
        ParseError::ExtraToken {
            token: (start, token, end),
        } => Diagnostic::error(
            format!("unexpected {token}"),
            Span::new(start, end),
            "expected a statement: `input`, `let`, `output` or `assert`",
        ),
        ParseError::InvalidToken { location } => Diagnostic::error(
            "invalid token",
            Span::new(location, location),
            "not a token of `.la` files",
        ),
    }
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
        let e = parse_file("output y = A B").unwrap_err();
        assert!(e[0].message.contains("name `B`"), "{}", e[0].message);
    }
}
