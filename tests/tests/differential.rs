//! Differential testing: random schemas, data, writes and bounded queries.
//! Each write runs on rqc and on the reference evaluator, which must agree
//! on its value and on the tables after it, with every index and counter
//! equal to the rows after every mutation; updates and deletes name rows
//! twice, rows that are gone, and rows read before an earlier write of the
//! same mutation. Each query runs on rqc, on the reference evaluator and on
//! SQLite (loaded with the tables the writes left), which must agree, with
//! the actual seeks and rows within the static bound (tuple ranges against
//! SQLite's row values). A table keyed and grouped by a `Float` and a
//! `String` is written and read with both zeros, the extremes of each type,
//! `1` for `1.0` and strings alike but for Unicode normalisation
//! (`differential/identity.rs`). proptest shrinks a failure to a minimal
//! schema, data set, write and query.
//!
//! `RQC_DIFF_CASES` sets the number of generated cases (default 48 in the
//! normal suite; `RQC_DIFF_CASES=20000` is the long run the README reports).

use proptest::prelude::*;
use rqc_compiler::compile;
use rqc_plan::Value;
use rqc_runtime::{Backend, Durability, Engine, OpenOptions};
use rqc_tests::reference::Reference;
use rqc_tests::state::{check_integrity, reference_tables, store_tables};
use writes::{write, Write, D_BOUND, WRITES};

#[path = "differential/forms.rs"]
mod forms;
#[path = "differential/identity.rs"]
mod identity;
#[path = "differential/transactions.rs"]
mod transactions;
#[path = "differential/writes.rs"]
mod writes;

/// The random part of the schema: table `A` has `id` and `columns` extra Int
/// columns with one secondary index; table `B` is an island of `A` (rows keyed
/// by `(a, n)`, at most `bound` per `a`).
#[derive(Debug, Clone)]
struct Shape {
    columns: usize,
    /// The index's columns: `c{first}` and, when present, `c{second}`.
    first: usize,
    second: Option<usize>,
    second_desc: bool,
    bound: i64,
    /// `B.a` deletes its rows with their `A` row (`on delete cascade`);
    /// otherwise a delete of an `A` row that `B` rows name is refused.
    cascade: bool,
}

impl Shape {
    fn rql(&self) -> String {
        // Defaults, for an upsert that names only `id` and `c{first}`.
        let columns: String = (0..self.columns)
            .map(|i| format!("  c{i}: Int = 0\n"))
            .collect();
        let second = match self.second {
            Some(j) => format!(", c{j}{}", if self.second_desc { " desc" } else { "" }),
            None => String::new(),
        };
        let params: Vec<String> = (0..self.columns).map(|i| format!("c{i}: Int")).collect();
        let fields: Vec<String> = (0..self.columns).map(|i| format!("c{i}")).collect();
        let (first, last) = (self.first, self.columns - 1);
        format!(
            "table A {{\n  id: Int key\n{columns}  index ix (c{}{second})\n}}\n\
             table B {{\n  a: Int ref A{cascade}\n  n: Int\n  w: Int\n  key (a, n)\n  bound a <= {}\n}}\n\
             table N {{\n  id: Int key auto\n  v: Int = 0\n}}\n\
             table D {{\n  id: Int key\n  a: Int? ref A on delete set none\n  index by_a (a)\n  bound a <= {D_BOUND}\n}}\n\
             aggregate b_count = count(B) by a\n\
             aggregate b_weight = sum(B.w) by a\n\
             aggregate a_count = count(A) by c{first}\n\
             aggregate a_total = sum(A.c{last}) by c{first}\n\
             aggregate b_max = max(B.w) by a\n\
             aggregate a_all = count(A)\n\
             aggregate b_all = sum(B.w)\n{least}\
             mutation add_a(id: Int, {}) = insert A {{ id, {} }}\n\
             mutation add_b(a: Int, n: Int, w: Int) = insert B {{ a, n, w }}\n{WRITES}\
             mutation move_a(ids: [Int; <= 6], x: Int) =\n\
             \x20 update (ids |> map(i => A[i]) |> flatten()) {{ c{first}: x }}\n\
             mutation restamp_a(i: Int, x: Int, y: Int) =\n\
             \x20 {{ let r = A[i]; update r {{ c{first}: x }}; update r {{ c{last}: y }} }}\n\
             mutation put_a(id: Int, x: Int) = upsert A {{ id, c{first}: x }}\n\
             mutation step_a(ids: [Int; <= 6], d: Int) =\n\
             \x20 update (ids |> map(i => A[i]) |> flatten()) {{ c{first} += d }}\n",
            self.first,
            self.bound,
            params.join(", "),
            fields.join(", "),
            // Through the index `ix`, in its direction either way.
            cascade = if self.cascade {
                " on delete cascade"
            } else {
                ""
            },
            least = match self.second {
                Some(j) => format!("aggregate a_least = min(A.c{j}) by c{first}\n"),
                None => String::new(),
            },
        )
    }

