//! Several calls in one transaction from the command line: `rqc run --batch FILE` and the REPL's `:begin` … `:commit` / `:rollback`, with its idle timeout.

use super::{rqc, rqc_with_input, stderr, stdout};
use std::path::Path;

const SHOP: &str = "
table Item { id: Int key  shelf: Int  stock: Int  price: Float  index by_shelf (shelf, id)  bound shelf <= 100 }
aggregate stocked = sum(Item.stock) by shelf
mutation add(id: Int, shelf: Int, stock: Int, price: Float) = insert Item { id, shelf, stock, price }
mutation take(id: Int, n: Int) = update Item[id] { stock -= n }
mutation put(id: Int, shelf: Int, stock: Int, price: Float) = upsert Item { id, shelf, stock, price }
mutation drop_item(id: Int) = delete Item[id]
query stock(id: Int) = Item[id] |> map(i => i.stock)
query total(s: Int) = stocked[s]
";

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// A database with the program and item 1 (10 on shelf 7).
fn shop(dir: &Path) -> (String, String) {
    let program = write(dir, "shop.rq", SHOP);
    let db = dir.join("db").display().to_string();
    let out = rqc(&[
        "run", "--db", &db, &program, "add", "--arg", "id=1", "--arg", "shelf=7", "--arg",
        "stock=10", "--arg", "price=2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    (db, program)
}

fn query(db: &str, name: &str, arg: &str) -> String {
    let out = rqc(&["run", "--db", db, name, "--arg", arg]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out).trim().to_string()
}

#[test]
fn a_batch_runs_every_call_in_one_transaction_and_prints_after_the_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (db, program) = shop(dir.path());
    let calls = write(
        dir.path(),
        "calls.jsonl",
        r#"{"entry": "add", "args": {"id": 2, "shelf": 7, "stock": 5, "price": 1}}

{"entry": "take", "args": {"id": 1, "n": 3}}
{"entry": "put", "args": {"id": 2, "shelf": 7, "stock": 6, "price": 1.5}}
{"entry": "total", "args": {"s": 7}}
{"entry": "drop_item", "args": {"id": 2}}
{"entry": "stock", "args": {"id": 2}}
"#,
    );
    let out = rqc(&["run", "--db", &db, &program, "--batch", &calls]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // One JSON result a call, in order; the queries see the earlier writes.
    let printed = stdout(&out);
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), 6, "{lines:?}");
    assert_eq!(lines[3], "13", "the total after the writes before it");
    assert_eq!(lines[5], "null", "item 2 deleted by the call before");
    let err = stderr(&out);
    assert!(err.contains("6 calls in one transaction"), "{err}");
    assert_eq!(query(&db, "stock", "id=1"), "7");
    assert_eq!(query(&db, "total", "s=7"), "7");
    // The transaction's round trips are within its bound, commit once.
    let figures: Vec<u64> = err
        .split(['(', ')', ' '])
        .filter_map(|w| w.parse().ok())
        .collect();
    let (trips, bound) = (figures[figures.len() - 2], figures[figures.len() - 1]);
    assert!(trips <= bound, "{err}");
    let verify = rqc(&["verify", "--db", &db]);
    assert_eq!(verify.status.code(), Some(0), "{}", stdout(&verify));
    // A file that starts with a byte-order mark reads as a load's does.
    let marked = write(
        dir.path(),
        "marked.jsonl",
        "\u{feff}{\"entry\": \"take\", \"args\": {\"id\": 1, \"n\": 1}}\n",
    );
    let out = rqc(&["run", "--db", &db, "--batch", &marked]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(query(&db, "stock", "id=1"), "6");
}

#[test]
fn the_first_refusal_names_its_line_and_nothing_commits() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = shop(dir.path());
    let calls = write(
        dir.path(),
        "calls.jsonl",
        r#"{"entry": "take", "args": {"id": 1, "n": 4}}
{"entry": "add", "args": {"id": 3, "shelf": 7, "stock": 1, "price": 1}}
{"entry": "add", "args": {"id": 1, "shelf": 7, "stock": 1, "price": 1}}
{"entry": "take", "args": {"id": 1, "n": 1}}
"#,
    );
    let out = rqc(&["run", "--db", &db, "--batch", &calls]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("[E0501]"), "{err}");
    assert!(err.contains("line 3 (`add`)"), "{err}");
    assert!(err.contains("nothing of the batch was committed"), "{err}");
    assert_eq!(stdout(&out), "", "nothing printed before a commit");
    assert_eq!(query(&db, "stock", "id=1"), "10");
    assert_eq!(query(&db, "stock", "id=3"), "", "no row");

    // A line that is not a call is refused before anything runs.
    for (line, why) in [
        (
            r#"{"entry": "take", "args": [1, 2]}"#,
            "`args` is not a JSON object",
        ),
        (r#"{"args": {}}"#, "no `entry` string"),
        ("take(1, 2)", "not JSON"),
        (
            r#"{"entry": "take", "args": {"id": 1, "n": 1}, "x": 1}"#,
            "a field `x`",
        ),
    ] {
        let text = format!("{{\"entry\": \"take\", \"args\": {{\"id\": 1, \"n\": 1}}}}\n{line}\n");
        let calls = write(dir.path(), "bad.jsonl", &text);
        let out = rqc(&["run", "--db", &db, "--batch", &calls]);
        assert_eq!(out.status.code(), Some(1));
        let err = stderr(&out);
        assert!(err.contains("[E0668]") && err.contains("line 2"), "{err}");
        assert!(err.contains(why), "{why}: {err}");
    }
    // Arguments are typed as --arg types them: 1.0 is no Int, an unknown
    // name is refused; each names its line.
    for (line, code) in [
        (r#"{"entry": "take", "args": {"id": 1.0, "n": 1}}"#, "E0007"),
        (r#"{"entry": "take", "args": {"id": 1, "m": 1}}"#, "E0520"),
        (r#"{"entry": "nope", "args": {}}"#, "E0521"),
        (
            r#"{"entry": "take", "args": {"id": 1, "n": -9223372036854775808}}"#,
            "E0",
        ),
    ] {
        let text = format!("{{\"entry\": \"take\", \"args\": {{\"id\": 1, \"n\": 1}}}}\n{line}\n");
        let calls = write(dir.path(), "bad.jsonl", &text);
        let out = rqc(&["run", "--db", &db, "--batch", &calls]);
        assert_eq!(out.status.code(), Some(1), "{line}");
        let err = stderr(&out);
        assert!(
            err.contains(&format!("[{code}")) && err.contains("line 2"),
            "{line}: {err}"
        );
    }
    assert_eq!(query(&db, "stock", "id=1"), "10", "nothing committed");
}

#[test]
fn a_batch_reads_stdin_and_refuses_a_name_or_args_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let (db, program) = shop(dir.path());
    let out = rqc_with_input(
        &["run", "--db", &db, &program, "--batch", "-"],
        "{\"entry\": \"take\", \"args\": {\"id\": 1, \"n\": 2}}\n{\"entry\": \"stock\", \"args\": {\"id\": 1}}\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed = stdout(&out);
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), 2, "{printed}");
    assert_eq!(lines[1], "8", "{printed}");
    assert_eq!(query(&db, "stock", "id=1"), "8");
    let out = rqc(&["run", "--db", &db, "--batch", "-", "--arg", "id=1"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // Without a program, a missing database is refused, not made empty.
    let missing = dir.path().join("nothing").display().to_string();
    let out = rqc_with_input(&["run", "--db", &missing, "--batch", "-"], "");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("[E0608]"), "{}", stderr(&out));
    assert!(!dir.path().join("nothing").exists());
}

/// The REPL's `:begin`: calls see each other's writes, `:commit` stores
/// them at once, `:rollback` and a refused call store nothing, and the
/// commands out of place are refused with their codes.
#[test]
fn the_repl_holds_a_transaction_between_begin_and_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (db, program) = shop(dir.path());
    let script = "\
:commit
:begin
take(1, 3)
stock(1)
:begin
:load nothing.rq
add(2, 7, 1, 1.0)
:commit
:begin
take(1, 5)
:rollback
:begin
take(1, 1)
add(1, 7, 1, 1.0)
stock(1)
:rollback
:begin
take(1, 1)
";
    let out = rqc_with_input(&["repl", "--db", &db, &program], script);
    let text = stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the session ended inside one:\n{text}"
    );
    assert!(
        text.contains("[E0451] Error: `:commit` with no transaction open"),
        "{text}"
    );
    assert!(text.contains("transaction begun"), "{text}");
    assert!(
        text.contains("[E0451] Error: a transaction is already open"),
        "{text}"
    );
    assert!(
        text.contains("[E0452] Error: `:load` cannot run inside a transaction"),
        "{text}"
    );
    assert!(
        text.contains("committed 3 calls in one transaction"),
        "{text}"
    );
    assert!(
        text.contains("rolled back: nothing of the transaction was written"),
        "{text}"
    );
    assert!(text.contains("[E0501]"), "{text}");
    assert!(
        text.contains("[E0453] Error: the transaction is rolled back"),
        "{text}"
    );
    assert!(
        text.contains("[E0451] Error: `:rollback` with no transaction open"),
        "{text}"
    );
    assert!(
        text.contains("[E0453] Error: the session ended inside a transaction"),
        "{text}"
    );
    // Inside the first transaction, the query saw its own write.
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("transaction begun"))
        .unwrap();
    assert!(lines[at + 3].trim() == "7", "{text}");
    // Only the committed transaction stands: 10 - 3, and item 2.
    assert_eq!(query(&db, "stock", "id=1"), "7");
    assert_eq!(query(&db, "stock", "id=2"), "1");
}

