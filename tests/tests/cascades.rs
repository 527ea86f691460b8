//! Cascading deletes over islands end to end on every backend (the embedded stores and etcd): `on delete cascade` and `on delete set none` at their bounds, through a chain, with a plain reference left (E0506, nothing written), a row that names itself, duplicates in one delete — each run within its printed bound and every index, counter, reference and aggregate equal to what the rows imply after every run; and the plan verifier's refusal of forged cascades (E0616, E0631).

use rqc_plan::{CompiledProgram, OnDelete, Value};
use rqc_tests::stores::{each_store, Db};

const PROGRAM: &str = "
table Question {
  id: Int key
}
table Answer {
  id: Int key
  question: Int ref Question on delete cascade
  score: Int
  index by_question (question)
  bound question <= 3
}
table Voter {
  id: Int key
}
table Vote {
  answer: Int ref Answer on delete cascade
  voter: Int ref Voter
  key (answer, voter)
  bound answer <= 4
}
table Flag {
  id: Int key
  answer: Int? ref Answer on delete set none
  index by_answer (answer)
  bound answer <= 2
}
table Pin {
  id: Int key
  answer: Int ref Answer
}
table Comment {
  id: Int key
  parent: Int? ref Comment on delete set none
  index by_parent (parent)
  bound parent <= 3
}
aggregate votes_of = count(Vote) by answer
aggregate score_of = sum(Answer.score) by question
aggregate best_of = max(Answer.score) by question
aggregate flags = count(Flag)

mutation add_question(id: Int) = insert Question { id }
mutation add_answer(id: Int, q: Int, score: Int) = insert Answer { id, question: q, score }
mutation add_voter(id: Int) = insert Voter { id }
mutation vote(a: Int, v: Int) = insert Vote { answer: a, voter: v }
mutation flag(id: Int, a: Int) = insert Flag { id, answer: a }
mutation pin(id: Int, a: Int) = insert Pin { id, answer: a }
mutation unpin(id: Int) = delete Pin[id]
mutation comment(id: Int, parent: Int?) = insert Comment { id, parent }
mutation reparent(id: Int, parent: Int) = update Comment[id] { parent: parent }
mutation drop_question(q: Int) = delete Question[q]
mutation drop_answer(a: Int) = delete Answer[a]
mutation drop_answers(ids: [Int; <= 4]) = delete Answer[id in ids]
mutation drop_comment(c: Int) = delete Comment[c]
mutation drop_voter(v: Int) = delete Voter[v]

query answers(q: Int) = Answer.by_question[q] |> count()
query votes(a: Int) = Vote[a] |> count()
query votes_kept(a: Int) = votes_of[a]
query score(q: Int) = score_of[q]
query best(q: Int) = best_of[q]
query flag_of(f: Int) = Flag[f]
query flagged(a: Int) = Flag.by_answer[a] |> count()
query flag_count() = flags
query parent(c: Int) = Comment[c]
query children(c: Int) = Comment.by_parent[c] |> count()
query comment_exists(c: Int) = Comment[c] |> exists()
";

fn int(db: &Db, name: &str, args: &[Value]) -> i64 {
    match db.value(name, args) {
        Value::Int(n) => n,
        other => panic!("{} {name}: not an Int: {other}", db.on),
    }
}

/// Question `q` with three answers (`q * 10 + 1 ..= q * 10 + 3`, the
/// bound), each with four votes (the bound) and two flags (the bound).
fn full_question(db: &Db, q: i64) {
    db.value("add_question", &[q.into()]);
    for a in 1..=3 {
        let answer = q * 10 + a;
        db.value("add_answer", &[answer.into(), q.into(), (a * 5).into()]);
        for v in 1..=4 {
            db.value("vote", &[answer.into(), v.into()]);
        }
        for f in 1..=2 {
            db.value("flag", &[(answer * 10 + f).into(), answer.into()]);
        }
    }
}

fn voters(db: &Db) {
    for v in 1..=4 {
        db.value("add_voter", &[v.into()]);
    }
}

