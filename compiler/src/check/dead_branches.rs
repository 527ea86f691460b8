//! A branch an `if`'s condition rules out (`if false`, `if 1 > 2`, a comparison its sides' ranges decide): checked for what it is, but neither its cost nor its type is the `if`'s, as the plan verifier leaves it out (`rqc_cost::infeasible`).

use super::expr::{Checked, Checker};
use super::narrowing::Condition;
use super::types::Ty;
use crate::syntax::ast::Expr;
use std::sync::Arc;

impl Checker<'_> {
    /// `branch`, checked where `condition` is `holds`, and whether it can
    /// never run there (`rqc_cost::infeasible`: the condition's literals,
    /// or the ranges of what it compares, rule that outcome out). A branch
    /// that never runs reports no error a value decides (an unbounded
    /// `take(n)`), as a lambda never applied does, where it still has a
    /// plan: its names, types and shapes are still checked, and the plan
    /// keeps it (the verifier, reading the same condition, does not
    /// evaluate it).
    pub(super) fn check_branch(
        &mut self,
        condition: &Arc<Condition>,
        holds: bool,
        branch: &Expr,
        expected: Option<&Ty>,
    ) -> (Checked, bool) {
        let never_runs = crate::cost::infeasible(condition, holds);
        let before = self.diagnostics.len();
        let checked = self.narrowed(condition, holds, |this| {
            this.check_expected(branch, expected)
        });
        // Where an error left no plan for it (a scan, `Post.by_author[a]
        // |> count()`, has none), the errors stay: a plan holds every
        // branch, and one with no plan is refused with its reason.
        if never_runs && !super::tir::contains_error(&checked.tir) {
            self.drop_value_dependent_since(before);
        }
        (checked, never_runs)
    }
}
