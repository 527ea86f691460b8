//! The RQL runtime: stores, encodings, the catalog, constraint checks and the plan executor.
//!
//! It takes a `CompiledProgram` (schema and plans, from `rqc-plan`) and knows
//! nothing of the compiler's internals. It never trusts a plan blindly: a
//! program is verified whole before it is installed (`verifier`), every
//! declared constraint is enforced on write and reads are counted against
//! their static bounds.

pub mod aggregates;
mod arithmetic;
mod backoff;
mod batch;
mod batched_load;
pub mod bound;
mod cascade;
pub mod catalog;
pub mod clock;
mod column_changes;
mod combinators;
mod commit_limit;
mod migrate;
pub use commit_limit::widened;
pub mod constraints;
pub mod dump;
pub mod encoding;
pub mod engine;
mod entry_args;
pub mod entry_bytes;
pub mod error;
pub mod error_codes;
mod evaluate;
mod group;
mod halt;
mod interp;
pub mod interrupt;
pub mod live;
pub mod load;
mod lookup;
pub mod meter;
mod open;
mod output;
pub mod page;
pub mod plan_format;
mod read_ahead;
pub mod row_types;
pub mod rows;
mod scan;
pub mod session;
mod stale_schema;
pub mod store;
pub mod transaction;
pub mod upgrade;
mod values;
pub mod verifier;
pub mod verify;
mod writes;

pub use engine::{Backend, Durability, Engine, OpenOptions, Output, Stats};
pub use error::{ErrorKind, Result, RuntimeError};
pub use load::{LoadReport, LoadRow, LoadRows, RowSource, KEPT_REFUSALS};
pub use open::{check_room_for_load, upgrade_layout, Converted};
#[cfg(test)]
mod batch_tests;