#[test]
fn a_delete_cascades_through_islands_at_their_bounds() {
    each_store(PROGRAM, |db| {
        voters(&db);
        full_question(&db, 1);
        full_question(&db, 2);
        assert_eq!(int(&db, "flag_count", &[]), 12);
        // Every island at its bound: 3 answers, 12 votes, 6 flags.
        let output = db.run("drop_question", &[1.into()]).unwrap();
        assert_eq!(output.value, Value::Int(1), "{}", db.on);
        assert!(
            output.stats.rows >= 3 + 12 + 6,
            "{}: the cascade read its islands: {:?}",
            db.on,
            output.stats
        );
        assert_eq!(int(&db, "answers", &[1.into()]), 0, "{}", db.on);
        for a in 11..=13 {
            assert_eq!(int(&db, "votes", &[a.into()]), 0, "{}", db.on);
            assert_eq!(int(&db, "votes_kept", &[a.into()]), 0, "{}", db.on);
            assert_eq!(int(&db, "flagged", &[a.into()]), 0, "{}", db.on);
            for f in 1..=2 {
                let flag = a * 10 + f;
                assert_eq!(
                    db.value("flag_of", &[flag.into()]).field("answer"),
                    Some(&Value::Null),
                    "{}: flag {flag} stays, naming nothing",
                    db.on
                );
            }
        }
        assert_eq!(int(&db, "score", &[1.into()]), 0, "{}", db.on);
        assert_eq!(int(&db, "flag_count", &[]), 12, "{}", db.on);
        // The other question is untouched.
        assert_eq!(int(&db, "answers", &[2.into()]), 3, "{}", db.on);
        assert_eq!(int(&db, "votes", &[21.into()]), 4, "{}", db.on);
        assert_eq!(int(&db, "score", &[2.into()]), 30, "{}", db.on);
        assert_eq!(int(&db, "best", &[2.into()]), 15, "{}", db.on);
        // One answer of the other: its votes go, its flags stay, and the
        // question's aggregates follow.
        db.value("drop_answer", &[23.into()]);
        assert_eq!(int(&db, "votes", &[23.into()]), 0, "{}", db.on);
        assert_eq!(int(&db, "score", &[2.into()]), 15, "{}", db.on);
        assert_eq!(int(&db, "best", &[2.into()]), 10, "{}", db.on);
        // The voters are free to go once their votes went with the answers.
        assert_eq!(db.refused("drop_voter", &[1.into()]), "E0506");
        db.value("drop_question", &[2.into()]);
        for v in 1..=4 {
            db.value("drop_voter", &[v.into()]);
        }
    });
}

#[test]
fn a_plain_reference_left_refuses_the_whole_delete_and_nothing_is_written() {
    each_store(PROGRAM, |db| {
        voters(&db);
        full_question(&db, 1);
        db.value("pin", &[1.into(), 12.into()]);
        // The pin's answer is the second the question's delete reaches:
        // the first answer's cascade ran, and is undone with the refusal.
        assert_eq!(db.refused("drop_question", &[1.into()]), "E0506");
        assert_eq!(db.refused("drop_answer", &[12.into()]), "E0506");
        assert_eq!(int(&db, "votes", &[11.into()]), 4, "{}", db.on);
        db.value("unpin", &[1.into()]);
        db.value("drop_question", &[1.into()]);
        assert_eq!(int(&db, "answers", &[1.into()]), 0, "{}", db.on);
    });
}

#[test]
fn a_list_naming_a_row_twice_deletes_it_and_its_island_once() {
    each_store(PROGRAM, |db| {
        voters(&db);
        full_question(&db, 1);
        let ids = Value::List(vec![11.into(), 11.into(), 12.into(), 11.into()]);
        let output = db.run("drop_answers", &[ids]).unwrap();
        assert_eq!(output.value, Value::Int(2), "{}", db.on);
        assert_eq!(int(&db, "answers", &[1.into()]), 1, "{}", db.on);
        assert_eq!(int(&db, "votes", &[13.into()]), 4, "{}", db.on);
    });
}

#[test]
fn a_row_that_names_itself_is_set_to_none_then_deleted() {
    each_store(PROGRAM, |db| {
        db.value("comment", &[1.into(), Value::Null]);
        db.value("reparent", &[1.into(), 1.into()]);
        for c in 2..=3 {
            db.value("comment", &[c.into(), 1.into()]);
        }
        assert_eq!(int(&db, "children", &[1.into()]), 3, "{}", db.on);
        // The island of 1 holds 1 itself: set to none, read again, deleted
        // with the index entry it has then.
        db.value("drop_comment", &[1.into()]);
        assert_eq!(
            db.value("comment_exists", &[1.into()]),
            Value::Bool(false),
            "{}",
            db.on
        );
        for c in 2..=3 {
            assert_eq!(
                db.value("parent", &[c.into()]).field("parent"),
                Some(&Value::Null),
                "{}",
                db.on
            );
        }
        assert_eq!(int(&db, "children", &[1.into()]), 0, "{}", db.on);
    });
}

