//! The RQL compiler: syntax, diagnostics, checking and planning, with no IO.
//!
//! Stages, each with its own representation: text → tokens → AST
//! (`syntax`) → checked program (`check`) → index-only plans (`plan`).
//! Errors are plain `Diagnostic` values returned by the stage that finds them.

pub mod check;
mod compile;
/// The cost calculus and value intervals (the `rqc-cost` crate, shared with
/// the runtime's plan verifier).
pub use rqc_cost as cost;
pub mod db;
pub mod diagnostics;
pub mod ide;
pub mod plan;
pub mod span;
/// The deep stack compilation runs on (shared with the runtime, which runs
/// deep plans on it).
pub use rqc_plan::stack;
pub mod syntax;

pub use compile::{compile, compile_analysis, compile_checked, compile_for_exit, Compilation};
pub use diagnostics::{Diagnostic, Severity, Sources};
pub use span::Span;
