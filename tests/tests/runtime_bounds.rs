//! The runtime holds every operator to its bound as it reads: a plan whose bound is wrong (as a checker bug would make it) stops after at most one row past the bound, on a table a hundred times larger, and a limit above its proved maximum stops before anything is read.
//!
//! The plans here are written by hand, with bounds too small on purpose:
//! the runtime must not trust them to be right.

use rqc_plan::{
    Bound, ColumnType, Combinator, Entry, EntryKind, Node, Op, ParamSpec, ParamType, Shape, Value,
};
use rqc_runtime::Engine;

const BOUND: u64 = 10;
const ROWS: i64 = 100 * BOUND as i64;

const PROGRAM: &str = "
table Post {
  id: Int key
  author: Int
  index by_author (author)
}
aggregate posts_of = count(Post) by author
mutation add(id: Int, author: Int) = insert Post { id, author }
";

/// An engine whose one author has a hundred times `BOUND` posts.
fn engine() -> (Engine, rqc_plan::CompiledProgram) {
    let compilation = rqc_tests::compiled_cleanly(&[("p.rq".to_string(), PROGRAM.to_string())]);
    let mut engine = Engine::in_memory();
    engine.install(compilation.program.clone()).unwrap();
    // The plans below claim less than they read: the verifier would refuse
    // them before the run (as it does every plan not installed); these
    // tests are of the run's own meters behind it.
    engine.skip_verifying_lines();
    for id in 0..ROWS {
        engine.run("add", &[id.into(), 1.into()]).unwrap();
    }
    (engine, compilation.program)
}

fn node(op: Op, bound: Option<Bound>) -> Node {
    Node { id: 0, op, bound }
}

fn number(node: &mut Node, next: &mut u32) {
    node.id = *next;
    *next += 1;
    for child in node.children_mut() {
        number(child, next);
    }
}

fn scan(stream: bool) -> Node {
    node(
        Op::Scan {
            table: "Post".into(),
            index: Some("by_author".into()),
            prefix: vec![node(Op::Param(0), None)],
            lower: None,
            upper: None,
            stream,
            starts_with: false,
        },
        None,
    )
}

fn entry(mut root: Node, bound: Bound) -> Entry {
    root.bound = Some(bound);
    number(&mut root, &mut 0);
    Entry {
        module: "p".into(),
        name: "wrong".into(),
        kind: EntryKind::Query,
        params: ["author", "count"]
            .iter()
            .map(|name| ParamSpec {
                name: name.to_string(),
                ty: ParamType::Scalar(ColumnType::Int),
                max: None,
                min: None,
                max_param: None,
            })
            .collect(),
        bound,
        root,
    }
}

fn too_small() -> Bound {
    Bound {
        seeks: 1,
        rows: BOUND,
        round_trips: u64::MAX,
    }
}

/// The error of running `entry`, which must be E0599.
fn stopped(engine: &Engine, entry: &Entry, args: &[Value]) -> String {
    let error = engine.run_entry(entry, args).unwrap_err();
    assert_eq!(error.code, "E0599", "{error}");
    error.message
}

#[test]
fn an_eager_scan_past_its_bound_stops_one_row_after_it() {
    let (engine, _) = engine();
    let message = stopped(
        &engine,
        &entry(scan(false), too_small()),
        &[1.into(), 0.into()],
    );
    assert!(
        message.contains(&format!("read 1 seeks and {} rows", BOUND + 1)),
        "{message}"
    );
}

/// `take(count)` of `stream`, the count's maximum `max`.
fn take_of(stream: Node, count: i64, max: u64) -> Node {
    let limit = Op::Limit {
        count: Box::new(node(Op::Const(Value::Int(count)), None)),
        max,
    };
    node(
        Op::Combinator(
            Combinator::Take,
            Shape::Stream,
            vec![stream, node(limit, None)],
        ),
        None,
    )
}

