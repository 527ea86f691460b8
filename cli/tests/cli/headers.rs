//! Compile and runtime errors share one header, `[CODE] Error: …`, coloured alike under `--color` (and uncoloured under `NO_COLOR` or `TERM=dumb`), from `rqc run`, `rqc load` and the REPL.

use super::{rqc, rqc_command, stderr, stdout, write, APP};

/// ariadne's colour for an error's header.
const RED: &str = "\u{1b}[31m";

/// A second lamp, refused by `Item.name`'s uniqueness, run with `color`.
fn second_lamp(db: &str, app: &str, color: &str) -> String {
    let out = rqc(&[
        "--color",
        color,
        "run",
        "--db",
        db,
        app,
        "add",
        "--arg",
        "id=2",
        "--arg",
        "name=lamp",
        "--arg",
        "price=5",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    stderr(&out)
}

#[test]
fn a_runtime_error_has_the_header_and_the_colour_of_a_compile_error() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let db = dir.path().join("db").display().to_string();
    super::add_lamp("lmdb", &db, &app);

    let plain = second_lamp(&db, &app, "never");
    assert!(
        plain.starts_with("[E0502] Error: `Item.name` is unique"),
        "{plain}"
    );
    assert!(plain.contains("\n  Help: "), "{plain}");
    assert!(!plain.contains('\u{1b}'), "{plain}");
    // Piped, by default: no colour.
    assert_eq!(second_lamp(&db, &app, "auto"), plain);

    let coloured = second_lamp(&db, &app, "always");
    assert!(
        coloured.starts_with(&format!("{RED}[E0502] Error:")),
        "{coloured:?}"
    );
    // As a compile error's header is drawn.
    let bad = write(dir.path(), "bad.rq", "query q() = Nowhere\n");
    let compile = stderr(&rqc(&["--color", "always", "check", &bad]));
    assert!(
        compile.starts_with(&format!("{RED}[E0201] Error:")),
        "{compile:?}"
    );
    let compile_plain = stderr(&rqc(&["--color", "never", "check", &bad]));
    assert!(
        compile_plain.starts_with("[E0201] Error: "),
        "{compile_plain}"
    );

    // `TERM=dumb` and a non-empty `NO_COLOR` ask for none; `--color
    // always` still colours, as it does compile errors.
    for (variable, value) in [("TERM", "dumb"), ("NO_COLOR", "1")] {
        let out = rqc_command(&["run", "--db", &db, &app, "add"])
            .args(["--arg", "id=2", "--arg", "name=lamp", "--arg", "price=5"])
            .env(variable, value)
            .output()
            .unwrap();
        assert_eq!(stderr(&out), plain, "{variable}={value}");
    }
}

#[test]
fn load_refusals_and_the_repl_use_the_same_header() {
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", APP);
    let db = dir.path().join("db").display().to_string();
    super::add_lamp("lmdb", &db, &app);

    let rows = write(
        dir.path(),
        "rows.jsonl",
        "{\"id\": 3, \"name\": \"lamp\", \"price\": 1}\n",
    );
    let load = |color: &str| {
        stderr(&rqc(&[
            "--color", color, "load", "--db", &db, &app, "Item", &rows,
        ]))
    };
    let plain = load("never");
    assert!(
        plain.starts_with(&format!("[E0502] Error: {rows}:1: ")),
        "{plain}"
    );
    assert!(
        load("always").starts_with(&format!("{RED}[E0502] Error:")),
        "{}",
        load("always")
    );

    let repl = |color: &str| {
        let out = super::rqc_with_input(
            &["--color", color, "repl", "--db", &db, &app],
            "add(4, \"lamp\", 1)\n",
        );
        stdout(&out)
    };
    let plain = repl("never");
    assert!(
        plain.starts_with("[E0502] Error: `Item.name` is unique"),
        "{plain}"
    );
    assert!(plain.contains("\n  Help: "), "{plain}");
    let coloured = repl("always");
    assert!(
        coloured.starts_with(&format!("{RED}[E0502] Error:")),
        "{coloured:?}"
    );
}
