//! Calling an entry point the database holds by name from the REPL — any query or mutation, public or not, with or without the program's sources.
//!
//! An expression is checked against the loaded sources, so a call of an
//! entry point when only the database's schema is loaded (no sources)
//! does not check. Such a call runs the installed entry point itself, as
//! `rqc run` does: each argument is evaluated as an expression of its own
//! first.

use super::Repl;
use rqc_plan::{Entry, EntryKind, Value};
use std::sync::Arc;

/// `name(arg, …)` split into the name and the arguments' texts, when the
/// whole input is one call of a plain name.
pub fn split_call(input: &str) -> Option<(&str, Vec<&str>)> {
    let input = input.trim();
    let open = input.find('(')?;
    let name = input[..open].trim();
    let identifier = name
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !identifier || !input.ends_with(')') {
        return None;
    }
    let inner = &input[open + 1..input.len() - 1];
    let mut args = Vec::new();
    let (mut depth, mut start, mut nested_too_far) = (0i64, 0, false);
    let open_string = super::input::scan_code(inner, |at, c| {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                args.push(inner[start..at].trim());
                start = at + 1;
            }
            _ => {}
        }
        // `f(a)(b)` or `f(a) + g(b)`: not one call.
        nested_too_far = depth < 0;
        !nested_too_far
    });
    if depth != 0 || nested_too_far || open_string {
        return None;
    }
    let last = inner[start..].trim();
    if !last.is_empty() || !args.is_empty() {
        args.push(last);
    }
    Some((name, args))
}

/// An installed entry point and the values of a call's arguments.
type Target = (Arc<Entry>, Vec<Value>);

impl Repl {
    /// Whether `input` is one call of an entry point the expression's
    /// module cannot import (no sources loaded): such a call
    /// runs, or is watched, as installed.
    pub(super) fn hidden_call(&self, input: &str) -> bool {
        split_call(input).is_some_and(|(name, _)| !self.importable(name))
    }

    /// The installed entry point `input` calls, with its arguments each
    /// evaluated as an expression of its own; `None` when `input` is not a
    /// call of one, `Err` with what to show when an argument does not run.
    pub(super) fn installed_target(&mut self, input: &str) -> Option<Result<Target, String>> {
        let (name, args) = split_call(input)?;
        let entry = Arc::clone(self.db.program()?.entries.iter().find(|e| e.name == name)?);
        // The expression's own check failed; the call runs instead, and
        // fails only if it (or an argument) does.
        self.failed.set(false);
        let mut values: Vec<Value> = Vec::with_capacity(args.len());
        for arg in args {
            let argument = match self.compile_within(arg, input) {
                Ok((argument, false)) => argument,
                Ok((_, true)) => {
                    self.failed.set(true);
                    return Some(Err(format!("the argument `{arg}` writes; give a value")));
                }
                Err(shown) => return Some(Err(shown)),
            };
            match self.call(&argument, &[]) {
                Ok(output) => values.push(output.value),
                Err(shown) => return Some(Err(shown)),
            }
        }
        Some(Ok((entry, values)))
    }

    /// The installed query `input` calls, the only one of its name, and
    /// its arguments' values, when every argument reads nothing (literals,
    /// arithmetic on them): `None` otherwise, with nothing shown. A watch
    /// of such a call follows the query by name across installs, as
    /// `rqc watch NAME` does, rather than its text compiled against the
    /// session's sources, which another process's install may leave
    /// behind (an argument that reads stays in the text, and is read
    /// again at each change).
    pub(super) fn installed_query_with_constants(&mut self, input: &str) -> Option<Target> {
        let (name, args) = split_call(input)?;
        let program = self.db.program()?;
        let mut named = program.entries.iter().filter(|e| e.name == name);
        let entry = Arc::clone(named.next()?);
        if named.next().is_some() || entry.kind != EntryKind::Query {
            return None;
        }
        let failed = self.failed.get();
        let mut values: Vec<Value> = Vec::with_capacity(args.len());
        for arg in args {
            let value = match self.compile_within(arg, input) {
                Ok((argument, false)) if argument.bound.seeks == 0 && argument.bound.rows == 0 => {
                    self.call(&argument, &[]).ok().map(|output| output.value)
                }
                _ => None,
            };
            let Some(value) = value else {
                self.failed.set(failed);
                return None;
            };
            values.push(value);
        }
        self.failed.set(failed);
        Some((entry, values))
    }

    /// Runs `input` as a call of an installed entry point, when it is one
    /// and the expression itself did not check; `None` otherwise.
    pub(super) fn installed_call(&mut self, input: &str) -> Option<String> {
        let (entry, values) = match self.installed_target(input)? {
            Ok(target) => target,
            Err(shown) => return Some(shown),
        };
        Some(self.call_shown(&entry, &values, entry.kind == EntryKind::Mutation))
    }
}

#[cfg(test)]
mod tests {
    use super::split_call;

    #[test]
    fn a_call_splits_at_its_top_level_commas_only() {
        assert_eq!(split_call("item(7)"), Some(("item", vec!["7"])));
        assert_eq!(split_call(" now ( ) "), Some(("now", vec![])));
        assert_eq!(
            split_call(r#"add(1, "a, \"b\"", [1, 2], { x: (3) })"#),
            Some(("add", vec!["1", r#""a, \"b\"""#, "[1, 2]", "{ x: (3) }"]))
        );
        assert_eq!(split_call("f(a) + g(b)"), None);
        assert_eq!(split_call("User[1]"), None);
        assert_eq!(split_call("x |> f(1)"), None);
        assert_eq!(split_call("f(\"(\")"), Some(("f", vec!["\"(\""])));
    }
}