/// An island read through a descending index, and one through a unique
/// index: the cascade's range read finds exactly the island's rows.
#[test]
fn islands_of_descending_and_unique_indexes_cascade() {
    const SOURCE: &str = "
table A {
  id: Int key
}
table U {
  id: Int key
  a: Int ref A on delete cascade
  index by_a (a desc, id)
  bound a <= 3
}
table O {
  id: Int key
  a: Int? ref A on delete set none
  unique (a)
  bound a <= 1
}
mutation add_a(id: Int) = insert A { id }
mutation add_u(id: Int, a: Int) = insert U { id, a }
mutation add_o(id: Int, a: Int) = insert O { id, a }
mutation drop_a(id: Int) = delete A[id]
query us(a: Int) = U.by_a[a] |> count()
query o(id: Int) = O[id]
";
    each_store(SOURCE, |db| {
        for a in 1..=3 {
            db.value("add_a", &[a.into()]);
        }
        for (id, a) in [(1, 1), (2, 2), (3, 2), (4, 3), (5, 2)] {
            db.value("add_u", &[id.into(), a.into()]);
        }
        db.value("add_o", &[1.into(), 2.into()]);
        db.value("add_o", &[2.into(), 3.into()]);
        db.value("drop_a", &[2.into()]);
        assert_eq!(int(&db, "us", &[2.into()]), 0, "{}", db.on);
        assert_eq!(int(&db, "us", &[1.into()]), 1, "{}", db.on);
        assert_eq!(int(&db, "us", &[3.into()]), 1, "{}", db.on);
        assert_eq!(db.value("o", &[1.into()]).field("a"), Some(&Value::Null));
        assert_eq!(db.value("o", &[2.into()]).field("a"), Some(&Value::Int(3)));
        // The unique index's `none` entries never collide: another row
        // may come to hold `none` too.
        db.value("drop_a", &[3.into()]);
        assert_eq!(db.value("o", &[2.into()]).field("a"), Some(&Value::Null));
    });
}

fn compiled(source: &str) -> CompiledProgram {
    rqc_tests::accepted(source)
}

fn refusal(program: &CompiledProgram) -> String {
    match rqc_runtime::verifier::verify(program) {
        Ok(()) => panic!("the forged plan was accepted"),
        Err(e) => format!("{} {}", e.code, e.message),
    }
}

fn column<'p>(
    program: &'p mut CompiledProgram,
    table: &str,
    column: &str,
) -> &'p mut rqc_plan::Column {
    let t = program
        .schema
        .tables
        .iter_mut()
        .find(|t| t.name == table)
        .unwrap();
    t.columns.iter_mut().find(|c| c.name == column).unwrap()
}

#[test]
fn the_verifier_accepts_compiled_cascades_and_refuses_forged_ones() {
    let honest = compiled(PROGRAM);
    rqc_runtime::verifier::verify(&honest).unwrap();

    // A cascade over a column no bound limits.
    let mut forged = honest.clone();
    column(&mut forged, "Pin", "answer").on_delete = Some(OnDelete::Cascade);
    let message = refusal(&forged);
    assert!(
        message.starts_with("E0616") && message.contains("bound"),
        "{message}"
    );

    // The bound taken away from a cascading column.
    let mut forged = honest.clone();
    let vote = forged
        .schema
        .tables
        .iter_mut()
        .find(|t| t.name == "Vote")
        .unwrap();
    vote.bounds.clear();
    assert!(refusal(&forged).starts_with("E0616"));

    // `set none` on a required column.
    let mut forged = honest.clone();
    column(&mut forged, "Vote", "answer").on_delete = Some(OnDelete::SetNone);
    assert!(refusal(&forged).starts_with("E0616"));

    // `set none` on a column of the key: the row would move to another key.
    // It needs the key column optional, which no key may be (E0247 in the
    // checker): refused for that first.
    let mut forged = honest.clone();
    let vote = forged
        .schema
        .tables
        .iter_mut()
        .find(|t| t.name == "Vote")
        .unwrap();
    vote.columns[0].ty = rqc_plan::ColumnType::Optional(Box::new(rqc_plan::ColumnType::Int));
    vote.columns[0].on_delete = Some(OnDelete::SetNone);
    let message = refusal(&forged);
    assert!(
        message.starts_with("E0615") && message.contains("key of `Vote` holds the optional"),
        "{message}"
    );

    // `on delete` without a reference.
    let mut forged = honest.clone();
    column(&mut forged, "Answer", "score").on_delete = Some(OnDelete::Cascade);
    assert!(refusal(&forged).starts_with("E0616"));

    // A cycle: a comment's children deleted with it.
    let mut forged = honest.clone();
    column(&mut forged, "Comment", "parent").on_delete = Some(OnDelete::Cascade);
    let message = refusal(&forged);
    assert!(
        message.starts_with("E0616") && message.contains("cycle"),
        "{message}"
    );

    // A delete claiming less than its cascades may read.
    let mut forged = honest.clone();
    let at = forged
        .entries
        .iter()
        .position(|e| e.name == "drop_question")
        .unwrap();
    let entry = std::sync::Arc::make_mut(&mut forged.entries[at]);
    let claimed = entry.bound;
    let lower = rqc_plan::Bound {
        rows: claimed.rows - 1,
        ..claimed
    };
    entry.bound = lower;
    entry.root.bound = Some(lower);
    assert!(refusal(&forged).starts_with("E0631"));
}

