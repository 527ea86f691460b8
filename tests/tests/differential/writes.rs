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
        }
    }

    /// Whether the runtime must refuse it, given the tables before it.
    pub fn refused(&self, reference: &Reference<'_>) -> bool {
        let Write::DropA(ids) = self else {
            return false;
        };
        let a_of = |b: &Value| b.field("a").cloned();
        let b_rows = reference.tables.get("B").map(Vec::as_slice).unwrap_or(&[]);
        ids.iter()
            .any(|&id| b_rows.iter().any(|b| a_of(b) == Some(Value::Int(id))))
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
    ]
}
