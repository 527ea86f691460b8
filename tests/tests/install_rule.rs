//! The installation rule through the library: a sound shape installs the accepted entry points and reports the rejected ones as warnings; a broken shape installs nothing.
//!
//! The same rule through the `rqc` binary is tested in `cli/tests/cli/main.rs`.

use rqc::{Database, Error, Value};

const ITEMS: &str = "table Item { id: Int key  name: String }
mutation add(id: Int, name: String) = insert Item { id: id, name: name }
query item(id: Int) = Item[id]
";

fn code(error: &Error) -> &str {
    error.code()
}

#[test]
fn rejected_definitions_come_back_as_warnings_and_the_rest_runs() {
    let mut db = Database::in_memory();
    let source = format!(
        "{ITEMS}query broken(id: Int) = Item[id].nmae\nquery missing(k: Int) = Missing[k]\n"
    );
    let installed = db.install_source("app.rq", &source).unwrap();
    // Both rejected definitions are named, with their diagnostics.
    let short: Vec<&str> = installed
        .rejected
        .iter()
        .map(|full| full.rsplit('.').next().unwrap())
        .collect();
    assert_eq!(short, ["broken", "missing"]);
    assert!(installed.is_rejected("broken") && installed.is_rejected("missing"));
    assert!(!installed.is_rejected("item"));
    let codes: Vec<&str> = installed.warnings.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["E0202", "E0201"]);
    assert_eq!(installed.errors(), 2);
    assert!(!installed.is_clean());
    let text = installed.render(false);
    assert!(
        text.contains("nothing named `Missing` is in scope"),
        "{text}"
    );
    assert!(text.contains("did you mean `name`?"), "{text}");

    // The accepted entry points run.
    db.run("add", &[1.into(), "lamp".into()]).unwrap();
    let found = db.run("item", &[1.into()]).unwrap();
    assert_eq!(found.rows()[0].field("name"), Some(&Value::from("lamp")));
    // A rejected one does not, and the refusal says it was rejected.
    let refused = db.run("broken", &[1.into()]).unwrap_err();
    assert_eq!(code(&refused), "E0521");
    assert!(
        refused.to_string().contains("`broken` was rejected"),
        "{refused}"
    );
    assert!(db.prepare("missing").is_err());
}

#[test]
fn a_clean_program_reports_nothing() {
    let mut db = Database::in_memory();
    let installed = db.install_source("app.rq", ITEMS).unwrap();
    assert!(installed.is_clean());
    assert!(installed.rejected.is_empty());
    assert_eq!(installed.errors(), 0);
}

#[test]
fn a_broken_shape_is_an_error_and_installs_nothing() {
    let mut db = Database::in_memory();
    db.install_source("app.rq", ITEMS).unwrap();
    db.run("add", &[1.into(), "lamp".into()]).unwrap();
    // A table without a key (E0204): the accepted-looking query beside it
    // is not installed either.
    let broken = format!("{ITEMS}table Loose {{ a: Int }}\nquery other(id: Int) = Item[id]\n");
    let error = db.install_source("app.rq", &broken).unwrap_err();
    let Error::Compile { diagnostics, .. } = &error else {
        panic!("expected a compile error, got {error}");
    };
    assert_eq!(diagnostics[0].code, "E0204");
    assert_eq!(code(&error), "E0204");
    // The program installed before is still the one that runs.
    assert!(db.prepare("other").is_err());
    let found = db.run("item", &[1.into()]).unwrap();
    assert_eq!(found.rows().len(), 1);

    // A syntax error is a broken shape too.
    let error = db
        .install_source("app.rq", &format!("{ITEMS}query q(k Int) = Item[k]\n"))
        .unwrap_err();
    assert_eq!(code(&error), "E0101");
}
