//! Live queries on etcd: `rqc watch` in its own process and `:watch` in the REPL while other processes write, and a subscriber through a leader kill and a follower kill in a stream of commits from several writers, which loses and repeats no commit.

use super::etcd::etcd_cluster::EtcdCluster;
use super::{rqc, rqc_with_input, stderr, stdout, write};
use rqc::{Database, Event, Value, WatchOptions};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

const SHELVES: &str = "
table Item {
  id: Int key
  shelf: Int
  name: String
  index by_shelf (shelf)
}
mutation add(id: Int, shelf: Int, name: String) = insert Item { id, shelf, name }
mutation rename(id: Int, name: String) = update Item[id] { name: name }
query shelf(s: Int) = Item.by_shelf[s] |> take(10)
";

fn run(db: &str, args: &[&str]) {
    let mut all = vec!["run", "--db", db];
    all.extend_from_slice(args);
    let out = rqc(&all);
    assert_eq!(out.status.code(), Some(0), "{:?}: {}", args, stderr(&out));
}

#[test]
fn rqc_watch_on_etcd_prints_each_changing_commit_of_other_processes() {
    let cluster = EtcdCluster::start(1);
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", SHELVES);
    let db = cluster.url("watch");
    run(&db, &[&app, "add", "--arg", "id=1", "--arg", "shelf=1", "--arg", "name=lamp"]);
    let mut watcher = Command::new(env!("CARGO_BIN_EXE_rqc"))
        .args(["watch", "--db", &db, "shelf", "--arg", "s=1", "--events", "3"])
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (lines, got) = mpsc::channel();
    let out = BufReader::new(watcher.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in out.lines() {
            let _ = lines.send(line.unwrap());
        }
    });
    let next = || {
        got.recv_timeout(Duration::from_secs(60))
            .expect("an event line")
    };
    assert_eq!(
        next(),
        r#"{"position":1,"result":[{"id":1,"shelf":1,"name":"lamp"}]}"#
    );
    // Another shelf: no line. Then an insert and an update on shelf 1.
    run(&db, &["add", "--arg", "id=2", "--arg", "shelf=2", "--arg", "name=desk"]);
    run(&db, &["add", "--arg", "id=3", "--arg", "shelf=1", "--arg", "name=pen"]);
    assert_eq!(
        next(),
        r#"{"position":3,"added":[{"id":3,"shelf":1,"name":"pen"}],"removed":[]}"#
    );
    run(&db, &["rename", "--arg", "id=1", "--arg", "name=lava"]);
    assert_eq!(
        next(),
        r#"{"position":4,"added":[{"id":1,"shelf":1,"name":"lava"}],"removed":[{"id":1,"shelf":1,"name":"lamp"}]}"#
    );
    assert_eq!(watcher.wait().unwrap().code(), Some(0));
    // Resuming from position 1 with the result then held: the change since.
    let held = r#"[{"id":1,"shelf":1,"name":"lamp"}]"#;
    let resumed = rqc(&[
        "watch", "--db", &db, "shelf", "--arg", "s=1", "--from", "1", "--held", held, "--events",
        "1",
    ]);
    assert_eq!(
        stdout(&resumed),
        "{\"position\":4,\"added\":[{\"id\":1,\"shelf\":1,\"name\":\"lava\"},{\"id\":3,\"shelf\":1,\"name\":\"pen\"}],\"removed\":[{\"id\":1,\"shelf\":1,\"name\":\"lamp\"}]}\n",
        "{}",
        stderr(&resumed)
    );
}

const SHOP: &str = "module shop
table Item {
  id: Int key
  shelf: Int
  name: String
  index by_shelf (shelf)
}
pub mutation add(id: Int, shelf: Int, name: String) = insert Item { id, shelf, name }
pub mutation rename(id: Int, name: String) = update Item[id] { name: name }
";

/// The same session as on LMDB (`watch.rs`), with the same lines.
#[test]
fn repl_watch_on_etcd_shows_each_change_after_the_input_that_made_it() {
    let cluster = EtcdCluster::start(1);
    let dir = tempfile::tempdir().unwrap();
    let shop = write(dir.path(), "shop.rq", SHOP);
    let db = cluster.url("repl");
    let script = ":watch Item.by_shelf[1] |> take(5)\n:watch Item[2]\nadd(2, 1, \"cup\")\n\
                  add(5, 3, \"x\")\nrename(2, \"mug\")\n:unwatch\nadd(6, 1, \"y\")\n";
    let out = rqc_with_input(&["repl", "--db", &db, &shop], script);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let watched: Vec<String> = stdout(&out)
        .lines()
        .filter(|line| line.starts_with("watch") || line.starts_with("stopped"))
        .map(str::to_string)
        .collect();
    assert_eq!(
        watched,
        [
            "watch 1 (:unwatch stops it)",
            r#"watch 1: {"position":0,"result":[]}"#,
            "watch 2 (:unwatch stops it)",
            r#"watch 2: {"position":0,"result":null}"#,
            r#"watch 1: {"position":1,"added":[{"id":2,"shelf":1,"name":"cup"}],"removed":[]}"#,
            r#"watch 2: {"position":1,"result":{"id":2,"shelf":1,"name":"cup"}}"#,
            r#"watch 1: {"position":3,"added":[{"id":2,"shelf":1,"name":"mug"}],"removed":[{"id":2,"shelf":1,"name":"cup"}]}"#,
            r#"watch 2: {"position":3,"result":{"id":2,"shelf":1,"name":"mug"}}"#,
            "stopped 2 watches",
        ]
    );
}

