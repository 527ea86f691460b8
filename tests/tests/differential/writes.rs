//! The writes of the differential test: updates and deletes whose targets
//! name rows twice, keys that are gone, and rows read before an earlier
//! write of the same mutation changed or deleted them; increments of rows
//! listed twice and of keys that are gone; upserts over existing and new
//! keys, twice in one mutation, into full groups and missing references;
//! generated keys left out, given, taken, deleted and used in the same
//! mutation.

use proptest::prelude::*;
use rqc_plan::Value;
use rqc_tests::reference::Reference;

/// The updates and deletes every generated program has (with `move_a` and
/// `restamp_a`, which name the shape's columns).
pub const WRITES: &str = "\
mutation drop_b(a: Int, ns: [Int; <= 6]) = delete (ns |> map(n => B[a, n]) |> flatten())
mutation reweigh_b(a: Int, ns: [Int; <= 6], w: Int) =
  update (ns |> map(n => B[a, n]) |> flatten()) { w: w }
mutation prune_b(a: Int, w: Int) = {
  let rows = B[a];
  delete (rows |> filter(b => b.w < w));
  update rows { w: w }
}
mutation drop_a(ids: [Int; <= 6]) = delete (ids |> map(i => A[i]) |> flatten())
mutation recycle_b(a: Int, n: Int, w: Int) = { delete B[a, n]; insert B { a, n, w } }
mutation bump_b(a: Int, ns: [Int; <= 6], d: Int) =
  update (ns |> map(n => B[a, n]) |> flatten()) { w += d }
mutation scale_b(a: Int, d: Int) = update B[a] as b { w: b.w * 2 - d }
mutation put_b(a: Int, n: Int, w: Int) = upsert B { a, n, w }
mutation put_b_twice(a: Int, n: Int, w: Int, v: Int) = { upsert B { a, n, w }; upsert B { a, n, w: v } }
mutation add_n(v: Int) = insert N { v }
mutation add_n_at(id: Int) = insert N { id }
mutation drop_n(id: Int) = delete N[id]
mutation add_n_twice(v: Int) = { let k = insert N { v }; insert N { v: k } }
mutation add_d(id: Int, a: Int) = insert D { id, a }
";

/// The bound over `D.a`: the island a delete of an `A` row sets to `none`.
pub const D_BOUND: i64 = 2;

/// An update or delete, its target rows named with duplicates, missing
/// keys and (in `PruneB` and `RestampA`) rows read before an earlier write
/// of the same mutation changed or deleted them.
#[derive(Debug, Clone)]
pub enum Write {
    DropB(i64, Vec<i64>),
    ReweighB(i64, Vec<i64>, i64),
    /// Deletes the rows of `B[a]` lighter than `w`, then updates every row
    /// read before: the deleted ones are gone.
    PruneB(i64, i64),
    /// Refused (E0506) when a row it deletes is referenced by `B` rows and
    /// `B.a` does not cascade; the `D` rows naming it hold `none` after.
    DropA(Vec<i64>),
    MoveA(Vec<i64>, i64),
    /// Two updates of one row, the second through the row as read before
    /// the first.
    RestampA(i64, i64, i64),
    /// A delete then an insert of one key (the aggregates of `B` move down
    /// and up again); refused (E0503) when `A[a]` does not exist, and
    /// (E0504) when the row was not there and its group is full.
    RecycleB(i64, i64, i64),
    /// `w += d` on `B[a, n]` for each `n` listed (twice: twice stepped).
    BumpB(i64, Vec<i64>, i64),
    /// `w: b.w * 2 - d` on every row of the island `B[a]`.
    ScaleB(i64, i64),
    /// `upsert B { a, n, w }`: refused as `RecycleB` is, on its insert path.
    PutB(i64, i64, i64),
    /// Two upserts of one key: the second always updates.
    PutBTwice(i64, i64, i64, i64),
    /// `upsert A { id, c{first}: x }`: the other columns keep their values,
    /// or take their default 0.
    PutA(i64, i64),
    /// `c{first} += d` on each `A[i]` listed (the index and the aggregates
    /// grouped by it move).
    StepA(Vec<i64>, i64),
    /// `insert N { v }`: the key generated, the value the key (compared
    /// with the reference's counter, which never goes back).
    AddN(i64),
    /// `insert N { id }`: the key given (moves the counter past a larger
    /// one); refused (E0501) when taken.
    AddNAt(i64),
    /// `delete N[id]`: the counter stays.
    DropN(i64),
    /// Two generated keys in one mutation, the second row holding the first.
    AddNTwice(i64),
    /// `insert D { id, a }`: refused (E0501) when the key is taken, (E0503)
    /// when `A[a]` does not exist, (E0504) when `a` has `D_BOUND` rows.
    AddD(i64, i64),
}

