//! Every constraint's refusal, on every backend: the refused mutation writes
//! nothing (even its earlier writes), and racing writers never exceed a
//! bound or duplicate a unique value.

use rqc::{Backend, Database, Durability, Error, OpenOptions, Value};
use std::sync::Arc;

/// The program: the fixtures' teams and members, at most 3 members a
/// team, and the definitions below.
fn program() -> String {
    rqc_tests::fixtures::teams(3) + REST
}

const REST: &str = "
small table Flag max 2 { code: String key }

mutation add_team(id: Int, name: String) = insert Team { id, name }
mutation add_member(team: Int, id: Int, nick: String) = insert Member { team, id, nick }
mutation add_flag(code: String) = insert Flag { code }
mutation drop_team(id: Int) = delete Team[id]
mutation drop_member(id: Int) = delete Member[id]
mutation rename_member(id: Int, nick: String) = update Member[id] { nick: nick }
mutation move_member(id: Int, team: Int) = update Member[id] { team: team }
// Three writes: the third breaks the key of the first.
mutation three(team: Int, a: Int, b: Int) = {
  insert Member { team, id: a, nick: \"first\" };
  insert Member { team, id: b, nick: \"second\" };
  insert Member { team, id: a, nick: \"third\" }
}
// Two rows in one mutation, and the view a reader checks them through.
mutation pair(team: Int, a: Int, b: Int, na: String, nb: String) = {
  insert Member { team, id: a, nick: na };
  insert Member { team, id: b, nick: nb }
}
mutation unpair(a: Int, b: Int) = { delete Member[a]; delete Member[b] }
query pair_state(team: Int) = {
  listed: Member.by_team[team] |> count(),
  by_key: Member.by_team[team] |> map(m => Member[m.id]) |> flatten() |> count(),
  by_nick: Member.by_team[team] |> map(m => Member.nick[m.nick]) |> flatten() |> count()
}
query team(id: Int) = Team[id]
query member(id: Int) = Member[id]
query members(team: Int) = Member.by_team[team]
query flags() = Flag
";

fn open(backend: Backend, dir: &std::path::Path) -> Database {
    let mut db = Database::open_with(
        dir,
        OpenOptions {
            backend: Some(backend),
            durability: Durability::Full,
            ..OpenOptions::default()
        },
    )
    .unwrap();
    db.install_source("teams.rq", &program()).unwrap();
    db
}

fn code(result: Result<rqc::Output, Error>) -> String {
    match result {
        Err(Error::Runtime(e)) => e.code.to_string(),
        Err(other) => panic!("not a runtime error: {other}"),
        Ok(output) => panic!("expected a refusal, got {:?}", output.value),
    }
}

fn count(db: &Database, team: i64) -> usize {
    db.run("members", &[team.into()]).unwrap().rows().len()
}

fn each_backend(check: impl Fn(Backend, &std::path::Path)) {
    for backend in Backend::ALL {
        let dir = tempfile::tempdir().unwrap();
        check(backend, &dir.path().join("db"));
    }
}

#[test]
fn each_constraint_refuses_and_names_what_it_protects() {
    each_backend(|backend, dir| {
        let db = open(backend, dir);
        db.run("add_team", &[1.into(), "red".into()]).unwrap();
        assert_eq!(
            code(db.run("add_team", &[1.into(), "blue".into()])),
            "E0501"
        );
        assert_eq!(code(db.run("add_team", &[2.into(), "red".into()])), "E0502");
        assert_eq!(
            code(db.run("add_member", &[9.into(), 1.into(), "x".into()])),
            "E0503"
        );
        for id in 1..=3 {
            db.run(
                "add_member",
                &[1.into(), id.into(), format!("n{id}").into()],
            )
            .unwrap();
        }
        let refused = db.run("add_member", &[1.into(), 4.into(), "n4".into()]);
        let Err(Error::Runtime(error)) = &refused else {
            panic!("the fourth member is refused")
        };
        assert_eq!(error.code, "E0504");
        assert!(
            error
                .message
                .contains("`Member` allows at most 3 rows per team"),
            "{}",
            error.message
        );
        assert!(error.message.contains("1 has 3"), "{}", error.message);
        assert_eq!(count(&db, 1), 3);
        db.run("add_flag", &["a".into()]).unwrap();
        db.run("add_flag", &["b".into()]).unwrap();
        assert_eq!(code(db.run("add_flag", &["c".into()])), "E0505");
        assert_eq!(db.run("flags", &[]).unwrap().rows().len(), 2);
        assert_eq!(
            code(db.run("drop_team", &[1.into()])),
            "E0506",
            "a referenced row stays"
        );
        // Deleting a member frees its place under the bound and its nick.
        db.run("drop_member", &[3.into()]).unwrap();
        db.run("add_member", &[1.into(), 5.into(), "n3".into()])
            .unwrap();
        assert_eq!(count(&db, 1), 3);
        // With no members left, the team can go.
        for id in [1, 2, 5] {
            db.run("drop_member", &[id.into()]).unwrap();
        }
        db.run("drop_team", &[1.into()]).unwrap();
        assert!(db.run("team", &[1.into()]).unwrap().rows().is_empty());
    });
}

#[test]
fn updates_move_counters_references_and_unique_values() {
    each_backend(|backend, dir| {
        let db = open(backend, dir);
        db.run("add_team", &[1.into(), "red".into()]).unwrap();
        db.run("add_team", &[2.into(), "blue".into()]).unwrap();
        for id in 1..=3 {
            db.run(
                "add_member",
                &[1.into(), id.into(), format!("n{id}").into()],
            )
            .unwrap();
        }
        db.run("add_member", &[2.into(), 4.into(), "n4".into()])
            .unwrap();
        assert_eq!(
            code(db.run("rename_member", &[1.into(), "n4".into()])),
            "E0502"
        );
        db.run("rename_member", &[1.into(), "one".into()]).unwrap();
        assert_eq!(
            db.run("member", &[1.into()]).unwrap().rows()[0].field("nick"),
            Some(&Value::from("one"))
        );
        // The old nick is free again.
        db.run("add_member", &[2.into(), 5.into(), "n1".into()])
            .unwrap();
        assert_eq!(code(db.run("move_member", &[1.into(), 9.into()])), "E0503");
        db.run("move_member", &[1.into(), 2.into()]).unwrap();
        assert_eq!((count(&db, 1), count(&db, 2)), (2, 3));
        assert_eq!(
            code(db.run("move_member", &[2.into(), 2.into()])),
            "E0504",
            "team 2 is full"
        );
        // Team 1 is referenced by members 2 and 3 only now.
        assert_eq!(code(db.run("drop_team", &[1.into()])), "E0506");
    });
}

#[test]
fn a_mutation_whose_third_write_fails_writes_nothing() {
    each_backend(|backend, dir| {
        let db = open(backend, dir);
        db.run("add_team", &[1.into(), "red".into()]).unwrap();
        assert_eq!(
            code(db.run("three", &[1.into(), 10.into(), 11.into()])),
            "E0501"
        );
        assert!(
            db.run("member", &[10.into()]).unwrap().rows().is_empty(),
            "the first insert was not kept"
        );
        assert!(
            db.run("member", &[11.into()]).unwrap().rows().is_empty(),
            "the second insert was not kept"
        );
        assert_eq!(count(&db, 1), 0);
        // The counters were not moved either: three members still fit.
        for id in 1..=3 {
            db.run(
                "add_member",
                &[1.into(), id.into(), format!("n{id}").into()],
            )
            .unwrap();
        }
    });
}

#[test]
fn racing_writers_never_exceed_a_bound_or_duplicate_a_unique_value() {
    each_backend(|backend, dir| {
        let db = Arc::new(open(backend, dir));
        db.run("add_team", &[1.into(), "red".into()]).unwrap();
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let db = Arc::clone(&db);
                std::thread::spawn(move || {
                    let mut ok = 0;
                    for i in 0..5 {
                        let id = (t * 100 + i) as i64;
                        // Every thread tries the same nicks: at most one wins each.
                        if db
                            .run(
                                "add_member",
                                &[1.into(), id.into(), format!("nick{i}").into()],
                            )
                            .is_ok()
                        {
                            ok += 1;
                        }
                    }
                    ok
                })
            })
            .collect();
        let accepted: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(accepted, 3, "exactly the bound's worth of members got in");
        let members = db.run("members", &[1.into()]).unwrap().rows().to_vec();
        assert_eq!(members.len(), 3);
        let mut nicks: Vec<String> = members
            .iter()
            .map(|m| m.field("nick").unwrap().to_string())
            .collect();
        nicks.sort();
        nicks.dedup();
        assert_eq!(nicks.len(), 3, "no nick was taken twice");
    });
}

/// Writers racing on LMDB share commits (group commit, runtime/src/group.rs):
/// a mutation refused on its third write, after two writes, leaves nothing
/// even when it ran inside a commit that others share; every accepted one
/// is stored whole; counters equal rows; each mutation has its own
/// changelog position. On every backend, so the others are held to it too.
#[test]
fn racing_writers_sharing_commits_keep_every_constraint() {
    each_backend(|backend, dir| {
        let db = Arc::new(open(backend, dir));
        for team in 1..=8i64 {
            db.run("add_team", &[team.into(), format!("team{team}").into()])
                .unwrap();
        }
        let start = db.position().unwrap();
        let threads: Vec<_> = (1..=8i64)
            .map(|team| {
                let db = Arc::clone(&db);
                std::thread::spawn(move || {
                    let mut accepted = Vec::new();
                    // A refused `three`, an accepted pair, a pair past the bound.
                    for (i, three) in [(0i64, true), (1, false), (2, false)] {
                        let (a, b) = (team * 1000 + 2 * i, team * 1000 + 2 * i + 1);
                        if three {
                            // Refused at its third write: nothing of it stays.
                            let refused = db.run("three", &[team.into(), a.into(), b.into()]);
                            assert_eq!(code(refused), "E0501");
                            continue;
                        }
                        let (na, nb) = (format!("n{a}"), format!("n{b}"));
                        let run = db.run(
                            "pair",
                            &[team.into(), a.into(), b.into(), na.into(), nb.into()],
                        );
                        match run {
                            Ok(_) => accepted.push((a, b)),
                            // The team's bound (3 members) refuses the
                            // second pair: its first insert is undone.
                            Err(Error::Runtime(e)) => assert_eq!(e.code, "E0504"),
                            Err(other) => panic!("{other}"),
                        }
                    }
                    accepted
                })
            })
            .collect();
        let accepted: Vec<(i64, i64)> = threads
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect();
        assert_eq!(accepted.len(), 8, "one pair per team fits its bound");
        for team in 1..=8i64 {
            assert_eq!(count(&db, team), 2, "team {team}");
        }
        for (a, b) in &accepted {
            for id in [a, b] {
                assert_eq!(db.run("member", &[(*id).into()]).unwrap().rows().len(), 1);
            }
        }
        assert_eq!(
            db.position().unwrap() - start,
            8,
            "one changelog entry per committed mutation"
        );
        let verified = db.verify().unwrap();
        assert!(verified.problems.is_empty(), "{:?}", verified.problems);
    });
}

#[test]
fn racing_inserts_of_one_key_let_exactly_one_in() {
    each_backend(|backend, dir| {
        let db = Arc::new(open(backend, dir));
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let db = Arc::clone(&db);
                std::thread::spawn(move || {
                    (0..5i64)
                        .filter(|key| {
                            // Every thread inserts the same keys, each with its own name.
                            db.run("add_team", &[(*key).into(), format!("t{t}k{key}").into()])
                                .is_ok()
                        })
                        .count()
                })
            })
            .collect();
        let accepted: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(accepted, 5, "one insert per key got in");
        for key in 0..5i64 {
            assert_eq!(db.run("team", &[key.into()]).unwrap().rows().len(), 1);
        }
    });
}

