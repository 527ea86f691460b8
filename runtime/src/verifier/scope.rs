//! The names in scope of the verifier's abstract run: each binding's abstract value, its identity, and what it says of the integers it compared or summed.

use super::abstract_value::Abs;
use super::narrowing::Condition;
use std::rc::Rc;
use std::sync::Arc;

/// The names in scope: a persistent list, newest first (as the executor's
/// `Env`), so a lambda keeps the scope it was made in.
pub(super) type Scope<'p> = Option<Rc<Binding<'p>>>;

pub(super) struct Binding<'p> {
    pub name: &'p str,
    pub value: Abs<'p>,
    /// The binding's identity: kept when an `if` narrows it, new for each
    /// `let` and each application's parameter (`narrowing.rs`).
    pub id: u64,
    /// What the value says of the integers it compared, for a `Bool` a
    /// `let` bound to a condition.
    pub condition: Option<Arc<Condition<'p>>>,
    /// An `Int` a `let` bound to a sum of named values and literals: that
    /// sum (`narrowing.rs`, as the checker's `Local::definition`).
    pub definition: Option<Arc<super::narrowing::Side<'p>>>,
    pub outer: Scope<'p>,
}

/// The binding of `name` in `scope`, if any.
pub(super) fn find<'s, 'p>(scope: &'s Scope<'p>, name: &str) -> Option<&'s Binding<'p>> {
    let mut at = scope.as_deref();
    while let Some(binding) = at {
        if binding.name == name {
            return Some(binding);
        }
        at = binding.outer.as_deref();
    }
    None
}

/// `scope` with `name` bound on top to `value` under the identity `id`
/// (a lambda's parameter, as its application bound it: `apply.rs`).
pub(super) fn bound<'p>(scope: &Scope<'p>, name: &'p str, id: u64, value: &Abs<'p>) -> Scope<'p> {
    Some(Rc::new(Binding {
        name,
        value: value.clone(),
        id,
        condition: None,
        definition: None,
        outer: scope.clone(),
    }))
}
