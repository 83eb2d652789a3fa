//! From `.sk` files to guide steps: imports loaded, definitions expanded, names resolved.
//!
//! Names in sketches are, in this order: a parameter of the enclosing definition, a definition, a
//! primitive, or (in a size position) a size parameter of the program's entry point (`m`, `n`,
//! `k`). Rule sets name built-in rules (`risec rules`), user rules (`rule NAME : …`) and other
//! rule sets. Every problem is reported once, with file:line:col and the source line underlined;
//! unknown names get a "did you mean".

use super::ast::{Field, Item, LimitValue, Name, RuleRef, SkExpr};
use super::cost::{CostModel, COST_MODELS};
use super::origin::{Origin, Place, SketchOrigins};
use super::params::{Assignment, ParamSpace};
use super::parser::parse_file;
use super::Sketch;
use crate::core::TypedProgram;
use crate::diagnostics::{render_unplaced, Diagnostic, Severity, SourceFile};
use crate::eqsat::limits::Limits;
use crate::eqsat::rewrite::Rule;
use crate::eqsat::schedule::Scheduler;
use crate::frontend::syntax::ast::Span;
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
    /// The step's own scheduler (`scheduler = …`); `None`: the run's
    /// ([`crate::guided::SearchOptions::strategy`]).
    pub scheduler: Option<Scheduler>,
    /// Where the sketch's nodes are written (for the diagnostics of a step that fails).
    pub origins: SketchOrigins,
}

/// A sketch file that did not load: its diagnostics (possibly in several files, through
/// imports). Its `Display` is [`SketchError::render`].
#[derive(Clone, Debug, thiserror::Error)]
#[error("{}", self.render().trim_end())]
pub struct SketchError {
    /// Messages that point into no file (an unreadable import, a file without steps), each a
    /// full line.
    pub messages: Vec<String>,
    /// Diagnostics, grouped by the file they point into.
    pub diagnostics: Vec<(SourceFile, Vec<Diagnostic>)>,
}

impl SketchError {
    /// The messages, then the diagnostics rendered with file:line:col and underlined source.
    pub fn render(&self) -> String {
        let mut out = self.messages.join("");
        for (file, ds) in &self.diagnostics {
            out.push_str(&file.render(ds));
        }
        out
    }
}

/// How a sketch file is loaded.
#[derive(Clone, Debug, Default)]
pub struct SketchOptions {
    /// User rules whose check against the interpreter is skipped (`--trust-rule NAME`).
    pub trusted_rules: Vec<String>,
    /// Values of the file's tunable parameters (`--param NAME=V`, a tuning record's choice);
    /// the others keep their defaults.
    pub params: Vec<(String, u64)>,
    /// The machine facts parameter constraints may name; `None`: this machine's
    /// ([`crate::support::machine::Machine::host`]).
    pub facts: Option<Vec<(String, u64)>>,
}

/// A sketch file's guide steps, and the warnings its loading gave.
#[derive(Clone, Debug)]
pub struct LoadedSketch {
    /// The guide steps, in order.
    pub steps: Vec<GuideStep>,
    /// Warnings, each rendered as errors are (`warning: …`, the file, line and column, the
    /// source line underlined).
    pub warnings: Vec<String>,
    /// The files read (the sketch file and its imports, as canonical paths), which the run's
    /// outputs must not overwrite.
    pub files: Vec<PathBuf>,
    /// The value of every parameter (`param`) the steps were resolved with, in declaration
    /// order.
    pub params: Assignment,
}

/// Loads the sketch file at `path` with its imports and resolves its steps against `program`
/// (whose size parameters sketches may name). Every user rule is checked against the
/// interpreter ([`super::validate`]).
pub fn load(path: &Path, program: &TypedProgram) -> Result<Vec<GuideStep>, SketchError> {
    load_with(path, program, &SketchOptions::default()).map(|l| l.steps)
}

