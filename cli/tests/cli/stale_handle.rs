//! A long-lived handle (a REPL session) after another process installs a program of another schema: its plans were proved for the schema it opened with, so a run refuses with E0550 — never E0599's "a bug in rqc", never an answer read through an index that is gone (adversary finding, issue 33 §2).

use super::{rqc, stderr, write};
use std::io::{BufRead, Write};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// `T` with `bound grp <= {bound}` over index `by_grp`, or neither.
fn program(bound: u64, index: bool) -> String {
    // A bound is over an index: without the index, no bound.
    let index = if index {
        format!("index by_grp (grp)\n  bound grp <= {bound}")
    } else {
        String::new()
    };
    format!(
        "module l
table T {{
  id: Int key
  grp: Int
  {index}
}}
mutation add(id: Int, g: Int) = insert T {{ id: id, grp: g }}
query c(g: Int) = T |> take(9) |> count()
"
    )
}

/// A REPL on `db` with `source`, its stdout and stderr lines as they come.
struct Session {
    child: std::process::Child,
    keys: std::process::ChildStdin,
    lines: Receiver<String>,
}

impl Session {
    fn start(db: &str, source: &str) -> Session {
        let mut child = super::rqc_command(&["repl", "--db", db, source])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let keys = child.stdin.take().unwrap();
        let (sent, lines) = channel();
        let out = child.stdout.take().unwrap();
        let err = child.stderr.take().unwrap();
        let again = sent.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(out).lines() {
                let _ = sent.send(line.unwrap());
            }
        });
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(err).lines() {
                let _ = again.send(line.unwrap());
            }
        });
        Session { child, keys, lines }
    }

    /// Types `line` and returns the first line of output that holds
    /// `wanted` (earlier ones are the banner and prompts).
    fn answer(&mut self, line: &str, wanted: &[&str]) -> String {
        self.keys.write_all(format!("{line}\n").as_bytes()).unwrap();
        self.keys.flush().unwrap();
        self.next(line, wanted)
    }

    /// The next line of output that holds `wanted`, after `line` was typed.
    fn next(&mut self, line: &str, wanted: &[&str]) -> String {
        loop {
            let got = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no answer to {line}"));
            // The banner, and each run's figures (`1 row · seeks 1 …`).
            let banner = ["loaded ", "rqc ", "created "]
                .iter()
                .any(|b| got.starts_with(b))
                || got.contains(" · seeks ");
            if !banner && wanted.iter().any(|w| got.contains(w)) {
                return got;
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.keys.write_all(b":quit\n");
        let _ = self.child.wait();
    }
}

fn add(db: &str, source: &str, id: i64, extra: &[&str]) {
    let id = format!("id={id}");
    let mut args = vec![
        "run", "--db", db, source, "add", "--arg", &id, "--arg", "g=1",
    ];
    args.extend_from_slice(extra);
    let out = rqc(&args);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_loosened_bound_stops_the_old_handles_runs_with_e0550() {
    let dir = tempfile::tempdir().unwrap();
    loosened_bound(&dir, &dir.path().join("db").display().to_string());
}

/// On etcd a mutation's first read carries the comparison too: the old
/// plan's bound check never reads the group the new program grew (it
/// refused with E0504 and the old bound's numbers: adversary finding).
#[test]
fn a_loosened_bound_stops_the_old_handles_runs_with_e0550_on_etcd() {
    let cluster = super::etcd::etcd_cluster::EtcdCluster::start(1);
    let dir = tempfile::tempdir().unwrap();
    loosened_bound(&dir, &cluster.url("loosened"));
}

fn loosened_bound(dir: &tempfile::TempDir, db: &str) {
    let db = db.to_string();
    let a = write(dir.path(), "a.rq", &program(3, true));
    let b = write(dir.path(), "b.rq", &program(100, true));
    for id in 1..=3 {
        add(&db, &a, id, &[]);
    }
    let mut session = Session::start(&db, &a);
    let read = session.answer("T.by_grp[1] |> count()", &["3", "E0"]);
    assert_eq!(read.trim(), "3");
    // Another process: the bound loosened to 100, and a fourth row.
    add(&db, &b, 4, &[]);
    for line in ["T.by_grp[1]", "T.by_grp[1] |> count()", "c(1)"] {
        let refused = session.answer(line, &["E0", "[", "4"]);
        assert!(refused.contains("E0550"), "{line}: {refused}");
    }
    // Mutations too, before they read: into the group the old bound
    // would call full, and into another.
    for call in ["add(5, 1)", "add(6, 2)"] {
        let refused = session.answer(call, &["E0", "1"]);
        assert!(refused.contains("E0550"), "{call}: {refused}");
    }
    // And a transaction: when it begins on a local store (one read of a
    // mapped page); on etcd at its first call's first request, which
    // carries the comparison (a check at `:begin` would be a round trip).
    let begun = session.answer(":begin", &["E0", "begun"]);
    if begun.contains("begun") {
        assert!(db.starts_with("etcd://"), "{begun}");
        let refused = session.answer("add(7, 3)", &["E0", "1"]);
        assert!(refused.contains("E0550"), "{refused}");
        let rolled_back = session.next("add(7, 3)", &["E0"]);
        assert!(rolled_back.contains("E0453"), "{rolled_back}");
    } else {
        assert!(begun.contains("E0550"), "{begun}");
    }
    // A query that reads nothing still runs: its value is its arguments'.
    assert_eq!(session.answer("1 + 2", &["3", "E0"]).trim(), "3");
    // An installed query called with constants is watched as that entry
    // point under the program installed now, its arguments computed
    // without a read (it ended with E0589, "no function named `c`",
    // compiled against the schema alone: adversary finding).
    let watched = session.answer(":watch c(1)", &["watch 1:", "E0"]);
    assert!(watched.contains("\"result\":4"), "{watched}");
}

/// A transaction begun before another process's install, on etcd (where
/// `:begin` sends nothing and holds no lock, so the install goes ahead):
/// its first call is refused with E0550, before its bound check reads the
/// group the new program grew (the old answer was E0504 with the old
/// bound's numbers), the transaction is rolled back, and nothing of it
/// commits.
#[test]
fn a_transaction_begun_before_an_install_is_refused_with_e0550_on_etcd() {
    let cluster = super::etcd::etcd_cluster::EtcdCluster::start(1);
    let dir = tempfile::tempdir().unwrap();
    let db = cluster.url("begun");
    let a = write(dir.path(), "a.rq", &program(3, true));
    let b = write(dir.path(), "b.rq", &program(100, true));
    for id in 1..=3 {
        add(&db, &a, id, &[]);
    }
    let mut session = Session::start(&db, &a);
    let begun = session.answer(":begin", &["E0", "begun"]);
    assert!(begun.contains("begun"), "{begun}");
    add(&db, &b, 4, &[]);
    let refused = session.answer("add(5, 1)", &["E0", "1"]);
    assert!(refused.contains("E0550"), "{refused}");
    // The refusal rolled the transaction back.
    let after = session.answer("add(6, 2)", &["E0", "1"]);
    assert!(after.contains("E0453"), "{after}");
    drop(session);
    let count = rqc(&["run", "--db", &db, &b, "c", "--arg", "g=1"]);
    assert!(count.status.success(), "{}", stderr(&count));
    let shown = String::from_utf8_lossy(&count.stdout);
    assert!(
        shown.starts_with('4'),
        "only the other process's row: {shown}"
    );
}

#[test]
fn a_dropped_index_is_never_read_as_empty_by_the_old_handle() {
    let dir = tempfile::tempdir().unwrap();
    dropped_index(&dir, &dir.path().join("db").display().to_string());
}

/// On etcd the generation is compared within the run's first request (no
/// round trip more): a read that stays within its bound is refused too.
#[test]
fn a_dropped_index_is_never_read_as_empty_by_the_old_handle_on_etcd() {
    let cluster = super::etcd::etcd_cluster::EtcdCluster::start(1);
    let dir = tempfile::tempdir().unwrap();
    dropped_index(&dir, &cluster.url("stale"));
}

fn dropped_index(dir: &tempfile::TempDir, db: &str) {
    let db = db.to_string();
    let a = write(dir.path(), "a.rq", &program(3, true));
    let b = write(dir.path(), "b.rq", &program(3, false));
    add(&db, &a, 1, &[]);
    let mut session = Session::start(&db, &a);
    let read = session.answer("T.by_grp[1] |> count()", &["1", "E0"]);
    assert_eq!(read.trim(), "1");
    add(
        &db,
        &b,
        2,
        &["--migrate", "index:T.by_grp", "--migrate", "bound:T(grp)"],
    );
    let refused = session.answer("T.by_grp[1] |> count()", &["E0", "0", "1", "2"]);
    assert!(refused.contains("E0550"), "{refused}");
}

/// A one-shot command with no program of its own uses the one installed:
/// another process installing a program of another schema between its
/// open and its work is met by opening again, never by E0550 (adversary
/// finding: about 1 `rqc run` in 300 failed beside a process installing
/// programs in a loop). `run`, `run --batch` and `load` each run 100
/// times beside such a process.
#[test]
fn commands_with_no_program_open_again_when_another_process_installs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    let a = write(dir.path(), "a.rq", &program(3, true));
    // The same tables, and one more: each install changes the schema.
    let b = write(
        dir.path(),
        "b.rq",
        &format!("{}table Extra {{\n  id: Int key\n}}\n", program(3, true)),
    );
    add(&db, &a, 1, &[]);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let installer = {
        let (db, stop) = (db.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut installs = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let (source, drop) = if installs % 2 == 0 {
                    (&b, vec![])
                } else {
                    (&a, vec!["--migrate", "table:Extra"])
                };
                // Each install is a write of its own: a row of its group.
                let (id, g) = (
                    format!("id={}", 100_000 + installs),
                    format!("g={}", 100_000 + installs),
                );
                let mut args = vec!["run", "--db", &db, source, "add", "--arg", &id, "--arg", &g];
                args.extend(drop);
                let out = rqc(&args);
                assert!(out.status.success(), "{}", stderr(&out));
                installs += 1;
            }
            installs
        })
    };
    let mut failures = Vec::new();
    for i in 0..100 {
        // Rows of groups of their own, so no bound refuses them.
        let row = format!("{{\"id\": {}, \"grp\": {}}}\n", 1_000 + i, 1_000 + i);
        let rows = write(dir.path(), &format!("rows{i}.jsonl"), &row);
        let call = format!(
            "{{\"entry\": \"add\", \"args\": {{\"id\": {}, \"g\": {}}}}}\n",
            5_000 + i,
            5_000 + i
        );
        let calls = write(dir.path(), &format!("calls{i}.jsonl"), &call);
        for args in [
            vec!["run", "--db", &db, "c", "--arg", "g=1"],
            vec!["run", "--db", &db, "--batch", &calls],
            vec!["load", "--db", &db, "T", &rows],
        ] {
            let out = rqc(&args);
            if !out.status.success() {
                failures.push(format!("{}: {}", args[..2].join(" "), stderr(&out)));
            }
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let installs = installer.join().unwrap();
    assert!(installs > 10, "the installer ran {installs} times");
    assert!(
        failures.is_empty(),
        "{} of 300 commands failed: {:?}",
        failures.len(),
        failures.first()
    );
}
