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
//! 3× of that with 10. Then the same latency across processes: this
//! binary runs itself as a writer process, which commits and prints the
//! time each commit returned; the subscriber here learns of the commit
//! from the changelog (the watcher looks every `rqc_runtime`
//! `live::POLL`, 10 ms, for other processes' commits).

use rqc::{Database, Durability, Event, OpenOptions, Value};
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
        durability: Durability::None,
        ..OpenOptions::default()
    };
    let mut db = Database::open_with(dir.path(), options).unwrap();
    db.install_source("live.rq", PROGRAM).unwrap();
    let rows = (1..=subs as i64 + 1).map(|id| vec![Value::Int(id), Value::Int(0)]);
    db.load("Item", rows).unwrap();
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

/// The writer process: `--writer DIR N` commits N updates of row 1 (value
/// i), printing after each the microseconds since the epoch at which its
/// commit returned, 25 ms apart.
fn writer(dir: &str, n: i64) {
    let options = OpenOptions {
        durability: Durability::None,
        ..OpenOptions::default()
    };
    let db = Database::open_with(dir, options).unwrap();
    let set = db.prepare("set").unwrap();
    for v in 0..n {
        set.run(&[1.into(), (10_000_000 + v).into()]).unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        println!("{} {}", v, now.as_micros());
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Commit (in another process) → event (here): median and p99.
fn across_processes(commits: usize, scratch: &std::path::Path) -> (Duration, Duration) {
    use std::io::BufRead;
    let dir = tempfile::tempdir_in(scratch).unwrap();
    let options = OpenOptions {
        durability: Durability::None,
        ..OpenOptions::default()
    };
    let mut db = Database::open_with(dir.path(), options).unwrap();
    db.install_source("live.rq", PROGRAM).unwrap();
    db.load("Item", [vec![Value::Int(1), Value::Int(0)]])
        .unwrap();
    let live = db.prepare("item").unwrap().subscribe(&[1.into()]).unwrap();
    assert!(matches!(live.next_event(), Some(Event::Result { .. })));
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--writer",
            &dir.path().display().to_string(),
            &commits.to_string(),
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (sent, got) = std::sync::mpsc::channel();
    let out = std::io::BufReader::new(child.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in out.lines() {
            let line = line.unwrap();
            let (v, at) = line.split_once(' ').unwrap();
            let _ = sent.send((v.parse::<i64>().unwrap(), at.parse::<u128>().unwrap()));
        }
    });
    let mut latency = Vec::new();
    for _ in 0..commits {
        let event = live
            .next_timeout(Duration::from_secs(60))
            .expect("an event");
        let arrived = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_micros();
        let Event::Result { value, .. } = event else {
            panic!("{event:?}")
        };
        let v = match value.field("v") {
            Some(Value::Int(v)) => v - 10_000_000,
            other => panic!("{other:?}"),
        };
        let (written, at) = got.recv_timeout(Duration::from_secs(60)).unwrap();
        assert_eq!(written, v, "one event per commit, in order");
        latency.push(Duration::from_micros(arrived.saturating_sub(at) as u64));
    }
    child.wait().unwrap();
    (
        percentile(&mut latency, 0.5),
        percentile(&mut latency, 0.99),
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, dir, n] = args.as_slice() {
        if flag == "--writer" {
            return writer(dir, n.parse().unwrap());
        }
    }
    let mut subs = vec![10, 100_000];
    let mut commits = 2000;
    let mut scratch = std::env::temp_dir();
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
    let (median, p99) = across_processes(200, &scratch);
    println!(
        "\ncommit in another process → event here (200 commits, 25 ms apart): median {} µs, p99 {} µs",
        micros(median),
        micros(p99)
    );
}
