//! The tokens of `.sk` sketch files and the lexer that produces them.
//!
//! Sketch files share Rise's comments and operators but have their own keywords (`import`,
//! `def`, `rules`, `rule`, `step`, `sketch`, `cost`, `limits`, `contains`, `or`, `fun`, `param`,
//! `in`, `require`, `budget`), comparisons for parameter constraints (`==`, `!=`, `<=`, `>=`), rule
//! names with dashes (`split-join`), quantities with units (`10s`, `4GiB`) and strings (import
//! paths). [`lex`] adds two context-dependent tokens the grammar needs:
//! * `(` written directly after a name, with no space, is a call (`containsMap(m/32, f)`),
//!   while `map (f)` is an application to a parenthesised sketch;
//! * the text of a user rule after `rule NAME :` is one [`Token::RuleBody`] (it is Rise syntax,
//!   compiled by the rule compiler): it runs to the end of the line and over the following
//!   indented lines.

use crate::diagnostics::Diagnostic;
use crate::frontend::syntax::ast::Span;
use logos::Logos;
use std::fmt;

/// A token with its byte span, the triple the parser consumes.
pub type Spanned = (usize, Token, usize);

/// The tokens of a sketch file.
#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
pub enum Token {
    /// `import`
    #[token("import")]
    Import,
    /// `def`
    #[token("def")]
    Def,
    /// `rules`
    #[token("rules")]
    Rules,
    /// `rule`
    #[token("rule")]
    Rule,
    /// `step`
    #[token("step")]
    Step,
    /// `sketch`
    #[token("sketch")]
    Sketch,
    /// `cost`
    #[token("cost")]
    Cost,
    /// `limits`
    #[token("limits")]
    Limits,
    /// `scheduler`
    #[token("scheduler")]
    Scheduler,
    /// `contains`
    #[token("contains")]
    Contains,
    /// `or`
    #[token("or")]
    Or,
    /// `fun`
    #[token("fun")]
    Fun,
    /// `param`
    #[token("param")]
    Param,
    /// `in`
    #[token("in")]
    In,
    /// `require`
    #[token("require")]
    Require,
    /// `budget`
    #[token("budget")]
    Budget,
    /// A name; may contain dashes (`split-join`, `lift-reduce-seq-2`), so sizes are subtracted with
    /// spaces around the `-` (`m - 1`).
    #[regex(r"[A-Za-z_][A-Za-z0-9_']*(-[A-Za-z0-9][A-Za-z0-9_']*)*", |l| l.slice().to_string())]
    Ident(String),
    /// A natural number.
    #[regex(r"[0-9]+", |l| l.slice().parse::<u64>().ok())]
    Nat(u64),
    /// A number with a unit: `10s`, `500ms`, `4GiB`.
    #[regex(r"[0-9]+(\.[0-9]+)?[A-Za-z]+", |l| l.slice().to_string())]
    Quantity(String),
    /// A string literal (import paths), without its quotes.
    #[regex(r#""[^"\n]*""#, allow_greedy = true, callback = |l| { let s = l.slice(); s[1..s.len() - 1].to_string() })]
    Str(String),
    /// `/* … */` comments (nesting allowed) are skipped by [`lex`]; this token only opens one.
    #[token("/*")]
    CommentOpen,
    /// `?`
    #[token("?")]
    Hole,
    /// `(`
    #[token("(")]
    LParen,
    /// `(` directly after a name: a call of a definition.
    CallParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `[`
    #[token("[")]
    LBracket,
    /// `]`
    #[token("]")]
    RBracket,
    /// `{`
    #[token("{")]
    LBrace,
    /// `}`
    #[token("}")]
    RBrace,
    /// `,`
    #[token(",")]
    Comma,
    /// `=`
    #[token("=")]
    Eq,
    /// `=>`
    #[token("=>")]
    FatArrow,
    /// `->`
    #[token("->")]
    Arrow,
    /// `:`
    #[token(":")]
    Colon,
    /// `.`
    #[token(".")]
    Dot,
    /// `<`
    #[token("<")]
    Lt,
    /// `>`
    #[token(">")]
    Gt,
    /// `==`
    #[token("==")]
    EqEq,
    /// `!=`
    #[token("!=")]
    NotEq,
    /// `<=`
    #[token("<=")]
    LtEq,
    /// `>=`
    #[token(">=")]
    GtEq,
    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `*`
    #[token("*")]
    Star,
    /// `/`
    #[token("/")]
    Slash,
    /// `%`
    #[token("%")]
    Percent,
    /// The Rise text of a user rule (`lhs => rhs`), produced by [`lex`] after `rule NAME :`.
    RuleBody(String),
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Ident(s) => write!(f, "name `{s}`"),
            Token::Nat(n) => write!(f, "number `{n}`"),
            Token::Quantity(q) => write!(f, "`{q}`"),
            Token::Str(s) => write!(f, "string \"{s}\""),
            Token::RuleBody(_) => f.write_str("rule text"),
            Token::CallParen => f.write_str("`(`"),
            other => {
                let text = match other {
                    Token::Import => "import",
                    Token::Def => "def",
                    Token::Rules => "rules",
                    Token::Rule => "rule",
                    Token::Step => "step",
                    Token::Sketch => "sketch",
                    Token::Cost => "cost",
                    Token::Limits => "limits",
                    Token::Scheduler => "scheduler",
                    Token::Contains => "contains",
                    Token::Or => "or",
                    Token::Fun => "fun",
                    Token::Param => "param",
                    Token::In => "in",
                    Token::Require => "require",
                    Token::Budget => "budget",
                    Token::CommentOpen => "/*",
                    Token::Hole => "?",
                    Token::LParen => "(",
                    Token::RParen => ")",
                    Token::LBracket => "[",
                    Token::RBracket => "]",
                    Token::LBrace => "{",
                    Token::RBrace => "}",
                    Token::Comma => ",",
                    Token::Eq => "=",
                    Token::FatArrow => "=>",
                    Token::Arrow => "->",
                    Token::Colon => ":",
                    Token::Dot => ".",
                    Token::Lt => "<",
                    Token::Gt => ">",
                    Token::EqEq => "==",
                    Token::NotEq => "!=",
                    Token::LtEq => "<=",
                    Token::GtEq => ">=",
                    Token::Plus => "+",
                    Token::Minus => "-",
                    Token::Star => "*",
                    Token::Slash => "/",
                    Token::Percent => "%",
                    _ => "?",
                };
                write!(f, "`{text}`")
            }
        }
    }
}

