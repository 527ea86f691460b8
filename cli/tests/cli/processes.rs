//! The CLI beside other processes on one LMDB database: `rqc run` reads and
//! writes while a REPL holds the database, and a write that another
//! process's writer keeps waiting past `--wait` exits with status 75 (busy).

use super::{add_lamp, rqc, stderr, stdout, write, APP};
use rqc_runtime::{Backend, OpenOptions};
use std::io::{BufRead, BufReader};
use std::process::Stdio;

#[test]
fn rqc_run_reads_and_writes_while_a_repl_holds_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let db = dir.path().join("db").display().to_string();
    add_lamp("lmdb", &db, &app);
    let mut repl = super::rqc_command(&["repl", "--db", &db, &app])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The REPL reports the program it loaded once the database is open.
    let mut said = String::new();
    BufReader::new(repl.stderr.take().unwrap())
        .read_line(&mut said)
        .unwrap();
    assert!(!said.is_empty(), "the REPL started");
    let read = rqc(&["run", "--db", &db, &app, "item", "--arg", "id=1"]);
    assert!(stdout(&read).contains("lamp"), "{}", stderr(&read));
    let added = rqc(&[
        "run",
        "--db",
        &db,
        &app,
        "add",
        "--arg",
        "id=2",
        "--arg",
        "name=desk",
        "--arg",
        "price=9",
    ]);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    drop(repl.stdin.take());
    repl.wait().unwrap();
}

#[test]
fn a_write_kept_waiting_past_wait_exits_busy() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let db_dir = dir.path().join("db");
    let db = db_dir.display().to_string();
    add_lamp("lmdb", &db, &app);
    // This process writes (and holds its transaction open).
    let store = Backend::Lmdb
        .open_store(&db_dir, &OpenOptions::default())
        .unwrap();
    let txn = store.begin_write().unwrap();
    let add = [
        "run",
        "--db",
        &db,
        "--wait",
        "200ms",
        &app,
        "add",
        "--arg",
        "id=2",
        "--arg",
        "name=desk",
        "--arg",
        "price=9",
    ];
    let busy = rqc(&add);
    assert_eq!(busy.status.code(), Some(75), "{}", stderr(&busy));
    assert!(stderr(&busy).contains("[E0540] Error"), "{}", stderr(&busy));
    assert!(stderr(&busy).contains("--wait"), "{}", stderr(&busy));
    // Readers do not wait for the writer.
    let read = rqc(&["run", "--db", &db, &app, "item", "--arg", "id=1"]);
    assert!(stdout(&read).contains("lamp"), "{}", stderr(&read));
    drop(txn);
    let added = rqc(&add);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    let bad = rqc(&[
        "run", "--db", &db, "--wait", "soon", &app, "item", "--arg", "id=1",
    ]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("not a duration"), "{}", stderr(&bad));
}
