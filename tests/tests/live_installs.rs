//! Live subscriptions across installs (spec/live.md, "Across installs").
//!
//! The issue's scenario: subscribed to a group under `bound grp <= 3`,
//! another process installs the same program with the bound loosened to
//! 100 (no `--migrate`) and grows the group past 3. The subscriber gets the
//! whole result, planned again, at the install's position, then one event
//! per changing commit, each checked against a fresh run under the new
//! program, and never E0599 (the old plan reads at most 3 rows). In one
//! process on every embedded store; in another process (this test binary
//! run as a child) on LMDB and on etcd.
//!
//! Then what ends a subscription (E0587 the query gone or rejected, E0588
//! its parameters changed, E0589 an expression that cannot follow), and
//! the attacks: an install between two commits that both touch the
//! subscription, two installs in a row, an install that tightens the
//! bound, installs from another process racing a busy watcher, and a
//! resume from a position before an install.

use rqc::{Backend, Database, Event, Value};
use rqc_runtime::live::apply;
use rqc_tests::live_groups::{events, normal, program, setup, watch, Place, Watched, WAIT};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Lines the children print start with this.
const MARK: &str = "rqc-live-install ";

/// What a step of the other writer committed: its position, and a fresh
/// run of `group(1)` and `size(1)` after it, as JSON.
struct Fresh {
    position: u64,
    group: serde_json::Value,
    size: serde_json::Value,
}

/// The issue's steps: 0 installs the program with the bound loosened to
/// 100; 1..=5 add members 4..=8 to group 1 (past the old bound); 6
/// removes member 2.
const STEPS: usize = 7;

fn step(db: &mut Database, step: usize) -> Fresh {
    match step {
        0 => {
            db.install_source("groups.rq", &program(100)).unwrap();
        }
        6 => {
            db.run("remove", &[1.into(), 2.into()]).unwrap();
        }
        k => {
            let id = k as i64 + 3;
            db.run("add", &[1.into(), id.into(), format!("m{id}").into()])
                .unwrap();
        }
    }
    step_fresh(db)
}

/// The last position and fresh runs of `group(1)` and `size(1)` there.
fn step_fresh(db: &Database) -> Fresh {
    Fresh {
        position: db.position().unwrap(),
        group: db.run("group", &[1.into()]).unwrap().value.to_json(),
        size: db.run("size", &[1.into()]).unwrap().value.to_json(),
    }
}

/// A child's line `POSITION GROUP SIZE`.
fn parse_fresh(line: &str) -> Fresh {
    let mut words = line.splitn(3, ' ');
    let mut next = || words.next().unwrap_or_else(|| panic!("{line}"));
    Fresh {
        position: next().parse().unwrap(),
        group: serde_json::from_str(next()).unwrap(),
        size: serde_json::from_str(next()).unwrap(),
    }
}

/// Subscribes to `group(1)`, `size(1)` and `group(2)` (which no write
/// touches), has `other` take the issue's steps, and checks every event.
fn scenario(db: &mut Database, mut other: impl FnMut(&mut Database, usize) -> Fresh) {
    let mut watched = vec![
        watch(db, "group", 1),
        watch(db, "size", 1),
        watch(db, "group", 2),
    ];
    let untouched = watched[2].held.to_json();
    for at in 0..STEPS {
        let fresh = other(db, at);
        for w in &mut watched {
            let came = events(w, fresh.position);
            for event in &came {
                assert!(
                    !matches!(event, Event::Failed { .. } | Event::Overflow { .. }),
                    "step {at}, {}({}): {event:?}",
                    w.name,
                    w.group
                );
                assert_eq!(event.position(), fresh.position, "step {at}: {event:?}");
                apply(&mut w.held, event);
            }
            let expected = match (w.name, w.group) {
                ("size", _) => &fresh.size,
                (_, 1) => &fresh.group,
                _ => &untouched,
            };
            assert_eq!(
                normal(&w.held.to_json()),
                normal(expected),
                "step {at}: {}({})",
                w.name,
                w.group
            );
            if at == 0 {
                // Planned again under the new program: its whole result, at
                // the install's position, whether or not it changed.
                assert!(
                    matches!(came.as_slice(), [Event::Result { .. }]),
                    "{}({}) at the install: {came:?}",
                    w.name,
                    w.group
                );
            } else {
                assert!(came.len() <= 1, "{came:?}");
            }
        }
    }
    // The group grew past the old plan's bound: 1..=8 without 2.
    let size = watched[1].held.clone();
    assert_eq!(size, Value::Int(7));
}

#[test]
fn an_install_in_this_process_plans_every_subscription_again_on_every_store() {
    for backend in [Backend::Lmdb, Backend::Redb, Backend::Sled, Backend::Memory] {
        let dir = tempfile::tempdir().unwrap();
        let mut db = Place::Dir(dir.path().join("db"), Some(backend)).open();
        setup(&mut db, 3);
        scenario(&mut db, step);
    }
}

#[test]
fn an_install_in_this_process_on_etcd() {
    let mut db = Place::Url(rqc_tests::etcd::fresh_url()).open();
    setup(&mut db, 3);
    scenario(&mut db, step);
}

