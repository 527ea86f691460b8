//! A row read decodes only the columns its plan uses where every use takes a column (`bound::Access::columns`): which reads are projected, and that every query answers as it would with the whole row.

use rqc::{Database, OpenOptions, Value};
use rqc_runtime::bound::{bind_entry, Tables};
use rqc_runtime::store::MemoryStore;

const PROGRAM: &str = "
table User { id: Int key  handle: String unique  name: String  bio: String  score: Float  age: Int }

// A column of the read itself.
query name_of(id: Int) = User[id].name
// A column of a unique index's read.
query age_by_handle(h: String) = User.handle[h].age
// Columns of the name a let binds the read to, one inside a lambda.
query summed(id: Int) = { let u = User[id]; [1, 2] |> map(x => x + unwrap_or(u.age, 0)) |> sum() }
query two_columns(id: Int) = { let u = User[id]; { n: u.name, s: u.score } }
// The read used whole: no projection.
query whole(id: Int) = User[id]
query whole_and_column(id: Int) = { let u = User[id]; { row: u, age: u.age } }
// A name shadowed by another let: the inner `u` is not the read.
query shadowed(id: Int) = { let u = User[id]; let v = u.age; let u = { age: 7 }; v + u.age }

mutation add(id: Int, h: String, n: String, b: String, s: Float, a: Int) =
  insert User { id, handle: h, name: n, bio: b, score: s, age: a }
";

/// The columns each entry's row reads decode, by entry name: for each
/// read (in node order) `None` for the whole row, else the wanted columns.
fn projections() -> Vec<(String, Vec<Option<Vec<usize>>>)> {
    let compiled = rqc_compiler::compile(&[("p.rq".to_string(), PROGRAM.to_string())]);
    assert!(!compiled.has_errors(), "{:?}", compiled.diagnostics);
    let store = MemoryStore::new();
    let tables = Tables::new(&store, &compiled.program.schema);
    compiled
        .program
        .entries
        .iter()
        .map(|entry| {
            let accesses = bind_entry(&tables, entry).unwrap();
            let mut reads = Vec::new();
            entry.root.walk(&mut |node| {
                if matches!(
                    node.op,
                    rqc_plan::Op::Get { .. } | rqc_plan::Op::GetUnique { .. }
                ) {
                    let columns = accesses[node.id as usize]
                        .columns
                        .as_ref()
                        .map(|wanted| (0..wanted.len()).filter(|&c| wanted[c]).collect::<Vec<_>>());
                    reads.push(columns);
                }
            });
            (entry.name.clone(), reads)
        })
        .collect()
}

#[test]
fn reads_whose_every_use_takes_a_column_are_projected() {
    let found = projections();
    let of = |name: &str| {
        found
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, reads)| reads.clone())
            .unwrap()
    };
    // Columns: id 0, handle 1, name 2, bio 3, score 4, age 5.
    assert_eq!(of("name_of"), vec![Some(vec![2])]);
    assert_eq!(of("age_by_handle"), vec![Some(vec![5])]);
    assert_eq!(of("summed"), vec![Some(vec![5])]);
    assert_eq!(of("two_columns"), vec![Some(vec![2, 4])]);
    assert_eq!(of("whole"), vec![None]);
    assert_eq!(of("whole_and_column"), vec![None]);
    assert_eq!(of("shadowed"), vec![Some(vec![5])]);
}

#[test]
fn projected_reads_answer_as_whole_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open_with(dir.path(), OpenOptions::default()).unwrap();
    db.install_source("p.rq", PROGRAM).unwrap();
    let add = |db: &Database, id: i64, h: &str, score: f64, age: i64| {
        db.run(
            "add",
            &[
                Value::Int(id),
                Value::Str(h.into()),
                Value::Str(format!("name {id}")),
                Value::Str("é".repeat(40)),
                Value::Float(score),
                Value::Int(age),
            ],
        )
        .unwrap();
    };
    add(&mut db, 1, "ann", -0.0, 30);
    add(&mut db, 2, "bob", 2.5, -4);
    let run = |db: &Database, name: &str, arg: Value| db.run(name, &[arg]).unwrap().value;
    let whole = |db: &Database, id: i64| run(db, "whole", Value::Int(id));
    for id in [1, 2, 3] {
        let row = whole(&mut db, id);
        let column = |name: &str| match &row {
            Value::Record(record) => record.get(name).cloned().unwrap(),
            _ => Value::Null,
        };
        assert_eq!(run(&mut db, "name_of", Value::Int(id)), column("name"));
        let handle = match column("handle") {
            Value::Str(h) => h,
            _ => "nobody".into(),
        };
        assert_eq!(
            run(&mut db, "age_by_handle", Value::Str(handle)),
            column("age")
        );
        let summed = match column("age") {
            Value::Int(a) => Value::Int(2 * a + 3),
            _ => Value::Int(3),
        };
        assert_eq!(run(&mut db, "summed", Value::Int(id)), summed);
        match run(&mut db, "two_columns", Value::Int(id)) {
            Value::Record(record) => {
                assert_eq!(record.get("n").cloned().unwrap(), column("name"));
                assert_eq!(record.get("s").cloned().unwrap(), column("score"));
            }
            other => panic!("a record, not {other:?}"),
        }
        match run(&mut db, "whole_and_column", Value::Int(id)) {
            Value::Record(record) => {
                assert_eq!(record.get("row").cloned().unwrap(), row);
                assert_eq!(record.get("age").cloned().unwrap(), column("age"));
            }
            other => panic!("a record, not {other:?}"),
        }
    }
    // The stored row is whole: the projection only reads less of it.
    let Value::Record(ann) = whole(&mut db, 1) else {
        panic!("ann's row")
    };
    assert_eq!(ann.get("bio").cloned(), Some(Value::Str("é".repeat(40))));
    assert_eq!(run(&mut db, "shadowed", Value::Int(1)), Value::Int(37));
}
