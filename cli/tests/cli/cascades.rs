//! Cascading deletes from the command line: `rqc run` on the embedded default and on etcd (the answer's votes deleted, its flags set to `none`, `verify` sound after; a plain reference still refuses, E0506), and the REPL over a database opened without sources, whose schema written back keeps `on delete`.

use super::etcd::etcd_cluster::EtcdCluster;
use super::{rqc, rqc_with_input, stderr, stdout};

const QA: &str = "tests/readme/qa.rq";

fn ok(args: &[&str]) -> String {
    let out = rqc(args);
    assert_eq!(out.status.code(), Some(0), "rqc {args:?}: {}", stderr(&out));
    stdout(&out)
}

/// Two votes and a flag on answer 1, then its delete; a pin on answer 2
/// refuses its delete.
fn cascade_on(db: &str) {
    ok(&["run", "--db", db, QA, "answer", "--arg", "id=1"]);
    for v in ["1", "2"] {
        ok(&[
            "run",
            "--db",
            db,
            QA,
            "vote",
            "--arg",
            "a=1",
            "--arg",
            &format!("v={v}"),
        ]);
    }
    ok(&[
        "run", "--db", db, QA, "flag", "--arg", "id=9", "--arg", "a=1",
    ]);
    let dropped = rqc(&["run", "--db", db, QA, "drop_answer", "--arg", "a=1"]);
    assert_eq!(dropped.status.code(), Some(0), "{}", stderr(&dropped));
    assert_eq!(stdout(&dropped).trim(), "1");
    assert!(
        stderr(&dropped).contains("4 rows written"),
        "the answer, its two votes, its flag: {}",
        stderr(&dropped)
    );
    assert_eq!(
        ok(&["run", "--db", db, QA, "votes", "--arg", "a=1"]).trim(),
        "0"
    );
    assert_eq!(
        ok(&["run", "--db", db, QA, "flag_of", "--arg", "id=9"]).trim(),
        r#"{"id":9,"answer":null}"#
    );
    ok(&["run", "--db", db, QA, "answer", "--arg", "id=2"]);
    ok(&[
        "run", "--db", db, QA, "pin", "--arg", "id=1", "--arg", "a=2",
    ]);
    let refused = rqc(&["run", "--db", db, QA, "drop_answer", "--arg", "a=2"]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("[E0506]"), "{}", stderr(&refused));
    let verified = rqc(&["verify", "--db", db]);
    assert_eq!(verified.status.code(), Some(0), "{}", stderr(&verified));
}

#[test]
fn rqc_run_cascades_on_the_embedded_default() {
    let dir = tempfile::tempdir().unwrap();
    cascade_on(&dir.path().join("db").display().to_string());
}

#[test]
fn rqc_run_cascades_on_etcd() {
    let cluster = EtcdCluster::start(1);
    cascade_on(&cluster.url("qa"));
}

#[test]
fn the_repl_over_an_installed_schema_keeps_on_delete() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    ok(&["run", "--db", &db, QA, "answer", "--arg", "id=1"]);
    ok(&[
        "run", "--db", &db, QA, "vote", "--arg", "a=1", "--arg", "v=1",
    ]);
    // No sources: the schema is the database's, written back as RQL.
    let script = ":schema\ndelete Answer[1]\nVote[1] |> count()\n:quit\n";
    let output = rqc_with_input(&["repl", "--db", &db], script);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(
        out.contains("answer: Int ref Answer on delete cascade"),
        "{out}"
    );
    assert!(
        out.contains("answer: Int? ref Answer on delete set none"),
        "{out}"
    );
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.contains(&"1"), "the delete: {out}");
    assert!(lines.contains(&"0"), "the votes went with it: {out}");
}
