//! A `:watch EXPR` across installs: the expression compiled again from its text against each program installed while it is watched (spec/live.md, "Across installs").
//!
//! The watcher gives the new program (schema and plans, no sources). The
//! expression is compiled against the session's sources when they are
//! that program's (the session's own `:load`, whose sources are shared
//! here before it installs), and otherwise against the new schema written
//! back as tables, as a session opened without sources checks it: an
//! expression that calls the program's functions then no longer compiles,
//! and the watch ends with the reason (E0589).

use super::scope::Scope;
use super::REPL_FILE;
use rqc::install::compile_verified;
use rqc_plan::{CompiledProgram, Entry};
use std::sync::{Arc, Mutex};

/// The session's sources, shared with its watches' recompilers.
pub type Shared = Arc<Mutex<Vec<(String, String)>>>;

/// What compiles `expression` again against a newly installed program.
pub fn recompiler(
    sources: Shared,
    expression: String,
) -> impl Fn(&CompiledProgram) -> Result<Entry, String> + Send + Sync + 'static {
    move |program| {
        let files = sources.lock().unwrap_or_else(|p| p.into_inner()).clone();
        match compiled(&files, &expression, program) {
            Ok(entry) => Ok(entry),
            Err(Some(why)) => Err(why),
            Err(None) => {
                let tables = crate::schema_source::schema_source(&program.schema);
                compiled(&[("<database>".to_string(), tables)], &expression, program).map_err(
                    |why| why.unwrap_or_else(|| "the new schema cannot be written back".into()),
                )
            }
        }
    }
}

/// `expression` as a query over `files`, when they declare `program`'s
/// schema; `Err(None)` when they do not, `Err(Some(why))` when it does
/// not compile there.
fn compiled(
    files: &[(String, String)],
    expression: &str,
    program: &CompiledProgram,
) -> Result<Entry, Option<String>> {
    let scope = Scope::new(files);
    let (wrapped, _) = scope.wrap(expression, "query");
    let compilation = compile_verified(&scope.files_with(REPL_FILE, wrapped));
    if compilation.program.schema != program.schema {
        return Err(None);
    }
    let accepted = compilation
        .checked
        .verdicts
        .iter()
        .any(|v| v.name == "it" && v.module == "repl" && v.accepted);
    let entry = compilation
        .program
        .entries
        .iter()
        .find(|e| e.name == "it" && e.module == "repl");
    match entry {
        Some(entry) if accepted => Ok(Entry::clone(entry)),
        _ => Err(Some(
            compilation
                .diagnostics
                .iter()
                .find(|d| d.primary.file == REPL_FILE && d.is_error())
                .map(|d| format!("[{}] {}", d.code, d.message))
                .unwrap_or_else(|| "it is not accepted as a query".into()),
        )),
    }
}
