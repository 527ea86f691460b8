//! Maintained aggregates end to end: kept by every write (repeated rows, rows moving between groups, delete then insert), back-filled when added to a database that holds rows, cleared when dropped with `--migrate`, checked by `verify` (E0527), refused past 64 bits (E0526), on every backend.

use rqc_compiler::compile;
use rqc_plan::{CompiledProgram, Value};
use rqc_runtime::encoding::row::encode_row;
use rqc_runtime::{Backend, Durability, Engine, OpenOptions};

const TABLES: &str = "
table User { id: Int key }
table Like {
  id: Int key
  user: Int ref User
  post: Int
  weight: Int?
}
mutation add_user(id: Int) = insert User { id }
mutation like(id: Int, u: Int, p: Int, w: Int?) = insert Like { id, user: u, post: p, weight: w }
mutation unlike(id: Int) = delete Like[id]
mutation repost(id: Int, q: Int) = update Like[id] { post: q }
mutation reweigh(id: Int, w: Int?) = update Like[id] { weight: w }
// Two updates of one row, the second through the row as read before.
mutation twice(id: Int, w: Int, v: Int) = { let r = Like[id]; update r { weight: w }; update r { weight: v } }
// A delete then an insert of one key (into another group).
mutation recycle(id: Int, u: Int, p: Int, w: Int) = { delete Like[id]; insert Like { id, user: u, post: p, weight: w } }
mutation unlike_all(ids: [Int; <= 5]) = delete (ids |> map(i => Like[i]) |> flatten())
";

const AGGREGATES: &str = "
aggregate likes_of = count(Like) by post
aggregate weight_of = sum(Like.weight) by post
aggregate pair = count(Like) by (user, post)
query likes(p: Int) = likes_of[p]
query weight(p: Int) = weight_of[p]
query both(u: Int, p: Int) = { n: pair[u, p], likes: likes_of[p], weight: weight_of[p] }
query many(ps: [Int; <= 5]) = ps |> map(p => { likes: likes_of[p], weight: weight_of[p] })
";

fn program(text: &str) -> CompiledProgram {
    let compilation = compile(&[("app.rq".to_string(), text.to_string())]);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    compilation.program
}

fn engine(backend: Backend, dir: &std::path::Path) -> Engine {
    let options = OpenOptions {
        backend: Some(backend),
        durability: Durability::None,
        ..OpenOptions::default()
    };
    Engine::open(&dir.join("db"), options).unwrap()
}

fn int(engine: &Engine, name: &str, args: &[Value]) -> i64 {
    match engine.run(name, args).unwrap().value {
        Value::Int(n) => n,
        other => panic!("{name}: {other:?}"),
    }
}

/// The likes and weight of post `p`, recounted from the rows the database holds.
fn recount(rows: &[(i64, i64, Option<i64>)], p: i64) -> (i64, i64) {
    let group: Vec<_> = rows.iter().filter(|r| r.1 == p).collect();
    (
        group.len() as i64,
        group.iter().filter_map(|r| r.2).sum::<i64>(),
    )
}

/// An engine on each backend (in `dirs`, one per backend) and on etcd,
/// each named.
fn every_store(dirs: &[tempfile::TempDir]) -> Vec<(String, Engine)> {
    let mut engines: Vec<(String, Engine)> = Backend::ALL
        .iter()
        .zip(dirs)
        .map(|(b, d)| (format!("{b:?}"), engine(*b, d.path())))
        .collect();
    engines.push(("etcd".into(), rqc_tests::etcd::engine()));
    engines
}

fn assert_sound(engine: &Engine) {
    let found = engine.verify().unwrap();
    assert!(found.is_sound(), "{:?}", found.problems);
}

