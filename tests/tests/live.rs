//! Live queries against the reference evaluator: a random stream of
//! inserts, updates and deletes runs on rqc (and, when rqc commits it, on
//! the reference evaluator) while subscribers watch bounded queries of
//! every form; after each commit every subscriber's state — its first
//! result with every event since applied — equals a fresh run of its query
//! on the reference evaluator, and no event came for a commit that left a
//! result as it was. Some subscribers disconnect for part of the stream
//! and resume from the last position and result they took.
//!
//! The same runs on a database on etcd (a one-member cluster), fewer of
//! them: there the watcher is rung by an etcd watch on the changelog.
//!
//! `RQC_LIVE_CASES` sets the number of generated cases (default 12; on
//! etcd, a third of it).

use proptest::prelude::*;
use rqc_compiler::compile;
use rqc_plan::Value;
use rqc_runtime::live::{apply, Event, Resume, Subscription, WatchOptions};
use rqc_runtime::{Backend, Durability, Engine, OpenOptions};
use rqc_tests::fixtures::as_multiset;
use rqc_tests::reference::Reference;
use rqc_tests::state::{reference_tables, store_tables};
use std::time::Duration;
use writes::{write, Write, D_BOUND, WRITES};

#[path = "differential/writes.rs"]
mod writes;

#[path = "live/installs.rs"]
mod installs;
use installs::install;

const QUERIES: &[(&str, &str)] = &[
    ("q_key", "A[x]"),
    ("q_prefix", "A.ix[x] |> take(3)"),
    ("q_range", "A.ix[x, c1 >= y] |> take(2)"),
    ("q_tuple", "A.ix[(c0, c1) > (x, y)] |> take(3)"),
    // Reverse reads: a range read from its high end listens from its
    // last row up; a sort that is the key read backwards; several in one
    // batch.
    ("q_latest", "A.ix[x] |> reverse() |> take(2)"),
    ("q_back_range", "A.ix[x, c1 < y] |> reverse() |> take(2)"),
    ("q_newest", "A |> sort_by(a => a.id, desc) |> take(2)"),
    (
        "q_latest_of",
        "[x, y] |> map(c => A.ix[c] |> reverse() |> take(2))",
    ),
    ("q_island", "B[x] |> filter(b => b.w > y)"),
    ("q_count", "B[x] |> count()"),
    ("q_sum", "B[x] |> map(b => b.w) |> sum()"),
    ("q_top", "B[x] |> sort_by(b => b.w, desc) |> take(2)"),
    ("q_join", "A.ix[x] |> take(2) |> flat_map(a => B[a.id])"),
    (
        "q_join_count",
        "A.ix[x] |> take(2) |> flat_map(a => B[a.id]) |> count()",
    ),
    // Maintained aggregates: one key each, written by every write that
    // moves the group (spec/live.md).
    (
        "q_aggregates",
        "b_count[x] * 1000 + b_weight[x] + a_count[y]",
    ),
    ("q_extremes", "{ top: b_top[x], low: a_low[y] }"),
    // Whole-table aggregates: one key each, written by every write.
    ("q_whole", "{ rows: a_all, weight: b_all, x: x }"),
    // Batched: each element's reads are read ahead in one batch, and a
    // subscription listens to every key read so.
    (
        "q_batched",
        "B[x] |> map(b => { n: b_count[b.w], row: A[b.n] })",
    ),
    // Keys from a list (one batch) and the union of two ranges.
    ("q_in", "A[id in [x, y, 1, x]]"),
    ("q_union", "A.ix[x] |> take(2) || A.ix[y] |> take(2)"),
    // Rows a delete of an `A` row sets to `none` (on delete set none).
    ("q_flags", "D.by_a[x] |> count()"),
    ("q_flag", "D[x]"),
];

/// The program's variants, which installs between mutations draw from:
/// `B`'s bound per `a`, the `take` of `q_top`, and whether `q_count` is
/// declared (its subscribers end, E0587, when it is not). The first is
/// installed at the start.
/// In the third, `B.a` cascades: a delete of an `A` row takes its `B`
/// rows with it (an install that adds or removes it changes no data).
const VARIANTS: [(i64, i64, bool, bool); 4] = [
    (4, 2, true, false),
    (8, 2, true, false),
    (4, 3, true, true),
    (8, 3, false, false),
];

