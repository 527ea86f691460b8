//! The plan is the artifact: a database keeps its installed program and runs it when opened again; plan files install, and other plan formats are refused with a code.
//!
//! `tests/plans/` holds `shop.rq` compiled by the rqc of each plan format:
//! `format-9.rqc.json` (the current one, which must load and run) and
//! `format-8.rqc.json` (the previous one, which must be refused, never
//! misread). The same files through the `rqc` binary: `cli/tests/cli/plans.rs`.

use rqc::{Backend, Database, Error, OpenOptions, RuntimeError, Value};
use std::path::{Path, PathBuf};

fn plan(name: &str) -> PathBuf {
    rqc_tests::repo_root().join("tests/plans").join(name)
}

fn runtime(error: Error) -> RuntimeError {
    match error {
        Error::Runtime(e) => e,
        other => panic!("expected a runtime error, got {other}"),
    }
}

/// The database at `dir`, or why it would not open.
fn open(dir: &Path, backend: Backend) -> Result<Database, Error> {
    Database::open_with(
        dir,
        OpenOptions {
            backend: Some(backend),
            ..OpenOptions::default()
        },
    )
}

fn add(db: &Database, id: i64, name: &str, shelf: i64, price: i64) {
    db.run("add", &[id.into(), name.into(), shelf.into(), price.into()])
        .unwrap();
}

/// Names of the rows `cheapest(shelf, n)` returns, cheapest first.
fn cheapest(db: &Database, shelf: i64, n: i64) -> Vec<String> {
    let output = db.run("cheapest", &[shelf.into(), n.into()]).unwrap();
    output
        .rows()
        .iter()
        .map(|row| match row.field("name") {
            Some(Value::Str(name)) => name.clone(),
            other => panic!("a row without a name: {other:?}"),
        })
        .collect()
}

fn stock(db: &Database) {
    add(db, 1, "lamp", 7, 30);
    add(db, 2, "desk", 7, 90);
    add(db, 3, "cup", 7, 5);
    add(db, 4, "rug", 8, 40);
}

/// Writes `bytes` as the program a redb database at `dir` holds, as if an
/// rqc of another plan format had installed it.
fn store_program(dir: &Path, bytes: &[u8]) {
    let store = Backend::Redb
        .open_store(dir, &OpenOptions::with_backend(Backend::Redb))
        .unwrap();
    let mut txn = store.begin_write().unwrap();
    txn.put(store.tree("__catalog"), b"program", bytes).unwrap();
    txn.commit().unwrap();
}

#[test]
fn a_database_opened_again_runs_the_program_it_holds() {
    let source = std::fs::read_to_string(plan("shop.rq")).unwrap();
    for backend in Backend::ON_DISK {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut db = open(dir.path(), backend).unwrap();
            db.install_source("shop.rq", &source).unwrap();
            stock(&db);
        }
        // No sources: the catalog's program answers queries and mutations.
        let db = open(dir.path(), backend).unwrap();
        let program = db.program().expect("the database holds a program");
        assert_eq!(program.entries.len(), 3, "{backend:?}");
        assert_eq!(cheapest(&db, 7, 2), ["cup", "lamp"], "{backend:?}");
        let item = db.prepare("item").unwrap();
        assert_eq!(item.run(&[4.into()]).unwrap().rows().len(), 1);
        add(&db, 5, "vase", 7, 1);
        assert_eq!(cheapest(&db, 7, 1), ["vase"], "{backend:?}");
    }
}

#[test]
fn a_fresh_database_has_no_program_to_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(dir.path(), Backend::Redb).unwrap();
    assert!(db.program().is_none());
    let refused = runtime(db.run("item", &[1.into()]).unwrap_err());
    assert_eq!(refused.code, "E0514");
    assert!(refused.help.contains("install"), "{}", refused.help);
}

#[test]
fn the_current_plan_format_loads_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut db = open(dir.path(), Backend::Redb).unwrap();
        db.install_plan(plan("format-9.rqc.json")).unwrap();
        stock(&db);
        assert_eq!(cheapest(&db, 7, 10), ["cup", "lamp", "desk"]);
        let found = db.run("item", &[4.into()]).unwrap();
        assert_eq!(found.rows()[0].field("price"), Some(&Value::Int(40)));
        // The bound is the plan file's, and held at run time.
        assert!(runtime(db.run("cheapest", &[7.into(), 11.into()]).unwrap_err()).code == "E0522");
        // So is the schema's length bound (`name: String <= 40`).
        let long = "n".repeat(41);
        let refused = db.run(
            "add",
            &[99.into(), long.as_str().into(), 7.into(), 1.into()],
        );
        assert_eq!(runtime(refused.unwrap_err()).code, "E0576");
    }
    let db = open(dir.path(), Backend::Redb).unwrap();
    assert_eq!(cheapest(&db, 8, 10), ["rug"]);
}

