//! The REPL's input: lines piped in (with `--bail`), or a terminal through rustyline, with completion and a continuation prompt until brackets balance.

use super::Repl;
use rqc::Error;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

/// Calls `visit` with each character of `text` that is code — outside
/// string literals (their quotes left out) and `//` comments — with its
/// byte offset, until `visit` says stop. Returns whether `text` ends inside
/// a string literal.
pub fn scan_code(text: &str, mut visit: impl FnMut(usize, char) -> bool) -> bool {
    let (mut in_string, mut escaped, mut in_comment) = (false, false, false);
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if in_comment {
            in_comment = c != '\n';
            continue;
        }
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '/' if chars.peek().is_some_and(|(_, next)| *next == '/') => in_comment = true,
            _ if !visit(at, c) => return false,
            _ => {}
        }
    }
    in_string
}

/// Whether the brackets of `text` are all closed (outside strings and comments).
pub fn balanced(text: &str) -> bool {
    let mut depth: i64 = 0;
    scan_code(text, |_, c| {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        true
    });
    depth <= 0
}

mod editor {
    //! rustyline glue: completion of names.

    use rustyline::completion::{Completer, Pair};
    use rustyline::highlight::Highlighter;
    use rustyline::hint::Hinter;
    use rustyline::validate::Validator;
    use rustyline::{Context, Helper};

    pub struct ReplHelper {
        pub names: Vec<String>,
        /// By table: its columns and indexes, completed after `Table.`.
        pub members: std::collections::HashMap<String, Vec<String>>,
    }

    impl Helper for ReplHelper {}
    impl Highlighter for ReplHelper {}

    impl Hinter for ReplHelper {
        type Hint = String;
    }

    impl Completer for ReplHelper {
        type Candidate = Pair;

        fn complete(
            &self,
            line: &str,
            pos: usize,
            _: &Context<'_>,
        ) -> rustyline::Result<(usize, Vec<Pair>)> {
            let (start, names) = super::completions(line, pos, &self.names, &self.members);
            let candidates = names
                .into_iter()
                .map(|n| Pair {
                    display: n.clone(),
                    replacement: n,
                })
                .collect();
            Ok((start, candidates))
        }
    }

    impl Validator for ReplHelper {}
}

/// What completes the word before `pos`: after `Table.`, that table's
/// columns and indexes; otherwise commands, tables, definitions and
/// combinators. Returns where the word starts.
pub fn completions(
    line: &str,
    pos: usize,
    names: &[String],
    members: &std::collections::HashMap<String, Vec<String>>,
) -> (usize, Vec<String>) {
    let start = line[..pos]
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .map(|i| i + 1)
        .unwrap_or(0);
    let word = &line[start..pos];
    let before = &line[..start];
    let pool: &[String] = match before.strip_suffix('.') {
        Some(head) => {
            let table_start = head
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map(|i| i + 1)
                .unwrap_or(0);
            match members.get(&head[table_start..]) {
                Some(members) => members,
                None => &[],
            }
        }
        None => names,
    };
    let found = pool
        .iter()
        .filter(|n| n.starts_with(word))
        .cloned()
        .collect();
    (start, found)
}

/// The prompt of a new entry.
const PROMPT: &str = "rql> ";
/// The prompt of a line that continues an entry left open by a bracket.
const CONTINUATION_PROMPT: &str = " ..> ";

/// Lines gathered into entries: an entry is complete at the line that
/// closes its last open bracket.
#[derive(Default)]
struct Entries {
    pending: String,
}

impl Entries {
    /// Adds a line; returns the entry it completes, if it does.
    fn line(&mut self, line: &str) -> Option<String> {
        self.pending.push_str(line);
        self.pending.push('\n');
        balanced(&self.pending).then(|| std::mem::take(&mut self.pending))
    }

    /// Whether an entry is open (the next line continues it).
    fn is_open(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The prompt of the next line.
    fn prompt(&self) -> &'static str {
        match self.is_open() {
            true => CONTINUATION_PROMPT,
            false => PROMPT,
        }
    }
}

/// Runs the loop on a terminal (line editing, history, completion) or on
/// piped input (lines read plainly, so scripts can drive it; with `echo`,
/// each shown after its prompt, as typed on a terminal).
pub fn run(mut repl: Repl, bail: bool, echo: bool) -> Result<bool, Error> {
    super::interrupt::install();
    let clean = match std::io::stdin().is_terminal() {
        true => on_a_terminal(&mut repl),
        false => piped(&mut repl, bail, echo),
    }?;
    // A transaction still open is rolled back, and said so.
    match repl.end() {
        Some(rolled_back) => {
            println!("{rolled_back}");
            Ok(false)
        }
        None => Ok(clean),
    }
}

