//! Updates computed from the row (`as r`, `c += e`, `c -= e`) end to end on every backend (the embedded stores and etcd): increments at the extremes of `Int` and `Float` (an overflow refuses the whole mutation, E0530/E0538, or an aggregate's sum, E0526), a row listed twice stepped twice, every row of an island bound in turn, a bound's group and an index moved by values read from the row, and changes that write the row they are computed from — each run within its bound, every index, counter and aggregate equal to what the rows imply after it.

use rqc_plan::Value;
use rqc_tests::stores::{each_store, Db};

const PROGRAM: &str = "
table Counter {
  id: Int key
  n: Int
  x: Float
  g: Int
  index by_g (g, n)
  bound g <= 3
}
aggregate total = sum(Counter.n) by g
aggregate most = max(Counter.n) by g

mutation add(id: Int, n: Int, x: Float, g: Int) = insert Counter { id, n, x, g }
mutation step(id: Int, d: Int) = update Counter[id] { n += d }
mutation unstep(id: Int, d: Int) = update Counter[id] { n -= d }
mutation heat(id: Int, d: Float) = update Counter[id] { x += d }
mutation cool(id: Int, d: Float) = update Counter[id] { x -= d }
mutation step_listed(ids: [Int; <= 6], d: Int) =
  update (ids |> map(i => Counter[i]) |> flatten()) { n += d }
mutation step_group(g: Int, d: Int) = update Counter.by_g[g] as r { n: r.n * 2 + d }
mutation add_then_step(id: Int, n: Int, g: Int, d: Int) = {
  insert Counter { id, n, x: 0.0, g };
  update Counter[id] { n += d }
}
// The row's own values move it to another group and index entry.
mutation swap(id: Int) = update Counter[id] as r { n: r.g, g: r.n }
// Changes that write the row they are computed from: it is read again
// before it is rewritten (spec/cost.md §7).
mutation self_write(id: Int, d: Int) =
  update Counter[id] as r { n: { update Counter[id] { g: r.g + 1, x: 1.5 }; r.n + d } }
mutation self_delete(id: Int) = update Counter[id] as r { n: { delete Counter[id]; r.n + 1 } }
// Rows read before earlier writes of the mutation: each is bound as it
// is when the update reaches it (stepped by the first write, or gone).
mutation stale_then_step(g: Int, id: Int) = {
  let rows = Counter.by_g[g];
  update Counter[id] { n += 100 };
  delete Counter[id + 1];
  update rows as r { n: r.n + 1 }
}
query get(id: Int) = Counter[id]
query sum_of(g: Int) = total[g]
query most_of(g: Int) = most[g]
";

fn field(db: &Db, id: i64, name: &str) -> Value {
    let row = db.value("get", &[id.into()]);
    row.field(name)
        .cloned()
        .unwrap_or_else(|| panic!("{}: no row {id}: {row}", db.on))
}

fn add(db: &Db, id: i64, n: i64, x: f64, g: i64) {
    db.value("add", &[id.into(), n.into(), Value::Float(x), g.into()]);
}

