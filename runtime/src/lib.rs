//! The RQL runtime: stores, encodings, the catalog, constraint checks and the plan executor.
//!
//! It takes a `CompiledProgram` (schema and plans, from `rqc-plan`) and knows
//! nothing of the compiler's internals. It never trusts a plan blindly: every
//! declared constraint is enforced on write and reads are counted against
//! their static bounds.

pub mod catalog;
pub mod encoding;
pub mod engine;
pub mod error;
pub mod exec;
pub mod store;
pub mod writes;

pub use engine::{Backend, Engine, OpenOptions};
pub use error::{Result, RuntimeError};
pub use exec::{Output, Stats};
