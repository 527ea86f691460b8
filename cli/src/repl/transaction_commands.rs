//! The REPL's `:begin`, `:commit` and `:rollback`, and what the session's end says of a transaction left open (the transaction itself lives in `transaction.rs`).

use super::{transaction, Repl};

impl Repl {
    /// `:begin`: opens a transaction (E0451 when one is open).
    pub(super) fn begin(&mut self) -> String {
        if self.open.is_some() {
            return self.error_text(&transaction::misplaced(
                "a transaction is already open",
                "`:commit` or `:rollback` it first; transactions do not nest",
            ));
        }
        match transaction::Open::begin(&self.db, self.idle) {
            Ok(open) => {
                self.open = Some(open);
                self.calls = 0;
                "transaction begun: its calls are written together at :commit (or not at all: :rollback)".into()
            }
            Err(error) => self.error_text(&error),
        }
    }

    /// `:commit`: stores the open transaction's writes, with one commit.
    pub(super) fn commit(&mut self) -> String {
        let Some(open) = self.open.take() else {
            return self.no_transaction(":commit");
        };
        match open.commit() {
            Ok(done) => {
                let plural = if self.calls == 1 { "" } else { "s" };
                let retried = if done.attempts > 1 {
                    format!(" · {} attempts (conflicts)", done.attempts)
                } else {
                    String::new()
                };
                format!(
                    "committed {} call{plural} in one transaction · seeks {} (bound {}) · rows read {} (bound {}) · round trips {} (bound {}){retried}",
                    self.calls,
                    done.stats.seeks,
                    done.bound.seeks,
                    done.stats.rows,
                    done.bound.rows,
                    done.stats.round_trips,
                    done.bound.round_trips
                )
            }
            Err(error) => self.error_text(&error),
        }
    }

    /// `:rollback`: drops the open transaction.
    pub(super) fn rollback(&mut self) -> String {
        match self.open.take() {
            Some(open) => {
                drop(open);
                "rolled back: nothing of the transaction was written".into()
            }
            None => self.no_transaction(":rollback"),
        }
    }

    fn no_transaction(&self, command: &str) -> String {
        self.error_text(&transaction::misplaced(
            &format!("`{command}` with no transaction open"),
            "`:begin` one first",
        ))
    }

    /// At the session's end, an open transaction is rolled back: what to
    /// say of it, if one was.
    pub fn end(&mut self) -> Option<String> {
        let open = self.open.take()?;
        drop(open);
        self.failed.set(true);
        let message = "the session ended inside a transaction, which is rolled back: nothing of it was written";
        Some(self.problem("E0453", message, &["end it with `:commit` to store it"]))
    }
}
