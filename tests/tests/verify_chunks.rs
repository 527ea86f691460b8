//! Tables past two chunks (4,096 entries each): `verify` reads each tree a chunk at a time (what it holds of a table is one chunk, not the table), and finds a table and its index damaged by hand in the later chunks through the store layer wrong entry by entry — an index entry missing, one without a row, one holding another row, a reference naming no row; an install's migrations read a table a chunk at a time too, and give what they gave reading it whole (back-fills, rewrites, recounts; refusals decided by a row in the last chunk, or by the whole table's count).

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

fn compiled(source: &str) -> rqc_plan::CompiledProgram {
    let compilation = rqc_compiler::compile(&[("chunks.rq".into(), source.into())]);
    assert!(!compilation.has_errors(), "{:?}", compilation.diagnostics);
    compilation.program
}

/// Runs `add` over ids `0..ROWS`, a thousand records (`record` of each
/// id) per call, then `after` with that call's first id.
fn add_rows(
    engine: &Engine,
    record: impl Fn(i64) -> Vec<(&'static str, rqc_plan::Value)>,
    mut after: impl FnMut(i64),
) {
    for start in (0..ROWS).step_by(1000) {
        let rows = (start..start + 1000)
            .map(|id| {
                let fields = record(id).into_iter().map(|(n, v)| (n.to_string(), v));
                rqc_plan::Value::record(fields.collect())
            })
            .collect();
        engine.run("add", &[rqc_plan::Value::List(rows)]).unwrap();
        after(start);
    }
}

fn engine() -> Engine {
    let mut engine = Engine::in_memory();
    engine.install(compiled(PROGRAM)).unwrap();
    add_rows(
        &engine,
        |id| vec![("id", id.into()), ("g", (id % 97).into())],
        |start| {
            let ids = (start..start + 1000).map(Into::into).collect();
            engine.run("link", &[rqc_plan::Value::List(ids)]).unwrap();
        },
    );
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

/// `Item` as each install declares it: `head` (`table Item`, `small
/// table Item max n`), its columns after the key and `g`, then `rest`
/// (aggregates, entry points).
fn items(head: &str, columns: &str, rest: &str) -> String {
    format!("{head} {{ id: Int key  g: Int  {columns} }}\n{rest}\nquery item(id: Int) = Item[id]\n")
}

const TABLE: &str = "table Item";
const V1_COLUMNS: &str = "name: String  legacy: Int";

/// The row whose name is longest (40 bytes), in the table's last chunk.
const LONG: i64 = ROWS - 1;

fn name_of(id: i64) -> String {
    if id == LONG {
        "x".repeat(40)
    } else {
        format!("n{id}")
    }
}

/// `ROWS` rows of `Item`, `g` = id mod 97: groups 0 to 8 hold 104 rows,
/// the others 103; `legacy` = -id.
fn items_engine() -> Engine {
    let mut engine = Engine::in_memory();
    let add = "mutation add(rows: [{ id: Int, g: Int, name: String, legacy: Int }; <= 1000]) =
  rows |> map(r => insert Item { id: r.id, g: r.g, name: r.name, legacy: r.legacy }) |> count()";
    engine
        .install(compiled(&items(TABLE, V1_COLUMNS, add)))
        .unwrap();
    add_rows(
        &engine,
        |id| {
            vec![
                ("id", id.into()),
                ("g", (id % 97).into()),
                ("name", name_of(id).into()),
                ("legacy", (-id).into()),
            ]
        },
        |_| {},
    );
    engine
}

fn refused(engine: &mut Engine, source: &str) -> String {
    match engine.install(compiled(source)) {
        Err(e) => {
            assert_eq!(e.code, "E0510", "{}", e.message);
            e.message
        }
        Ok(()) => panic!("installed:\n{source}"),
    }
}

fn run(engine: &Engine, name: &str, arg: i64) -> rqc_plan::Value {
    engine.run(name, &[arg.into()]).unwrap().value
}

fn field(value: &rqc_plan::Value, name: &str) -> Option<rqc_plan::Value> {
    value.field(name).cloned()
}

fn sound(engine: &Engine) {
    let verified = engine.verify().unwrap();
    assert!(verified.is_sound(), "{:?}", verified.problems);
    assert_eq!(verified.rows, ROWS as u64);
}

#[test]
fn migrations_read_a_table_past_several_chunks_as_they_read_it_whole() {
    let mut engine = items_engine();
    // Refused whole: a length bound that only the last chunk's row breaks
    // (the longest value named), a max below the count of every chunk, a
    // bound over a group spread across every chunk, a unique index over
    // values found again in later chunks.
    let refusals = [
        (
            items(TABLE, "name: String <= 20  legacy: Int", ""),
            "`Item.name` would hold at most 20 bytes, but a stored value has 40".to_string(),
        ),
        (
            items(
                &format!("small table Item max {}", ROWS - 1),
                V1_COLUMNS,
                "",
            ),
            format!("`Item` holds {ROWS} rows, more than `max {}`", ROWS - 1),
        ),
        (
            items(
                TABLE,
                &format!("{V1_COLUMNS}  index by_g (g)  bound g <= 103"),
                "",
            ),
            "the new `bound g <= 103` on `Item` is broken by 0 (104 rows)".to_string(),
        ),
        (
            items(TABLE, &format!("{V1_COLUMNS}  unique (g)"), ""),
            "the new unique index `Item.g` finds 0 twice".to_string(),
        ),
    ];
    for (source, expected) in refusals {
        let message = refused(&mut engine, &source);
        assert_eq!(
            message,
            format!("the program changes the installed schema incompatibly: {expected}")
        );
        sound(&engine);
    }
    assert_eq!(
        field(&run(&engine, "item", LONG), "score"),
        None,
        "nothing written"
    );

    // Accepted: an index and a unique one back-filled, a column with a
    // default (every row rewritten), a bound and a max that hold, an
    // aggregate recounted.
    let queries = "aggregate per_g = count(Item) by g
aggregate legacy_of = sum(Item.legacy) by g
query by_g(g: Int) = Item.by_g[g] |> take(200)
query count_of(g: Int) = per_g[g]
query legacy_sum(g: Int) = legacy_of[g]";
    let v2 = items(
        &format!("small table Item max {ROWS}"),
        "name: String <= 40 unique  legacy: Int  score: Int = 7  index by_g (g)  bound g <= 104",
        queries,
    );
    engine.install(compiled(&v2)).unwrap();
    sound(&engine);
    let answers = |engine: &Engine, name: &str| {
        for g in [0, 5, 96] {
            let rows = engine.run("by_g", &[g.into()]).unwrap().rows().to_vec();
            let ids: Vec<i64> = (0..ROWS).filter(|id| id % 97 == g).collect();
            assert_eq!(rows.len(), ids.len());
            for (row, id) in rows.iter().zip(&ids) {
                assert_eq!(field(row, "id"), Some((*id).into()));
                assert_eq!(field(row, name), Some(name_of(*id).into()));
                assert_eq!(field(row, "score"), Some(7.into()));
            }
            assert_eq!(run(engine, "count_of", g), (ids.len() as i64).into());
            assert_eq!(
                run(engine, "legacy_sum", g),
                (-ids.iter().sum::<i64>()).into()
            );
        }
        assert_eq!(
            field(&run(engine, "item", LONG), name),
            Some(name_of(LONG).into())
        );
    };
    answers(&engine, "name");

    // A column renamed (its unique index built again from the rows) and
    // one dropped (every row rewritten without it), once the aggregate
    // over it is dropped.
    let queries = queries
        .replace("aggregate legacy_of = sum(Item.legacy) by g\n", "")
        .replace("query legacy_sum(g: Int) = legacy_of[g]", "");
    let flags = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    let v2 = v2
        .replace("aggregate legacy_of = sum(Item.legacy) by g\n", "")
        .replace("query legacy_sum(g: Int) = legacy_of[g]", "");
    engine
        .install_dropping(compiled(&v2), &flags(&["aggregate:legacy_of"]))
        .unwrap();
    let v3 = items(
        &format!("small table Item max {ROWS}"),
        "title: String <= 40 unique  score: Int = 7  index by_g (g)  bound g <= 104",
        &queries,
    );
    let flags = flags(&["rename:Item.name=title", "drop:Item.legacy"]);
    engine.install_dropping(compiled(&v3), &flags).unwrap();
    sound(&engine);
    let item = run(&engine, "item", LONG);
    assert_eq!(field(&item, "title"), Some(name_of(LONG).into()));
    assert_eq!(field(&item, "legacy"), None);
    assert_eq!(field(&item, "score"), Some(7.into()));
    let rows = engine.run("by_g", &[50.into()]).unwrap().rows().len();
    assert_eq!(rows, 103);
}