const ITEMS: &str = "
table Item { id: Int key  grp: Int  index by_grp (grp)  bound grp <= 100000 }
mutation add(id: Int, g: Int) = insert Item { id, grp: g }
query group(g: Int) = Item.by_grp[g]
";

/// What a commit's error may be while members die: the cluster
/// unreachable past the retries, an outcome unknown (the connection was
/// cut while the commit was sent), conflicts given up.
const EXPECTED: [&str; 3] = ["E0561", "E0566", "E0596"];

/// Three writers (one connection each, kept) insert one row per commit
/// into the group a subscriber on its own connection watches; the leader
/// is killed, restarted, then a follower is killed. Every commit changes
/// the result by one row, so an event at position p after one at q must
/// add exactly p − q rows: none lost, none twice, whichever member the
/// watch was on. The held result then equals a fresh run.
#[test]
fn a_subscriber_loses_and_repeats_no_commit_through_a_leader_and_a_follower_kill() {
    let mut cluster = EtcdCluster::start(3);
    let url = cluster.url("live");
    let mut db = Database::connect(&url).unwrap();
    db.install_source("items.rq", ITEMS).unwrap();
    drop(db);
    let watching = Database::connect(&url).unwrap();
    let options = WatchOptions {
        capacity: 1 << 20,
        ..WatchOptions::default()
    };
    let group = watching.prepare("group").unwrap();
    let live = group.subscribe_with(&[1.into()], options).unwrap();
    let Some(Event::Result { position: opened, value }) = live.try_next() else {
        panic!("a subscription opens with its whole result");
    };
    assert_eq!(value, Value::List(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(Mutex::new(Vec::<i64>::new()));
    let errors = Arc::new(Mutex::new(Vec::<String>::new()));
    let writers: Vec<_> = (0..3i64)
        .map(|w| {
            let (url, stop, acked, errors) =
                (url.clone(), stop.clone(), acked.clone(), errors.clone());
            std::thread::spawn(move || {
                let db = Database::connect(&url).unwrap();
                let mut k = 0;
                while !stop.load(Ordering::Relaxed) {
                    let id = w * 1_000_000 + k;
                    k += 1;
                    match db.run("add", &[id.into(), 1.into()]) {
                        Ok(_) => acked.lock().unwrap().push(id),
                        Err(e) => errors.lock().unwrap().push(e.to_string()),
                    }
                }
            })
        })
        .collect();
    // The subscriber reads as the commits come, through the faults.
    let mut events = Vec::new();
    let mut read_for = |span: Duration, events: &mut Vec<Event>| {
        let until = Instant::now() + span;
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            if let Some(event) = live.next_timeout(left) {
                events.push(event);
            }
        }
    };
    read_for(Duration::from_millis(1500), &mut events);
    let leader = cluster.leader().expect("a leader");
    cluster.kill(leader);
    read_for(Duration::from_millis(2500), &mut events);
    cluster.restart(leader);
    read_for(Duration::from_millis(2000), &mut events);
    let now_leader = cluster.leader().expect("a leader after the first kill");
    let follower = (0..3).find(|&i| i != now_leader).unwrap();
    cluster.kill(follower);
    let rings_at_kill = watching.live_stats().rings;
    read_for(Duration::from_millis(2500), &mut events);
    stop.store(true, Ordering::Relaxed);
    for writer in writers {
        writer.join().unwrap();
    }
    let last = watching.position().unwrap();
    assert!(live.wait_for(last, Duration::from_secs(60)), "the watcher did not reach {last}");
    while let Some(event) = live.try_next() {
        events.push(event);
    }
    for error in errors.lock().unwrap().iter() {
        assert!(
            EXPECTED.iter().any(|code| error.contains(code)),
            "unexpected error {error}"
        );
    }
    // Each event adds exactly the rows of the commits since the last one.
    let mut at = opened;
    let mut held = Vec::new();
    for event in &events {
        let Event::Rows { position, added, removed } = event else {
            panic!("only rows are added: {event:?}");
        };
        assert!(removed.is_empty(), "{event:?}");
        assert!(*position > at, "{event:?} after position {at}");
        assert_eq!(
            added.len() as u64,
            position - at,
            "the event at {position} after {at}"
        );
        held.extend(added.iter().cloned());
        at = *position;
    }
    assert_eq!(at, last, "the last event is at the last commit");
    let id = |row: &Value| match row.field("id") {
        Some(Value::Int(id)) => *id,
        _ => panic!("{row:?}"),
    };
    let mut held: Vec<i64> = held.iter().map(id).collect();
    held.sort_unstable();
    let mut fresh: Vec<i64> = watching.run("group", &[1.into()]).unwrap().rows().iter().map(id).collect();
    fresh.sort_unstable();
    assert_eq!(held, fresh, "the held result is a fresh run's");
    let acked = acked.lock().unwrap();
    for a in acked.iter() {
        assert!(held.binary_search(a).is_ok(), "acknowledged {a} never came");
    }
    let stats = watching.live_stats();
    assert!(stats.rings > rings_at_kill, "the etcd watch rang after the follower was killed");
    eprintln!(
        "etcd live: {} commits ({} acknowledged), {} events, {} rings, errors {:?}",
        last - opened,
        acked.len(),
        events.len(),
        stats.rings,
        errors.lock().unwrap()
    );
}
