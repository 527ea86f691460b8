//! Planning: lowering checked entries to index-only plans, and printing plans as trees.

mod explain;
mod inline;
mod lower;

pub use explain::{explain, explain_with, listens};
pub use lower::{lower_entry, lower_program, FunctionSource, InternalError};
