//! Adversarial live queries: subscriptions to the programs of tests/adversarial, to the installed entry and to a clone of it, across writes and installs, each holding the reference's fresh result after every commit.
//!
//! The entry is found by pointer when it is the installed one, and bound
//! again when it is a clone. Installs come between the writes with the
//! subscriptions open (spec/live.md, "Across installs"): the same program
//! again (nothing happens), a changed program over the same schema (every
//! subscription, clones too, gets its whole result at the install's
//! position), and one that changes the schema (the installed entries are
//! planned again; a clone, a plan with no text to compile again, ends
//! with E0589).

use rqc_compiler::compile;
use rqc_plan::{Entry, Value};
use rqc_runtime::live::{apply, Event, WatchOptions};
use rqc_runtime::{Backend, Durability, Engine, OpenOptions};
use rqc_tests::fixtures::{as_multiset, with_fixtures};
use rqc_tests::reference::Reference;
use std::time::Duration;

/// Writes besides the fixtures' inserts.
const EDITS: &str = "
module edits
import social.{User, Follow, Post, Country}
mutation del_follow(a: Int, b: Int) = delete Follow[a, b]
mutation del_post(id: Int) = delete Post[id]
mutation retime(id: Int, at: Int) = update Post[id] { at: at }
mutation rename(id: Int, n: String) = update User[id] { name: n }
";