#[test]
fn every_write_keeps_the_aggregates_equal_to_a_recount() {
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        let mut engine = engine(backend, dir.path());
        engine
            .install(program(&format!("{TABLES}{AGGREGATES}")))
            .unwrap();
        for u in 1..=3 {
            engine.run("add_user", &[u.into()]).unwrap();
        }
        // The rows as they should be: (id, post, weight).
        let mut rows: Vec<(i64, i64, Option<i64>)> = Vec::new();
        let weight = |w: Option<i64>| w.map_or(Value::Null, Value::Int);
        for (id, u, p, w) in [
            (1, 1, 10, Some(5)),
            (2, 2, 10, None),
            (3, 3, 10, Some(-2)),
            (4, 1, 11, Some(7)),
        ] {
            engine
                .run("like", &[id.into(), u.into(), p.into(), weight(w)])
                .unwrap();
            rows.push((id, p, w));
        }
        let check = |engine: &Engine, rows: &[(i64, i64, Option<i64>)], what: &str| {
            for p in [10, 11, 12] {
                let (n, w) = recount(rows, p);
                assert_eq!(
                    int(engine, "likes", &[p.into()]),
                    n,
                    "{backend:?} {what} likes {p}"
                );
                assert_eq!(
                    int(engine, "weight", &[p.into()]),
                    w,
                    "{backend:?} {what} weight {p}"
                );
            }
            assert_sound(engine);
        };
        check(&engine, &rows, "inserts");
        // A refused insert (its reference is missing) moves nothing.
        let refused = engine.run("like", &[9.into(), 9.into(), 10.into(), 100.into()]);
        assert_eq!(refused.unwrap_err().code, "E0503");
        check(&engine, &rows, "a refused insert");
        // A row moves between groups.
        engine.run("repost", &[1.into(), 12.into()]).unwrap();
        rows[0].1 = 12;
        check(&engine, &rows, "repost");
        // The summed column changes, to none and back.
        engine.run("reweigh", &[3.into(), Value::Null]).unwrap();
        rows[2].2 = None;
        check(&engine, &rows, "reweigh to none");
        engine.run("reweigh", &[2.into(), 4.into()]).unwrap();
        rows[1].2 = Some(4);
        check(&engine, &rows, "reweigh");
        // Two updates of one row in one mutation.
        engine
            .run("twice", &[4.into(), 100.into(), (-30).into()])
            .unwrap();
        rows[3].2 = Some(-30);
        check(&engine, &rows, "twice");
        // A delete then an insert of one key, into another group.
        engine
            .run("recycle", &[2.into(), 2.into(), 11.into(), 9.into()])
            .unwrap();
        rows[1] = (2, 11, Some(9));
        check(&engine, &rows, "recycle");
        let both = engine.run("both", &[2.into(), 11.into()]).unwrap().value;
        assert_eq!(both.field("n"), Some(&Value::Int(1)));
        assert_eq!(both.field("likes"), Some(&Value::Int(2)));
        // Deletes naming a row twice and a row that is gone.
        let ids = Value::List(vec![1.into(), 1.into(), 99.into()]);
        engine.run("unlike_all", &[ids]).unwrap();
        rows.retain(|r| r.0 != 1);
        check(&engine, &rows, "unlike_all");
        // An emptied group reads 0 and leaves no entry.
        engine.run("unlike", &[3.into()]).unwrap();
        rows.retain(|r| r.1 != 10);
        check(&engine, &rows, "emptied");
        assert_eq!(int(&engine, "likes", &[10.into()]), 0);
    }
}

