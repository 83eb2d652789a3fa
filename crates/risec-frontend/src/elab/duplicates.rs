//! Names bound twice: two definitions with one name, or one name twice in a parameter list
//! (`(x : f32) (x : f32)`, `{n n : nat}`, `fun x x => …`). Each is an error at the second
//! place, with the first one shown beside it, as rustc does.

use crate::diagnostics::Diagnostic;
use crate::syntax::ast::{Binder, Ident, Module, Param};
use std::collections::HashMap;

/// Every definition name used before, and every parameter list binding a name twice; with the
/// indices of the definitions whose parameters bind a name twice (they are not checked further:
/// their types could only be reported confusingly).
pub(super) fn check_module(module: &Module) -> (Vec<Diagnostic>, Vec<usize>) {
    let mut errors = Vec::new();
    let mut bad_params = Vec::new();
    let mut defined: HashMap<&str, &Ident> = HashMap::new();
    for (index, def) in module.defs.iter().enumerate() {
        if let Some(first) = defined.get(def.name.name.as_str()) {
            errors.push(
                Diagnostic::error(
                    format!("the name `{}` is defined more than once", def.name.name),
                    def.name.span,
                    "defined again here",
                )
                .with_secondary(first.span, "first defined here")
                .with_note(
                    "rename one of them: a later definition does not replace an earlier one",
                ),
            );
        } else {
            defined.insert(&def.name.name, &def.name);
        }
        let names = def.params.iter().flat_map(|p| match p {
            Param::Sizes(names) => names.iter().collect::<Vec<_>>(),
            Param::Value(name, _) => vec![name],
        });
        let twice = check_names(names);
        if !twice.is_empty() {
            bad_params.push(index);
        }
        errors.extend(twice);
    }
    (errors, bad_params)
}

/// The binders of one `fun`: an error if one name is bound twice.
pub(super) fn check_binders(binders: &[Binder]) -> Result<(), Diagnostic> {
    let names = binders.iter().map(|b| match b {
        Binder::Plain(x) | Binder::Typed(x, _) | Binder::Size(x) => x,
    });
    match check_names(names).into_iter().next() {
        Some(d) => Err(d),
        None => Ok(()),
    }
}

/// One error per name bound again in one parameter list.
fn check_names<'a>(names: impl Iterator<Item = &'a Ident>) -> Vec<Diagnostic> {
    let mut seen: HashMap<&str, &Ident> = HashMap::new();
    let mut errors = Vec::new();
    for name in names {
        match seen.get(name.name.as_str()) {
            Some(first) => errors.push(
                Diagnostic::error(
                    format!(
                        "`{}` is bound more than once in this parameter list",
                        name.name
                    ),
                    name.span,
                    "bound again here",
                )
                .with_secondary(first.span, "first bound here")
                .with_note("give each parameter its own name"),
            ),
            None => {
                seen.insert(&name.name, name);
            }
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use crate::diagnostics::{Diagnostic, SourceFile};
    use crate::load::compile_source;

    /// The diagnostics of a program that must not compile.
    fn errors(src: &str) -> Vec<Diagnostic> {
        match compile_source(&SourceFile::new("dup.rise", src), None) {
            Ok(_) => panic!("expected an error for {src:?}"),
            Err(e) => e.diagnostics,
        }
    }

    /// The source text under a span.
    fn at(src: &str, span: crate::syntax::ast::Span) -> &str {
        &src[span.range()]
    }

    #[test]
    fn a_definition_defined_twice_points_at_both() {
        let src =
            "def f (x : f32) : f32 = x\ndef f (x : f32) : f32 = x + 1.0\ndef g (x : f32) = f x";
        let ds = errors(src);
        assert_eq!(ds.len(), 1, "{ds:?}");
        let d = &ds[0];
        assert_eq!(d.message, "the name `f` is defined more than once");
        assert_eq!(
            d.span.start,
            src.find("def f (x : f32) : f32 = x +").unwrap() + 4
        );
        assert_eq!(d.secondary[0].0.start, 4);
        assert_eq!(d.secondary[0].1, "first defined here");
        let rendered = SourceFile::new("dup.rise", src).render(&ds);
        assert!(rendered.contains("dup.rise:2:5"), "{rendered}");
        assert!(rendered.contains("first defined here"), "{rendered}");
    }

    #[test]
    fn value_parameters_bound_twice() {
        let src = "def f (x : f32) (x : f32) : f32 = x";
        let ds = errors(src);
        assert_eq!(ds.len(), 1, "{ds:?}");
        assert_eq!(
            ds[0].message,
            "`x` is bound more than once in this parameter list"
        );
        assert_eq!(ds[0].span.start, 17);
        assert_eq!(ds[0].secondary[0].0.start, 7);
    }

    #[test]
    fn size_parameters_bound_twice() {
        for src in [
            "def f {n n : nat} (x : n.f32) : n.f32 = x",
            "def f {n : nat} (x : n.f32) {n : nat} : n.f32 = x",
            "def f {n : nat} (n : f32) : f32 = n",
        ] {
            let ds = errors(src);
            assert_eq!(ds.len(), 1, "{src}: {ds:?}");
            assert_eq!(
                ds[0].message,
                "`n` is bound more than once in this parameter list"
            );
            assert_eq!(at(src, ds[0].span), "n");
            assert!(ds[0].secondary[0].0.start < ds[0].span.start);
        }
    }

    #[test]
    fn fun_binders_bound_twice() {
        let src = "def f (a : f32) : f32 = (fun x (x : f32) => x) a a";
        let ds = errors(src);
        assert_eq!(
            ds[0].message,
            "`x` is bound more than once in this parameter list"
        );
        assert_eq!(ds[0].span.start, src.find("(x : f32) =>").unwrap() + 1);
    }

    #[test]
    fn shadowing_across_lists_is_still_allowed() {
        let src = "def f (x : f32) : f32 = (fun x => x + 1.0) x";
        assert!(compile_source(&SourceFile::new("ok.rise", src), None).is_ok());
    }
}