impl Write {
    pub fn call(&self) -> (&'static str, Vec<Value>) {
        let list = |xs: &[i64]| Value::List(xs.iter().map(|&x| Value::Int(x)).collect());
        match self {
            Write::DropB(a, ns) => ("drop_b", vec![(*a).into(), list(ns)]),
            Write::ReweighB(a, ns, w) => ("reweigh_b", vec![(*a).into(), list(ns), (*w).into()]),
            Write::PruneB(a, w) => ("prune_b", vec![(*a).into(), (*w).into()]),
            Write::DropA(ids) => ("drop_a", vec![list(ids)]),
            Write::MoveA(ids, x) => ("move_a", vec![list(ids), (*x).into()]),
            Write::RestampA(i, x, y) => ("restamp_a", vec![(*i).into(), (*x).into(), (*y).into()]),
            Write::RecycleB(a, n, w) => ("recycle_b", vec![(*a).into(), (*n).into(), (*w).into()]),
            Write::BumpB(a, ns, d) => ("bump_b", vec![(*a).into(), list(ns), (*d).into()]),
            Write::ScaleB(a, d) => ("scale_b", vec![(*a).into(), (*d).into()]),
            Write::PutB(a, n, w) => ("put_b", vec![(*a).into(), (*n).into(), (*w).into()]),
            Write::PutBTwice(a, n, w, v) => (
                "put_b_twice",
                vec![(*a).into(), (*n).into(), (*w).into(), (*v).into()],
            ),
            Write::PutA(id, x) => ("put_a", vec![(*id).into(), (*x).into()]),
            Write::StepA(ids, d) => ("step_a", vec![list(ids), (*d).into()]),
            Write::AddN(v) => ("add_n", vec![(*v).into()]),
            Write::AddNAt(id) => ("add_n_at", vec![(*id).into()]),
            Write::DropN(id) => ("drop_n", vec![(*id).into()]),
            Write::AddNTwice(v) => ("add_n_twice", vec![(*v).into()]),
            Write::AddD(id, a) => ("add_d", vec![(*id).into(), (*a).into()]),
        }
    }