#[test]
fn a_sum_past_64_bits_is_refused_and_nothing_is_written() {
    let mut engine = Engine::in_memory();
    engine
        .install(program(&format!("{TABLES}{AGGREGATES}")))
        .unwrap();
    engine.run("add_user", &[1.into()]).unwrap();
    engine
        .run("like", &[1.into(), 1.into(), 5.into(), i64::MAX.into()])
        .unwrap();
    let error = engine
        .run("like", &[2.into(), 1.into(), 5.into(), 1.into()])
        .unwrap_err();
    assert_eq!(error.code, "E0526", "{error}");
    assert!(error.message.contains("weight_of"), "{}", error.message);
    // The numbers that overflow, as they are: the group's sum and the
    // row's part (not the group's sum less some other row's).
    let said = format!("without this row is {}, and the row adds 1", i64::MAX);
    assert!(error.message.contains(&said), "{}", error.message);
    assert_eq!(int(&engine, "likes", &[5.into()]), 1);
    assert_eq!(int(&engine, "weight", &[5.into()]), i64::MAX);
    // An update within the group moves it once, by the difference: from
    // -5 to -4 fits (the sum without the row, MAX + 1, never counts: an
    // adversary finding), from -4 to 1 does not.
    engine
        .run("like", &[3.into(), 1.into(), 5.into(), (-5).into()])
        .unwrap();
    engine.run("reweigh", &[3.into(), (-4).into()]).unwrap();
    assert_eq!(int(&engine, "weight", &[5.into()]), i64::MAX - 4);
    let error = engine.run("reweigh", &[3.into(), 1.into()]).unwrap_err();
    assert_eq!(error.code, "E0526", "{error}");
    let said = format!(
        "sum is {}, and the row's part goes from -4 to 1",
        i64::MAX - 4
    );
    assert!(error.message.contains(&said), "{}", error.message);
    assert_eq!(int(&engine, "weight", &[5.into()]), i64::MAX - 4);
    engine.run("reweigh", &[3.into(), Value::Null]).unwrap();
    // Within 64 bits again, the same insert is taken.
    engine.run("reweigh", &[1.into(), (-1).into()]).unwrap();
    engine
        .run("like", &[2.into(), 1.into(), 5.into(), 1.into()])
        .unwrap();
    assert_eq!(int(&engine, "weight", &[5.into()]), 0);
    assert_sound(&engine);
}

#[test]
fn an_aggregate_added_later_is_back_filled_and_dropped_only_when_named() {
    for backend in Backend::ON_DISK {
        let dir = tempfile::tempdir().unwrap();
        let mut engine = engine(backend, dir.path());
        engine.install(program(TABLES)).unwrap();
        for u in 1..=2 {
            engine.run("add_user", &[u.into()]).unwrap();
        }
        for (id, u, p, w) in [(1, 1, 10, 3), (2, 2, 10, 4), (3, 2, 11, 5)] {
            engine
                .run("like", &[id.into(), u.into(), p.into(), w.into()])
                .unwrap();
        }
        // Added to a database that holds rows: back-filled in the install.
        engine
            .install(program(&format!("{TABLES}{AGGREGATES}")))
            .unwrap();
        assert_eq!(int(&engine, "likes", &[10.into()]), 2, "{backend:?}");
        assert_eq!(int(&engine, "weight", &[10.into()]), 7);
        assert_eq!(int(&engine, "weight", &[11.into()]), 5);
        assert_sound(&engine);
        // The program without them would drop them: refused unless named.
        let error = engine.install(program(TABLES)).unwrap_err();
        assert_eq!(error.code, "E0519");
        for name in [
            "aggregate:likes_of",
            "aggregate:weight_of",
            "aggregate:pair",
        ] {
            assert!(error.message.contains(name), "{}", error.message);
        }
        // A redefined aggregate is a drop and a back-fill.
        let redefined = format!("{TABLES}{AGGREGATES}").replace(
            "aggregate likes_of = count(Like) by post",
            "aggregate likes_of = count(Like) by user",
        );
        let error = engine.install(program(&redefined)).unwrap_err();
        assert_eq!(error.code, "E0519");
        engine
            .install_dropping(program(&redefined), &["aggregate:likes_of".into()])
            .unwrap();
        assert_eq!(int(&engine, "likes", &[2.into()]), 2, "now per user");
        assert_sound(&engine);
        engine
            .install_dropping(
                program(TABLES),
                &[
                    "aggregate:likes_of".into(),
                    "aggregate:weight_of".into(),
                    "aggregate:pair".into(),
                ],
            )
            .unwrap();
        // Dropped: their trees hold nothing, and adding them again recounts.
        let txn = engine.store().begin_read().unwrap();
        for name in ["likes_of", "weight_of", "pair"] {
            let tree = engine.store().tree(&format!("a:Like:{name}"));
            assert!(
                txn.range(tree, &[], None, false, 10).unwrap().is_empty(),
                "{name} kept entries"
            );
        }
        drop(txn);
        engine.run("unlike", &[1.into()]).unwrap();
        engine
            .install(program(&format!("{TABLES}{AGGREGATES}")))
            .unwrap();
        assert_eq!(int(&engine, "likes", &[10.into()]), 1);
        assert_sound(&engine);
    }
}

