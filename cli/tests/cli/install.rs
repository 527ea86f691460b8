//! The installation rule through the binary: `run`, `explain`, `load` and the REPL install a program whose shape is sound past its rejected definitions, and refuse one whose shape is not.
//!
//! The same rule through the library: `tests/tests/install_rule.rs`.

use super::{rqc, rqc_with_input, stderr, stdout, write, APP};

/// APP with one query the checker rejects (a misspelt field).
fn with_broken() -> String {
    format!("{APP}\nquery broken(id: Int) = Item[id].nmae\n")
}

#[test]
fn run_goes_ahead_past_errors_elsewhere_but_not_past_a_broken_schema() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    let other_broken = write(
        dir.path(),
        "other.rq",
        &format!("{APP}\nquery broken(id: Int) = Item[id].nmae\n"),
    );
    let output = rqc(&[
        "run",
        "--db",
        &db,
        &other_broken,
        "add",
        "--arg",
        "id=1",
        "--arg",
        "name=lamp",
        "--arg",
        "price=3",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output)
            .contains("note: the program has 1 error elsewhere; `add` is accepted and runs"),
        "{}",
        stderr(&output)
    );
    let schema_broken = write(
        dir.path(),
        "schema.rq",
        "table Loose { a: Int }\ntable Item { id: Int key }\nquery item(id: Int) = Item[id]\n",
    );
    let output = rqc(&["run", "--db", &db, &schema_broken, "item", "--arg", "id=1"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("[E0204]"), "{}", stderr(&output));
}

#[test]
fn a_rejected_entry_is_refused_with_its_diagnostics_and_installs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("db");
    let db = db_dir.display().to_string();
    let app = write(dir.path(), "app.rq", &with_broken());
    for args in [
        vec!["run", "--db", &db, &app, "broken", "--arg", "id=1"],
        vec!["explain", &app, "broken"],
    ] {
        let output = rqc(&args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let err = stderr(&output);
        assert!(err.contains("[E0202]"), "{err}");
        assert!(err.contains("did you mean `name`?"), "{err}");
    }
    assert!(
        !db_dir.exists(),
        "the refused run did not open the database"
    );

    // The accepted entry points install and stay installed: the next run
    // names no program.
    let added = rqc(&[
        "run",
        "--db",
        &db,
        &app,
        "add",
        "--arg",
        "id=1",
        "--arg",
        "name=lamp",
        "--arg",
        "price=3",
    ]);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    assert!(
        stderr(&added).contains("1 error elsewhere; `add` is accepted and runs"),
        "{}",
        stderr(&added)
    );
    let read = rqc(&["run", "--db", &db, "item", "--arg", "id=1"]);
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));
    assert!(stdout(&read).contains("\"lamp\""), "{}", stdout(&read));
    let rejected = rqc(&["run", "--db", &db, "broken", "--arg", "id=1"]);
    assert_eq!(rejected.status.code(), Some(1));
    assert!(
        stderr(&rejected).contains("the entry points are: add, item"),
        "{}",
        stderr(&rejected)
    );
}

#[test]
fn load_and_the_repl_install_by_the_same_rule() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    // A module header: the REPL imports a module's tables into its own.
    let app = write(
        dir.path(),
        "app.rq",
        &format!("module app\n{}", with_broken()),
    );
    let rows = write(
        dir.path(),
        "items.jsonl",
        "{\"id\": 1, \"name\": \"lamp\", \"price\": 30}\n",
    );
    let loaded = rqc(&["load", "--db", &db, &app, "Item", &rows]);
    assert_eq!(loaded.status.code(), Some(0), "{}", stderr(&loaded));
    let err = stderr(&loaded);
    assert!(err.contains("loaded 1 row into Item"), "{err}");
    assert!(
        err.contains("note: the program has 1 error elsewhere"),
        "{err}"
    );

    let session = rqc_with_input(&["repl", "--db", &db, &app], "Item[1]\n:quit\n");
    assert_eq!(session.status.code(), Some(0), "{}", stderr(&session));
    let err = stderr(&session);
    assert!(
        err.contains("(1 tables, 2 entry points); not installed, rejected: app.broken"),
        "{err}"
    );
    assert!(stdout(&session).contains("lamp"), "{}", stdout(&session));

    // A broken shape loads nothing, and the REPL does not start.
    let shape = write(
        dir.path(),
        "shape.rq",
        &format!("{APP}\ntable Loose {{ a: Int }}\n"),
    );
    let refused = rqc(&["load", "--db", &db, &shape, "Item", &rows]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("[E0204]"), "{}", stderr(&refused));
    let refused = rqc_with_input(&["repl", "--db", &db, &shape], ":quit\n");
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("[E0204]"), "{}", stderr(&refused));
}
