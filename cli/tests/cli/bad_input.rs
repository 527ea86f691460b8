//! Bad input, subcommand by subcommand: each case gets its error code, a
//! non-zero exit status, no panic, and leaves the database as it was.

use super::{add_lamp, rqc, rqc_with_input, stderr, stdout, write, APP};
use rqc_runtime::store::Store;
use rqc_runtime::{Backend, OpenOptions};
use std::path::Path;

/// One bad invocation and what it must answer.
struct Case {
    what: &'static str,
    args: Vec<String>,
    code: &'static str,
    status: i32,
}

/// Every table of the seeded database with all its entries.
fn contents(store: &str, db: &Path) -> Vec<Vec<(Vec<u8>, Vec<u8>)>> {
    let backend = Backend::named(store).unwrap();
    let store: Box<dyn Store> = backend.open_store(db, &OpenOptions::default()).unwrap();
    let txn = store.begin_read().unwrap();
    ["__catalog", "t:Item", "i:Item:name"]
        .iter()
        .map(|t| {
            txn.range(store.tree(t), &[], None, false, usize::MAX)
                .unwrap()
        })
        .collect()
}

fn case(what: &'static str, args: &[&str], code: &'static str, status: i32) -> Case {
    Case {
        what,
        args: args.iter().map(|a| a.to_string()).collect(),
        code,
        status,
    }
}

#[test]
fn every_subcommand_refuses_bad_input_with_a_code_and_changes_nothing() {
    for store in Backend::ON_DISK.map(Backend::name) {
        refuses_bad_input_on(store);
    }
}

