//! From `.sk` files to guide steps: imports loaded, definitions expanded, names resolved.
//!
//! Names in sketches are, in this order: a parameter of the enclosing definition, a definition, a
//! primitive, or (in a size position) a size parameter of the program's entry point (`m`, `n`,
//! `k`). Rule sets name built-in rules (`risec rules`), user rules (`rule NAME : …`) and other
//! rule sets. Every problem is reported once, with file:line:col and the source line underlined;
//! unknown names get a "did you mean".

use super::ast::{
    Field, Item, LimitValue, Name, RuleRef, RuleSetExpr, SizeOp, SkExpr, SkKind, TyExpr, TyKind,
};
use super::cost::{CostModel, COST_MODELS};
use super::parser::parse_file;
use super::{SizeSketch, Sketch, TypeSketch};
use crate::core::TypedProgram;
use crate::diagnostics::{Diagnostic, SourceFile};
use crate::nat::{self, Nat};
use crate::primitive::Primitive;
use crate::rewrite::Rule;
use crate::rules;
use crate::runner::Limits;
use crate::syntax::ast::Span;
use crate::types::ScalarType;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// One guide step of a sketch file: search with `rules` until `sketch` is satisfied, then
/// extract the cheapest satisfying term under `cost`.
#[derive(Clone, Debug)]
pub struct GuideStep {
    /// The step's name.
    pub name: String,
    /// The sketch, resolved.
    pub sketch: Sketch,
    /// The rules named by the step (the search adds the normal-form rules).
    pub rules: Vec<Rule>,
    /// The cost model of the extraction.
    pub cost: CostModel,
    /// Per-step limits (defaults where the file sets none).
    pub limits: Limits,
}

/// A sketch file that did not load: the rendered diagnostics (possibly from several files).
#[derive(Clone, Debug)]
pub struct SketchError {
    /// The messages, rendered with file:line:col and underlined source lines.
    pub rendered: String,
}

/// How deep definitions may expand into each other (a guard against recursive definitions).
const MAX_EXPANSION: usize = 64;

/// Loads the sketch file at `path` with its imports and resolves its steps against `program`
/// (whose size parameters sketches may name).
pub fn load(path: &Path, program: &TypedProgram) -> Result<Vec<GuideStep>, SketchError> {
    let mut r = Resolver::new(program);
    let main = r.load_file(path, None);
    if let Some(main) = main {
        r.collect(main);
    }
    let steps = match main {
        Some(main) if r.errors.is_empty() => r.steps(main),
        _ => Vec::new(),
    };
    if r.errors.is_empty() {
        if steps.is_empty() {
            return Err(SketchError {
                rendered: format!("error: `{}` has no `step`: nothing to do\n", path.display()),
            });
        }
        Ok(steps)
    } else {
        Err(SketchError {
            rendered: r.render(),
        })
    }
}

/// Loads sketch text given directly (the file name is used in messages; imports are resolved
/// relative to the current directory).
pub fn load_source(
    name: &str,
    text: &str,
    program: &TypedProgram,
) -> Result<Vec<GuideStep>, SketchError> {
    let mut r = Resolver::new(program);
    let idx = r.add_source(SourceFile::new(name, text), PathBuf::from("."));
    if let Some(i) = idx {
        r.collect(i);
    }
    let steps = match idx {
        Some(i) if r.errors.is_empty() => r.steps(i),
        _ => Vec::new(),
    };
    if r.errors.is_empty() {
        Ok(steps)
    } else {
        Err(SketchError {
            rendered: r.render(),
        })
    }
}

/// A definition's argument: an unevaluated sketch expression with the scope it was written in.
#[derive(Clone)]
struct Arg {
    expr: SkExpr,
    env: Rc<Env>,
    file: usize,
}

/// The parameters in scope inside a definition's body.
#[derive(Default)]
struct Env {
    bindings: Vec<(String, Arg)>,
    depth: usize,
}

impl Env {
    fn lookup(&self, name: &str) -> Option<&Arg> {
        self.bindings
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, a)| a)
    }
}

struct DefInfo {
    params: Vec<Name>,
    body: SkExpr,
    file: usize,
    span: Span,
}

struct Loaded {
    items: Vec<Item>,
}

