//! `rqc watch` in its own process while other processes (`rqc run`) write
//! the same LMDB database: the whole result first, then one JSON line per
//! commit that changes it, none for a commit that does not, and a resume
//! from a position prints only the change since.

use super::{rqc, stderr, stdout, write};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub(super) const SHELVES: &str = "
table Item {
  id: Int key
  shelf: Int
  name: String <= 40
  index by_shelf (shelf)
}
mutation add(id: Int, shelf: Int, name: String) = insert Item { id, shelf, name }
mutation rename(id: Int, name: String) = update Item[id] { name: name }
query shelf(s: Int) = Item.by_shelf[s] |> take(10)
query item(id: Int) = Item[id]
";

fn run(db: &str, args: &[&str]) {
    let mut all = vec!["run", "--db", db];
    all.extend_from_slice(args);
    let out = rqc(&all);
    assert_eq!(out.status.code(), Some(0), "{:?}: {}", args, stderr(&out));
}

/// `rqc watch ARGS` in its own process, and a reader of its next line
/// (waiting up to a minute for it).
fn spawn_watch(args: &[&str]) -> (std::process::Child, impl Fn() -> String) {
    let mut watcher = Command::new(env!("CARGO_BIN_EXE_rqc"))
        .arg("watch")
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (lines, got) = mpsc::channel();
    let out = BufReader::new(watcher.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in out.lines() {
            let _ = lines.send(line.unwrap());
        }
    });
    let next = move || {
        got.recv_timeout(Duration::from_secs(60))
            .expect("an event line")
    };
    (watcher, next)
}

/// `rqc watch` in its own process while `rqc run` processes write `db`
/// (SHELVES installed by the first): the whole result, a line for each
/// commit that changes it and none for one that does not, then a resume
/// from position 1. The same lines on every store.
pub(super) fn watch_while_others_write(db: &str, app: &str) {
    run(
        db,
        &[
            app,
            "add",
            "--arg",
            "id=1",
            "--arg",
            "shelf=1",
            "--arg",
            "name=lamp",
        ],
    );
    // Two changes: the whole result is not counted.
    let (mut watcher, next) = spawn_watch(&["--db", db, "shelf", "--arg", "s=1", "--events", "2"]);
    assert_eq!(
        next(),
        r#"{"position":2,"result":[{"id":1,"shelf":1,"name":"lamp"}]}"#
    );
    // Another shelf: no line. Then an insert and an update on shelf 1.
    run(
        db,
        &[
            "add",
            "--arg",
            "id=2",
            "--arg",
            "shelf=2",
            "--arg",
            "name=desk",
        ],
    );
    run(
        db,
        &[
            "add", "--arg", "id=3", "--arg", "shelf=1", "--arg", "name=pen",
        ],
    );
    assert_eq!(
        next(),
        r#"{"position":4,"added":[{"id":3,"shelf":1,"name":"pen"}],"removed":[]}"#
    );
    run(db, &["rename", "--arg", "id=1", "--arg", "name=lava"]);
    assert_eq!(
        next(),
        r#"{"position":5,"added":[{"id":1,"shelf":1,"name":"lava"}],"removed":[{"id":1,"shelf":1,"name":"lamp"}]}"#
    );
    assert_eq!(watcher.wait().unwrap().code(), Some(0));

    // Resuming from position 2 with the result then held: the change since.
    let held = r#"[{"id":1,"shelf":1,"name":"lamp"}]"#;
    let resumed = rqc(&[
        "watch", "--db", db, "shelf", "--arg", "s=1", "--from", "2", "--held", held, "--events",
        "1",
    ]);
    assert_eq!(
        stdout(&resumed),
        "{\"position\":5,\"added\":[{\"id\":1,\"shelf\":1,\"name\":\"lava\"},{\"id\":3,\"shelf\":1,\"name\":\"pen\"}],\"removed\":[{\"id\":1,\"shelf\":1,\"name\":\"lamp\"}]}\n",
        "{}",
        stderr(&resumed)
    );
}