#[test]
fn verify_reports_an_aggregate_that_differs_from_a_recount() {
    let mut engine = Engine::in_memory();
    engine
        .install(program(&format!("{TABLES}{AGGREGATES}")))
        .unwrap();
    engine.run("add_user", &[1.into()]).unwrap();
    engine
        .run("like", &[1.into(), 1.into(), 10.into(), 3.into()])
        .unwrap();
    assert_sound(&engine);
    // Damage: the count of post 10 says 5.
    let store = engine.store();
    let tree = store.tree("a:Like:likes_of");
    let key = rqc_runtime::encoding::key::encode_key(&[Value::Int(10)], &[]).unwrap();
    let mut txn = store.begin_write().unwrap();
    txn.put(tree, &key, &encode_row(&[Value::Int(5)]).unwrap())
        .unwrap();
    txn.commit().unwrap();
    let found = engine.verify().unwrap();
    assert_eq!(found.codes, vec!["E0527"], "{:?}", found.problems);
    assert!(
        found.problems[0].contains("aggregate `likes_of` over `Like`: 1 group differs"),
        "{:?}",
        found.problems
    );
}

const EXTREMES: &str = "
table Score {
  id: Int key
  player: Int
  team: Int
  points: Int
  index by_player (player, points desc)
  index by_team (team, id)
  bound team <= 6
}
mutation add(id: Int, player: Int, team: Int, points: Int) = insert Score { id, player, team, points }
mutation drop(id: Int) = delete Score[id]
mutation repoint(id: Int, p: Int) = update Score[id] { points: p }
mutation move(id: Int, player: Int, team: Int) = update Score[id] { player: player, team: team }
mutation twice(id: Int, p: Int, q: Int) = { let r = Score[id]; update r { points: p }; update r { points: q } }
mutation recycle(id: Int, player: Int, team: Int, p: Int) = { delete Score[id]; insert Score { id, player, team, points: p } }
// Through the index, read forwards (max of a descending index) and backwards (min).
aggregate best_of = max(Score.points) by player
aggregate worst_of = min(Score.points) by player
// Through the bounded group `team` (the index `by_team` holds it).
aggregate team_best = max(Score.points) by team
aggregate team_worst = min(Score.points) by (team, player)
query extremes(p: Int, t: Int) = { best: best_of[p], worst: worst_of[p], team_best: team_best[t], team_worst: team_worst[t, p] }
";

