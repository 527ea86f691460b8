//! Commands that agree with each other: only a command that writes creates a database (and says so), `load` and `restore` use the program the database or the dump holds, `run` and `watch` take several program paths as `check` does, and `watch --events N` counts changes.

use super::{rqc, stderr, stdout};

/// `rqc run --db DB examples/social add_user` for user `id`.
fn add_user(db: &str, program: &[&str], id: i64) -> std::process::Output {
    let handle = format!("handle=u{id}");
    let id = format!("id={id}");
    let mut args = vec!["run", "--db", db];
    args.extend_from_slice(program);
    args.extend([
        "add_user",
        "--arg",
        &id,
        "--arg",
        &handle,
        "--arg",
        "name=N",
        "--arg",
        "country=NZ",
    ]);
    rqc(&args)
}

/// Each command that only reads refuses a `--db` where no database is
/// (E0608, status 2) and leaves nothing behind, whether the path is
/// missing or an empty directory; each command that writes creates it and
/// says so on stderr, once.
#[test]
fn only_commands_that_write_create_a_database_and_they_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let typo = dir.path().join("dta");
    let db = typo.display().to_string();
    let out = dir.path().join("out").display().to_string();
    let reading: [&[&str]; 6] = [
        &["run", "--db", &db, "user", "--arg", "id=1"],
        &[
            "run",
            "--db",
            &db,
            "examples/social",
            "user",
            "--arg",
            "id=1",
        ],
        &[
            "watch", "--db", &db, "user", "--arg", "id=1", "--events", "0",
        ],
        &[
            "explain",
            "examples/social",
            "user",
            "--analyze",
            "--db",
            &db,
            "--arg",
            "id=1",
        ],
        &["verify", "--db", &db],
        &["dump", "--db", &db, "--out", &out],
    ];
    for empty_dir in [false, true] {
        if empty_dir {
            std::fs::create_dir(&typo).unwrap();
        }
        for args in reading {
            let output = rqc(args);
            assert_eq!(
                output.status.code(),
                Some(2),
                "{args:?}: {}",
                stderr(&output)
            );
            assert!(
                stderr(&output).contains(&format!(
                    "[E0608] Error: there is no database at `{db}`; this command does not create one"
                )),
                "{args:?}: {}",
                stderr(&output)
            );
            let left = std::fs::read_dir(&typo).map(|d| d.count()).ok();
            assert_eq!(
                left,
                empty_dir.then_some(0),
                "{args:?} left {typo:?} as it was"
            );
        }
    }
    // A load without a program needs a database that holds one.
    let rows = super::write(
        dir.path(),
        "u.jsonl",
        "{\"id\":1,\"handle\":\"a\",\"name\":\"A\",\"country\":\"NZ\"}\n",
    );
    let load = rqc(&["load", "--db", &db, "User", &rows]);
    assert!(stderr(&load).contains("[E0608] Error"), "{}", stderr(&load));

    let created = add_user(&db, &["examples/social"], 1);
    assert_eq!(created.status.code(), Some(0), "{}", stderr(&created));
    let says = format!("created a new lmdb database in {db}");
    assert_eq!(
        stderr(&created).matches(&says).count(),
        1,
        "{}",
        stderr(&created)
    );
    let again = add_user(&db, &["examples/social"], 2);
    assert!(!stderr(&again).contains("created"), "{}", stderr(&again));
    for args in reading {
        let output = rqc(args);
        assert!(
            !stderr(&output).contains("E0608"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    for (what, args) in [
        (
            "load",
            vec!["load", "--db", "NEW", "examples/social", "User", &rows],
        ),
        ("repl", vec!["repl", "--db", "NEW"]),
    ] {
        let new = dir.path().join(what).display().to_string();
        let args: Vec<&str> = args
            .iter()
            .map(|&a| if a == "NEW" { new.as_str() } else { a })
            .collect();
        let output = super::rqc_with_input(&args, "");
        assert_eq!(output.status.code(), Some(0), "{what}: {}", stderr(&output));
        assert!(
            stderr(&output).contains(&format!("created a new lmdb database in {new}")),
            "{what}: {}",
            stderr(&output)
        );
    }
}

/// `load` without a program loads by the one the database holds; `dump`
/// writes the program beside the rows, and `restore` without a program
/// restores by it; with neither, each says what to give.
#[test]
fn load_and_restore_use_the_program_the_database_or_the_dump_holds() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    assert_eq!(
        add_user(&db, &["examples/social"], 1).status.code(),
        Some(0)
    );
    let rows = super::write(
        dir.path(),
        "users.csv",
        "id,handle,name,country\n2,bo,Bo,NZ\n3,cy,Cy,FR\n",
    );
    let loaded = rqc(&["load", "--db", &db, "User", &rows]);
    assert_eq!(loaded.status.code(), Some(0), "{}", stderr(&loaded));
    assert!(
        stderr(&loaded).contains("loaded 2 rows into User"),
        "{}",
        stderr(&loaded)
    );

    let saved = dir.path().join("saved");
    let saved_arg = saved.display().to_string();
    let dumped = rqc(&["dump", "--db", &db, "--out", &saved_arg]);
    assert_eq!(dumped.status.code(), Some(0), "{}", stderr(&dumped));
    assert!(saved.join("program.rqc.json").is_file());
    let fresh = dir.path().join("fresh").display().to_string();
    let restored = rqc(&["restore", "--db", &fresh, "--from", &saved_arg]);
    assert_eq!(restored.status.code(), Some(0), "{}", stderr(&restored));
    assert!(
        stderr(&restored).contains("restored 3 rows"),
        "{}",
        stderr(&restored)
    );
    let read = rqc(&["run", "--db", &fresh, "user", "--arg", "id=3"]);
    assert_eq!(
        stdout(&read),
        "{\"id\":3,\"handle\":\"cy\",\"name\":\"Cy\",\"country\":\"FR\"}\n"
    );

    // A dump without the program (an older rqc's): restore asks for it.
    std::fs::remove_file(saved.join("program.rqc.json")).unwrap();
    let other = dir.path().join("other").display().to_string();
    let refused = rqc(&["restore", "--db", &other, "--from", &saved_arg]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("[E0514] Error: the dump in"),
        "{}",
        stderr(&refused)
    );
    assert!(stderr(&refused).contains("rqc restore --db NEW PROGRAM --from DIR"));
    let given = rqc(&[
        "restore",
        "--db",
        &other,
        "examples/social",
        "--from",
        &saved_arg,
    ]);
    assert_eq!(given.status.code(), Some(0), "{}", stderr(&given));
}

/// `run` and `watch` take a program of several paths, as `check` does.
#[test]
fn run_and_watch_take_several_program_paths() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    let social = ["examples/social/social.rq", "examples/social/writes.rq"];
    let added = add_user(&db, &social, 4);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    let read = rqc(&[
        "run",
        "--db",
        &db,
        "examples/social/social.rq",
        "examples/social/feed.rq",
        "user",
        "--arg",
        "id=4",
    ]);
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));
    assert!(
        stdout(&read).contains("\"handle\":\"u4\""),
        "{}",
        stdout(&read)
    );
    let watched = rqc(&[
        "watch",
        "--db",
        &db,
        "examples/social/social.rq",
        "examples/social/feed.rq",
        "user",
        "--arg",
        "id=4",
        "--events",
        "0",
    ]);
    assert_eq!(watched.status.code(), Some(0), "{}", stderr(&watched));
    // --events 0: the whole result alone (it is no change).
    assert_eq!(stdout(&watched).lines().count(), 1, "{}", stdout(&watched));
    let help = stdout(&rqc(&["watch", "--help"]));
    assert!(help.contains("Stop after this many changes"), "{help}");
    assert!(help.contains("which is not counted"), "{help}");
}
