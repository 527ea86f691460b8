//! The REPL against a real database: through a pipe and on a pseudo-terminal.

use super::{repo, rqc, rqc_with_input, stderr, stdout};
use std::process::Command;
const SOCIAL_SCRIPT: &str = "User[1]
Post.by_author[1] |> count()
:bound Follow[1] |> count()
{
  let u = User[1];
  u |> map(v => v.handle)
}
:nonsense
:quit
User[1]
";

fn seed_social(db: &str) {
    for (id, handle) in [(1, "ann"), (2, "bob")] {
        let out = rqc(&[
            "run",
            "--db",
            db,
            "examples/social",
            "add_user",
            "--arg",
            &format!("id={id}"),
            "--arg",
            &format!("handle={handle}"),
            "--arg",
            "name=N",
            "--arg",
            "country=NZ",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
}

#[test]
fn the_repl_runs_bounded_expressions_and_refuses_unbounded_ones_through_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    seed_social(&db);
    let output = rqc_with_input(&["repl", "--db", &db, "examples/social"], SOCIAL_SCRIPT);
    assert_eq!(output.status.code(), Some(0));
    let out = stdout(&output);
    assert!(
        out.contains("1  │ ann    │ N    │ NZ"),
        "a row as a table:\n{out}"
    );
    assert!(
        out.contains("1 row · seeks 1 (bound 1) · rows read 1 (bound 1) · round trips 1 (bound 1)"),
        "{out}"
    );
    assert!(
        out.contains(
            "[E0301] Error: rows grow with N(Post): `count` reads the rows of Post.by_author[1]"
        ),
        "the file-level diagnostic:\n{out}"
    );
    assert!(
        out.contains("Int  seeks ≤ 1 (1)  rows ≤ 5000 (5000)  round trips ≤ 1 (1)  O(log N)"),
        "{out}"
    );
    assert!(out.contains("\"ann\""), "the multi-line block ran:\n{out}");
    assert!(out.contains("unknown command `:nonsense`"), "{out}");
    assert_eq!(
        out.matches("│ ann").count(),
        1,
        ":quit stops before the last line"
    );
}

#[test]
fn the_repl_works_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    seed_social(&db);
    let rqc_path = env!("CARGO_BIN_EXE_rqc");
    let mut child = on_a_terminal(
        &format!("{rqc_path} repl --db {db} examples/social"),
        &dir.path().join("history"),
    );
    use std::io::Write;
    let mut stdin = child.stdin.take().unwrap();
    for line in [
        "User.handle[\"bob\"]\r",
        "Follow[1\r",
        "] |> count()\r",
        ":quit\r",
    ] {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let out = stdout(&output);
    assert!(out.contains("rql> "), "a prompt on the terminal:\n{out}");
    let open = out.find("Follow[1").expect("the open line echoed");
    let rest = &out[open..];
    let (prompt, close) = (rest.find(" ..> "), rest.find("] |> count()"));
    assert!(
        matches!((prompt, close), (Some(p), Some(c)) if p < c),
        "the open bracket's next line has the continuation prompt:\n{out}"
    );
    assert_eq!(out.matches(" ..> ").count(), 1, "only there:\n{out}");
    assert!(out.contains("2  │ bob"), "the row:\n{out}");
    assert!(
        out.contains("0\r\n") || out.contains("\n0"),
        "the multi-line count ran:\n{out}"
    );
    let history = std::fs::read_to_string(dir.path().join("history")).unwrap_or_default();
    assert!(
        history.contains("User.handle"),
        "the history was kept: {history:?}"
    );
}

#[test]
fn the_repl_calls_declared_queries_and_runs_mutations() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    let session = rqc_with_input(
        &["repl", "--db", &db, "examples/social"],
        "add_user(7, \"ann\", \"Ann\", \"NZ\")\nuser(7)\ninsert Country { code: \"FR\", name: \"France\" }\nadd_user(7, \"bob\", \"Bob\", \"NZ\")\n",
    );
    let out = stdout(&session);
    assert!(out.contains("1 row written · seeks 4 (bound 4)"), "{out}");
    assert!(out.contains("7  │ ann"), "{out}");
    assert!(out.contains("1 row written · seeks 2 (bound 2)"), "{out}");
    assert!(out.contains("[E0501] Error"), "{out}{}", stderr(&session));
    // Committed: another process sees the rows.
    let found = rqc(&["run", "--db", &db, "user", "--arg", "id=7"]);
    assert!(
        stdout(&found).contains("\"handle\":\"ann\""),
        "{}",
        stderr(&found)
    );
}

#[test]
fn piped_input_bails_on_request_and_an_unclosed_end_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    let repl = |extra: &[&str], input: &str| {
        let mut args = vec!["repl", "--db", &db, "examples/social"];
        args.extend_from_slice(extra);
        rqc_with_input(&args, input)
    };
    // Without --bail the session goes on past an error; with it, it stops.
    let going = repl(&[], "Nope[1]\n1 + 1\n");
    assert_eq!(going.status.code(), Some(0));
    assert!(
        stdout(&going).lines().any(|l| l.trim() == "2"),
        "{}",
        stdout(&going)
    );
    let bailed = repl(&["--bail"], "Nope[1]\n1 + 1\n");
    assert_eq!(bailed.status.code(), Some(1));
    assert!(
        !stdout(&bailed).lines().any(|l| l.trim() == "2"),
        "{}",
        stdout(&bailed)
    );
    // Input that ends inside a bracket is an error, not silence.
    let unclosed = repl(&[], "{ let u = User[1];\n");
    assert_eq!(unclosed.status.code(), Some(1));
    assert!(
        stdout(&unclosed).contains("[E0102] Error"),
        "{}",
        stdout(&unclosed)
    );
    // A line that is not UTF-8 is refused alone.
    let mut bytes = b"1 + 1\n".to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe, b'\n']);
    bytes.extend_from_slice(b"2 + 2\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rqc"))
        .args(["repl", "--db", &db, "examples/social"])
        .current_dir(repo())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let mixed = child.wait_with_output().unwrap();
    assert!(
        stdout(&mixed).contains("line 2 of the input is not UTF-8"),
        "{}",
        stdout(&mixed)
    );
    assert!(
        stdout(&mixed).lines().any(|l| l.trim() == "4"),
        "{}",
        stdout(&mixed)
    );
}

