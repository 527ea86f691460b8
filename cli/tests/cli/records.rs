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

/// The help for missing arguments names only those missing, each with its
/// declared ends, and an example within them: following it runs.
#[test]
fn the_missing_arguments_example_is_within_the_declared_ends() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(
        dir.path(),
        "ends.rq",
        "table Item { id: Int key }
mutation add(id: Int) = insert Item { id: id }
query q(a: Int, k: Int <= 7, z: Int >= -9 <= -1, s: String <= 2, ids: [Int; <= 1], w: Int >= 100) = k + z + w + length(s) + (ids |> count())",
    );
    let db = dir.path().join("db").display().to_string();
    let added = rqc(&["run", "--db", &db, &app, "add", "--arg", "id=1"]);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    let missing = rqc(&["run", "--db", &db, "q", "--arg", "a=1"]);
    assert_eq!(missing.status.code(), Some(1));
    let err = stderr(&missing);
    assert!(
        err.contains("missing arguments k: Int <= 7, z: Int >= -9 <= -1, s: String <= 2, ids: [Int; <= 1], w: Int >= 100"),
        "{err}"
    );
    assert!(
        !err.contains("--arg a="),
        "a given argument is offered again: {err}"
    );
    // Every example the help gives, passed as it is shown.
    let mut args = vec![
        "run".to_string(),
        "--db".into(),
        db.clone(),
        "q".into(),
        "--arg".into(),
        "a=1".into(),
    ];
    for example in err.split('`').filter(|part| part.starts_with("--arg ")) {
        let value = example["--arg ".len()..].replace('\'', "");
        args.extend(["--arg".to_string(), value]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let ran = rqc(&args);
    assert_eq!(ran.status.code(), Some(0), "{:?}: {}", args, stderr(&ran));
    // 7 + -1 + 100 + 2 + 1
    assert_eq!(stdout(&ran).trim(), "109");
}
