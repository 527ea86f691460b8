//! A dry read-ahead pass stops with control values, not errors: at a read not made yet `Halt::Blocked` (the read noted as wanted, no call made), at a write `Halt::DryWrite` (nothing written); a batched `map` still reads its level in one round trip, and one whose function writes gives up and writes each row once.

use crate::bound::{bind_entry, Access, Tables};
use crate::halt::Halt;
use crate::interp::{Env, Interp, Val};
use crate::rows::primary_key;
use crate::session::Session;
use crate::store::{BatchRead, MemoryStore};
use rqc_plan::{
    BinOp, Bound, Column, ColumnType, Combinator, Entry, EntryKind, Node, Op, Schema, Shape,
    TableSchema, Value,
};

fn column(name: &str) -> Column {
    Column {
        name: name.into(),
        ty: ColumnType::Int,
        references: None,
        default: None,
        max_len: None,
        on_delete: None,
    }
}

/// `table t { id: Int key, v: Int }`.
fn schema() -> Schema {
    Schema {
        tables: vec![TableSchema {
            name: "t".into(),
            columns: vec![column("id"), column("v")],
            key: vec![0],
            indexes: vec![],
            bounds: vec![],
            small_max: None,
            auto: false,
            aggregates: vec![],
            lookups: Default::default(),
        }],
        lookups: Default::default(),
    }
}

/// Numbers nodes in the order given; a test's nodes are built once.
struct Nodes(u32);

impl Nodes {
    fn node(&mut self, op: Op) -> Node {
        self.0 += 1;
        Node {
            id: self.0,
            op,
            bound: None,
        }
    }

    fn int(&mut self, n: i64) -> Node {
        self.node(Op::Const(Value::Int(n)))
    }

    fn var(&mut self, name: &str) -> Node {
        self.node(Op::Var(name.into()))
    }

    /// `t[<name>]`.
    fn get(&mut self, name: &str) -> Node {
        let key = vec![self.var(name)];
        self.node(Op::Get {
            table: "t".into(),
            key,
        })
    }

    /// `insert t { id: <id>, v: <v> }`.
    fn insert(&mut self, id: Node, v: i64) -> Node {
        let row = vec![id, self.int(v)];
        self.node(Op::Insert {
            table: "t".into(),
            row,
            generated: false,
        })
    }

    /// `items |> map(<param> => body)`.
    fn map(&mut self, items: &[i64], param: &str, body: Node) -> Node {
        let items = items.iter().map(|&n| self.int(n)).collect();
        let list = self.node(Op::List(items));
        let f = self.node(Op::Lambda(vec![param.into()], Box::new(body)));
        self.node(Op::Combinator(Combinator::Map, Shape::List, vec![list, f]))
    }
}

/// A store holding rows `(1, 10)`, `(2, 20)` and `(3, 30)`, and its tables.
fn store_with_rows() -> (MemoryStore, Tables) {
    let store = MemoryStore::new();
    let tables = Tables::new(&store, &schema());
    let mut session = Session::write(&store).unwrap();
    for id in 1..=3 {
        let row = vec![Value::Int(id), Value::Int(id * 10)];
        crate::constraints::insert_row(&mut session, &tables, &tables.tables[0], row, false)
            .unwrap();
    }
    session.commit().unwrap();
    (store, tables)
}

/// What each operator of `root` accesses. The tests' free name `x` is
/// bound by the scope they evaluate in (one binding): bound here as a
/// lambda's parameter around `root`, so that it resolves to slot 0.
fn accesses(tables: &Tables, root: &Node) -> Vec<Access> {
    let root = Node {
        id: 0,
        op: Op::Lambda(vec!["x".into()], Box::new(root.clone())),
        bound: None,
    };
    let entry = Entry {
        module: "m".into(),
        name: "e".into(),
        kind: EntryKind::Query,
        params: vec![],
        bound: Bound {
            seeks: 0,
            rows: 0,
            round_trips: 0,
        },
        root,
    };
    bind_entry(tables, &entry).unwrap()
}

fn key_of(tables: &Tables, id: i64) -> Vec<u8> {
    let row = [Value::Int(id), Value::Int(0)];
    primary_key(&tables.tables[0].schema, &row).unwrap()
}

#[test]
fn a_dry_pass_stopped_at_a_read_not_made_is_blocked_with_the_read_wanted_and_no_call() {
    let (store, tables) = store_with_rows();
    let mut nodes = Nodes(0);
    let get = nodes.get("x");
    let accesses = accesses(&tables, &get);
    let mut session = Session::read(&store).unwrap();
    let mut interp = Interp::new(&tables, &accesses, &[], &mut session, None);
    let env = Env::new().bind(Val::Data(Value::Int(2)));

    interp.session.ahead.dry = true;
    let stopped = interp.eval(&get, &env);
    assert_eq!(stopped.err(), Some(Halt::Blocked));
    assert_eq!(interp.session.meter.trips, 0, "a wanted read makes no call");
    interp.session.ahead.dry = false;
    let wanted = interp.session.ahead.take_wants();
    let rows = tables.tables[0].rows;
    let key = key_of(&tables, 2);
    assert_eq!(wanted, vec![BatchRead::Get { tree: rows, key }]);

    // Wanted again and read as one batch, the next dry pass finds it.
    interp.session.ahead.dry = true;
    assert_eq!(interp.eval(&get, &env).err(), Some(Halt::Blocked));
    interp.session.ahead.dry = false;
    interp.session.read_wanted().unwrap();
    assert_eq!(interp.session.meter.trips, 1);
    interp.session.ahead.dry = true;
    let found = interp.eval(&get, &env).unwrap().data().unwrap();
    interp.session.ahead.dry = false;
    let expected = Value::record(vec![
        ("id".into(), Value::Int(2)),
        ("v".into(), Value::Int(20)),
    ]);
    assert_eq!(found, expected);
    assert_eq!(
        interp.session.meter.trips, 1,
        "answered from what was read ahead"
    );
}

