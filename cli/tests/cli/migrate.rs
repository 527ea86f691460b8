//! Schema changes through the CLI: an older program is refused with E0519 and the exact `--migrate` flags, which then apply the drop.

use super::{rqc, stderr, stdout, write};

const V2: &str = "table Item { id: Int key  name: String unique  note: String? }
mutation add(id: Int, name: String) = insert Item { id, name, note: none }
query item(id: Int) = Item[id]
";

const V1: &str = "table Item { id: Int key  name: String }
mutation add(id: Int, name: String) = insert Item { id, name }
query item(id: Int) = Item[id]
";

#[test]
fn an_older_program_is_refused_until_migrate_names_the_drop() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    let v1 = write(dir.path(), "v1.rq", V1);
    let v2 = write(dir.path(), "v2.rq", V2);
    let add = |program: &str, id: &str, extra: &[&str]| {
        let mut args = vec![
            "run",
            "--db",
            &db,
            program,
            "add",
            "--arg",
            id,
            "--arg",
            "name=lamp",
        ];
        args.extend_from_slice(extra);
        rqc(&args)
    };
    assert!(add(&v1, "id=1", &[]).status.success());
    // v2 adds an optional column and a unique index: applied.
    let added = add(&v2, "id=2", &[]);
    assert_eq!(
        added.status.code(),
        Some(1),
        "the duplicate name is refused"
    );
    assert!(stderr(&added).contains("E0502"), "{}", stderr(&added));
    let first = rqc(&["run", "--db", &db, "item", "--arg", "id=1"]);
    assert_eq!(
        stdout(&first).trim(),
        r#"{"id":1,"name":"lamp","note":null}"#
    );
    // v1 again would drop the unique index (and cannot drop a column).
    let older = add(&v1, "id=3", &[]);
    assert_eq!(older.status.code(), Some(1));
    let err = stderr(&older);
    assert!(err.contains("[E0519] Error"), "{err}");
    assert!(err.contains("--migrate 'index:Item.name'"), "{err}");
    // With the drop named, the unique index goes; v1's columns are not
    // v2's, so the install is still refused (E0510), and nothing changed.
    let named = add(&v1, "id=3", &["--migrate", "index:Item.name"]);
    assert_eq!(named.status.code(), Some(1));
    assert!(
        stderr(&named).contains("[E0510] Error"),
        "{}",
        stderr(&named)
    );
    let v2_without_unique = write(dir.path(), "v3.rq", &V2.replace(" unique", ""));
    let refused = add(&v2_without_unique, "id=3", &[]);
    assert!(
        stderr(&refused).contains("[E0519] Error"),
        "{}",
        stderr(&refused)
    );
    let dropped = add(
        &v2_without_unique,
        "id=3",
        &["--migrate", "index:Item.name"],
    );
    assert_eq!(dropped.status.code(), Some(0), "{}", stderr(&dropped));
    let help = stdout(&rqc(&["run", "--help"]));
    assert!(help.contains("--migrate <WHAT>"), "{help}");
}

/// A column renamed, then dropped, through the CLI: refused with the flag
/// to give, then applied with it, the stored rows reading the new shape.
#[test]
fn a_column_is_renamed_then_dropped_with_the_flags_the_refusals_name() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    let v1 = write(dir.path(), "v1.rq", V1);
    let renamed = write(
        dir.path(),
        "v2.rq",
        &V1.replace("name: String", "title: String").replace(
            "insert Item { id, name }",
            "insert Item { id, title: name }",
        ),
    );
    let dropped = write(
        dir.path(),
        "v3.rq",
        "table Item { id: Int key }
mutation add(id: Int, name: String) = insert Item { id }
query item(id: Int) = Item[id]
",
    );
    let run = |program: &str, extra: &[&str]| {
        let mut args = vec!["run", "--db", &db, program, "item", "--arg", "id=1"];
        args.extend_from_slice(extra);
        rqc(&args)
    };
    let added = rqc(&[
        "run",
        "--db",
        &db,
        &v1,
        "add",
        "--arg",
        "id=1",
        "--arg",
        "name=lamp",
    ]);
    assert!(added.status.success(), "{}", stderr(&added));
    let refused = run(&renamed, &[]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("--migrate 'rename:Item.name=title'"),
        "{}",
        stderr(&refused)
    );
    let read = run(&renamed, &["--migrate", "rename:Item.name=title"]);
    assert!(read.status.success(), "{}", stderr(&read));
    assert_eq!(stdout(&read).trim(), r#"{"id":1,"title":"lamp"}"#);
    let refused = run(&dropped, &[]);
    assert!(
        stderr(&refused).contains("--migrate 'drop:Item.title'"),
        "{}",
        stderr(&refused)
    );
    let read = run(&dropped, &["--migrate", "drop:Item.title"]);
    assert!(read.status.success(), "{}", stderr(&read));
    assert_eq!(stdout(&read).trim(), r#"{"id":1}"#);
    let verified = rqc(&["verify", "--db", &db]);
    assert!(verified.status.success(), "{}", stderr(&verified));
}
