//! Live subscriptions across installs, attacked (spec/live.md, "Across installs").
//!
//! What ends a subscription at an install, with its code: its query
//! removed or rejected (E0587), its parameters changed — renamed, retyped,
//! a mutation now, or a bound its arguments no longer fit (E0588) — and an
//! expression that cannot follow (E0589); what it survives (a bound its
//! arguments still fit, an expression compiled again). Then: an install
//! between two commits that both touch the subscription, two installs in
//! a row, an install that tightens a bound (and one refused), a
//! subscription made by a handle older than the installed program, and a
//! resume from a position before an install.

use rqc::{Backend, CompiledProgram, Database, Entry, Event, Resume, Value, WatchOptions};
use rqc_runtime::live::apply;
use rqc_tests::live_groups::{events, normal, program, setup, watch, Place, Watched, WAIT};
use std::sync::{Arc, Mutex};

/// The first program's queries beside `program`'s, and what the second
/// program makes of each.
const BEFORE: &str = "
query top(g: Int, n: Int <= 10) = M[g] |> take(n)
query pick(g: Int, id: Int) = M[g, id]
query named(g: Int) = M[g] |> count()
query kept(g: Int) = M[g] |> take(1)
";

/// `group` gone, `size` rejected (a whole table's count), `top`'s bound
/// tightened, `pick`'s parameter renamed, `named` a mutation, `kept` as it
/// was; the schema changes too (the bound is 4).
const AFTER: &str = "
table M {
  grp: Int
  id: Int
  name: String <= 20
  key (grp, id)
  bound grp <= 4
}
mutation add(grp: Int, id: Int, name: String) = insert M { grp, id, name }
query size(g: Int) = M |> count()
query top(g: Int, n: Int <= 5) = M[g] |> take(n)
query pick(g: Int, key: Int) = M[g, key]
mutation named(g: Int) = delete M[g, 1]
query kept(g: Int) = M[g] |> take(1)
";

/// An expression's query, compiled beside a program's source.
const ADHOC: &str = "query adhoc(g: Int) = M[g] |> count()\n";

fn lmdb() -> (tempfile::TempDir, Database) {
    let dir = tempfile::tempdir().unwrap();
    let db = Place::Dir(dir.path().join("db"), Some(Backend::Lmdb)).open();
    (dir, db)
}

/// `adhoc`, compiled against `source` (not installed), and the schema.
fn adhoc(source: &str) -> (Entry, rqc_plan::Schema) {
    let files = [("groups.rq".to_string(), format!("{source}{ADHOC}"))];
    let program = rqc_compiler::compile(&files).program;
    let entry = program.entries.iter().find(|e| e.name == "adhoc").unwrap();
    (Entry::clone(entry), program.schema)
}

/// What compiles `adhoc` again, against the source `current` holds when
/// its schema is the program's.
fn recompiler(
    current: Arc<Mutex<String>>,
) -> impl Fn(&CompiledProgram) -> Result<Entry, String> + Send + Sync + 'static {
    move |program| {
        let (entry, schema) = adhoc(&current.lock().unwrap());
        match schema == program.schema {
            true => Ok(entry),
            false => Err("its source is not the installed program's".into()),
        }
    }
}