fn program(variant: usize) -> String {
    let (bound, top, counted, cascade) = VARIANTS[variant];
    let cascade = if cascade { " on delete cascade" } else { "" };
    let mut source = format!(
        "table A {{\n  id: Int key\n  c0: Int\n  c1: Int = 0\n  index ix (c0, c1)\n}}\n\
         table B {{\n  a: Int ref A{cascade}\n  n: Int\n  w: Int\n  key (a, n)\n  bound a <= {bound}\n}}\n\
         table N {{\n  id: Int key auto\n  v: Int = 0\n}}\n\
         table D {{\n  id: Int key\n  a: Int? ref A on delete set none\n  index by_a (a)\n  bound a <= {D_BOUND}\n}}\n\
         aggregate b_count = count(B) by a\n\
         aggregate b_weight = sum(B.w) by a\n\
         aggregate a_count = count(A) by c0\n\
         aggregate b_top = max(B.w) by a\n\
         aggregate a_low = min(A.c1) by c0\n\
         aggregate a_all = count(A)\n\
         aggregate b_all = sum(B.w)\n\
         mutation add_a(id: Int, c0: Int, c1: Int) = insert A {{ id, c0, c1 }}\n\
         mutation add_b(a: Int, n: Int, w: Int) = insert B {{ a, n, w }}\n\
         mutation move_a(ids: [Int; <= 6], x: Int) =\n\
         \x20 update (ids |> map(i => A[i]) |> flatten()) {{ c0: x }}\n\
         mutation restamp_a(i: Int, x: Int, y: Int) =\n\
         \x20 {{ let r = A[i]; update r {{ c0: x }}; update r {{ c1: y }} }}\n\
         mutation put_a(id: Int, x: Int) = upsert A {{ id, c0: x }}\n\
         mutation step_a(ids: [Int; <= 6], d: Int) =\n\
         \x20 update (ids |> map(i => A[i]) |> flatten()) {{ c0 += d }}\n",
    );
    source.push_str(WRITES);
    for (name, body) in QUERIES {
        let body = match *name {
            "q_count" if !counted => continue,
            "q_top" => body.replace("take(2)", &format!("take({top})")),
            _ => body.to_string(),
        };
        source.push_str(&format!("query {name}(x: Int, y: Int) = {body}\n"));
    }
    source
}

#[derive(Debug, Clone)]
enum Op {
    AddA(i64, i64, i64),
    AddB(i64, i64, i64),
    Write(Write),
    /// An install of a variant of the program ([`VARIANTS`]) while the
    /// subscriptions are open.
    Install(usize),
}

impl Op {
    fn call(&self) -> (&'static str, Vec<Value>) {
        match self {
            Op::AddA(id, c0, c1) => ("add_a", vec![(*id).into(), (*c0).into(), (*c1).into()]),
            Op::AddB(a, n, w) => ("add_b", vec![(*a).into(), (*n).into(), (*w).into()]),
            Op::Write(write) => write.call(),
            Op::Install(_) => unreachable!("an install is no call"),
        }
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (1i64..=13, 0i64..4, 0i64..6).prop_map(|(id, c0, c1)| Op::AddA(id, c0, c1)),
        3 => (1i64..=13, 1i64..=5, -5i64..20).prop_map(|(a, n, w)| Op::AddB(a, n, w)),
        2 => write().prop_map(Op::Write),
        1 => (0..VARIANTS.len()).prop_map(Op::Install),
    ]
}

#[derive(Debug, Clone)]
struct Case {
    /// `None`: a database on etcd.
    backend: Option<Backend>,
    /// Subscriptions: a query of [`QUERIES`] by position, and `x`, `y`.
    watched: Vec<(usize, i64, i64)>,
    ops: Vec<Op>,
}

fn case() -> impl Strategy<Value = Case> {
    let backend = prop_oneof![
        Just(Backend::Memory),
        Just(Backend::Sled),
        Just(Backend::Redb),
        Just(Backend::Lmdb)
    ]
    .prop_map(Some);
    (
        backend,
        prop::collection::vec((0..QUERIES.len(), -1i64..14, -2i64..8), 4..12),
        prop::collection::vec(op(), 1..40),
    )
        .prop_map(|(backend, watched, ops)| Case {
            backend,
            watched,
            ops,
        })
}

struct Watcher {
    name: &'static str,
    args: Vec<Value>,
    /// `None` while disconnected (see `run_case`).
    live: Option<Subscription>,
    held: Value,
    /// The position of the last event taken.
    position: u64,
    events: usize,
}

