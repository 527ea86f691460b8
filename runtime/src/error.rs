//! Runtime errors: each with a stable code, a message and a help line.

use std::fmt;

/// What went wrong at run time. `code` is stable (see spec/errors.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    pub code: &'static str,
    pub message: String,
    pub help: String,
}

const STORE_FAILED: &str = "E0590";
const CONFLICT: &str = "E0595";

impl RuntimeError {
    pub fn new(code: &'static str, message: impl Into<String>, help: impl Into<String>) -> Self {
        RuntimeError {
            code,
            message: message.into(),
            help: help.into(),
        }
    }

    pub fn store(error: impl fmt::Display) -> Self {
        RuntimeError::new(
            STORE_FAILED,
            format!("the storage engine failed: {error}"),
            "check that the database directory is writable and the disk is not full; nothing of the failed operation was committed",
        )
    }

    /// A transaction lost to a concurrent one (a store with optimistic
    /// transactions reports it, at a read or at the commit): nothing of it
    /// was stored, and the engine runs the whole mutation again.
    pub fn conflict(error: impl fmt::Display) -> Self {
        RuntimeError::new(
            CONFLICT,
            format!("the transaction conflicted with another one: {error}"),
            "nothing was committed; run it again",
        )
    }

    pub fn is_conflict(&self) -> bool {
        self.code == CONFLICT
    }

    /// Whether the store failed (not the data or the program): such an
    /// error stops a run or a load whole, whatever row it met.
    pub fn is_store_failure(&self) -> bool {
        self.code == STORE_FAILED || self.is_conflict()
    }

    pub fn corrupt(what: &str) -> Self {
        RuntimeError::new(
            "E0591",
            format!("stored data could not be decoded: {what}"),
            "the database may have been written by another program or damaged; restore it from a backup",
        )
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.code, self.message)
    }
}

impl std::error::Error for RuntimeError {}

pub type Result<T> = std::result::Result<T, RuntimeError>;
