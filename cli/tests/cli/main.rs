//! CLI tests: run the built `rqc` binary and check its output and exit status.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod agree;
mod auto_keys;
mod bad_input;
mod cascades;
mod color;
mod damage;
mod diagnostics;
mod disk_full;
mod durability;
mod etcd;
mod etcd_faults;
mod etcd_live;
mod etcd_security;
mod headers;
mod install;
mod lost_data;
mod migrate;
mod numbers;
mod pages;
mod plans;
mod processes;
mod readme;
mod records;
mod repl;
mod repl_terminal;
mod restore;
mod same_value;
mod stale_handle;
mod threads;
mod transactions;
mod upgrade;
mod upgrade_format;
mod verifier_limit;
mod watch;
mod watch_installs;

/// The workspace root, where the examples are: commands run from there.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("cli/ is inside the workspace")
        .to_path_buf()
}

/// `rqc` with `args`, run from the workspace root, without colour.
fn rqc_command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rqc"));
    command.args(args).current_dir(repo()).env("NO_COLOR", "1");
    command
}

fn rqc(args: &[&str]) -> Output {
    rqc_command(args).output().expect("rqc runs")
}

/// Runs `rqc` with `input` on its standard input.
fn rqc_with_input(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = rqc_command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rqc runs");
    // A process that stops reading early is fine: what it answers is checked.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().expect("rqc runs")
}