fn run_case(case: &Case) -> Result<(), TestCaseError> {
    let compilations: Vec<_> = (0..VARIANTS.len())
        .map(|variant| compile(&[("live.rq".to_string(), program(variant))]))
        .collect();
    for compilation in &compilations {
        prop_assert!(
            compilation.diagnostics.is_empty(),
            "{:?}",
            compilation.diagnostics
        );
    }
    let compilation = &compilations[0];
    let mut variant = 0;
    let dir = tempfile::tempdir().unwrap();
    let mut engine = match case.backend {
        Some(backend) => {
            let options = OpenOptions {
                backend: Some(backend),
                durability: Durability::None,
                ..OpenOptions::default()
            };
            Engine::open(&dir.path().join("db"), options).unwrap()
        }
        None => rqc_tests::etcd::engine(),
    };
    engine.install(compilation.program.clone()).unwrap();
    let mut reference = Reference::new(&compilation.checked);

    let subscribe = |engine: &Engine, (q, x, y): (usize, i64, i64)| {
        let name = QUERIES[q].0;
        let args = vec![Value::Int(x), Value::Int(y)];
        // Not in the variant installed now: no subscription.
        let entry = engine.entry(name).ok()?;
        let live = engine
            .subscribe(entry, &args, WatchOptions::default())
            .unwrap();
        let Some(Event::Result { value, position }) = live.try_next() else {
            panic!("a subscription opens with its whole result");
        };
        Some(Watcher {
            name,
            args,
            live: Some(live),
            held: value,
            position,
            events: 0,
        })
    };
    // Half subscribe before any write, half in the middle of the stream.
    let (early, late) = case.watched.split_at(case.watched.len() / 2);
    let mut watchers: Vec<Watcher> = early
        .iter()
        .filter_map(|w| subscribe(&engine, *w))
        .collect();
    let mut changed_commits = 0;
    for (i, op) in case.ops.iter().enumerate() {
        if i == case.ops.len() / 2 {
            watchers.extend(late.iter().filter_map(|w| subscribe(&engine, *w)));
        }
        // Every other early subscriber disconnects for the second quarter
        // of the stream, then resumes from the last position and result it
        // took: its first event brings it to a fresh run's result.
        if i == case.ops.len() / 4 {
            for watcher in watchers.iter_mut().step_by(2) {
                watcher.live = None;
            }
        }
        if i == case.ops.len() * 3 / 4 {
            for watcher in watchers.iter_mut().filter(|w| w.live.is_none()) {
                let resume = Resume {
                    position: watcher.position,
                    result: watcher.held.clone(),
                };
                let options = WatchOptions {
                    resume: Some(resume),
                    ..WatchOptions::default()
                };
                let entry = engine.entry(watcher.name).unwrap();
                let live = engine.subscribe(entry, &watcher.args, options).unwrap();
                while let Some(event) = live.try_next() {
                    apply(&mut watcher.held, &event);
                    watcher.position = event.position();
                }
                let fresh = reference.run(watcher.name, &watcher.args);
                prop_assert_eq!(
                    as_multiset(&watcher.held),
                    as_multiset(&fresh),
                    "resumed {}",
                    watcher.name
                );
                watcher.live = Some(live);
            }
        }
        if let Op::Install(next) = op {
            install(
                &mut engine,
                &compilations,
                (&mut variant, *next),
                &mut reference,
                &mut watchers,
            )?;
            continue;
        }
        let schema = &compilations[variant].program.schema;
        let (name, args) = op.call();
        let before: Vec<Value> = watchers
            .iter()
            .map(|w| reference.run(w.name, &w.args))
            .collect();
        // An insert may be refused (a key taken, a bound full, a missing
        // reference); an update or delete only as the differential test says.
        let bound = VARIANTS[variant].0;
        let refused = matches!(op, Op::Write(write) if write.refused(&reference, bound).is_some());
        match engine.run(name, &args) {
            Ok(_) => {
                prop_assert!(!refused, "{} {:?} was not refused", name, &args);
                reference.run(name, &args);
            }
            Err(error) => prop_assert!(
                refused || !matches!(op, Op::Write(_)),
                "{} {:?}: {}",
                name,
                &args,
                error
            ),
        }
        prop_assert_eq!(
            store_tables(engine.store(), schema),
            reference_tables(&reference, schema),
            "tables after {} {:?}",
            name,
            args
        );
        let position = engine.position().unwrap();
        for (watcher, before) in watchers.iter_mut().zip(before) {
            let Some(live) = &watcher.live else { continue };
            prop_assert!(
                live.wait_for(position, Duration::from_secs(30)),
                "the watcher did not reach position {}",
                position
            );
            let mut came = 0;
            while let Some(event) = live.try_next() {
                prop_assert!(
                    event.position() <= position,
                    "an event from the future: {:?}",
                    event
                );
                prop_assert!(
                    matches!(event, Event::Result { .. } | Event::Rows { .. }),
                    "{:?}",
                    event
                );
                apply(&mut watcher.held, &event);
                watcher.position = event.position();
                came += 1;
            }
            let fresh = reference.run(watcher.name, &watcher.args);
            prop_assert_eq!(
                as_multiset(&watcher.held),
                as_multiset(&fresh),
                "{} {:?} after {} {:?}",
                watcher.name,
                &watcher.args,
                name,
                &args
            );
            // One event per changing commit, none for the others.
            prop_assert_eq!(
                came,
                usize::from(before != fresh),
                "{} events",
                watcher.name
            );
            watcher.events += came;
            changed_commits += came;
        }
    }
    let _ = changed_commits;
    if case.backend.is_none() {
        // On etcd the watcher is rung by the cluster's watch (at least once, when it is armed).
        prop_assert!(engine.live_stats().rings > 0, "the etcd watch never rang");
    }
    Ok(())
}