fn refuses_bad_input_on(store: &str) {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let broken = write(dir.path(), "broken.rq", "query q( = Item[1]\n");
    let missing = dir.path().join("missing.rq").display().to_string();
    let bad_json = write(
        dir.path(),
        "items.jsonl",
        "{\"id\": 7, \"name\": \"cup\", \"price\": 1}\n{\"id\": 8, \"name\": \n",
    );
    let bad_csv = write(
        dir.path(),
        "items.csv",
        "id,name,price\n9,mug,2\n10,jar,ten\n",
    );
    let short_csv = write(dir.path(), "short.csv", "id,name,price\n11,pan\n");
    let wrong_type = write(
        dir.path(),
        "typed.jsonl",
        "{\"id\": \"twelve\", \"name\": \"pot\", \"price\": 1}\n",
    );
    let not_data = write(dir.path(), "items.txt", "12 pot 1\n");
    let not_db_dir = dir.path().join("not-a-db");
    std::fs::create_dir(&not_db_dir).unwrap();
    std::fs::write(not_db_dir.join("notes.txt"), "mine").unwrap();
    let not_db = not_db_dir.display().to_string();
    let db_dir = dir.path().join("db");
    let db = db_dir.display().to_string();
    add_lamp(store, &db, &app);
    let before = contents(store, &db_dir);

    let unwritable = dir
        .path()
        .join("no/such/dir/out.json")
        .display()
        .to_string();
    let cases = vec![
        // compile and check
        case("compile: malformed RQL", &["compile", &broken], "E0101", 1),
        case("compile: missing file", &["compile", &missing], "E0600", 2),
        case(
            "compile: unwritable output",
            &["compile", &app, "-o", &unwritable],
            "E0600",
            2,
        ),
        case("check: malformed RQL", &["check", &broken], "E0101", 1),
        case("check: missing file", &["check", &missing], "E0600", 2),
        // run
        case(
            "run: malformed RQL",
            &["run", "--db", &db, &broken, "item", "--arg", "id=1"],
            "E0101",
            1,
        ),
        case(
            "run: missing file",
            &["run", "--db", &db, &missing, "item", "--arg", "id=1"],
            "E0600",
            2,
        ),
        case(
            "run: wrong argument type",
            &["run", "--db", &db, &app, "item", "--arg", "id=one"],
            // Not a number, as the one number parser says.
            "E0005",
            1,
        ),
        case(
            "run: unknown name",
            &["run", "--db", &db, &app, "items", "--arg", "id=1"],
            "E0521",
            1,
        ),
        case(
            "run: not a database",
            &["run", "--db", &not_db, &app, "item", "--arg", "id=1"],
            "E0511",
            2,
        ),
        case(
            "run: a refused write",
            &[
                "run",
                "--db",
                &db,
                &app,
                "add",
                "--arg",
                "id=1",
                "--arg",
                "name=desk",
                "--arg",
                "price=2",
            ],
            "E0501",
            1,
        ),
        // explain
        case(
            "explain: malformed RQL",
            &["explain", &broken, "item"],
            "E0101",
            1,
        ),
        case(
            "explain: missing file",
            &["explain", &missing, "item"],
            "E0600",
            2,
        ),
        case(
            "explain: unknown name",
            &["explain", &app, "items"],
            "E0521",
            1,
        ),
        case(
            "explain: wrong argument type",
            &[
                "explain",
                &app,
                "item",
                "--analyze",
                "--db",
                &db,
                "--arg",
                "id=one",
            ],
            "E0005",
            1,
        ),
        case(
            "explain: not a database",
            &[
                "explain",
                &app,
                "item",
                "--analyze",
                "--db",
                &not_db,
                "--arg",
                "id=1",
            ],
            "E0511",
            2,
        ),
        // load
        case(
            "load: malformed RQL",
            &["load", "--db", &db, &broken, "Item", &bad_json],
            "E0101",
            1,
        ),
        case(
            "load: missing program",
            &["load", "--db", &db, &missing, "Item", &bad_json],
            "E0600",
            2,
        ),
        case(
            "load: missing data file",
            &["load", "--db", &db, &app, "Item", "nope.jsonl"],
            "E0600",
            2,
        ),
        case(
            "load: not JSONL or CSV",
            &["load", "--db", &db, &app, "Item", &not_data],
            "E0600",
            2,
        ),
        case(
            "load: malformed JSONL row",
            &["load", "--db", &db, &app, "Item", &bad_json],
            "E0525",
            1,
        ),
        case(
            "load: malformed CSV row",
            &["load", "--db", &db, &app, "Item", &bad_csv],
            // `ten` for an Int: not a number, as the one number parser says.
            "E0005",
            1,
        ),
        case(
            "load: short CSV row",
            &["load", "--db", &db, &app, "Item", &short_csv],
            "E0525",
            1,
        ),
        case(
            "load: wrong value type",
            &["load", "--db", &db, &app, "Item", &wrong_type],
            "E0525",
            1,
        ),
        case(
            "load: unknown table",
            &["load", "--db", &db, &app, "Items", &bad_json],
            "E0524",
            1,
        ),
        case(
            "load: not a database",
            &["load", "--db", &not_db, &app, "Item", &bad_csv],
            "E0511",
            2,
        ),
        // repl
        case(
            "repl: malformed RQL",
            &["repl", "--db", &db, &broken],
            "E0101",
            1,
        ),
        case(
            "repl: missing file",
            &["repl", "--db", &db, &missing],
            "E0600",
            2,
        ),
        case(
            "repl: not a database",
            &["repl", "--db", &not_db, &app],
            "E0511",
            2,
        ),
    ];
    for case in &cases {
        let mut args: Vec<&str> = case.args.iter().map(String::as_str).collect();
        if args.contains(&"--db") {
            args.extend(["--store", store]);
        } else if store != "redb" {
            continue; // no database: the store makes no difference
        }
        let output = rqc(&args);
        let err = stderr(&output);
        let what = format!("{store}, {}", case.what);
        assert_eq!(output.status.code(), Some(case.status), "{what}: {err}");
        assert!(err.contains(case.code), "{what}: no {} in {err}", case.code);
        assert!(!err.contains("panicked"), "{what}: {err}");
        assert_eq!(
            before,
            contents(store, &db_dir),
            "{what}: the database changed"
        );
    }
    let untouched: Vec<_> = std::fs::read_dir(&not_db_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(untouched, vec![std::ffi::OsString::from("notes.txt")]);
}

#[test]
fn the_language_server_refuses_garbage_on_stdin_without_panicking() {
    for garbage in ["garbage\n", "Content-Length: 5\r\n\r\nhello"] {
        let output = rqc_with_input(&["lsp"], garbage);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{garbage:?}: {err}");
        assert!(err.contains("E0600") && !err.contains("panicked"), "{err}");
    }
}

#[test]
fn input_nested_past_the_limit_is_refused_with_its_code_in_check_and_the_repl() {
    let dir = tempfile::tempdir().unwrap();
    let deep = write(
        dir.path(),
        "deep.rq",
        &format!(
            "query q(a: Int) = {}a{}\n",
            "[".repeat(30_000),
            "]".repeat(30_000)
        ),
    );
    let checked = rqc(&["check", &deep]);
    assert_eq!(checked.status.code(), Some(1), "{}", stderr(&checked));
    assert!(stderr(&checked).contains("[E0008]"), "{}", stderr(&checked));
    let db = dir.path().join("db").display().to_string();
    let session = rqc_with_input(
        &["repl", "--db", &db, "examples/social"],
        &format!("{}1\n1 + 1\n", "-".repeat(30_000)),
    );
    assert!(stderr(&session).contains("[E0008]") || stdout(&session).contains("[E0008]"));
    assert!(
        stdout(&session).lines().any(|l| l.trim() == "2"),
        "{}",
        stdout(&session)
    );
}

#[test]
fn output_into_a_reader_that_stops_early_ends_quietly() {
    // `rqc check --format json … | head -c 10`: the reader closes the pipe
    // while `rqc` still writes. The write fails; `rqc` ends as `cat` does
    // (by SIGPIPE), not with a panic (exit 101).
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..5_000)
        .map(|i| format!("query q{i}(a: Int) = nope{i}\n"))
        .collect();
    let many = write(dir.path(), "many.rq", &text);
    let mut child = super::rqc_command(&["check", "--format", "json", &many])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rqc runs");
    let mut first = [0u8; 10];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The pipe's reading end is dropped here.
    let mut errors = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut errors)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGPIPE), "{status:?}: {errors}");
    assert!(!errors.contains("panicked"), "{errors}");
}

