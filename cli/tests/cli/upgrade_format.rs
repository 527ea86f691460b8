//! A database of storage format 3 (`cli/tests/data/format3`, made by the rqc before one B-tree): refused with the upgrade's command, then moved by `rqc upgrade` with every row, index, counter and aggregate as it was.

use super::{rqc, stderr, stdout};

/// The golden database copied into `dir`, and the program's path.
fn golden(dir: &std::path::Path) -> (String, String) {
    let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/format3");
    let db_dir = dir.join("db");
    std::fs::create_dir_all(&db_dir).unwrap();
    for file in ["data.mdb", "rqc-store"] {
        std::fs::copy(golden.join("db").join(file), db_dir.join(file)).unwrap();
    }
    (
        db_dir.display().to_string(),
        golden.join("app.rq").display().to_string(),
    )
}

#[test]
fn a_database_of_format_3_is_refused_with_the_upgrade_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (db, app) = golden(dir.path());
    let data = std::path::Path::new(&db).join("data.mdb");
    let before = std::fs::read(&data).unwrap();
    for args in [
        vec!["run", "--db", &db, "item", "--arg", "id=1"],
        vec!["run", "--db", &db, &app, "open_shop", "--arg", "name=east"],
        vec!["verify", "--db", &db],
        vec!["dump", "--db", &db, "--out", "unused"],
    ] {
        let out = rqc(&args);
        let err = stderr(&out);
        assert_ne!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.contains("[E0518] Error"), "{args:?}: {err}");
        assert!(err.contains("storage format 3"), "{err}");
        assert!(err.contains("rqc upgrade --db DIR"), "{err}");
    }
    assert!(
        std::fs::read(&data).unwrap() == before,
        "the database is left as it was"
    );
}

#[test]
fn upgrade_moves_format_3_into_one_tree_and_everything_answers_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let (db, app) = golden(dir.path());
    let upgraded = rqc(&["upgrade", "--db", &db]);
    let said = stderr(&upgraded);
    assert_eq!(upgraded.status.code(), Some(0), "{said}");
    assert!(said.contains("moved 10 trees"), "{said}");
    assert!(said.contains("storage format 4: verified 5 rows"), "{said}");
    // Its program was compiled in plan format 8: installed again by the
    // first run that gives the sources.
    assert!(said.contains("install it again with this one"), "{said}");
    let answer = |args: &[&str]| {
        let mut all = vec!["run", "--db", &db];
        all.extend_from_slice(args);
        let out = rqc(&all);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    assert_eq!(
        answer(&[&app, "item", "--arg", "id=1"]),
        "{\"id\":1,\"shop\":1,\"name\":\"lamp\",\"price\":30}\n"
    );
    assert_eq!(answer(&["total", "--arg", "shop=1"]), "34\n");
    assert_eq!(
        answer(&["cheapest", "--arg", "shop=1"]),
        "{\"id\":2,\"shop\":1,\"name\":\"cup\",\"price\":4}\n{\"id\":1,\"shop\":1,\"name\":\"lamp\",\"price\":30}\n"
    );
    // The generated key's counter, the unique index and the reference
    // count came along.
    assert_eq!(answer(&[&app, "open_shop", "--arg", "name=east"]), "3\n");
    let taken = rqc(&["run", "--db", &db, &app, "open_shop", "--arg", "name=north"]);
    assert_eq!(taken.status.code(), Some(1), "{}", stderr(&taken));
    let dangling = rqc(&[
        "run", "--db", &db, &app, "add", "--arg", "id=9", "--arg", "shop=9", "--arg", "name=x",
        "--arg", "price=1",
    ]);
    assert!(
        stderr(&dangling).contains("[E0503]"),
        "{}",
        stderr(&dangling)
    );
    answer(&[
        &app, "add", "--arg", "id=4", "--arg", "shop=1", "--arg", "name=mug", "--arg", "price=6",
    ]);
    assert_eq!(answer(&["total", "--arg", "shop=1"]), "40\n");
    let verified = rqc(&["verify", "--db", &db]);
    assert_eq!(verified.status.code(), Some(0), "{}", stdout(&verified));
    assert!(
        stderr(&verified).contains("verified: 7 rows"),
        "{}",
        stderr(&verified)
    );
    super::upgrade::upgraded_once(&db);
}