/// An open transaction waiting past the idle timeout is rolled back; the
/// next input says so and does not run.
#[test]
fn an_idle_transaction_is_rolled_back_and_the_next_input_says_so() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let (db, program) = shop(dir.path());
    let mut child = super::rqc_command(&["repl", "--db", &db, &program, "--idle", "300ms"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b":begin\ntake(1, 4)\n").unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // While it was open, another writer waited; now the database is free.
    stdin.write_all(b"take(1, 2)\ntake(1, 1)\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("[E0450] Error: the transaction was idle for 0.3s and was rolled back"),
        "{text}"
    );
    assert!(text.contains("this input was not run"), "{text}");
    // `take(1, 4)` and `take(1, 2)` never stood; `take(1, 1)` ran alone.
    assert_eq!(query(&db, "stock", "id=1"), "9");
}

/// An idle timeout of zero would roll every transaction back before its
/// first call: refused as a usage error, with what to write instead.
#[test]
fn an_idle_timeout_of_zero_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (db, program) = shop(dir.path());
    for zero in ["0s", "0ms", "0"] {
        let out = super::rqc(&["repl", "--db", &db, &program, "--idle", zero]);
        assert_eq!(out.status.code(), Some(2), "{zero}: {}", stderr(&out));
        let text = stderr(&out);
        assert!(
            text.contains("would roll every transaction back") && text.contains("`60s`"),
            "{text}"
        );
    }
    let out = super::rqc(&["repl", "--db", &db, &program, "--idle", "1ms"]);
    assert!(out.status.success(), "{}", stderr(&out));
}
