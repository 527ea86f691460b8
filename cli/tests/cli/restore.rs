//! `rqc restore` takes a dump whole or not at all: a missing directory, a dump without its manifest, a file cut short or gone are refused before anything is written; a restore that fails or is killed midway leaves no database where it was asked to put one, and on etcd (where it loads in place) one that every open refuses until it finishes (issue 35 §5).

use super::{rqc, rqc_command, signalled, stderr, write};
use std::path::Path;

const SHOP: &str = "module shop
table Shelf { id: Int key }
table Item {
  id: Int key
  shelf: Int ref Shelf
  name: String <= 40
}
mutation shelf(id: Int) = insert Shelf { id }
mutation add(id: Int, shelf: Int, name: String <= 40) = insert Item { id, shelf, name }
";

/// A database of `items` items on two shelves, dumped into `saved`.
fn dumped(dir: &Path, items: usize) -> (String, String) {
    let shop = write(dir, "shop.rq", SHOP);
    let db = dir.join("db").display().to_string();
    let rows = dir.join("items.jsonl");
    let lines: String = (1..=items)
        .map(|id| {
            format!(
                "{{\"id\":{id},\"shelf\":{},\"name\":\"item {id}\"}}\n",
                id % 2 + 1
            )
        })
        .collect();
    std::fs::write(&rows, lines).unwrap();
    for shelf in [1, 2] {
        let out = rqc(&[
            "run",
            "--db",
            &db,
            &shop,
            "shelf",
            "--arg",
            &format!("id={shelf}"),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let out = rqc(&["load", "--db", &db, "Item", &rows.display().to_string()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let saved = dir.join("saved").display().to_string();
    let out = rqc(&["dump", "--db", &db, "--out", &saved]);
    assert!(out.status.success(), "{}", stderr(&out));
    (shop, saved)
}

fn refused(args: &[&str], code: &str) -> String {
    let out = rqc(args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains(code), "{}", stderr(&out));
    stderr(&out)
}

#[test]
fn a_dump_that_is_not_whole_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (_, saved) = dumped(dir.path(), 10);
    let new = dir.path().join("new");
    let db = new.display().to_string();
    let missing = dir.path().join("nowhere").display().to_string();
    refused(&["restore", "--db", &db, "--from", &missing], "E0680");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    refused(
        &[
            "restore",
            "--db",
            &db,
            "--from",
            &empty.display().to_string(),
        ],
        "E0680",
    );
    // The last line cut off the items' file.
    let items = Path::new(&saved).join("Item.jsonl");
    let whole = std::fs::read_to_string(&items).unwrap();
    let cut: String = whole.lines().take(9).map(|l| format!("{l}\n")).collect();
    std::fs::write(&items, cut).unwrap();
    let said = refused(&["restore", "--db", &db, "--from", &saved], "E0681");
    assert!(said.contains("holds 9 rows"), "{said}");
    std::fs::remove_file(&items).unwrap();
    refused(&["restore", "--db", &db, "--from", &saved], "E0681");
    assert!(!new.exists(), "nothing was written");
    // Whole again: restored, and sound.
    std::fs::write(&items, whole).unwrap();
    let out = rqc(&["restore", "--db", &db, "--from", &saved]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("restored 12 rows"),
        "{}",
        stderr(&out)
    );
    let verified = rqc(&["verify", "--db", &db]);
    assert!(verified.status.success(), "{}", stderr(&verified));
}

#[test]
fn a_restore_that_fails_or_is_killed_midway_leaves_no_database() {
    let dir = tempfile::tempdir().unwrap();
    let (_, saved) = dumped(dir.path(), 20_000);
    // A row the program refuses, the last of the items: the shelves and
    // every other item were loaded by then.
    let items = Path::new(&saved).join("Item.jsonl");
    let mut text = std::fs::read_to_string(&items).unwrap();
    let last = text.trim_end().rsplit('\n').next().unwrap().to_string();
    text = text.replace(&last, &last.replace("\"shelf\":", "\"shelf\":9"));
    std::fs::write(&items, &text).unwrap();
    let new = dir.path().join("new");
    let db = new.display().to_string();
    let out = rqc(&["restore", "--db", &db, "--from", &saved]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing was restored"),
        "{}",
        stderr(&out)
    );
    assert!(!new.exists(), "no partial database");
    // Killed while it loads: no database where one was asked for, and the
    // next restore (of the dump made whole) succeeds.
    std::fs::write(&items, text.replace("\"shelf\":9", "\"shelf\":")).unwrap();
    let child = rqc_command(&["restore", "--db", &db, "--from", &saved])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (status, said) = signalled(child, libc::SIGKILL, std::time::Duration::from_millis(150));
    if status.is_none() {
        // Killed before its rename: nothing at `new`.
        assert!(!new.exists(), "{said}");
    } else {
        // It finished first (a fast machine): a whole database.
        assert_eq!(status, Some(0), "{said}");
        std::fs::remove_dir_all(&new).unwrap();
    }
    let out = rqc(&["restore", "--db", &db, "--from", &saved]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("restored 20002 rows"),
        "{}",
        stderr(&out)
    );
}

/// On etcd a restore loads in place, in several transactions: until its
/// last row the database is marked unfinished, so one that fails midway
/// (the shelves and all but the last item committed) opens nowhere:
/// every command refuses it with E0682, never a database that passes for
/// the dump's with rows missing. A restore that finishes opens as usual.
#[test]
fn a_restore_on_etcd_that_fails_midway_leaves_a_database_no_open_accepts() {
    let cluster = super::etcd::etcd_cluster::EtcdCluster::start(1);
    let dir = tempfile::tempdir().unwrap();
    let (_, saved) = dumped(dir.path(), 50);
    let items = Path::new(&saved).join("Item.jsonl");
    let whole = std::fs::read_to_string(&items).unwrap();
    let last = whole.trim_end().rsplit('\n').next().unwrap().to_string();
    let text = whole.replace(&last, &last.replace("\"shelf\":", "\"shelf\":9"));
    std::fs::write(&items, &text).unwrap();
    let db = cluster.url("partial");
    let out = rqc(&["restore", "--db", &db, "--from", &saved]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("marked unfinished"),
        "{}",
        stderr(&out)
    );
    // A database this rqc cannot use, as one of another version: exit 2.
    for args in [
        &["verify", "--db", &db][..],
        &["run", "--db", &db, "shop.shelf", "--arg", "id=7"],
    ] {
        let out = rqc(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("E0682"), "{}", stderr(&out));
    }
    // A restore under way holds the prefix: a second one is refused
    // before it writes (two begun at once both loaded: adversary).
    let racing = cluster.url("racing");
    let first = rqc::Database::connect(&racing).unwrap();
    let second = rqc::Database::connect(&racing).unwrap();
    first.mark_unfinished(true).unwrap();
    assert_eq!(second.mark_unfinished(true).unwrap_err().code(), "E0511");
    // Whole, into another prefix: it opens, and is sound.
    std::fs::write(&items, whole).unwrap();
    let db = cluster.url("whole");
    let out = rqc(&["restore", "--db", &db, "--from", &saved]);
    assert!(out.status.success(), "{}", stderr(&out));
    let verified = rqc(&["verify", "--db", &db]);
    assert!(verified.status.success(), "{}", stderr(&verified));
}

/// A table of more rows than `dump` reads at a time (4,096): every row
/// comes out once, in key order, and restores whole (the chain followed
/// from one chunk to the next).
#[test]
fn a_dump_read_in_chunks_holds_every_row_once_in_key_order() {
    let dir = tempfile::tempdir().unwrap();
    let items = 2 * rqc_runtime::store::SALVAGE_CHUNK + 7;
    let (shop, saved) = dumped(dir.path(), items);
    let text = std::fs::read_to_string(Path::new(&saved).join("Item.jsonl")).unwrap();
    let ids: Vec<i64> = text
        .lines()
        .map(|line| {
            let row: serde_json::Value = serde_json::from_str(line).unwrap();
            row["id"].as_i64().unwrap()
        })
        .collect();
    assert_eq!(ids, (1..=items as i64).collect::<Vec<_>>());
    let restored = dir.path().join("restored").display().to_string();
    let out = rqc(&["restore", "--db", &restored, &shop, "--from", &saved]);
    assert!(out.status.success(), "{}", stderr(&out));
    let verified = rqc(&["verify", "--db", &restored]);
    assert!(verified.status.success(), "{}", stderr(&verified));
    assert!(
        stderr(&verified).contains(&format!("verified: {} rows", items + 2)),
        "{}",
        stderr(&verified)
    );
}
