//! Type parameters bound at a call of a generic function: each argument's shape against its parameter's, each type parameter bound to the join of what binds it, and the measures of several arguments merged.

use super::expr::Checker;
use super::measures::Bindings;
use super::types::Ty;
use crate::span::Span;
use std::collections::BTreeMap;

impl Checker<'_> {
    /// Checks an argument's shape against its parameter's and binds the
    /// parameter's type variables (each to the join of what binds it);
    /// false on a mismatch (reported).
    pub(super) fn bind_type(
        &mut self,
        (param, callee): (&str, &str),
        pty: &Ty,
        arg: &Ty,
        span: Span,
        generics: &mut BTreeMap<String, Ty>,
        skip_own: bool,
    ) -> bool {
        let expected = pty.substitute_generics(generics);
        if expected.accepts(arg) {
            bind_logged(pty, arg, generics, None, skip_own);
            return true;
        }
        // A trial binding, undone when the shapes differ (a copy of the
        // bindings per argument grew with the square of the type
        // parameters).
        let mut undo = Vec::new();
        if bind_logged(pty, arg, generics, Some(&mut undo), skip_own) {
            return true;
        }
        for (name, before) in undo.into_iter().rev() {
            match before {
                Some(ty) => generics.insert(name, ty),
                None => generics.remove(&name),
            };
        }
        self.mismatch(
            &expected,
            arg,
            span,
            format!("parameter `{param}` of `{callee}`"),
        );
        false
    }
}

pub(super) fn merge_bindings(into: &mut Bindings, from: &Bindings) {
    for (var, value) in from {
        let slot = into.entry(*var).or_default();
        *slot = slot.max(value);
    }
}

/// Binds type parameters of `param` to the parts of `arg`, each to the join
/// of everything that binds it; false when the shapes differ.
pub(super) fn bind(param: &Ty, arg: &Ty, generics: &mut BTreeMap<String, Ty>) -> bool {
    bind_logged(param, arg, generics, None, false)
}

/// [`bind`], writing each binding's value before it onto `undo` if given.
fn bind_logged(
    param: &Ty,
    arg: &Ty,
    generics: &mut BTreeMap<String, Ty>,
    mut undo: Option<&mut Vec<(String, Option<Ty>)>>,
    skip_own: bool,
) -> bool {
    let mut set = |generics: &mut BTreeMap<String, Ty>, name: &String, ty: Ty| {
        let before = generics.insert(name.clone(), ty);
        if let Some(undo) = undo.as_deref_mut() {
            undo.push((name.clone(), before));
        }
    };
    match (param, arg) {
        (_, Ty::Error) => true,
        (Ty::Generic(name), _) => match generics.get(name) {
            Some(bound) => {
                if bound.accepts(arg) || arg.accepts(bound) {
                    let joined = super::join::join_types(bound, arg);
                    set(generics, name, joined);
                    true
                } else {
                    false
                }
            }
            None => {
                set(generics, name, arg.clone());
                true
            }
        },
        (Ty::List(p, _, _), Ty::List(a, _, _)) => bind_logged(p, a, generics, undo, skip_own),
        (Ty::Option(p), Ty::Option(a)) => bind_logged(p, a, generics, undo, skip_own),
        (Ty::Option(p), a) => bind_logged(p, a, generics, undo, skip_own),
        (Ty::Stream(p), Ty::Stream(a)) => bind_logged(&p.elem, &a.elem, generics, undo, skip_own),
        (Ty::Fn(p), Ty::Fn(a)) => {
            // A returned function's parameter with its own ends admits any
            // value: it fixes nothing (`returned.rs`), where binding `T` to
            // it would make `T` a measure of that function alone.
            p.params.len() == a.params.len()
                && p.params.iter().zip(&a.params).all(|(x, y)| {
                    (skip_own && super::returned::admits_any(y))
                        || bind_logged(x, y, generics, undo.as_deref_mut(), skip_own)
                })
                // Its result in terms of them is bound once the call has
                // resolved it against what the callee passes it.
                && ((skip_own && super::returned::mentions_own(&a.ret))
                    || bind_logged(&p.ret, &a.ret, generics, undo, skip_own))
        }
        // The same fields, no more: a record of more fields is another
        // type (as `Ty::accepts` has it for a `let` or an `if`), and the
        // plan reads a field at its name's rank among the type's names.
        (Ty::Record(p), Ty::Record(a)) => {
            p.len() == a.len()
                && p.iter().all(|(n, t)| {
                    a.iter().any(|(m, u)| {
                        n == m && bind_logged(t, u, generics, undo.as_deref_mut(), skip_own)
                    })
                })
        }
        _ => param.accepts(arg),
    }
}