/// The loop on piped input: each line read in turn.
fn piped(repl: &mut Repl, bail: bool, echo: bool) -> Result<bool, Error> {
    // A watch's event that arrives while the loop waits for a line is
    // shown then, as on a terminal.
    repl.show_arrivals_on(Box::new(|line| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }));
    let console = repl.console();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut entries = Entries::default();
    let mut number = 0;
    loop {
        let mut bytes = Vec::new();
        let read = input
            .read_until(b'\n', &mut bytes)
            .map_err(|error| Error::Io {
                path: PathBuf::from("<stdin>"),
                error,
            })?;
        if read == 0 {
            break;
        }
        let _held = console.hold();
        let out = &mut std::io::stdout().lock();
        number += 1;
        // A line that is not UTF-8 is refused alone; the session goes on.
        let Ok(line) = String::from_utf8(bytes) else {
            let message = format!("line {number} of the input is not UTF-8");
            let _ = writeln!(out, "{}", repl.problem("E0001", &message, &[]));
            if bail {
                return Ok(false);
            }
            continue;
        };
        let line = line.trim_end_matches(['\r', '\n']);
        if echo {
            let _ = writeln!(out, "{}{line}", entries.prompt());
        }
        let Some(entry) = entries.line(line) else {
            continue;
        };
        match repl.handle(&entry) {
            Some(text) if text.is_empty() => {}
            Some(text) => {
                let _ = writeln!(out, "{text}");
            }
            None => return Ok(true),
        }
        let _ = out.flush();
        // Without --bail the session goes on, as on a terminal.
        if bail && repl.failed() {
            return Ok(false);
        }
    }
    if entries.is_open() {
        let message = "the input ends inside an unclosed bracket:";
        let mut out = std::io::stdout();
        let _ = writeln!(out, "{}", repl.problem("E0102", message, &[]));
        let _ = writeln!(out, "{}", entries.pending.trim_end());
        return Ok(false);
    }
    Ok(true)
}

/// The loop on a terminal. What the line editor returns may hold several
/// lines (a bracketed paste): each runs in turn, and reaches the history,
/// as if typed one by one. Lines typed or pasted past the one being read
/// (typed ahead while a command runs, or pasted where the terminal does
/// not bracket pastes) stay in the editor's buffer for the next read.
fn on_a_terminal(repl: &mut Repl) -> Result<bool, Error> {
    let terminal_error = |e: rustyline::error::ReadlineError| Error::Io {
        path: PathBuf::from("<terminal>"),
        error: std::io::Error::other(e.to_string()),
    };
    let mut editor: rustyline::Editor<editor::ReplHelper, rustyline::history::DefaultHistory> =
        rustyline::Editor::new().map_err(terminal_error)?;
    let history = std::env::var_os("RQC_HISTORY")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".rqc_history")))
        .unwrap_or_else(|| PathBuf::from(".rqc_history"));
    let _ = editor.load_history(&history);
    // A watch's event that arrives while a line is edited shows above it.
    let mut printer = editor.create_external_printer().map_err(terminal_error)?;
    repl.show_arrivals_on(Box::new(move |line| {
        use rustyline::ExternalPrinter as _;
        let _ = printer.print(format!("{line}\n"));
    }));
    let console = repl.console();
    println!(
        "rqc {} — :help for commands, Ctrl-D to leave",
        env!("CARGO_PKG_VERSION")
    );
    // Input left open by a bracket gathers here, one line per prompt, under
    // a continuation prompt (as psql's `-#` and sqlite3's `...>`).
    let mut entries = Entries::default();
    'session: loop {
        editor.set_helper(Some(editor::ReplHelper {
            names: repl.names(),
            members: repl.members(),
        }));
        match editor.readline(entries.prompt()) {
            Ok(text) => {
                let _held = console.hold();
                let text = text.strip_suffix('\n').unwrap_or(&text);
                for line in text.split('\n') {
                    let Some(entry) = entries.line(line) else {
                        continue;
                    };
                    if entry.trim().is_empty() {
                        continue;
                    }
                    let _ = editor.add_history_entry(entry.trim_end());
                    match repl.handle(&entry) {
                        Some(text) if text.is_empty() => {}
                        Some(text) => println!("{text}"),
                        None => break 'session,
                    }
                }
            }
            // Ctrl-C drops what is being typed, as in a shell.
            Err(rustyline::error::ReadlineError::Interrupted) => entries = Entries::default(),
            Err(_) => {
                if entries.is_open() {
                    let message = "the input ends inside an unclosed bracket";
                    println!("{}", repl.problem("E0102", message, &[]));
                }
                break;
            }
        }
    }
    let _ = editor.save_history(&history);
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::{balanced, completions};

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        assert!(balanced("f(1) // a comment with (\n"));
        assert!(balanced("\"// not a comment (\""));
        assert!(!balanced("f(\")\""));
        assert!(!balanced("[1,\n2"));
        assert!(balanced("[1,\n2]"));
        assert!(balanced("\"a \\\" ( b\""));
    }

    #[test]
    fn after_a_table_and_a_dot_its_columns_and_indexes_complete() {
        let names = vec!["User".to_string(), "map".to_string(), ":load".to_string()];
        let members = std::collections::HashMap::from([(
            "Post".to_string(),
            vec![
                "at".to_string(),
                "author".to_string(),
                "by_author".to_string(),
            ],
        )]);
        let line = "Post.au";
        assert_eq!(
            completions(line, line.len(), &names, &members),
            (5, vec!["author".to_string()])
        );
        let line = "x |> ma";
        assert_eq!(
            completions(line, line.len(), &names, &members),
            (5, vec!["map".to_string()])
        );
        let line = "Nope.";
        assert_eq!(
            completions(line, line.len(), &names, &members).1,
            Vec::<String>::new()
        );
        let line = "Post.";
        assert_eq!(completions(line, line.len(), &names, &members).1.len(), 3);
    }
}
