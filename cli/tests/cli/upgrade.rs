//! `rqc verify` and `rqc upgrade` on a database an older rqc wrote with `-0.0` in it (made through the store layer: this rqc no longer writes one).

use super::{rqc, stderr, stdout};
use rqc_plan::Value;
use rqc_runtime::encoding::key::encode_key;
use rqc_runtime::encoding::row::encode_row;
use rqc_runtime::{Engine, OpenOptions};

const PROGRAM: &str = "table Pin { id: Float key }\nmutation pin(id: Float) = insert Pin { id }\n";

/// A database holding a pin at `0.0` when `zero_too`, and one stored as
/// `-0.0` (its key and row with `-0.0`'s bits, as an older rqc wrote them).
fn legacy_database(dir: &std::path::Path, zero_too: bool) -> String {
    let db = dir.join("db");
    let mut engine = Engine::open(&db, OpenOptions::default()).unwrap();
    let compilation = rqc_compiler::compile(&[("pins.rq".into(), PROGRAM.into())]);
    engine.install(compilation.program).unwrap();
    if zero_too {
        engine.run("pin", &[Value::Float(0.0)]).unwrap();
    }
    let mut key = encode_key(&[Value::Int(0)], &[]).unwrap();
    key[0] = 0x20; // a Float component ...
    key[1..9].copy_from_slice(&(!(-0.0f64).to_bits()).to_be_bytes()); // ... of -0.0
    let mut row = encode_row(&[Value::Float(1.0)]).unwrap();
    let at = row.len() - 8;
    row[at..].copy_from_slice(&(-0.0f64).to_le_bytes());
    let store = engine.store();
    let mut txn = store.begin_write().unwrap();
    txn.put(store.tree("t:Pin"), &key, &row).unwrap();
    txn.commit().unwrap();
    db.display().to_string()
}

#[test]
fn verify_reports_a_stored_minus_zero_and_upgrade_rewrites_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = legacy_database(dir.path(), false);
    let found = rqc(&["verify", "--db", &db]);
    assert_eq!(found.status.code(), Some(1), "{}", stderr(&found));
    let text = stdout(&found);
    assert!(
        text.contains("[E0552]") && text.contains("tree `t:Pin`") && text.contains("(-0.0)"),
        "{text}"
    );
    let upgraded = rqc(&["upgrade", "--db", &db]);
    assert_eq!(upgraded.status.code(), Some(0), "{}", stderr(&upgraded));
    assert!(
        stderr(&upgraded).contains("`t:Pin`"),
        "{}",
        stderr(&upgraded)
    );
    let found = rqc(&["verify", "--db", &db]);
    assert_eq!(found.status.code(), Some(0), "{}", stdout(&found));
    upgraded_once(&db);
}

/// A second upgrade of the database at `db` finds nothing to do.
pub(super) fn upgraded_once(db: &str) {
    let again = rqc(&["upgrade", "--db", db]);
    assert_eq!(again.status.code(), Some(0));
    assert!(
        stderr(&again).contains("nothing to upgrade"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn upgrade_refuses_two_rows_that_would_have_one_key() {
    let dir = tempfile::tempdir().unwrap();
    let db = legacy_database(dir.path(), true);
    let refused = rqc(&["upgrade", "--db", &db]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    let text = stderr(&refused);
    assert!(
        text.contains("[E0553]") && text.contains("the key (0.0)"),
        "{text}"
    );
    // Nothing written: verify still finds the -0.0.
    assert!(stdout(&rqc(&["verify", "--db", &db])).contains("[E0552]"));
}
