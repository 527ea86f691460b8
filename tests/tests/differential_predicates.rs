//! Differential testing of the predicates over indexes: `key in xs` (lists
//! with repeats, missing keys, extreme values), `starts_with` over a String
//! key range (prefixes with `\0`, multi-byte and top-of-Unicode characters,
//! the empty prefix, a descending column after an equality prefix) and the
//! union `a || b` of two index reads. Random data and writes through `in`
//! (rows named twice, keys that are gone) run on rqc and on the reference
//! evaluator, which must agree on values and tables, with every index and
//! counter equal to the rows; each query runs on rqc, the reference
//! evaluator and SQLite, which must agree, within the static bound.
//!
//! `RQC_DIFF_CASES` sets the number of generated cases (default 32).

use proptest::prelude::*;
use rqc_compiler::compile;
use rqc_plan::Value;
use rqc_runtime::{Backend, Durability, Engine, OpenOptions};
use rqc_tests::reference::Reference;
use rqc_tests::state::{check_integrity, reference_tables, store_tables};
use rusqlite::types::Value as Sql;

const PROGRAM: &str = "\
table S {
  name: String <= 64 key
  g: Int
  n: Int
  index by_g (g, name desc)
}
table A {
  id: Int key
  f: Int
  t: Int
  index by_f (f, id)
  index by_t (t, id)
}
mutation add_s(name: String, g: Int, n: Int) = insert S { name, g, n }
mutation add_a(id: Int, f: Int, t: Int) = insert A { id, f, t }
mutation drop_s(names: [String; <= 6]) = delete S[name in names]
mutation bump_a(ids: [Int; <= 6], t: Int) = update A[id in ids] { t: t }
";

const SQL_SCHEMA: [&str; 2] = [
    "CREATE TABLE S (name TEXT PRIMARY KEY, g INTEGER, n INTEGER)",
    "CREATE TABLE A (id INTEGER PRIMARY KEY, f INTEGER, t INTEGER)",
];

/// The parameters every generated query takes.
const PARAMS: &str = "x: Int, y: Int, p: String, ids: [Int; <= 6], names: [String; <= 6]";

/// A text built from characters whose encodings test the key's escaping:
/// `\0` (escaped in a key), a byte below and above it, two- and four-byte
/// characters, the last character of Unicode.
fn text(max: usize) -> impl Strategy<Value = String> {
    let ch = prop_oneof![
        Just('a'),
        Just('b'),
        Just('\0'),
        Just('\u{1}'),
        Just('é'),
        Just('\u{7f}'),
        Just('\u{10FFFF}'),
    ];
    prop::collection::vec(ch, 0..=max).prop_map(|cs| cs.into_iter().collect())
}

/// A literal element of an `in` list: a parameter or a constant.
#[derive(Debug, Clone)]
enum Elem {
    X,
    Y,
    Lit(i64),
}

#[derive(Debug, Clone)]
enum Query {
    /// `A[id in ids]`.
    Ids,
    /// `A[id in [x, y, 3, …]]`.
    Literal(Vec<Elem>),
    /// `S[name in names]`.
    Names,
    /// `S[starts_with(name, p)] |> take(t)`.
    Prefix(i64),
    /// `S.by_g[x, starts_with(name, p)] |> take(t)`: after an equality
    /// prefix, over a descending column.
    PrefixDesc(i64),
    /// `A.by_f[x] |> take(t1) || A.by_t[y] |> take(t2)`.
    Union(i64, i64),
    /// `A[x] || A[y]`.
    UnionLookups,
}

