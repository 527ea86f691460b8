//! A row's columns are read and written by position (issue 36 §2): the plans carry each column's position, the runs answer what reading by name would, and a lambda applied to rows of two tables whose column sits at different positions reads it by name. A structural record's fields are read at their names' rank.

use rqc::{Database, Value};
use rqc_plan::{Node, Op};

/// Every operator of `entry`'s plan, as its debug text.
fn operators(program: &rqc_plan::CompiledProgram, entry: &str) -> Vec<String> {
    let mut out = Vec::new();
    let root: &Node = &program.entry(entry).unwrap().root;
    root.walk(&mut |n| out.push(format!("{:?}", n.op)));
    out
}

/// Two tables that hold `name` at different positions, and reads of it.
const TWO: &str = "table A { id: Int key  name: String }
table B { id: Int key  x: Int  y: Int  name: String }
mutation add(i: Int, n: String) = {
  insert A { id: i, name: n };
  insert B { id: i, x: 1, y: 2, name: n + \"!\" };
  1
}
query names(i: Int) = {
  let name_of = r => r.name;
  [A[i] |> map(name_of), B[i] |> map(name_of)]
}
query direct(i: Int) = [A[i] |> map(r => r.name), B[i] |> map(r => r.name)]
mutation bump(i: Int) = update B[i] { y += 40 }
query b(i: Int) = B[i]
";

#[test]
fn a_lambda_over_rows_of_two_tables_reads_the_column_by_name() {
    let program = rqc_tests::accepted(TWO);
    // Written in place, each lambda reads its table's column by position.
    let direct = operators(&program, "direct").join(" ");
    assert!(direct.contains("position: 1, name: \"name\""), "{direct}");
    assert!(direct.contains("position: 3, name: \"name\""), "{direct}");
    assert!(!direct.contains("Field("), "{direct}");
    // One lambda for both tables: one body, which reads by name.
    let names = operators(&program, "names");
    assert!(names.iter().any(|op| op.starts_with("Field(")), "{names:?}");
    assert!(
        !names.iter().any(|op| op.starts_with("Column(")),
        "{names:?}"
    );

    let mut db = Database::in_memory();
    db.install(program).unwrap();
    db.run("add", &[Value::Int(7), Value::from("ann")]).unwrap();
    let both = Value::List(vec![Value::from("ann"), Value::from("ann!")]);
    for entry in ["names", "direct"] {
        let answer = db.run(entry, &[Value::Int(7)]).unwrap().value;
        assert_eq!(answer, both, "{entry}");
    }
}

#[test]
fn a_stepped_update_reads_and_writes_its_column_by_position() {
    let program = rqc_tests::accepted(TWO);
    let Op::Update { changes, .. } = &program.entry("bump").unwrap().root.op else {
        panic!("bump is an update");
    };
    assert_eq!(changes.len(), 1);
    assert_eq!(
        (changes[0].0.position, changes[0].0.name.as_str()),
        (2, "y")
    );
    let Op::Binary(_, stored, _) = &changes[0].1.op else {
        panic!("y += 40 is the row's y plus 40: {:?}", changes[0].1.op);
    };
    assert!(
        matches!(&stored.op, Op::Column(_, c) if c.position == 2),
        "{:?}",
        stored.op
    );
    let mut db = Database::in_memory();
    db.install(program).unwrap();
    db.run("add", &[Value::Int(1), Value::from("bo")]).unwrap();
    db.run("bump", &[Value::Int(1)]).unwrap();
    // The column after the change: 2 + 40, its neighbours as they were.
    let b = db.run("b", &[Value::Int(1)]).unwrap();
    let row = &b.rows()[0];
    assert_eq!(row.field("x"), Some(&Value::Int(1)));
    assert_eq!(row.field("y"), Some(&Value::Int(42)));
    assert_eq!(row.field("name"), Some(&Value::from("bo!")));
}

/// Structural records, held in the order of their names and read at a
/// name's rank: written in two orders and chosen by `if`, given as
/// arguments in another order than declared, made by `group_by`, nested,
/// and a lambda applied to records of two types (one body, by name); each
/// read finds its field, and each record is shown in its written order.
const RECORDS: &str = "
query chosen(c: Bool, x: Int) = { let r = if c { {b: x, a: 1} } else { {a: 5, b: 6} }; [r.a, r.b] }
query given(xs: [{p: Int, a: String}; <= 3]) = xs |> map(r => {v: r.p, n: r.a})
query grouped() = [{k: 1, v: 2}, {v: 3, k: 1}, {k: 2, v: 9}] |> group_by(r => r.k) |> map(g => {n: g.rows |> count(), key: g.key, s: g.rows |> map(r => r.v) |> sum()})
query nested(x: Int) = { let r = {z: {y: x, b: 1}, a: [{q: 1, p: 2}]}; [r.z.y, r.z.b, r.a |> map(e => e.p) |> sum()] }
query two_types(x: Int) = { let get_x = r => r.x; [get_x({x: x, a: 1}), get_x({b: 2, x: x + 1, a: 0})] }
";

#[test]
fn a_records_fields_are_read_by_the_rank_of_their_names() {
    let program = rqc_tests::accepted(RECORDS);
    let chosen = operators(&program, "chosen").join(" ");
    assert!(chosen.contains("position: 0, name: \"a\""), "{chosen}");
    assert!(chosen.contains("position: 1, name: \"b\""), "{chosen}");
    assert!(!chosen.contains("Field("), "{chosen}");
    // `x` is the second of `{x, a}` and the third of `{b, x, a}`: one
    // body serves both, by name.
    let two = operators(&program, "two_types");
    assert!(two.iter().any(|op| op.starts_with("Field(")), "{two:?}");

    let mut db = Database::in_memory();
    db.install(program).unwrap();
    let run =
        |entry: &str, args: &[Value]| db.run(entry, args).unwrap().value.to_json().to_string();
    assert_eq!(run("chosen", &[Value::Bool(true), Value::Int(9)]), "[1,9]");
    assert_eq!(run("chosen", &[Value::Bool(false), Value::Int(9)]), "[5,6]");
    let given: serde_json::Value =
        serde_json::from_str(r#"[{"a": "s", "p": 3}, {"p": 4, "a": "t"}]"#).unwrap();
    let given = Value::from_json(&given).unwrap();
    assert_eq!(
        run("given", &[given]),
        r#"[{"v":3,"n":"s"},{"v":4,"n":"t"}]"#
    );
    assert_eq!(
        run("grouped", &[]),
        r#"[{"n":2,"key":1,"s":5},{"n":1,"key":2,"s":9}]"#
    );
    assert_eq!(run("nested", &[Value::Int(4)]), "[4,1,2]");
    assert_eq!(run("two_types", &[Value::Int(4)]), "[4,5]");
}