/// The end of a user rule's text starting at `start`: the end of its line, extended over the
/// following lines that are indented (start with a space or tab) and not blank.
fn rule_body_end(text: &str, start: usize) -> usize {
    let mut end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    while end < text.len() {
        let next = &text[end + 1..];
        let line = next.split('\n').next().unwrap_or("");
        if line.starts_with([' ', '\t']) && !line.trim().is_empty() {
            end = end + 1 + line.len();
        } else {
            break;
        }
    }
    end
}

/// Lexes a whole sketch file. Lexical errors (unexpected characters, unclosed comments, numbers
/// too large) are all reported, each once.
pub fn lex(text: &str) -> Result<Vec<Spanned>, Vec<Diagnostic>> {
    let mut out: Vec<Spanned> = Vec::new();
    let mut errors = Vec::new();
    let mut lexer = Token::lexer(text);
    while let Some(result) = lexer.next() {
        let span = lexer.span();
        match result {
            Ok(Token::CommentOpen) => {
                match crate::frontend::syntax::lexer::nested_comment_length(&text[span.end..]) {
                    Some(len) => lexer.bump(len),
                    None => {
                        errors.push(Diagnostic::error(
                            "unterminated comment",
                            Span::new(span.start, span.end),
                            "this `/*` is never closed",
                        ));
                        break;
                    }
                }
            }
            Ok(Token::LParen) if matches!(out.last(), Some((_, Token::Ident(_) | Token::Contains, e)) if *e == span.start) =>
            {
                out.push((span.start, Token::CallParen, span.end));
            }
            Ok(Token::Colon)
                if out.len() >= 2
                    && matches!(out[out.len() - 2].1, Token::Rule)
                    && matches!(out[out.len() - 1].1, Token::Ident(_)) =>
            {
                out.push((span.start, Token::Colon, span.end));
                let body_start = span.end;
                let body_end = rule_body_end(text, body_start);
                let body = &text[body_start..body_end];
                let lead = body.len() - body.trim_start().len();
                let trail = body.len() - body.trim_end().len();
                out.push((
                    body_start + lead,
                    Token::RuleBody(body.trim().to_string()),
                    body_end - trail,
                ));
                lexer.bump(body_end - body_start);
            }
            Ok(Token::Nat(n)) => out.push((span.start, Token::Nat(n), span.end)),
            Ok(tok) => out.push((span.start, tok, span.end)),
            Err(()) => {
                let slice = lexer.slice();
                let span = Span::new(span.start, span.end);
                let msg = if slice.chars().all(|c| c.is_ascii_digit()) {
                    Diagnostic::error("number too large", span, "does not fit 64 bits")
                } else {
                    let shown: String = slice.escape_debug().collect();
                    Diagnostic::error(
                        format!("unexpected character `{shown}`"),
                        span,
                        "this character is not part of sketch syntax",
                    )
                };
                if errors.len() < 20 {
                    errors.push(msg);
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<Token> {
        lex(text).unwrap().into_iter().map(|(_, t, _)| t).collect()
    }

    #[test]
    fn calls_need_the_paren_right_after_the_name() {
        assert_eq!(
            tokens("f(x) f (x)"),
            [
                Token::Ident("f".into()),
                Token::CallParen,
                Token::Ident("x".into()),
                Token::RParen,
                Token::Ident("f".into()),
                Token::LParen,
                Token::Ident("x".into()),
                Token::RParen
            ]
        );
    }

    #[test]
    fn dashed_names_quantities_and_sizes() {
        assert_eq!(
            tokens("split-join(32) 10s m - 1 (m/32).32.f32"),
            [
                Token::Ident("split-join".into()),
                Token::CallParen,
                Token::Nat(32),
                Token::RParen,
                Token::Quantity("10s".into()),
                Token::Ident("m".into()),
                Token::Minus,
                Token::Nat(1),
                Token::LParen,
                Token::Ident("m".into()),
                Token::Slash,
                Token::Nat(32),
                Token::RParen,
                Token::Dot,
                Token::Nat(32),
                Token::Dot,
                Token::Ident("f32".into()),
            ]
        );
    }

    #[test]
    fn rule_bodies_span_indented_lines() {
        let toks =
            lex("rule r : map f (map g xs)\n    => map (fun x => f (g x)) xs\nstep s {}").unwrap();
        assert!(matches!(&toks[3].1, Token::RuleBody(b) if b.contains("f (g x)) xs")));
        assert_eq!(toks[4].1, Token::Step);
    }

    #[test]
    fn comments_nest_and_unclosed_ones_are_errors() {
        assert_eq!(tokens("/* a /* b */ c */ ?"), [Token::Hole]);
        let errs = lex("? /* open").unwrap_err();
        assert!(errs[0].message.contains("unterminated"));
    }
}