/// [`load`] with options: user rules may be trusted instead of checked (each such rule gives a
/// warning, as does a trusted name that no user rule has).
pub fn load_with(
    path: &Path,
    program: &TypedProgram,
    options: &SketchOptions,
) -> Result<LoadedSketch, SketchError> {
    let mut r = Resolver::new(program);
    r.trusted = options.trusted_rules.clone();
    let main = r.load_file(path, None);
    if main.is_some() {
        r.parameters(options);
    }
    if let Some(main) = main.filter(|_| r.errors.is_empty() && r.plain_errors.is_empty()) {
        r.collect(main);
    }
    let steps = match main {
        Some(main) if r.errors.is_empty() && r.plain_errors.is_empty() => r.steps(main),
        _ => Vec::new(),
    };
    if r.errors.is_empty() && r.plain_errors.is_empty() {
        if steps.is_empty() {
            return Err(SketchError {
                messages: vec![format!(
                    "error: `{}` has no `step`: nothing to do\n",
                    path.display()
                )],
                diagnostics: Vec::new(),
            });
        }
        let mut warnings: Vec<String> = r
            .warnings
            .iter()
            .map(|(f, d)| r.files[*f].render(std::slice::from_ref(d)))
            .collect();
        for name in &options.trusted_rules {
            if !r.user_rules.contains_key(name) {
                warnings.push(render_unplaced(
                    Severity::Warning,
                    &format!(
                        "--trust-rule {name}: `{}` defines no user rule of this name",
                        path.display()
                    ),
                    &[],
                ));
            }
        }
        let files = r.by_path.keys().cloned().collect();
        Ok(LoadedSketch {
            steps,
            warnings,
            files,
            params: r.param_values,
        })
    } else {
        Err(r.failure())
    }
}

/// The parameters and constraints of the sketch file at `path` and its imports (no step is
/// resolved and no user rule compiled), with the machine facts of `options` for constraints.
pub fn parameter_space(
    path: &Path,
    program: &TypedProgram,
    options: &SketchOptions,
) -> Result<ParamSpace, SketchError> {
    let mut r = Resolver::new(program);
    if r.load_file(path, None).is_some() {
        r.declare_parameters(options);
    }
    if r.errors.is_empty() && r.plain_errors.is_empty() {
        Ok(r.space)
    } else {
        Err(r.failure())
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
    if idx.is_some() {
        r.parameters(&SketchOptions::default());
    }
    if let Some(i) = idx.filter(|_| r.errors.is_empty()) {
        r.collect(i);
    }
    let steps = match idx {
        Some(i) if r.errors.is_empty() => r.steps(i),
        _ => Vec::new(),
    };
    if r.errors.is_empty() {
        Ok(steps)
    } else {
        Err(r.failure())
    }
}

/// A definition's argument: an unevaluated sketch expression with the scope it was written in.
#[derive(Clone)]
pub(super) struct Arg {
    pub(super) expr: SkExpr,
    pub(super) env: Rc<Env>,
    pub(super) file: usize,
}

/// The parameters in scope inside a definition's body.
#[derive(Default)]
pub(super) struct Env {
    pub(super) bindings: Vec<(String, Arg)>,
    pub(super) depth: usize,
    /// The definition calls that lead here, outermost first (for [`SketchOrigins`]).
    pub(super) calls: Vec<Place>,
}

impl Env {
    /// The calls of a definition's body called at `span` of file `file` from here.
    pub(super) fn called_from(&self, file: usize, span: Span) -> Vec<Place> {
        let mut calls = self.calls.clone();
        calls.push(Place { file, span });
        calls
    }

    pub(super) fn lookup(&self, name: &str) -> Option<&Arg> {
        self.bindings
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, a)| a)
    }
}

pub(super) struct DefInfo {
    pub(super) params: Vec<Name>,
    pub(super) body: SkExpr,
    pub(super) file: usize,
    pub(super) span: Span,
}

pub(super) struct Loaded {
    pub(super) items: Vec<Item>,
}