fn cases() -> u32 {
    rqc_tests::cases_from_env("RQC_LIVE_CASES", 12)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_subscriber_holds_a_fresh_runs_result_after_every_commit(case in case()) {
        run_case(&case)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases().div_ceil(3),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn on_etcd_every_subscriber_holds_a_fresh_runs_result_after_every_commit(
        case in case().prop_map(|case| Case { backend: None, ..case })
    ) {
        run_case(&case)?;
    }
}

/// Upkeep: of many subscriptions, a commit evaluates again only those
/// whose read ranges hold a key it wrote; dropped ones leave the index.
#[test]
fn a_commit_evaluates_only_the_subscriptions_it_touches() {
    let compilation = compile(&[("live.rq".to_string(), program(0))]);
    let mut engine = Engine::in_memory();
    engine.install(compilation.program).unwrap();
    for id in 1..=40 {
        engine
            .run("add_a", &[id.into(), (id % 4).into(), id.into()])
            .unwrap();
    }
    let key = engine.entry("q_key").unwrap().clone();
    let subs: Vec<Subscription> = (1..=40)
        .map(|id| {
            engine
                .subscribe(&key, &[Value::Int(id), 0.into()], WatchOptions::default())
                .unwrap()
        })
        .collect();
    let position = engine.position().unwrap();
    assert!(subs[0].wait_for(position, Duration::from_secs(30)));
    let before = engine.live_stats();
    assert_eq!(before.subscriptions, 40);
    engine
        .run("restamp_a", &[7.into(), 3.into(), 9.into()])
        .unwrap();
    assert!(subs[0].wait_for(position + 1, Duration::from_secs(30)));
    let after = engine.live_stats();
    assert_eq!(after.evaluations - before.evaluations, 1);
    let opening = subs[6].try_next().unwrap();
    assert!(matches!(opening, Event::Result { .. }));
    let Some(Event::Result {
        position: at,
        value,
    }) = subs[6].try_next()
    else {
        panic!("A[7] changed");
    };
    assert_eq!(at, position + 1);
    assert_eq!(value.field("c1"), Some(&Value::Int(9)));
    // A subscription to another key heard nothing past its opening.
    assert!(subs[5].try_next().is_some());
    assert_eq!(subs[5].try_next(), None);
    drop(subs);
    let empty = engine.live_stats();
    assert_eq!((empty.subscriptions, empty.boundaries), (0, 0));
}

/// A subscriber that reads nothing while many commits change its result
/// holds at most its queue's capacity; what it reads then ends with an
/// overflow and the whole current result, which equals a fresh run.
#[test]
fn a_slow_subscriber_gets_an_overflow_then_the_whole_result() {
    let compilation = compile(&[("live.rq".to_string(), program(0))]);
    let mut engine = Engine::in_memory();
    engine.install(compilation.program).unwrap();
    let prefix = engine.entry("q_prefix").unwrap().clone();
    let args = [Value::Int(1), 0.into()];
    let options = WatchOptions {
        capacity: 3,
        ..WatchOptions::default()
    };
    let live = engine.subscribe(&prefix, &args, options).unwrap();
    for id in 1..=12 {
        engine
            .run("add_a", &[id.into(), 1.into(), (20 - id).into()])
            .unwrap();
        // Each commit is matched on its own, so each is one event.
        assert!(live.wait_for(engine.position().unwrap(), Duration::from_secs(30)));
    }
    let events: Vec<Event> = std::iter::from_fn(|| live.try_next()).collect();
    assert!(events.len() <= 3, "{events:?}");
    let at = events
        .iter()
        .position(|e| matches!(e, Event::Overflow { .. }))
        .expect("an overflow");
    let Event::Result { value, .. } = &events[at + 1] else {
        panic!("the whole result follows the overflow: {events:?}");
    };
    let mut held = value.clone();
    for event in &events[at + 2..] {
        apply(&mut held, event);
    }
    let fresh = engine.run("q_prefix", &args).unwrap().value;
    assert_eq!(as_multiset(&held), as_multiset(&fresh));
    let too_small = WatchOptions {
        capacity: 1,
        ..WatchOptions::default()
    };
    let refused = engine.subscribe(&prefix, &args, too_small).err().unwrap();
    assert_eq!(refused.code, "E0584");
}

/// A changelog that does not decode ends every subscription with E0580
/// (and a later one at once): no subscriber waits for events that cannot
/// come, and none is told of a change that was not read.
#[test]
fn a_damaged_changelog_ends_every_subscription_with_its_code() {
    let compilation = compile(&[("live.rq".to_string(), program(0))]);
    let mut engine = Engine::in_memory();
    engine.install(compilation.program).unwrap();
    let key = engine.entry("q_key").unwrap();
    let args = [Value::Int(1), 0.into()];
    let live = engine
        .subscribe(key, &args, WatchOptions::default())
        .unwrap();
    assert!(matches!(live.try_next(), Some(Event::Result { .. })));
    let store = engine.store();
    let log = store.tree(rqc_runtime::live::changelog::LOG_TREE);
    // On an embedded store the head is the last entry's key: one that is
    // not a position (on etcd, the head key holds it, damaged alike).
    let mut txn = store.begin_write().unwrap();
    txn.put(log, b"s-not-a-position", b"").unwrap();
    txn.commit().unwrap();
    let Some(Event::Failed { error, .. }) = live.next_timeout(Duration::from_secs(30)) else {
        panic!("the watcher reports the damage");
    };
    assert_eq!(error.code, "E0580");
    assert_eq!(live.next_timeout(Duration::from_secs(1)), None);
    assert!(live.is_closed());
    let later = engine.subscribe(key, &args, WatchOptions::default());
    // The first evaluation reads the head too.
    assert_eq!(later.err().map(|e| e.code), Some("E0580"));
}

/// A subscription to a `map` whose lookups are read in one batch listens
/// to every key the batch read: a commit that moves one of those groups
/// reaches it (and one that moves another group does not).
#[test]
fn a_batched_read_of_aggregates_hears_each_group_it_read() {
    let compilation = compile(&[("live.rq".to_string(), program(0))]);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    let mut engine = Engine::in_memory();
    engine.install(compilation.program).unwrap();
    for id in 1..=4 {
        engine
            .run("add_a", &[id.into(), 0.into(), 0.into()])
            .unwrap();
    }
    // B[1] holds three rows whose weights name groups 2, 3 and 4.
    for (n, w) in [(1, 2), (2, 3), (3, 4)] {
        engine
            .run("add_b", &[1.into(), n.into(), w.into()])
            .unwrap();
    }
    let entry = engine.entry("q_batched").unwrap().clone();
    let live = engine
        .subscribe(&entry, &[1.into(), 0.into()], WatchOptions::default())
        .unwrap();
    let position = engine.position().unwrap();
    assert!(live.wait_for(position, Duration::from_secs(30)));
    assert!(matches!(live.try_next(), Some(Event::Result { .. })));
    // A row in group 4 (b_count[4]) changes the third element's count.
    engine
        .run("add_b", &[4.into(), 1.into(), 0.into()])
        .unwrap();
    assert!(live.wait_for(position + 1, Duration::from_secs(30)));
    let event = live.try_next();
    assert!(
        matches!(event, Some(Event::Rows { .. }) | Some(Event::Result { .. })),
        "the batched read of b_count[4] heard the commit: {event:?}"
    );
}
