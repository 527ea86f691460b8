//! The check of a plan that the runtime makes at install, passed in from above, so that a plan the checker accepts and the install would refuse is a rejection where it is written.
//!
//! The compiler does no IO and knows no runtime; the runtime's plan
//! verifier (`rqc_runtime::verifier`) recomputes every bound from the plan
//! itself, and its own work has a limit (E0641: lambdas applying lambdas
//! level upon level) that the checker, which costs each function once,
//! does not model. A front end that installs what it compiles (the `rqc`
//! library and command) passes the verifier in as a [`PlanCheck`]; each
//! accepted entry point's plan is then checked as it is made
//! (`db::entry_plan`), and one the verifier refuses is rejected with the
//! verifier's code, before anything is installed.

use rqc_plan::{Entry, Schema};

/// What refuses a plan, as the install would.
pub trait PlanCheck: Send + Sync {
    /// Why `entry`, in a program whose schema is `schema`, would be
    /// refused at install; `None` when it would not.
    fn refusal(&self, schema: &Schema, entry: &Entry) -> Option<Refusal>;
}

/// A plan's refusal, as data: the verifier's stable code, what it found,
/// and what the writer of the program can do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub code: String,
    pub message: String,
    pub help: String,
}
