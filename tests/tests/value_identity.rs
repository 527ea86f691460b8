//! Value identity end to end (spec/types.md, "Value identity"): `-0.0`, from an argument, from `-x` or from `x * -1.0`, is `0.0` everywhere a value is compared, grouped or keyed, so none of the four holes issue 33 found reopens: a bound outgrown, a kept count driven below zero, upkeep reading past its bound, a dangling reference. A record is one value in any order of its fields.
//!
//! Each scenario runs three ways of making `-0.0` (the argument itself,
//! `-x` with `x = 0.0`, `x * -1.0` with `x = 0.0`), on every embedded
//! backend, and checks `verify` after it. Page tokens and live queries
//! read through `-0.0` see the one group too.

use rqc::{Backend, Database, Error, OpenOptions, Value};

const PROGRAM: &str = "
table Item {
  id: Int key
  x: Float
  y: Int
  index by_x (x)
  bound x <= 3
}
aggregate per_x = count(Item) by x
aggregate low = min(Item.y) by x
table Pin { id: Float key }
table Link { id: Int key  target: Float ref Pin }

// The three ways of giving a write -0.0: `how` 0 takes x as given, 1
// writes -x, 2 writes x * -1.0 (the caller passes 0.0 or -0.0).
mutation put(id: Int, x: Float, how: Int <= 2) =
  insert Item { id, x: if how == 0 { x } else if how == 1 { -x } else { x * -1.0 }, y: id }
mutation shift(id: Int, x: Float, how: Int <= 2) =
  update Item[id] { x: if how == 0 { x } else if how == 1 { -x } else { x * -1.0 } }
mutation drop(id: Int) = delete Item[id]
query at(x: Float) = Item.by_x[x] |> take(3)
query kept(x: Float) = per_x[x]
query lowest(x: Float) = low[x]
query room(n: Int <= 10, x: Float) = Item.by_x[x] |> take(n - per_x[x])
table Reading { id: Int key  x: Float  index by_x (x) }
mutation reading(id: Int, x: Float, how: Int <= 2) =
  insert Reading { id, x: if how == 0 { x } else if how == 1 { -x } else { x * -1.0 } }
query page(x: Float, n: Int <= 2) = Reading.by_x[x] |> take(n)

mutation pin(id: Float) = insert Pin { id }
mutation unpin(id: Float) = delete Pin[id]
mutation link(id: Int, target: Float) = insert Link { id, target }
mutation retarget(id: Int, target: Float, how: Int <= 2) =
  update Link[id] { target: if how == 0 { target } else if how == 1 { -target } else { target * -1.0 } }
mutation unlink(id: Int) = delete Link[id]
";

/// The argument that, written the `how`-th way, is `-0.0` to IEEE
/// arithmetic: `-0.0` itself, or `0.0` negated or times `-1.0`.
fn minus_zero_by(how: i64) -> Value {
    Value::Float(if how == 0 { -0.0 } else { 0.0 })
}

fn zero() -> Value {
    Value::Float(0.0)
}

fn each_way(check: impl Fn(&Database, i64)) {
    for backend in Backend::ALL {
        for how in 0..3 {
            let dir = tempfile::tempdir().unwrap();
            let mut db = Database::open_with(
                dir.path().join("db"),
                OpenOptions {
                    backend: Some(backend),
                    ..OpenOptions::default()
                },
            )
            .unwrap();
            db.install_source("identity.rq", PROGRAM).unwrap();
            check(&db, how);
            let verified = db.verify().unwrap();
            assert!(
                verified.is_sound(),
                "{backend:?}, way {how}: {:?}",
                verified.problems
            );
        }
    }
}

fn run(db: &Database, name: &str, args: &[Value]) -> Result<rqc::Output, Error> {
    db.run(name, args)
}

fn code(result: Result<rqc::Output, Error>) -> String {
    match result {
        Err(Error::Runtime(e)) => e.code.to_string(),
        Err(other) => panic!("not a runtime error: {other}"),
        Ok(output) => panic!("expected a refusal, got {:?}", output.value),
    }
}

/// Three rows at `-0.0` moved to `0.0`, then three more at `0.0`: the
/// fourth of the group is refused (E0504), and the group's read stays
/// within its printed bound of 3 rows.
#[test]
fn a_bound_is_not_outgrown_through_minus_zero() {
    each_way(|db, how| {
        for id in 1..=3 {
            run(db, "put", &[id.into(), minus_zero_by(how), how.into()]).unwrap();
        }
        for id in 1..=3 {
            // The same value: nothing changes, and nothing is written.
            run(db, "shift", &[id.into(), zero(), 0.into()]).unwrap();
        }
        assert_eq!(code(run(db, "put", &[4.into(), zero(), 0.into()])), "E0504");
        let read = run(db, "at", &[zero()]).unwrap();
        assert_eq!(read.rows().len(), 3, "way {how}");
        assert_eq!(run(db, "kept", &[zero()]).unwrap().value, Value::Int(3));
    });
}