fn run_live(path: &str, backend: Backend) {
    let mut files = with_fixtures(&[path]);
    files.push(("edits.rq".into(), EDITS.into()));
    let compilation = compile(&files);
    let dir = tempfile::tempdir().unwrap();
    let mut engine = Engine::open(
        dir.path(),
        OpenOptions {
            backend: Some(backend),
            durability: Durability::None,
            ..OpenOptions::default()
        },
    )
    .unwrap();
    engine.install(compilation.program.clone()).unwrap();
    let mut reference = Reference::new(&compilation.checked);
    let write = |engine: &Engine, reference: &mut Reference<'_>, name: &str, args: Vec<Value>| {
        let ok = engine.run(name, &args).is_ok();
        if ok {
            reference.run(name, &args);
        }
    };
    write(
        &engine,
        &mut reference,
        "add_country",
        vec!["NZ".into(), "n".into()],
    );
    for id in 0..=12i64 {
        write(
            &engine,
            &mut reference,
            "add_user",
            vec![id.into(), format!("h{id}").into(), "U".into(), "NZ".into()],
        );
    }
    for b in 2..=12i64 {
        write(
            &engine,
            &mut reference,
            "add_follow",
            vec![1.into(), b.into(), (b % 5).into()],
        );
    }
    for id in 1..=40i64 {
        write(
            &engine,
            &mut reference,
            "add_post",
            vec![
                id.into(),
                (id % 4 + 1).into(),
                (id * 7 % 13).into(),
                "b".into(),
            ],
        );
    }
    // Subscribers: each query's installed entry and a clone, for a few arguments.
    let queries: Vec<Entry> = compilation
        .program
        .entries
        .iter()
        .filter(|e| {
            e.module != "fixtures" && e.module != "edits" && e.kind == rqc_plan::EntryKind::Query
        })
        .map(|e| (**e).clone())
        .collect();
    struct W {
        name: String,
        args: Vec<Value>,
        live: rqc_runtime::live::Subscription,
        held: Value,
        cloned: bool,
    }
    let mut watchers = Vec::new();
    for q in &queries {
        for first in [1i64, 2, 3] {
            let args: Vec<Value> = q
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| match &p.ty {
                    rqc_plan::ParamType::Scalar(rqc_plan::ColumnType::Bool) => {
                        Value::Bool(first % 2 == 0)
                    }
                    _ if i == 0 => Value::Int(first),
                    _ => Value::Int(p.max.unwrap_or(3)),
                })
                .collect();
            for cloned in [false, true] {
                let entry_ref: &Entry = if cloned {
                    q
                } else {
                    engine.entry(&q.name).unwrap()
                };
                let Ok(live) = engine.subscribe(entry_ref, &args, WatchOptions::default()) else {
                    continue;
                };
                let Some(Event::Result { value, .. }) = live.try_next() else {
                    panic!("no opening")
                };
                watchers.push(W {
                    name: q.name.clone(),
                    args: args.clone(),
                    live,
                    held: value,
                    cloned,
                });
            }
        }
    }
    let writes: Vec<(&str, Vec<Value>)> = vec![
        (
            "add_post",
            vec![100.into(), 2.into(), 50.into(), "x".into()],
        ),
        ("del_follow", vec![1.into(), 3.into()]),
        ("retime", vec![2.into(), 99.into()]),
        ("rename", vec![4.into(), "Z".into()]),
        ("add_follow", vec![1.into(), 0.into(), 9.into()]),
        ("add_follow", vec![2.into(), 1.into(), 9.into()]),
        ("del_post", vec![6.into()]),
        ("del_post", vec![6.into()]),
        (
            "add_user",
            vec![13.into(), "h13".into(), "U".into(), "NZ".into()],
        ),
        ("add_follow", vec![1.into(), 13.into(), 1.into()]),
        (
            "add_post",
            vec![101.into(), 13.into(), 1.into(), "x".into()],
        ),
        ("del_follow", vec![1.into(), 2.into()]),
        ("add_follow", vec![3.into(), 2.into(), 4.into()]),
    ];
    let mut failures = Vec::new();
    for (step, (name, args)) in writes.into_iter().enumerate() {
        if step == 6 {
            // A reinstall of the same program (the same shared entries) and of
            // a fresh compilation (new ones) while subscribed.
            engine.install(compilation.program.clone()).unwrap();
            engine.install(compile(&files).program).unwrap();
        }
        if step == 9 || step == 11 {
            let extra = match step {
                9 => "query edits_probe(id: Int) = User[id]\n",
                _ => "table Extra { id: Int key }\nquery edits_probe(id: Int) = Extra[id]\n",
            };
            let mut changed = files.clone();
            changed.last_mut().unwrap().1.push_str(extra);
            engine.install(compile(&changed).program).unwrap();
            let at = engine.position().unwrap();
            watchers.retain_mut(|w| {
                assert!(w.live.wait_for(at, Duration::from_secs(30)));
                let came: Vec<Event> = std::iter::from_fn(|| w.live.try_next()).collect();
                let ends = step == 11 && w.cloned;
                match came.as_slice() {
                    [Event::Failed { position, error }] if ends => {
                        assert_eq!((*position, error.code), (at, "E0589"), "{}", w.name);
                        assert!(w.live.is_closed());
                    }
                    [Event::Result { position, value }] if !ends && *position == at => {
                        w.held = value.clone();
                    }
                    _ => failures.push(format!(
                        "{} cloned={} at the install: {came:?}",
                        w.name, w.cloned
                    )),
                }
                !ends
            });
        }
        write(&engine, &mut reference, name, args.clone());
        let position = engine.position().unwrap();
        for w in watchers.iter_mut() {
            assert!(w.live.wait_for(position, Duration::from_secs(30)));
            while let Some(event) = w.live.try_next() {
                apply(&mut w.held, &event);
            }
            let fresh = reference.run(&w.name, &w.args);
            if as_multiset(&fresh) != as_multiset(&w.held) {
                failures.push(format!(
                    "after {name}({args:?}): {}({:?}) cloned={} holds {:?}, fresh {:?}",
                    w.name, w.args, w.cloned, w.held, fresh
                ));
            }
        }
    }
    eprintln!("{} watchers", watchers.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn live_a1_memory() {
    run_live("tests/adversarial/a1.rq", Backend::Memory);
}
#[test]
fn live_a3_lmdb() {
    run_live("tests/adversarial/a3.rq", Backend::Lmdb);
}
#[test]
fn live_a2_redb() {
    run_live("tests/adversarial/a2.rq", Backend::Redb);
}