#[test]
fn the_bound_is_the_cascade_formula() {
    let program = compiled(PROGRAM);
    let bound = |name: &str| {
        program
            .entries
            .iter()
            .find(|e| e.name == name)
            .unwrap()
            .bound
    };
    // drop_answer: the get (1, 1); the answer's delete: the row, its
    // index entry, its reference's counter, its bound's counter, its own
    // counter (it is referenced) and its two aggregates — the sum's entry
    // (1, 1), the max's entry and next extreme through the bounded group
    // of 3 (2, 4) — = (8, 9); its re-read (1, 1); the votes' island (1, 4)
    // and 4 vote deletes (the row, two references' counters, the bound's
    // counter, the count's entry: 5, 5); the flags' island (1, 2) and 2
    // updates to none (the row, the index's old and new entries, the
    // reference's three reads, the bound's two counters; the whole-table
    // count is untouched: 8, 6).
    let answer = 1 + 8 + 1 + (1 + 4 * 5) + (1 + 2 * 8);
    let answer_rows = 1 + 9 + 1 + (4 + 4 * 5) + (2 + 2 * 6);
    let b = bound("drop_answer");
    assert_eq!((b.seeks, b.rows), (answer, answer_rows));
    // drop_question: the get, the question's delete (row, own counter:
    // 2, 2), its re-read, the answers' island (1, 3) and 3 answer deletes
    // as above less their get.
    let q = bound("drop_question");
    assert_eq!(
        (q.seeks, q.rows),
        (
            1 + 2 + 1 + 1 + 3 * (answer - 1),
            1 + 2 + 1 + 3 + 3 * (answer_rows - 1)
        )
    );
}

/// In the editor: after a column's `ref T` the two `on delete` forms come
/// first, saying what each does and that it needs an island; hover over
/// one shows what a delete of the referenced row does and its island.
#[test]
fn the_editor_completes_and_explains_on_delete() {
    use rqc_compiler::db::Analysis;
    use rqc_compiler::ide::{completions, hover};
    let typing = format!("{PROGRAM}\ntable Note {{\n  id: Int key\n  answer: Int ref Answer o");
    let analysis = Analysis::new(&[("n.rq".to_string(), typing.clone())]);
    let offered = completions(&analysis, "n.rq", &typing, typing.len());
    let labels: Vec<&str> = offered.iter().take(2).map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["on delete cascade", "on delete set none"]);
    assert!(offered[0].detail.contains("bound"), "{:?}", offered[0]);
    // Not while the target is typed, nor elsewhere.
    let target = format!("{PROGRAM}\ntable Note {{\n  id: Int key\n  answer: Int ref Ans");
    let analysis = Analysis::new(&[("t.rq".to_string(), target.clone())]);
    assert!(completions(&analysis, "t.rq", &target, target.len())
        .iter()
        .all(|c| !c.label.starts_with("on delete")));

    let analysis = Analysis::new(&[("p.rq".to_string(), PROGRAM.to_string())]);
    let at = PROGRAM.find("on delete cascade\n  voter").unwrap() + 3;
    let text = hover(&analysis, "p.rq", at).expect("a hover over on delete");
    assert!(
        text.contains("deleting a `Answer` row deletes the `Vote` rows")
            && text.contains("at most 4 rows")
            && text.contains("the key"),
        "{text}"
    );
    let at = PROGRAM
        .find("on delete set none\n  index by_answer")
        .unwrap()
        + 3;
    let text = hover(&analysis, "p.rq", at).expect("a hover over on delete");
    assert!(
        text.contains("sets `answer` to `none`") && text.contains("index `by_answer`"),
        "{text}"
    );
}