#[test]
fn min_and_max_find_the_next_extreme_when_theirs_goes() {
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        let mut engine = engine(backend, dir.path());
        engine.install(program(EXTREMES)).unwrap();
        // (id, player, team, points), as they should be.
        let mut rows: Vec<(i64, i64, i64, i64)> = Vec::new();
        let expected = |rows: &[(i64, i64, i64, i64)], p: i64, t: i64| {
            let by_player = rows.iter().filter(|r| r.1 == p).map(|r| r.3);
            let by_team = rows.iter().filter(|r| r.2 == t).map(|r| r.3);
            let by_both = rows.iter().filter(|r| r.2 == t && r.1 == p).map(|r| r.3);
            let opt = |v: Option<i64>| v.map_or(Value::Null, Value::Int);
            vec![
                opt(by_player.clone().max()),
                opt(by_player.min()),
                opt(by_team.max()),
                opt(by_both.min()),
            ]
        };
        let check = |engine: &Engine, rows: &[(i64, i64, i64, i64)], what: &str| {
            for p in 1..=3 {
                for t in 1..=2 {
                    let got = engine.run("extremes", &[p.into(), t.into()]).unwrap().value;
                    let got: Vec<Value> = ["best", "worst", "team_best", "team_worst"]
                        .iter()
                        .map(|f| got.field(f).cloned().unwrap())
                        .collect();
                    assert_eq!(got, expected(rows, p, t), "{backend:?} {what} p={p} t={t}");
                }
            }
            assert_sound(engine);
        };
        check(&engine, &rows, "empty");
        for (id, player, team, points) in [
            (1, 1, 1, 50),
            (2, 1, 1, 80),
            (3, 1, 2, 80),
            (4, 2, 1, -5),
            (5, 2, 2, 10),
            (6, 3, 2, i64::MIN),
        ] {
            engine
                .run(
                    "add",
                    &[id.into(), player.into(), team.into(), points.into()],
                )
                .unwrap();
            rows.push((id, player, team, points));
        }
        check(&engine, &rows, "inserts");
        // The extreme goes while another row ties it, then alone.
        engine.run("drop", &[2.into()]).unwrap();
        rows.retain(|r| r.0 != 2);
        check(&engine, &rows, "a tied extreme deleted");
        engine.run("drop", &[3.into()]).unwrap();
        rows.retain(|r| r.0 != 3);
        check(&engine, &rows, "the extreme deleted");
        // The extreme's value changes down, then up past the others.
        engine.run("repoint", &[1.into(), 7.into()]).unwrap();
        rows[0].3 = 7;
        check(&engine, &rows, "repoint down");
        engine.run("repoint", &[4.into(), i64::MAX.into()]).unwrap();
        rows[1].3 = i64::MAX;
        check(&engine, &rows, "repoint up");
        // A row moves to another player and team.
        engine.run("move", &[4.into(), 1.into(), 2.into()]).unwrap();
        rows[1].1 = 1;
        rows[1].2 = 2;
        check(&engine, &rows, "move");
        // Two updates of one row; a delete then an insert of one key.
        engine
            .run("twice", &[5.into(), 100.into(), 3.into()])
            .unwrap();
        rows[2].3 = 3;
        check(&engine, &rows, "twice");
        engine
            .run("recycle", &[6.into(), 2.into(), 1.into(), 0.into()])
            .unwrap();
        rows[3] = (6, 2, 1, 0);
        check(&engine, &rows, "recycle");
        // Every row gone: every extreme is none.
        for id in [1, 4, 5, 6] {
            engine.run("drop", &[id.into()]).unwrap();
        }
        rows.clear();
        check(&engine, &rows, "all deleted");
    }
}

#[test]
fn an_extreme_added_later_is_back_filled() {
    let mut engine = Engine::in_memory();
    let without: String = EXTREMES
        .lines()
        .filter(|l| !l.starts_with("aggregate") && !l.starts_with("query"))
        .collect::<Vec<_>>()
        .join("\n");
    engine.install(program(&without)).unwrap();
    for (id, player, team, points) in [(1, 1, 1, 4), (2, 1, 2, 9), (3, 2, 1, 1)] {
        engine
            .run(
                "add",
                &[id.into(), player.into(), team.into(), points.into()],
            )
            .unwrap();
    }
    engine.install(program(EXTREMES)).unwrap();
    let got = engine.run("extremes", &[1.into(), 1.into()]).unwrap().value;
    assert_eq!(got.field("best"), Some(&Value::Int(9)));
    assert_eq!(got.field("worst"), Some(&Value::Int(4)));
    assert_eq!(got.field("team_best"), Some(&Value::Int(4)));
    assert_eq!(got.field("team_worst"), Some(&Value::Int(4)));
    assert_sound(&engine);
}

#[test]
fn aggregate_reads_in_a_map_are_read_in_one_batch_each() {
    let mut engine = Engine::in_memory();
    engine
        .install(program(&format!("{TABLES}{AGGREGATES}")))
        .unwrap();
    engine.run("add_user", &[1.into()]).unwrap();
    for (id, p, w) in [(1, 10, 3), (2, 10, 4), (3, 11, 5)] {
        engine
            .run("like", &[id.into(), 1.into(), p.into(), w.into()])
            .unwrap();
    }
    let posts = Value::List(vec![10.into(), 11.into(), 12.into(), 10.into()]);
    let output = engine.run("many", &[posts]).unwrap();
    // Two lookups per element, each read for all elements in one call.
    assert_eq!(output.stats.round_trips, 2, "{:?}", output.stats);
    assert_eq!(output.bound.round_trips, 2);
    assert_eq!(output.stats.seeks, 8);
    let Value::List(rows) = output.value else {
        panic!("a list")
    };
    let likes: Vec<Option<&Value>> = rows.iter().map(|r| r.field("likes")).collect();
    let expected = [2, 1, 0, 2].map(Value::Int);
    assert_eq!(likes, expected.iter().map(Some).collect::<Vec<_>>());
    assert_eq!(rows[0].field("weight"), Some(&Value::Int(7)));
}

