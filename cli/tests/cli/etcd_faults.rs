//! etcd members killed under load: the leader, then (once it is back) a follower, while clients of this process (each one connection, kept) and `rqc` processes commit pairs of rows. Every acknowledged commit is there, no pair is torn, every counter equals its rows, and the kept clients go on committing without being restarted.

use super::etcd::etcd_cluster::EtcdCluster;
use super::{repo, write};
use rqc::{Database, Value};
use std::collections::BTreeSet;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const PAIRS: &str = "
table Item { id: Int key  grp: Int  index by_grp (grp)  bound grp <= 1000 }
mutation pair(a: Int, b: Int, g: Int) = { insert Item { id: a, grp: g }; insert Item { id: b, grp: g } }
query group(g: Int) = Item.by_grp[g]
";

/// What the errors of a commit during the faults may be: the cluster
/// unreachable past the retries, a commit whose outcome is unknown (the
/// connection was cut while it was sent), conflicts given up.
const EXPECTED: [&str; 3] = ["E0561", "E0566", "E0596"];

#[derive(Default)]
struct Log {
    /// Pairs whose commit was acknowledged, with when.
    acked: Vec<(i64, Instant)>,
    /// Every pair tried.
    tried: Vec<i64>,
    /// Errors seen: code and message.
    errors: Vec<(String, String)>,
}

#[test]
fn killing_the_leader_then_a_follower_loses_no_acknowledged_commit() {
    let mut cluster = EtcdCluster::start(3);
    let url = cluster.url("faults");
    let mut db = Database::connect(&url).unwrap();
    db.install_source("pairs.rq", PAIRS).unwrap();
    drop(db);
    let stop = Arc::new(AtomicBool::new(false));
    let log = Arc::new(Mutex::new(Log::default()));
    let mut workers = Vec::new();
    // Three clients that keep one connection through the faults.
    for worker in 0..3i64 {
        let (url, stop, log) = (url.clone(), stop.clone(), log.clone());
        workers.push(std::thread::spawn(move || {
            let db = Database::connect(&url).unwrap();
            let mut k = 0;
            while !stop.load(Ordering::Relaxed) {
                let a = worker * 100_000 + 2 * k;
                k += 1;
                log.lock().unwrap().tried.push(a);
                let args: [Value; 3] = [a.into(), (a + 1).into(), worker.into()];
                match db.run("pair", &args) {
                    Ok(_) => log.lock().unwrap().acked.push((a, Instant::now())),
                    Err(e) => {
                        let text = e.to_string();
                        log.lock().unwrap().errors.push((code(&text), text));
                    }
                }
            }
        }));
    }
    // And `rqc` processes, one commit each.
    let dir = tempfile::tempdir().unwrap();
    let _app = write(dir.path(), "pairs.rq", PAIRS);
    {
        let (url, stop, log) = (url.clone(), stop.clone(), log.clone());
        workers.push(std::thread::spawn(move || {
            let mut k = 0;
            while !stop.load(Ordering::Relaxed) {
                let a = 900_000 + 2 * k;
                k += 1;
                log.lock().unwrap().tried.push(a);
                let out = Command::new(env!("CARGO_BIN_EXE_rqc"))
                    .args(["run", "--db", &url, "pair", "--arg"])
                    .arg(format!("a={a}"))
                    .args(["--arg", &format!("b={}", a + 1), "--arg", "g=9"])
                    .current_dir(repo())
                    .env("NO_COLOR", "1")
                    .output()
                    .unwrap();
                if out.status.success() {
                    log.lock().unwrap().acked.push((a, Instant::now()));
                } else {
                    let text = String::from_utf8_lossy(&out.stderr).into_owned();
                    log.lock().unwrap().errors.push((code(&text), text));
                }
            }
        }));
    }
    std::thread::sleep(Duration::from_millis(1500));
    let leader = cluster.leader().expect("a leader");
    cluster.kill(leader);
    std::thread::sleep(Duration::from_millis(2500));
    cluster.restart(leader);
    std::thread::sleep(Duration::from_millis(2000));
    let now_leader = cluster.leader().expect("a leader after the first kill");
    let follower = (0..3).find(|&i| i != now_leader).unwrap();
    cluster.kill(follower);
    let after_faults = Instant::now();
    // Until every kept client has committed since the kill, for at least 3
    // s; at most 60 s, so a loaded machine's slow recovery is not taken
    // for a lost service.
    let resumed = |log: &Log| {
        (0..3i64).all(|w| {
            log.acked
                .iter()
                .any(|(a, at)| a / 100_000 == w && *at > after_faults)
        })
    };
    while after_faults.elapsed() < Duration::from_secs(60)
        && (after_faults.elapsed() < Duration::from_secs(3) || !resumed(&log.lock().unwrap()))
    {
        std::thread::sleep(Duration::from_millis(200));
    }
    stop.store(true, Ordering::Relaxed);
    for worker in workers {
        worker.join().unwrap();
    }
    let log = log.lock().unwrap();
    eprintln!("stopped after {:?}", after_faults.elapsed());
    for (code, text) in &log.errors {
        assert!(EXPECTED.contains(&code.as_str()), "unexpected error {text}");
    }
    // Service resumed: the kept clients committed after the last kill.
    for worker in 0..3i64 {
        let later = log
            .acked
            .iter()
            .filter(|(a, at)| a / 100_000 == worker && *at > after_faults)
            .count();
        assert!(
            later > 0,
            "client {worker} committed nothing after the follower was killed"
        );
    }
    let db = Database::connect(&url).unwrap();
    let mut present = BTreeSet::new();
    for g in [0, 1, 2, 9] {
        for row in db.run("group", &[g.into()]).unwrap().rows() {
            let Some(Value::Int(id)) = row.field("id") else {
                panic!("{row:?}")
            };
            present.insert(*id);
        }
    }
    let acked: BTreeSet<i64> = log.acked.iter().map(|(a, _)| *a).collect();
    for &a in &log.tried {
        let (first, second) = (present.contains(&a), present.contains(&(a + 1)));
        assert_eq!(first, second, "pair {a} is torn");
        if acked.contains(&a) {
            assert!(first, "acknowledged pair {a} is missing");
        }
    }
    let verified = db.verify().unwrap();
    assert!(verified.is_sound(), "{:?}", verified.problems);
    eprintln!(
        "etcd faults: {} pairs tried, {} acknowledged, errors {:?}",
        log.tried.len(),
        acked.len(),
        log.errors
            .iter()
            .map(|(c, t)| format!("{c}: {t}"))
            .collect::<Vec<_>>()
    );
}

/// The code of an error's text (`[E0566] Error: ...` or `E0566: ...`).
fn code(text: &str) -> String {
    text.find('E')
        .map(|at| text[at..].chars().take(5).collect())
        .filter(|c: &String| c.len() == 5 && c[1..].chars().all(|d| d.is_ascii_digit()))
        .unwrap_or_else(|| text.to_string())
}
