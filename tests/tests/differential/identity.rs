//! Value identity in the differential test: a table keyed, grouped and bounded by a `Float` and a unique `String`, written with both zeros (`-0.0` given, `-x`, `x * -1.0`), the extremes of each type, a `Float` argument spelled as an `Int` (`1` for `1.0`) and strings that differ only in Unicode normalisation. rqc and the reference evaluator must agree on every write's value and refusal and on every read, within its bound, and rqc must never answer `-0.0`.
//!
//! Which writes are refused is predicted from the rows with IEEE `==`
//! (which, on finite floats, is exactly spec/types.md's "same value": the
//! two zeros are one, nothing else merges) and byte equality of strings.

use proptest::prelude::*;
use rqc_plan::Value;
use rqc_runtime::Engine;
use rqc_tests::reference::Reference;

/// The part of every generated program this module writes and reads.
pub const PROGRAM: &str = "
table F {
  id: Int key
  x: Float
  s: String <= 8 unique
  index by_x (x)
  bound x <= 2
}
aggregate f_count = count(F) by x
aggregate f_low = min(F.id) by x
mutation add_f(id: Int, x: Float, s: String) = insert F { id, x, s }
mutation set_f(id: Int, x: Float, how: Int <= 2) =
  update F[id] { x: if how == 0 { x } else if how == 1 { -x } else { x * -1.0 } }
mutation drop_f(id: Int) = delete F[id]
query f_at(x: Float) = F.by_x[x] |> take(2)
query f_counted(x: Float) = f_count[x]
query f_least(x: Float) = f_low[x]
query f_s(s: String) = F.s[s]
query f_arith(x: Float) = [-x, x * -1.0, 0.0 - x, x / -5.0, x % -1.0]
";

/// Floats every case draws from: both zeros, the extremes, and values
/// that an `Int` argument can spell.
pub const FLOATS: [f64; 10] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    f64::MIN,
    f64::MAX,
    f64::MIN_POSITIVE,
    5e-324,
    -5e-324,
    2.5,
];

/// Strings: precomposed and decomposed `é` (two values), the empty
/// string, the last code point, a NUL.
pub const STRINGS: [&str; 6] = ["\u{e9}", "e\u{301}", "", "\u{10FFFF}", "a\0", "a"];

#[derive(Debug, Clone)]
pub enum Op {
    /// `add_f(id, FLOATS[x], STRINGS[s])`, the float spelled as an `Int`
    /// when `as_int` and it is a whole number.
    Add(i64, usize, usize, bool),
    /// `set_f(id, FLOATS[x], how)`: the column becomes `x`, `-x` or
    /// `x * -1.0`.
    Set(i64, usize, i64, bool),
    Drop(i64),
}

pub fn op() -> impl Strategy<Value = Op> {
    let id = 1i64..=5;
    let x = 0..FLOATS.len();
    prop_oneof![
        3 => (id.clone(), x.clone(), 0..STRINGS.len(), any::<bool>())
            .prop_map(|(i, x, s, n)| Op::Add(i, x, s, n)),
        3 => (id.clone(), x, 0i64..=2, any::<bool>()).prop_map(|(i, x, h, n)| Op::Set(i, x, h, n)),
        1 => id.prop_map(Op::Drop),
    ]
}

/// Every form once: both zeros through all three spellings, a group
/// filled through `-0.0` and refused at `0.0`, both `é`s, an `Int` for a
/// `Float`.
pub fn every_form() -> Vec<Op> {
    vec![
        Op::Add(1, 1, 0, false),
        Op::Add(2, 0, 1, true),
        Op::Add(3, 0, 2, false),
        Op::Set(1, 0, 1, false),
        Op::Set(2, 0, 2, false),
        Op::Add(3, 2, 0, true),
        Op::Add(4, 2, 2, true),
        Op::Set(4, 2, 1, false),
        Op::Drop(1),
        Op::Add(5, 7, 5, false),
        Op::Set(5, 7, 2, false),
        Op::Set(5, 4, 1, false),
    ]
}

/// The argument rqc gets for `x`: the float, or the `Int` that spells it.
fn float_arg(x: f64, as_int: bool) -> Value {
    if as_int && x.fract() == 0.0 && x.abs() < 1e15 && !(x == 0.0 && x.is_sign_negative()) {
        Value::Int(x as i64)
    } else {
        Value::Float(x)
    }
}

/// The rows of `F` the reference holds: `(id, x, s)`.
fn rows(reference: &Reference<'_>) -> Vec<(i64, f64, String)> {
    reference
        .tables
        .get("F")
        .into_iter()
        .flatten()
        .map(
            |row| match (row.field("id"), row.field("x"), row.field("s")) {
                (Some(Value::Int(id)), Some(Value::Float(x)), Some(Value::Str(s))) => {
                    (*id, *x, s.clone())
                }
                other => panic!("a row of F: {other:?}"),
            },
        )
        .collect()
}

