//! Watches across installs by other processes (spec/live.md, "Across
//! installs"): `rqc watch` prints the whole result planned under a program
//! `rqc run` installed, then its changes, and exits 3 with the ending line
//! when an install takes its query away; the REPL's `:watch EXPR` is
//! compiled again from its text at its own `:load` (a function of the new
//! sources), at another process's install (the new schema's tables), and
//! ends with E0589 when it no longer compiles; a call of an installed
//! query with constant arguments is followed by name, as `rqc watch` is.

use super::watch::SHELVES;
use super::{rqc, stderr, stdout, write};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn run(args: &[&str]) {
    let out = rqc(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
}

/// A running `rqc` with piped standard input and a reader of its lines.
struct Running {
    child: std::process::Child,
    lines: mpsc::Receiver<String>,
}

impl Running {
    fn start(args: &[&str]) -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rqc"))
            .args(args)
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, lines) = mpsc::channel();
        let out = BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Running { child, lines }
    }

    /// The next line starting with `prefix`, within a minute.
    fn next_starting(&self, prefix: &str) -> String {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no line starting with {prefix:?}"));
            if line.starts_with(prefix) {
                return line;
            }
        }
    }

    /// Types `line` (the REPL prints each watch's news after each input).
    fn type_line(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn watch_follows_an_install_of_another_process_then_exits_3_when_its_query_goes() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", SHELVES);
    let one = write(
        dir.path(),
        "one.rq",
        &SHELVES.replace("|> take(10)", "|> take(1)"),
    );
    let gone = write(
        dir.path(),
        "gone.rq",
        &SHELVES.replace("query shelf(s: Int) = Item.by_shelf[s] |> take(10)\n", ""),
    );
    let db = dir.path().join("db").display().to_string();
    let lamp = ["--arg", "id=1", "--arg", "shelf=1", "--arg", "name=lamp"];
    run(&[&["run", "--db", &db, &app, "add"][..], &lamp].concat());
    let mut watch = Running::start(&["watch", "--db", &db, "shelf", "--arg", "s=1"]);
    let lamp = r#"{"id":1,"shelf":1,"name":"lamp"}"#;
    assert_eq!(
        watch.next_starting("{"),
        format!(r#"{{"position":2,"result":[{lamp}]}}"#)
    );
    // Another program (`take(1)`), installed by another process: the whole
    // result under it, at the install's position.
    run(&["run", "--db", &db, &one, "item", "--arg", "id=1"]);
    assert_eq!(
        watch.next_starting("{"),
        format!(r#"{{"position":3,"result":[{lamp}]}}"#)
    );
    // Then its changes, as the new plan reads them (one row).
    let cup = ["--arg", "id=0", "--arg", "shelf=1", "--arg", "name=cup"];
    run(&[&["run", "--db", &db, "add"][..], &cup].concat());
    assert_eq!(
        watch.next_starting("{"),
        format!(
            r#"{{"position":4,"added":[{{"id":0,"shelf":1,"name":"cup"}}],"removed":[{lamp}]}}"#
        )
    );
    // A program without `shelf`: the last line, E0587, and exit status 3.
    run(&["run", "--db", &db, &gone, "item", "--arg", "id=1"]);
    let last = watch.next_starting("{");
    let last: serde_json::Value = serde_json::from_str(&last).unwrap();
    assert_eq!(last["position"], 5);
    assert_eq!(last["error"]["code"], "E0587", "{last}");
    let status = watch.child.wait().unwrap();
    assert_eq!(status.code(), Some(3));
    let mut err = String::new();
    std::io::Read::read_to_string(watch.child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(err.contains("E0587"), "{err}");
    let help = stdout(&rqc(&["watch", "--help"]));
    assert!(help.contains("3 when an install ended the watch"), "{help}");
}

/// The shop with a function the REPL's expression calls (and a query of
/// it, so that a change of the function changes the installed program),
/// and a query that writes nothing (so `rqc run` of it commits only its
/// install).
const SHOP: &str = "module shop
table Item {
  id: Int key
  shelf: Int
  name: String <= 40
  index by_shelf (shelf)
}
pub mutation add(id: Int, shelf: Int, name: String) = insert Item { id, shelf, name }
pub fn few(s: Int) = Item.by_shelf[s] |> take(2)
pub query item(id: Int) = Item[id]
pub query few_of(s: Int) = few(s)
";

#[test]
fn repl_watch_is_compiled_again_at_its_own_load_and_at_another_process_install() {
    let dir = tempfile::tempdir().unwrap();
    let shop = write(dir.path(), "shop.rq", SHOP);
    let fewer = write(dir.path(), "fewer.rq", &SHOP.replace("take(2)", "take(1)"));
    let db = dir.path().join("db").display().to_string();
    let mut repl = Running::start(&["repl", "--db", &db, &shop]);
    for id in 1..=3 {
        repl.type_line(&format!("add({id}, 1, \"i{id}\")"));
    }
    // A function of the sources: compiled again from its text against the
    // sources `:load` gives (the install is position 5).
    repl.type_line(":watch few(1)");
    let row = |id: i64| format!(r#"{{"id":{id},"shelf":1,"name":"i{id}"}}"#);
    assert_eq!(
        repl.next_starting("watch 1:"),
        format!(
            r#"watch 1: {{"position":4,"result":[{},{}]}}"#,
            row(1),
            row(2)
        )
    );
    repl.type_line(&format!(":load {fewer}"));
    assert_eq!(
        repl.next_starting("watch 1:"),
        format!(r#"watch 1: {{"position":5,"result":[{}]}}"#, row(1))
    );
    // A table read, watched while another process installs a program with
    // a new column: compiled again against the new schema's tables.
    repl.type_line(":watch Item.by_shelf[1] |> take(1)");
    assert!(repl.next_starting("watch 2:").contains(r#""position":5"#));
    // A call of an installed query with constant arguments: followed by
    // name, as `rqc watch` follows it, whatever the session's sources.
    repl.type_line(":watch few_of(1)");
    assert_eq!(
        repl.next_starting("watch 3:"),
        format!(r#"watch 3: {{"position":5,"result":[{}]}}"#, row(1))
    );
    let priced = write(
        dir.path(),
        "priced.rq",
        &SHOP.replace("  index by_shelf", "  price: Int = 0\n  index by_shelf"),
    );
    run(&["run", "--db", &db, &priced, "item", "--arg", "id=1"]);
    repl.type_line("1");
    // Watch 1 calls `few`, which the session's sources (`fewer.rq`, no
    // column `price`) declare for another schema: it cannot follow.
    let first = repl.next_starting("watch 1:");
    assert!(first.contains(r#""code":"E0589""#), "{first}");
    assert_eq!(
        repl.next_starting("watch 1 ended"),
        "watch 1 ended; :watch EXPR watches again"
    );
    assert_eq!(
        repl.next_starting("watch 2:"),
        format!(
            r#"watch 2: {{"position":6,"result":[{{"id":1,"shelf":1,"name":"i1","price":0}}]}}"#
        )
    );
    // The other process's `few_of` reads two (its `few` is `take(2)`).
    let priced_row = |id: i64| format!(r#"{{"id":{id},"shelf":1,"name":"i{id}","price":0}}"#);
    assert_eq!(
        repl.next_starting("watch 3:"),
        format!(
            r#"watch 3: {{"position":6,"result":[{},{}]}}"#,
            priced_row(1),
            priced_row(2)
        )
    );
    repl.type_line(":quit");
}
