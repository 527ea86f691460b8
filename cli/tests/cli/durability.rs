//! `--durability full|normal|none`: taken by every command that writes, explained in its help, per open (the database does not record it), refused when misspelt.

use super::{rqc, stderr, stdout, write, APP};

#[test]
fn help_says_what_each_level_promises() {
    for command in ["run", "repl", "load", "watch", "restore", "upgrade"] {
        let help = stdout(&rqc(&[command, "--help"]));
        for part in [
            "--durability <LEVEL>",
            "full",
            "normal",
            "none",
            "a power loss",
            "MDB_NOMETASYNC",
            "the database does not record it",
            "[default: full]",
        ] {
            assert!(
                help.contains(part),
                "{command} --help lacks {part:?}:\n{help}"
            );
        }
    }
}

/// Each level writes on each on-disk backend; the next open chooses
/// another level and sees every commit; `verify` finds the database sound.
#[test]
fn each_level_commits_on_each_backend_and_the_next_open_chooses_again() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    for store in ["lmdb", "redb", "sled"] {
        let db = dir.path().join(store).display().to_string();
        for (id, level) in ["full", "normal", "none"].into_iter().enumerate() {
            let (id, name) = (format!("id={id}"), format!("name=item{id}"));
            let mut args = vec!["run", "--db", &db, "--durability", level];
            if id == "id=0" {
                args.extend(["--store", store]);
            }
            args.extend([
                &app[..],
                "add",
                "--arg",
                &id,
                "--arg",
                &name,
                "--arg",
                "price=1",
            ]);
            let out = rqc(&args);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{store} at {level}: {}",
                stderr(&out)
            );
        }
        for (id, level) in [(0, "none"), (1, "full"), (2, "normal")] {
            let id = format!("id={id}");
            let out = rqc(&[
                "run",
                "--db",
                &db,
                "--durability",
                level,
                "item",
                "--arg",
                &id,
            ]);
            assert!(
                stdout(&out).contains(&format!("\"name\":\"item{}\"", &id[3..])),
                "{store}: {id} read at {level}: {}{}",
                stdout(&out),
                stderr(&out)
            );
        }
        let verified = rqc(&["verify", "--db", &db]);
        assert_eq!(
            verified.status.code(),
            Some(0),
            "{store}: {}",
            stderr(&verified)
        );
    }
}

#[test]
fn an_unknown_level_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let db = dir.path().join("db").display().to_string();
    let out = rqc(&[
        "run",
        "--db",
        &db,
        "--durability",
        "eventual",
        &app,
        "item",
        "--arg",
        "id=1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("full") && err.contains("normal") && err.contains("none"),
        "{err}"
    );
    assert!(!dir.path().join("db").exists(), "nothing was created");
}