/// Sends `signal` to `child` after `after`, closes its standard input,
/// waits for it, and returns its status and what it wrote (its standard
/// output, where piped, then its standard error).
fn signalled(
    mut child: std::process::Child,
    signal: i32,
    after: std::time::Duration,
) -> (Option<i32>, String) {
    use std::io::Read;
    std::thread::sleep(after);
    // SAFETY: kill(2) on the child's own pid.
    unsafe { libc::kill(child.id() as i32, signal) };
    drop(child.stdin.take());
    let status = child.wait().expect("rqc ends");
    let mut text = String::new();
    for stream in [
        child.stdout.take().map(|s| Box::new(s) as Box<dyn Read>),
        child.stderr.take().map(|s| Box::new(s) as Box<dyn Read>),
    ]
    .into_iter()
    .flatten()
    {
        let mut stream = stream;
        stream.read_to_string(&mut text).expect("its output reads");
    }
    (status.code(), text)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

const APP: &str = "
table Item {
  id: Int key
  name: String unique
  price: Int
}
mutation add(id: Int, name: String, price: Int) = insert Item { id: id, name: name, price: price }
query item(id: Int) = Item[id]
";

/// Adds item 1 (a lamp) to the database `db` of `store` with the program
/// APP at `app`, and checks that it was accepted.
fn add_lamp(store: &str, db: &str, app: &str) {
    let added = rqc(&[
        "run",
        "--store",
        store,
        "--db",
        db,
        app,
        "add",
        "--arg",
        "id=1",
        "--arg",
        "name=lamp",
        "--arg",
        "price=3",
    ]);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
}

#[test]
fn compile_reports_both_syntax_errors_with_codes_and_help_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "two.rq",
        "table T { id: Int key }\nquery a(x: Int) = T[x] +\nquery b(y Int) = T[y]\nquery c(z: Int) = T[z]\n",
    );
    let output = rqc(&["compile", &file]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert_eq!(err.matches("[E0101]").count(), 2, "{err}");
    assert_eq!(err.matches("Help:").count(), 2, "{err}");
    assert!(err.contains("two.rq:3:1 "), "{err}");
    assert!(err.contains("two.rq:3:11 "), "{err}");
    assert!(err.ends_with("2 errors\n"), "{err}");
    // The query after the two broken ones is still checked and reported.
    assert!(
        stdout(&output).contains("c(z: Int) -> T?  seeks ≤ 1"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn check_prints_a_bound_per_entry_and_exits_0_when_clean() {
    let output = rqc(&["check", "examples/social"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(
        out.contains("user(id: Int) -> User?  seeks ≤ 1  rows ≤ 1  round trips ≤ 1  O(log N)"),
        "{out}"
    );
    // follow checks its key, two references (each: the row and its
    // reference counter) and the follower bound, and keeps the aggregate
    // `followers_of`: seven reads, then its commit (the changelog head's
    // read and the commit itself).
    assert!(
        out.contains(
            "follow(a: Int, b: Int, now: Int) -> Int  seeks ≤ 7  rows ≤ 7  round trips ≤ 9"
        ),
        "{out}"
    );
    // A maintained aggregate: one seek, however large the group.
    assert!(
        out.contains(
            "follower_count(u: Int) -> Int  seeks ≤ 1  rows ≤ 1  round trips ≤ 1  O(log N)"
        ),
        "{out}"
    );
    // The index nested loop over an island: the scan, then one batch.
    assert!(
        out.contains(
            "top_followed(u: Int) -> [User; ≤ 5000]  seeks ≤ 5001  rows ≤ 10000  round trips ≤ 2"
        ),
        "{out}"
    );
}

#[test]
fn check_json_has_queries_and_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "app.rq",
        &format!("{APP}\nquery broken(id: Int) = Nope[id]\n"),
    );
    let output = rqc(&["check", "--format", "json", &file]);
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("one JSON object");
    let queries = json["queries"].as_array().unwrap();
    let item = queries.iter().find(|q| q["name"] == "item").unwrap();
    assert_eq!(item["verdict"], "accepted");
    assert_eq!(item["seeks_max"], 1);
    assert_eq!(item["round_trips"], "1");
    assert_eq!(item["round_trips_max"], 1);
    assert_eq!(item["kind"], "query");
    let add = queries.iter().find(|q| q["name"] == "add").unwrap();
    assert_eq!(
        add["round_trips_max"], 4,
        "two checks, the changelog head's read and the commit"
    );
    let broken = queries.iter().find(|q| q["name"] == "broken").unwrap();
    assert_eq!(broken["verdict"], "rejected");
    assert!(broken["seeks_max"].is_null());
    assert!(broken["round_trips_max"].is_null());
    let diagnostic = &json["diagnostics"][0];
    assert_eq!(diagnostic["code"], "E0201");
    assert_eq!(diagnostic["line"], 10);
    assert_eq!(diagnostic["column"], 25);
    assert!(!diagnostic["help"].as_array().unwrap().is_empty());
}

#[test]
fn missing_file_and_unreadable_directory_exit_2_with_one_line() {
    let output = rqc(&["check", "no/such/file.rq"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("no/such/file.rq"), "{err}");

    let output = rqc(&["compile", "no/such/dir"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn usage_errors_exit_2_and_help_explains_with_an_example() {
    assert_eq!(rqc(&["check"]).status.code(), Some(2));
    assert_eq!(rqc(&["frobnicate"]).status.code(), Some(2));
    for command in ["compile", "check", "run", "explain"] {
        let output = rqc(&[command, "--help"]);
        assert_eq!(output.status.code(), Some(0));
        let out = stdout(&output);
        assert!(
            out.contains("Example"),
            "{command} --help has no example:\n{out}"
        );
        assert!(out.contains(&format!("rqc {command}")), "{out}");
    }
}

#[test]
fn run_writes_in_one_invocation_and_reads_in_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let db = dir.path().join("db").display().to_string();
    let added = rqc(&[
        "run",
        "--db",
        &db,
        &app,
        "add",
        "--arg",
        "id=42",
        "--arg",
        "name=lamp",
        "--arg",
        "price=30",
    ]);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    assert!(stderr(&added).contains("1 row written"));

    let read = rqc(&["run", "--db", &db, &app, "item", "--arg", "k=1"]);
    assert_eq!(
        read.status.code(),
        Some(1),
        "a wrong argument name is an error"
    );
    assert!(
        stderr(&read).contains("has no parameter `k`"),
        "{}",
        stderr(&read)
    );

    let read = rqc(&["run", "--db", &db, &app, "item", "--arg", "id=42"]);
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));
    let line: serde_json::Value = serde_json::from_str(stdout(&read).trim()).unwrap();
    assert_eq!(
        line,
        serde_json::json!({"id": 42, "name": "lamp", "price": 30})
    );
    assert!(stderr(&read).contains("seeks 1 (bound 1)"));

    let missing = rqc(&["run", "--db", &db, &app, "item", "--arg", "id=7"]);
    assert_eq!(missing.status.code(), Some(0));
    assert_eq!(stdout(&missing), "", "no row, no output");
}

#[test]
fn run_refuses_bad_arguments_duplicates_and_unknown_names() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let db = dir.path().join("db").display().to_string();
    let add = |id: &str, name: &str| {
        rqc(&[
            "run",
            "--db",
            &db,
            &app,
            "add",
            "--arg",
            &format!("id={id}"),
            "--arg",
            &format!("name={name}"),
            "--arg",
            "price=1",
        ])
    };
    assert_eq!(add("1", "a").status.code(), Some(0));
    let duplicate = add("1", "b");
    assert_eq!(duplicate.status.code(), Some(1));
    assert!(
        stderr(&duplicate).contains("E0501"),
        "{}",
        stderr(&duplicate)
    );
    let taken = add("2", "a");
    assert_eq!(taken.status.code(), Some(1));
    assert!(stderr(&taken).contains("E0502"), "{}", stderr(&taken));
    let typed = add("two", "c");
    assert_eq!(typed.status.code(), Some(1));
    assert!(
        stderr(&typed).contains("parameter `id` is `Int`"),
        "{}",
        stderr(&typed)
    );
    let missing = rqc(&["run", "--db", &db, &app, "add", "--arg", "id=3"]);
    assert!(
        stderr(&missing).contains("missing arguments name: String, price: Int"),
        "{}",
        stderr(&missing)
    );
    let unknown = rqc(&["run", "--db", &db, &app, "remove"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        stderr(&unknown).contains("the entry points are: add, item"),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn run_refuses_a_directory_that_is_not_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let not_db = dir.path().join("notes");
    std::fs::create_dir(&not_db).unwrap();
    std::fs::write(not_db.join("todo.txt"), "keep me").unwrap();
    let output = rqc(&[
        "run",
        "--db",
        &not_db.display().to_string(),
        &app,
        "item",
        "--arg",
        "id=1",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("E0511"), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_dir(&not_db).unwrap().count(),
        1,
        "nothing was written into it"
    );
}

#[test]
fn compile_writes_a_versioned_plan_file_and_explain_prints_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let out = dir.path().join("app.json");
    let output = rqc(&["compile", &app, "-o", &out.display().to_string()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let program: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(program["format_version"], rqc_plan::FORMAT_VERSION);
    assert_eq!(program["entries"].as_array().unwrap().len(), 2);

    let explained = rqc(&["explain", &app, "item"]);
    assert_eq!(explained.status.code(), Some(0));
    assert_eq!(
        stdout(&explained),
        "query item(id: Int)  seeks ≤ 1  rows ≤ 1  round trips ≤ 1\n└─ Get Item key=[$id]  seeks ≤ 1  rows ≤ 1  round trips ≤ 1\n\
         live: a subscription listens to the key ranges its last run read, at most 1 (one per seek):\n  \
         Get Item key=[$id]: one key\n\
         a commit that writes into one re-runs it (seeks ≤ 1  rows ≤ 1); any other commit costs it nothing\n"
    );
}

#[test]
fn load_takes_jsonl_and_csv_whole_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let db = dir.path().join("db").display().to_string();
    let jsonl = write(dir.path(), "items.jsonl", "{\"id\": 1, \"name\": \"lamp\", \"price\": 30}\n{\"id\": 2, \"name\": \"desk\", \"price\": 90}\n");
    let loaded = rqc(&["load", "--db", &db, &app, "Item", &jsonl]);
    assert_eq!(loaded.status.code(), Some(0), "{}", stderr(&loaded));
    assert!(stderr(&loaded).contains("loaded 2 rows into Item"));
    // Line 3 repeats a unique name, line 4 has a bad price: nothing of the file is kept.
    let csv = write(
        dir.path(),
        "more.csv",
        "id,name,price\n3,chair,20\n4,lamp,5\n5,sofa,lots\n",
    );
    let refused = rqc(&["load", "--db", &db, &app, "Item", &csv]);
    assert_eq!(refused.status.code(), Some(1));
    let err = stderr(&refused);
    assert!(err.contains(&format!("[E0502] Error: {csv}:3: ")), "{err}");
    assert!(
        err.contains(&format!(
            "[E0005] Error: {csv}:4: `price`: `lots` is not a number"
        )),
        "{err}"
    );
    assert!(
        err.contains("nothing was loaded: 2 of 3 rows were refused"),
        "{err}"
    );
    // RFC 4180: a quoted field holds a newline; the rows stream from the file.
    let quoted = write(
        dir.path(),
        "quoted.csv",
        "\u{feff}id,name,price\n7,\"two\nlines\",4\n",
    );
    let loaded = rqc(&["load", "--db", &db, &app, "Item", &quoted]);
    assert_eq!(loaded.status.code(), Some(0), "{}", stderr(&loaded));
    let seven = rqc(&["run", "--db", &db, &app, "item", "--arg", "id=7"]);
    assert!(stdout(&seven).contains("two\\nlines"), "{}", stdout(&seven));
    let chair = rqc(&["run", "--db", &db, &app, "item", "--arg", "id=3"]);
    assert_eq!(
        stdout(&chair),
        "",
        "the valid row of the refused file was not loaded"
    );
    let lamp = rqc(&["run", "--db", &db, &app, "item", "--arg", "id=1"]);
    assert!(stdout(&lamp).contains("\"lamp\""));
    let wrong = rqc(&["load", "--db", &db, &app, "Item", &app]);
    assert_eq!(
        wrong.status.code(),
        Some(2),
        "a file that is neither .jsonl nor .csv"
    );
    let no_table = rqc(&["load", "--db", &db, &app, "Nope", &jsonl]);
    assert_eq!(no_table.status.code(), Some(1));
    assert!(stderr(&no_table).contains("the tables are: Item"));
}

#[test]
fn explain_analyze_shows_actual_reads_beside_each_bound() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let db = dir.path().join("db").display().to_string();
    add_lamp("redb", &db, &app);
    let output = rqc(&[
        "explain",
        &app,
        "item",
        "--analyze",
        "--db",
        &db,
        "--arg",
        "id=1",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(
        out.contains(
            "└─ Get Item key=[$id]  seeks ≤ 1  rows ≤ 1  round trips ≤ 1  (actual: seeks 1 rows 1 round trips 1 in 1 run)"
        ),
        "{out}"
    );
    assert!(
        out.contains("actual: seeks 1 of 1 · rows 1 of 1 · round trips 1 of 1"),
        "{out}"
    );
    // Analyzing a mutation discards its writes.
    let output = rqc(&[
        "explain",
        &app,
        "add",
        "--analyze",
        "--db",
        &db,
        "--arg",
        "id=2",
        "--arg",
        "name=desk",
        "--arg",
        "price=9",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let after = rqc(&["run", "--db", &db, &app, "item", "--arg", "id=2"]);
    assert_eq!(stdout(&after), "");
}

#[test]
fn each_store_keeps_its_data_and_refuses_the_others_directory() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let stores = ["sled", "redb", "lmdb"];
    for store in stores {
        let db = dir.path().join(store).display().to_string();
        add_lamp(store, &db, &app);
        let read = rqc(&[
            "run", "--store", store, "--db", &db, &app, "item", "--arg", "id=1",
        ]);
        assert!(stdout(&read).contains("lamp"), "{store}");
        // Without --store, the database opens with the backend it records.
        let read = rqc(&["run", "--db", &db, &app, "item", "--arg", "id=1"]);
        assert!(stdout(&read).contains("lamp"), "{store}: {}", stderr(&read));
        for other in stores.into_iter().filter(|s| *s != store) {
            let refused = rqc(&[
                "run", "--store", other, "--db", &db, &app, "item", "--arg", "id=1",
            ]);
            assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
            let err = stderr(&refused);
            assert!(err.contains("E0515"), "{err}");
            assert!(err.contains(&format!("is a {store} database")), "{err}");
            assert!(err.contains("leave out --store"), "{err}");
        }
    }
}

#[test]
fn a_database_from_a_newer_rqc_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let db_dir = dir.path().join("db");
    let db = db_dir.display().to_string();
    add_lamp("redb", &db, &app);
    {
        let store = rqc_runtime::Backend::Redb
            .open_store(&db_dir, &rqc_runtime::OpenOptions::default())
            .unwrap();
        let mut txn = store.begin_write().unwrap();
        txn.put(store.tree("__catalog"), b"format", &99u32.to_be_bytes())
            .unwrap();
        txn.commit().unwrap();
    }
    let contents = || {
        let store = rqc_runtime::Backend::Redb
            .open_store(&db_dir, &rqc_runtime::OpenOptions::default())
            .unwrap();
        let txn = store.begin_read().unwrap();
        ["__catalog", "t:Item", "i:Item:name"]
            .iter()
            .map(|t| {
                txn.range(store.tree(t), &[], None, false, usize::MAX)
                    .unwrap()
            })
            .collect::<Vec<_>>()
    };
    let before = contents();
    let rows = write(
        dir.path(),
        "items.jsonl",
        "{\"id\": 3, \"name\": \"cup\", \"price\": 2}\n",
    );
    for args in [
        vec!["run", "--db", &db, &app, "item", "--arg", "id=1"],
        vec![
            "run",
            "--db",
            &db,
            &app,
            "add",
            "--arg",
            "id=2",
            "--arg",
            "name=desk",
            "--arg",
            "price=3",
        ],
        vec![
            "explain",
            &app,
            "item",
            "--analyze",
            "--db",
            &db,
            "--arg",
            "id=1",
        ],
        vec!["load", "--db", &db, &app, "Item", &rows],
        vec!["repl", "--db", &db, &app],
    ] {
        // The REPL gets a script; the other commands ignore their input.
        let output = rqc_with_input(&args, "Item[1]\n:quit\n");
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(stderr(&output).contains("E0512"), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("written by a newer rqc"),
            "{}",
            stderr(&output)
        );
    }
    assert_eq!(before, contents(), "nothing in the database changed");
}

#[test]
fn the_social_sample_data_loads_and_serves_the_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db").display().to_string();
    for (table, file) in [
        ("User", "users.jsonl"),
        ("Follow", "follows.csv"),
        ("Post", "posts.jsonl"),
        ("Country", "countries.csv"),
    ] {
        let path = format!("examples/social/data/{file}");
        let loaded = rqc(&["load", "--db", &db, "examples/social", table, &path]);
        assert_eq!(
            loaded.status.code(),
            Some(0),
            "{table}: {}",
            stderr(&loaded)
        );
    }
    let timeline = rqc(&[
        "run",
        "--db",
        &db,
        "examples/social",
        "timeline",
        "--arg",
        "u=1",
        "--arg",
        "n=3",
    ]);
    assert_eq!(timeline.status.code(), Some(0), "{}", stderr(&timeline));
    let ats: Vec<i64> = stdout(&timeline)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["at"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(ats.len(), 3);
    assert!(
        ats.windows(2).all(|w| w[0] >= w[1]),
        "newest first: {ats:?}"
    );
}

#[test]
fn colour_follows_the_flag_and_an_empty_directory_is_no_program() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(dir.path(), "bad.rq", "query q() = Nowhere\n");
    let always = rqc(&["check", &bad, "--color", "always"]);
    assert!(stderr(&always).contains("\u{1b}["), "{}", stderr(&always));
    let never = rqc(&["check", &bad, "--color", "never"]);
    assert!(!stderr(&never).contains("\u{1b}["), "{}", stderr(&never));
    assert!(stderr(&never).contains("E0201"), "{}", stderr(&never));
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = rqc(&["check", &empty.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("[E0600] Error: ") && stderr(&out).contains("holds no `.rq` file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn explain_takes_several_paths_and_run_help_shows_how_to_pass_values() {
    let out = rqc(&[
        "explain",
        "examples/social/social.rq",
        "examples/social/feed.rq",
        "user",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("query user(id: Int)"),
        "{}",
        stdout(&out)
    );
    let help = stdout(&rqc(&["run", "--help"]));
    for part in [
        "`none`",
        "ids='[1, 2]'",
        r#"rows='[{"id": 1, "name": "a"}]'"#,
    ] {
        assert!(help.contains(part), "{part}: {help}");
    }
}