    fn sql(&self) -> Vec<String> {
        let columns: String = (0..self.columns)
            .map(|i| format!(", c{i} INTEGER"))
            .collect();
        vec![
            format!("CREATE TABLE A (id INTEGER PRIMARY KEY{columns})"),
            "CREATE TABLE B (a INTEGER REFERENCES A(id), n INTEGER, w INTEGER, PRIMARY KEY (a, n))"
                .to_string(),
            "CREATE TABLE N (id INTEGER PRIMARY KEY, v INTEGER)".to_string(),
        ]
    }

    /// The SQL order of `ix`: its columns, then the primary key.
    fn index_order(&self) -> String {
        match self.second {
            Some(j) => format!("c{j}{}, id", if self.second_desc { " DESC" } else { "" }),
            None => "id".to_string(),
        }
    }

    /// `ix` read from its other end: every column of its order reversed,
    /// the primary key's too (ties come out backwards).
    fn reverse_order(&self) -> String {
        match self.second {
            Some(j) => format!(
                "c{j}{}, id DESC",
                if self.second_desc { "" } else { " DESC" }
            ),
            None => "id DESC".to_string(),
        }
    }
}

/// What follows `B[x]` (after an optional filter) in an island query.
#[derive(Debug, Clone)]
enum Tail {
    Rows,
    Count,
    Sum,
    TopByWeight(i64),
}