struct Resolver<'p> {
    program: &'p TypedProgram,
    files: Vec<SourceFile>,
    loaded: Vec<Loaded>,
    by_path: HashMap<PathBuf, usize>,
    loading: Vec<PathBuf>,
    defs: HashMap<String, DefInfo>,
    rule_sets: HashMap<String, (Vec<RuleRef>, usize, Span)>,
    user_rules: HashMap<String, (Rule, usize, Span)>,
    errors: Vec<(usize, Diagnostic)>,
    /// Errors about a file that could not be read, reported without a source.
    plain_errors: Vec<String>,
}

impl<'p> Resolver<'p> {
    fn new(program: &'p TypedProgram) -> Resolver<'p> {
        Resolver {
            program,
            files: Vec::new(),
            loaded: Vec::new(),
            by_path: HashMap::new(),
            loading: Vec::new(),
            defs: HashMap::new(),
            rule_sets: HashMap::new(),
            user_rules: HashMap::new(),
            errors: Vec::new(),
            plain_errors: Vec::new(),
        }
    }

    fn error(&mut self, file: usize, d: Diagnostic) {
        let dup = self
            .errors
            .iter()
            .any(|(f, e)| *f == file && e.message == d.message && e.span == d.span);
        if !dup {
            self.errors.push((file, d));
        }
    }

    fn render(&self) -> String {
        let mut out = self.plain_errors.join("");
        for (i, f) in self.files.iter().enumerate() {
            let ds: Vec<Diagnostic> = self
                .errors
                .iter()
                .filter(|(fi, _)| *fi == i)
                .map(|(_, d)| d.clone())
                .collect();
            if !ds.is_empty() {
                out.push_str(&f.render(&ds));
            }
        }
        out
    }

    /// Reads and parses a file (once per path); `from` is the import that asked for it.
    fn load_file(&mut self, path: &Path, from: Option<(usize, Span)>) -> Option<usize> {
        let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if let Some(&i) = self.by_path.get(&key) {
            return Some(i);
        }
        if self.loading.contains(&key) {
            if let Some((f, span)) = from {
                self.error(
                    f,
                    Diagnostic::error(
                        format!(
                            "`{}` imports itself (through a cycle of imports)",
                            path.display()
                        ),
                        span,
                        "import cycle",
                    ),
                );
            }
            return None;
        }
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                match from {
                    Some((f, span)) => self.error(
                        f,
                        Diagnostic::error(
                            format!("cannot read `{}`: {e}", path.display()),
                            span,
                            "imported here",
                        ),
                    ),
                    None => self
                        .plain_errors
                        .push(format!("error: cannot read `{}`: {e}\n", path.display())),
                }
                return None;
            }
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_string();
        self.loading.push(key.clone());
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let idx = self.add_source(SourceFile::new(path.display().to_string(), text), dir);
        self.loading.pop();
        if let Some(i) = idx {
            self.by_path.insert(key, i);
        }
        idx
    }

    fn add_source(&mut self, file: SourceFile, dir: PathBuf) -> Option<usize> {
        let idx = self.files.len();
        let parsed = parse_file(&file.text);
        self.files.push(file);
        self.loaded.push(Loaded { items: Vec::new() });
        match parsed {
            Ok(items) => {
                for item in &items {
                    if let Item::Import { path, span } = item {
                        self.load_file(&dir.join(path), Some((idx, *span)));
                    }
                }
                self.loaded[idx].items = items;
                Some(idx)
            }
            Err(ds) => {
                for d in ds {
                    self.error(idx, d);
                }
                None
            }
        }
    }

