//! Several entry points run in one write transaction: every write of all of them commits together, with one commit (and one sync), or none does.

use crate::engine::{check_args, evaluate, retrying, Engine, Output};
use crate::error::{Result, RuntimeError};
use crate::session::Session;
use rqc_plan::Value;

/// The runs of one transaction (see [`Engine::transaction`]).
pub struct Transaction<'e> {
    engine: &'e Engine,
    /// Taken by each run and given back; `None` only while a run holds it.
    session: Option<Session<'e>>,
}

impl Transaction<'_> {
    /// Runs a query or mutation inside the transaction: it sees the
    /// transaction's earlier writes, and is held to its own bound.
    pub fn run(&mut self, name: &str, args: &[Value]) -> Result<Output> {
        let entry = self.engine.entry(name)?;
        let args = &check_args(entry, args)?[..];
        let (bound, accesses) = self.engine.bound_entry(entry)?;
        let session = self.session.take().ok_or_else(failed_earlier)?;
        // A failed run leaves the transaction without its session: nothing
        // of it can commit any more.
        let (output, session) = evaluate(bound, &accesses, entry, args, session, false)?;
        self.session = Some(session);
        Ok(output)
    }
}

impl Engine {
    /// Runs `body` in one write transaction: the runs it makes see each
    /// other's writes, and all of their writes commit at once when it
    /// returns `Ok` (nothing commits when it returns an error). A commit
    /// that conflicts runs `body` again from the start, so it must have no
    /// effect outside the transaction.
    pub fn transaction<T>(&self, body: impl Fn(&mut Transaction<'_>) -> Result<T>) -> Result<T> {
        let (value, _) = retrying(|| {
            let mut transaction = Transaction {
                engine: self,
                session: Some(self.write_session()?),
            };
            let value = body(&mut transaction)?;
            let session = transaction.session.take().ok_or_else(failed_earlier)?;
            session.commit()?;
            Ok(value)
        })?;
        Ok(value)
    }
}

/// E0597: a run, or the commit, after a run of the transaction failed.
fn failed_earlier() -> RuntimeError {
    RuntimeError::new(
        "E0597",
        "a run of this transaction failed, so nothing of it can run or commit any more",
        "return the failed run's error from the transaction's body (`?`): the transaction is then dropped, and nothing of it is written",
    )
}
