//! The library's public error: compile diagnostics, runtime refusals and IO failures.

use rqc_compiler::diagnostics::{render_message, renderer, RenderOptions};
use rqc_compiler::{Diagnostic, Sources};
use rqc_runtime::RuntimeError;
use std::fmt;
use std::path::PathBuf;

/// What went wrong, as the library reports it: each has a stable code
/// (`Error::code`), and its `Display` starts with it, in the header every
/// rqc diagnostic has: `[E0502] Error: …`.
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

/// Every error's `Display` starts with its header, `[CODE] Error: …`, as
/// every diagnostic of rqc does (the command line's and the REPL's).
/// A compile error's is its first error diagnostic's: the errors come
/// first, in source order, then the warnings, then how many errors.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plain = RenderOptions { color: false };
        match self {
            Error::Compile {
                diagnostics,
                sources,
            } => {
                let errors = diagnostics.iter().filter(|d| d.is_error()).count();
                if errors == 0 {
                    // No error among them (never built so): the header still.
                    let message = "the program was refused";
                    f.write_str(&render_message(self.code(), message, &[], plain))?;
                }
                let mut renderer = renderer(sources, plain);
                let (first, then): (Vec<&Diagnostic>, Vec<&Diagnostic>) =
                    diagnostics.iter().partition(|d| d.is_error());
                for diagnostic in first.into_iter().chain(then) {
                    f.write_str(&renderer.render(diagnostic))?;
                }
                write!(
                    f,
                    "the program has {errors} error{}",
                    if errors == 1 { "" } else { "s" }
                )
            }
            Error::Runtime(error) => {
                let header = render_message(error.code, &error.message, &[], plain);
                f.write_str(header.trim_end_matches('\n'))
            }
            Error::Io { path, error } => {
                let message = format!("{}: {error}", path.display());
                let header = render_message(self.code(), &message, &[], plain);
                f.write_str(header.trim_end_matches('\n'))
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

/// A library transaction's body returns the library's errors: one that
/// holds a runtime conflict runs the body again.
impl rqc_runtime::error::TransactionError for Error {
    fn runtime(&self) -> Option<&RuntimeError> {
        match self {
            Error::Runtime(error) => Some(error),
            _ => None,
        }
    }
}
