//! Parsing `.graph` files: a recursive-descent parser over the lexer's tokens (the format is a
//! flat list of statements; a generated parser would add a build step and no power), with
//! errors as [`Diagnostic`]s that say what was expected.

use crate::ast::{Attr, AttrValue, Name, Stmt};
use crate::lexer::{lex, Spanned, Token};
use risec_core::diagnostics::{Diagnostic, Span};

/// Parses a whole `.graph` file.
pub fn parse_file(source: &str) -> Result<Vec<Stmt>, Vec<Diagnostic>> {
    let tokens = lex(source)?;
    let mut p = Parser {
        tokens,
        pos: 0,
        end: source.len(),
    };
    let mut stmts = Vec::new();
    while p.pos < p.tokens.len() {
        stmts.push(p.stmt().map_err(|d| vec![d])?);
    }
    Ok(stmts)
}

struct Parser {
    tokens: Vec<Spanned>,
    pos: usize,
    end: usize,
}

type Parsed<T> = Result<T, Diagnostic>;

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|(_, t, _)| t)
    }

    fn span(&self) -> Span {
        match self.tokens.get(self.pos) {
            Some((l, _, r)) => Span::new(*l, *r),
            None => Span::new(self.end, self.end),
        }
    }

    fn prev_end(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map_or(0, |(_, _, r)| *r)
    }

    fn unexpected(&self, expected: &str) -> Diagnostic {
        let found = match self.peek() {
            Some(t) => format!("unexpected {t}"),
            None => "unexpected end of file".to_string(),
        };
        Diagnostic::error(found, self.span(), format!("expected {expected}"))
    }

    fn bump(&mut self) -> Spanned {
        let t = self.tokens[self.pos].clone();
        self.pos += 1;
        t
    }

    fn expect(&mut self, want: Token, what: &str) -> Parsed<Span> {
        if self.peek() == Some(&want) {
            let (l, _, r) = self.bump();
            Ok(Span::new(l, r))
        } else {
            Err(self.unexpected(what))
        }
    }

    fn name(&mut self, what: &str) -> Parsed<Name> {
        match self.peek() {
            Some(Token::Ident(_)) => {
                let (l, t, r) = self.bump();
                let Token::Ident(text) = t else {
                    unreachable!()
                };
                Ok(Name {
                    text,
                    span: Span::new(l, r),
                })
            }
            _ => Err(self.unexpected(what)),
        }
    }

    fn number(&mut self, what: &str) -> Parsed<(usize, Span)> {
        match self.peek() {
            Some(Token::Num(_)) => {
                let (l, t, r) = self.bump();
                let Token::Num(text) = t else { unreachable!() };
                let span = Span::new(l, r);
                let v = text.parse::<usize>().map_err(|_| {
                    Diagnostic::error(format!("number `{text}` is too large"), span, "here")
                })?;
                Ok((v, span))
            }
            _ => Err(self.unexpected(what)),
        }
    }

    fn stmt(&mut self) -> Parsed<Stmt> {
        match self.peek() {
            Some(Token::Input) | Some(Token::Weight) => {
                let weight = self.peek() == Some(&Token::Weight);
                self.bump();
                let name = self.name("the tensor's name")?;
                self.expect(Token::Colon, "`:` and the tensor's dimensions")?;
                let dims = self.dims()?;
                Ok(Stmt::Tensor { name, weight, dims })
            }
            Some(Token::Let) => self.let_stmt(),
            Some(Token::Output) => {
                self.bump();
                let mut names = vec![self.name("the name of a value")?];
                while self.peek() == Some(&Token::Comma) {
                    self.bump();
                    names.push(self.name("the name of a value")?);
                }
                Ok(Stmt::Output { names })
            }
            _ => Err(self.unexpected("a statement: `input`, `weight`, `let` or `output`")),
        }
    }

    /// `D x D x …`; `4x8` (glued) is read as `4 x 8`.
    fn dims(&mut self) -> Parsed<Vec<(usize, Span)>> {
        let mut dims = vec![self.number("a dimension (a whole number)")?];
        loop {
            match self.peek() {
                Some(Token::Ident(x)) if x == "x" => {
                    self.bump();
                    dims.push(self.number("a dimension after `x`")?);
                }
                Some(Token::Ident(x))
                    if x.len() > 1
                        && x.starts_with('x')
                        && x[1..].bytes().all(|b| b.is_ascii_digit()) =>
                {
                    let (l, t, r) = self.bump();
                    let Token::Ident(x) = t else { unreachable!() };
                    let span = Span::new(l + 1, r);
                    let v = x[1..].parse::<usize>().map_err(|_| {
                        Diagnostic::error(
                            format!("dimension `{}` is too large", &x[1..]),
                            span,
                            "here",
                        )
                    })?;
                    dims.push((v, span));
                }
                _ => return Ok(dims),
            }
        }
    }

    fn let_stmt(&mut self) -> Parsed<Stmt> {
        let (start, _, _) = self.bump();
        let mut names = vec![self.name("the name of the value bound")?];
        while self.peek() == Some(&Token::Comma) {
            self.bump();
            names.push(self.name("the name of a value bound")?);
        }
        self.expect(Token::Eq, "`=` and an operator")?;
        let op = self.name("an operator, e.g. `matmul`")?;
        self.expect(Token::LParen, "`(` and the operator's arguments")?;
        let mut args = Vec::new();
        let mut attrs = Vec::new();
        if self.peek() != Some(&Token::RParen) {
            loop {
                let key = self.name("an operand's name or `KEY=VALUE`")?;
                if self.peek() == Some(&Token::Eq) {
                    self.bump();
                    let value = match self.peek() {
                        Some(Token::Num(_)) => AttrValue::Int(self.number("")?.0 as i64),
                        Some(Token::Ident(_)) => AttrValue::Word(self.name("")?.text),
                        _ => return Err(self.unexpected("a value: a whole number or a word")),
                    };
                    let span = Span::new(key.span.start, self.prev_end());
                    attrs.push(Attr { key, value, span });
                } else {
                    if !attrs.is_empty() {
                        return Err(Diagnostic::error(
                            format!("operand `{}` after an attribute", key.text),
                            key.span,
                            "operands come first, then `KEY=VALUE` attributes",
                        ));
                    }
                    args.push(key);
                }
                match self.peek() {
                    Some(Token::Comma) => {
                        self.bump();
                    }
                    Some(Token::RParen) => break,
                    _ => return Err(self.unexpected("`,` or `)`")),
                }
            }
        }
        self.expect(Token::RParen, "`)`")?;
        let span = Span::new(start, self.prev_end());
        Ok(Stmt::Let {
            names,
            op,
            args,
            attrs,
            span,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_statement() {
        let s = parse_file(
            "input x : 1 x 64x56 x 56\nweight w : 64 x 64 x 1 x 1\n\
             let y = conv2d(x, w, stride=1, pad=0, act=relu)\nlet a, b = split(y, axis=1, at=32)\noutput a, b",
        )
        .unwrap();
        assert_eq!(s.len(), 5);
        match &s[0] {
            Stmt::Tensor { dims, weight, .. } => {
                assert!(!weight);
                assert_eq!(
                    dims.iter().map(|d| d.0).collect::<Vec<_>>(),
                    [1, 64, 56, 56]
                );
            }
            other => panic!("{other:?}"),
        }
        match &s[2] {
            Stmt::Let {
                op, args, attrs, ..
            } => {
                assert_eq!(op.text, "conv2d");
                assert_eq!(args.len(), 2);
                assert_eq!(attrs[2].value, AttrValue::Word("relu".into()));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn says_what_was_expected() {
        let e = parse_file("input x : 4 x\n").unwrap_err();
        assert!(e[0].label.contains("dimension after `x`"), "{:?}", e[0]);
        let e = parse_file("let y = relu x").unwrap_err();
        assert!(e[0].label.contains("`(`"), "{:?}", e[0]);
        let e = parse_file("let y = f(stride=1, x)").unwrap_err();
        assert!(e[0].message.contains("after an attribute"), "{:?}", e[0]);
    }
}