#[test]
fn an_int_step_past_either_end_refuses_the_mutation() {
    each_store(PROGRAM, |db| {
        add(&db, 1, i64::MAX - 1, 0.0, 1);
        add(&db, 2, i64::MIN + 1, 0.0, 2);
        assert_eq!(db.value("step", &[1.into(), 1.into()]), Value::Int(1));
        assert_eq!(field(&db, 1, "n"), Value::Int(i64::MAX));
        assert_eq!(db.refused("step", &[1.into(), 1.into()]), "E0530");
        assert_eq!(db.refused("unstep", &[1.into(), (-1).into()]), "E0530");
        assert_eq!(db.refused("step", &[1.into(), i64::MAX.into()]), "E0530");
        assert_eq!(db.value("unstep", &[2.into(), 1.into()]), Value::Int(1));
        assert_eq!(field(&db, 2, "n"), Value::Int(i64::MIN));
        assert_eq!(db.refused("unstep", &[2.into(), 1.into()]), "E0530");
        assert_eq!(db.refused("step", &[2.into(), i64::MIN.into()]), "E0530");
        // `-= i64::MIN` is `+ 2^63`: past the end from 0.
        add(&db, 3, 0, 0.0, 3);
        assert_eq!(db.refused("unstep", &[3.into(), i64::MIN.into()]), "E0530");
        assert_eq!(
            db.value("step", &[3.into(), i64::MIN.into()]),
            Value::Int(1)
        );
        assert_eq!(
            db.value("unstep", &[3.into(), i64::MIN.into()]),
            Value::Int(1)
        );
        assert_eq!(field(&db, 3, "n"), Value::Int(0));
        // A step of 0 changes nothing, and writes nothing.
        let none = db.run("step", &[1.into(), 0.into()]).unwrap();
        assert_eq!((none.value, none.written), (Value::Int(0), 0));
        assert_eq!(db.value("sum_of", &[1.into()]), Value::Int(i64::MAX));
        assert_eq!(db.value("most_of", &[2.into()]), Value::Int(i64::MIN));
    });
}

#[test]
fn a_step_that_takes_a_sum_past_64_bits_is_refused_by_the_aggregate() {
    each_store(PROGRAM, |db| {
        add(&db, 1, i64::MAX, 0.0, 1);
        add(&db, 2, 0, 0.0, 1);
        // Each row fits; their sum would not (E0526), and nothing is written.
        assert_eq!(db.refused("step", &[2.into(), 1.into()]), "E0526");
        assert_eq!(db.value("unstep", &[2.into(), 5.into()]), Value::Int(1));
        assert_eq!(db.value("sum_of", &[1.into()]), Value::Int(i64::MAX - 5));
        // The insert before a refused step is undone with it.
        assert_eq!(
            db.refused(
                "add_then_step",
                &[3.into(), 1.into(), 1.into(), i64::MAX.into()]
            ),
            "E0530"
        );
        assert_eq!(db.value("get", &[3.into()]), Value::Null);
    });
}

#[test]
fn a_float_step_past_the_largest_float_is_refused_and_zero_stays_positive() {
    each_store(PROGRAM, |db| {
        add(&db, 1, 0, 1e308, 1);
        assert_eq!(
            db.refused("heat", &[1.into(), Value::Float(1e308)]),
            "E0538"
        );
        assert_eq!(
            db.refused("cool", &[1.into(), Value::Float(-1e308)]),
            "E0538"
        );
        assert_eq!(
            db.value("cool", &[1.into(), Value::Float(1e308)]),
            Value::Int(1)
        );
        // 0.0 - 0.0 and 0.0 + -0.0 are 0.0 (never -0.0).
        assert_eq!(
            db.value("cool", &[1.into(), Value::Float(0.0)]),
            Value::Int(0)
        );
        db.value("heat", &[1.into(), Value::Float(-0.0)]);
        let x = field(&db, 1, "x");
        assert!(
            matches!(x, Value::Float(v) if v == 0.0 && v.is_sign_positive()),
            "{}: {x:?}",
            db.on
        );
        db.value("heat", &[1.into(), Value::Float(0.25)]);
        assert_eq!(field(&db, 1, "x"), Value::Float(0.25));
    });
}

#[test]
fn a_row_listed_twice_is_stepped_twice_and_an_island_row_by_row() {
    each_store(PROGRAM, |db| {
        add(&db, 1, 1, 0.0, 1);
        add(&db, 2, 2, 0.0, 1);
        add(&db, 3, 3, 0.0, 1);
        // Each listing sees the previous one's result; a missing key is skipped.
        assert_eq!(
            db.value("step_listed", &[ids(&[1, 1, 2, 9]), 5.into()]),
            Value::Int(3)
        );
        assert_eq!(field(&db, 1, "n"), Value::Int(11));
        assert_eq!(field(&db, 2, "n"), Value::Int(7));
        // The island `by_g[1]`: each row doubled from its own value.
        assert_eq!(db.value("step_group", &[1.into(), 1.into()]), Value::Int(3));
        assert_eq!(field(&db, 1, "n"), Value::Int(23));
        assert_eq!(field(&db, 2, "n"), Value::Int(15));
        assert_eq!(field(&db, 3, "n"), Value::Int(7));
        assert_eq!(db.value("sum_of", &[1.into()]), Value::Int(45));
        assert_eq!(db.value("most_of", &[1.into()]), Value::Int(23));
        // An overflow on the last row read (`by_g` is in `n` order) undoes
        // the first two.
        db.value("step", &[3.into(), (i64::MAX / 2 + 1 - 7).into()]);
        let before = db.tables();
        assert_eq!(db.refused("step_group", &[1.into(), 0.into()]), "E0530");
        assert_eq!(before, db.tables());
    });
}

