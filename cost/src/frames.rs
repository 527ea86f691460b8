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
//! one value here (`Frames::one_value`): made outside every lambda body,
//! or in a check still in progress, whose run this place is inside (a
//! lambda made in another run of it cannot reach here: the runs of a body
//! are apart, and their results are gathered only after).

use std::collections::HashMap;

/// The checks of bodies in progress, and where each binding made inside a
/// lambda body was made.
#[derive(Debug)]
pub struct Frames {
    /// The checks in progress, outermost first: 0, outside every lambda
    /// body, then one per body being checked inside the last.
    active: Vec<u64>,
    /// The last check's number.
    last: u64,
    /// The check each binding made inside a lambda body was made in (one
    /// made outside every lambda body is not held: check 0).
    made_in: HashMap<u64, u64>,
}

impl Default for Frames {
    fn default() -> Self {
        Frames {
            active: vec![0],
            last: 0,
            made_in: HashMap::new(),
        }
    }
}

impl Frames {
    /// The check in progress.
    pub fn current(&self) -> u64 {
        self.active.last().copied().unwrap_or(0)
    }

    /// The checks in progress, outermost first.
    pub fn active(&self) -> &[u64] {
        &self.active
    }

    /// A check of a lambda's body begins, inside the one in progress.
    pub fn enter(&mut self) {
        self.last += 1;
        self.active.push(self.last);
    }

    /// The check begun by the last [`Frames::enter`] ends.
    pub fn leave(&mut self) {
        if self.active.len() > 1 {
            self.active.pop();
        }
    }

    /// A binding `binding` is made here.
    pub fn bound(&mut self, binding: u64) {
        let current = self.current();
        if current != 0 {
            self.made_in.insert(binding, current);
        }
    }

    /// Whether `binding` has one value wherever it is read now: it was
    /// made in a check still in progress (outside every lambda body, or in
    /// the body of a run this place is inside), so every lambda that can
    /// reach this place holding it holds that run's value.
    pub fn one_value(&self, binding: u64) -> bool {
        match self.made_in.get(&binding) {
            None => true,
            Some(check) => self.active.contains(check),
        }
    }
}
