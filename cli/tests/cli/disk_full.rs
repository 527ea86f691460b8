//! A full disk during a load: `ulimit -f` stops the file's growth, with the signal ignored (E0545) or delivered (SIGXFSZ); the database is as it was, readable, and takes the load once the limit is gone.

use super::{repo, rqc, stderr, stdout, write};
use std::process::Command;

/// `rqc ARGS` in bash under `ulimit -f KIB`, with SIGXFSZ ignored or not.
fn limited(kib: u64, ignore_signal: bool, args: &[&str]) -> std::process::Output {
    let trap = if ignore_signal { "trap '' XFSZ; " } else { "" };
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -f {kib}; {trap}exec '{}' {}",
            env!("CARGO_BIN_EXE_rqc"),
            quoted.join(" ")
        ))
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .output()
        .expect("bash runs")
}

fn posts(from: i64, count: i64) -> String {
    (from..from + count)
        .map(|id| {
            format!(
                "{{\"id\": {id}, \"author\": {}, \"at\": {}, \"body\": \"a post long enough to take some room on disk, number {id}\"}}\n",
                id % 50 + 1,
                1_600_000_000 + id
            )
        })
        .collect()
}

#[test]
fn a_load_stopped_by_a_full_disk_leaves_the_database_as_it_was() {
    for store in ["lmdb", "redb"] {
        for ignore_signal in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            let db = dir.path().join("db").display().to_string();
            for (table, file) in [
                ("Country", "examples/social/data/countries.csv"),
                ("User", "examples/social/data/users.jsonl"),
            ] {
                let out = rqc(&[
                    "load",
                    "--store",
                    store,
                    "--db",
                    &db,
                    "examples/social",
                    table,
                    file,
                ]);
                assert!(out.status.success(), "{}", stderr(&out));
            }
            let small = write(dir.path(), "small.jsonl", &posts(1, 100));
            assert!(
                rqc(&["load", "--db", &db, "examples/social", "Post", &small])
                    .status
                    .success()
            );
            let before = stdout(&rqc(&[
                "run",
                "--db",
                &db,
                "recent_posts",
                "--arg",
                "a=2",
                "--arg",
                "n=100",
            ]));
            let size: u64 = std::fs::read_dir(dir.path().join("db"))
                .unwrap()
                .map(|e| e.unwrap().metadata().unwrap().len())
                .max()
                .unwrap();
            let big = write(dir.path(), "big.jsonl", &posts(1000, 30_000));
            let case = format!("{store}, signal ignored: {ignore_signal}");
            let stopped = limited(
                size / 1024 + 64,
                ignore_signal,
                &["load", "--db", &db, "examples/social", "Post", &big],
            );
            if ignore_signal {
                assert_eq!(
                    stopped.status.code(),
                    Some(1),
                    "{case}: {}",
                    stderr(&stopped)
                );
                assert!(
                    stderr(&stopped).contains("[E0545] Error"),
                    "{case}: {}",
                    stderr(&stopped)
                );
            } else {
                assert!(!stopped.status.success(), "{case}: {}", stderr(&stopped));
            }
            // As it was, and sound.
            let verified = rqc(&["verify", "--db", &db]);
            assert_eq!(
                verified.status.code(),
                Some(0),
                "{case}: {}{}",
                stdout(&verified),
                stderr(&verified)
            );
            let after = stdout(&rqc(&[
                "run",
                "--db",
                &db,
                "recent_posts",
                "--arg",
                "a=2",
                "--arg",
                "n=100",
            ]));
            assert_eq!(before, after, "{case}");
            // And writable again once the limit is gone.
            let loaded = rqc(&["load", "--db", &db, "examples/social", "Post", &big]);
            assert!(loaded.status.success(), "{case}: {}", stderr(&loaded));
            assert!(
                stderr(&loaded).contains("loaded 30000 rows"),
                "{case}: {}",
                stderr(&loaded)
            );
            let verified = rqc(&["verify", "--db", &db]);
            assert_eq!(
                verified.status.code(),
                Some(0),
                "{case}: {}",
                stdout(&verified)
            );
        }
    }
}

/// A database whose creation hit the limit (its files half made, no
/// marker) is made again by the next command once there is room: it was
/// "not an rqc database" for ever (issue 35 §5).
#[test]
fn a_creation_stopped_by_a_full_disk_is_made_again_once_there_is_room() {
    let dir = tempfile::tempdir().unwrap();
    let program = write(
        dir.path(),
        "z.rq",
        "table Z { id: Int key }\nmutation mk(id: Int) = insert Z { id: id }\n",
    );
    for store in ["lmdb", "redb"] {
        let db = dir.path().join(store).display().to_string();
        let full = limited(
            1,
            true,
            &[
                "run", "--store", store, "--db", &db, &program, "mk", "--arg", "id=1",
            ],
        );
        assert_eq!(full.status.code(), Some(1), "{store}: {}", stdout(&full));
        assert!(
            stderr(&full).contains("E0545"),
            "{store}: {}",
            stderr(&full)
        );
        let made = rqc(&[
            "run", "--store", store, "--db", &db, &program, "mk", "--arg", "id=2",
        ]);
        assert!(made.status.success(), "{store}: {}", stderr(&made));
        let verified = rqc(&["verify", "--db", &db]);
        assert!(verified.status.success(), "{store}: {}", stderr(&verified));
    }
}
