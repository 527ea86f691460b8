//! Live queries on etcd: `rqc watch` in its own process and `:watch` in the REPL while other processes write, and a subscriber through a leader kill and a follower kill in a stream of commits from several writers, which loses and repeats no commit.

use super::etcd::etcd_cluster::EtcdCluster;
use super::watch::{repl_watch_session, watch_while_others_write, SHELVES, SHOP};
use super::write;
use rqc::{Database, Event, Value, WatchOptions};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The same lines as on LMDB (`watch.rs`).
#[test]
fn rqc_watch_on_etcd_prints_each_changing_commit_of_other_processes() {
    let cluster = EtcdCluster::start(1);
    let dir = tempfile::tempdir().unwrap();
    let app = write(dir.path(), "app.rq", SHELVES);
    watch_while_others_write(&cluster.url("watch"), &app);
}

/// The same session as on LMDB (`watch.rs`), with the same lines.
#[test]
fn repl_watch_on_etcd_shows_each_change_after_the_input_that_made_it() {
    let cluster = EtcdCluster::start(1);
    let dir = tempfile::tempdir().unwrap();
    let shop = write(dir.path(), "shop.rq", SHOP);
    repl_watch_session(&cluster.url("repl"), &shop);
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

/// A subscriber, on its own connection, and the events it took with when.
struct Watching {
    name: &'static str,
    db: Database,
    live: rqc::Subscription,
    opened: u64,
    events: Vec<(Event, Instant)>,
}

impl Watching {
    fn new(name: &'static str, url: &str) -> Watching {
        let db = Database::connect(url).unwrap();
        let options = WatchOptions {
            capacity: 1 << 20,
            ..WatchOptions::default()
        };
        let live = db
            .prepare("group")
            .unwrap()
            .subscribe_with(&[1.into()], options)
            .unwrap();
        let Some(Event::Result { position, value }) = live.try_next() else {
            panic!("a subscription opens with its whole result");
        };
        assert_eq!(value, Value::List(Vec::new()));
        Watching {
            name,
            db,
            live,
            opened: position,
            events: Vec::new(),
        }
    }

    fn take(&mut self) -> bool {
        let Some(event) = self.live.try_next() else {
            return false;
        };
        self.events.push((event, Instant::now()));
        true
    }

    /// Each event adds exactly the rows of the commits since the one
    /// before, and the last is at `last`; returns the ids held, sorted,
    /// and when each came.
    fn check(&self, last: u64) -> (Vec<i64>, HashMap<i64, Instant>) {
        let mut at = self.opened;
        let mut held = Vec::new();
        let mut came = HashMap::new();
        for (event, when) in &self.events {
            let Event::Rows {
                position,
                added,
                removed,
            } = event
            else {
                panic!("{}: only rows are added: {event:?}", self.name);
            };
            assert!(removed.is_empty(), "{}: {event:?}", self.name);
            assert!(
                *position > at,
                "{}: {event:?} after position {at}",
                self.name
            );
            assert_eq!(
                added.len() as u64,
                position - at,
                "{}: the event at {position} after {at}",
                self.name
            );
            for row in added {
                held.push(id(row));
                came.insert(id(row), *when);
            }
            at = *position;
        }
        assert_eq!(
            at, last,
            "{}: the last event is at the last commit",
            self.name
        );
        held.sort_unstable();
        (held, came)
    }
}

fn id(row: &Value) -> i64 {
    match row.field("id") {
        Some(Value::Int(id)) => *id,
        _ => panic!("{row:?}"),
    }
}

/// Three writers (one connection each, kept) insert one row per commit
/// into the group two subscribers watch: one connected to every member,
/// one to the first leader only, so that its etcd watch breaks when that
/// member is killed and is watched again from its last revision once the
/// member is back. The leader is killed and restarted, then a follower is
/// killed. Every commit changes the result by one row, so an event at
/// position p after one at q must add exactly p − q rows: none lost, none
/// twice. The held results then equal a fresh run, and hold every
/// acknowledged row.
#[test]
fn a_subscriber_loses_and_repeats_no_commit_through_a_leader_and_a_follower_kill() {
    let mut cluster = EtcdCluster::start(3);
    let url = cluster.url("live");
    let mut db = Database::connect(&url).unwrap();
    db.install_source("items.rq", ITEMS).unwrap();
    drop(db);
    let leader = cluster.leader().expect("a leader");
    let pinned_url = format!(
        "etcd://127.0.0.1:{}/live",
        cluster.members[leader].client_port
    );
    let mut watching = [
        Watching::new("on every member", &url),
        Watching::new("on the leader only", &pinned_url),
    ];
    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(Mutex::new(Vec::<(i64, Instant)>::new()));
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
                        Ok(_) => acked.lock().unwrap().push((id, Instant::now())),
                        Err(e) => errors.lock().unwrap().push(e.to_string()),
                    }
                }
            })
        })
        .collect();
    // The subscribers read as the commits come, through the faults.
    let read_for = |span: Duration, watching: &mut [Watching]| {
        let until = Instant::now() + span;
        while Instant::now() < until {
            let mut took = false;
            for w in watching.iter_mut() {
                took |= w.take();
            }
            if !took {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    };
    read_for(Duration::from_millis(1500), &mut watching);
    cluster.kill(leader);
    read_for(Duration::from_millis(2500), &mut watching);
    cluster.restart(leader);
    let rings_at_restart = watching[1].db.live_stats().rings;
    read_for(Duration::from_millis(2500), &mut watching);
    let now_leader = cluster.leader().expect("a leader after the first kill");
    let follower = (0..3).find(|&i| i != now_leader && i != leader).unwrap();
    cluster.kill(follower);
    read_for(Duration::from_millis(2500), &mut watching);
    stop.store(true, Ordering::Relaxed);
    for writer in writers {
        writer.join().unwrap();
    }
    for error in errors.lock().unwrap().iter() {
        assert!(
            EXPECTED.iter().any(|code| error.contains(code)),
            "unexpected error {error}"
        );
    }
    let fresh_db = Database::connect(&url).unwrap();
    let last = fresh_db.position().unwrap();
    let mut fresh: Vec<i64> = fresh_db
        .run("group", &[1.into()])
        .unwrap()
        .rows()
        .iter()
        .map(id)
        .collect();
    fresh.sort_unstable();
    let acked = acked.lock().unwrap();
    let acked_at: HashMap<i64, Instant> = acked.iter().copied().collect();
    for w in watching.iter_mut() {
        assert!(
            w.live.wait_for(last, Duration::from_secs(60)),
            "{}: the watcher did not reach {last}",
            w.name
        );
        while w.take() {}
        let (held, came) = w.check(last);
        assert_eq!(held, fresh, "{}: the held result is a fresh run's", w.name);
        for a in acked_at.keys() {
            assert!(
                held.binary_search(a).is_ok(),
                "{}: acknowledged {a} never came",
                w.name
            );
        }
        // A figure, not an assertion: from a writer's acknowledgement to
        // the subscriber's event (negative when the event came first).
        let mut lags: Vec<i128> = came
            .iter()
            .filter_map(|(row, when)| {
                let acked_at = *acked_at.get(row)?;
                Some(if *when >= acked_at {
                    (*when - acked_at).as_micros() as i128
                } else {
                    -((acked_at - *when).as_micros() as i128)
                })
            })
            .collect();
        lags.sort_unstable();
        let share = |s: f64| lags.get(((lags.len() as f64 - 1.0) * s) as usize).copied();
        eprintln!(
            "etcd live, {}: {} commits, {} events, {} rings; ack → event median {:?} µs, p99 {:?} µs",
            w.name,
            last - w.opened,
            w.events.len(),
            w.db.live_stats().rings,
            share(0.5),
            share(0.99),
        );
    }
    // The pinned subscriber's watch broke with its member, and was made
    // again (it rings on being made) once the member was back.
    assert!(
        watching[1].db.live_stats().rings > rings_at_restart,
        "the pinned subscriber's etcd watch never rang after its member came back"
    );
    eprintln!(
        "etcd live: {} acknowledged, errors {:?}",
        acked.len(),
        errors.lock().unwrap()
    );
}

/// A subscriber connected to one follower only, which is killed while
/// commits go on; etcd then compacts its history past the revision the
/// subscriber's watch saw last, so the watch cannot be resumed from it
/// when the member is back: it is made again from the current revision,
/// and the changelog still says what changed. No commit is lost or repeated.
#[test]
fn a_watch_whose_missed_revisions_were_compacted_away_still_loses_nothing() {
    let mut cluster = EtcdCluster::start(3);
    let url = cluster.url("compacted");
    let mut db = Database::connect(&url).unwrap();
    db.install_source("items.rq", ITEMS).unwrap();
    let leader = cluster.leader().expect("a leader");
    let follower = (leader + 1) % 3;
    let pinned_url = format!(
        "etcd://127.0.0.1:{}/compacted",
        cluster.members[follower].client_port
    );
    let mut pinned = Watching::new("pinned to a follower", &pinned_url);
    let add = |id: i64| {
        db.run("add", &[id.into(), 1.into()]).unwrap();
    };
    (0..5).for_each(add);
    let seen = db.position().unwrap();
    assert!(pinned.live.wait_for(seen, Duration::from_secs(60)));
    cluster.kill(follower);
    (5..25).for_each(add);
    let status = cluster.etcdctl(&["get", "rqc-ready", "-w", "json"]);
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    let revision = status["header"]["revision"].as_i64().expect("a revision");
    cluster.etcdctl(&["compact", &revision.to_string()]);
    cluster.restart(follower);
    (25..30).for_each(add);
    let last = db.position().unwrap();
    assert!(
        pinned.live.wait_for(last, Duration::from_secs(60)),
        "the watcher did not reach {last}"
    );
    while pinned.take() {}
    let (held, _) = pinned.check(last);
    assert_eq!(held, (0..30).collect::<Vec<i64>>());
}

/// A figure for spec/live.md, not a CI test (`-- --ignored --nocapture`):
/// from a commit's start to the event of a subscriber on another
/// connection, on a 3-member cluster.
#[test]
#[ignore]
fn figure_commit_to_event_on_etcd() {
    let cluster = EtcdCluster::start(3);
    let url = cluster.url("figure");
    let mut db = Database::connect(&url).unwrap();
    let source = "table Item { id: Int key  n: Int }\n\
                  mutation add(id: Int, n: Int) = insert Item { id, n }\n\
                  mutation put(id: Int, n: Int) = update Item[id] { n: n }\n\
                  query item(id: Int) = Item[id]\n";
    db.install_source("items.rq", source).unwrap();
    db.run("add", &[1.into(), 0.into()]).unwrap();
    let watching = Database::connect(&url).unwrap();
    let live = watching
        .prepare("item")
        .unwrap()
        .subscribe(&[1.into()])
        .unwrap();
    assert!(matches!(live.try_next(), Some(Event::Result { .. })));
    let (mut commits, mut events) = (Vec::new(), Vec::new());
    for n in 1..=300i64 {
        let start = Instant::now();
        db.run("put", &[1.into(), n.into()]).unwrap();
        commits.push(start.elapsed());
        let event = live
            .next_timeout(Duration::from_secs(10))
            .expect("an event");
        events.push(start.elapsed());
        assert_eq!(event.position(), watching.position().unwrap());
    }
    commits.sort();
    events.sort();
    eprintln!(
        "commit median {:?}; commit start → event median {:?}, p99 {:?}",
        commits[150], events[150], events[296]
    );
}