#[test]
fn watch_prints_the_result_then_each_changing_commit_of_other_processes() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", SHELVES);
    let db = dir.path().join("db").display().to_string();
    watch_while_others_write(&db, &app);
    // A position this database has not reached is refused.
    let ahead = rqc(&[
        "watch", "--db", &db, "shelf", "--arg", "s=1", "--from", "9", "--held", "[]",
    ]);
    assert_eq!(ahead.status.code(), Some(1));
    assert!(stderr(&ahead).contains("E0581"), "{}", stderr(&ahead));
    // Only a query can be watched.
    let mutation = rqc(&[
        "watch", "--db", &db, "rename", "--arg", "id=1", "--arg", "name=x",
    ]);
    assert!(stderr(&mutation).contains("E0583"), "{}", stderr(&mutation));
}

pub(super) const SHOP: &str = "module shop
table Item {
  id: Int key
  shelf: Int
  name: String <= 40
  index by_shelf (shelf)
}
pub mutation add(id: Int, shelf: Int, name: String) = insert Item { id, shelf, name }
pub mutation rename(id: Int, name: String) = update Item[id] { name: name }
";

/// A REPL session that watches a list and a row while its own mutations
/// change them (SHOP at `shop`, on `db`): each change shows after the input
/// that made it, and `:unwatch` stops both. The same lines on every store.
pub(super) fn repl_watch_session(db: &str, shop: &str) {
    let script = ":watch Item.by_shelf[1] |> take(5)\n:watch Item[2]\nadd(2, 1, \"cup\")\n\
                  add(5, 3, \"x\")\nrename(2, \"mug\")\n:unwatch\nadd(6, 1, \"y\")\n";
    let out = super::rqc_with_input(&["repl", "--db", db, shop], script);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let watched: Vec<String> = stdout(&out)
        .lines()
        .filter(|line| line.starts_with("watch") || line.starts_with("stopped"))
        .map(str::to_string)
        .collect();
    assert_eq!(
        watched,
        [
            "watch 1 (:unwatch stops it)",
            r#"watch 1: {"position":1,"result":[]}"#,
            "watch 2 (:unwatch stops it)",
            r#"watch 2: {"position":1,"result":null}"#,
            r#"watch 1: {"position":2,"added":[{"id":2,"shelf":1,"name":"cup"}],"removed":[]}"#,
            r#"watch 2: {"position":2,"result":{"id":2,"shelf":1,"name":"cup"}}"#,
            r#"watch 1: {"position":4,"added":[{"id":2,"shelf":1,"name":"mug"}],"removed":[{"id":2,"shelf":1,"name":"cup"}]}"#,
            r#"watch 2: {"position":4,"result":{"id":2,"shelf":1,"name":"mug"}}"#,
            "stopped 2 watches",
        ]
    );
}

#[test]
fn repl_watch_shows_each_change_after_the_input_that_made_it() {
    let dir = tempfile::tempdir().unwrap();
    let shop = write(dir.path(), "shop.rq", SHOP);
    let db = dir.path().join("db").display().to_string();
    repl_watch_session(&db, &shop);
    let writes = super::rqc_with_input(&["repl", "--db", &db, &shop], ":watch add(7, 1, \"z\")\n");
    assert!(
        stdout(&writes).contains("only a query can be watched"),
        "{}",
        stdout(&writes)
    );
}