/// Insert at `0.0`, update to `-0.0`, delete, ten times: the kept count
/// stays 0 (it went one lower each time), so `take(n - count)` reads at
/// most `n`.
#[test]
fn a_kept_count_is_never_driven_below_zero() {
    each_way(|db, how| {
        for id in 1..=10 {
            run(db, "put", &[id.into(), zero(), 0.into()]).unwrap();
            run(db, "shift", &[id.into(), minus_zero_by(how), how.into()]).unwrap();
            run(db, "drop", &[id.into()]).unwrap();
        }
        for x in [Value::Float(0.0), Value::Float(-0.0)] {
            assert_eq!(run(db, "kept", &[x]).unwrap().value, Value::Int(0));
        }
        for id in 11..=13 {
            run(db, "put", &[id.into(), minus_zero_by(how), how.into()]).unwrap();
        }
        assert_eq!(
            run(db, "kept", &[Value::Float(0.0)]).unwrap().value,
            Value::Int(3)
        );
        let room = run(db, "room", &[10.into(), Value::Float(-0.0)]).unwrap();
        assert_eq!(room.rows().len(), 3, "way {how}");
    });
}

/// A `min` kept per group, its extreme row deleted: the upkeep reads the
/// group (at most 3 rows, its bound) and finds the next least.
#[test]
fn aggregate_upkeep_reads_within_its_bound() {
    each_way(|db, how| {
        for id in 1..=3 {
            run(db, "put", &[id.into(), minus_zero_by(how), how.into()]).unwrap();
        }
        for id in 1..=3 {
            run(db, "shift", &[id.into(), zero(), 0.into()]).unwrap();
        }
        // The group is full: a fourth row at 0.0 is refused.
        assert_eq!(code(run(db, "put", &[4.into(), zero(), 0.into()])), "E0504");
        for id in 1..=3 {
            let dropped = run(db, "drop", &[id.into()]).unwrap();
            let next = if id < 3 {
                Value::Int(id + 1)
            } else {
                Value::Null
            };
            assert_eq!(run(db, "lowest", &[zero()]).unwrap().value, next);
            assert!(dropped.stats.rows <= dropped.bound.rows, "way {how}");
            assert!(dropped.stats.seeks <= dropped.bound.seeks, "way {how}");
        }
    });
}

/// A `Float ref` retargeted from `0.0` to `-0.0` still names the same row
/// (no dangling reference, nothing to check), and once the link is gone
/// the row it named can be deleted.
#[test]
fn a_reference_never_dangles_through_minus_zero() {
    each_way(|db, how| {
        run(db, "pin", &[zero()]).unwrap();
        run(db, "link", &[1.into(), zero()]).unwrap();
        run(db, "retarget", &[1.into(), minus_zero_by(how), how.into()]).unwrap();
        // Still referenced, whichever zero names it.
        assert_eq!(code(run(db, "unpin", &[Value::Float(-0.0)])), "E0506");
        run(db, "unlink", &[1.into()]).unwrap();
        run(db, "unpin", &[Value::Float(-0.0)]).unwrap();
        // And a reference to a row that is not there is refused.
        assert_eq!(
            code(run(db, "link", &[2.into(), Value::Float(-0.0)])),
            "E0503"
        );
    });
}

/// Pages of a group read with `-0.0`: the token carries `0.0`, and the
/// pages hold each row of the group once, those written at `-0.0` too.
#[test]
fn pages_of_a_group_read_through_minus_zero_hold_each_row_once() {
    each_way(|db, how| {
        for id in 1..=5 {
            let odd = id % 2 == 1;
            let x = if odd {
                Value::Float(0.0)
            } else {
                minus_zero_by(how)
            };
            let how = if odd { 0 } else { how };
            run(db, "reading", &[id.into(), x, how.into()]).unwrap();
        }
        let pages = db.prepare("page").unwrap();
        let mut seen = Vec::new();
        let mut page = pages.run_page(&[Value::Float(-0.0), 2.into()]).unwrap();
        loop {
            for row in page.output.rows() {
                seen.push(row.field("id").cloned().unwrap());
            }
            let Some(token) = page.token.take() else {
                break;
            };
            assert!(!token.is_empty());
            page = pages.next_page(&token).unwrap();
        }
        let all: Vec<Value> = (1..=5).map(Value::Int).collect();
        assert_eq!(seen, all, "way {how}");
    });
}