pub(super) struct Resolver<'p> {
    pub(super) program: &'p TypedProgram,
    pub(super) files: Vec<SourceFile>,
    pub(super) loaded: Vec<Loaded>,
    pub(super) by_path: HashMap<PathBuf, usize>,
    pub(super) loading: Vec<PathBuf>,
    pub(super) defs: HashMap<String, DefInfo>,
    pub(super) rule_sets: HashMap<String, (Vec<RuleRef>, usize, Span)>,
    pub(super) user_rules: HashMap<String, (Rule, usize, Span)>,
    /// User rules not checked against the interpreter.
    pub(super) trusted: Vec<String>,
    /// Warnings, each at its place in file `.0`.
    pub(super) warnings: Vec<(usize, Diagnostic)>,
    pub(super) errors: Vec<(usize, Diagnostic)>,
    /// Errors about a file that could not be read, reported without a source.
    pub(super) plain_errors: Vec<String>,
    /// Sketch nodes expanded for the step being resolved (bounded by
    /// [`super::expand::MAX_SKETCH_NODES`]).
    pub(super) expanded: usize,
    /// Where the nodes of the sketch being resolved are written, in post-order.
    pub(super) origins: Vec<Origin>,
    /// The files' parameters and constraints.
    pub(super) space: ParamSpace,
    /// The parameters' values for this load.
    pub(super) param_values: Assignment,
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
            trusted: Vec::new(),
            warnings: Vec::new(),
            errors: Vec::new(),
            plain_errors: Vec::new(),
            expanded: 0,
            origins: Vec::new(),
            space: ParamSpace::default(),
            param_values: Vec::new(),
        }
    }

    pub(super) fn error(&mut self, file: usize, d: Diagnostic) {
        let dup = self
            .errors
            .iter()
            .any(|(f, e)| *f == file && e.message == d.message && e.span == d.span);
        if !dup {
            self.errors.push((file, d));
        }
    }

    fn failure(&self) -> SketchError {
        let mut diagnostics = Vec::new();
        for (i, f) in self.files.iter().enumerate() {
            let ds: Vec<Diagnostic> = self
                .errors
                .iter()
                .filter(|(fi, _)| *fi == i)
                .map(|(_, d)| d.clone())
                .collect();
            if !ds.is_empty() {
                diagnostics.push((f.clone(), ds));
            }
        }
        SketchError {
            messages: self.plain_errors.clone(),
            diagnostics,
        }
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
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
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
        let file =
            match crate::diagnostics::utf8::source_from_bytes(path.display().to_string(), bytes) {
                Ok(file) => file,
                Err(e) => {
                    // The file (its invalid bytes replaced) holds the error at its first one.
                    let idx = self.files.len();
                    self.files.push(*e.file);
                    self.loaded.push(Loaded { items: Vec::new() });
                    self.error(idx, *e.diagnostic);
                    return None;
                }
            };
        self.loading.push(key.clone());
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let idx = self.add_source(file, dir);
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
                    Item::Step { .. }
                    | Item::Import { .. }
                    | Item::Param { .. }
                    | Item::Require { .. } => {}
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
        let mut scheduler = None;
        let mut given: HashMap<&'static str, Span> = HashMap::new();
        let mut origins = Vec::new();
        let mut ok = true;
        for field in fields {
            let (key, span) = match field {
                Field::Sketch(_, s) => ("sketch", *s),
                Field::Rules(_, s) => ("rules", *s),
                Field::Cost(_, s) => ("cost", *s),
                Field::Limits(_, s) => ("limits", *s),
                Field::Scheduler(_, _, s) => ("scheduler", *s),
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
                    self.expanded = 0;
                    self.origins.clear();
                    sketch = self.sketch(e, &Rc::new(Env::default()), f);
                    ok &= sketch.is_some();
                    origins = std::mem::take(&mut self.origins);
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
                Field::Scheduler(n, args, span) => {
                    let args: Vec<String> = args.iter().map(u64::to_string).collect();
                    let text = if args.is_empty() {
                        n.text.clone()
                    } else {
                        format!("{}({})", n.text, args.join(", "))
                    };
                    match text.parse::<Scheduler>() {
                        Ok(s) => scheduler = Some(s),
                        Err(e) => {
                            let d = Diagnostic::error(e.to_string(), *span, "not a scheduler");
                            self.error(f, d);
                            ok = false;
                        }
                    }
                }
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
        let sketch = sketch?;
        let origins = SketchOrigins {
            files: self.files.clone().into(),
            main: f,
            // Recorded in the order the nodes were built, which is post-order.
            nodes: if origins.len() == sketch.size() {
                origins
            } else {
                Vec::new()
            },
        };
        Some(GuideStep {
            name: name.text.clone(),
            sketch,
            rules,
            cost,
            limits,
            scheduler,
            origins,
        })
    }

    fn limits(&mut self, values: &[(Name, LimitValue)], f: usize, limits: &mut Limits) -> bool {
        let mut ok = true;
        for (key, value) in values {
            let parsed: Result<(), String> = match key.text.as_str() {
                "time" => crate::support::units::parse_duration(&value.text)
                    .map(|d| limits.time = d)
                    .map_err(|e| e.to_string()),
                "memory" => crate::support::units::parse_size(&value.text)
                    .map(|m| limits.memory = m)
                    .map_err(|e| e.to_string()),
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
}

/// "unknown KIND `name`", with a "did you mean" when a known name is close.
pub(super) fn unknown(name: &str, span: Span, kind: &str, known: &[&str]) -> Diagnostic {
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
