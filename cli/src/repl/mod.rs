//! `rqc repl`: a read-eval-print loop against a real database.
//!
//! An expression is checked exactly as a query is — it becomes the body of
//! `query it()` in a module that imports every table and definition of
//! the program, private ones too (`scope`) — so an unbounded one gets the same diagnostic as in a
//! file, and a bounded one runs and prints its rows with what it read. The
//! loop itself, piped or on a terminal, is in `input`.

mod call;
mod expressions;
mod input;
mod interrupt;
mod page;
mod rewatch;
mod schema_view;
mod scope;
mod table;
use table::table;
mod transaction;
mod transaction_commands;
mod watches;

pub use input::run;

use rqc::{Database, Error};
use rqc_compiler::diagnostics::{renderer, RenderOptions};
use rqc_plan::{Entry, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

const HELP: &str = "\
Type an RQL expression to run it as a query, e.g. `User[1]`,
`Post.by_author[1] |> take(5)` or a declared query, `timeline(1, 10)`. One
that writes (`insert …`, or a declared mutation, `add_user(1, \"ann\", \"Ann\", \"NZ\")`)
runs as a mutation, committed at once. Brackets left open continue on the
next line.

  :help          this text
  :load PATH     load a program (a .rq file or a directory)
  :schema        the tables, their keys, indexes and bounds
  :explain NAME  the plan of a query or mutation
  :bound EXPR    the bound of an expression, without running it
  :watch EXPR    watch a query: its result now, then each change a commit
                 (of this session or another process) makes, shown as it
                 arrives
  :unwatch       stop every watch
  :page EXPR     run a pageable query (`T.index[…] |> take(n)`) as its
                 first page; :next runs the page after it
  :begin         start a transaction: the calls after it see each other's
                 writes and are stored together by :commit, or not at all
                 (:rollback, a refused call, or a minute with no input)
  :commit        store every write of the transaction, with one commit
  :rollback      drop the transaction: nothing of it is written
  :quit          leave (also Ctrl-D)

Ctrl-C stops the command running (nothing of it is committed) and keeps
the session; typing, it clears the line.";

const REPL_FILE: &str = "<repl>";

pub struct Repl {
    /// Whether the last input failed (an error, a rejection), for `--bail`.
    failed: std::cell::Cell<bool>,
    /// Shared with the thread that holds an open transaction.
    db: Arc<Database>,
    files: Vec<(String, String)>,
    /// `files`, shared with the watches, which compile their expressions
    /// again when a program is installed (`rewatch`).
    shared_files: rewatch::Shared,
    /// What an expression is checked against: the loaded sources.
    scope: scope::Scope,
    color: bool,
    /// Live queries of `:watch`, by number.
    watches: watches::Watches,
    /// The query `:page` runs, and the token of its next page (`:next`).
    paging: Option<(rqc_plan::Entry, Option<String>)>,
    /// The transaction `:begin` opened, until `:commit` or `:rollback`.
    open: Option<transaction::Open>,
    /// The calls typed in the open transaction (their arguments, each an
    /// expression run in it too, are not counted).
    calls: u64,
    /// How long an open transaction waits for an input before it is
    /// rolled back.
    idle: Duration,
}

/// The session ends: its watches stop before the database closes, whose
/// closing would otherwise end each one, said so ("watch N ended") by the
/// thread that shows arrivals if it looked before the session was gone.
impl Drop for Repl {
    fn drop(&mut self) {
        self.watches.stop_all();
    }
}

impl Repl {
    pub fn new(db: Database, color: bool, idle: Duration) -> Repl {
        Repl {
            failed: std::cell::Cell::new(false),
            db: Arc::new(db),
            files: Vec::new(),
            shared_files: rewatch::Shared::default(),
            scope: scope::Scope::default(),
            color,
            watches: watches::Watches::default(),
            paging: None,
            open: None,
            calls: 0,
            idle,
        }
    }

    /// Loads a program and installs it, by the library's installation
    /// rule: the rejected definitions are named, the rest installed.
    /// Without sources, expressions are checked against the schema the
    /// database holds, written back as RQL tables: its tables can be read,
    /// though the program's own definitions cannot be called.
    pub fn use_installed_schema(&mut self) -> Option<String> {
        let program = self.db.program()?;
        let source = crate::schema_source::schema_source(&program.schema);
        let tables = program.schema.tables.len();
        self.files = vec![("<database>".to_string(), source)];
        self.share_files(&self.files.clone());
        self.scope = scope::Scope::new(&self.files);
        Some(format!(
            "the database's schema ({tables} tables); its queries and mutations run by name, e.g. `name(1)`; give the program's sources (or `:load PATH`) to use its functions too"
        ))
    }

    pub fn load(&mut self, path: &PathBuf) -> Result<String, Error> {
        let files = rqc::read_program(std::slice::from_ref(path))?;
        // No transaction is open (`:load` is refused in one): the database
        // is this session's alone.
        if Arc::get_mut(&mut self.db).is_none() {
            return Err(transaction::not_in_one(":load"));
        }
        // Shared first: the watches compile again as soon as it is installed.
        self.share_files(&files);
        let installed = Arc::get_mut(&mut self.db).map(|db| db.install_files(&files));
        let report = match installed.unwrap_or_else(|| Err(transaction::not_in_one(":load"))) {
            Ok(report) => report,
            Err(error) => {
                self.share_files(&self.files.clone());
                return Err(error);
            }
        };
        self.scope = scope::Scope::new(&files);
        self.files = files;
        let program = self.db.program().expect("just installed");
        let mut message = format!(
            "loaded {} ({} tables, {} entry points)",
            path.display(),
            program.schema.tables.len(),
            program.entries.len()
        );
        if !report.rejected.is_empty() {
            message.push_str(&format!(
                "; not installed, rejected: {} (`rqc check` says why)",
                report.rejected.join(", ")
            ));
        }
        Ok(message)
    }

    fn share_files(&self, files: &[(String, String)]) {
        *self.shared_files.lock().unwrap_or_else(|p| p.into_inner()) = files.to_vec();
    }

    /// Whether the loaded sources declare `name` (an expression can call it).
    fn importable(&self, name: &str) -> bool {
        self.scope.declares(name)
    }

    /// Handles one complete input; returns what to print, or `None` to quit.
    pub fn handle(&mut self, input: &str) -> Option<String> {
        // Ctrl-C while this runs stops the command, not the session.
        let _running = interrupt::Running::start();
        self.failed.set(false);
        let input = input.trim();
        if input.is_empty() {
            return Some(String::new());
        }
        let (command, rest) = input.split_once(char::is_whitespace).unwrap_or((input, ""));
        let rest = rest.trim();
        if let Some(ended) = self.open.as_ref().and_then(transaction::Open::timed_out) {
            // Rolled back while the session waited: this input, which was
            // typed for the transaction, does not run outside it.
            self.open = None;
            self.failed.set(true);
            let help =
                "start another with `:begin` and run its calls again; this input was not run";
            return Some(self.problem("E0450", &ended, &[help]));
        }
        let in_transaction = self.open.is_some();
        let output = match command {
            ":begin" => self.begin(),
            ":commit" => self.commit(),
            ":rollback" => self.rollback(),
            ":load" | ":page" | ":next" if in_transaction => {
                let refused = transaction::not_in_one(command);
                self.error_text(&refused)
            }
            ":quit" | ":q" | ":exit" => return None,
            ":help" | ":h" => HELP.to_string(),
            ":load" if rest.is_empty() => "usage: :load PATH".to_string(),
            ":load" => match self.load(&PathBuf::from(rest)) {
                Ok(message) => message,
                Err(error) => self.error_text(&error),
            },
            ":schema" => self.schema(),
            ":explain" => self.explain(rest),
            ":bound" => self.bound(rest),
            ":watch" => self.watch(rest),
            ":page" => self.first_page(rest),
            ":next" => self.next_page(),
            ":unwatch" => {
                let stopped = self.watches.stop_all();
                format!(
                    "stopped {stopped} watch{}",
                    if stopped == 1 { "" } else { "es" }
                )
            }
            other if other.starts_with(':') => {
                self.failed.set(true);
                format!("unknown command `{other}`; :help lists the commands")
            }
            _ => self.run(input),
        };
        Some(self.with_changes(output))
    }

    /// `:watch EXPR`: subscribes to the expression as a query.
    fn watch(&mut self, expression: &str) -> String {
        if expression.is_empty() {
            return "usage: :watch EXPR".into();
        }
        let writes = || "only a query can be watched; this expression writes".to_string();
        // `c(1)`: the installed query, followed by name across installs.
        if let Some((entry, args)) = self.installed_query_with_constants(expression) {
            let watched = self
                .db
                .subscribe_entry(&entry, &args, rqc::WatchOptions::default());
            return self.watching(watched);
        }
        let (entry, args) = match self.compile(expression) {
            Ok((_, true)) => {
                self.failed.set(true);
                return writes();
            }
            // Compiled from its text: compiled again at an install.
            Ok((entry, false)) => {
                let recompile =
                    rewatch::recompiler(self.shared_files.clone(), expression.to_string());
                let options = rqc::WatchOptions::default();
                let watched = self
                    .db
                    .subscribe_recompiled(&entry, &[], options, recompile);
                return self.watching(watched);
            }
            // A call of an entry point the expression's module cannot
            // import is watched as installed, as it runs.
            Err(shown) if self.hidden_call(expression) => match self.installed_target(expression) {
                Some(Ok((entry, _))) if entry.kind != rqc_plan::EntryKind::Query => {
                    self.failed.set(true);
                    return writes();
                }
                Some(Ok(target)) => target,
                Some(Err(shown)) => return shown,
                None => return shown,
            },
            Err(shown) => return shown,
        };
        let watched = self
            .db
            .subscribe_entry(&entry, &args, rqc::WatchOptions::default());
        self.watching(watched)
    }

    /// A new watch, numbered, or why it could not be made.
    fn watching(&mut self, watched: Result<rqc::Subscription, Error>) -> String {
        match watched {
            Ok(live) => {
                let number = self.watches.add(live);
                format!("watch {number} (:unwatch stops it)")
            }
            Err(error) => self.error_text(&error),
        }
    }

    /// `output`, then what every watch saw and has not shown yet (once the
    /// watcher has matched every commit so far: the events of this input's
    /// own commit come right after its output). A watch ended by its last
    /// event (an install it could not follow, spec/live.md) is said so, and
    /// stops.
    fn with_changes(&self, output: String) -> String {
        if self.watches.is_empty() {
            return output;
        }
        let position = self.db.position().unwrap_or(0);
        let mut lines = vec![output];
        lines.extend(self.watches.drain(position));
        lines.retain(|line| !line.is_empty());
        lines.join("\n")
    }

    /// The console: while it is held, no event of a watch is shown.
    pub fn console(&self) -> watches::Console {
        self.watches.console()
    }

    /// Where the events of watches that arrive between inputs are shown.
    pub fn show_arrivals_on(&mut self, sink: watches::Sink) {
        self.watches.show_arrivals_on(sink);
    }

    /// Whether the last input failed.
    pub fn failed(&self) -> bool {
        self.failed.get()
    }

    /// A problem in the header style of every diagnostic (`[E0502] Error:
    /// …`), coloured as the session's diagnostics are; no line break after.
    pub fn problem(&self, code: &str, message: &str, help: &[&str]) -> String {
        let options = RenderOptions { color: self.color };
        let text = rqc_compiler::diagnostics::render_message(code, message, help, options);
        text.trim_end_matches('\n').to_string()
    }

    fn error_text(&self, error: &Error) -> String {
        self.failed.set(true);
        match error {
            Error::Compile {
                diagnostics,
                sources,
            } => {
                let mut renderer = renderer(sources, RenderOptions { color: self.color });
                diagnostics.iter().map(|d| renderer.render(d)).collect()
            }
            Error::Runtime(e) => self.problem(e.code, &e.message, &[&e.help]),
            Error::Io { path, error } => {
                self.problem("E0600", &format!("{}: {error}", path.display()), &[])
            }
        }
    }

    fn explain(&self, name: &str) -> String {
        let Some(program) = self.db.program() else {
            return "no program loaded; :load PATH".into();
        };
        match rqc_runtime::engine::find_entry(program, name) {
            Ok(entry) => rqc_compiler::plan::explain(entry, &program.schema)
                .trim_end()
                .to_string(),
            Err(missing) => self.error_text(&missing.into()),
        }
    }

    fn bound(&self, expression: &str) -> String {
        if expression.is_empty() {
            return "usage: :bound EXPR".into();
        }
        let (compilation, _) = self.check(expression);
        let Some(verdict) = compilation
            .checked
            .verdicts
            .iter()
            .find(|v| v.name == "it" && v.module == "repl")
        else {
            return self.diagnostics_of_expression(&compilation, expression, "query");
        };
        if !verdict.accepted {
            return self.diagnostics_of_expression(&compilation, expression, "query");
        }
        let result_type = verdict.signature.split(" -> ").nth(1).unwrap_or("?");
        format!(
            "{result_type}  seeks ≤ {} ({})  rows ≤ {} ({})  round trips ≤ {} ({})  {}",
            verdict
                .seeks_max()
                .map(|m| m.to_string())
                .unwrap_or_else(|| "?".into()),
            verdict.cost.seeks,
            verdict
                .rows_max()
                .map(|m| m.to_string())
                .unwrap_or_else(|| "?".into()),
            verdict.cost.rows,
            verdict
                .round_trips_max()
                .map(|m| m.to_string())
                .unwrap_or_else(|| "?".into()),
            verdict.cost.trips,
            verdict.class
        )
    }

    fn run(&mut self, expression: &str) -> String {
        let (entry, writes) = match self.compile(expression) {
            Ok(compiled) => compiled,
            // A call of an entry point the expression's module cannot
            // import (private, or no sources loaded) runs it as installed.
            Err(shown) => {
                if self.hidden_call(expression) {
                    if let Some(output) = self.installed_call(expression) {
                        return output;
                    }
                }
                return shown;
            }
        };
        // Run beside the installed program, never installed into it: the
        // database keeps only the program's own entry points.
        self.call_shown(&entry, &[], writes)
    }

    /// Runs `entry` (in the open transaction, if any) and shows its result
    /// and what it read, or why it was refused.
    fn call_shown(&mut self, entry: &Entry, args: &[Value], writes: bool) -> String {
        if self.open.is_some() {
            self.calls += 1;
        }
        match self.call(entry, args) {
            Ok(output) if writes => format!(
                "{}\n{}",
                output.value.to_json(),
                crate::commands::report::run_summary(&output, true)
            ),
            Ok(output) => format!(
                "{}\n{}",
                table(output.rows()),
                crate::commands::report::run_summary(&output, false)
            ),
            Err(shown) => shown,
        }
    }

    /// Runs `entry`: in the open transaction, where it sees the
    /// transaction's writes, or alone, committed at once. A refusal in the
    /// transaction rolls it back, and says so.
    fn call(&mut self, entry: &Entry, args: &[Value]) -> Result<rqc::Output, String> {
        let Some(open) = &self.open else {
            return self
                .db
                .run_entry(entry, args)
                .map_err(|e| self.error_text(&e));
        };
        match open.run(entry, args) {
            transaction::Ran::Done(output) => Ok(output),
            transaction::Ran::Refused(error) => {
                self.open = None;
                let refused = self.error_text(&error);
                let help = "start another with `:begin` and run its calls again";
                let message = "the transaction is rolled back: nothing of it was written";
                Err(format!(
                    "{refused}\n{}",
                    self.problem("E0453", message, &[help])
                ))
            }
        }
    }

    /// By table: its columns and indexes, for completion after `Table.`.
    pub fn members(&self) -> std::collections::HashMap<String, Vec<String>> {
        let Some(program) = self.db.program() else {
            return Default::default();
        };
        program
            .schema
            .tables
            .iter()
            .map(|t| {
                let mut members: Vec<String> = t.columns.iter().map(|c| c.name.clone()).collect();
                members.extend(t.indexes.iter().map(|i| i.name.clone()));
                members.sort();
                members.dedup();
                (t.name.clone(), members)
            })
            .collect()
    }

    /// Names for completion: commands, tables, definitions, combinators.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = [
            ":help",
            ":load",
            ":schema",
            ":explain",
            ":bound",
            ":watch",
            ":unwatch",
            ":page",
            ":next",
            ":begin",
            ":commit",
            ":rollback",
            ":quit",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        names.extend(rqc_plan::Builtin::ALL.iter().map(|b| b.name().to_string()));
        names.extend(
            rqc_compiler::syntax::ast::SCALAR_FUNCTIONS
                .iter()
                .map(|s| s.to_string()),
        );
        names.extend(
            rqc_compiler::syntax::ast::PREDICATE_FUNCTIONS
                .iter()
                .chain(&rqc_compiler::syntax::ast::CLOCK_FUNCTIONS)
                .map(|s| s.to_string()),
        );
        if let Some(program) = self.db.program() {
            names.extend(program.schema.tables.iter().map(|t| t.name.clone()));
            names.extend(
                program
                    .entries
                    .iter()
                    .filter(|e| e.name != "it")
                    .map(|e| e.name.clone()),
            );
            for table in &program.schema.tables {
                names.extend(table.indexes.iter().map(|i| i.name.clone()));
                names.extend(table.columns.iter().map(|c| c.name.clone()));
            }
        }
        names.sort();
        names.dedup();
        names
    }
}

/// Where `part`, a slice of `whole`, starts in it (0 when it is not one).
fn offset_in(part: &str, whole: &str) -> usize {
    let offset = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize);
    match offset {
        Some(offset) if offset + part.len() <= whole.len() => offset,
        _ => 0,
    }
}