#[test]
fn readers_racing_a_writer_never_see_half_a_mutation() {
    each_backend(|backend, dir| {
        let db = Arc::new(open(backend, dir));
        for team in 1..=4i64 {
            db.run("add_team", &[team.into(), format!("t{team}").into()])
                .unwrap();
        }
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        // Reads finished so far: the writer goes on until the readers have
        // raced it for a while, however the threads are scheduled.
        let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let readers: Vec<_> = (0..3)
            .map(|r| {
                let (db, done, reads) = (Arc::clone(&db), Arc::clone(&done), Arc::clone(&reads));
                std::thread::spawn(move || {
                    let mut seen = [0usize; 3];
                    let mut i = r;
                    while !done.load(std::sync::atomic::Ordering::Relaxed) {
                        let team = 1 + (i % 4) as i64;
                        i += 1;
                        let state = db.run("pair_state", &[team.into()]).unwrap().value;
                        let field = |f: &str| match state.field(f) {
                            Some(Value::Int(n)) => *n as usize,
                            other => panic!("{f}: {other:?}"),
                        };
                        let listed = field("listed");
                        assert!(listed == 0 || listed == 2, "a torn pair: {state:?}");
                        assert_eq!(field("by_key"), listed, "key and index disagree");
                        assert_eq!(field("by_nick"), listed, "unique index disagrees");
                        seen[listed] += 1;
                        reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    seen
                })
            })
            .collect();
        let started = std::time::Instant::now();
        let raced = || reads.load(std::sync::atomic::Ordering::Relaxed) >= 30;
        let mut round = 0i64;
        while round < 60 || (!raced() && started.elapsed().as_secs() < 20) {
            round += 1;
            let team = 1 + round % 4;
            let (a, b) = (1000 + 2 * round, 1001 + 2 * round);
            let nicks: [Value; 2] = [format!("a{round}").into(), format!("b{round}").into()];
            db.run(
                "pair",
                &[
                    team.into(),
                    a.into(),
                    b.into(),
                    nicks[0].clone(),
                    nicks[1].clone(),
                ],
            )
            .unwrap();
            db.run("unpair", &[a.into(), b.into()]).unwrap();
            // A lock that prefers writers would keep the readers out.
            std::thread::yield_now();
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        let seen = readers
            .into_iter()
            .map(|r| r.join().unwrap())
            .fold([0usize; 3], |acc, s| {
                [acc[0] + s[0], acc[1] + s[1], acc[2] + s[2]]
            });
        assert_eq!(seen[1], 0);
        assert!(seen[0] > 0, "the readers ran: {seen:?}");
    });
}

#[test]
fn what_one_process_commits_the_next_one_reads_on_each_disk_backend() {
    for backend in Backend::ON_DISK {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = open(backend, dir.path());
            db.run("add_team", &[7.into(), "green".into()]).unwrap();
        }
        let db = open(backend, dir.path());
        assert_eq!(
            db.run("team", &[7.into()]).unwrap().rows()[0].field("name"),
            Some(&Value::from("green"))
        );
        drop(db);
        // Every other backend refuses the directory.
        for other in Backend::ON_DISK.into_iter().filter(|b| *b != backend) {
            let refused = Database::open_with(dir.path(), OpenOptions::with_backend(other));
            assert!(
                matches!(&refused, Err(Error::Runtime(e)) if e.code == "E0515"),
                "{other:?} on a {backend:?} database"
            );
        }
        // Without a backend, the database opens with its own.
        let mut db = Database::open_with(dir.path(), OpenOptions::default()).unwrap();
        db.install_source("teams.rq", &program()).unwrap();
        assert_eq!(db.run("team", &[7.into()]).unwrap().rows().len(), 1);
    }
}