#[test]
fn values_read_from_the_row_move_its_bound_group_and_index_entry() {
    each_store(PROGRAM, |db| {
        add(&db, 1, 2, 0.0, 1);
        add(&db, 2, 2, 0.0, 2);
        add(&db, 3, 7, 0.0, 2);
        add(&db, 4, 9, 0.0, 2);
        // Row 1 goes to group 2, which is full (`bound g <= 3`): refused.
        assert_eq!(db.refused("swap", &[1.into()]), "E0504");
        // Row 3 goes to group 7 with n = 2: group 2 has room again.
        assert_eq!(db.value("swap", &[3.into()]), Value::Int(1));
        assert_eq!(field(&db, 3, "g"), Value::Int(7));
        assert_eq!(field(&db, 3, "n"), Value::Int(2));
        assert_eq!(db.value("swap", &[1.into()]), Value::Int(1));
        assert_eq!(db.value("sum_of", &[2.into()]), Value::Int(2 + 9 + 1));
        assert_eq!(db.value("sum_of", &[7.into()]), Value::Int(2));
    });
}

#[test]
fn changes_that_write_their_own_row_are_applied_to_the_row_as_it_is_then() {
    each_store(PROGRAM, |db| {
        add(&db, 1, 10, 0.0, 1);
        // The nested update moves the row to group 2 and sets x; the outer
        // one computes n from the row as it was read (10) and rewrites the
        // row as the nested update left it.
        assert_eq!(db.value("self_write", &[1.into(), 5.into()]), Value::Int(1));
        assert_eq!(field(&db, 1, "n"), Value::Int(15));
        assert_eq!(field(&db, 1, "g"), Value::Int(2));
        assert_eq!(field(&db, 1, "x"), Value::Float(1.5));
        assert_eq!(db.value("sum_of", &[1.into()]), Value::Int(0));
        assert_eq!(db.value("sum_of", &[2.into()]), Value::Int(15));
        // The nested delete takes the row: the outer update finds it gone.
        assert_eq!(db.value("self_delete", &[1.into()]), Value::Int(0));
        assert_eq!(db.value("get", &[1.into()]), Value::Null);
        assert_eq!(db.value("sum_of", &[2.into()]), Value::Int(0));
    });
}

fn ids(ids: &[i64]) -> Value {
    Value::List(ids.iter().map(|&i| Value::Int(i)).collect())
}

#[test]
fn rows_read_before_earlier_writes_are_bound_as_they_are_then() {
    each_store(PROGRAM, |db| {
        add(&db, 1, 10, 0.0, 1);
        add(&db, 2, 20, 0.0, 1);
        add(&db, 3, 30, 0.0, 1);
        // Row 1 stepped by 100 first, row 2 deleted: the update binds row 1
        // as stepped (111), skips row 2, and steps row 3 (31).
        assert_eq!(
            db.value("stale_then_step", &[1.into(), 1.into()]),
            Value::Int(2)
        );
        assert_eq!(field(&db, 1, "n"), Value::Int(111));
        assert_eq!(db.value("get", &[2.into()]), Value::Null);
        assert_eq!(field(&db, 3, "n"), Value::Int(31));
        assert_eq!(db.value("sum_of", &[1.into()]), Value::Int(142));
        assert_eq!(db.value("most_of", &[1.into()]), Value::Int(111));
    });
}