#[test]
fn a_repl_without_a_program_reads_the_schema_the_database_holds() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    seed_social(&db);
    let session = rqc_with_input(
        &["repl", "--db", &db],
        "User[2]\nUser |> count()\nuser(1 + 1)\nadd_user(9, \"cy\", \"Cy\", \"NZ\")\nuser(9)\nuser(\"x\")\n",
    );
    assert!(
        stderr(&session)
            .contains("the database's schema (5 tables); its queries and mutations run by name"),
        "{}",
        stderr(&session)
    );
    let out = stdout(&session);
    assert!(out.contains("2  │ bob"), "{out}");
    // The schema's bounds hold here too: a whole large table is refused.
    assert!(out.contains("E0301"), "{out}");
    // The installed entry points run by name, without their sources: an
    // argument is an expression; a mutation commits; a wrong type is refused.
    assert_eq!(out.matches("2  │ bob").count(), 2, "{out}");
    assert!(out.contains("1 row written · seeks 4 (bound 4)"), "{out}");
    assert!(out.contains("9  │ cy"), "{out}");
    assert!(out.contains("E05"), "a string for an Int is refused: {out}");
}

#[test]
fn a_repl_error_points_into_the_line_typed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    let session = rqc_with_input(
        &["repl", "--db", &db, "examples/social"],
        "User[1] |> map(u => u.nmae)\nadd_user(1, 2, \"x\", \"NZ\")\n",
    );
    let out = stdout(&session);
    assert!(out.contains("<repl>:1:23"), "{out}");
    assert!(out.contains("<repl>:1:13"), "{out}");
    // A call of an entry point the database holds, without its sources:
    // each argument is checked alone, and shown in the whole call.
    let session = rqc_with_input(
        &["repl", "--db", &db],
        "user(1 + zz)
",
    );
    let out = stdout(&session);
    assert!(out.contains("<repl>:1:10"), "{out}");
    assert!(
        out.contains("user(1 + zz)"),
        "the line typed is shown: {out}"
    );
}

