//! Plan files and the program a database holds, through the binary: `rqc compile -o`, `rqc run --plan`, and `rqc run --db DIR NAME` with no program.
//!
//! The golden files are `tests/plans/` (see its README); the library's side
//! is `tests/tests/plan_files.rs`.

use super::{rqc, rqc_with_input, stderr, stdout, write, APP};

fn add(db: &str, how: &[&str], id: &str, name: &str) -> std::process::Output {
    let mut args = vec!["run", "--db", db];
    args.extend_from_slice(how);
    args.extend_from_slice(&["add", "--arg"]);
    let id = format!("id={id}");
    let name = format!("name={name}");
    args.extend_from_slice(&[&id, "--arg", &name, "--arg", "shelf=7", "--arg", "price=3"]);
    rqc(&args)
}

#[test]
fn a_compiled_plan_installs_and_the_database_runs_it_without_sources() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let plan = dir.path().join("app.rqc.json").display().to_string();
    let compiled = rqc(&["compile", &app, "-o", &plan]);
    assert_eq!(compiled.status.code(), Some(0), "{}", stderr(&compiled));
    let db = dir.path().join("db").display().to_string();
    let added = rqc(&[
        "run",
        "--db",
        &db,
        "--plan",
        &plan,
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
        stderr(&added).contains("1 row written"),
        "{}",
        stderr(&added)
    );
    // Neither sources nor plan: the database's own program answers.
    std::fs::remove_file(&plan).unwrap();
    std::fs::remove_file(&app).unwrap();
    let read = rqc(&["run", "--db", &db, "item", "--arg", "id=1"]);
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));
    let row: serde_json::Value = serde_json::from_str(stdout(&read).trim()).unwrap();
    assert_eq!(
        row,
        serde_json::json!({"id": 1, "name": "lamp", "price": 3})
    );
    let unknown = rqc(&["run", "--db", &db, "remove"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        stderr(&unknown).contains("the entry points are: add, item"),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn the_golden_plan_files_one_runs_the_previous_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("db");
    let db = db_dir.display().to_string();
    let old = add(
        &db,
        &["--plan", "tests/plans/format-8.rqc.json"],
        "1",
        "lamp",
    );
    assert_eq!(old.status.code(), Some(2), "{}", stderr(&old));
    let err = stderr(&old);
    assert!(err.contains("[E0513] Error"), "{err}");
    assert!(
        err.contains("plan format 8; this rqc runs format 9"),
        "{err}"
    );
    assert!(
        err.contains("Help: compile the program again with this rqc: `rqc compile SOURCES -o tests/plans/format-8.rqc.json`"),
        "{err}"
    );
    assert!(
        !db_dir.exists(),
        "the refused plan did not open the database"
    );

    let current = add(
        &db,
        &["--plan", "tests/plans/format-9.rqc.json"],
        "1",
        "lamp",
    );
    assert_eq!(current.status.code(), Some(0), "{}", stderr(&current));
    assert_eq!(add(&db, &[], "2", "cup").status.code(), Some(0));
    let cheapest = rqc(&[
        "run", "--db", &db, "cheapest", "--arg", "shelf=7", "--arg", "n=10",
    ]);
    assert_eq!(cheapest.status.code(), Some(0), "{}", stderr(&cheapest));
    assert_eq!(
        stdout(&cheapest).lines().count(),
        2,
        "{}",
        stdout(&cheapest)
    );
}

#[test]
fn run_without_a_program_needs_a_database_that_holds_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    // No database there: a query only reads, and creates none.
    let output = rqc(&["run", "--db", &db, "item", "--arg", "id=1"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("[E0608] Error: there is no database at"),
        "{err}"
    );
    assert!(!std::path::Path::new(&db).exists(), "none was created");
    // A database without a program (a session that wrote nothing made it).
    let session = rqc_with_input(&["repl", "--db", &db], "");
    assert!(
        stderr(&session).contains("created a new lmdb database in"),
        "{}",
        stderr(&session)
    );
    let output = rqc(&["run", "--db", &db, "item", "--arg", "id=1"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("[E0514] Error: no program is installed in this database"),
        "{err}"
    );
    assert!(err.contains("--plan FILE"), "{err}");

    let app = write(dir.path(), "app.rq", APP);
    let both = rqc(&["run", "--db", &db, "--plan", "p.json", &app, "item"]);
    assert_eq!(both.status.code(), Some(2), "a program and a plan at once");
    assert!(
        stderr(&both).contains("cannot be used with"),
        "{}",
        stderr(&both)
    );

    let help = rqc(&["run", "--help"]);
    let out = stdout(&help);
    assert!(
        out.contains("rqc run [OPTIONS] --db <DIR> [PROGRAM]... <NAME>"),
        "{out}"
    );
    assert!(out.contains("--plan <FILE>"), "{out}");
    assert!(out.contains("the program the database holds runs"), "{out}");
}

#[test]
fn a_database_holding_a_program_of_a_newer_format_is_refused_and_left_alone() {
    use rqc_runtime::{Backend, OpenOptions};
    let open = |dir: &std::path::Path| {
        Backend::Lmdb
            .open_store(dir, &OpenOptions::with_backend(Backend::Lmdb))
            .unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let db_dir = dir.path().join("db");
    let db = db_dir.display().to_string();
    assert_eq!(
        add(
            &db,
            &["--plan", "tests/plans/format-9.rqc.json"],
            "1",
            "lamp"
        )
        .status
        .code(),
        Some(0)
    );
    let newer = format!(
        r#"{{"format_version": {}, "schema": "from a newer rqc"}}"#,
        rqc_plan::FORMAT_VERSION + 1
    );
    let newer = newer.as_bytes();
    {
        let store = open(&db_dir);
        let mut txn = store.begin_write().unwrap();
        txn.put(store.tree("__catalog"), b"program", newer).unwrap();
        txn.commit().unwrap();
    }
    for how in [&[][..], &["--plan", "tests/plans/format-9.rqc.json"][..]] {
        let output = add(&db, how, "2", "cup");
        assert_eq!(
            output.status.code(),
            Some(2),
            "{how:?}: {}",
            stderr(&output)
        );
        let err = stderr(&output);
        assert!(err.contains("[E0516] Error"), "{err}");
        assert!(
            err.contains(&format!(
                "compiled by a newer rqc (plan format {}; this rqc runs format {})",
                rqc_plan::FORMAT_VERSION + 1,
                rqc_plan::FORMAT_VERSION
            )),
            "{err}"
        );
    }
    let store = open(&db_dir);
    let txn = store.begin_read().unwrap();
    let kept = txn.get(store.tree("__catalog"), b"program").unwrap();
    assert_eq!(
        kept.as_deref(),
        Some(newer),
        "the newer program was not replaced"
    );
}

/// A plan file edited by hand is verified before any database is opened:
/// a claim below what its plan may read is refused with the code that says
/// so, naming the entry point and the operator, and no database is made.
#[test]
fn an_edited_plan_is_refused_before_the_database_is_opened() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let plan = dir.path().join("app.rqc.json");
    let compiled = rqc(&["compile", &app, "-o", &plan.display().to_string()]);
    assert_eq!(compiled.status.code(), Some(0), "{}", stderr(&compiled));
    let mut program: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&plan).unwrap()).unwrap();
    for entry in program["entries"].as_array_mut().unwrap() {
        if entry["name"] == "item" {
            entry["root"]["bound"]["rows"] = serde_json::json!(0);
        }
    }
    std::fs::write(&plan, serde_json::to_vec(&program).unwrap()).unwrap();
    let db = dir.path().join("db");
    let plan = plan.display().to_string();
    let db_arg = db.display().to_string();
    let output = rqc(&[
        "run", "--db", &db_arg, "--plan", &plan, "item", "--arg", "id=1",
    ]);
    assert_ne!(output.status.code(), Some(0));
    let err = stderr(&output);
    assert!(err.contains("[E0631] Error"), "{err}");
    assert!(
        err.contains("`app.item` is refused at operator 0 (Get): it claims at most 0 rows, and the plan may make 1"),
        "{err}"
    );
    assert!(!db.exists(), "a refused plan made the database");
}
