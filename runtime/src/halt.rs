//! Why an evaluation stopped short of a value: an error, or one of a dry read-ahead pass's two control values, which `batch` catches and no user ever sees.
//!
//! The executor's functions return [`Eval`]; `?` on a [`RuntimeError`]
//! makes it a [`Halt::Error`], so errors flow as they always did. A dry pass
//! (`batch`, `read_ahead`) stops at a read not made yet ([`Halt::Blocked`],
//! the session having noted the read as wanted) or at a write
//! ([`Halt::DryWrite`], before anything of it runs). Where the engine calls
//! the executor, [`Halt::into_error`] ends the distinction: a control value
//! that got that far escaped its pass, a bug (E0594), never a success.

use crate::error::{internal, RuntimeError};

/// How an evaluation stopped without a value.
#[derive(Debug, PartialEq, Eq)]
pub enum Halt {
    /// The run fails with this error (the data's, the caller's, or a bug's).
    Error(RuntimeError),
    /// A dry pass reached a read not read ahead: the session noted it as
    /// wanted, and `batch` evaluates the element again once the level's
    /// wanted reads are made.
    Blocked,
    /// A dry pass reached a write operator (nothing of it evaluated):
    /// `batch` gives up reading ahead and evaluates element by element.
    DryWrite,
}

/// What evaluating a node, a call or an operator gives.
pub type Eval<T> = std::result::Result<T, Halt>;

impl From<RuntimeError> for Halt {
    fn from(error: RuntimeError) -> Halt {
        Halt::Error(error)
    }
}

impl Halt {
    /// The error made another by `f`; a control value as it is.
    pub fn map_error(self, f: impl FnOnce(RuntimeError) -> RuntimeError) -> Halt {
        match self {
            Halt::Error(error) => Halt::Error(f(error)),
            control => control,
        }
    }

    /// The error a run ends with, where the engine calls the executor: a
    /// control value that comes this far escaped its dry pass (E0594).
    pub fn into_error(self) -> RuntimeError {
        match self {
            Halt::Error(error) => error,
            Halt::Blocked => internal("a read-ahead pass stopped at a read outside its batch"),
            Halt::DryWrite => internal("a write met in a read-ahead pass escaped it"),
        }
    }
}