const WHOLE: &str = "
table Q {
  id: Int key
  score: Int
}
aggregate questions = count(Q)
aggregate score_total = sum(Q.score)
mutation ask(id: Int, s: Int) = insert Q { id, score: s }
mutation put(id: Int, s: Int) = upsert Q { id, score: s }
mutation bump(id: Int, d: Int) = update Q[id] { score += d }
mutation drop(id: Int) = delete Q[id]
mutation twice(id: Int) = { delete Q[id]; delete Q[id] }
query totals() = { n: questions, sum: score_total }
";

/// `(count, sum)` of a whole-table aggregate pair.
fn totals(engine: &Engine) -> (Value, Value) {
    let value = engine.run("totals", &[]).unwrap().value;
    (
        value.field("n").cloned().unwrap(),
        value.field("sum").cloned().unwrap(),
    )
}

/// A count and a sum with no `by` keep the whole table as one group: every
/// write moves them (a refused one does not), a load and an install that
/// adds them to rows count them, a sum past 64 bits is refused, and verify
/// recounts them; on every backend and on etcd.
#[test]
fn a_whole_table_aggregate_is_kept_by_every_write() {
    let dirs: Vec<_> = Backend::ALL
        .iter()
        .map(|_| tempfile::tempdir().unwrap())
        .collect();
    let mut engines = every_store(&dirs);
    let tables_only = WHOLE
        .lines()
        .filter(|l| !l.starts_with("aggregate") && !l.starts_with("query"))
        .collect::<Vec<_>>()
        .join("\n");
    for (name, engine) in &mut engines {
        // Rows before the aggregates: the install that adds them counts them.
        engine.install(program(&tables_only)).unwrap();
        engine.run("ask", &[1.into(), 5.into()]).unwrap();
        engine.run("ask", &[2.into(), (-8).into()]).unwrap();
        engine.install(program(WHOLE)).unwrap();
        let n = |n: i64, s: i64| (Value::Int(n), Value::Int(s));
        assert_eq!(totals(engine), n(2, -3), "{name}: back-filled");
        engine.run("put", &[3.into(), 1.into()]).unwrap();
        engine.run("put", &[1.into(), 10.into()]).unwrap();
        assert_eq!(totals(engine), n(3, 3), "{name}: upserts, new and existing");
        engine.run("bump", &[2.into(), 8.into()]).unwrap();
        engine.run("bump", &[99.into(), 8.into()]).unwrap();
        assert_eq!(
            totals(engine),
            n(3, 11),
            "{name}: steps, one of a key that is not"
        );
        engine.run("twice", &[3.into()]).unwrap();
        engine.run("drop", &[3.into()]).unwrap();
        assert_eq!(
            totals(engine),
            n(2, 10),
            "{name}: a delete twice, then of a gone key"
        );
        // A refused insert (its key is taken) moves nothing.
        assert_eq!(
            engine.run("ask", &[1.into(), 7.into()]).unwrap_err().code,
            "E0501"
        );
        // Past 64 bits: refused, nothing written.
        engine
            .run("bump", &[1.into(), (i64::MAX - 10).into()])
            .unwrap();
        let error = engine.run("ask", &[4.into(), 1.into()]).unwrap_err();
        assert_eq!(error.code, "E0526", "{name}: {error}");
        assert!(error.message.contains("score_total"), "{}", error.message);
        assert_eq!(totals(engine), n(2, i64::MAX), "{name}: at the edge");
        // A load moves them as its inserts do.
        let mut rows: rqc_runtime::load::LoadRows = vec![
            (1, Ok(vec![5.into(), i64::MIN.into()])),
            (2, Ok(vec![6.into(), 3.into()])),
        ];
        let report = engine.load("Q", &mut rows, &mut |_| {}).unwrap();
        assert_eq!(report.written, 2, "{name}");
        assert_eq!(totals(engine), n(4, 2), "{name}: loaded");
        // Emptied: 0, and no entry left behind.
        for id in [1, 2, 5, 6] {
            engine.run("drop", &[id.into()]).unwrap();
        }
        assert_eq!(totals(engine), n(0, 0), "{name}: emptied");
        let txn = engine.store().begin_read().unwrap();
        for tree in ["a:Q:questions", "a:Q:score_total"] {
            let tree = engine.store().tree(tree);
            assert!(
                txn.range(tree, &[], None, false, 10).unwrap().is_empty(),
                "{name}"
            );
        }
        drop(txn);
        engine.run("ask", &[7.into(), 2.into()]).unwrap();
        assert_eq!(totals(engine), n(1, 2), "{name}");
        assert_sound(engine);
    }
}

