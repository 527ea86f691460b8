//! One value, however it is spelled, at the command line: JSON `-0` for an `Int` is 0 in list and record arguments, `--batch` lines and JSONL loads as in `--arg n=-0` and CSV; an object giving a key twice is refused, naming it; names given from outside (`--arg`, keys, CSV headers) are read in normal form C, as a program's identifiers (spec/types.md, "Value identity").

use super::{rqc, stderr, stdout, write};

/// `café` with a precomposed `é` (U+00E9), as the program spells it.
const COMPOSED: &str = "caf\u{e9}";
/// `café` with `e` and a combining acute accent (U+0301).
const DECOMPOSED: &str = "cafe\u{301}";

fn app() -> String {
    format!(
        "table Item {{ id: Int key  {COMPOSED}: Int }}
mutation add(id: Int, {COMPOSED}: Int) = insert Item {{ id, {COMPOSED} }}
mutation add_many(rows: [{{ id: Int, {COMPOSED}: Int }}; <= 10]) =
  rows |> map(r => insert Item {{ id: r.id, {COMPOSED}: r.{COMPOSED} }})
query items(ids: [Int; <= 5]) = ids |> map(i => Item[i])
query item(id: Int) = Item[id]
"
    )
}

struct Setup {
    _dir: tempfile::TempDir,
    db: String,
    app: String,
    dir: std::path::PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", &app());
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

fn ok(out: &std::process::Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    stdout(out)
}

/// The output's text, stdout and stderr, of a refusal with `code`.
fn refused(out: &std::process::Output, code: &str) -> String {
    let all = format!("{}{}", stdout(out), stderr(out));
    assert_ne!(out.status.code(), Some(0), "{all}");
    assert!(all.contains(&format!("[{code}]")), "{code}: {all}");
    all
}

#[test]
fn json_minus_zero_for_an_int_is_zero_wherever_minus_zero_is() {
    let s = setup();
    // Top level, as before: `--arg id=-0` is the integer 0.
    ok(&run(&s, "add", &["id=-0", &format!("{COMPOSED}=-0")]));
    // In a list argument, as in `--arg`.
    let found = ok(&run(&s, "items", &["ids=[-0, 1]"]));
    assert!(found.contains("\"id\":0"), "{found}");
    // In a record argument.
    ok(&run(
        &s,
        "add_many",
        &[&format!(r#"rows=[{{"id": 1, "{COMPOSED}": -0}}]"#)],
    ));
    let found = ok(&run(&s, "item", &["id=1"]));
    assert!(found.contains(&format!("\"{COMPOSED}\":0")), "{found}");
    // `-0.0` and `1.0` are no integers, anywhere.
    refused(&run(&s, "items", &["ids=[-0.0]"]), "E0007");
    refused(&run(&s, "items", &["ids=[1.0]"]), "E0007");
    refused(
        &run(
            &s,
            "add_many",
            &[&format!(r#"rows=[{{"id": 5, "{COMPOSED}": -0.0}}]"#)],
        ),
        "E0007",
    );
    // A JSONL load and a CSV load read `-0` as a CSV field is read.
    let jsonl = write(
        &s.dir,
        "rows.jsonl",
        &format!("{{\"id\": 2, \"{COMPOSED}\": -0}}\n"),
    );
    ok(&rqc(&["load", "--db", &s.db, &s.app, "Item", &jsonl]));
    let csv = write(&s.dir, "rows.csv", &format!("id,{COMPOSED}\n3,-0\n"));
    ok(&rqc(&["load", "--db", &s.db, &s.app, "Item", &csv]));
    let bad = write(
        &s.dir,
        "bad.jsonl",
        &format!("{{\"id\": 6, \"{COMPOSED}\": -0.0}}\n"),
    );
    refused(
        &rqc(&["load", "--db", &s.db, &s.app, "Item", &bad]),
        "E0007",
    );
    // A `--batch` line's arguments, top level and in a list.
    let calls = write(
        &s.dir,
        "calls.jsonl",
        &format!("{{\"entry\": \"add\", \"args\": {{\"id\": 4, \"{COMPOSED}\": -0}}}}\n"),
    );
    ok(&rqc(&["run", "--db", &s.db, &s.app, "--batch", &calls]));
    let found = ok(&run(&s, "items", &["ids=[2, 3, 4]"]));
    assert_eq!(
        found.matches(&format!("\"{COMPOSED}\":0")).count(),
        3,
        "{found}"
    );
}

#[test]
fn an_object_giving_a_key_twice_is_refused_by_name() {
    let s = setup();
    // A record argument: not its last value silently.
    let out = run(
        &s,
        "add_many",
        &[&format!(
            r#"rows=[{{"id": 1, "{COMPOSED}": 1, "{COMPOSED}": 2}}]"#
        )],
    );
    let all = refused(&out, "E0520");
    assert!(all.contains(&format!("`{COMPOSED}` twice")), "{all}");
    // Twice as two spellings of one name.
    let out = run(
        &s,
        "add_many",
        &[&format!(
            r#"rows=[{{"id": 1, "{COMPOSED}": 1, "{DECOMPOSED}": 2}}]"#
        )],
    );
    refused(&out, "E0520");
    // A `--batch` line: its args, and its own keys.
    for (name, line, key) in [
        (
            "args.jsonl",
            r#"{"entry": "item", "args": {"id": 1, "id": 2}}"#,
            "id",
        ),
        (
            "entry.jsonl",
            r#"{"entry": "item", "entry": "items", "args": {"id": 1}}"#,
            "entry",
        ),
    ] {
        let calls = write(&s.dir, name, &format!("{line}\n"));
        let all = refused(
            &rqc(&["run", "--db", &s.db, &s.app, "--batch", &calls]),
            "E0668",
        );
        assert!(all.contains(&format!("the key `{key}` twice")), "{all}");
    }
    // A JSONL row, with the two spellings of one column.
    let rows = write(
        &s.dir,
        "twice.jsonl",
        &format!("{{\"id\": 1, \"{COMPOSED}\": 1, \"{DECOMPOSED}\": 2}}\n"),
    );
    let all = refused(
        &rqc(&["load", "--db", &s.db, &s.app, "Item", &rows]),
        "E0525",
    );
    assert!(
        all.contains(&format!("`{COMPOSED}` is given twice")),
        "{all}"
    );
    // Nothing was written by any of them.
    let found = run(&s, "item", &["id=1"]);
    assert!(!stdout(&found).contains("\"id\":1"), "{}", stdout(&found));
}

#[test]
fn names_from_outside_are_read_in_normal_form_c() {
    let s = setup();
    // `--arg` with the decomposed spelling finds the parameter.
    ok(&run(&s, "add", &["id=1", &format!("{DECOMPOSED}=7")]));
    let found = ok(&run(&s, "item", &["id=1"]));
    assert!(found.contains(&format!("\"{COMPOSED}\":7")), "{found}");
    // Both spellings at once are one parameter given twice.
    let all = refused(
        &run(
            &s,
            "add",
            &["id=2", &format!("{DECOMPOSED}=1"), &format!("{COMPOSED}=2")],
        ),
        "E0520",
    );
    assert!(all.contains("given twice"), "{all}");
    // A record argument's fields, a CSV header, a JSONL key, a batch's
    // args: the decomposed spelling names the column.
    ok(&run(
        &s,
        "add_many",
        &[&format!(r#"rows=[{{"id": 2, "{DECOMPOSED}": 8}}]"#)],
    ));
    let csv = write(&s.dir, "rows.csv", &format!("id,{DECOMPOSED}\n3,9\n"));
    ok(&rqc(&["load", "--db", &s.db, &s.app, "Item", &csv]));
    let jsonl = write(
        &s.dir,
        "rows.jsonl",
        &format!("{{\"id\": 4, \"{DECOMPOSED}\": 10}}\n"),
    );
    ok(&rqc(&["load", "--db", &s.db, &s.app, "Item", &jsonl]));
    let calls = write(
        &s.dir,
        "calls.jsonl",
        &format!("{{\"entry\": \"add\", \"args\": {{\"id\": 5, \"{DECOMPOSED}\": 11}}}}\n"),
    );
    ok(&rqc(&["run", "--db", &s.db, &s.app, "--batch", &calls]));
    let found = ok(&run(&s, "items", &["ids=[2, 3, 4, 5]"]));
    for n in [8, 9, 10, 11] {
        assert!(found.contains(&format!("\"{COMPOSED}\":{n}")), "{found}");
    }
    // A CSV header naming the column in both spellings names it twice.
    let csv = write(
        &s.dir,
        "twice.csv",
        &format!("id,{COMPOSED},{DECOMPOSED}\n6,1,2\n"),
    );
    let all = refused(
        &rqc(&["load", "--db", &s.db, &s.app, "Item", &csv]),
        "E0525",
    );
    assert!(all.contains("twice"), "{all}");
}
