//! No string past 16 MiB (`rqc_cost::MAX_STRING_BYTES`) gets in: every cost bound counts a string's work as at most that long, so an argument (E0522), a loaded or written row (E0576) and a literal (E0458) holding a longer one are refused, and one exactly at it is taken (an adversary stored 400 MB values with `rqc load` and passed 100 MB arguments, and a comparison the bound counted as 4,096 steps ran for minutes).

use rqc::{Database, Value};
use rqc_compiler::cost::MAX_STRING_BYTES;

const PROGRAM: &str = "
table Doc { id: Int key  body: String }
mutation put(id: Int, body: String) = insert Doc { id: id, body: body }
query size(id: Int) = Doc[id] |> map(d => length(d.body))
query echo(s: String) = length(s)
query shout(id: Int) = Doc[id] |> map(d => length(upper(d.body)))
query first_of(xs: [String; <= 3]) = xs |> map(x => length(x))
";

fn text(bytes: u64) -> String {
    "a".repeat(bytes as usize)
}

#[test]
fn arguments_and_rows_past_16_mib_are_refused_and_at_it_taken() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(dir.path().join("db")).unwrap();
    db.install_source("docs.rq", PROGRAM).unwrap();
    let at = Value::Str(text(MAX_STRING_BYTES));
    let past = Value::Str(text(MAX_STRING_BYTES + 1));

    // Arguments: alone or inside a list.
    let refused = db.run("echo", std::slice::from_ref(&past)).unwrap_err();
    assert_eq!(refused.code(), "E0522", "{refused:?}");
    let list = Value::List(vec![Value::Str("x".into()), past.clone()]);
    assert_eq!(db.run("first_of", &[list]).unwrap_err().code(), "E0522");
    let echoed = db.run("echo", std::slice::from_ref(&at)).unwrap();
    assert_eq!(echoed.value, Value::Int(MAX_STRING_BYTES as i64));

    // Rows: a load is refused whole, the row at the limit is taken.
    let report = db
        .load(
            "Doc",
            vec![
                vec![Value::Int(1), at.clone()],
                vec![Value::Int(2), past.clone()],
            ],
        )
        .unwrap();
    assert_eq!(report.written, 0, "a refused row keeps the whole load out");
    assert_eq!(report.rejected.len(), 1);
    assert_eq!(report.rejected[0].0, 2, "the second row is the one refused");
    assert_eq!(report.rejected[0].1.code, "E0576");
    let report = db
        .load("Doc", vec![vec![Value::Int(1), at.clone()]])
        .unwrap();
    assert_eq!(report.written, 1);
    let size = db.run("size", &[Value::Int(1)]).unwrap();
    assert_eq!(size.value, Value::Int(MAX_STRING_BYTES as i64));
    // A case mapping may lengthen a string: past the limit it is refused.
    let widening = "\u{390}".repeat(MAX_STRING_BYTES as usize / 2);
    db.load("Doc", vec![vec![Value::Int(2), Value::Str(widening)]])
        .unwrap();
    let shouted = db.run("shout", &[Value::Int(2)]).unwrap_err();
    assert_eq!(shouted.code(), "E0539", "{shouted:?}");
    assert!(db.verify().unwrap().is_sound());
}

/// A default past 16 MiB would be read from every row a column added
/// with it holds (and a restore of their dump refused): refused in the
/// source (E0458) and in a plan file's schema (E0613), nothing installed.
#[test]
fn a_default_past_16_mib_is_refused_in_the_source_and_in_a_plan() {
    let source = |default: &str| {
        format!("table U {{ id: Int key  s: String = \"{default}\" }}\nquery u(id: Int) = U[id]\n")
    };
    let long = rqc_compiler::compile(&[("u.rq".to_string(), source(&text(MAX_STRING_BYTES + 1)))]);
    assert!(long.diagnostics.iter().any(|d| d.code == "E0458"));
    // The same schema as a plan whose default was lengthened by hand.
    let mut program = rqc_compiler::compile(&[("u.rq".to_string(), source("mark"))]).program;
    let column = &mut program.schema.tables[0].columns[1];
    column.default = Some(rqc_plan::Literal::String(text(MAX_STRING_BYTES + 1)));
    let refused = rqc_runtime::verifier::verify(&program).unwrap_err();
    assert_eq!(refused.code, "E0613", "{refused:?}");
    assert!(refused.message.contains("any string may hold"));
}

#[test]
fn a_literal_past_16_mib_is_refused_where_it_is_written() {
    let long = format!(
        "query q() = length(\"{}\")\nquery fine() = length(\"ok\")\n",
        text(MAX_STRING_BYTES + 1)
    );
    let compiled = rqc_compiler::compile(&[("long.rq".to_string(), long)]);
    let verdict = |name: &str| compiled.checked.verdict(name).unwrap().accepted;
    assert!(!verdict("q"), "the long literal's query is refused");
    assert!(verdict("fine"), "the rest of the program stands");
    let refusal = compiled
        .diagnostics
        .iter()
        .find(|d| d.code == "E0458")
        .expect("E0458 where the literal is");
    assert!(refusal
        .message
        .contains(&format!("{} bytes", MAX_STRING_BYTES + 1)));
}