    /// The code the runtime must refuse it with, given the tables before
    /// it and `B`'s bound per `a`.
    pub fn refused(&self, reference: &Reference<'_>, bound: i64) -> Option<&'static str> {
        let a_of = |b: &Value| b.field("a").cloned();
        let b_rows = reference.tables.get("B").map(Vec::as_slice).unwrap_or(&[]);
        let a_rows = reference.tables.get("A").map(Vec::as_slice).unwrap_or(&[]);
        match self {
            Write::DropA(ids) => {
                let cascades = reference
                    .checked
                    .schema
                    .table("B")
                    .and_then(|b| b.column("a").map(|c| b.columns[c].on_delete.is_some()))
                    .unwrap_or(false);
                (!cascades
                    && ids
                        .iter()
                        .any(|&id| b_rows.iter().any(|b| a_of(b) == Some(Value::Int(id)))))
                .then_some("E0506")
            }
            Write::AddD(id, a) => {
                let d_rows = reference.tables.get("D").map(Vec::as_slice).unwrap_or(&[]);
                if d_rows
                    .iter()
                    .any(|d| d.field("id") == Some(&Value::Int(*id)))
                {
                    Some("E0501")
                } else if !a_rows
                    .iter()
                    .any(|r| r.field("id") == Some(&Value::Int(*a)))
                {
                    Some("E0503")
                } else if d_rows
                    .iter()
                    .filter(|d| d.field("a") == Some(&Value::Int(*a)))
                    .count() as i64
                    >= D_BOUND
                {
                    Some("E0504")
                } else {
                    None
                }
            }
            // A delete first: the row's own place is free again.
            Write::RecycleB(a, n, _) => inserted_b(a_rows, b_rows, *a, *n, bound, true),
            // The update path (the row is there) is never refused: its
            // reference and group are its key's.
            Write::PutB(a, n, _) | Write::PutBTwice(a, n, _, _) => {
                inserted_b(a_rows, b_rows, *a, *n, bound, false)
            }
            Write::AddNAt(id) => reference
                .tables
                .get("N")
                .is_some_and(|rows| rows.iter().any(|r| r.field("id") == Some(&Value::Int(*id))))
                .then_some("E0501"),
            // Values stay small: a step never leaves 64 bits (the extremes
            // are tests/tests/steps.rs' and the bound property's).
            _ => None,
        }
    }
}

/// The code an insert of `B[a, n]` is refused with: E0503 when `A[a]` does
/// not exist, E0504 when the row is not there (or, `replaced`, is deleted
/// first) and its group is full.
fn inserted_b(
    a_rows: &[Value],
    b_rows: &[Value],
    a: i64,
    n: i64,
    bound: i64,
    replaced: bool,
) -> Option<&'static str> {
    let group: Vec<&Value> = b_rows
        .iter()
        .filter(|b| b.field("a") == Some(&Value::Int(a)))
        .collect();
    let present = group.iter().any(|b| b.field("n") == Some(&Value::Int(n)));
    if present && !replaced {
        None
    } else if !a_rows.iter().any(|r| r.field("id") == Some(&Value::Int(a))) {
        Some("E0503")
    } else if !present && group.len() as i64 >= bound {
        Some("E0504")
    } else {
        None
    }
}

/// A random write over the rows `differential.rs` generates.
pub fn write() -> impl Strategy<Value = Write> {
    // Keys that exist and some that do not, often repeated.
    let ns = || prop::collection::vec(0i64..=6, 0..=6);
    let ids = || prop::collection::vec(0i64..=26, 0..=6);
    prop_oneof![
        (1i64..=13, ns()).prop_map(|(a, ns)| Write::DropB(a, ns)),
        (1i64..=13, ns(), -5i64..20).prop_map(|(a, ns, w)| Write::ReweighB(a, ns, w)),
        (1i64..=13, -5i64..20).prop_map(|(a, w)| Write::PruneB(a, w)),
        ids().prop_map(Write::DropA),
        (ids(), 0i64..4).prop_map(|(ids, x)| Write::MoveA(ids, x)),
        (0i64..=26, 0i64..4, 0i64..4).prop_map(|(i, x, y)| Write::RestampA(i, x, y)),
        (0i64..=14, 0i64..=6, -5i64..20).prop_map(|(a, n, w)| Write::RecycleB(a, n, w)),
        (1i64..=13, ns(), -5i64..20).prop_map(|(a, ns, d)| Write::BumpB(a, ns, d)),
        (1i64..=13, -5i64..5).prop_map(|(a, d)| Write::ScaleB(a, d)),
        (0i64..=14, 0i64..=6, -5i64..20).prop_map(|(a, n, w)| Write::PutB(a, n, w)),
        (0i64..=14, 0i64..=6, -5i64..20, -5i64..20)
            .prop_map(|(a, n, w, v)| Write::PutBTwice(a, n, w, v)),
        (0i64..=30, 0i64..4).prop_map(|(id, x)| Write::PutA(id, x)),
        (ids(), -2i64..3).prop_map(|(ids, d)| Write::StepA(ids, d)),
        (-5i64..20).prop_map(Write::AddN),
        (-3i64..=12).prop_map(Write::AddNAt),
        (0i64..=12).prop_map(Write::DropN),
        (-5i64..20).prop_map(Write::AddNTwice),
        (0i64..=8, 0i64..=14).prop_map(|(id, a)| Write::AddD(id, a)),
    ]
}
