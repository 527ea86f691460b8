//! `verify` reads each tree a chunk at a time (what it holds of a table is one chunk, not the table): a table and its index past two chunks, damaged by hand in the later ones through the store layer, is found wrong entry by entry — an index entry missing, one without a row, one holding another row, a reference naming no row.

use rqc_runtime::store::salvage_all;
use rqc_runtime::Engine;

const PROGRAM: &str = "
table T {
  id: Int key
  g: Int
  index by_g (g)
}
table Link {
  id: Int key
  target: Int ref T
}
mutation add(rows: [{ id: Int, g: Int }; <= 1000]) =
  rows |> map(r => insert T { id: r.id, g: r.g }) |> count()
mutation link(ids: [Int; <= 1000]) =
  ids |> map(i => insert Link { id: i, target: i }) |> count()
";

/// Rows past two of `verify`'s chunks (4,096 entries each).
const ROWS: i64 = 10_000;

fn engine() -> Engine {
    let mut engine = Engine::in_memory();
    let compilation = rqc_compiler::compile(&[("chunks.rq".into(), PROGRAM.into())]);
    assert!(!compilation.has_errors(), "{:?}", compilation.diagnostics);
    engine.install(compilation.program).unwrap();
    for start in (0..ROWS).step_by(1000) {
        let rows = (start..start + 1000)
            .map(|id| {
                rqc_plan::Value::record(vec![
                    ("id".into(), id.into()),
                    ("g".into(), (id % 97).into()),
                ])
            })
            .collect();
        engine.run("add", &[rqc_plan::Value::List(rows)]).unwrap();
        let ids = (start..start + 1000).map(Into::into).collect();
        engine.run("link", &[rqc_plan::Value::List(ids)]).unwrap();
    }
    engine
}

#[test]
fn a_table_past_several_chunks_is_checked_entry_by_entry() {
    let engine = engine();
    let sound = engine.verify().unwrap();
    assert!(sound.is_sound(), "{:?}", sound.problems);
    assert_eq!(sound.rows, 2 * ROWS as u64);

    let store = engine.store();
    let index = store.tree("i:T:by_g");
    let entries: Vec<(Vec<u8>, Vec<u8>)> = {
        let txn = store.begin_read().unwrap();
        salvage_all(txn.as_ref(), index)
            .unwrap()
            .into_iter()
            .map(|(k, v)| (k, v.unwrap()))
            .collect()
    };
    assert_eq!(entries.len(), ROWS as usize);
    let mut txn = store.begin_write().unwrap();
    // Missing, in the second chunk; holding another row, in the third;
    // one more entry, without a row.
    txn.delete(index, &entries[5_000].0).unwrap();
    txn.put(index, &entries[9_000].0, &entries[9_001].1)
        .unwrap();
    let mut extra = entries[7_000].0.clone();
    extra.push(0);
    txn.put(index, &extra, &entries[7_000].1).unwrap();
    // A referenced row gone, its key in the last chunk of the table: its
    // index entry is then one more without a row.
    let rows = store.tree("t:T");
    let last_row = {
        let read = store.begin_read().unwrap();
        salvage_all(read.as_ref(), rows).unwrap().pop().unwrap().0
    };
    txn.delete(rows, &last_row).unwrap();
    txn.commit().unwrap();

    let found = engine.verify().unwrap();
    let problems = found.problems.join("\n");
    assert!(
        problems.contains(
            "index `T.by_g`: 1 entries missing, 2 without a row, 1 holding another row than the table"
        ),
        "{problems}"
    );
    assert!(
        problems.contains("`T`: 1 referenced rows are missing"),
        "{problems}"
    );
    assert_eq!(found.rows, 2 * ROWS as u64 - 1);
}