    /// Registers the definitions, rule sets and user rules of every loaded file; reports
    /// duplicates and steps outside the main file.
    fn collect(&mut self, main: usize) {
        for f in 0..self.loaded.len() {
            let items = self.loaded[f].items.clone();
            for item in items {
                match item {
                    Item::Def { name, params, body } => {
                        if let Some(prev) = self.defs.get(&name.text) {
                            let (pf, ps) = (prev.file, prev.span);
                            self.duplicate(f, &name, pf, ps, "definition");
                        } else {
                            self.defs.insert(
                                name.text.clone(),
                                DefInfo {
                                    params,
                                    body,
                                    file: f,
                                    span: name.span,
                                },
                            );
                        }
                    }
                    Item::Rules { name, rules } => {
                        if let Some((_, pf, ps)) = self.rule_sets.get(&name.text) {
                            let (pf, ps) = (*pf, *ps);
                            self.duplicate(f, &name, pf, ps, "rule set");
                        } else {
                            self.rule_sets
                                .insert(name.text.clone(), (rules, f, name.span));
                        }
                    }
                    Item::Rule { name, text, span } => {
                        if let Some((_, pf, ps)) = self.user_rules.get(&name.text) {
                            let (pf, ps) = (*pf, *ps);
                            self.duplicate(f, &name, pf, ps, "rule");
                        } else if let Some(rule) = self.compile_user_rule(f, &name, &text, span) {
                            self.user_rules
                                .insert(name.text.clone(), (rule, f, name.span));
                        }
                    }
                    Item::Step { name, .. } if f != main => self.error(
                        f,
                        Diagnostic::error(
                            format!("step `{}` is in an imported file", name.text),
                            name.span,
                            "steps run only from the file given to `--sketch`",
                        )
                        .with_note("imported files provide definitions, rule sets and rules"),
                    ),
                    Item::Step { .. } | Item::Import { .. } => {}
                }
            }
        }
    }

    fn duplicate(&mut self, f: usize, name: &Name, pf: usize, ps: Span, what: &str) {
        let mut d = Diagnostic::error(
            format!("the {what} `{}` is defined twice", name.text),
            name.span,
            "defined again here",
        );
        if pf == f {
            d = d.with_secondary(ps, "first defined here");
        } else {
            let (line, col) = self.files[pf].line_col(ps.start);
            d = d.with_note(format!(
                "first defined at {}:{line}:{col}",
                self.files[pf].name
            ));
        }
        self.error(f, d);
    }