/// `stream |> reverse()`: read from the range's other end.
fn reversed(stream: Node) -> Node {
    node(
        Op::Combinator(Combinator::Reverse, Shape::Stream, vec![stream]),
        None,
    )
}

#[test]
fn a_take_past_its_bound_stops_one_row_after_it() {
    let (engine, _) = engine();
    let take = take_of(scan(true), ROWS, ROWS as u64);
    let message = stopped(&engine, &entry(take, too_small()), &[1.into(), 0.into()]);
    assert!(
        message.contains(&format!("read 1 seeks and {} rows", BOUND + 1)),
        "{message}"
    );
}

/// The same read from the range's other end (`reverse()`, a reverse
/// read) is held to its bound the same way: one row past it, no more.
#[test]
fn a_reverse_take_past_its_bound_stops_one_row_after_it() {
    let (engine, _) = engine();
    let take = take_of(reversed(scan(true)), ROWS, ROWS as u64);
    let message = stopped(&engine, &entry(take, too_small()), &[1.into(), 0.into()]);
    assert!(
        message.contains(&format!("read 1 seeks and {} rows", BOUND + 1)),
        "{message}"
    );
    // Within its bound it reads the newest rows, newest first.
    let three = take_of(reversed(scan(true)), 3, 3);
    let output = engine
        .run_entry(&entry(three, too_small()), &[1.into(), 0.into()])
        .unwrap();
    let ids: Vec<Value> = match &output.value {
        Value::List(rows) => rows
            .iter()
            .map(|row| match row {
                Value::Record(fields) => fields.get("id").cloned().unwrap(),
                other => panic!("a row: {other:?}"),
            })
            .collect(),
        other => panic!("a list: {other:?}"),
    };
    assert_eq!(ids, [ROWS - 1, ROWS - 2, ROWS - 3].map(Value::Int));
    assert_eq!((output.stats.seeks, output.stats.rows), (1, 3));
}

/// `Post.by_author[$0] |> take($1)` with the count's proved maximum
/// `BOUND`, and an operator bound that would allow the whole table (so only
/// the limit's own check can stop a large count).
fn take_of_parameter() -> Entry {
    let take = node(
        Op::Combinator(
            Combinator::Take,
            Shape::Stream,
            vec![
                scan(true),
                node(
                    Op::Limit {
                        count: Box::new(node(Op::Param(1), None)),
                        max: BOUND,
                    },
                    None,
                ),
            ],
        ),
        None,
    );
    let generous = Bound {
        seeks: 1,
        rows: ROWS as u64,
        round_trips: u64::MAX,
    };
    entry(take, generous)
}

#[test]
fn a_limit_above_its_proved_maximum_stops_before_the_read() {
    let (engine, _) = engine();
    let plan = take_of_parameter();
    let message = stopped(&engine, &plan, &[1.into(), 500.into()]);
    assert!(
        message.contains("computed a limit of 500, above its proved maximum of 10"),
        "{message}"
    );
    // Within its maximum the same plan runs and reads what it takes.
    let within = engine.run_entry(&plan, &[1.into(), 7.into()]).unwrap();
    assert_eq!(within.stats.rows, 7);
}

#[test]
fn lookups_inside_a_mapped_stream_are_held_to_the_bound_too() {
    let (engine, _) = engine();
    // Each post read looks itself up again: two rows and one seek each.
    let mapped = each_post("id", |key| Op::Get {
        table: "Post".into(),
        key: vec![key],
    });
    let take = node(
        Op::Combinator(
            Combinator::Take,
            Shape::Stream,
            vec![
                mapped,
                node(
                    Op::Limit {
                        count: Box::new(node(Op::Const(Value::Int(ROWS)), None)),
                        max: ROWS as u64,
                    },
                    None,
                ),
            ],
        ),
        None,
    );
    let bound = Bound {
        seeks: 1 + BOUND,
        rows: 2 * ROWS as u64,
        round_trips: u64::MAX,
    };
    let message = stopped(&engine, &entry(take, bound), &[1.into(), 0.into()]);
    assert!(
        message.contains(&format!("read {} seeks", BOUND + 2)),
        "{message}"
    );
}

