//! The REPL as a person meets it on a pseudo-terminal: every line typed or pasted runs, in order, and reaches the history; a watch's events show as they arrive, with nothing typed.

use super::repl::{on_a_terminal, one_table_repl};
use super::stderr;
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A REPL on a pseudo-terminal: what is typed, and what the screen got so
/// far (read by a thread as it comes).
struct Terminal {
    child: std::process::Child,
    keys: std::process::ChildStdin,
    screen: Arc<Mutex<String>>,
}

impl Terminal {
    /// `rqc ARGS` on a terminal, its history in `history`; returns once
    /// the first prompt shows.
    fn start(args: &[String], history: &std::path::Path) -> Terminal {
        let command = format!("{} {}", env!("CARGO_BIN_EXE_rqc"), args.join(" "));
        let mut child = on_a_terminal(&command, history);
        let keys = child.stdin.take().unwrap();
        let mut out = child.stdout.take().unwrap();
        let screen = Arc::new(Mutex::new(String::new()));
        let filled = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n @ 1..) = out.read(&mut buffer) {
                let text = String::from_utf8_lossy(&buffer[..n]);
                filled.lock().unwrap().push_str(&text);
            }
        });
        let terminal = Terminal {
            child,
            keys,
            screen,
        };
        terminal.wait_for("rql> ", 1);
        terminal
    }

    /// Types `keys` in one write (as a paste without brackets arrives).
    fn type_in(&mut self, keys: &str) {
        self.keys.write_all(keys.as_bytes()).unwrap();
        self.keys.flush().unwrap();
    }

    /// Waits (up to a minute) until the screen shows `text` `count` times.
    fn wait_for(&self, text: &str, count: usize) {
        let start = Instant::now();
        while self.screen().matches(text).count() < count {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "waited for {count} × {text:?}; the screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn screen(&self) -> String {
        self.screen.lock().unwrap().clone()
    }

    /// Leaves with `:quit`; returns the whole screen.
    fn quit(mut self) -> String {
        self.type_in(":quit\r");
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}: {}", self.screen());
        std::thread::sleep(Duration::from_millis(100));
        self.screen()
    }
}

/// Where each of `texts` first shows on `screen`, after `from`; fails
/// naming the first that does not show, or that shows out of order.
fn in_order(screen: &str, from: usize, texts: &[&str]) {
    let mut at = from;
    for text in texts {
        let Some(found) = screen[at..].find(text) else {
            panic!("{text:?} does not show after byte {at}, in order:\n{screen}");
        };
        at += found + text.len();
    }
}

/// The history file's entries, one per line (rustyline's first line is a
/// version header).
fn history(path: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines().skip(1).map(str::to_string).collect()
}

/// Three lines pasted at once, where the terminal does not bracket
/// pastes, and three in a bracketed paste (one editor line holding line
/// breaks) then Enter: each of the six runs, in order, and each reaches
/// the history as an entry of its own.
#[test]
fn every_pasted_line_runs_in_order_and_reaches_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let history_file = dir.path().join("history");
    let mut terminal = Terminal::start(&one_table_repl(dir.path()), &history_file);
    terminal.type_in("1000 + 1\r2000 + 2\r3000 + 3\r");
    terminal.wait_for("3003", 1);
    terminal.type_in("\x1b[200~4000 + 4\r5000 + 5\r6000 + 6\r\x1b[201~");
    terminal.wait_for("6000 + 6", 1);
    terminal.type_in("\r");
    terminal.wait_for("6006", 1);
    let screen = terminal.quit();
    in_order(
        &screen,
        0,
        &["1001", "2002", "3003", "4004", "5005", "6006"],
    );
    assert_eq!(
        history(&history_file),
        ["1000 + 1", "2000 + 2", "3000 + 3", "4000 + 4", "5000 + 5", "6000 + 6", ":quit"],
        "each line is an entry of the history"
    );
}

/// An expression the REPL runs for a second or more: 8^6 applications of
/// a lambda.
fn slow_expression() -> String {
    let lets: Vec<String> = (1..=6)
        .map(|i| {
            format!(
                "let f{i} = y => [y, y, y, y, y, y, y, y] |> map(z => f{}(z)) |> sum();",
                i - 1
            )
        })
        .collect();
    format!("{{ let f0 = y => y + 1; {} f6(1) }}", lets.join(" "))
}

/// Lines typed while a command runs (the terminal is not being read then)
/// run after it, in order, each in the history.
#[test]
fn lines_typed_while_a_command_runs_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let history_file = dir.path().join("history");
    let mut terminal = Terminal::start(&one_table_repl(dir.path()), &history_file);
    let slow = slow_expression();
    terminal.type_in(&format!("{slow}\r"));
    // Typed once the slow line is read, while it runs.
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !terminal.screen().contains("524288"),
        "the slow line is still running: {}",
        terminal.screen()
    );
    terminal.type_in("7000 + 7\r");
    terminal.type_in("8000 + 8\r");
    terminal.wait_for("8008", 1);
    let screen = terminal.quit();
    // 8^6 applications of `y + 1` to 1, summed.
    in_order(&screen, 0, &["524288", "7007", "8008"]);
    assert_eq!(
        history(&history_file),
        [slow.as_str(), "7000 + 7", "8000 + 8", ":quit"]
    );
}

