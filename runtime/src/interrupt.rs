//! A front end's Ctrl-C: a run asked to stop ends at its next operator with E0586, its transaction rolled back, and the session goes on.
//!
//! The flag is process-wide, as a signal is: the REPL's SIGINT handler sets
//! it while a command runs (`cli/src/repl`). Evaluating an operator reads
//! it (one relaxed load), so a run that computes for long, reading nothing,
//! stops too.

use crate::error::{Result, RuntimeError};
use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks the run in progress to stop. Async-signal-safe: one atomic store.
pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Forgets a request, before a command starts.
pub fn clear() {
    REQUESTED.store(false, Ordering::Relaxed);
}

/// E0586 once a stop was requested.
pub(crate) fn check() -> Result<()> {
    if REQUESTED.load(Ordering::Relaxed) {
        return Err(RuntimeError::new(
            "E0586",
            "the run was interrupted (Ctrl-C): nothing was committed",
            "run it again when you want its answer; nothing else is kept of it",
        ));
    }
    Ok(())
}