/// A load's rows come in the file's order (a restore's in key order, not
/// the order the writes that made them ran): a sum is held to 64 bits for
/// what the whole file leaves, not after each row, so a dump whose rows
/// pass 2^63 part way restores; a file that ends past it is refused, and
/// nothing is written. On every backend and on etcd (which loads in
/// batches).
#[test]
fn a_load_holds_a_sum_to_64_bits_at_its_end_not_after_each_row() {
    let dirs: Vec<_> = Backend::ALL
        .iter()
        .map(|_| tempfile::tempdir().unwrap())
        .collect();
    let mut engines = every_store(&dirs);
    let n = |n: i64, s: i64| (Value::Int(n), Value::Int(s));
    for (name, engine) in &mut engines {
        engine.install(program(WHOLE)).unwrap();
        // MAX, then MAX + MAX (past 64 bits), then back to MAX.
        let mut rows: rqc_runtime::load::LoadRows = vec![
            (1, Ok(vec![1.into(), i64::MAX.into()])),
            (2, Ok(vec![2.into(), i64::MAX.into()])),
            (3, Ok(vec![3.into(), (-i64::MAX).into()])),
        ];
        let report = engine.load("Q", &mut rows, &mut |_| {}).unwrap();
        assert_eq!(report.written, 3, "{name}");
        assert_eq!(totals(engine), n(3, i64::MAX), "{name}: loaded");
        // Below MIN part way, and past MAX at the end: refused whole.
        let mut rows: rqc_runtime::load::LoadRows = vec![
            (1, Ok(vec![4.into(), i64::MIN.into()])),
            (2, Ok(vec![5.into(), i64::MIN.into()])),
            (3, Ok(vec![6.into(), i64::MAX.into()])),
            (4, Ok(vec![7.into(), i64::MAX.into()])),
            (5, Ok(vec![8.into(), 3.into()])),
        ];
        let error = engine.load("Q", &mut rows, &mut |_| {}).unwrap_err();
        assert_eq!(error.code, "E0526", "{name}: {error}");
        assert!(error.message.contains("score_total"), "{}", error.message);
        assert_eq!(totals(engine), n(3, i64::MAX), "{name}: nothing written");
        // Without the last row it ends at MAX - 2: written.
        let mut rows: rqc_runtime::load::LoadRows = vec![
            (1, Ok(vec![4.into(), i64::MIN.into()])),
            (2, Ok(vec![5.into(), i64::MIN.into()])),
            (3, Ok(vec![6.into(), i64::MAX.into()])),
            (4, Ok(vec![7.into(), i64::MAX.into()])),
        ];
        let report = engine.load("Q", &mut rows, &mut |_| {}).unwrap();
        assert_eq!(report.written, 4, "{name}");
        assert_eq!(totals(engine), n(7, i64::MAX - 2), "{name}: loaded");
        assert_sound(engine);
    }
}
