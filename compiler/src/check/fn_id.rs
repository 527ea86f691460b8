//! A defined function as a call in the typed tree names it: its `module.name` interned, so a call holds one pointer, compared and hashed by address, and the planner finds the body by it without comparing names.
//!
//! Interned once per process, as size variables are (`rqc_cost::Var`): the
//! id stays the same across re-checks of a changed program, so a typed
//! body that calls the same functions compares equal to the one it
//! replaces (salsa keeps the plans built on it), which an index into the
//! program's definitions would not (it shifts when one is added). What it
//! keeps is bounded by the function names of the programs the process has
//! seen.

use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, OnceLock};

/// A called definition, by its interned `module.name`.
#[derive(Clone, Copy)]
pub struct FnId(&'static str);

impl FnId {
    /// The one id of `qualified` (`module.name`).
    pub fn new(qualified: &str) -> FnId {
        static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
        // An insert is one step: a panic while the lock is held leaves the
        // set whole, so a poisoned lock is still sound.
        let mut names = NAMES
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(&known) = names.get(qualified) {
            return FnId(known);
        }
        let leaked: &'static str = Box::leak(qualified.to_owned().into_boxed_str());
        names.insert(leaked);
        FnId(leaked)
    }

    /// Its `module.name`, for messages and for finding its definition.
    pub fn name(self) -> &'static str {
        self.0
    }
}

/// One name, one id: the address decides.
impl PartialEq for FnId {
    fn eq(&self, other: &FnId) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for FnId {}

impl Hash for FnId {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::ptr::hash(self.0, state);
    }
}

impl fmt::Debug for FnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for FnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::FnId;

    #[test]
    fn one_name_is_one_id_and_two_are_two() {
        let (a, b) = (FnId::new("m.f"), FnId::new(&format!("m.{}", "f")));
        assert_eq!(a, b);
        assert!(std::ptr::eq(a.name(), b.name()));
        assert_ne!(a, FnId::new("m.g"));
        assert_eq!(a.to_string(), "m.f");
    }
}
