//! Printing diagnostics, verdict lines and one-line failures for the terminal.

use super::Status;
use rqc::{Error, Installed, Output};
use rqc_compiler::check::Verdict;
use rqc_compiler::diagnostics::{render_message, renderer, RenderOptions};
use rqc_compiler::{Diagnostic, Sources};
use std::io::IsTerminal;

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

static COLOR: std::sync::OnceLock<ColorChoice> = std::sync::OnceLock::new();

/// Records `--color` for the whole run.
pub fn choose_color(choice: ColorChoice) {
    let _ = COLOR.set(choice);
}

/// Whether diagnostics are coloured: as `--color` says; by default only on
/// a terminal that shows colour, never under a non-empty `NO_COLOR` (an
/// empty one asks nothing, as no-color.org says) nor with `TERM=dumb`.
pub fn color_on_stderr() -> bool {
    color_if_terminal(std::io::stderr().is_terminal())
}

/// As [`color_on_stderr`], for what is printed on standard output.
pub fn color_on_stdout() -> bool {
    color_if_terminal(std::io::stdout().is_terminal())
}

fn color_if_terminal(terminal: bool) -> bool {
    match COLOR.get() {
        Some(ColorChoice::Always) => return true,
        Some(ColorChoice::Never) => return false,
        _ => {}
    }
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    !no_color && !dumb && terminal
}

/// A problem with no place in a source (a runtime refusal, a file that
/// cannot be read), in the header style of every diagnostic
/// (`[E0502] Error: …`), then its help lines: the text to print where
/// `color` says whether to colour it.
pub fn problem_text(code: &str, message: &str, help: &[&str], color: bool) -> String {
    render_message(code, message, help, RenderOptions { color })
}

/// [`problem_text`] on standard error.
pub fn print_problem(code: &str, message: &str, help: &[&str]) {
    eprint!("{}", problem_text(code, message, help, color_on_stderr()));
}

pub fn print_diagnostics(diagnostics: &[Diagnostic], sources: &Sources) {
    // A renderer indexes every line of every source: not for nothing.
    if diagnostics.is_empty() {
        return;
    }
    let options = RenderOptions {
        color: color_on_stderr(),
    };
    let mut renderer = renderer(sources, options);
    for diagnostic in diagnostics {
        eprint!("{}", renderer.render(diagnostic));
    }
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    if errors > 0 {
        eprintln!("{errors} error{}", if errors == 1 { "" } else { "s" });
    }
}

/// `name(params) -> T  seeks ≤ 1  rows ≤ 1  round trips ≤ 1  O(log N)`,
/// or `rejected`.
/// A function generic over its arguments' sizes shows its formulas.
pub fn verdict_line(verdict: &Verdict) -> String {
    if !verdict.accepted {
        return match &verdict.cause {
            Some(cause) => format!("{}  rejected ({cause})", verdict.signature),
            None => format!("{}  rejected", verdict.signature),
        };
    }
    // The formula is written out only where there is no maximum.
    let shown = |max: Option<u64>, formula: &dyn std::fmt::Display| match max {
        Some(max) => max.to_string(),
        None => formula.to_string(),
    };
    format!(
        "{}  seeks ≤ {}  rows ≤ {}  round trips ≤ {}  {}",
        verdict.signature,
        shown(verdict.seeks_max(), &verdict.cost.seeks),
        shown(verdict.rows_max(), &verdict.cost.rows),
        shown(verdict.round_trips_max(), &verdict.cost.trips),
        verdict.class
    )
}

/// Reports a library error: diagnostics rendered in full, anything else as
/// one line with its code and help. Returns the exit status it calls for.
pub fn report_error(error: &Error) -> Status {
    match error {
        Error::Compile {
            diagnostics,
            sources,
        } => {
            print_diagnostics(diagnostics, sources);
            Status::Errors
        }
        Error::Runtime(runtime) => {
            print_problem(runtime.code, &runtime.message, &[&runtime.help]);
            // Input this rqc cannot use — a directory that is no database,
            // a database or plan file of another version, a plan file that
            // is no program, a database with nothing to run — is a usage
            // problem; a refused write or an unreadable store is an error
            // of the run.
            match runtime.kind() {
                rqc::ErrorKind::Unusable | rqc::ErrorKind::Access => Status::Usage,
                rqc::ErrorKind::Busy => Status::Busy,
                _ => Status::Errors,
            }
        }
        Error::Io { path, error } => {
            let message = format!("{}: {error}", path.display());
            print_problem("E0600", &message, &[]);
            Status::Usage
        }
    }
}

/// A note for a program installed past its rejected definitions (the
/// library's installation rule): how many errors, what goes ahead anyway,
/// and where to read them. Nothing when the program was clean.
pub fn note_errors(report: &Installed, going_ahead: &str) {
    let errors = report.errors();
    if errors > 0 {
        eprintln!(
            "note: the program has {errors} error{} elsewhere; {going_ahead} (see `rqc check`)",
            if errors == 1 { "" } else { "s" }
        );
    }
}

/// `N rows` (or `N rows written` for a mutation), then what the run read
/// beside its bound: the summary `rqc run` and the REPL print.
pub fn run_summary(output: &Output, mutation: bool) -> String {
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    let what = if mutation {
        format!("{} row{} written", output.written, plural(output.written))
    } else {
        let n = output.rows().len() as u64;
        format!("{n} row{}", plural(n))
    };
    // Each attempt is held to the bound; the figures are the last one's.
    let attempts = if output.attempts > 1 {
        format!(" · {} attempts (conflicts)", output.attempts)
    } else {
        String::new()
    };
    format!(
        "{what} · seeks {} (bound {}) · rows read {} (bound {}) · round trips {} (bound {}){attempts}",
        output.stats.seeks,
        output.bound.seeks,
        output.stats.rows,
        output.bound.rows,
        output.stats.round_trips,
        output.bound.round_trips
    )
}
