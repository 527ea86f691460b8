//! A database an older rqc wrote with `-0.0` in it (made here through the store layer, since this rqc no longer writes one): `verify` names each tree holding it (E0552), and `upgrade` rewrites it as `0.0` in one transaction, or refuses, naming the keys and writing nothing, where rows would collide (E0553), a group would pass its bound (E0554) or a reference would name no row (E0555).

use rqc_plan::{Record, Value};
use rqc_runtime::encoding::key::encode_key;
use rqc_runtime::encoding::row::encode_row;
use rqc_runtime::{Backend, Engine, OpenOptions};

const PROGRAM: &str = "
table Item {
  id: Int key
  x: Float
  index by_x (x desc)
  bound x <= 3
}
aggregate per_x = count(Item) by x
table Pin { id: Float key }
table Link { id: Int key  target: Float ref Pin }
table Tag { id: Int key  w: Float unique }
mutation put(id: Int, x: Float) = insert Item { id, x }
mutation pin(id: Float) = insert Pin { id }
mutation unpin(id: Float) = delete Pin[id]
mutation link(id: Int, target: Float) = insert Link { id, target }
mutation unlink(id: Int) = delete Link[id]
mutation tag(id: Int, w: Float) = insert Tag { id, w }
query at(x: Float) = Item.by_x[x] |> take(3)
query kept(x: Float) = per_x[x]
";

/// A float no test writes otherwise, replaced by `-0.0`'s bits in the
/// encodings: what an older rqc stored for `-0.0`.
const MARK: f64 = 1234.5;

/// `bytes` with `MARK`'s encoding (in a row, little-endian; in a key,
/// order-preserving, either direction) replaced by `-0.0`'s.
fn legacy(mut bytes: Vec<u8>) -> Vec<u8> {
    let ordered = |x: f64| {
        let bits = x.to_bits();
        if bits >> 63 == 1 {
            !bits
        } else {
            bits | (1 << 63)
        }
    };
    let forms = [
        (MARK.to_le_bytes(), (-0.0f64).to_le_bytes()),
        (ordered(MARK).to_be_bytes(), ordered(-0.0).to_be_bytes()),
        (
            (!ordered(MARK)).to_be_bytes(),
            (!ordered(-0.0)).to_be_bytes(),
        ),
    ];
    for (from, to) in forms {
        if let Some(at) = bytes.windows(8).position(|w| w == from) {
            bytes[at..at + 8].copy_from_slice(&to);
        }
    }
    bytes
}

/// An entry as an older rqc stored it: its tree, its key's values
/// (ascending) and its value, `MARK` in them standing for `-0.0`.
type Legacy<'a> = (&'a str, Vec<Value>, Vec<u8>);

/// Writes `entries` as an older rqc stored them: `MARK` becomes `-0.0`.
fn write_legacy(engine: &Engine, entries: &[Legacy<'_>]) {
    let store = engine.store();
    let mut txn = store.begin_write().unwrap();
    for (tree, key, value) in entries {
        let key = legacy(encode_key(key, &[]).unwrap());
        txn.put(store.tree(tree), &key, &legacy(value.clone()))
            .unwrap();
    }
    txn.commit().unwrap();
}

fn row(values: &[Value]) -> Vec<u8> {
    encode_row(values).unwrap()
}

fn count(n: u64) -> Vec<u8> {
    n.to_be_bytes().to_vec()
}

fn mark() -> Value {
    Value::Float(MARK)
}

fn engine(backend: Backend, dir: &std::path::Path) -> Engine {
    let mut engine = Engine::open(
        &dir.join("db"),
        OpenOptions {
            backend: Some(backend),
            ..OpenOptions::default()
        },
    )
    .unwrap();
    let compilation = rqc_compiler::compile(&[("upgrade.rq".into(), PROGRAM.into())]);
    assert!(!compilation.has_errors(), "{:?}", compilation.diagnostics);
    engine.install(compilation.program).unwrap();
    engine
}

/// Item 3 at `-0.0` beside items 1 and 2 at `0.0`, each in two groups as
/// the older rqc kept them, and a link to a pin at `-0.0`.
fn legacy_state(engine: &Engine) {
    engine.run("put", &[1.into(), 0.0.into()]).unwrap();
    engine.run("put", &[2.into(), 0.0.into()]).unwrap();
    engine.run("pin", &[0.0.into()]).unwrap();
    let item = row(&[Value::Int(3), mark()]);
    let primary = encode_key(&[Value::Int(3)], &[]).unwrap();
    let mut index_key = legacy(encode_key(&[mark()], &[true]).unwrap());
    index_key.extend(primary.clone());
    let store = engine.store();
    let mut txn = store.begin_write().unwrap();
    txn.put(store.tree("t:Item"), &primary, &legacy(item.clone()))
        .unwrap();
    txn.put(store.tree("i:Item:by_x"), &index_key, &legacy(item))
        .unwrap();
    txn.commit().unwrap();
    write_legacy(
        engine,
        &[
            ("b:Item:0", vec![mark()], count(1)),
            ("a:Item:per_x", vec![mark()], row(&[Value::Int(1)])),
            ("t:Link", vec![Value::Int(1)], row(&[Value::Int(1), mark()])),
            ("r:Pin", vec![mark()], count(1)),
        ],
    );
}

#[test]
fn verify_names_each_tree_holding_minus_zero_and_upgrade_rewrites_it() {
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine(backend, dir.path());
        legacy_state(&engine);
        let found = engine.verify().unwrap();
        let trees: Vec<&String> = found
            .problems
            .iter()
            .zip(&found.codes)
            .filter(|(_, code)| **code == "E0552")
            .map(|(problem, _)| problem)
            .collect();
        for tree in [
            "t:Item",
            "i:Item:by_x",
            "b:Item:0",
            "a:Item:per_x",
            "t:Link",
            "r:Pin",
        ] {
            assert!(
                trees
                    .iter()
                    .any(|p| p.contains(&format!("tree `{tree}`")) && p.contains("-0.0")),
                "{backend:?}: {tree} not named: {:?}",
                found.problems
            );
        }
        assert!(
            trees.iter().any(|p| p.contains("(-0.0, 3)")),
            "the index entry's key is shown as stored: {trees:?}"
        );
        let upgraded = engine.upgrade().unwrap();
        assert!(!upgraded.trees.is_empty());
        let found = engine.verify().unwrap();
        assert!(found.is_sound(), "{backend:?}: {:?}", found.problems);
        // One group of three, one count, and the pin still referenced.
        assert_eq!(engine.run("at", &[0.0.into()]).unwrap().rows().len(), 3);
        assert_eq!(
            engine.run("kept", &[(-0.0).into()]).unwrap().value,
            Value::Int(3)
        );
        let full = engine.run("put", &[4.into(), 0.0.into()]).unwrap_err();
        assert_eq!(full.code, "E0504");
        assert_eq!(
            engine.run("unpin", &[0.0.into()]).unwrap_err().code,
            "E0506"
        );
        engine.run("unlink", &[1.into()]).unwrap();
        engine.run("unpin", &[0.0.into()]).unwrap();
        assert!(engine.verify().unwrap().is_sound());
        // Nothing left to do the second time.
        assert!(engine.upgrade().unwrap().trees.is_empty(), "{backend:?}");
    }
}