#[test]
fn an_install_ends_each_subscription_it_cannot_plan_again_with_its_code() {
    let (_dir, mut db) = lmdb();
    let before = format!("{}{BEFORE}", program(3));
    db.install_source("groups.rq", &before).unwrap();
    for id in 1..=3i64 {
        db.run("add", &[1.into(), id.into(), "m".into()]).unwrap();
    }
    let subscribe = |db: &Database, name: &str, args: &[Value]| {
        let live = db.prepare(name).unwrap().subscribe(args).unwrap();
        assert!(matches!(
            live.next_timeout(WAIT),
            Some(Event::Result { .. })
        ));
        live
    };
    let ending = [
        ("group", subscribe(&db, "group", &[1.into()]), "E0587"),
        ("size", subscribe(&db, "size", &[1.into()]), "E0587"),
        (
            "top 7",
            subscribe(&db, "top", &[1.into(), 7.into()]),
            "E0588",
        ),
        (
            "pick",
            subscribe(&db, "pick", &[1.into(), 2.into()]),
            "E0588",
        ),
        ("named", subscribe(&db, "named", &[1.into()]), "E0588"),
    ];
    let options = WatchOptions::default;
    // An entry point with no text to compile again, over a schema that
    // changes; and one whose text no longer compiles.
    let textless = db
        .subscribe_entry(&adhoc(&before).0, &[1.into()], options())
        .unwrap();
    let refused = db
        .subscribe_recompiled(&adhoc(&before).0, &[1.into()], options(), |_| {
            Err("`M` is gone".into())
        })
        .unwrap();
    let current = Arc::new(Mutex::new(before.clone()));
    let followed = db
        .subscribe_recompiled(
            &adhoc(&before).0,
            &[1.into()],
            options(),
            recompiler(Arc::clone(&current)),
        )
        .unwrap();
    let surviving = [
        ("top 4", subscribe(&db, "top", &[1.into(), 4.into()])),
        ("kept", subscribe(&db, "kept", &[1.into()])),
    ];
    for live in [&textless, &refused, &followed] {
        assert!(matches!(
            live.next_timeout(WAIT),
            Some(Event::Result { .. })
        ));
    }

    *current.lock().unwrap() = AFTER.to_string();
    let report = db.install_source("groups.rq", AFTER).unwrap();
    assert!(report.is_rejected("size"), "{:?}", report.rejected);
    let at = db.position().unwrap();
    let mut ended: Vec<(&str, &rqc::Subscription, &str)> =
        ending.iter().map(|(n, l, c)| (*n, l, *c)).collect();
    ended.push(("textless", &textless, "E0589"));
    ended.push(("`M` is gone", &refused, "E0589"));
    for (name, live, code) in ended {
        assert!(live.wait_for(at, WAIT));
        let Some(Event::Failed { position, error }) = live.next_timeout(WAIT) else {
            panic!("{name}: no ending event");
        };
        assert_eq!((position, error.code), (at, code), "{name}: {error}");
        assert!(!error.help.is_empty());
        // The reason is the recompiler's, for an expression.
        assert!(
            !name.contains('`') || error.message.contains(name),
            "{error}"
        );
        assert!(live.is_closed(), "{name} goes on");
        assert_eq!(live.try_next(), None, "{name}: an event after its last");
    }
    // The rest are planned again: their whole result at the install.
    let runs = [
        ("top 4", db.run("top", &[1.into(), 4.into()]).unwrap().value),
        ("kept", db.run("kept", &[1.into()]).unwrap().value),
    ];
    for ((name, live), (_, fresh)) in surviving.iter().zip(runs) {
        assert!(live.wait_for(at, WAIT));
        let came: Vec<Event> = std::iter::from_fn(|| live.try_next()).collect();
        assert_eq!(
            came,
            [Event::Result {
                position: at,
                value: fresh
            }],
            "{name}"
        );
    }
    assert!(followed.wait_for(at, WAIT));
    assert_eq!(
        followed.try_next(),
        Some(Event::Result {
            position: at,
            value: Value::Int(3)
        })
    );
    // Past the old bound of 3, under the new one of 4: the followed
    // expression and `kept` see it, never E0599.
    db.run("add", &[1.into(), 4.into(), "m".into()]).unwrap();
    let at = db.position().unwrap();
    assert!(followed.wait_for(at, WAIT));
    assert_eq!(
        followed.try_next(),
        Some(Event::Result {
            position: at,
            value: Value::Int(4)
        })
    );
}

/// The subscribers' events up to the writer's last position: none an
/// error, each after the last; each subscriber then holds a fresh run.
fn check_through(db: &Database, watched: &mut [Watched]) -> Vec<Vec<Event>> {
    let at = db.position().unwrap();
    let mut all = Vec::new();
    for w in watched.iter_mut() {
        let came = events(w, at);
        let mut last = 0;
        for event in &came {
            assert!(!matches!(event, Event::Failed { .. }), "{event:?}");
            assert!(event.position() > last, "{came:?}");
            last = event.position();
            apply(&mut w.held, event);
        }
        let fresh = db.run(w.name, &[w.group.into()]).unwrap().value;
        assert_eq!(
            normal(&w.held.to_json()),
            normal(&fresh.to_json()),
            "{}",
            w.name
        );
        all.push(came);
    }
    all
}

/// A `Result` comes at or after `install`, and every event before it is
/// before the install.
fn whole_at_or_after(events: &[Event], install: u64) {
    let first_after = events.iter().find(|e| e.position() >= install);
    assert!(
        matches!(first_after, Some(Event::Result { .. })),
        "no whole result after the install at {install}: {events:?}"
    );
}

#[test]
fn an_install_between_two_commits_that_touch_the_subscription() {
    // Once with the watcher looking between, once finding all at once.
    for looks_between in [true, false] {
        let (_dir, mut db) = lmdb();
        setup(&mut db, 3);
        db.run("remove", &[1.into(), 3.into()]).unwrap();
        let mut watched = vec![watch(&db, "group", 1), watch(&db, "size", 1)];
        db.run("add", &[1.into(), 3.into(), "back".into()]).unwrap();
        if looks_between {
            check_through(&db, &mut watched);
        }
        db.install_source("groups.rq", &program(100)).unwrap();
        let install = db.position().unwrap();
        db.run("add", &[1.into(), 4.into(), "past".into()]).unwrap();
        db.run("add", &[1.into(), 5.into(), "past".into()]).unwrap();
        for came in check_through(&db, &mut watched) {
            whole_at_or_after(&came, install);
        }
        assert_eq!(watched[1].held, Value::Int(5));
    }
}

