//! The library's public error: compile diagnostics, runtime refusals and IO failures.

use rqc_compiler::diagnostics::{renderer, RenderOptions};
use rqc_compiler::{Diagnostic, Sources};
use rqc_runtime::RuntimeError;
use std::fmt;
use std::path::PathBuf;

/// What went wrong, as the library reports it: each has a stable code
/// (`Error::code`), and its `Display` starts with it.
#[derive(Debug)]
pub enum Error {
    /// The program did not compile; every diagnostic is here.
    Compile {
        /// Every diagnostic, errors and warnings, in source order.
        diagnostics: Vec<Diagnostic>,
        /// The texts the diagnostics point into, to render them.
        sources: Sources,
    },
    /// The runtime refused or failed (a constraint, an argument, the store).
    Runtime(RuntimeError),
    /// A file or directory could not be read or written.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
}

impl Error {
    /// The stable code of the (first) problem.
    pub fn code(&self) -> &str {
        match self {
            Error::Compile { diagnostics, .. } => diagnostics
                .iter()
                .find(|d| d.is_error())
                .map(|d| d.code.as_str())
                .unwrap_or("E0000"),
            Error::Runtime(error) => error.code,
            Error::Io { .. } => "E0600",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Compile {
                diagnostics,
                sources,
            } => {
                let errors = diagnostics.iter().filter(|d| d.is_error()).count();
                writeln!(
                    f,
                    "the program has {errors} error{}",
                    if errors == 1 { "" } else { "s" }
                )?;
                let mut renderer = renderer(sources, RenderOptions { color: false });
                for diagnostic in diagnostics {
                    write!(f, "{}", renderer.render(diagnostic))?;
                }
                Ok(())
            }
            Error::Runtime(error) => write!(f, "error[{}]: {}", error.code, error.message),
            Error::Io { path, error } => {
                write!(f, "error[{}]: {}: {error}", self.code(), path.display())
            }
        }
    }
}

impl std::error::Error for Error {}

impl miette::Diagnostic for Error {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(Error::code(self).to_string()))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        match self {
            Error::Compile { .. } => None,
            Error::Runtime(error) => Some(Box::new(error.help.clone())),
            Error::Io { .. } => Some(Box::new("check that the path exists and is readable")),
        }
    }
}

impl From<RuntimeError> for Error {
    fn from(error: RuntimeError) -> Error {
        Error::Runtime(error)
    }
}