impl Query {
    fn rql(&self) -> String {
        let elem = |e: &Elem| match e {
            Elem::X => "x".to_string(),
            Elem::Y => "y".to_string(),
            Elem::Lit(n) if *n < 0 => format!("({n})"),
            Elem::Lit(n) => n.to_string(),
        };
        let body = match self {
            Query::Ids => "A[id in ids]".to_string(),
            Query::Literal(items) => format!(
                "A[id in [{}]]",
                items.iter().map(elem).collect::<Vec<_>>().join(", ")
            ),
            Query::Names => "S[name in names]".to_string(),
            Query::Prefix(t) => format!("S[starts_with(name, p)] |> take({t})"),
            Query::PrefixDesc(t) => format!("S.by_g[x, starts_with(name, p)] |> take({t})"),
            Query::Union(t1, t2) => {
                format!("A.by_f[x] |> take({t1}) || A.by_t[y] |> take({t2})")
            }
            Query::UnionLookups => "A[x] || A[y]".to_string(),
        };
        format!("query q({PARAMS}) = {body}\n")
    }

    /// The same in SQL, with its parameters.
    fn sql(&self, args: &Args) -> (String, Vec<Sql>) {
        let a = "id, f, t";
        // SQLite compares TEXT by its bytes; as BLOBs, `\0` is a byte too.
        let blob = "CAST(name AS BLOB)";
        // Compared as hex: an empty BLOB's `substr` is an empty TEXT.
        let prefix =
            format!("hex(substr({blob}, 1, length(CAST(?1 AS BLOB)))) = hex(CAST(?1 AS BLOB))");
        let in_order = |column: &str, values: &[Sql]| {
            // Each row once, in the order of its first occurrence.
            let marks = vec!["?"; values.len().max(1)].join(", ");
            let cases: String = (0..values.len())
                .map(|i| format!(" WHEN ? THEN {i}"))
                .collect();
            let mut params = values.to_vec();
            if values.is_empty() {
                params.push(Sql::Null);
            }
            params.extend(values.iter().cloned());
            let order = if values.is_empty() {
                "1".to_string()
            } else {
                format!("CASE {column}{cases} END")
            };
            (
                format!("WHERE {column} IN ({marks}) ORDER BY {order}"),
                params,
            )
        };
        match self {
            Query::Ids | Query::Literal(_) => {
                let ids: Vec<Sql> = match self {
                    Query::Ids => args.ids.iter().map(|&i| Sql::Integer(i)).collect(),
                    Query::Literal(items) => items
                        .iter()
                        .map(|e| {
                            Sql::Integer(match e {
                                Elem::X => args.x,
                                Elem::Y => args.y,
                                Elem::Lit(n) => *n,
                            })
                        })
                        .collect(),
                    _ => unreachable!(),
                };
                let (tail, params) = in_order("id", &ids);
                (format!("SELECT {a} FROM A {tail}"), params)
            }
            Query::Names => {
                let names: Vec<Sql> = args.names.iter().map(|n| Sql::Text(n.clone())).collect();
                let (tail, params) = in_order("name", &names);
                (format!("SELECT name, g, n FROM S {tail}"), params)
            }
            Query::Prefix(t) => (
                format!("SELECT name, g, n FROM S WHERE {prefix} ORDER BY {blob} LIMIT {t}"),
                vec![Sql::Text(args.p.clone())],
            ),
            Query::PrefixDesc(t) => (
                format!(
                    "SELECT name, g, n FROM S WHERE g = ?2 AND {prefix} ORDER BY {blob} DESC LIMIT {t}"
                ),
                vec![Sql::Text(args.p.clone()), Sql::Integer(args.x)],
            ),
            Query::Union(t1, t2) => (
                format!(
                    "WITH l AS (SELECT {a}, row_number() OVER (ORDER BY id) AS r FROM A WHERE f = ?1 ORDER BY id LIMIT {t1}), \
                     m AS (SELECT {a}, row_number() OVER (ORDER BY id) AS r FROM A WHERE t = ?2 ORDER BY id LIMIT {t2}) \
                     SELECT {a} FROM (SELECT {a}, 0 AS side, r FROM l \
                     UNION ALL SELECT {a}, 1, r FROM m WHERE id NOT IN (SELECT id FROM l)) ORDER BY side, r"
                ),
                vec![Sql::Integer(args.x), Sql::Integer(args.y)],
            ),
            Query::UnionLookups => (
                format!(
                    "SELECT {a} FROM (SELECT {a}, 0 AS side FROM A WHERE id = ?1 \
                     UNION ALL SELECT {a}, 1 FROM A WHERE id = ?2 AND id != ?1) ORDER BY side"
                ),
                vec![Sql::Integer(args.x), Sql::Integer(args.y)],
            ),
        }
    }
}