/// A private query (and a query of a database opened without sources) is
/// watched as installed, as it runs: `:watch item(2)` with its argument
/// evaluated first; a private mutation is refused like a public one.
#[test]
fn repl_watches_a_private_query_by_its_call() {
    let dir = tempfile::tempdir().unwrap();
    let shelves = write(dir.path(), "shelves.rq", SHELVES);
    let db = dir.path().join("db").display().to_string();
    let script =
        ":watch item(1 + 1)\nadd(2, 1, \"cup\")\n:watch add(3, 1, \"x\")\n:watch nothing(1)\n";
    let out = super::rqc_with_input(&["repl", "--db", &db, &shelves], script);
    let shown = stdout(&out);
    let watched: Vec<&str> = shown.lines().filter(|l| l.starts_with("watch")).collect();
    assert_eq!(
        watched,
        [
            "watch 1 (:unwatch stops it)",
            r#"watch 1: {"position":1,"result":null}"#,
            r#"watch 1: {"position":2,"result":{"id":2,"shelf":1,"name":"cup"}}"#,
        ],
        "{shown}"
    );
    assert!(shown.contains("only a query can be watched"), "{shown}");
    assert!(
        stderr(&out).contains("E0201") || shown.contains("E0201"),
        "an unknown name is still an error"
    );
    // Without sources: the database's own program.
    let out = super::rqc_with_input(&["repl", "--db", &db], ":watch item(2)\n");
    assert!(
        stdout(&out)
            .contains(r#"watch 1: {"position":2,"result":{"id":2,"shelf":1,"name":"cup"}}"#),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

#[test]
fn check_prints_a_querys_upkeep_and_explain_the_ranges_it_listens_to() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", SHELVES);
    let checked = rqc(&["check", &app]);
    let out = stdout(&checked);
    assert!(
        out.contains("shelf(s: Int) -> [Item; ≤ 10]  seeks ≤ 1  rows ≤ 10  round trips ≤ 1  O(log N)  upkeep: ≤ 1 range, re-run per touching commit\n"),
        "{out}"
    );
    // A mutation has no upkeep.
    assert!(out.contains("rename(id: Int, name: String) -> Int  seeks ≤ 4  rows ≤ 2  round trips ≤ 4  O(log N)\n"), "{out}");
    let json = stdout(&rqc(&["check", &app, "--format", "json"]));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let upkeep = |name: &str| {
        json["queries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["name"] == name)
            .unwrap()["upkeep"]
            .clone()
    };
    assert_eq!(
        upkeep("shelf"),
        serde_json::json!({"ranges": "1", "ranges_max": 1, "match": "O(log S + m) per written key"})
    );
    assert_eq!(upkeep("add"), serde_json::Value::Null);
    let explained = stdout(&rqc(&["explain", &app, "shelf"]));
    assert!(
        explained.ends_with(
            "live: a subscription listens to the key ranges its last run read, at most 1 (one per seek):\n  \
             Stream Item.by_shelf prefix=[$s]: a range, up to the last entry read when a limit stopped it\n\
             a commit that writes into one re-runs it (seeks ≤ 1  rows ≤ 10); any other commit costs it nothing\n"
        ),
        "{explained}"
    );
}

/// The library writing in this process, `rqc watch` reading in another:
/// each commit reaches the watcher through the changelog, in order.
#[test]
fn watch_in_another_process_sees_each_commit_of_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("db");
    let mut db = rqc::Database::open(&db_dir).unwrap();
    db.install_source("app.rq", SHELVES).unwrap();
    let db_arg = db_dir.display().to_string();
    let (mut watcher, next) =
        spawn_watch(&["--db", &db_arg, "item", "--arg", "id=1", "--events", "5"]);
    // The install is position 1.
    assert_eq!(next(), r#"{"position":1,"result":null}"#);
    db.run("add", &[1.into(), 1.into(), "lamp".into()]).unwrap();
    assert_eq!(
        next(),
        r#"{"position":2,"result":{"id":1,"shelf":1,"name":"lamp"}}"#
    );
    for (position, name) in (3..=6).zip(["a", "b", "c", "d"]) {
        db.run("rename", &[1.into(), name.into()]).unwrap();
        // Each commit's own line, before the next commit.
        assert_eq!(
            next(),
            format!(r#"{{"position":{position},"result":{{"id":1,"shelf":1,"name":"{name}"}}}}"#)
        );
    }
    assert_eq!(watcher.wait().unwrap().code(), Some(0));
}