/// Adding or removing `on delete` changes no stored data: a plain install
/// (no `--migrate`), after which deletes follow the installed program.
#[test]
fn adding_and_removing_on_delete_is_a_plain_install() {
    let plain = PROGRAM.replace(
        "answer: Int ref Answer on delete cascade",
        "answer: Int ref Answer",
    );
    let cascading = compiled(PROGRAM);
    let plain_program = compiled(&plain);
    each_store(&plain, |db| {
        let mut db = db;
        voters(&db);
        full_question(&db, 1);
        assert_eq!(db.refused("drop_answer", &[11.into()]), "E0506");
        db.engine.install(cascading.clone()).unwrap();
        db.value("drop_answer", &[11.into()]);
        assert_eq!(int(&db, "votes", &[11.into()]), 0, "{}", db.on);
        db.engine.install(plain_program.clone()).unwrap();
        assert_eq!(db.refused("drop_answer", &[12.into()]), "E0506");
        assert_eq!(int(&db, "votes", &[12.into()]), 4, "{}", db.on);
    });
}

/// Through the library as an application embeds it: a cascade runs, and
/// the database verifies sound after it.
#[test]
fn the_library_runs_a_cascade() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = rqc::Database::open(dir.path().join("db")).unwrap();
    db.install_source("qa.rq", PROGRAM).unwrap();
    db.run("add_question", &[1.into()]).unwrap();
    db.run("add_voter", &[1.into()]).unwrap();
    db.run("add_answer", &[11.into(), 1.into(), 5.into()])
        .unwrap();
    db.run("vote", &[11.into(), 1.into()]).unwrap();
    db.run("flag", &[7.into(), 11.into()]).unwrap();
    let output = db.run("drop_question", &[1.into()]).unwrap();
    assert_eq!(output.value, Value::Int(1));
    assert_eq!(db.run("votes", &[11.into()]).unwrap().value, Value::Int(0));
    assert_eq!(
        db.run("flag_of", &[7.into()])
            .unwrap()
            .value
            .field("answer"),
        Some(&Value::Null)
    );
    assert!(db.verify().unwrap().is_sound());
}

/// A damaged island, one row past its bound (written around every check,
/// as a damaged file would hold it): the delete that cascades into it
/// stops with E0599 before acting on any of its rows, and writes nothing.
#[test]
fn a_damaged_island_past_its_bound_stops_the_delete_and_writes_nothing() {
    use rqc_runtime::encoding::{key::encode_key, row::encode_row};
    let program = compiled(PROGRAM);
    let mut engine = rqc_runtime::Engine::in_memory();
    engine.install(program.clone()).unwrap();
    let run = |name: &str, args: &[Value]| engine.run(name, args).unwrap();
    run("add_question", &[1.into()]);
    run("add_answer", &[11.into(), 1.into(), 5.into()]);
    for v in 1..=4 {
        run("add_voter", &[v.into()]);
        run("vote", &[11.into(), v.into()]);
    }
    // A fifth vote of answer 11, past `bound answer <= 4`.
    let store = engine.store();
    let votes = store.tree(&rqc_runtime::rows::table_tree("Vote"));
    let row = [Value::Int(11), Value::Int(5)];
    let mut txn = store.begin_write().unwrap();
    txn.put(
        votes,
        &encode_key(&row, &[]).unwrap(),
        &encode_row(&row).unwrap(),
    )
    .unwrap();
    txn.commit().unwrap();
    let before = rqc_tests::state::store_tables(engine.store(), &program.schema);
    let error = engine.run("drop_answer", &[11.into()]).unwrap_err();
    assert_eq!(error.code, "E0599", "{}", error.message);
    assert!(
        error.message.contains("bound answer <= 4"),
        "{}",
        error.message
    );
    assert_eq!(
        before,
        rqc_tests::state::store_tables(engine.store(), &program.schema),
        "the refused delete wrote"
    );
}
