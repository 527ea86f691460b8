//! Planning: lowering checked entries to index-only plans, and printing plans as trees.

mod budget;
mod explain;
mod explain_upkeep;
mod inline;
mod lower;
mod plan_check;

pub use budget::{PlanError, MAX_PLAN_DEPTH, PLAN_STEP_LIMIT};
pub use explain::{explain, explain_with, listens};
pub use lower::{lower_entry, lower_program, FunctionSource};
pub use plan_check::{PlanCheck, Refusal};