#[test]
fn the_repl_reads_aggregates_and_shows_them_in_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    seed_social(&db);
    let follow = rqc(&[
        "run",
        "--db",
        &db,
        "examples/social",
        "follow",
        "--arg",
        "a=2",
        "--arg",
        "b=1",
        "--arg",
        "now=5",
    ]);
    assert_eq!(follow.status.code(), Some(0), "{}", stderr(&follow));
    let script = "followers_of[1]\nposts_of[1] + followers_of[2]\nlast_posted[1]\n:bound followers_of[1]\n:schema\nfollowers_of\n:quit\n";
    let output = rqc_with_input(&["repl", "--db", &db, "examples/social"], script);
    assert_eq!(output.status.code(), Some(0));
    let out = stdout(&output);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.contains(&"1"), "the count of followers of 1:\n{out}");
    assert!(lines.contains(&"0"), "an empty group reads 0:\n{out}");
    assert!(out.contains("Int  seeks ≤ 1 (1)  rows ≤ 1 (1)"), "{out}");
    assert!(
        out.contains("  aggregate followers_of = count(Follow) by followee"),
        "{out}"
    );
    assert!(
        out.contains("E0224"),
        "an aggregate without its group:\n{out}"
    );
}

/// An expression the REPL accepts and runs until stopped (hours): a
/// list of 2^20 built by doubling, each element compared with each of
/// 2^12, 2^33 steps in memory. The checker holds a run's steps to 16 ×
/// (r + 1)² for the r rows it may read, so it reads the small table `S`
/// of [`long_run_repl`] (at most 100,000 rows, none stored): the bound,
/// not the data, is what allows the work.
fn endless_expression() -> String {
    let lets: String = (1..=20)
        .map(|i| format!("let a{i} = [a{}, a{}] |> flatten(); ", i - 1, i - 1))
        .collect();
    format!(
        "{{ let n = S |> count(); let a0 = [1]; {lets}a20 |> filter(v => a12 |> any(w => w > v + n)) |> count() }}"
    )
}

/// The REPL's arguments for a program whose small table `S` lets
/// [`endless_expression`] run long, with a database beside it.
fn long_run_repl(dir: &std::path::Path) -> Vec<String> {
    repl_over(
        dir,
        "s.rq",
        "module s\nsmall table S max 100000 {\n  id: Int key\n}\n",
    )
}

/// A program of one table in `dir`, and the REPL's arguments for it with a
/// database beside it.
pub(super) fn one_table_repl(dir: &std::path::Path) -> Vec<String> {
    repl_over(dir, "t.rq", "module t\ntable T {\n  id: Int key\n}\n")
}

/// The REPL's arguments for the program `text`, written to `file` in
/// `dir`, with a database beside it.
fn repl_over(dir: &std::path::Path, file: &str, text: &str) -> Vec<String> {
    let program = dir.join(file);
    std::fs::write(&program, text).unwrap();
    let path = |p: std::path::PathBuf| p.display().to_string();
    vec![
        "repl".into(),
        "--db".into(),
        path(dir.join("db")),
        path(program),
    ]
}

