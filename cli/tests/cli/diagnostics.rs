//! Diagnostics on natural first attempts, through the binary: a range written by its two ends runs as one, an aggregate without `by` says so, a query rejected for what it calls names the cause, and Unicode names are names.

use super::{rqc, stderr, stdout, write};

const EVENTS: &str = "module events
table Event {
  id: Int key
  at: Int
  index by_time (at desc, id desc)
}
mutation add(id: Int, at: Int) = insert Event { id: id, at: at }
query window(t0: Int, t1: Int) = Event.by_time[at >= t0 && at < t1] |> take(20)
query closed(t0: Int, t1: Int) = Event.by_time[at <= t1 && at >= t0] |> take(20)
";

/// `at >= t0 && at < t1` in an access is the range from `t0` (included)
/// to `t1` (not), newest first on the descending index, read in one seek;
/// `at <= t1 && at >= t0` includes both ends.
#[test]
fn a_range_written_by_its_two_ends_reads_that_range_in_one_seek() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "events.rq", EVENTS);
    let db = dir.path().join("db").display().to_string();
    let checked = rqc(&["check", &app]);
    assert!(
        stdout(&checked).contains(
            "window(t0: Int, t1: Int) -> [Event; ≤ 20]  seeks ≤ 1  rows ≤ 20  round trips ≤ 1  O(log N)"
        ),
        "{}{}",
        stdout(&checked),
        stderr(&checked)
    );
    for (id, at) in [(1, 9), (2, 10), (3, 11), (4, 12), (5, 13)] {
        let added = rqc(&[
            "run",
            "--db",
            &db,
            &app,
            "add",
            "--arg",
            &format!("id={id}"),
            "--arg",
            &format!("at={at}"),
        ]);
        assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    }
    let ats = |name: &str| -> Vec<i64> {
        let out = rqc(&["run", "--db", &db, name, "--arg", "t0=10", "--arg", "t1=12"]);
        assert!(
            stderr(&out).contains("seeks 1 (bound 1)"),
            "{}",
            stderr(&out)
        );
        stdout(&out)
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["at"]
                    .as_i64()
                    .unwrap()
            })
            .collect()
    };
    assert_eq!(ats("window"), [11, 10]);
    assert_eq!(ats("closed"), [12, 11, 10]);
}

/// `aggregate top = max(Q.score)` says `by` is missing (E0108), with the
/// form to write, and nothing else; `aggregate total = count(Q)` keeps the
/// whole table, read by its name alone.
#[test]
fn a_min_or_max_without_by_says_by_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(
        dir.path(),
        "qa.rq",
        "table Q {\n  id: Int key\n  score: Int\n}\naggregate top = max(Q.score)\n",
    );
    let checked = rqc(&["check", &app]);
    let err = stderr(&checked);
    assert_eq!(checked.status.code(), Some(1), "{err}");
    assert!(
        err.contains("[E0108] Error: `aggregate top = max(Q.score)` has no `by`"),
        "{err}"
    );
    assert!(
        err.contains("`aggregate top = max(Q.score) by column`"),
        "{err}"
    );
    assert!(err.contains("1 error"), "{err}");
    let whole = write(
        dir.path(),
        "total.rq",
        "table Q {\n  id: Int key\n  score: Int\n}\naggregate total = count(Q)\nquery n() = total\n",
    );
    let checked = rqc(&["check", &whole]);
    assert_eq!(checked.status.code(), Some(0), "{}", stderr(&checked));
    assert!(
        stdout(&checked).contains("n() -> Int  seeks ≤ 1  rows ≤ 1"),
        "{}",
        stdout(&checked)
    );
}

/// A query rejected because what it calls was shows the cause where its
/// type would be, never `?`.
#[test]
fn a_query_rejected_for_what_it_calls_names_the_cause() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(
        dir.path(),
        "cause.rq",
        "table T {\n  id: Int key\n  v: Int\n}\nfn broken(x: Int) = x + nope\nquery q(i: Int) = broken(i)\nquery r(i: Int) = T[i] |> map(t => broken(t.v))\n",
    );
    let checked = rqc(&["check", &app]);
    let out = stdout(&checked);
    assert!(!out.contains('?'), "{out}");
    assert!(
        out.contains(
            "q(i: Int)  rejected (E0304: `broken` could not be checked, so neither can this call)"
        ),
        "{out}"
    );
    assert!(
        out.contains("r(i: Int)  rejected (E0304: `broken`"),
        "{out}"
    );
    let json = rqc(&["check", &app, "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let q = &report["queries"].as_array().unwrap()[1];
    assert_eq!(q["signature"], "q(i: Int)");
    assert_eq!(
        q["cause"],
        "E0304: `broken` could not be checked, so neither can this call"
    );
}

/// `table Café` is the table `Café` (no phantom `Caf`), and a name typed
/// with a combining accent is the same name; it installs and runs.
#[test]
fn unicode_names_are_names() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(
        dir.path(),
        "cafe.rq",
        "module café\ntable Café {\n  id: Int key\n  naïve: String\n}\nquery café(i: Int) = Cafe\u{301}[i] |> map(c => c.naïve)\nmutation add(i: Int, n: String) = insert Café { id: i, naïve: n }\n",
    );
    let checked = rqc(&["check", &app]);
    assert_eq!(checked.status.code(), Some(0), "{}", stderr(&checked));
    assert!(
        stdout(&checked).contains("café(i: Int) -> String?  seeks ≤ 1"),
        "{}",
        stdout(&checked)
    );
    assert!(!stdout(&checked).contains("Caf?"), "{}", stdout(&checked));
    let db = dir.path().join("db").display().to_string();
    let added = rqc(&[
        "run", "--db", &db, &app, "add", "--arg", "i=1", "--arg", "n=ü",
    ]);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    let read = rqc(&["run", "--db", &db, "café", "--arg", "i=1"]);
    assert_eq!(stdout(&read), "\"ü\"\n", "{}", stderr(&read));
}
