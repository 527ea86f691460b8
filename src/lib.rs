//! rqc: the realtime query compiler, as a library to embed.
#![deny(missing_docs)]
//!
//! [`Database`] opens an embedded database, installs an RQL program and runs
//! its queries and mutations; every query it runs was proved `O(log N)` by
//! the checker. The installed program (schema and plans) is kept in the
//! database, so a database opened again runs it without its sources; a plan
//! file written by `rqc compile -o` installs with [`Database::install_plan`].
//!
//! Installing from sources follows one rule, the same for this library and
//! the `rqc` command line (see [`install`]): a program whose shape — syntax,
//! schema, modules, imports — is sound installs its accepted queries and
//! mutations and reports the rejected definitions' diagnostics as warnings
//! in [`Installed`]; a program whose shape is unsound is [`Error::Compile`]
//! and installs nothing.
//!
//! The front ends — the `rqc` binary with its REPL and language server —
//! are the `rqc-cli` crate, so embedding this one compiles none of theirs.

mod database;
mod error;
pub mod install;
mod prepared;
mod sources;
mod transaction;

#[cfg(feature = "etcd")]
pub use database::EtcdOptions;
pub use database::{Backend, Database, Durability, OpenOptions, Output};
pub use error::Error;
pub use install::{compile_installable, Installable, Installed};
pub use prepared::Prepared;
pub use rqc_compiler as compiler;
pub use rqc_plan::{CompiledProgram, Entry, Value};
pub use rqc_runtime::dump::{Dump, Dumped};
pub use rqc_runtime::live::{Event, LiveStats, Resume, Subscription, WatchOptions};
pub use rqc_runtime::page::Page;
pub use rqc_runtime::upgrade::Upgraded;
pub use rqc_runtime::verify::Verification;
pub use rqc_runtime::Converted;
pub use rqc_runtime::{
    ErrorKind, LoadReport, LoadRow, LoadRows, RowSource, RuntimeError, Stats, KEPT_REFUSALS,
};
pub use sources::{read_plan, read_program, read_source, MAX_SOURCE_BYTES};
pub use transaction::{Transaction, TxPrepared};
