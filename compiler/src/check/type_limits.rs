//! The limits on a value's type (E0423): how many parts it may have, how deep it may nest, and how many values a value of it may hold.

use super::expr::{Checked, Checker};
use super::types::Ty;
use crate::cost::{Cost, Poly};
use crate::span::Span;

/// The most parts a value's type may have, and the most levels it may
/// nest. Types are copied where a name is used, so a record holding a name
/// twice, bound by a `let`, doubles at each one, and a chain of `let`s
/// each wrapping the last nests one more: past the limits the value is
/// refused (E0423), in time and memory proportional to them.
pub const MAX_TYPE_PARTS: usize = 10_000;
pub const MAX_TYPE_DEPTH: usize = 100;

/// The most values one value may hold, every list at its longest (E0423).
/// A list literal of a named list doubles it at each `let` (`let b = [a,
/// a]`) while its type stays small; comparing or printing it walks every
/// element, so 24 such `let`s made a query printed `seeks ≤ 0 rows ≤ 0`
/// run 18 s in 2.6 GB (adversary finding). A value built from rows holds
/// what the rows read bound; this limit is on what a program builds. The
/// steps (values visited in memory) are held to `rqc_cost::steps_room`: a
/// list built by doubling may be 2^20 long while reading nothing, and a
/// combinator over it inside another's function multiplies the two (2^40
/// steps for a query printed `rows ≤ 0`, adversary finding).
pub use crate::cost::MAX_VALUE_PARTS;

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

    /// Notes the value of `ty` that the run walks whole at `span` (a
    /// comparison's operands, a flattened list, the elements `distinct`
    /// and `group_by` compare, an entry point's result, which is encoded)
    /// when it may hold more than [`MAX_VALUE_PARTS`] values; the
    /// definition's verdict compares the largest with its rows
    /// ([`Checker::values_within_reads`]). A value only built and passed
    /// on is its shared parts, made in time linear in the program
    /// (`tests/tests/shared_values.rs`), and is not noted.
    ///
    /// Returns the steps the walk takes: a step per value, as a formula.
    pub(super) fn note_value_size(&mut self, ty: &Ty, span: Span) -> Poly {
        let steps = ty.walk_steps();
        let Some(values) = ty.most_values() else {
            return steps;
        };
        // Only a value that holds rows may be as large as its reads.
        let slot = &mut self.largest_value[usize::from(ty.any(&|t| matches!(t, Ty::Row(..))))];
        if values > MAX_VALUE_PARTS && slot.is_none_or(|(most, _)| values > most) {
            *slot = Some((values, span));
        }
        steps
    }

    /// E0426 when an entry point's steps may pass `rqc_cost::steps_room`
    /// for the rows it may read and the values its arguments may hold
    /// (`passed`). A definition with
    /// errors, or whose rows are unbounded (reported as such), is not
    /// judged. A function's steps are a formula of its callers' measures,
    /// added to each caller's.
    pub(super) fn steps_within_reads(&mut self, cost: &Cost, passed: u64, span: Span) {
        if self.diagnostics.iter().any(|d| d.is_error()) {
            return;
        }
        let Some(rows) = cost.rows.max_value() else {
            return;
        };
        let inputs = rows.saturating_add(passed);
        let room = crate::cost::steps_room(inputs);
        let steps = cost.steps.max_value();
        if steps.is_some_and(|steps| steps <= room) {
            return;
        }
        let shown = super::result_checks::shown_count(steps);
        self.error(
            "E0426",
            format!(
                "this definition may take {shown} steps in memory (operators evaluated, elements gone through, values compared), more than the {room} allowed over the {inputs} rows and argument values it may take in"
            ),
            span,
            "too much work in memory",
        )
        .help
        .push(
            "a list the program builds may be long while reading nothing, and work in a lambda is done once per element it is applied to; \
             go through, sort or build shorter lists, or compute the inner work once with `let`, outside the lambda"
                .into(),
        );
    }

    /// E0423 when a value the definition walks may hold more than
    /// [`MAX_VALUE_PARTS`] values and, for a value holding rows, more than
    /// `(r + 1)²` for the `r` rows it may read: a value of rows holds what
    /// the reads bound, however
    /// large, but its type may say more (`group_by` over `r` rows is `r`
    /// groups of a key and at most `r` rows, `r·(r + 1)` by its type, `2r`
    /// in fact). A definition with errors already is not judged. A
    /// function whose rows are a formula of its callers' measures is not
    /// judged here: its callers' values are, where they are built.
    pub(super) fn values_within_reads(&mut self, cost: &Cost) {
        let [built, of_rows] = std::mem::take(&mut self.largest_value);
        if self.diagnostics.iter().any(|d| d.is_error()) {
            return;
        }
        // A value without rows: 2^20 whatever the definition reads (a
        // list doubled beside a read of 55,000 rows is no value of them).
        if let Some((values, span)) = built {
            return self.too_large(values, span, "it holds no rows");
        }
        let (Some((values, span)), Some(rows)) = (of_rows, cost.rows.max_value()) else {
            return;
        };
        let room = rows.saturating_add(1);
        if values > room.saturating_mul(room) {
            self.too_large(
                values,
                span,
                &format!("the definition's {rows} rows could not fill it"),
            );
        }
    }

    fn too_large(&mut self, values: u64, span: Span, why: &str) {
        self.error(
            "E0423",
            format!(
                "the run walks this value whole (it compares, flattens, groups or returns it), and it may hold {values} values: more than {MAX_VALUE_PARTS}, and {why}"
            ),
            span,
            "too large a value",
        )
        .help
        .push(
            "a list that holds a named list twice doubles at each `let`; \
             walk a smaller part of it (`|> first()`, `|> count()`), or build it from fewer copies"
                .into(),
        );
    }
}