/// The code rqc must refuse `op` with, from the rows as they are.
fn refusal(op: &Op, rows: &[(i64, f64, String)]) -> Option<&'static str> {
    let in_group = |x: f64, except: i64| rows.iter().filter(|r| r.1 == x && r.0 != except).count();
    match *op {
        Op::Add(id, x, s, _) => {
            if rows.iter().any(|r| r.0 == id) {
                Some("E0501")
            } else if rows.iter().any(|r| r.2.as_bytes() == STRINGS[s].as_bytes()) {
                Some("E0502")
            } else if in_group(FLOATS[x], id) >= 2 {
                Some("E0504")
            } else {
                None
            }
        }
        Op::Set(id, x, how, _) => {
            // `-x` and `x * -1.0` are the same float (both IEEE).
            let new = if how == 0 { FLOATS[x] } else { -FLOATS[x] };
            match rows.iter().find(|r| r.0 == id) {
                Some(row) if row.1 != new && in_group(new, id) >= 2 => Some("E0504"),
                _ => None,
            }
        }
        Op::Drop(_) => None,
    }
}

fn call(op: &Op) -> (&'static str, Vec<Value>, Vec<Value>) {
    match *op {
        Op::Add(id, x, s, as_int) => {
            let rest = vec![Value::Str(STRINGS[s].into())];
            let rqc = [vec![id.into(), float_arg(FLOATS[x], as_int)], rest.clone()].concat();
            let reference = [vec![id.into(), Value::Float(FLOATS[x])], rest].concat();
            ("add_f", rqc, reference)
        }
        Op::Set(id, x, how, as_int) => (
            "set_f",
            vec![id.into(), float_arg(FLOATS[x], as_int), how.into()],
            vec![id.into(), Value::Float(FLOATS[x]), how.into()],
        ),
        Op::Drop(id) => ("drop_f", vec![id.into()], vec![id.into()]),
    }
}

/// Whether `value` holds a `-0.0` anywhere.
fn holds_minus_zero(value: &Value) -> bool {
    match value {
        Value::Float(x) => x.to_bits() == (-0.0f64).to_bits(),
        Value::List(items) => items.iter().any(holds_minus_zero),
        Value::Record(record) => record.values().iter().any(holds_minus_zero),
        _ => false,
    }
}

fn within_bound(output: &rqc_runtime::Output) -> bool {
    output.stats.seeks <= output.bound.seeks
        && output.stats.rows <= output.bound.rows
        && output.stats.round_trips <= output.bound.round_trips
}

/// Runs `ops` on rqc and the reference, then every read for every pool
/// value; how many writes committed.
pub fn run(
    engine: &Engine,
    reference: &mut Reference<'_>,
    ops: &[Op],
) -> Result<usize, TestCaseError> {
    let mut committed = 0;
    for op in ops {
        let (name, args, reference_args) = call(op);
        let refused = refusal(op, &rows(reference));
        match engine.run(name, &args) {
            Ok(output) => {
                prop_assert!(
                    refused.is_none(),
                    "{:?} was not refused ({:?})",
                    op,
                    refused
                );
                let expected = reference.run(name, &reference_args);
                prop_assert_eq!(&output.value, &expected, "rqc vs reference: {:?}", op);
                prop_assert!(
                    within_bound(&output),
                    "{:?}: {:?} over {:?}",
                    op,
                    output.stats,
                    output.bound
                );
                committed += 1;
            }
            Err(error) => prop_assert_eq!(Some(error.code), refused, "{:?}: {}", op, error),
        }
    }
    for (i, x) in FLOATS.iter().enumerate() {
        for name in ["f_at", "f_counted", "f_least", "f_arith"] {
            let args = [float_arg(*x, i % 2 == 0)];
            let output = engine.run(name, &args).unwrap();
            let expected = reference.run(name, &[Value::Float(*x)]);
            prop_assert_eq!(
                &output.value,
                &expected,
                "rqc vs reference: {}({:?})",
                name,
                x
            );
            prop_assert!(
                !holds_minus_zero(&output.value),
                "{}({:?}) answered -0.0: {:?}",
                name,
                x,
                output.value
            );
            prop_assert!(
                within_bound(&output),
                "{}: {:?} over {:?}",
                name,
                output.stats,
                output.bound
            );
        }
    }
    for s in STRINGS {
        let args = [Value::Str(s.into())];
        let output = engine.run("f_s", &args).unwrap();
        let expected = reference.run("f_s", &args);
        prop_assert_eq!(&output.value, &expected, "rqc vs reference: f_s({:?})", s);
    }
    Ok(committed)
}