    /// Compiles `rule NAME : lhs => rhs`. The separator is `=>>`, or else the first `=>` at
    /// which both sides parse (`=>` also introduces lambda bodies).
    fn compile_user_rule(&mut self, f: usize, name: &Name, text: &str, span: Span) -> Option<Rule> {
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
            let parses = |t: &str| crate::syntax::parser::parse_expr(t).is_ok();
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
                crate::syntax::parser::parse_expr(lhs).ok()?,
                crate::syntax::parser::parse_expr(rhs).ok()?,
            );
            return match crate::elab::check_rule_sides(
                &l,
                &r,
                &compiled.expr_vars,
                &compiled.nat_vars,
            ) {
                Ok(()) => Some(rule),
                Err((in_rhs, d)) => {
                    let mut d = shift(d, if in_rhs { rhs_offset } else { span.start });
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

    fn steps(&mut self, main: usize) -> Vec<GuideStep> {
        let items = self.loaded[main].items.clone();
        let mut out = Vec::new();
        let mut seen: HashMap<String, Span> = HashMap::new();
        for item in &items {
            let Item::Step { name, fields, .. } = item else {
                continue;
            };
            if let Some(prev) = seen.get(&name.text) {
                let d = Diagnostic::error(
                    format!("the step `{}` is defined twice", name.text),
                    name.span,
                    "defined again here",
                )
                .with_secondary(*prev, "first defined here");
                self.error(main, d);
                continue;
            }
            seen.insert(name.text.clone(), name.span);
            if let Some(step) = self.step(main, name, fields) {
                out.push(step);
            }
        }
        out
    }

    fn step(&mut self, f: usize, name: &Name, fields: &[Field]) -> Option<GuideStep> {
        let mut sketch = None;
        let mut rules = Vec::new();
        let mut cost = CostModel::default();
        let mut limits = Limits::default();
        let mut given: HashMap<&'static str, Span> = HashMap::new();
        let mut ok = true;
        for field in fields {
            let (key, span) = match field {
                Field::Sketch(_, s) => ("sketch", *s),
                Field::Rules(_, s) => ("rules", *s),
                Field::Cost(_, s) => ("cost", *s),
                Field::Limits(_, s) => ("limits", *s),
            };
            if let Some(prev) = given.insert(key, span) {
                self.error(
                    f,
                    Diagnostic::error(
                        format!("step `{}` sets `{key}` twice", name.text),
                        span,
                        "set again here",
                    )
                    .with_secondary(prev, "first set here"),
                );
                ok = false;
                continue;
            }
            match field {
                Field::Sketch(e, _) => {
                    sketch = self.sketch(e, &Rc::new(Env::default()), f, false);
                    ok &= sketch.is_some();
                }
                Field::Rules(r, _) => match self.rule_set(r, f) {
                    Some(rs) => rules = rs,
                    None => ok = false,
                },
                Field::Cost(n, _) => match CostModel::by_name(&n.text) {
                    Some(c) => cost = c,
                    None => {
                        let names: Vec<&str> = COST_MODELS.iter().map(|(n, _, _)| *n).collect();
                        let d = unknown(&n.text, n.span, "cost model", &names);
                        self.error(f, d);
                        ok = false;
                    }
                },
                Field::Limits(v, _) => ok &= self.limits(v, f, &mut limits),
            }
        }
        if !given.contains_key("sketch") {
            self.error(
                f,
                Diagnostic::error(
                    format!("step `{}` has no sketch", name.text),
                    name.span,
                    "add `sketch = …` to this step",
                ),
            );
            return None;
        }
        if !ok {
            return None;
        }
        Some(GuideStep {
            name: name.text.clone(),
            sketch: sketch?,
            rules,
            cost,
            limits,
        })
    }

    fn limits(&mut self, values: &[(Name, LimitValue)], f: usize, limits: &mut Limits) -> bool {
        let mut ok = true;
        for (key, value) in values {
            let parsed: Result<(), String> = match key.text.as_str() {
                "time" => crate::units::parse_duration(&value.text).map(|d| limits.time = d),
                "memory" => crate::units::parse_size(&value.text).map(|m| limits.memory = m),
                "nodes" => value
                    .text
                    .parse::<usize>()
                    .map(|n| limits.nodes = n)
                    .map_err(|_| "expected a number of e-nodes, as in `nodes = 100000`".into()),
                "iterations" => value
                    .text
                    .parse::<usize>()
                    .map(|n| limits.iterations = n)
                    .map_err(|_| "expected a number of iterations, as in `iterations = 30`".into()),
                _ => {
                    let d = unknown(
                        &key.text,
                        key.span,
                        "limit",
                        &["time", "nodes", "iterations", "memory"],
                    );
                    self.error(f, d);
                    ok = false;
                    continue;
                }
            };
            if let Err(msg) = parsed {
                self.error(
                    f,
                    Diagnostic::error(
                        format!("invalid `{}` limit `{}`", key.text, value.text),
                        value.span,
                        msg,
                    ),
                );
                ok = false;
            }
        }
        ok
    }

    fn rule_set(&mut self, r: &RuleSetExpr, f: usize) -> Option<Vec<Rule>> {
        let mut out: Vec<Rule> = Vec::new();
        let mut stack = Vec::new();
        let ok = match r {
            RuleSetExpr::Named(n) => self.expand_rule_name(n, &[], n.span, f, &mut stack, &mut out),
            RuleSetExpr::List(v) => v.iter().fold(true, |ok, rr| {
                self.expand_rule_name(&rr.name, &rr.args, rr.span, f, &mut stack, &mut out) && ok
            }),
        };
        ok.then_some(out)
    }

    fn expand_rule_name(
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
                Err(msg) => {
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

    // ------------------------------------------------------------------ sketches

    /// Resolves a sketch expression; `arg` says it is the argument of an application, where a
    /// size is allowed (`split 32 ?`).
    fn sketch(&mut self, e: &SkExpr, env: &Rc<Env>, f: usize, arg: bool) -> Option<Sketch> {
        if env.depth > MAX_EXPANSION {
            self.error(
                f,
                Diagnostic::error(
                    "definitions expand too deeply here",
                    e.span,
                    format!("more than {MAX_EXPANSION} nested expansions"),
                )
                .with_note("is a definition recursive? sketch definitions cannot be"),
            );
            return None;
        }
        match &e.kind {
            SkKind::Hole => Some(Sketch::Any),
            SkKind::Name(n) => {
                if let Some(a) = env.lookup(&n.text).cloned() {
                    return self.sketch(&a.expr, &a.env, a.file, arg);
                }
                if let Some(def) = self.defs.get(&n.text) {
                    if !def.params.is_empty() {
                        let params: Vec<&str> =
                            def.params.iter().map(|p| p.text.as_str()).collect();
                        let d = Diagnostic::error(
                            format!("`{}` takes {} argument(s)", n.text, params.len()),
                            n.span,
                            format!("call it as `{}({})`", n.text, params.join(", ")),
                        );
                        self.error(f, d);
                        return None;
                    }
                    let (body, file) = (def.body.clone(), def.file);
                    let inner = Rc::new(Env {
                        bindings: Vec::new(),
                        depth: env.depth + 1,
                    });
                    return self.sketch(&body, &inner, file, arg);
                }
                if let Some(p) = Primitive::from_name(&n.text) {
                    return Some(Sketch::Prim(p));
                }
                if self.size_index(&n.text).is_some() {
                    self.error(f, size_not_sketch(e.span));
                    return None;
                }
                let mut known: Vec<&str> = Primitive::ALL.iter().map(|p| p.name()).collect();
                known.extend(self.defs.keys().map(String::as_str));
                known.extend(env.bindings.iter().map(|(n, _)| n.as_str()));
                let d = unknown(&n.text, n.span, "name", &known);
                self.error(f, d);
                None
            }
            SkKind::Call(n, args) => {
                if let Some(p) = Primitive::from_name(&n.text) {
                    // `map(f)` is `map f`.
                    let mut s = Sketch::Prim(p);
                    for a in args {
                        s = self.apply(s, a, env, f)?;
                    }
                    return Some(s);
                }
                let Some(def) = self.defs.get(&n.text) else {
                    let known: Vec<&str> = self.defs.keys().map(String::as_str).collect();
                    let d = unknown(&n.text, n.span, "definition", &known);
                    self.error(f, d);
                    return None;
                };
                if def.params.len() != args.len() {
                    let params: Vec<&str> = def.params.iter().map(|p| p.text.as_str()).collect();
                    let d = Diagnostic::error(
                        format!(
                            "`{}` takes {} argument(s), {} given",
                            n.text,
                            params.len(),
                            args.len()
                        ),
                        e.span,
                        format!("expected `{}({})`", n.text, params.join(", ")),
                    );
                    self.error(f, d);
                    return None;
                }
                let bindings = def
                    .params
                    .iter()
                    .zip(args)
                    .map(|(p, a)| {
                        (
                            p.text.clone(),
                            Arg {
                                expr: a.clone(),
                                env: env.clone(),
                                file: f,
                            },
                        )
                    })
                    .collect();
                let (body, file) = (def.body.clone(), def.file);
                let inner = Rc::new(Env {
                    bindings,
                    depth: env.depth + 1,
                });
                self.sketch(&body, &inner, file, arg)
            }
            SkKind::App(g, a) => {
                let g = self.sketch(g, env, f, false)?;
                self.apply(g, a, env, f)
            }
            SkKind::Lambda(b) => Some(Sketch::Lambda(Box::new(self.sketch(b, env, f, false)?))),
            SkKind::Contains(b) => Some(Sketch::Contains(Box::new(self.sketch(b, env, f, false)?))),
            SkKind::Or(a, b) => {
                let a = self.sketch(a, env, f, arg);
                let b = self.sketch(b, env, f, arg);
                Some(Sketch::Or(Box::new(a?), Box::new(b?)))
            }
            SkKind::Annot(s, t) => {
                let s = self.sketch(s, env, f, arg);
                let t = self.type_sketch(t, env, f);
                Some(Sketch::Typed(Box::new(s?), t?))
            }
            SkKind::Num(_) | SkKind::Size(..) => {
                self.error(f, size_not_sketch(e.span));
                None
            }
        }
    }

    /// `g a`: an application, or an application to a size when `a` denotes one.
    fn apply(&mut self, g: Sketch, a: &SkExpr, env: &Rc<Env>, f: usize) -> Option<Sketch> {
        if self.denotes_size(a, env) {
            return match self.size(a, env, f)? {
                SizeSketch::Is(n) => Some(Sketch::NatApp(Box::new(g), n)),
                SizeSketch::Any => Some(Sketch::App(Box::new(g), Box::new(Sketch::Any))),
            };
        }
        let a = self.sketch(a, env, f, true)?;
        Some(Sketch::App(Box::new(g), Box::new(a)))
    }

    /// Whether `e` is a size rather than a sketch (a number, size arithmetic, a size name, or a
    /// parameter bound to one).
    fn denotes_size(&self, e: &SkExpr, env: &Rc<Env>) -> bool {
        match &e.kind {
            SkKind::Num(_) | SkKind::Size(..) => true,
            SkKind::Name(n) => match env.lookup(&n.text) {
                Some(a) => self.denotes_size(&a.expr, &a.env),
                None => {
                    !self.defs.contains_key(&n.text)
                        && Primitive::from_name(&n.text).is_none()
                        && self.size_index(&n.text).is_some()
                }
            },
            _ => false,
        }
    }

    /// The nat index of a size parameter of the program (index 0 = the last one).
    fn size_index(&self, name: &str) -> Option<u32> {
        let params = &self.program.size_params;
        params
            .iter()
            .position(|p| p == name)
            .map(|i| (params.len() - 1 - i) as u32)
    }

    /// Resolves a size written as a sketch expression (a definition's size argument).
    fn size(&mut self, e: &SkExpr, env: &Rc<Env>, f: usize) -> Option<SizeSketch> {
        match &e.kind {
            SkKind::Hole => Some(SizeSketch::Any),
            SkKind::Num(n) => Some(SizeSketch::Is(nat::lit(*n))),
            SkKind::Name(n) => {
                if let Some(a) = env.lookup(&n.text).cloned() {
                    return self.size(&a.expr, &a.env, a.file);
                }
                match self.size_index(&n.text) {
                    Some(i) => Some(SizeSketch::Is(nat::index(i))),
                    None => {
                        let d = self.unknown_size(&n.text, n.span);
                        self.error(f, d);
                        None
                    }
                }
            }
            SkKind::Size(op, a, b) => {
                let a = self.size(a, env, f);
                let b = self.size(b, env, f);
                combine(*op, a?, b?, e.span)
                    .map_err(|d| self.error(f, d))
                    .ok()
            }
            _ => {
                self.error(
                    f,
                    Diagnostic::error("expected a size", e.span, "a sketch is not a size"),
                );
                None
            }
        }
    }

    fn unknown_size(&self, name: &str, span: Span) -> Diagnostic {
        let known: Vec<&str> = self
            .program
            .size_params
            .iter()
            .map(String::as_str)
            .collect();
        unknown(name, span, "size", &known).with_note(format!(
            "sizes are the entry point's size parameters: {}",
            if known.is_empty() {
                "(it has none)".to_string()
            } else {
                known.join(", ")
            }
        ))
    }

    fn type_sketch(&mut self, t: &TyExpr, env: &Rc<Env>, f: usize) -> Option<TypeSketch> {
        match &t.kind {
            TyKind::Hole => Some(TypeSketch::Any),
            TyKind::Name(n) => {
                if let Some(a) = env.lookup(&n.text).cloned() {
                    return match &a.expr.kind {
                        SkKind::Hole => Some(TypeSketch::Any),
                        SkKind::Name(m) if ScalarType::from_name(&m.text).is_some() => {
                            ScalarType::from_name(&m.text).map(TypeSketch::Scalar)
                        }
                        _ => {
                            self.error(
                                f,
                                Diagnostic::error(
                                    format!("parameter `{}` is used as a type", n.text),
                                    n.span,
                                    "pass `?` or a scalar type such as `f32` for it",
                                ),
                            );
                            None
                        }
                    };
                }
                if let Some(s) = ScalarType::from_name(&n.text) {
                    return Some(TypeSketch::Scalar(s));
                }
                let msg = if self.size_index(&n.text).is_some() {
                    Diagnostic::error(
                        format!("`{}` is a size, not a type", n.text),
                        n.span,
                        "expected a type, e.g. `n.f32` or `?`",
                    )
                } else {
                    unknown(
                        &n.text,
                        n.span,
                        "type",
                        &["f32", "f64", "i32", "i64", "bool"],
                    )
                };
                self.error(f, msg);
                None
            }
            TyKind::Num(_) | TyKind::Size(..) => {
                self.error(
                    f,
                    Diagnostic::error(
                        "a size where a type is expected",
                        t.span,
                        "expected a type; an array type is written `N.t`",
                    ),
                );
                None
            }
            TyKind::Fun(a, b) => {
                let a = self.type_sketch(a, env, f);
                let b = self.type_sketch(b, env, f);
                Some(TypeSketch::Fun(Box::new(a?), Box::new(b?)))
            }
            TyKind::Array(n, e) => {
                let n = self.type_size(n, env, f);
                let e = self.type_sketch(e, env, f);
                Some(TypeSketch::Array(n?, Box::new(e?)))
            }
            TyKind::Vector(n, e) => {
                let n = self.type_size(n, env, f);
                let e = self.type_sketch(e, env, f);
                Some(TypeSketch::Vector(n?, Box::new(e?)))
            }
            TyKind::Pair(a, b) => {
                let a = self.type_sketch(a, env, f);
                let b = self.type_sketch(b, env, f);
                Some(TypeSketch::Pair(Box::new(a?), Box::new(b?)))
            }
            TyKind::Idx(n) => Some(TypeSketch::Idx(self.type_size(n, env, f)?)),
        }
    }

    fn type_size(&mut self, t: &TyExpr, env: &Rc<Env>, f: usize) -> Option<SizeSketch> {
        match &t.kind {
            TyKind::Hole => Some(SizeSketch::Any),
            TyKind::Num(n) => Some(SizeSketch::Is(nat::lit(*n))),
            TyKind::Name(n) => {
                if let Some(a) = env.lookup(&n.text).cloned() {
                    return self.size(&a.expr, &a.env, a.file);
                }
                match self.size_index(&n.text) {
                    Some(i) => Some(SizeSketch::Is(nat::index(i))),
                    None => {
                        let d = self.unknown_size(&n.text, n.span);
                        self.error(f, d);
                        None
                    }
                }
            }
            TyKind::Size(op, a, b) => {
                let a = self.type_size(a, env, f);
                let b = self.type_size(b, env, f);
                combine(*op, a?, b?, t.span)
                    .map_err(|d| self.error(f, d))
                    .ok()
            }
            _ => {
                self.error(
                    f,
                    Diagnostic::error("expected a size", t.span, "a type is not a size here"),
                );
                None
            }
        }
    }
}

fn combine(op: SizeOp, a: SizeSketch, b: SizeSketch, span: Span) -> Result<SizeSketch, Diagnostic> {
    let (SizeSketch::Is(a), SizeSketch::Is(b)) = (a, b) else {
        return Err(Diagnostic::error(
            "`?` cannot take part in size arithmetic",
            span,
            "write `?` for the whole size",
        ));
    };
    if matches!(op, SizeOp::Div | SizeOp::Rem) && b.is_zero() {
        return Err(Diagnostic::error("division by zero", span, "in this size"));
    }
    let n: Nat = match op {
        SizeOp::Add => nat::add(&a, &b),
        SizeOp::Sub => nat::sub(&a, &b),
        SizeOp::Mul => nat::mul(&a, &b),
        SizeOp::Div => nat::div(&a, &b),
        SizeOp::Rem => nat::rem(&a, &b),
    };
    Ok(SizeSketch::Is(n))
}

fn size_not_sketch(span: Span) -> Diagnostic {
    Diagnostic::error(
        "a size where a sketch is expected",
        span,
        "sizes are arguments (`split 32 ?`) or parts of types (`? : m.?`)",
    )
}

/// "unknown KIND `name`", with a "did you mean" when a known name is close.
fn unknown(name: &str, span: Span, kind: &str, known: &[&str]) -> Diagnostic {
    let d = Diagnostic::error(
        format!("unknown {kind} `{name}`"),
        span,
        format!("no {kind} of this name"),
    );
    match did_you_mean(name, known) {
        Some(s) => d.with_note(format!("did you mean `{s}`?")),
        None => d,
    }
}

/// The known name closest to `name`, if it is close enough to be a likely typo.
pub fn did_you_mean<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(name, k), *k))
        .filter(|(d, k)| *d <= (name.len().max(k.len()) / 3).max(1) || k.starts_with(name))
        .min()
        .map(|(_, k)| k)
}
