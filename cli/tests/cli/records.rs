//! A list of records as `--arg`: JSON objects with exactly the entry's fields.

use super::{rqc, stderr, stdout, write};

#[test]
fn a_batch_of_rows_is_passed_as_json_objects() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(
        dir.path(),
        "batch.rq",
        "table Item { id: Int key  name: String }
mutation add_many(rows: [{ id: Int, name: String }; <= 10]) =
  rows |> map(r => insert Item { id: r.id, name: r.name })
query item(id: Int) = Item[id]",
    );
    let db = dir.path().join("db").display().to_string();
    let added = rqc(&[
        "run",
        "--db",
        &db,
        &app,
        "add_many",
        "--arg",
        r#"rows=[{"id": 1, "name": "lamp"}, {"id": 2, "name": "cup"}]"#,
    ]);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    assert!(
        stderr(&added).contains("2 rows written"),
        "{}",
        stderr(&added)
    );
    let found = rqc(&["run", "--db", &db, "item", "--arg", "id=2"]);
    assert_eq!(stdout(&found).trim(), r#"{"id":2,"name":"cup"}"#);
    let wrong = rqc(&[
        "run",
        "--db",
        &db,
        "add_many",
        "--arg",
        r#"rows=[{"id": 3}]"#,
    ]);
    assert_eq!(wrong.status.code(), Some(1));
    let err = stderr(&wrong);
    assert!(err.contains("[E0520] Error"), "{err}");
    assert!(
        err.contains(r#"--arg rows='[{"id": 1, "name": "text"}]'"#),
        "{err}"
    );
}