#[derive(Debug, Clone)]
enum Query {
    Key,
    Prefix(i64),
    /// `A.ix[x] |> skip(s) |> take(t)`: a page at an offset (`s` may be
    /// negative: it skips nothing).
    Page(i64, i64),
    /// `A.ix[x, c OP y] |> take(t)`; needs a second index column.
    Range(&'static str, i64),
    /// `A.ix[x] |> reverse() |> skip(s) |> take(t)`: the index read from
    /// its high end (ties backwards too), at an offset from there.
    Reverse(i64, i64),
    /// `A.ix[x, c OP y] |> reverse() |> take(t)`; needs a second column.
    ReverseRange(&'static str, i64),
    /// `A |> sort_by(a => a.id, desc) |> take(t)`: a sort that is the key
    /// read backwards (the key identifies a row: no ties).
    Newest(i64),
    /// `A.ix[(c, d) OP (x, y)] |> take(t)`: a tuple range over both index
    /// columns; needs a second one, ascending like the first.
    Tuple(&'static str, i64),
    Island(bool, Tail),
    /// `A.ix[x] |> take(t) |> flat_map(a => B[a.id])`, counted or not.
    Join(i64, bool),
    /// A maintained aggregate's group `x` (its upkeep by every write is
    /// what the comparison after each write checks): `b_count`,
    /// `b_weight`, `a_count`, `a_total`, `b_max` (a bounded group's) or
    /// `a_least` (through the index, when it has a second column), plus
    /// `y` so that an aggregate sits inside arithmetic (`none` of an
    /// empty group's extreme stays `none`, as SQL's NULL does).
    Aggregate(&'static str),
    /// `A.ix[x] |> take(LIMIT)` with a limit computed from `y` that only
    /// the rules over value ranges bound (`y` itself has no upper end):
    /// narrowed by an `if`, taken modulo `t`, the least of `[y, t]`; or a
    /// skip by a product of `y`, declared `y: Int >= -2 <= 19`.
    Computed(Limit, i64),
}

/// How a [`Query::Computed`] limit is computed from `y` and `t`.
#[derive(Debug, Clone, Copy)]
enum Limit {
    Narrowed,
    NarrowedElse,
    Modulo,
    Least,
    SkipProduct,
}

impl Limit {
    /// The query's parameters and body.
    fn rql(self, t: i64) -> (&'static str, String) {
        let unbounded = "x: Int, y: Int";
        match self {
            Limit::Narrowed => (
                unbounded,
                format!("A.ix[x] |> take(if y > {t} {{ {t} }} else {{ y }})"),
            ),
            Limit::NarrowedElse => (
                unbounded,
                format!("A.ix[x] |> take(if !(y <= {t}) || y < 0 {{ 0 }} else {{ y }})"),
            ),
            Limit::Modulo => (unbounded, format!("A.ix[x] |> take(y % {t})")),
            Limit::Least => (
                unbounded,
                format!("A.ix[x] |> take([y, {t}] |> min() |> unwrap_or(0))"),
            ),
            Limit::SkipProduct => (
                "x: Int, y: Int >= -2 <= 19",
                format!("A.ix[x] |> skip(y * 2) |> take({t})"),
            ),
        }
    }

    /// The same limit (and offset) in SQL, `?2` being `y`: a negative
    /// count takes or skips nothing, where SQLite's LIMIT would take all.
    fn sql(self, t: i64) -> String {
        match self {
            Limit::Narrowed => format!("LIMIT max(0, min(?2, {t}))"),
            Limit::NarrowedElse => format!("LIMIT CASE WHEN ?2 > {t} OR ?2 < 0 THEN 0 ELSE ?2 END"),
            Limit::Modulo => format!("LIMIT max(0, ?2 % {t})"),
            Limit::Least => format!("LIMIT max(0, min(?2, {t}))"),
            Limit::SkipProduct => format!("LIMIT max(0, {t}) OFFSET max(0, ?2 * 2)"),
        }
    }
}

impl Query {
    fn rql(&self, shape: &Shape) -> Option<String> {
        let island_filter = |filtered: bool| {
            if filtered {
                " |> filter(b => b.w > y)"
            } else {
                ""
            }
        };
        let body = match self {
            Query::Key => "A[x]".to_string(),
            Query::Prefix(t) => format!("A.ix[x] |> take({t})"),
            Query::Page(skip, t) => format!("A.ix[x] |> skip({skip}) |> take({t})"),
            Query::Range(op, t) => {
                let j = shape.second?;
                format!("A.ix[x, c{j} {op} y] |> take({t})")
            }
            Query::Reverse(skip, t) => {
                format!("A.ix[x] |> reverse() |> skip({skip}) |> take({t})")
            }
            Query::ReverseRange(op, t) => {
                let j = shape.second?;
                format!("A.ix[x, c{j} {op} y] |> reverse() |> take({t})")
            }
            Query::Newest(t) => format!("A |> sort_by(a => a.id, desc) |> take({t})"),
            Query::Tuple(op, t) => {
                let j = shape.second.filter(|_| !shape.second_desc)?;
                format!("A.ix[(c{}, c{j}) {op} (x, y)] |> take({t})", shape.first)
            }
            Query::Island(filtered, tail) => {
                let tail = match tail {
                    Tail::Rows => String::new(),
                    Tail::Count => " |> count()".to_string(),
                    Tail::Sum => " |> map(b => b.w) |> sum()".to_string(),
                    Tail::TopByWeight(t) => format!(" |> sort_by(b => b.w, desc) |> take({t})"),
                };
                format!("B[x]{}{tail}", island_filter(*filtered))
            }
            Query::Join(t, counted) => format!(
                "A.ix[x] |> take({t}) |> flat_map(a => B[a.id]){}",
                if *counted { " |> count()" } else { "" }
            ),
            Query::Aggregate("a_least") if shape.second.is_none() => return None,
            Query::Aggregate(name @ ("b_max" | "a_least")) => {
                format!("{name}[x] |> map(v => v + y)")
            }
            // The whole table's: read by its name alone.
            Query::Aggregate(name @ ("a_all" | "b_all")) => format!("{name} + y"),
            Query::Aggregate(name) => format!("{name}[x] + y"),
            Query::Computed(limit, t) => {
                let (params, body) = limit.rql(*t);
                return Some(format!("query q({params}) = {body}\n"));
            }
        };
        Some(format!("query q(x: Int, y: Int) = {body}\n"))
    }

    /// The same query in SQL (`?1` is x, `?2` is y), and how to read its answer.
    fn sql(&self, shape: &Shape) -> (String, Answer) {
        let a_columns: String = (0..shape.columns).map(|i| format!(", c{i}")).collect();
        let ix = format!("c{}", shape.first);
        let order = shape.index_order();
        let uses_y = "?2 = ?2";
        match self {
            Query::Key => (
                format!("SELECT id{a_columns} FROM A WHERE id = ?1 AND {uses_y}"),
                Answer::Optional,
            ),
            Query::Prefix(t) => (
                format!(
                    "SELECT id{a_columns} FROM A WHERE {ix} = ?1 AND {uses_y} ORDER BY {order} LIMIT {t}"
                ),
                Answer::Rows,
            ),
            Query::Page(skip, t) => (
                format!(
                    "SELECT id{a_columns} FROM A WHERE {ix} = ?1 AND {uses_y} ORDER BY {order} LIMIT {t} OFFSET {}",
                    skip.max(&0)
                ),
                Answer::Rows,
            ),
            Query::Computed(limit, t) => (
                format!(
                    "SELECT id{a_columns} FROM A WHERE {ix} = ?1 ORDER BY {order} {}",
                    limit.sql(*t)
                ),
                Answer::Rows,
            ),
            Query::Range(op, t) => (
                format!(
                    "SELECT id{a_columns} FROM A WHERE {ix} = ?1 AND c{} {op} ?2 ORDER BY {order} LIMIT {t}",
                    shape.second.unwrap()
                ),
                Answer::Rows,
            ),
            Query::Reverse(skip, t) => (
                format!(
                    "SELECT id{a_columns} FROM A WHERE {ix} = ?1 AND {uses_y} ORDER BY {} LIMIT {t} OFFSET {}",
                    shape.reverse_order(),
                    skip.max(&0)
                ),
                Answer::Rows,
            ),
            Query::ReverseRange(op, t) => (
                format!(
                    "SELECT id{a_columns} FROM A WHERE {ix} = ?1 AND c{} {op} ?2 ORDER BY {} LIMIT {t}",
                    shape.second.unwrap(),
                    shape.reverse_order()
                ),
                Answer::Rows,
            ),
            Query::Newest(t) => (
                format!(
                    "SELECT id{a_columns} FROM A WHERE ?1 = ?1 AND {uses_y} ORDER BY id DESC LIMIT {t}"
                ),
                Answer::Rows,
            ),
            Query::Tuple(op, t) => (
                // SQLite's row values compare as RQL's tuples do.
                format!(
                    "SELECT id{a_columns} FROM A WHERE ({ix}, c{}) {op} (?1, ?2) ORDER BY {ix}, {order} LIMIT {t}",
                    shape.second.unwrap()
                ),
                Answer::Rows,
            ),
            Query::Island(filtered, tail) => {
                let filter = if *filtered { "w > ?2" } else { uses_y };
                let from = format!("FROM B WHERE a = ?1 AND {filter}");
                match tail {
                    Tail::Rows => (format!("SELECT a, n, w {from} ORDER BY n"), Answer::Rows),
                    Tail::Count => (format!("SELECT count(*) {from}"), Answer::Scalar),
                    Tail::Sum => (format!("SELECT coalesce(sum(w), 0) {from}"), Answer::Scalar),
                    Tail::TopByWeight(t) => (
                        format!("SELECT a, n, w {from} ORDER BY w DESC, n LIMIT {t}"),
                        Answer::Rows,
                    ),
                }
            }
            Query::Aggregate(name) => {
                let (what, from) = match *name {
                    "b_count" => ("count(*)".to_string(), "B WHERE a = ?1"),
                    "b_weight" => ("coalesce(sum(w), 0)".to_string(), "B WHERE a = ?1"),
                    "b_max" => ("max(w)".to_string(), "B WHERE a = ?1"),
                    "a_least" => (
                        format!("min(c{})", shape.second.unwrap_or(0)),
                        "A WHERE {ix} = ?1",
                    ),
                    "a_count" => ("count(*)".to_string(), "A WHERE {ix} = ?1"),
                    "a_all" => ("count(*)".to_string(), "A WHERE ?1 = ?1"),
                    "b_all" => ("coalesce(sum(w), 0)".to_string(), "B WHERE ?1 = ?1"),
                    _ => (
                        format!("coalesce(sum(c{}), 0)", shape.columns - 1),
                        "A WHERE {ix} = ?1",
                    ),
                };
                (
                    format!("SELECT {what} + ?2 FROM {}", from.replace("{ix}", &ix)),
                    Answer::Scalar,
                )
            }
            Query::Join(t, counted) => {
                let outer = format!(
                    "(SELECT id, row_number() OVER (ORDER BY {order}) AS r FROM A \
                     WHERE {ix} = ?1 AND {uses_y} ORDER BY {order} LIMIT {t}) s"
                );
                if *counted {
                    (
                        format!("SELECT count(*) FROM {outer} JOIN B ON B.a = s.id"),
                        Answer::Scalar,
                    )
                } else {
                    (
                        format!(
                            "SELECT B.a, B.n, B.w FROM {outer} JOIN B ON B.a = s.id ORDER BY s.r, B.n"
                        ),
                        Answer::Rows,
                    )
                }
            }
        }
    }
}

/// A backend of the Store trait: one a directory holds, or etcd (a
/// one-member cluster of the test thread, a fresh prefix per case).
#[derive(Debug, Clone, Copy)]
enum On {
    Disk(Backend),
    Etcd,
}

/// How SQLite's result set maps to an rqc value.
enum Answer {
    Optional,
    Rows,
    Scalar,
}

#[derive(Debug, Clone)]
struct Case {
    /// The store the case runs on: every suite runs on each backend.
    backend: On,
    shape: Shape,
    /// Rows of `A`: each row's extra columns (its id is its position + 1).
    a_rows: Vec<Vec<i64>>,
    /// Rows of `B`: `(a, w)` pairs; `n` numbers them per `a`.
    b_rows: Vec<(i64, i64)>,
    writes: Vec<Write>,
    /// Writes run several to a transaction, all or nothing.
    transactions: Vec<Vec<Write>>,
    queries: Vec<(Query, i64, i64)>,
    /// Writes of the table of floats and strings (`identity.rs`).
    identity: Vec<identity::Op>,
}

/// What a case compared.
#[derive(Debug, PartialEq)]
struct Compared {
    queries: usize,
    writes_committed: usize,
    writes_refused: usize,
    transactions_committed: usize,
    transactions_refused: usize,
    identity_committed: usize,
}

fn shape() -> impl Strategy<Value = Shape> {
    (
        1usize..=3,
        any::<bool>(),
        any::<bool>(),
        1i64..=5,
        any::<bool>(),
    )
        .prop_flat_map(|(columns, two, second_desc, bound, cascade)| {
            (0..columns, 0..columns).prop_map(move |(first, other)| {
                let second = (two && columns > 1 && other != first).then_some(other);
                Shape {
                    columns,
                    first,
                    second,
                    second_desc,
                    bound,
                    cascade,
                }
            })
        })
}

fn query() -> impl Strategy<Value = Query> {
    let op = || prop_oneof![Just("<"), Just("<="), Just(">"), Just(">=")];
    let tail = prop_oneof![
        Just(Tail::Rows),
        Just(Tail::Count),
        Just(Tail::Sum),
        (1i64..=4).prop_map(Tail::TopByWeight),
    ];
    prop_oneof![
        Just(Query::Key),
        (1i64..=6).prop_map(Query::Prefix),
        (-2i64..=5, 1i64..=4).prop_map(|(s, t)| Query::Page(s, t)),
        (op(), 1i64..=6).prop_map(|(op, t)| Query::Range(op, t)),
        (-2i64..=3, 1i64..=5).prop_map(|(s, t)| Query::Reverse(s, t)),
        (op(), 1i64..=6).prop_map(|(op, t)| Query::ReverseRange(op, t)),
        (1i64..=6).prop_map(Query::Newest),
        (op(), 1i64..=6).prop_map(|(op, t)| Query::Tuple(op, t)),
        (any::<bool>(), tail).prop_map(|(f, t)| Query::Island(f, t)),
        (1i64..=4, any::<bool>()).prop_map(|(t, c)| Query::Join(t, c)),
        prop_oneof![
            Just("b_count"),
            Just("b_weight"),
            Just("a_count"),
            Just("a_total"),
            Just("b_max"),
            Just("a_least"),
            Just("a_all"),
            Just("b_all")
        ]
        .prop_map(Query::Aggregate),
        (
            prop_oneof![
                Just(Limit::Narrowed),
                Just(Limit::NarrowedElse),
                Just(Limit::Modulo),
                Just(Limit::Least),
                Just(Limit::SkipProduct),
            ],
            prop_oneof![1i64..=6, Just(-4i64)],
        )
            .prop_map(|(limit, t)| Query::Computed(limit, t)),
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
    (backend, shape()).prop_flat_map(|(backend, shape)| {
        let columns = shape.columns;
        (
            Just(backend),
            Just(shape),
            prop::collection::vec(prop::collection::vec(0i64..4, columns), 0..24),
            prop::collection::vec((1i64..=12, -5i64..20), 0..40),
            prop::collection::vec(write(), 0..6),
            prop::collection::vec(prop::collection::vec(write(), 1..5), 0..3),
            prop::collection::vec((query(), -1i64..6, -2i64..20), 1..8),
            prop::collection::vec(identity::op(), 0..12),
        )
            .prop_map(
                |(backend, shape, a_rows, b_rows, writes, transactions, queries, identity)| Case {
                    backend,
                    shape,
                    a_rows,
                    b_rows,
                    writes,
                    transactions,
                    queries,
                    identity,
                },
            )
    })
}

fn sqlite_value(v: rusqlite::types::ValueRef<'_>) -> Value {
    match v {
        rusqlite::types::ValueRef::Integer(i) => Value::Int(i),
        rusqlite::types::ValueRef::Null => Value::Null,
        other => panic!("unexpected SQLite value {other:?}"),
    }
}

fn sqlite_answer(db: &rusqlite::Connection, sql: &str, answer: Answer, x: i64, y: i64) -> Value {
    let mut statement = db.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let names: Vec<String> = statement
        .column_names()
        .map(|n| n.trim_start_matches("B.").to_string())
        .collect();
    let rows: Vec<Vec<Value>> = statement
        .query_map(rusqlite::params![x, y], |row| {
            Ok((0..names.len())
                .map(|i| sqlite_value(row.get_ref(i).unwrap()))
                .collect())
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let record =
        |row: &Vec<Value>| Value::Record(names.iter().cloned().zip(row.iter().cloned()).collect());
    match answer {
        Answer::Scalar => rows[0][0].clone(),
        Answer::Optional => rows.first().map(record).unwrap_or(Value::Null),
        Answer::Rows => Value::List(rows.iter().map(record).collect()),
    }
}

/// Runs one case; returns how many queries were compared.
fn run_case(case: &Case) -> Result<Compared, TestCaseError> {
    let mut source = case.shape.rql() + identity::PROGRAM;
    let queries: Vec<(String, &Query, i64, i64)> = case
        .queries
        .iter()
        .filter_map(|(q, x, y)| Some((q.rql(&case.shape)?, q, *x, *y)))
        .collect();
    for (i, (text, ..)) in queries.iter().enumerate() {
        source.push_str(&text.replacen("query q(", &format!("query q{i}("), 1));
    }
    let compilation = compile(&[("diff.rq".to_string(), source.clone())]);
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

    for (i, columns) in case.a_rows.iter().enumerate() {
        let mut args: Vec<Value> = vec![(i as i64 + 1).into()];
        args.extend(columns.iter().map(|c| Value::Int(*c)));
        engine.run("add_a", &args).unwrap();
        reference.run("add_a", &args);
    }
    let mut per_a = std::collections::HashMap::new();
    for (a, w) in &case.b_rows {
        let n = per_a.entry(*a).or_insert(0i64);
        *n += 1;
        let args: Vec<Value> = vec![(*a).into(), (*n).into(), (*w).into()];
        let stored = engine.run("add_b", &args);
        let allowed = *a <= case.a_rows.len() as i64 && *n <= case.shape.bound;
        // The runtime enforces `ref` and `bound` on write: exactly the rows
        // the schema allows get in.
        prop_assert_eq!(stored.is_ok(), allowed, "add_b{:?}", args);
        if allowed {
            reference.run("add_b", &args);
        } else {
            *n -= 1;
        }
    }
    // Refused rows left nothing behind: every index and counter equals the rows.
    let integrity = check_integrity(engine.store(), schema);
    prop_assert_eq!(integrity, Ok(()));

    let mut compared = Compared {
        queries: queries.len(),
        writes_committed: 0,
        writes_refused: 0,
        transactions_committed: 0,
        transactions_refused: 0,
        identity_committed: 0,
    };
    for write in &case.writes {
        let (name, args) = write.call();
        let before = store_tables(engine.store(), schema);
        let refused = write.refused(&reference, case.shape.bound);
        match engine.run(name, &args) {
            Ok(output) => {
                prop_assert!(refused.is_none(), "{} {:?} was not refused", name, args);
                let expected = reference.run(name, &args);
                prop_assert_eq!(
                    &output.value,
                    &expected,
                    "rqc vs reference: {} {:?}",
                    name,
                    args
                );
                prop_assert!(
                    output.stats.seeks <= output.bound.seeks
                        && output.stats.rows <= output.bound.rows
                        && output.stats.round_trips <= output.bound.round_trips,
                    "{} read {:?}, over its bound {:?}",
                    name,
                    output.stats,
                    output.bound
                );
                compared.writes_committed += 1;
            }
            Err(error) => {
                prop_assert!(refused.is_some(), "{} {:?}: {}", name, args, error);
                prop_assert_eq!(Some(error.code), refused);
                prop_assert_eq!(&before, &store_tables(engine.store(), schema));
                compared.writes_refused += 1;
            }
        }
        prop_assert_eq!(
            store_tables(engine.store(), schema),
            reference_tables(&reference, schema),
            "tables after {} {:?}",
            name,
            args
        );
        let integrity = check_integrity(engine.store(), schema);
        prop_assert_eq!(integrity, Ok(()), "after {} {:?}", name, args);
    }

    let bound = case.shape.bound;
    (
        compared.transactions_committed,
        compared.transactions_refused,
    ) = transactions::run(&engine, &mut reference, &case.transactions, bound, schema)?;

    compared.identity_committed = identity::run(&engine, &mut reference, &case.identity)?;
    prop_assert_eq!(
        store_tables(engine.store(), schema),
        reference_tables(&reference, schema),
        "tables after {:?}",
        &case.identity
    );
    let integrity = check_integrity(engine.store(), schema);
    prop_assert_eq!(integrity, Ok(()), "after {:?}", &case.identity);

    // SQLite answers the queries over the tables the writes left (those of
    // Ints: `F`'s floats and strings are compared with the reference alone).
    let sqlite = rusqlite::Connection::open_in_memory().unwrap();
    for statement in case.shape.sql() {
        sqlite.execute(&statement, []).unwrap();
    }
    for (table, rows) in reference_tables(&reference, schema) {
        // `D`'s rows may hold `none`: compared with the reference alone.
        if table == "F" || table == "D" {
            continue;
        }
        for row in rows {
            let Value::Record(fields) = row else {
                unreachable!("a row is a record")
            };
            let values: Vec<i64> = fields
                .iter()
                .map(|(_, v)| match v {
                    Value::Int(n) => *n,
                    other => panic!("not an Int: {other:?}"),
                })
                .collect();
            let placeholders = vec!["?"; values.len()].join(", ");
            sqlite
                .execute(
                    &format!("INSERT INTO {table} VALUES ({placeholders})"),
                    rusqlite::params_from_iter(values),
                )
                .unwrap();
        }
    }

    for (i, (_, query, x, y)) in queries.iter().enumerate() {
        let name = format!("q{i}");
        let args = [Value::Int(*x), Value::Int(*y)];
        let output = engine.run(&name, &args).unwrap();
        let expected = reference.run(&name, &args);
        prop_assert_eq!(
            &output.value,
            &expected,
            "rqc vs reference: {} {:?}",
            name,
            args
        );
        let (sql, answer) = query.sql(&case.shape);
        let from_sqlite = sqlite_answer(&sqlite, &sql, answer, *x, *y);
        prop_assert_eq!(
            &output.value,
            &from_sqlite,
            "rqc vs SQLite: {} {:?}\n{}",
            name,
            args,
            sql
        );
        let entry = compilation
            .program
            .entries
            .iter()
            .find(|e| e.name == name)
            .unwrap();
        prop_assert!(
            output.stats.seeks <= entry.bound.seeks
                && output.stats.rows <= entry.bound.rows
                && output.stats.round_trips <= entry.bound.round_trips,
            "{} read {:?}, over its bound {:?}",
            name,
            output.stats,
            entry.bound
        );
    }
    Ok(compared)
}

fn cases() -> u32 {
    rqc_tests::cases_from_env("RQC_DIFF_CASES", 48)
}

proptest! {
    // A failure prints its shrunk case; nothing is written beside the sources.
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn rqc_agrees_with_the_reference_and_sqlite_within_its_bounds(case in case()) {
        run_case(&case)?;
    }
}