/// `:watch` on a terminal: a commit of another process shows its event
/// while the prompt waits, with nothing typed.
#[test]
fn a_watch_shows_another_process_commit_as_it_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let args = one_table_repl(dir.path());
    let db = &args[2];
    let mut terminal = Terminal::start(&args, &dir.path().join("history"));
    terminal.type_in(":watch T[5]\r");
    // The REPL installed its program: the install is position 1 (spec/live.md).
    terminal.wait_for("watch 1: {\"position\":1", 1);
    let inserted = insert_from_another_process(db, 5);
    assert!(inserted.status.success(), "{}", stderr(&inserted));
    terminal.wait_for("watch 1: {\"position\":2,\"result\":{\"id\":5}}", 1);
    terminal.quit();
}

/// Piped: an event that arrives while the REPL waits for its next line
/// shows then, not after that line.
#[test]
fn a_watch_shows_events_between_piped_lines() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let args = one_table_repl(dir.path());
    let db = args[2].clone();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = super::rqc_command(&args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut keys = child.stdin.take().unwrap();
    let (lines, got) = std::sync::mpsc::channel();
    let out = std::io::BufReader::new(child.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in out.lines() {
            let _ = lines.send(line.unwrap());
        }
    });
    let next = || got.recv_timeout(Duration::from_secs(60)).expect("a line");
    keys.write_all(b":watch T[5]\n").unwrap();
    keys.flush().unwrap();
    assert_eq!(next(), "watch 1 (:unwatch stops it)");
    assert_eq!(next(), "watch 1: {\"position\":1,\"result\":null}");
    let inserted = insert_from_another_process(&db, 5);
    assert!(inserted.status.success(), "{}", stderr(&inserted));
    // Nothing more is typed until it shows.
    assert_eq!(next(), "watch 1: {\"position\":2,\"result\":{\"id\":5}}");
    keys.write_all(b":quit\n").unwrap();
    drop(keys);
    let status = child.wait().unwrap();
    assert!(status.success());
}

/// `insert T { id: ID }` from a REPL of its own (another process).
fn insert_from_another_process(db: &str, id: i64) -> std::process::Output {
    super::rqc_with_input(
        &["repl", "--db", db, "--bail"],
        &format!("insert T {{ id: {id} }}\n"),
    )
}

/// A program whose query and function are private (declared without
/// `pub`).
const QA: &str = "module qa

table Question {
  id: Int key
  tag: String
  index by_tag (tag, id)
}

query tagged(t: String, n: Int <= 10) = Question.by_tag[t] |> take(n)

fn double(x: Int) = x * 2

mutation ask(id: Int, tag: String) = insert Question { id: id, tag: tag }
";

/// Declared queries and functions, private ones too, are values in the
/// REPL as in a file: piped on, bounded, called inside an expression.
/// Without the sources (only the database's plans), the unknown name's
/// help says the source is missing and how to give it.
#[test]
fn declared_queries_and_functions_are_values_in_the_repl() {
    let dir = tempfile::tempdir().unwrap();
    let program = super::write(dir.path(), "qa.rq", QA);
    let db = dir.path().join("db").display().to_string();
    let history = dir.path().join("history");
    let args = ["repl".to_string(), "--db".into(), db.clone(), program];
    let mut terminal = Terminal::start(&args, &history);
    terminal.type_in("ask(31, \"rust\")\rask(32, \"rust\")\rask(33, \"go\")\r");
    terminal.wait_for("1 row written", 3);
    terminal.type_in("tagged(\"rust\", 2) |> map(q => q.id * 100)\r");
    terminal.wait_for("3200", 1);
    terminal.type_in(":bound tagged(\"rust\", 2)\r");
    terminal.wait_for("[Question; ≤ 10]  seeks ≤ 1", 1);
    terminal.type_in("double(21) + (tagged(\"go\", 1) |> count())\r");
    let screen = terminal.quit();
    assert!(!screen.contains("E0201"), "{screen}");
    let from = screen.find("q.id * 100").unwrap();
    in_order(&screen, from, &["3100", "3200", "2 rows"]);
    assert!(screen.contains("\n43\r"), "double(21) + 1:\n{screen}");

    let args = ["repl".to_string(), "--db".into(), db];
    let mut terminal = Terminal::start(&args, &history);
    terminal.type_in("tagged(\"rust\", 2) |> map(q => q.id)\r");
    terminal.wait_for("runs as installed", 1);
    let screen = terminal.quit();
    assert!(
        screen.contains("`tagged` is installed in the database, but its source is not loaded"),
        "{screen}"
    );
}