/// `script` giving `command` a pseudo-terminal, its input typed into it.
///
/// `script` starts the command through `$SHELL -c`. The command is
/// `exec`ed so that no shell stays between: a shell that waits (dash does)
/// would be in the terminal's foreground group too, and a typed Ctrl-C
/// would end it, and with it the status `script` reports. `SHELL` is set
/// so that the test runs the same wherever it runs (CI has none set).
pub(super) fn on_a_terminal(command: &str, history: &std::path::Path) -> std::process::Child {
    Command::new("script")
        .args(["-qec", &format!("exec {command}"), "/dev/null"])
        .current_dir(repo())
        .env("SHELL", "/bin/sh")
        .env("NO_COLOR", "1")
        .env("RQC_HISTORY", history)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs")
}

/// Ctrl-C (SIGINT) while a command runs stops that command (E0586,
/// nothing committed) and the session goes on to the next line; with
/// nothing running it ends the session with status 130, as before.
#[test]
fn ctrl_c_stops_the_running_command_and_the_session_goes_on() {
    use std::io::Write;
    use std::process::Stdio;
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let args = long_run_repl(dir.path());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let spawn = || {
        super::rqc_command(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let long = format!("{}\n", endless_expression());
    let mut child = spawn();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(long.as_bytes()).unwrap();
    stdin.write_all(b"20 + 22\n").unwrap();
    stdin.flush().unwrap();
    child.stdin = Some(stdin);
    // Long enough for the first line to be checked and running.
    let (status, text) = super::signalled(child, libc::SIGINT, Duration::from_secs(3));
    assert_eq!(status, Some(0), "{text}");
    assert!(text.contains("[E0586] Error"), "{text}");
    assert!(text.contains("\n42\n"), "the next line ran: {text}");

    // Idle: waiting for input, Ctrl-C ends the session.
    let idle = spawn();
    let (status, text) = super::signalled(idle, libc::SIGINT, Duration::from_secs(2));
    assert_eq!(status, Some(130), "{text}");
}

/// On a terminal, Ctrl-C typed while a command runs stops it, and the
/// prompt takes the next line.
#[test]
fn ctrl_c_on_a_terminal_stops_the_command_not_the_session() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let command = format!(
        "{} {}",
        env!("CARGO_BIN_EXE_rqc"),
        long_run_repl(dir.path()).join(" ")
    );
    let mut child = on_a_terminal(&command, &dir.path().join("history"));
    let mut stdin = child.stdin.take().unwrap();
    let pause = |ms| std::thread::sleep(std::time::Duration::from_millis(ms));
    pause(1000);
    stdin
        .write_all(format!("{}\r", endless_expression()).as_bytes())
        .unwrap();
    stdin.flush().unwrap();
    pause(3000);
    for typed in ["\x03", "20 + 22\r", ":quit\r"] {
        stdin.write_all(typed.as_bytes()).unwrap();
        stdin.flush().unwrap();
        pause(700);
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let out = stdout(&output);
    assert!(output.status.success(), "{}:\n{out}", output.status);
    let stopped = out.find("[E0586] Error").expect("the run was stopped");
    assert!(out[stopped..].contains("42"), "the next line ran:\n{out}");
}

/// A program file without a `module` line is the module of its stem: its
/// tables are in scope in the REPL as its queries are (adversary finding:
/// `Item[1]` was "nothing named `Item`", with help to write an `import`
/// the REPL does not take).
#[test]
fn a_program_without_a_module_line_has_its_tables_in_scope() {
    let dir = tempfile::tempdir().unwrap();
    let args = repl_over(
        dir.path(),
        "f1.rq",
        "table Item {\n  id: Int key\n  name: String\n}\nquery one(i: Int) = Item[i]\n",
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let input = "insert Item { id: 1, name: \"lamp\" }\nItem[1] |> map(i => i.name)\none(1) |> map(i => i.id)\n";
    let output = rqc_with_input(&args, input);
    let (out, err) = (stdout(&output), stderr(&output));
    assert_eq!(output.status.code(), Some(0), "{out}\n{err}");
    assert!(!err.contains("E0201"), "{err}");
    assert!(out.contains("\"lamp\""), "{out}\n{err}");
    assert!(out.lines().any(|l| l.trim() == "1"), "{out}\n{err}");
}
