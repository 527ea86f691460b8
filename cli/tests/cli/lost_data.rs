//! Bad input that would lose data silently, or memory without end, is refused with a code: a CSV quote never closed (at its line, nothing loaded), a CSV header naming a column twice, a source file past 64 MiB (regular or not), and an address space too small for the deep stack.

use super::{rqc, stderr, stdout, write};

const ITEMS: &str = "table Item {\n  id: Int key\n  price: Int\n  name: String\n}\nmutation add(id: Int, price: Int, name: String) = insert Item { id: id, price: price, name: name }\nquery item(id: Int) = Item[id]\n";

/// A quote opened on line 2 and never closed: the reader would take the
/// rest of the file as the name of one row, which loads. Refused at the
/// quote's line; nothing loaded, status 1. A header naming a column twice
/// is refused as JSONL refuses a key given twice.
#[test]
fn a_csv_quote_never_closed_or_a_column_named_twice_loads_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "items.rq", ITEMS);
    let db = dir.path().join("db").display().to_string();
    let added = rqc(&[
        "run", "--db", &db, &app, "add", "--arg", "id=9", "--arg", "price=1", "--arg", "name=x",
    ]);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    let csv = write(
        dir.path(),
        "items.csv",
        "id,price,name\n1,5,\"lamp\n2,6,desk\n3,7,pen\n",
    );
    let loaded = rqc(&["load", "--db", &db, "Item", &csv]);
    let err = stderr(&loaded);
    assert_eq!(loaded.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "[E0525] Error: {csv}:2: this quoted field is never closed"
        )),
        "{err}"
    );
    assert!(err.contains("nothing was loaded"), "{err}");
    let read = rqc(&["run", "--db", &db, "item", "--arg", "id=1"]);
    assert_eq!(stdout(&read), "", "row 1 was not loaded");
    assert!(stderr(&read).contains("0 rows"), "{}", stderr(&read));

    let twice = write(dir.path(), "twice.csv", "id,price,price,name\n1,5,6,lamp\n");
    let loaded = rqc(&["load", "--db", &db, "Item", &twice]);
    let err = stderr(&loaded);
    assert_eq!(loaded.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "[E0525] Error: {twice}:1: the header names the column `price` twice"
        )),
        "{err}"
    );
}

/// `ulimit -v KB; rqc ARGS`, its status and what it wrote on stderr.
fn limited(kb: u64, args: &str) -> (Option<i32>, String) {
    let command = format!(
        "ulimit -v {kb}; exec '{}' {args}",
        env!("CARGO_BIN_EXE_rqc")
    );
    let output = std::process::Command::new("bash")
        .args(["-c", &command])
        .current_dir(super::repo())
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    (output.status.code(), stderr(&output))
}

/// A source file past 64 MiB is E0009 (status 2) whatever it is: a
/// device that never ends (`/dev/zero`, read under a 1.5 GB address
/// space: the read stops at the cap) or a regular file.
#[test]
fn a_source_past_64_mib_is_refused_regular_or_not() {
    let (status, err) = limited(1_500_000, "check /dev/zero");
    assert_eq!(status, Some(2), "{err}");
    assert!(
        err.contains("[E0009] Error: /dev/zero: a source file may hold at most 64 MiB"),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.rq");
    let file = std::fs::File::create(&big).unwrap();
    file.set_len((64 << 20) + 1).unwrap();
    let checked = rqc(&["check", &big.display().to_string()]);
    assert_eq!(checked.status.code(), Some(2), "{}", stderr(&checked));
    assert!(
        stderr(&checked).contains("[E0009] Error"),
        "{}",
        stderr(&checked)
    );
}

/// Under `ulimit -v 200000` the deep stack cannot be reserved: every
/// command says so with E0609 and status 2, and none panics.
#[test]
fn an_address_space_too_small_for_the_deep_stack_is_a_code_not_a_panic() {
    for args in [
        "check examples/social",
        "run --db nowhere user --arg id=1",
        "lsp",
    ] {
        let (status, err) = limited(200_000, args);
        assert_eq!(status, Some(2), "{args}: {err}");
        assert!(
            err.contains("[E0609] Error: the system would not reserve the 256 MiB stack"),
            "{args}: {err}"
        );
        assert!(err.contains("ulimit -v"), "{args}: {err}");
        assert!(!err.contains("panicked"), "{args}: {err}");
    }
}