#[test]
fn aggregate_reads_inside_a_mapped_stream_are_held_to_the_bound_too() {
    let (engine, _) = engine();
    // Each post read reads its author's count: one seek and one row each.
    let take = take_of_all();
    let bound = Bound {
        seeks: 1 + BOUND,
        rows: 2 * ROWS as u64,
        round_trips: u64::MAX,
    };
    let message = stopped(&engine, &entry(take, bound), &[1.into(), 0.into()]);
    assert!(
        message.contains(&format!("read {} seeks", BOUND + 2)),
        "{message}"
    );
    // Within a bound that holds, every count is the author's.
    let right = Bound {
        seeks: 1 + ROWS as u64,
        rows: 2 * ROWS as u64,
        round_trips: u64::MAX,
    };
    let plan = entry(take_of_all(), right);
    let output = engine.run_entry(&plan, &[1.into(), 0.into()]).unwrap();
    let Value::List(counts) = output.value else {
        panic!("a list of counts")
    };
    assert_eq!(counts.len(), ROWS as usize);
    assert!(counts.iter().all(|c| *c == Value::Int(ROWS)));
}

/// The author's posts as a stream, each mapped through `read` of the
/// post's `field` (`p => read(p.field)`).
fn each_post(field: &str, read: impl FnOnce(Node) -> Op) -> Node {
    let key = node(
        Op::Field(Box::new(node(Op::Var("p".into()), None)), field.into()),
        None,
    );
    let lambda = node(
        Op::Lambda(vec!["p".into()], Box::new(node(read(key), None))),
        None,
    );
    node(
        Op::Combinator(Combinator::Map, Shape::Stream, vec![scan(true), lambda]),
        None,
    )
}

/// `take(ROWS)` of the author's posts, each mapped to its author's count.
fn take_of_all() -> Node {
    let mapped = each_post("author", |key| Op::Aggregate {
        aggregate: "posts_of".into(),
        key: vec![key],
    });
    node(
        Op::Combinator(
            Combinator::Take,
            Shape::Stream,
            vec![
                mapped,
                node(
                    Op::Limit {
                        count: Box::new(node(Op::Const(Value::Int(ROWS)), None)),
                        max: ROWS as u64,
                    },
                    None,
                ),
            ],
        ),
        None,
    )
}

/// Inside a transaction each call is held to its own bound: a mutation
/// whose entry claims fewer round trips than its reads and a commit of its
/// own is refused at its call (E0546), and a query past its bound stops
/// (E0599); neither commits anything of the transaction, whose earlier
/// calls are dropped with it.
#[test]
fn a_call_past_its_bound_inside_a_transaction_stores_nothing() {
    let (engine, program) = engine();
    let add = program.entry("add").unwrap();
    let mut edited = add.clone();
    edited.bound.round_trips = add.bound.round_trips - 1;
    let position = engine.position().unwrap();
    let refused = engine.transaction(|tx| {
        tx.run("add", &[(ROWS + 1).into(), 2.into()])?;
        tx.run_entry(&edited, &[(ROWS + 2).into(), 2.into()])
    });
    let error = refused.unwrap_err();
    assert_eq!(error.code, "E0546", "{error}");
    assert!(error.message.contains("with its commit"), "{error}");
    let past = engine.transaction(|tx| {
        tx.run("add", &[(ROWS + 3).into(), 2.into()])?;
        tx.run_entry(&entry(scan(false), too_small()), &[1.into(), 0.into()])
    });
    assert_eq!(past.unwrap_err().code, "E0599");
    assert_eq!(engine.position().unwrap(), position, "nothing committed");
    let count = |id: i64| {
        let mut tx = engine.begin().unwrap();
        tx.run_entry(&entry(scan(false), too_small()), &[2.into(), id.into()])
            .map(|o| o.rows().len())
    };
    assert_eq!(count(0).unwrap(), 0, "no post of author 2 was stored");
}
