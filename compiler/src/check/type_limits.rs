//! The limits on a value's type (E0423): how many parts it may have and how deep it may nest.

use super::expr::{Checked, Checker};
use crate::span::Span;

/// The most parts a value's type may have, and the most levels it may
/// nest. Types are copied where a name is used, so a record holding a name
/// twice, bound by a `let`, doubles at each one, and a chain of `let`s
/// each wrapping the last nests one more: past the limits the value is
/// refused (E0423), in time and memory proportional to them.
pub const MAX_TYPE_PARTS: usize = 10_000;
pub const MAX_TYPE_DEPTH: usize = 100;

impl Checker<'_> {
    /// `checked`, or E0423 when its type passes the limits.
    pub(super) fn type_within_limits(&mut self, checked: Checked, span: Span) -> Checked {
        if checked.ty.within(MAX_TYPE_PARTS, MAX_TYPE_DEPTH) {
            return checked;
        }
        self.error(
            "E0423",
            format!(
                "this value's type has more than {MAX_TYPE_PARTS} parts, or nests more than {MAX_TYPE_DEPTH} levels"
            ),
            span,
            "too large a type",
        )
        .help
        .push(
            "a record or list that holds a named value twice doubles its type at each `let`; \
             keep one copy of the value, or nest fewer levels"
                .into(),
        );
        Checked::error()
    }
}
