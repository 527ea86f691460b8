//! The writes of the differential test: updates and deletes whose targets
//! name rows twice, keys that are gone, and rows read before an earlier
//! write of the same mutation changed or deleted them.

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
";

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
    /// Refused (E0506) when a row it deletes is referenced.
    DropA(Vec<i64>),
    MoveA(Vec<i64>, i64),
    /// Two updates of one row, the second through the row as read before
    /// the first.
    RestampA(i64, i64, i64),
    /// A delete then an insert of one key (the aggregates of `B` move down
    /// and up again); refused (E0503) when `A[a]` does not exist, and
    /// (E0504) when the row was not there and its group is full.
    RecycleB(i64, i64, i64),
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
        }
    }

    /// The code the runtime must refuse it with, given the tables before
    /// it and `B`'s bound per `a`.
    pub fn refused(&self, reference: &Reference<'_>, bound: i64) -> Option<&'static str> {
        let a_of = |b: &Value| b.field("a").cloned();
        let b_rows = reference.tables.get("B").map(Vec::as_slice).unwrap_or(&[]);
        let a_rows = reference.tables.get("A").map(Vec::as_slice).unwrap_or(&[]);
        match self {
            Write::DropA(ids) => ids
                .iter()
                .any(|&id| b_rows.iter().any(|b| a_of(b) == Some(Value::Int(id))))
                .then_some("E0506"),
            Write::RecycleB(a, n, _) => {
                let group: Vec<&Value> = b_rows
                    .iter()
                    .filter(|b| a_of(b) == Some(Value::Int(*a)))
                    .collect();
                let present = group.iter().any(|b| b.field("n") == Some(&Value::Int(*n)));
                if !a_rows
                    .iter()
                    .any(|r| r.field("id") == Some(&Value::Int(*a)))
                {
                    Some("E0503")
                } else if !present && group.len() as i64 >= bound {
                    Some("E0504")
                } else {
                    None
                }
            }
            _ => None,
        }
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
    ]
}
