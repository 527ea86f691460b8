//! Numbers as a user types them: `--arg`, CSV, JSONL and the REPL read them with the one number parser (`rqc_plan::number`), so an out-of-range integer is refused with a code everywhere, `1` for a `Float` is `1.0`, `1.0` for an `Int` is refused, and `-0.0` is `0.0`.

use super::{rqc, rqc_with_input, stderr, stdout, write};

const APP: &str = "
table Reading {
  id: Int key
  x: Float
  index by_x (x)
  bound x <= 2
}
mutation add(id: Int, x: Float) = insert Reading { id, x }
mutation negate(id: Int, x: Float) = update Reading[id] { x: -x }
query at(x: Float) = Reading.by_x[x] |> take(2)
query item(id: Int) = Reading[id]
";

struct Setup {
    _dir: tempfile::TempDir,
    db: String,
    app: String,
    dir: std::path::PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let db = dir.path().join("db").display().to_string();
    let path = dir.path().to_path_buf();
    Setup {
        _dir: dir,
        db,
        app,
        dir: path,
    }
}

fn run(s: &Setup, entry: &str, args: &[&str]) -> std::process::Output {
    let mut all = vec!["run", "--db", &s.db, &s.app, entry];
    for arg in args {
        all.push("--arg");
        all.push(arg);
    }
    rqc(&all)
}

/// The code an output names first (`[E0004]`), or none.
fn first_code(text: &str) -> Option<String> {
    let start = text.find("[E")?;
    Some(text[start + 1..start + 6].to_string())
}

#[test]
fn arguments_are_read_by_the_number_parser() {
    let s = setup();
    let refused = |entry: &str, arg: &str, code: &str| {
        let out = run(&s, entry, &[arg]);
        assert_ne!(out.status.code(), Some(0), "{arg}: {}", stdout(&out));
        assert_eq!(
            first_code(&stderr(&out)).as_deref(),
            Some(code),
            "{arg}: {}",
            stderr(&out)
        );
    };
    // `1` for a Float is `1.0`, and `-0.0` is `0.0`. (The first write
    // creates the database the queries below read: a query refuses a
    // missing one, E0608.)
    let added = run(&s, "add", &["id=1", "x=1"]);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    refused("item", "id=99999999999999999999", "E0004");
    refused("item", "id=1.0", "E0007");
    refused("item", "id=1e3", "E0007");
    refused("item", "id=12abc", "E0005");
    refused("at", "x=1e999", "E0006");
    refused("at", "x=inf", "E0005");
    refused("at", "x=NaN", "E0005");
    let read = run(&s, "item", &["id=1"]);
    assert!(stdout(&read).contains("1.0"), "{}", stdout(&read));
    let added = run(&s, "add", &["id=2", "x=-0.0"]);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    let read = run(&s, "item", &["id=2"]);
    assert!(!stdout(&read).contains("-0"), "{}", stdout(&read));
}

/// `--arg x=-0.0` and `-x`: the group of `0.0` holds at most 2 rows, and
/// its read stays within its printed bound.
#[test]
fn minus_zero_arguments_do_not_outgrow_a_bound() {
    let s = setup();
    for (id, x) in [("1", "-0.0"), ("2", "-0.0")] {
        let added = run(&s, "add", &[&format!("id={id}"), &format!("x={x}")]);
        assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    }
    // `-x` with x = 0.0 writes what the row holds: no change.
    let negated = run(&s, "negate", &["id=1", "x=0.0"]);
    assert_eq!(negated.status.code(), Some(0), "{}", stderr(&negated));
    let third = run(&s, "add", &["id=3", "x=0.0"]);
    assert_eq!(
        first_code(&stderr(&third)).as_deref(),
        Some("E0504"),
        "{}",
        stderr(&third)
    );
    let read = run(&s, "at", &["x=0"]);
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));
    assert_eq!(
        stdout(&read).matches("\"id\"").count(),
        2,
        "{}",
        stdout(&read)
    );
    let verified = rqc(&["verify", "--db", &s.db]);
    assert_eq!(verified.status.code(), Some(0), "{}", stdout(&verified));
}

#[test]
fn csv_and_jsonl_numbers_follow_the_same_rules() {
    let s = setup();
    let load = |name: &str, text: &str| {
        let file = write(&s.dir, name, text);
        rqc(&["load", "--db", &s.db, &s.app, "Reading", &file])
    };
    let cases = [
        ("big.csv", "id,x\n99999999999999999999,1\n", "E0004"),
        ("frac.csv", "id,x\n1.0,1\n", "E0007"),
        ("inf.csv", "id,x\n1,inf\n", "E0005"),
        (
            "big.jsonl",
            "{\"id\": 99999999999999999999, \"x\": 1}\n",
            "E0004",
        ),
        ("frac.jsonl", "{\"id\": 1.0, \"x\": 1}\n", "E0007"),
        // Read by its spelling, a number past the largest float is the
        // number parser's E0006, as in CSV (no longer JSON's E0525).
        ("huge.jsonl", "{\"id\": 1, \"x\": 1e999}\n", "E0006"),
    ];
    for (name, text, code) in cases {
        let out = load(name, text);
        assert_ne!(out.status.code(), Some(0), "{name}");
        let all = format!("{}{}", stdout(&out), stderr(&out));
        assert!(all.contains(&format!("[{code}]")), "{name}: {all}");
    }
    // `1` for a Float column is `1.0`; both zeros are one value, so the
    // second row of each file falls in the first's group (bound 2).
    let out = load(
        "ok.jsonl",
        "{\"id\": 1, \"x\": 1}\n{\"id\": 2, \"x\": -0.0}\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = load("ok.csv", "id,x\n3,-0\n4,0.0\n");
    assert_ne!(out.status.code(), Some(0), "a third row at 0.0");
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(all.contains("[E0504]"), "{all}");
}

#[test]
fn the_repl_refuses_an_integer_past_64_bits() {
    let s = setup();
    let added = run(&s, "add", &["id=1", "x=2.5"]);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    let out = rqc_with_input(
        &["repl", "--db", &s.db, &s.app],
        "99999999999999999999\nReading[99999999999999999999]\nitem(99999999999999999999)\n1e999\n",
    );
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(text.matches("[E0004]").count(), 3, "{text}");
    assert_eq!(text.matches("[E0006]").count(), 1, "{text}");
    // Nothing ran: no row count, no 0 printed as an answer.
    assert!(!text.contains("1 row"), "{text}");
    assert!(!text.lines().any(|l| l.trim() == "0"), "{text}");
}
