//! Which check (or evaluation) of a body each binding and each lambda belongs to: a binding made outside every lambda body has one value per run, and a lambda is applied in the check it was made in or elsewhere (spec/cost.md §3.1, the facts a lambda's body is checked under); the checker and the plan verifier both keep one.
//!
//! A lambda's body is checked once for many runs of it (each element of a
//! `map`, each application answered from the same check), so a binding
//! made inside it stands for many values under one identity. A fact about
//! such a binding holds of the value in the run that tested it; a lambda
//! made in another run captured another value under the same identity. So
//! the facts around an application reach a lambda's body whole only where
//! the lambda was made in the same check (its bindings are the
//! application's), and otherwise only their comparisons of bindings with
//! one value per run (`Frames::top_level`).

use std::collections::HashSet;

/// The check of a body in progress and the bindings made outside every
/// lambda body.
#[derive(Debug, Default)]
pub struct Frames {
    /// The check in progress: 0 outside every lambda body.
    pub current: u64,
    /// The last check's number.
    last: u64,
    /// The identities of the bindings made outside every lambda body.
    top_level: HashSet<u64>,
}

impl Frames {
    /// A check of a lambda's body begins: its number, and the one to give
    /// back to [`Frames::leave`] when it ends.
    pub fn enter(&mut self) -> u64 {
        self.last += 1;
        std::mem::replace(&mut self.current, self.last)
    }

    /// The check begun by [`Frames::enter`] ends; `outer` is what it gave.
    pub fn leave(&mut self, outer: u64) {
        self.current = outer;
    }

    /// A binding `binding` is made here.
    pub fn bound(&mut self, binding: u64) {
        if self.current == 0 {
            self.top_level.insert(binding);
        }
    }

    /// Whether `binding` was made outside every lambda body: one value
    /// per run.
    pub fn top_level(&self, binding: u64) -> bool {
        self.top_level.contains(&binding)
    }
}