/// A subscription to the group of `-0.0` hears a row written at `0.0`,
/// and one moved there by `-x`: one key range, whichever zero names it.
#[test]
fn a_live_query_by_minus_zero_hears_writes_at_zero() {
    each_way(|db, how| {
        let live = db
            .prepare("at")
            .unwrap()
            .subscribe(&[Value::Float(-0.0)])
            .unwrap();
        let wait = std::time::Duration::from_secs(10);
        let first = live.next_timeout(wait).expect("the first result");
        assert!(matches!(first, rqc::Event::Result { .. }), "{first:?}");
        run(db, "put", &[1.into(), minus_zero_by(how), how.into()]).unwrap();
        match live.next_timeout(wait) {
            Some(rqc::Event::Rows { added, removed, .. }) => {
                assert_eq!(added.len(), 1, "way {how}");
                assert!(removed.is_empty());
                assert_eq!(added[0].field("x"), Some(&Value::Float(0.0)));
            }
            other => panic!("way {how}: {other:?}"),
        }
    });
}

/// A page token forged so that its position holds `-0.0` (the bytes of
/// the same value as `0.0`, at another place in the order) is refused as
/// damaged (E0533): no page ever wrote it, and the next page would start
/// where no value is (adversary finding).
#[test]
fn a_page_token_whose_position_holds_minus_zero_is_refused() {
    let mut db = Database::in_memory();
    db.install_source("identity.rq", PROGRAM).unwrap();
    for id in 1..=4 {
        run(&db, "reading", &[id.into(), zero(), 0.into()]).unwrap();
    }
    let pages = db.prepare("page").unwrap();
    let token = pages.run_page(&[zero(), 2.into()]).unwrap().token.unwrap();
    // The position is `x` (tag 0x20, `0.0` in its ordered form) and the id.
    let zero_at = "208000000000000000";
    assert_eq!(token.matches(zero_at).count(), 1, "{token}");
    let body = &token[..token.len() - 8].replace(zero_at, "207fffffffffffffff");
    let bytes: Vec<u8> = (0..body.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&body[i..i + 2], 16).unwrap())
        .collect();
    let forged = format!("{body}{:08x}", crc32(&bytes));
    let refused = pages.next_page(&forged).unwrap_err();
    assert_eq!(refused.code(), "E0533", "{refused}");
    // The token as written still reads the rest.
    let rest = pages.next_page(&token).unwrap();
    assert_eq!(rest.output.rows().len(), 2);
}

/// CRC-32 (IEEE), as the page token's check.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A record is one value in whatever order its fields were written: `==`,
/// `contains`, `distinct` and `group_by` see one value
/// (they saw two while records were compared field by field in the order
/// each held them: `{a: 1, b: 2} == {b: 2, a: 1}` was false).
#[test]
fn a_record_is_one_value_in_any_order_of_its_fields() {
    let mut db = Database::in_memory();
    db.install_source(
        "records.rq",
        "
query same(x: Int, y: Int) = {a: x, b: y} == {b: y, a: x}
query swapped(x: Int, y: Int) = {a: x, b: y} == {b: x, a: y}
query among(x: Int, c: Bool) = [{a: x, b: 2}] |> contains(if c { {a: x, b: 2} } else { {b: 2, a: x} })
query kinds(c: Bool) = [if c { {a: 1, b: 2} } else { {b: 2, a: 1} }, {a: 1, b: 2}] |> distinct() |> count()
query groups(c: Bool) = [{k: {a: 1, b: 2}, v: 1}, {k: if c { {a: 1, b: 2} } else { {b: 2, a: 1} }, v: 2}]
  |> group_by(r => r.k) |> count()
",
    )
    .unwrap();
    let scalar = |name: &str, args: &[Value]| run(&db, name, args).unwrap().value;
    for (x, y) in [(1, 2), (-5, -5), (i64::MIN, i64::MAX)] {
        let args = [Value::Int(x), Value::Int(y)];
        assert_eq!(scalar("same", &args), Value::Bool(true), "{x}, {y}");
        assert_eq!(scalar("swapped", &args), Value::Bool(x == y), "{x}, {y}");
    }
    for c in [true, false] {
        let among = scalar("among", &[Value::Int(7), Value::Bool(c)]);
        assert_eq!(among, Value::Bool(true), "contains, c = {c}");
        assert_eq!(
            scalar("kinds", &[Value::Bool(c)]),
            Value::Int(1),
            "distinct, c = {c}"
        );
        assert_eq!(
            scalar("groups", &[Value::Bool(c)]),
            Value::Int(1),
            "group_by, c = {c}"
        );
    }
}