#[test]
fn two_installs_in_a_row_then_writes_past_the_first_bound() {
    let (_dir, mut db) = lmdb();
    setup(&mut db, 3);
    let mut watched = vec![watch(&db, "group", 1), watch(&db, "size", 1)];
    db.install_source("groups.rq", &program(100)).unwrap();
    db.install_source("groups.rq", &program(50)).unwrap();
    let second = db.position().unwrap();
    for id in 4..=6i64 {
        db.run("add", &[1.into(), id.into(), "m".into()]).unwrap();
    }
    for came in check_through(&db, &mut watched) {
        whole_at_or_after(&came, second);
    }
    assert_eq!(watched[1].held, Value::Int(6));
}

#[test]
fn an_install_that_tightens_the_bound_is_followed_and_one_refused_changes_nothing() {
    let (_dir, mut db) = lmdb();
    setup(&mut db, 3);
    let mut watched = vec![watch(&db, "group", 1), watch(&db, "size", 1)];
    db.install_source("groups.rq", &program(100)).unwrap();
    db.run("add", &[1.into(), 4.into(), "m".into()]).unwrap();
    check_through(&db, &mut watched);
    // Tightened to what the group holds: a migration, checked, followed.
    db.install_source("groups.rq", &program(4)).unwrap();
    let tightened = db.position().unwrap();
    for came in check_through(&db, &mut watched) {
        assert!(
            matches!(came.as_slice(), [Event::Result { position, .. }] if *position == tightened),
            "{came:?}"
        );
    }
    let full = db
        .run("add", &[1.into(), 5.into(), "m".into()])
        .unwrap_err();
    assert_eq!(full.code(), "E0504");
    // Tighter than the group: refused whole, no entry, no event.
    let refused = db.install_source("groups.rq", &program(3)).unwrap_err();
    assert_eq!(refused.code(), "E0510");
    assert_eq!(db.position().unwrap(), tightened);
    db.run("remove", &[1.into(), 1.into()]).unwrap();
    db.run("add", &[1.into(), 9.into(), "m".into()]).unwrap();
    for came in check_through(&db, &mut watched) {
        assert!(came
            .iter()
            .all(|e| !matches!(e, Event::Result { .. }) || e.position() > tightened));
    }
}

#[test]
fn a_resume_from_before_an_install_opens_with_the_whole_result() {
    let (_dir, mut db) = lmdb();
    setup(&mut db, 3);
    let before = watch(&db, "group", 1);
    let (held, position) = (before.held.clone(), db.position().unwrap());
    drop(before);
    let mut after = watch(&db, "group", 1);
    db.install_source("groups.rq", &program(100)).unwrap();
    db.run("add", &[1.into(), 4.into(), "m".into()]).unwrap();
    check_through(&db, std::slice::from_mut(&mut after));
    let fresh = db.run("group", &[1.into()]).unwrap().value;
    let head = db.position().unwrap();
    let resume = |position, result| WatchOptions {
        resume: Some(Resume { position, result }),
        ..WatchOptions::default()
    };
    // Held from before the install: the whole result, not a change.
    let resumed = db
        .prepare("group")
        .unwrap()
        .subscribe_with(&[1.into()], resume(position, held))
        .unwrap();
    assert_eq!(
        resumed.next_timeout(WAIT),
        Some(Event::Result {
            position: head,
            value: fresh.clone()
        })
    );
    // Held from after it: only the change (none here).
    let resumed = db
        .prepare("group")
        .unwrap()
        .subscribe_with(&[1.into()], resume(head, after.held.clone()))
        .unwrap();
    assert_eq!(resumed.try_next(), None);
}

/// On etcd two handles of one database are independent: one installs, and
/// the other, holding the older program, subscribes under the new one.
#[test]
fn a_handle_older_than_the_installed_program_subscribes_under_the_new_one() {
    let url = rqc_tests::etcd::fresh_url();
    let mut first = Place::Url(url.clone()).open();
    setup(&mut first, 3);
    let old = Place::Url(url).open();
    let prepared = old.prepare("group").unwrap();
    first
        .install_source("groups.rq", &format!("{}{BEFORE}", program(100)))
        .unwrap();
    for id in 4..=6i64 {
        first
            .run("add", &[1.into(), id.into(), "m".into()])
            .unwrap();
    }
    // `old` plans `group` as of bound 3; the group holds 6.
    let live = prepared.subscribe(&[1.into()]).unwrap();
    let fresh = first.run("group", &[1.into()]).unwrap().value;
    let Some(Event::Result { value, .. }) = live.next_timeout(WAIT) else {
        panic!("no opening");
    };
    assert_eq!(normal(&value.to_json()), normal(&fresh.to_json()));
    // Gone from the catalog's program: refused at once, with its code.
    for id in 4..=6i64 {
        first.run("remove", &[1.into(), id.into()]).unwrap();
    }
    first.install_source("groups.rq", AFTER).unwrap();
    let gone = old.prepare("group").unwrap().subscribe(&[1.into()]);
    assert_eq!(
        gone.err().map(|e| e.code().to_string()),
        Some("E0587".into())
    );
}
