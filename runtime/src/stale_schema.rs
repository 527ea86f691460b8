//! Whether a handle's program still fits the database: the schema generation it was installed or opened at against the catalog's, for every run (E0550) and every page token.

use crate::catalog;
use crate::engine::Engine;
use crate::error::{Result, RuntimeError};
use std::sync::atomic::Ordering;

impl Engine {
    /// The schema generation the installed program was installed or
    /// opened at (a page token is bound to it).
    pub(crate) fn schema_generation(&self) -> Result<&[u8]> {
        Ok(&self.bound_program()?.generation)
    }

    /// Refuses a run whose catalog holds another schema than this handle's
    /// program was installed or opened at (E0550): its plans were proved
    /// for the schema it held then. On a local store one read of a
    /// memory-mapped page, outside the run's counted work; on a remote
    /// store (a request limit: etcd) a read would be a round trip the bound
    /// does not print, so the run's first request compares the generation
    /// instead (`ReadTxn::expect_on_first_read`), and a mutation's commit
    /// compares it again (spec/live.md, "A run by an older handle").
    pub(crate) fn same_schema(&self, txn: &dyn crate::store::ReadTxn) -> Result<()> {
        let installed = self.bound_program()?;
        if self.store().request_limit().is_some() {
            // Compared within the run's first request (no round trip more).
            if !installed.generation.is_empty() {
                txn.expect_on_first_read(
                    installed.catalog,
                    catalog::GENERATION_KEY,
                    &installed.generation,
                );
            }
            return Ok(());
        }
        // A snapshot already found to hold the generation holds it still:
        // the catalog's page is not read again at every run.
        let snapshot = txn.snapshot().map(|s| s.wrapping_add(1));
        let seen = &installed.generation_seen;
        if snapshot.is_some_and(|s| s != 0 && seen.load(Ordering::Relaxed) == s) {
            return Ok(());
        }
        if catalog::generation(txn, installed.catalog)? != installed.generation {
            return Err(RuntimeError::stale_schema_read());
        }
        if let Some(snapshot) = snapshot {
            seen.store(snapshot, Ordering::Relaxed);
        }
        Ok(())
    }

    /// A run that went past its bound (E0599) in a handle whose schema
    /// another process changed since is a stale handle, not a bug: E0550.
    pub(crate) fn explained(&self, error: RuntimeError) -> RuntimeError {
        if error.code != "E0599" {
            return error;
        }
        let Ok(installed) = self.bound_program() else {
            return error;
        };
        let now = self
            .store()
            .begin_read()
            .and_then(|txn| catalog::generation(txn.as_ref(), installed.catalog));
        match now {
            Ok(now) if now != installed.generation => RuntimeError::stale_schema_read(),
            _ => error,
        }
    }
}
