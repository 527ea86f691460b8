//! rqc: the realtime query compiler, as a library to embed and as the `rqc` binary.
//!
//! [`Database`] opens an embedded database, installs an RQL program and runs
//! its queries and mutations; every query it runs was proved `O(log N)` by
//! the checker. The `cli` module is the binary's thin front end over it.

pub mod cli;
mod database;
mod error;
pub mod lsp;
pub mod repl;
pub mod rowfile;
mod sources;

pub use database::{compile_checked, Backend, Database, OpenOptions, Output, Prepared};
pub use error::Error;
pub use rqc_compiler as compiler;
pub use rqc_plan::{CompiledProgram, Value};
pub use sources::read_program;
