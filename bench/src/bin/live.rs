//! `rqc-live-bench`: the upkeep of live subscriptions per commit, with few and with many subscribed, and the latency from a commit to its event.
//!
//! `cargo run --release -p rqc-bench --bin rqc-live-bench -- [--subs 10,100000] [--commits 2000] [--tmp DIR]`
//!
//! For each number S of subscriptions: a fresh LMDB database (commits not
//! synced, so the figures are rqc's work, not the disk's) with S + 1 rows
//! of `Item`; S subscriptions to `item(id)`, one per row; then commits that
//! each update row 1, which exactly one subscription reads. Reported per
//! commit: the commit's own time (its changelog entry included), the
//! watcher's upkeep (matching the entry against the registry, evaluating
//! the touched subscription, queueing its event and re-indexing its
//! ranges; measured inside the watcher), and the latency from the commit's
//! start to the event's arrival at the subscriber (median and 99th
//! percentile; the commit's own time included). The goal (issue #16): upkeep with 10^5 subscriptions within
//! 3× of that with 10.

use rqc::{Database, Event, OpenOptions, Value};
use std::time::{Duration, Instant};

const PROGRAM: &str = "
table Item { id: Int key  v: Int }
mutation set(id: Int, v: Int) = update Item[id] { v: v }
query item(id: Int) = Item[id]
";

struct Figures {
    subs: usize,
    boundaries: usize,
    subscribe: Duration,
    commit: Vec<Duration>,
    latency: Vec<Duration>,
    upkeep: Duration,
    evaluations_per_commit: f64,
}

fn percentile(values: &mut [Duration], p: f64) -> Duration {
    values.sort();
    values[((values.len() - 1) as f64 * p).round() as usize]
}

fn micros(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e6)
}

fn measure(subs: usize, commits: usize, scratch: &std::path::Path) -> Figures {
    let dir = tempfile::tempdir_in(scratch).unwrap();
    let options = OpenOptions {
        flush_on_commit: false,
        ..OpenOptions::default()
    };
    let mut db = Database::open_with(dir.path(), options).unwrap();
    db.install_source("live.rq", PROGRAM).unwrap();
    let rows = (1..=subs as i64 + 1).map(|id| vec![Value::Int(id), Value::Int(0)]);
    db.load_rows("Item", rows).unwrap();
    let item = db.prepare("item").unwrap();
    let started = Instant::now();
    let live: Vec<_> = (1..=subs as i64)
        .map(|id| item.subscribe(&[id.into()]).unwrap())
        .collect();
    let subscribe = started.elapsed();
    for sub in &live {
        assert!(matches!(sub.try_next(), Some(Event::Result { .. })));
    }
    let settled = db.position().unwrap();
    assert!(live[0].wait_for(settled, Duration::from_secs(600)));
    let set = db.prepare("set").unwrap();
    let run = |v: i64| {
        let before = Instant::now();
        set.run(&[1.into(), v.into()]).unwrap();
        let committed = Instant::now();
        let event = live[0]
            .next_timeout(Duration::from_secs(60))
            .expect("the event of a commit that changed the row");
        assert!(matches!(event, Event::Result { .. }), "{event:?}");
        (committed - before, before.elapsed())
    };
    for v in 0..commits.min(200) as i64 {
        run(1_000_000 + v);
    }
    let before = db.live_stats();
    let (mut commit, mut latency) = (Vec::new(), Vec::new());
    for v in 0..commits as i64 {
        let (c, l) = run(v);
        commit.push(c);
        latency.push(l);
    }
    let after = db.live_stats();
    let rounds = (after.rounds - before.rounds).max(1);
    Figures {
        subs,
        boundaries: after.boundaries,
        subscribe,
        commit,
        latency,
        upkeep: (after.busy - before.busy) / rounds as u32,
        evaluations_per_commit: (after.evaluations - before.evaluations) as f64 / commits as f64,
    }
}

fn main() {
    let mut subs = vec![10, 100_000];
    let mut commits = 2000;
    let mut scratch = std::env::temp_dir();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let value = it.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--subs" => subs = value.split(',').map(|s| s.parse().unwrap()).collect(),
            "--commits" => commits = value.parse().unwrap(),
            "--tmp" => scratch = value.into(),
            other => panic!("unknown argument {other}"),
        }
    }
    println!("| subscriptions | index boundaries | subscribing (total) | commit, median µs | upkeep per commit, mean µs | commit start→event, median µs | commit start→event, p99 µs | evaluations per commit |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut upkeeps = Vec::new();
    for s in subs {
        let mut f = measure(s, commits, &scratch);
        let commit = percentile(&mut f.commit, 0.5);
        let median = percentile(&mut f.latency, 0.5);
        let p99 = percentile(&mut f.latency, 0.99);
        println!(
            "| {} | {} | {:.2} s | {} | {} | {} | {} | {:.2} |",
            f.subs,
            f.boundaries,
            f.subscribe.as_secs_f64(),
            micros(commit),
            micros(f.upkeep),
            micros(median),
            micros(p99),
            f.evaluations_per_commit
        );
        upkeeps.push((f.subs, f.upkeep));
    }
    if let (Some(first), Some(last)) = (upkeeps.first(), upkeeps.last()) {
        println!(
            "\nupkeep with {} subscriptions / with {}: {:.2}× (goal ≤ 3×)",
            last.0,
            first.0,
            last.1.as_secs_f64() / first.1.as_secs_f64()
        );
    }
}