/// Every entry of each tree, by tree.
type Snapshot = Vec<(String, Vec<(Vec<u8>, Vec<u8>)>)>;

/// The database's entries, whole, to show an upgrade refused wrote nothing.
fn snapshot(engine: &Engine) -> Snapshot {
    let store = engine.store();
    let txn = store.begin_read().unwrap();
    [
        "t:Item",
        "i:Item:by_x",
        "b:Item:0",
        "a:Item:per_x",
        "t:Pin",
        "t:Link",
        "r:Pin",
        "t:Tag",
        "i:Tag:w",
    ]
    .iter()
    .map(|tree| {
        let entries = txn
            .range(store.tree(tree), &[], None, false, usize::MAX)
            .unwrap();
        (tree.to_string(), entries)
    })
    .collect()
}

#[test]
fn upgrade_refuses_rows_that_could_not_all_stand() {
    type Case = (&'static str, &'static str, fn(&Engine));
    let cases: [Case; 4] = [
        ("E0553", "the key (0.0)", |engine| {
            engine.run("pin", &[0.0.into()]).unwrap();
            write_legacy(engine, &[("t:Pin", vec![mark()], row(&[mark()]))]);
        }),
        ("E0553", "the unique `w` (0.0)", |engine| {
            engine.run("tag", &[1.into(), 0.0.into()]).unwrap();
            let item = row(&[Value::Int(2), mark()]);
            write_legacy(
                engine,
                &[
                    ("t:Tag", vec![Value::Int(2)], item.clone()),
                    ("i:Tag:w", vec![mark()], item),
                ],
            );
        }),
        ("E0554", "the group (0.0) would hold 4 rows", |engine| {
            for id in 1..=3 {
                engine.run("put", &[id.into(), 0.0.into()]).unwrap();
            }
            write_legacy(
                engine,
                &[
                    ("t:Item", vec![Value::Int(4)], row(&[Value::Int(4), mark()])),
                    ("b:Item:0", vec![mark()], count(1)),
                ],
            );
        }),
        ("E0555", "refers to `Pin` 0.0", |engine| {
            write_legacy(
                engine,
                &[
                    ("t:Link", vec![Value::Int(1)], row(&[Value::Int(1), mark()])),
                    ("r:Pin", vec![mark()], count(1)),
                ],
            );
        }),
    ];
    for (code, names, make) in cases {
        let engine = Engine::in_memory();
        let mut engine = engine;
        let compilation = rqc_compiler::compile(&[("upgrade.rq".into(), PROGRAM.into())]);
        engine.install(compilation.program).unwrap();
        make(&engine);
        let before = snapshot(&engine);
        let refused = engine.upgrade().unwrap_err();
        assert_eq!(refused.code, code, "{}", refused.message);
        assert!(refused.message.contains(names), "{}", refused.message);
        assert_eq!(snapshot(&engine), before, "{code}: nothing written");
        assert!(engine.verify().unwrap().codes.contains(&"E0552"));
    }
}

/// What a dump of an upgraded database holds: no `-0.0`, so it restores.
#[test]
fn a_dump_reads_a_stored_minus_zero_as_zero() {
    let mut engine = Engine::in_memory();
    let compilation = rqc_compiler::compile(&[("upgrade.rq".into(), PROGRAM.into())]);
    engine.install(compilation.program).unwrap();
    write_legacy(&engine, &[("t:Pin", vec![mark()], row(&[mark()]))]);
    let dump = engine.dump().unwrap();
    let (_, pins) = dump.tables.iter().find(|(t, _)| t == "Pin").unwrap();
    assert_eq!(
        pins,
        &vec![Value::Record(Record::new(vec![(
            "id".into(),
            Value::Float(0.0)
        )]))]
    );
    assert_eq!(pins[0].to_json().to_string(), r#"{"id":0.0}"#);
}
