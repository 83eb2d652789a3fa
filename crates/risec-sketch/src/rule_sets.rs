//! User rules and rule sets of a sketch file: compiling `rule NAME : lhs => rhs` and expanding
//! `rules` lists (named sets, built-in rules with size arguments, user rules) into the rules a
//! step runs. Part of [`super::resolve`]'s resolver.

use super::ast::{Name, RuleSetExpr, SkExpr};
use super::resolve::{unknown, Env, Resolver};
use super::SizeSketch;
use crate::diagnostics::Diagnostic;
use crate::eqsat::rewrite::Rule;
use crate::eqsat::rules;
use crate::frontend::syntax::ast::Span;
use std::rc::Rc;

impl Resolver<'_> {
    /// Compiles `rule NAME : lhs => rhs`. The separator is `=>>`, or else the first `=>` at
    /// which both sides parse (`=>` also introduces lambda bodies).
    pub(super) fn compile_user_rule(
        &mut self,
        f: usize,
        name: &Name,
        text: &str,
        span: Span,
    ) -> Option<Rule> {
        // The sketch's parameters stand for their numbers in the Rise text (`split MR a`).
        let substituted = super::params::substitute(text, &self.param_values);
        let text = substituted.as_str();
        let candidates: Vec<(usize, usize)> = match text.find("=>>") {
            Some(i) => vec![(i, 3)],
            None => text.match_indices("=>").map(|(i, _)| (i, 2)).collect(),
        };
        if candidates.is_empty() {
            self.error(
                f,
                Diagnostic::error(
                    format!("rule `{}` has no `=>`", name.text),
                    span,
                    "expected `lhs => rhs`",
                ),
            );
            return None;
        }
        let mut first_error = None;
        for (at, len) in candidates {
            let (lhs, rhs) = (&text[..at], &text[at + len..]);
            let parses = |t: &str| crate::frontend::syntax::parser::parse_expr(t).is_ok();
            if !(parses(lhs) && parses(rhs)) && first_error.is_none() {
                first_error = Some((at, len));
            }
            if !(parses(lhs) && parses(rhs)) {
                continue;
            }
            let doc = format!("user rule from {}", self.files[f].name);
            let rhs_offset = span.start + at + len;
            let shift = |mut d: Diagnostic, offset: usize| {
                d.span = Span::new(d.span.start + offset, d.span.end + offset);
                d.secondary.clear();
                d
            };
            let rule = match Rule::new(name.text.clone(), doc, lhs, rhs) {
                Ok(rule) => rule,
                Err(d) => {
                    // The rule compiler's spans are relative to one side; name the rule and
                    // point at the whole rule text.
                    let mut d = d;
                    d.message = format!("rule `{}`: {}", name.text, d.message);
                    d.span = span;
                    d.secondary.clear();
                    self.error(f, d);
                    return None;
                }
            };
            let compiled = rule.compiled().expect("user rules are templates");
            let (l, r) = (
                crate::frontend::syntax::parser::parse_expr(lhs).ok()?,
                crate::frontend::syntax::parser::parse_expr(rhs).ok()?,
            );
            return match crate::frontend::elab::check_rule_sides(
                &l,
                &r,
                &compiled.expr_vars,
                &compiled.nat_vars,
            ) {
                Ok(()) => self.validate_user_rule(f, name, span, rule, lhs, rhs),
                Err((in_rhs, d)) => {
                    let mut d = shift(*d, if in_rhs { rhs_offset } else { span.start });
                    d.message = format!("rule `{}` is not well typed: {}", name.text, d.message);
                    self.error(f, d);
                    None
                }
            };
        }
        let (at, _) = first_error.unwrap_or((0, 0));
        self.error(
            f,
            Diagnostic::error(
                format!("rule `{}` does not parse as `lhs => rhs`", name.text),
                Span::new(span.start + at, span.start + at + 2),
                "no `=>` here separates two Rise expressions",
            )
            .with_note("write the separator as `=>>` when a side contains a lambda"),
        );
        None
    }

    pub(super) fn rule_set(&mut self, r: &RuleSetExpr, f: usize) -> Option<Vec<Rule>> {
        let mut out: Vec<Rule> = Vec::new();
        let mut stack = Vec::new();
        let ok = match r {
            RuleSetExpr::Named(n) => self.expand_rule_name(n, &[], n.span, f, &mut stack, &mut out),
            RuleSetExpr::List(v) => {
                // Every name is expanded (all errors reported), not only up to the first failure.
                let expanded: Vec<bool> = v
                    .iter()
                    .map(|rr| {
                        self.expand_rule_name(&rr.name, &rr.args, rr.span, f, &mut stack, &mut out)
                    })
                    .collect();
                expanded.into_iter().all(|ok| ok)
            }
        };
        ok.then_some(out)
    }

    pub(super) fn expand_rule_name(
        &mut self,
        name: &Name,
        args: &[SkExpr],
        span: Span,
        f: usize,
        stack: &mut Vec<String>,
        out: &mut Vec<Rule>,
    ) -> bool {
        let push = |out: &mut Vec<Rule>, r: Rule| {
            if !out.iter().any(|q| q.name == r.name) {
                out.push(r);
            }
        };
        if let Some((refs, file, _)) = self.rule_sets.get(&name.text).cloned() {
            if !args.is_empty() {
                self.error(
                    f,
                    Diagnostic::error(
                        format!("`{}` is a rule set; it takes no arguments", name.text),
                        span,
                        "remove the arguments",
                    ),
                );
                return false;
            }
            if stack.contains(&name.text) {
                self.error(
                    f,
                    Diagnostic::error(
                        format!("the rule set `{}` includes itself", name.text),
                        span,
                        "cycle of rule sets",
                    ),
                );
                return false;
            }
            stack.push(name.text.clone());
            let mut ok = true;
            for rr in &refs {
                ok &= self.expand_rule_name(&rr.name, &rr.args, rr.span, file, stack, out);
            }
            stack.pop();
            return ok;
        }
        if let Some((rule, _, _)) = self.user_rules.get(&name.text) {
            push(out, rule.clone());
            return true;
        }
        if rules::catalogue().iter().any(|r| r.name == name.text) {
            let mut values = Vec::new();
            for a in args {
                match self.size(a, &Rc::new(Env::default()), f).map(|s| match s {
                    SizeSketch::Is(n) => n.as_integer(),
                    SizeSketch::Any => None,
                }) {
                    Some(Some(v)) if v > 0 => values.push(v.to_string()),
                    Some(_) => {
                        self.error(
                            f,
                            Diagnostic::error(
                                format!(
                                    "rule `{}`: size arguments must be positive numbers",
                                    name.text
                                ),
                                a.span,
                                "expected a number such as `32`",
                            ),
                        );
                        return false;
                    }
                    None => return false,
                }
            }
            let spec = if values.is_empty() {
                name.text.clone()
            } else {
                format!("{}({})", name.text, values.join(","))
            };
            return match rules::lookup(&spec) {
                Ok(rule) => {
                    push(out, rule);
                    true
                }
                Err(e) => {
                    let msg = e.to_string();
                    self.error(f, Diagnostic::error(format!("rule `{spec}`"), span, msg));
                    false
                }
            };
        }
        let mut known: Vec<&str> = rules::catalogue().iter().map(|r| r.name).collect();
        known.extend(self.rule_sets.keys().map(String::as_str));
        known.extend(self.user_rules.keys().map(String::as_str));
        let d = unknown(&name.text, name.span, "rule or rule set", &known)
            .with_note("`risec rules` lists the built-in rules");
        self.error(f, d);
        false
    }
}
