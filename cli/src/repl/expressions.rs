//! What is typed at the prompt, checked and compiled as an entry of the session's program: wrapped in a query or a mutation, its diagnostics placed on the line typed.

use super::{offset_in, Repl, REPL_FILE};
use rqc::install::compile_verified;
use rqc_compiler::diagnostics::{renderer, RenderOptions};
use rqc_compiler::Compilation;

impl Repl {
    /// The module an expression is checked in: every name of the program
    /// in scope, private definitions too.
    pub(super) fn wrap(&self, expression: &str, kind: &str) -> (String, usize) {
        self.scope.wrap(expression, kind)
    }

    pub(super) fn check(&self, expression: &str) -> (Compilation, String) {
        self.check_as(expression, "query")
    }

    /// Checks the expression as the body of a `query`, or of a `mutation`.
    pub(super) fn check_as(&self, expression: &str, kind: &str) -> (Compilation, String) {
        let (wrapped, _) = self.wrap(expression, kind);
        let files = self.scope.files_with(REPL_FILE, wrapped.clone());
        (compile_verified(&files), wrapped)
    }

    /// The expression's own diagnostics, pointing into the line typed: its
    /// spans moved from the wrapping module to the expression itself.
    pub(super) fn diagnostics_of_expression(
        &self,
        compilation: &Compilation,
        expression: &str,
        kind: &str,
    ) -> String {
        self.diagnostics_within(compilation, expression, kind, expression)
    }

    /// [`Repl::diagnostics_of_expression`] for an expression that is part
    /// of `line` (an argument of a call typed whole): shown in the line.
    pub(super) fn diagnostics_within(
        &self,
        compilation: &Compilation,
        expression: &str,
        kind: &str,
        line: &str,
    ) -> String {
        if compilation
            .diagnostics
            .iter()
            .any(|d| d.primary.file == REPL_FILE && d.is_error())
        {
            self.failed.set(true);
        }
        let (_, start) = self.wrap(expression, kind);
        let start = start as u32;
        let offset = offset_in(expression, line) as u32;
        let mut sources = compilation.sources.clone();
        sources.add(REPL_FILE, line);
        let moved = |label: &mut rqc_compiler::diagnostics::Label| {
            if label.file == REPL_FILE {
                label.span.start = label.span.start.saturating_sub(start) + offset;
                label.span.end = label.span.end.saturating_sub(start) + offset;
            }
        };
        let mut renderer = renderer(&sources, RenderOptions { color: self.color });
        compilation
            .diagnostics
            .iter()
            .filter(|d| d.primary.file == REPL_FILE)
            .map(|d| {
                let mut d = d.clone();
                moved(&mut d.primary);
                d.secondary.iter_mut().for_each(moved);
                self.name_the_missing_source(&mut d, line);
                renderer.render(&d)
            })
            .collect()
    }

    /// An unknown function that is an entry point the database holds,
    /// whose source is not loaded (only the schema is): its help says so,
    /// and how to load it, instead of listing the combinators.
    pub(super) fn name_the_missing_source(
        &self,
        d: &mut rqc_compiler::diagnostics::Diagnostic,
        line: &str,
    ) {
        let span = d.primary.span;
        let Some(name) = line.get(span.start as usize..span.end as usize) else {
            return;
        };
        let installed = self
            .db
            .program()
            .is_some_and(|program| program.entries.iter().any(|e| e.name == name));
        if d.code == "E0201" && installed && !self.scope.declares(name) {
            d.help = vec![format!(
                "`{name}` is installed in the database, but its source is not loaded: give the program's sources (`rqc repl --db DIR PROGRAM`, or `:load PATH`) to use it inside an expression; alone, `{name}(…)` runs as installed"
            )];
        }
    }

    /// The expression compiled as an entry point, and whether it writes;
    /// or what to show when it cannot run.
    pub(super) fn compile(&self, expression: &str) -> Result<(rqc_plan::Entry, bool), String> {
        self.compile_within(expression, expression)
    }

    /// [`Repl::compile`] for an expression that is part of `line`, its
    /// diagnostics shown in the line.
    pub(super) fn compile_within(
        &self,
        expression: &str,
        line: &str,
    ) -> Result<(rqc_plan::Entry, bool), String> {
        // An expression is checked against the sources, which a program
        // kept in the database does not carry.
        if self.scope.is_empty() {
            return Err("no program loaded; :load PATH".into());
        }
        let (mut compilation, _) = self.check(expression);
        // An expression that writes (an insert, a call of a mutation) runs
        // as a mutation: in one write transaction, held to its bounds.
        let writes = compilation
            .diagnostics
            .iter()
            .any(|d| d.primary.file == REPL_FILE && d.code == "E0406");
        if writes {
            compilation = self.check_as(expression, "mutation").0;
        }
        let accepted = compilation
            .checked
            .verdicts
            .iter()
            .any(|v| v.name == "it" && v.module == "repl" && v.accepted);
        let Some(entry) = compilation
            .program
            .entries
            .iter()
            .find(|e| e.name == "it" && e.module == "repl")
            .map(|e| rqc_plan::Entry::clone(e))
        else {
            let kind = if writes { "mutation" } else { "query" };
            let shown = self.diagnostics_within(&compilation, expression, kind, line);
            return Err(if accepted || shown.is_empty() {
                self.failed.set(true);
                "this expression cannot run here".into()
            } else {
                shown
            });
        };
        Ok((entry, writes))
    }
}
