//! What only an argument of no known type fixes (a lambda's parameter while the lambda is checked before it is applied, or a value an error was reported at): its measures and type parameters are unknown, not unbounded or a guess.
//!
//! A lambda written where nothing gives its parameters' types is checked
//! once with them unknown (`Ty::Error`, `functions.rs`, `delay_lambda`), so
//! that what does not depend on them is reported even if it is never
//! applied; its cost there is discarded, each application checks it again.
//! A call in its body given such a parameter (`m => take(idn(m))`) bound
//! none of the callee's measures at that argument, and an unbound measure
//! is unbounded (`measures::instantiate`): `take` refused a count that is
//! only unknown (E0302), and the refusal stood, though every application
//! was bounded. So such measures are bound to 0 for the call's cost (it is
//! either discarded, or the definition's, which an error already rejects),
//! and a result holding one is unknown (`Error`, which fits everything and
//! bounds nothing a limit could rely on: a count of unknown type is 0 rows,
//! reported nowhere, as `take(m)` itself is).

use super::expr::FnSig;
use super::measures::{self, Bindings};
use super::types::Ty;
use crate::cost::{Poly, Var};
use std::collections::{BTreeMap, BTreeSet};

/// The signature's measures at the parameters whose arguments are of no
/// known type, that no other argument bound.
pub fn unknown_measures(sig: &FnSig, arg_tys: &[Option<Ty>], bindings: &Bindings) -> BTreeSet<Var> {
    sig.params
        .iter()
        .zip(arg_tys)
        .filter(|(_, arg)| arg.as_ref().is_some_and(Ty::is_error))
        .flat_map(|((_, pty), _)| measures::generic_vars(pty))
        .filter(|var| !bindings.contains_key(var))
        .collect()
}

/// `bindings` with each unknown measure at 0, for the call's cost.
pub fn bind_unknown(unknown: &BTreeSet<Var>, bindings: &mut Bindings) {
    for var in unknown {
        bindings.insert(*var, Poly::zero());
    }
}

/// Whether the result `ret` (the signature's) holds an unknown measure.
pub fn holds_unknown(ret: &Ty, unknown: &BTreeSet<Var>) -> bool {
    !unknown.is_empty() && ret.any_poly(&|p| p.any_var(|v: &Var| unknown.contains(v)))
}

/// A function argument whose body had an error (reported there) fixes the
/// type parameters it alone could fix at `Error`, which fits everything:
/// no second error for a `U` nothing else fixes.
pub(super) fn unknown_after_error(pty: &Ty, arg: &Ty, generics: &mut BTreeMap<String, Ty>) {
    let failed = match arg {
        Ty::Fn(f) => f.ret.is_error(),
        other => other.is_error(),
    };
    if failed {
        unknown_generics(pty, generics);
    }
}

/// Each type parameter of `pty` nothing bound yet, unknown: `Error`, which
/// fits everything (an error was reported, or nothing could fix it).
pub(super) fn unknown_generics(pty: &Ty, generics: &mut BTreeMap<String, Ty>) {
    for generic in pty.generics() {
        generics.entry(generic).or_insert(Ty::Error);
    }
}
