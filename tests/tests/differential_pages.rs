//! Differential testing of keyset pages: tuple ranges (`(at, id) < (t, i)`
//! on ascending and descending composite indexes, with and without an
//! equality prefix) against the reference evaluator and SQLite's row-value
//! comparison; and continuation tokens: following them until there is none
//! yields exactly the whole ordered range (as SQLite orders it without a
//! limit), each page within the query's bound, hand-written keyset pages
//! yield the same, and a damaged token or one of another query is refused
//! with its code, never answered. Every case runs on one backend: memory,
//! sled, redb, LMDB or etcd.
//!
//! `RQC_DIFF_CASES` sets the number of generated cases (default 48).

use proptest::prelude::*;
use rqc_compiler::compile;
use rqc_plan::Value;
use rqc_runtime::{Backend, Durability, Engine, OpenOptions};
use rqc_tests::reference::Reference;

const OPS: [(&str, &str); 4] = [("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">=")];

/// The reads ranges are made through: name, whether an equality on `g`
/// comes first, the SQL order of the read (the index's columns, then the
/// key), and the index with `|> reverse()` when it is read from its other
/// end (a reverse read: its pages continue downwards).
const INDEXES: [(&str, bool, &str, Option<&str>); 5] = [
    ("by_time", false, "at DESC, id DESC", None),
    ("by_g", true, "at, id", None),
    ("by_gd", true, "at DESC, id DESC", None),
    ("back_g", true, "at DESC, id DESC", Some("by_g")),
    ("back_time", false, "at, id", Some("by_time")),
];

/// The most rows a page may take.
const MAX_TAKE: i64 = 8;

fn program() -> String {
    let mut source = format!(
        "table P {{\n  id: Int key\n  g: Int\n  at: Int\n\
         \x20 index by_time (at desc, id desc)\n  index by_g (g, at, id)\n\
         \x20 index by_gd (g, at desc, id desc)\n}}\n\
         mutation add(id: Int, g: Int, at: Int) = insert P {{ id, g, at }}\n\
         query whole_by_time(x: Int, n: Int <= {MAX_TAKE}) = P.by_time |> take(n)\n\
         query whole_back_time(x: Int, n: Int <= {MAX_TAKE}) = P.by_time |> reverse() |> take(n)\n\
         query fan(xs: [Int; <= 3], t: Int, i: Int) =\n\
         \x20 xs |> map(x => P.by_gd[x, (at, id) < (t, i)] |> take(2))\n"
    );
    for (index, prefixed, _, reversed) in INDEXES {
        let prefix = if prefixed { "x, " } else { "" };
        let (read, back) = match reversed {
            Some(read) => (read, " |> reverse()"),
            None => (index, ""),
        };
        for (name, op) in OPS {
            source.push_str(&format!(
                "query {index}_{name}(x: Int, t: Int, i: Int, n: Int <= {MAX_TAKE}) = \
                 P.{read}[{prefix}(at, id) {op} (t, i)]{back} |> take(n)\n"
            ));
        }
        if prefixed {
            source.push_str(&format!(
                "query whole_{index}(x: Int, n: Int <= {MAX_TAKE}) = P.{read}[x]{back} |> take(n)\n"
            ));
        }
    }
    source
}

/// One query of the program: its name, and its SQL without a limit (`?1`
/// is x, `?2` t, `?3` i).
#[derive(Debug, Clone)]
struct Query {
    index: usize,
    /// `None`: the whole index (or its prefix) from its start.
    op: Option<usize>,
}

impl Query {
    fn name(&self) -> String {
        let (index, ..) = INDEXES[self.index];
        match self.op {
            Some(op) => format!("{index}_{}", OPS[op].0),
            None => format!("whole_{index}"),
        }
    }

    fn args(&self, x: i64, t: i64, i: i64, n: i64) -> Vec<Value> {
        match self.op {
            Some(_) => vec![x.into(), t.into(), i.into(), n.into()],
            None => vec![x.into(), n.into()],
        }
    }

    fn sql(&self) -> String {
        let (_, prefixed, order, _) = INDEXES[self.index];
        let mut conditions = vec!["?1 = ?1 AND ?2 = ?2 AND ?3 = ?3".to_string()];
        if prefixed {
            conditions.push("g = ?1".into());
        }
        if let Some(op) = self.op {
            conditions.push(format!("(at, id) {} (?2, ?3)", OPS[op].1));
        }
        format!(
            "SELECT id, g, at FROM P WHERE {} ORDER BY {order}",
            conditions.join(" AND ")
        )
    }
}

fn query() -> impl Strategy<Value = Query> {
    (0..INDEXES.len(), prop::option::weighted(0.8, 0..OPS.len()))
        .prop_map(|(index, op)| Query { index, op })
}

#[derive(Debug, Clone)]
struct Case {
    /// The store: a disk backend, or etcd (`None`: a one-member cluster of
    /// the test thread, a fresh prefix per case).
    backend: Option<Backend>,
    /// `(id, g, at)`; a repeated id is left out.
    rows: Vec<(i64, i64, i64)>,
    /// Queries compared once: `(query, x, t, i, n)`.
    queries: Vec<(Query, i64, i64, i64, i64)>,
    /// Queries paged through: `(query, x, t, i, n, where to damage a token)`.
    pages: Vec<(Query, i64, i64, i64, i64, usize)>,
}

fn case() -> impl Strategy<Value = Case> {
    let backend = prop_oneof![
        Just(Some(Backend::Memory)),
        Just(Some(Backend::Sled)),
        Just(Some(Backend::Redb)),
        Just(Some(Backend::Lmdb)),
        Just(None),
    ];
    (
        backend,
        prop::collection::vec((1i64..40, 0i64..3, 0i64..5), 0..30),
        prop::collection::vec(
            (query(), 0i64..3, -1i64..6, 0i64..42, -1i64..=MAX_TAKE),
            1..10,
        ),
        prop::collection::vec(
            (
                query(),
                0i64..3,
                -1i64..6,
                0i64..42,
                1i64..=4,
                any::<usize>(),
            ),
            1..4,
        ),
    )
        .prop_map(|(backend, rows, queries, pages)| Case {
            backend,
            rows,
            queries,
            pages,
        })
}

fn sqlite_rows(db: &rusqlite::Connection, sql: &str, x: i64, t: i64, i: i64) -> Vec<Value> {
    let mut statement = db.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    statement
        .query_map(rusqlite::params![x, t, i], |row| {
            let int = |k: usize| Value::Int(row.get::<_, i64>(k).unwrap());
            Ok(Value::Record(
                vec![
                    ("id".to_string(), int(0)),
                    ("g".to_string(), int(1)),
                    ("at".to_string(), int(2)),
                ]
                .into_iter()
                .collect(),
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn rows_of(value: &Value) -> Vec<Value> {
    match value {
        Value::List(items) => items.clone(),
        other => panic!("a query of pages gave {other:?}"),
    }
}

fn open(backend: Option<Backend>, dir: &std::path::Path) -> Engine {
    let Some(backend) = backend else {
        return rqc_tests::etcd::engine();
    };
    let options = OpenOptions {
        backend: Some(backend),
        durability: Durability::None,
        ..OpenOptions::default()
    };
    Engine::open(&dir.join("db"), options).unwrap()
}

fn run_case(case: &Case) -> Result<usize, TestCaseError> {
    let source = program();
    let compilation = compile(&[("pages.rq".to_string(), source.clone())]);
    prop_assert!(
        compilation.diagnostics.is_empty(),
        "{source}\n{:?}",
        compilation.diagnostics
    );
    let dir = tempfile::tempdir().unwrap();
    let mut engine = open(case.backend, dir.path());
    engine.install(compilation.program.clone()).unwrap();
    let mut reference = Reference::new(&compilation.checked);
    let sqlite = rusqlite::Connection::open_in_memory().unwrap();
    sqlite
        .execute(
            "CREATE TABLE P (id INTEGER PRIMARY KEY, g INTEGER, at INTEGER)",
            [],
        )
        .unwrap();
    let mut seen = std::collections::HashSet::new();
    for &(id, g, at) in &case.rows {
        if !seen.insert(id) {
            continue;
        }
        let args = [id.into(), g.into(), at.into()];
        engine.run("add", &args).unwrap();
        reference.run("add", &args);
        sqlite
            .execute(
                "INSERT INTO P VALUES (?1, ?2, ?3)",
                rusqlite::params![id, g, at],
            )
            .unwrap();
    }

    let mut compared = 0;
    for (query, x, t, i, n) in &case.queries {
        let name = query.name();
        let args = query.args(*x, *t, *i, *n);
        let output = engine.run(&name, &args).unwrap();
        prop_assert_eq!(
            &output.value,
            &reference.run(&name, &args),
            "rqc vs reference: {} {:?}",
            name,
            args
        );
        let mut expected = sqlite_rows(&sqlite, &query.sql(), *x, *t, *i);
        expected.truncate((*n).max(0) as usize);
        prop_assert_eq!(
            rows_of(&output.value),
            expected,
            "rqc vs SQLite: {} {:?}\n{}",
            name,
            args,
            query.sql()
        );
        prop_assert!(
            output.stats.seeks <= output.bound.seeks && output.stats.rows <= output.bound.rows,
            "{} read {:?}, over its bound {:?}",
            name,
            output.stats,
            output.bound
        );
        prop_assert!(output.bound.seeks == 1 && output.bound.rows == MAX_TAKE as u64);
        compared += 1;
    }

    for (query, x, t, i, n, damage) in &case.pages {
        let name = query.name();
        let entry = engine.entry(&name).unwrap().clone();
        let whole = sqlite_rows(&sqlite, &query.sql(), *x, *t, *i);
        let mut page = engine
            .run_page(&entry, &query.args(*x, *t, *i, *n))
            .unwrap();
        let mut rows = Vec::new();
        let mut pages = 0;
        loop {
            pages += 1;
            prop_assert!(pages <= whole.len() + 2, "{}: the pages never end", name);
            let got = rows_of(&page.output.value);
            prop_assert!(
                got.len() as i64 <= *n,
                "{}: a page of {} rows, over {}",
                name,
                got.len(),
                n
            );
            prop_assert!(
                page.output.stats.seeks <= 1 && page.output.stats.rows <= page.output.bound.rows,
                "{}: a page read {:?}, over {:?}",
                name,
                page.output.stats,
                page.output.bound
            );
            // A short page has no token; a full one has.
            prop_assert_eq!(page.token.is_some(), got.len() as i64 == *n);
            rows.extend(got);
            let Some(token) = page.token.take() else {
                break;
            };
            // A damaged token, a cut one and one of another query are refused.
            let mut bytes = token.clone().into_bytes();
            let at = damage % bytes.len();
            bytes[at] = if bytes[at] == b'0' { b'1' } else { b'0' };
            let damaged = String::from_utf8(bytes).unwrap();
            let refused = engine.next_page(&entry, &damaged).unwrap_err();
            prop_assert_eq!(refused.code, "E0533", "{}", refused.message);
            let cut = engine
                .next_page(&entry, &token[..token.len() - 2])
                .unwrap_err();
            prop_assert_eq!(cut.code, "E0533");
            let other = engine.entry("by_gd_ge").unwrap().clone();
            if other.name != entry.name {
                let refused = engine.next_page(&other, &token).unwrap_err();
                prop_assert_eq!(refused.code, "E0534", "{}", refused.message);
            }
            page = engine.next_page(&entry, &token).unwrap();
        }
        prop_assert_eq!(
            &rows,
            &whole,
            "{}: the pages vs the whole range\n{}",
            name,
            query.sql()
        );
        compared += 1;
    }

    // Tuple ranges read for every element of a list, as one batch.
    for (_, x, t, i, _) in &case.queries {
        let args = [
            Value::List(vec![(*x).into(), ((x + 1) % 3).into(), 7.into()]),
            (*t).into(),
            (*i).into(),
        ];
        let output = engine.run("fan", &args).unwrap();
        prop_assert_eq!(
            &output.value,
            &reference.run("fan", &args),
            "fan {:?}",
            args
        );
        prop_assert!(
            output.stats.seeks <= output.bound.seeks
                && output.stats.rows <= output.bound.rows
                && output.stats.round_trips <= output.bound.round_trips,
            "fan read {:?}, over its bound {:?}",
            output.stats,
            output.bound
        );
    }

    // Hand-written keyset pages over the newest-first index: the page after
    // the last row `l` is `(at, id) < (l.at, l.id)`; they meet every row once.
    let n = case.pages[0].4;
    let whole = sqlite_rows(&sqlite, &Query { index: 0, op: None }.sql(), 0, 0, 0);
    let mut rows = rows_of(
        &engine
            .run("whole_by_time", &[0.into(), n.into()])
            .unwrap()
            .value,
    );
    let mut last = rows.len();
    while last as i64 == n {
        let end = rows.last().unwrap().clone();
        let field = |f: &str| end.field(f).cloned().unwrap();
        let args = [0.into(), field("at"), field("id"), n.into()];
        let page = rows_of(&engine.run("by_time_lt", &args).unwrap().value);
        last = page.len();
        rows.extend(page);
    }
    prop_assert_eq!(rows, whole, "hand-written keyset pages vs the whole index");
    Ok(compared)
}

fn cases() -> u32 {
    rqc_tests::cases_from_env("RQC_DIFF_CASES", 48)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn tuple_ranges_and_pages_agree_with_the_reference_and_sqlite(case in case()) {
        run_case(&case)?;
    }
}

/// Every index, operator and the whole forms, with ties on `at`, on every
/// backend and etcd: a guard against a generator that reaches only some.
#[test]
fn every_form_is_compared() {
    let rows: Vec<(i64, i64, i64)> = (1..=14).map(|id| (id, id % 2, id % 4)).collect();
    let mut queries = Vec::new();
    for index in 0..INDEXES.len() {
        for op in 0..OPS.len() {
            queries.push((
                Query {
                    index,
                    op: Some(op),
                },
                1,
                2,
                7,
                3,
            ));
        }
        queries.push((Query { index, op: None }, 1, 0, 0, 5));
    }
    let pages: Vec<_> = (0..INDEXES.len())
        .flat_map(|index| [None, Some(0), Some(3)].map(|op| (Query { index, op }, 0, 2, 6, 2, 17)))
        .collect();
    for backend in Backend::ALL.map(Some).into_iter().chain([None]) {
        let case = Case {
            backend,
            rows: rows.clone(),
            queries: queries.clone(),
            pages: pages.clone(),
        };
        assert_eq!(run_case(&case).unwrap(), queries.len() + pages.len());
    }
}

/// A token outlives neither its query's plan nor the program: installed
/// again with another plan for the query, the old token is E0534; and a
/// query that is not pageable is E0532.
#[test]
fn a_token_of_an_earlier_program_and_an_unpageable_query_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = open(Some(Backend::Memory), dir.path());
    let first = compile(&[("pages.rq".to_string(), program())]);
    engine.install(first.program).unwrap();
    for id in 1..=5 {
        engine
            .run("add", &[id.into(), 0.into(), id.into()])
            .unwrap();
    }
    let entry = engine.entry("whole_by_time").unwrap().clone();
    let page = engine.run_page(&entry, &[0.into(), 2.into()]).unwrap();
    let token = page.token.expect("a full page has a token");
    let next = engine.next_page(&entry, &token).unwrap();
    assert_eq!(
        rows_of(&next.output.value)
            .iter()
            .map(|r| r.field("id").cloned().unwrap())
            .collect::<Vec<_>>(),
        [Value::Int(3), Value::Int(2)]
    );

    let changed = program().replace(
        "query whole_by_time(x: Int, n: Int <= 8) = P.by_time |> take(n)",
        "query whole_by_time(x: Int, n: Int <= 8) = P.by_time |> map(p => p) |> take(n)",
    );
    assert_ne!(changed, program());
    let mut source = changed;
    source.push_str(
        "query skipping(n: Int <= 8) = P.by_time |> skip(1) |> take(n)\n\
         query key(i: Int) = P[i]\n",
    );
    let second = compile(&[("pages.rq".to_string(), source)]);
    assert!(second.diagnostics.is_empty(), "{:?}", second.diagnostics);
    engine.install(second.program).unwrap();
    let entry = engine.entry("whole_by_time").unwrap().clone();
    let refused = engine.next_page(&entry, &token).unwrap_err();
    assert_eq!(refused.code, "E0534", "{}", refused.message);
    for (name, args) in [
        ("skipping", vec![Value::Int(2)]),
        ("key", vec![Value::Int(1)]),
        ("add", vec![9.into(), 0.into(), 0.into()]),
    ] {
        let entry = engine.entry(name).unwrap().clone();
        let refused = engine.run_page(&entry, &args).unwrap_err();
        assert_eq!(refused.code, "E0532", "{name}: {}", refused.message);
        assert!(refused.help.contains("take"), "{}", refused.help);
    }
}

/// Strings, descending and ascending, where one value is a prefix of
/// another and with the smallest and largest integers: every bound of
/// every operator over every row agrees with the reference.
#[test]
fn tuple_ranges_over_strings_and_extreme_integers_agree_with_the_reference() {
    let source = "table S {\n  id: Int key\n  name: String <= 64\n\
                  \x20 index by_name_desc (name desc, id desc)\n  index by_name (name, id)\n}\n\
                  mutation add(id: Int, name: String) = insert S { id, name }\n"
        .to_string();
    let mut source = source;
    for index in ["by_name_desc", "by_name"] {
        for (name, op) in OPS {
            source.push_str(&format!(
                "query {index}_{name}(s: String, i: Int) = S.{index}[(name, id) {op} (s, i)] |> take(20)\n"
            ));
        }
    }
    let compilation = compile(&[("strings.rq".to_string(), source.clone())]);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    let names = ["", "a", "a\u{0}", "a\u{0}b", "ab", "b", "\u{ff}", "é"];
    let ids = [i64::MIN, -1, 0, 1, i64::MAX];
    for backend in Backend::ALL.map(Some).into_iter().chain([None]) {
        let dir = tempfile::tempdir().unwrap();
        let mut engine = open(backend, dir.path());
        engine.install(compilation.program.clone()).unwrap();
        let mut reference = Reference::new(&compilation.checked);
        let mut key = 0;
        for name in names {
            for id in [0, 1] {
                key += 1;
                let args = [(key * 10 + id).into(), name.into()];
                engine.run("add", &args).unwrap();
                reference.run("add", &args);
            }
        }
        for index in ["by_name_desc", "by_name"] {
            for (op, _) in OPS {
                let query = format!("{index}_{op}");
                for name in names {
                    for id in ids.iter().chain([11, 20, 41].iter()) {
                        let args = [name.into(), (*id).into()];
                        let output = engine.run(&query, &args).unwrap();
                        assert_eq!(
                            output.value,
                            reference.run(&query, &args),
                            "{backend:?} {query} {args:?}"
                        );
                    }
                }
            }
        }
    }
}

/// Writes through tuple ranges, rows met twice: a second delete of a row
/// already gone does nothing, a second update sees the first's result, and
/// the tables equal the reference's after each, with every index agreeing.
#[test]
fn writes_through_tuple_ranges_act_on_each_row_as_it_is() {
    let source = "table R {\n  post: Int\n  n: Int\n  at: Int\n  key (post, n)\n\
                  \x20 index by_time (post, at desc, n desc)\n  bound post <= 20\n}\n\
                  mutation add(post: Int, n: Int, at: Int) = insert R { post, n, at }\n\
                  mutation prune_twice(p: Int, t: Int, k: Int) = {\n\
                  \x20 delete R.by_time[p, (at, n) < (t, k)];\n\
                  \x20 delete R.by_time[p, (at, n) <= (t, k)]\n}\n\
                  mutation restamp(p: Int, t: Int, k: Int, x: Int) = {\n\
                  \x20 update R.by_time[p, (at, n) >= (t, k)] { at: x };\n\
                  \x20 update R.by_time[p, (at, n) >= (t, k)] { at: x + 1 }\n}\n\
                  query all(p: Int) = R[p]\n";
    let compilation = compile(&[("writes.rq".to_string(), source.to_string())]);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    let schema = &compilation.program.schema;
    for backend in Backend::ALL.map(Some).into_iter().chain([None]) {
        let dir = tempfile::tempdir().unwrap();
        let mut engine = open(backend, dir.path());
        engine.install(compilation.program.clone()).unwrap();
        let mut reference = Reference::new(&compilation.checked);
        let mut run = |name: &str, args: Vec<Value>| {
            let output = engine.run(name, &args).unwrap();
            assert_eq!(
                output.value,
                reference.run(name, &args),
                "{backend:?} {name} {args:?}"
            );
            assert!(
                output.stats.seeks <= output.bound.seeks && output.stats.rows <= output.bound.rows
            );
            assert_eq!(
                rqc_tests::state::store_tables(engine.store(), schema),
                rqc_tests::state::reference_tables(&reference, schema),
                "{backend:?} after {name} {args:?}"
            );
            assert_eq!(
                rqc_tests::state::check_integrity(engine.store(), schema),
                Ok(())
            );
        };
        for post in 1..=2 {
            for n in 1..=8 {
                run("add", vec![post.into(), n.into(), (n % 3).into()]);
            }
        }
        run("restamp", vec![1.into(), 1.into(), 4.into(), 7.into()]);
        run("prune_twice", vec![1.into(), 2.into(), 5.into()]);
        run("prune_twice", vec![2.into(), 0.into(), 9.into()]);
        run("restamp", vec![2.into(), 0.into(), 0.into(), (-3).into()]);
        run(
            "prune_twice",
            vec![2.into(), i64::MAX.into(), i64::MAX.into()],
        );
        run("all", vec![1.into()]);
    }
}