#[test]
fn a_byte_order_mark_is_skipped_and_the_least_integer_divided_by_minus_one_overflows() {
    let dir = tempfile::tempdir().unwrap();
    // Some editors open a file with a byte-order mark.
    let program = write(
        dir.path(),
        "div.rq",
        "\u{feff}query div(a: Int, b: Int) = a / b\n",
    );
    let checked = rqc(&["check", &program]);
    assert!(checked.status.success(), "{}", stderr(&checked));
    // i64::MIN / -1 does not fit: an overflow, not a division by zero.
    let db = dir.path().join("db").display().to_string();
    let args = ["--arg", "a=-9223372036854775808", "--arg", "b=-1"];
    let mut run = vec!["run", "--store", "memory", "--db", &db, &program, "div"];
    run.extend(args);
    let out = rqc(&run);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("E0530"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("integer overflow"),
        "{}",
        stderr(&out)
    );
}

/// A float past the largest is refused, never printed as `null`: the
/// literal by `check` (E0006), the arithmetic by `run` (E0531 for a
/// division by zero, E0538 for an overflow), each with its help.
#[test]
fn an_infinite_float_is_refused_with_its_code_not_answered_null() {
    let dir = tempfile::tempdir().unwrap();
    let big = write(dir.path(), "big.rq", "query q(a: Int) = 1e999999\n");
    let checked = rqc(&["check", &big]);
    assert_eq!(checked.status.code(), Some(1), "{}", stderr(&checked));
    assert!(stderr(&checked).contains("[E0006]"), "{}", stderr(&checked));
    assert!(stderr(&checked).contains("1.8e308"), "{}", stderr(&checked));
    let app = write(
        dir.path(),
        "f.rq",
        "query zero() = 1.0 / 0.0\nquery div(x: Float, y: Float) = x / y\n",
    );
    let db = dir.path().join("db").display().to_string();
    for (args, code) in [
        (vec!["zero"], "E0531"),
        (
            vec!["div", "--arg", "x=1e300", "--arg", "y=1e-300"],
            "E0538",
        ),
        (vec!["div", "--arg", "x=1", "--arg", "y=0"], "E0531"),
    ] {
        let run = rqc(&[&["run", "--store", "memory", "--db", &db, &app][..], &args].concat());
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(code), "{args:?}: {err}");
        assert!(!stdout(&run).contains("null"), "{args:?}: {}", stdout(&run));
    }
    let half = rqc(&[
        "run", "--store", "memory", "--db", &db, &app, "div", "--arg", "x=1", "--arg", "y=2",
    ]);
    assert_eq!(stdout(&half).trim(), "0.5", "{}", stderr(&half));
}