#[derive(Debug, Clone)]
struct Args {
    x: i64,
    y: i64,
    p: String,
    ids: Vec<i64>,
    names: Vec<String>,
}

impl Args {
    fn values(&self) -> Vec<Value> {
        vec![
            Value::Int(self.x),
            Value::Int(self.y),
            Value::Str(self.p.clone()),
            Value::List(self.ids.iter().map(|&i| Value::Int(i)).collect()),
            Value::List(self.names.iter().map(|n| Value::Str(n.clone())).collect()),
        ]
    }
}

#[derive(Debug, Clone)]
enum Write {
    DropS(Vec<String>),
    BumpA(Vec<i64>, i64),
}

#[derive(Debug, Clone, Copy)]
enum On {
    Disk(Backend),
    Etcd,
}

#[derive(Debug, Clone)]
struct Case {
    backend: On,
    s_rows: Vec<(String, i64, i64)>,
    a_rows: Vec<(i64, i64)>,
    writes: Vec<Write>,
    queries: Vec<(Query, Args)>,
}

fn query() -> impl Strategy<Value = Query> {
    let elem = prop_oneof![
        Just(Elem::X),
        Just(Elem::Y),
        (-2i64..8).prop_map(Elem::Lit),
        Just(Elem::Lit(i64::MAX)),
        Just(Elem::Lit(i64::MIN + 1)),
    ];
    prop_oneof![
        Just(Query::Ids),
        prop::collection::vec(elem, 1..6).prop_map(Query::Literal),
        Just(Query::Names),
        (1i64..6).prop_map(Query::Prefix),
        (1i64..6).prop_map(Query::PrefixDesc),
        (1i64..5, 1i64..5).prop_map(|(a, b)| Query::Union(a, b)),
        Just(Query::UnionLookups),
    ]
}

fn args() -> impl Strategy<Value = Args> {
    (
        -1i64..8,
        -1i64..8,
        text(2),
        prop::collection::vec(-1i64..10, 0..=6),
        prop::collection::vec(text(3), 0..=6),
    )
        .prop_map(|(x, y, p, ids, names)| Args {
            x,
            y,
            p,
            ids,
            names,
        })
}