#[test]
fn a_write_in_a_dry_pass_is_dry_write_and_writes_nothing() {
    let (store, tables) = store_with_rows();
    let mut nodes = Nodes(0);
    let id = nodes.int(7);
    let insert = nodes.insert(id, 70);
    let accesses = accesses(&tables, &insert);
    let mut session = Session::write(&store).unwrap();
    let mut interp = Interp::new(&tables, &accesses, &[], &mut session, None);

    interp.session.ahead.dry = true;
    let stopped = interp.eval(&insert, &Env::new());
    assert_eq!(stopped.err(), Some(Halt::DryWrite));
    // Should a dry write ever reach the session, it is a bug, said so.
    let rows = tables.tables[0].rows;
    let key = key_of(&tables, 7);
    let refused = interp.session.put(rows, &key, b"row").unwrap_err();
    assert_eq!(refused.code, "E0594");
    interp.session.ahead.dry = false;
    assert_eq!(interp.session.entries_written(), 0);
    assert_eq!(interp.session.rows_written(), 0);
    assert!(!interp.session.commits(), "nothing to commit");
    session.commit().unwrap();
    let mut reader = Session::read(&store).unwrap();
    assert_eq!(reader.get(rows, &key).unwrap(), None);
}

#[test]
fn a_batched_map_reads_its_level_in_one_round_trip() {
    let (store, tables) = store_with_rows();
    let mut nodes = Nodes(0);
    let get = nodes.get("x");
    let root = nodes.map(&[1, 2, 3], "x", get);
    let accesses = accesses(&tables, &root);
    let mut session = Session::read(&store).unwrap();
    let mut interp = Interp::new(&tables, &accesses, &[], &mut session, None);
    let found = interp.value(&root, &Env::new()).unwrap();
    let row = |id: i64| {
        Value::record(vec![
            ("id".into(), Value::Int(id)),
            ("v".into(), Value::Int(id * 10)),
        ])
    };
    assert_eq!(found, Value::List(vec![row(1), row(2), row(3)]));
    let meter = interp.session.meter;
    assert_eq!((meter.seeks, meter.rows, meter.trips), (3, 3, 1));
}

#[test]
fn a_map_whose_function_writes_gives_up_reading_ahead_and_writes_each_row_once() {
    let (store, tables) = store_with_rows();
    let mut nodes = Nodes(0);
    // let w = y => insert t { id: y + 10, v: 0 }; [1, 2] |> map(x => w(x))
    let (y, ten) = (nodes.var("y"), nodes.int(10));
    let id = nodes.node(Op::Binary(BinOp::Add, Box::new(y), Box::new(ten)));
    let insert = nodes.insert(id, 0);
    let w = nodes.node(Op::Lambda(vec!["y".into()], Box::new(insert)));
    let (callee, x) = (nodes.var("w"), nodes.var("x"));
    let call = nodes.node(Op::Apply(Box::new(callee), vec![x]));
    let map = nodes.map(&[1, 2], "x", call);
    let root = nodes.node(Op::Let("w".into(), Box::new(w), Box::new(map)));
    let accesses = accesses(&tables, &root);
    let mut session = Session::write(&store).unwrap();
    let mut interp = Interp::new(&tables, &accesses, &[], &mut session, None);
    let value = interp.value(&root, &Env::new()).unwrap();
    assert_eq!(value, Value::List(vec![Value::Int(1), Value::Int(1)]));
    assert!(!interp.session.dry());
    assert_eq!(interp.session.rows_written(), 2);
    session.commit().unwrap();
    let mut reader = Session::read(&store).unwrap();
    let rows = tables.tables[0].rows;
    for id in [11, 12] {
        assert!(reader.get(rows, &key_of(&tables, id)).unwrap().is_some());
    }
    assert_eq!(reader.range(rows, &[], None, 10).unwrap().len(), 5);
}

#[test]
fn a_control_value_that_escapes_its_pass_is_an_internal_error() {
    for halt in [Halt::Blocked, Halt::DryWrite] {
        let error = halt.into_error();
        assert_eq!(error.code, "E0594");
        assert_eq!(error.kind(), crate::error::ErrorKind::Bug);
    }
    let error = crate::error::RuntimeError::new("E0530", "integer overflow", "");
    assert_eq!(Halt::from(error.clone()).into_error(), error);
}