#[test]
fn the_previous_plan_format_is_refused_with_both_versions_and_the_fix() {
    let path = plan("format-8.rqc.json");
    let refused = runtime(rqc::read_plan(&path).unwrap_err());
    assert_eq!(refused.code, "E0513");
    assert!(
        refused.message.contains("plan format 8"),
        "{}",
        refused.message
    );
    assert!(refused.message.contains("format 9"), "{}", refused.message);
    assert!(
        refused.message.contains("format-8.rqc.json"),
        "{}",
        refused.message
    );
    assert!(refused.help.contains("rqc compile"), "{}", refused.help);

    let dir = tempfile::tempdir().unwrap();
    let mut db = open(dir.path(), Backend::Redb).unwrap();
    let refused = runtime(db.install_plan(&path).unwrap_err());
    assert_eq!(refused.code, "E0513");
    assert!(db.program().is_none(), "nothing was installed");
    drop(db);
    assert!(open(dir.path(), Backend::Redb).unwrap().program().is_none());
}

#[test]
fn a_file_that_is_no_compiled_program_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::in_memory();
    let current = rqc_plan::FORMAT_VERSION;
    let edited = format!("{{\"format_version\": {current}, \"schema\": 7}}\n");
    let undecodable = format!("says plan format {current} but does not decode");
    for (name, text, why) in [
        ("notes.json", "lamp, desk\n", "is not JSON"),
        ("other.json", "{\"tables\": []}\n", "no plan format version"),
        ("edited.json", edited.as_str(), undecodable.as_str()),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let refused = runtime(db.install_plan(&path).unwrap_err());
        assert_eq!(refused.code, "E0517", "{name}");
        assert!(refused.message.contains(why), "{name}: {}", refused.message);
        assert!(refused.help.contains("rqc compile"), "{}", refused.help);
    }
    let missing = db.install_plan(dir.path().join("gone.json")).unwrap_err();
    assert_eq!(missing.code(), "E0600");
    assert!(db.program().is_none());
}

#[test]
fn a_database_holding_a_program_of_a_newer_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut db = open(dir.path(), Backend::Redb).unwrap();
        db.install_plan(plan("format-9.rqc.json")).unwrap();
        stock(&db);
    }
    let current = std::fs::read_to_string(plan("format-9.rqc.json")).unwrap();
    let version = rqc_plan::FORMAT_VERSION;
    let newer = current.replacen(
        &format!("\"format_version\": {version}"),
        &format!("\"format_version\": {}", version + 1),
        1,
    );
    assert_ne!(newer, current);
    store_program(dir.path(), newer.as_bytes());
    let Err(refused) = open(dir.path(), Backend::Redb) else {
        panic!("a database holding a newer program opened");
    };
    let refused = runtime(refused);
    assert_eq!(refused.code, "E0516");
    assert!(refused.message.contains("newer rqc"), "{}", refused.message);
    assert!(
        refused
            .message
            .contains(&format!("plan format {}", version + 1)),
        "{}",
        refused.message
    );
    assert!(
        refused.message.contains(&format!("format {version}")),
        "{}",
        refused.message
    );
}

#[test]
fn a_database_holding_an_older_program_opens_and_runs_once_it_is_installed_again() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut db = open(dir.path(), Backend::Redb).unwrap();
        db.install_plan(plan("format-9.rqc.json")).unwrap();
        stock(&db);
    }
    store_program(
        dir.path(),
        &std::fs::read(plan("format-8.rqc.json")).unwrap(),
    );
    let mut db = open(dir.path(), Backend::Redb).unwrap();
    assert!(db.program().is_none());
    let refused = runtime(db.run("item", &[1.into()]).unwrap_err());
    assert_eq!(refused.code, "E0513");
    assert!(
        refused.message.contains("plan format 8"),
        "{}",
        refused.message
    );
    assert!(
        refused.help.contains("install the program again"),
        "{}",
        refused.help
    );
    // Installing it again runs it, over the rows the database kept.
    db.install_plan(plan("format-9.rqc.json")).unwrap();
    assert_eq!(cheapest(&db, 7, 10), ["cup", "lamp", "desk"]);
}

#[test]
fn a_plan_file_migrates_the_schema_as_sources_do() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = open(dir.path(), Backend::Redb).unwrap();
    // The same table without the index: the plan file adds it, back-filled.
    let before = "module shop
table Item { id: Int key  name: String unique  shelf: Int  price: Int }
pub mutation add(id: Int, name: String, shelf: Int, price: Int) =
  insert Item { id: id, name: name, shelf: shelf, price: price }
";
    db.install_source("shop.rq", before).unwrap();
    stock(&db);
    db.install_plan(plan("format-9.rqc.json")).unwrap();
    assert_eq!(cheapest(&db, 7, 10), ["cup", "lamp", "desk"]);

    // Required columns the stored rows lack are refused whole, as from
    // sources (an empty table would take them).
    let other = tempfile::tempdir().unwrap();
    let mut db = open(other.path(), Backend::Redb).unwrap();
    db.install_source(
        "shop.rq",
        "table Item { id: Int key  name: String }
mutation put(id: Int, name: String) = insert Item { id: id, name: name }",
    )
    .unwrap();
    db.run("put", &[Value::Int(1), Value::from("cup")]).unwrap();
    let refused = runtime(db.install_plan(plan("format-9.rqc.json")).unwrap_err());
    assert_eq!(refused.code, "E0510");
    let kept: Vec<String> = db
        .program()
        .unwrap()
        .entries
        .iter()
        .map(|e| e.name.clone())
        .collect();
    assert_eq!(kept, ["put"], "the old program stays");
}