/// The children: `RQC_LIVE_ROLE` says which, `RQC_LIVE_AT` which
/// database, `RQC_LIVE_STEPS` the directory of the handshake files.
#[test]
fn live_install_child() {
    let (Ok(role), Ok(at), Ok(steps)) = (
        std::env::var("RQC_LIVE_ROLE"),
        std::env::var("RQC_LIVE_AT"),
        std::env::var("RQC_LIVE_STEPS"),
    ) else {
        return; // run as a test of its own: nothing to do
    };
    let steps = Path::new(&steps);
    let mut db = Place::parse(&at).open();
    match role.as_str() {
        // The issue's steps, each when the parent asks for it.
        "grow" => {
            for at in 0..STEPS {
                let asked = steps.join(at.to_string());
                let given_up = std::time::Instant::now() + Duration::from_secs(120);
                while !asked.exists() {
                    assert!(std::time::Instant::now() < given_up, "never asked for {at}");
                    std::thread::sleep(Duration::from_millis(5));
                }
                let fresh = step(&mut db, at);
                say(format!("{} {} {}", fresh.position, fresh.group, fresh.size));
            }
        }
        // Installs alternating between two bounds, and adds and removes
        // in group 1, as fast as it can, until told to stop.
        "race" => {
            let mut round = 0i64;
            let given_up = std::time::Instant::now() + Duration::from_secs(120);
            while !steps.join("stop").exists() {
                assert!(std::time::Instant::now() < given_up, "never told to stop");
                round += 1;
                let bound = if round % 2 == 0 { 100 } else { 50 };
                db.install_source("groups.rq", &program(bound)).unwrap();
                let id = 100 + round % 20;
                let _ = db.run("add", &[1.into(), id.into(), "r".into()]);
                if round % 3 == 0 {
                    let _ = db.run("remove", &[1.into(), (100 + (round + 7) % 20).into()]);
                }
            }
            let fresh = step_fresh(&db);
            say(format!("rounds {round}"));
            say(format!("{} {} {}", fresh.position, fresh.group, fresh.size));
        }
        other => panic!("no role {other}"),
    }
    say("done");
}

fn say(line: impl std::fmt::Display) {
    println!("{MARK}{line}");
}

/// A child process and the lines it printed.
struct Proc {
    child: Child,
    lines: mpsc::Receiver<String>,
    steps: tempfile::TempDir,
}

fn spawn(role: &str, place: &Place) -> Proc {
    let steps = tempfile::tempdir().unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "live_install_child",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("RQC_LIVE_ROLE", role)
        .env("RQC_LIVE_AT", place.text())
        .env("RQC_LIVE_STEPS", steps.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(at) = line.find(MARK) {
                let _ = tx.send(line[at + MARK.len()..].to_string());
            }
        }
    });
    Proc {
        child,
        lines,
        steps,
    }
}

/// A child left behind by a failing test ends with it.
impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Proc {
    fn ask(&self, file: &str) {
        std::fs::write(self.steps.path().join(file), "").unwrap();
    }

    fn next(&self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(60))
            .expect("a line from the child")
    }

    fn finish(mut self) -> Vec<String> {
        let status = self.child.wait().unwrap();
        let lines: Vec<String> = std::iter::from_fn(|| self.lines.recv().ok()).collect();
        assert!(status.success(), "the child failed ({status}): {lines:?}");
        assert_eq!(lines.last().map(String::as_str), Some("done"));
        lines
    }
}

/// The issue's scenario with the steps taken by another process.
fn across_processes(place: Place) {
    let mut db = place.open();
    setup(&mut db, 3);
    let child = spawn("grow", &place);
    scenario(&mut db, |_, at| {
        child.ask(&at.to_string());
        parse_fresh(&child.next())
    });
    child.finish();
}

#[test]
fn an_install_in_another_process_plans_every_subscription_again_on_lmdb() {
    let dir = tempfile::tempdir().unwrap();
    across_processes(Place::Dir(dir.path().join("db"), Some(Backend::Lmdb)));
}

#[test]
fn an_install_in_another_process_plans_every_subscription_again_on_etcd() {
    across_processes(Place::Url(rqc_tests::etcd::fresh_url()));
}

/// Installs (bounds 50 and 100 in turn) and writes of another process,
/// as fast as it makes them, while this process's watcher evaluates many
/// subscriptions, so that installs land while it evaluates: no event is
/// an error, whole results come, and at the end every subscriber holds
/// what a fresh run in that process gives.
#[test]
fn installs_in_another_process_race_a_busy_watcher_on_lmdb() {
    let dir = tempfile::tempdir().unwrap();
    let place = Place::Dir(dir.path().join("db"), Some(Backend::Lmdb));
    let mut db = place.open();
    setup(&mut db, 3);
    let mut watched: Vec<Watched> = (0..40)
        .map(|i| watch(&db, if i % 2 == 0 { "group" } else { "size" }, 1))
        .collect();
    let child = spawn("race", &place);
    let until = std::time::Instant::now() + Duration::from_secs(3);
    let mut whole = 0;
    let mut take = |watched: &mut Vec<Watched>| {
        for w in watched.iter_mut() {
            while let Some(event) = w.live.try_next() {
                assert!(!matches!(event, Event::Failed { .. }), "{event:?}");
                whole += usize::from(matches!(event, Event::Result { .. }));
                apply(&mut w.held, &event);
            }
        }
    };
    while std::time::Instant::now() < until {
        take(&mut watched);
        std::thread::sleep(Duration::from_millis(20));
    }
    child.ask("stop");
    let lines = child.finish();
    let fresh = parse_fresh(&lines[lines.len() - 2]);
    for w in &watched {
        assert!(w.live.wait_for(fresh.position, WAIT));
    }
    take(&mut watched);
    assert!(whole > 0, "no install planned a subscription again");
    for w in &watched {
        let expected = if w.name == "size" {
            &fresh.size
        } else {
            &fresh.group
        };
        assert_eq!(normal(&w.held.to_json()), normal(expected), "{}", w.name);
    }
    assert!(lines[0].starts_with("rounds "), "{lines:?}");
}