fn write() -> impl Strategy<Value = Write> {
    prop_oneof![
        prop::collection::vec(text(3), 0..=6).prop_map(Write::DropS),
        (prop::collection::vec(-1i64..10, 0..=6), 0i64..4)
            .prop_map(|(ids, t)| Write::BumpA(ids, t)),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    let backend = prop_oneof![
        Just(On::Disk(Backend::Memory)),
        Just(On::Disk(Backend::Sled)),
        Just(On::Disk(Backend::Redb)),
        Just(On::Disk(Backend::Lmdb)),
        Just(On::Etcd),
    ];
    (
        backend,
        prop::collection::vec((text(3), 0i64..3, -5i64..5), 0..30),
        prop::collection::vec((0i64..4, 0i64..4), 0..12),
        prop::collection::vec(write(), 0..4),
        prop::collection::vec((query(), args()), 1..8),
    )
        .prop_map(|(backend, s_rows, a_rows, writes, queries)| Case {
            backend,
            s_rows,
            a_rows,
            writes,
            queries,
        })
}

fn sqlite_value(v: rusqlite::types::ValueRef<'_>) -> Value {
    match v {
        rusqlite::types::ValueRef::Integer(i) => Value::Int(i),
        rusqlite::types::ValueRef::Text(t) => Value::Str(String::from_utf8(t.to_vec()).unwrap()),
        rusqlite::types::ValueRef::Null => Value::Null,
        other => panic!("unexpected SQLite value {other:?}"),
    }
}

fn sqlite_rows(db: &rusqlite::Connection, sql: &str, params: Vec<Sql>) -> Value {
    let mut statement = db.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let names: Vec<String> = statement.column_names().map(|n| n.to_string()).collect();
    let rows: Vec<Value> = statement
        .query_map(rusqlite::params_from_iter(params), |row| {
            Ok(Value::Record(
                names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| (n.clone(), sqlite_value(row.get_ref(i).unwrap())))
                    .collect(),
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    Value::List(rows)
}

fn within(stats: &rqc_runtime::Stats, bound: &rqc_plan::Bound) -> bool {
    stats.seeks <= bound.seeks && stats.rows <= bound.rows && stats.round_trips <= bound.round_trips
}

/// Runs one case; returns how many queries were compared.
fn run_case(case: &Case) -> Result<usize, TestCaseError> {
    let mut source = PROGRAM.to_string();
    for (i, (query, _)) in case.queries.iter().enumerate() {
        source.push_str(&query.rql().replacen("query q(", &format!("query q{i}("), 1));
    }
    let compilation = compile(&[("pred.rq".to_string(), source.clone())]);
    prop_assert!(
        compilation.diagnostics.is_empty(),
        "a generated program was not accepted:\n{source}\n{:?}",
        compilation.diagnostics
    );
    let dir = tempfile::tempdir().unwrap();
    let mut engine = match case.backend {
        On::Disk(backend) => {
            let options = OpenOptions {
                backend: Some(backend),
                durability: Durability::None,
                ..OpenOptions::default()
            };
            Engine::open(&dir.path().join("db"), options).unwrap()
        }
        On::Etcd => rqc_tests::etcd::engine(),
    };
    engine.install(compilation.program.clone()).unwrap();
    let schema = &compilation.program.schema;
    let mut reference = Reference::new(&compilation.checked);

    let mut inserts: Vec<(&str, Vec<Value>)> = Vec::new();
    for (name, g, n) in &case.s_rows {
        inserts.push((
            "add_s",
            vec![Value::Str(name.clone()), Value::Int(*g), Value::Int(*n)],
        ));
    }
    for (i, (f, t)) in case.a_rows.iter().enumerate() {
        inserts.push((
            "add_a",
            vec![Value::Int(i as i64), Value::Int(*f), Value::Int(*t)],
        ));
    }
    for (entry, args) in inserts {
        // A repeated name is refused (the key exists) and left out.
        if engine.run(entry, &args).is_ok() {
            reference.run(entry, &args);
        }
    }
    for write in &case.writes {
        let (entry, args) = match write {
            Write::DropS(names) => (
                "drop_s",
                vec![Value::List(
                    names.iter().map(|n| Value::Str(n.clone())).collect(),
                )],
            ),
            Write::BumpA(ids, t) => (
                "bump_a",
                vec![
                    Value::List(ids.iter().map(|&i| Value::Int(i)).collect()),
                    Value::Int(*t),
                ],
            ),
        };
        let output = engine.run(entry, &args).unwrap();
        let expected = reference.run(entry, &args);
        prop_assert_eq!(
            &output.value,
            &expected,
            "rqc vs reference: {} {:?}",
            entry,
            args
        );
        prop_assert!(
            within(&output.stats, &output.bound),
            "{} over its bound",
            entry
        );
        prop_assert_eq!(
            store_tables(engine.store(), schema),
            reference_tables(&reference, schema),
            "tables after {} {:?}",
            entry,
            args
        );
        let integrity = check_integrity(engine.store(), schema);
        prop_assert_eq!(integrity, Ok(()), "after {} {:?}", entry, args);
    }

    let sqlite = rusqlite::Connection::open_in_memory().unwrap();
    for statement in SQL_SCHEMA {
        sqlite.execute(statement, []).unwrap();
    }
    for (table, rows) in reference_tables(&reference, schema) {
        for row in rows {
            let Value::Record(fields) = row else {
                unreachable!("a row is a record")
            };
            let values: Vec<Sql> = fields
                .iter()
                .map(|(_, v)| match v {
                    Value::Int(n) => Sql::Integer(*n),
                    Value::Str(s) => Sql::Text(s.clone()),
                    other => panic!("unexpected column value {other:?}"),
                })
                .collect();
            let marks = vec!["?"; values.len()].join(", ");
            sqlite
                .execute(
                    &format!("INSERT INTO {table} VALUES ({marks})"),
                    rusqlite::params_from_iter(values),
                )
                .unwrap();
        }
    }

    for (i, (query, args)) in case.queries.iter().enumerate() {
        let name = format!("q{i}");
        let values = args.values();
        let output = engine.run(&name, &values).unwrap();
        let expected = reference.run(&name, &values);
        prop_assert_eq!(
            &output.value,
            &expected,
            "rqc vs reference: {} {:?}",
            query.rql(),
            args
        );
        let (sql, params) = query.sql(args);
        let from_sqlite = sqlite_rows(&sqlite, &sql, params);
        prop_assert_eq!(
            &output.value,
            &from_sqlite,
            "rqc vs SQLite: {} {:?}\n{}",
            query.rql(),
            args,
            sql
        );
        let entry = compilation.program.entry(&name).unwrap();
        prop_assert!(
            within(&output.stats, &entry.bound),
            "{} read {:?}, over its bound {:?}",
            query.rql(),
            output.stats,
            entry.bound
        );
    }
    Ok(case.queries.len())
}

fn cases() -> u32 {
    rqc_tests::cases_from_env("RQC_DIFF_CASES", 32)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn predicates_agree_with_the_reference_and_sqlite_within_their_bounds(case in case()) {
        run_case(&case)?;
    }
}

/// Every form on every backend, with the edges written out: repeats and
/// missing keys in `in`, `\0` and the top of Unicode in prefixes, the empty
/// prefix, a row read by both sides of a union.
#[test]
fn every_form_on_every_backend() {
    for backend in Backend::ALL {
        every_form_on(On::Disk(backend));
    }
    every_form_on(On::Etcd);
}

fn every_form_on(backend: On) {
    let names = [
        "a",
        "a\0",
        "a\0b",
        "a\u{1}",
        "ab",
        "b",
        "é",
        "\u{10FFFF}",
        "",
        "\0",
    ];
    let case = Case {
        backend,
        s_rows: names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), (i % 2) as i64, i as i64))
            .collect(),
        a_rows: vec![(1, 2), (1, 1), (2, 1), (1, 3), (3, 1)],
        writes: vec![
            Write::DropS(vec!["b".into(), "b".into(), "zz".into()]),
            Write::BumpA(vec![4, 4, 9], 1),
        ],
        queries: [
            (Query::Ids, "a"),
            (
                Query::Literal(vec![Elem::X, Elem::Lit(i64::MAX), Elem::X, Elem::Y]),
                "a",
            ),
            (Query::Names, "a"),
            (Query::Prefix(5), "a"),
            (Query::Prefix(5), "a\0"),
            (Query::Prefix(5), ""),
            (Query::Prefix(5), "\u{10FFFF}"),
            (Query::Prefix(5), "\0"),
            (Query::PrefixDesc(5), "a"),
            (Query::Union(3, 3), "a"),
            (Query::UnionLookups, "a"),
        ]
        .into_iter()
        .map(|(q, p)| {
            let args = Args {
                x: 1,
                y: 1,
                p: p.to_string(),
                ids: vec![3, 0, 3, 99, -1, 2],
                names: vec!["a\0".into(), "ab".into(), "a\0".into(), "none".into()],
            };
            (q, args)
        })
        .collect(),
    };
    assert_eq!(run_case(&case).unwrap(), 11);
}
