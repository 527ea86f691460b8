//! The crash test: a child process runs mutations and reports each
//! acknowledged commit; the parent kills it with SIGKILL at random moments,
//! reopens the database and checks that every acknowledged commit is
//! there, no mutation is torn, every index equals its table and every
//! counter equals its rows.
//!
//! Rounds per backend: `RQC_CRASH_ROUNDS` (3 by default, for CI). The long
//! run: `RQC_CRASH_ROUNDS=1000 cargo test --release --test crash -- --nocapture`
//! (`RQC_CRASH_BACKEND=redb` or `sled` for one backend).

use rqc::{Backend, Database, OpenOptions, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

const PROGRAM: &str = "
table Owner { id: Int key }
table Account {
  id: Int key
  owner: Int ref Owner
  balance: Int
  index by_balance (balance)
  index by_owner (owner)
  bound owner <= 100000
}
mutation add_owner(id: Int) = insert Owner { id }
// Two rows in one mutation: both or neither may survive a crash.
mutation pair(a: Int, owner: Int) = {
  insert Account { id: a * 2, owner, balance: a };
  insert Account { id: a * 2 + 1, owner, balance: 0 - a }
}
";

const OWNERS: i64 = 5;

fn backend_named(name: &str) -> Backend {
    match name {
        "sled" => Backend::Sled,
        _ => Backend::Redb,
    }
}

/// Retries while another process (or sled's background threads, which
/// let go of the lock a moment after a close) still holds the database.
fn retry<T>(mut attempt: impl FnMut() -> Result<T, String>) -> T {
    let mut last = String::new();
    for _ in 0..100 {
        match attempt() {
            Ok(value) => return value,
            Err(error) => last = error,
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("could not open the database: {last}");
}

fn open(dir: &str, backend: Backend) -> Database {
    retry(|| {
        let options = OpenOptions {
            backend,
            flush_on_commit: true,
        };
        let mut db = Database::open_with(dir, options).map_err(|e| e.to_string())?;
        db.install_source("crash.rq", PROGRAM)
            .map_err(|e| e.to_string())?;
        Ok(db)
    })
}

/// The child: commits pairs from `RQC_CRASH_START` on, printing each
/// number after its commit returned, until it is killed.
#[test]
fn crash_child() {
    let (Ok(dir), Ok(backend), Ok(start)) = (
        std::env::var("RQC_CRASH_DIR"),
        std::env::var("RQC_CRASH_BACKEND"),
        std::env::var("RQC_CRASH_START"),
    ) else {
        return; // not the child
    };
    let db = open(&dir, backend_named(&backend));
    for owner in 0..OWNERS {
        let _ = db.run("add_owner", &[owner.into()]);
    }
    println!("ready");
    let pair = db.prepare("pair").unwrap();
    let mut i: i64 = start.parse().unwrap();
    loop {
        pair.run(&[i.into(), (i % OWNERS).into()]).unwrap();
        println!("{i}");
        i += 1;
    }
}

struct Round {
    acknowledged: usize,
    present: usize,
}

fn crash_round(dir: &str, backend: &str, start: i64, seed: u64) -> (Vec<i64>, i64) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "crash_child",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("RQC_CRASH_DIR", dir)
        .env("RQC_CRASH_BACKEND", backend)
        .env("RQC_CRASH_START", start.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    // Wait for the child to be ready, let it commit for a random while, kill it.
    loop {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(line) if line.ends_with("ready") => break,
            Ok(_) => {}
            Err(_) => panic!("the child did not start"),
        }
    }
    std::thread::sleep(Duration::from_millis(5 + seed % 120));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let acknowledged: Vec<i64> = rx
        .try_iter()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    let next = acknowledged.last().map(|i| i + 1).unwrap_or(start);
    (acknowledged, next)
}

/// Checks the database against everything acknowledged so far.
fn verify(dir: &str, backend: Backend, acknowledged: &[i64], upto: i64) -> Round {
    // Opening through rqc checks the catalog; then read the trees directly.
    drop(open(dir, backend));
    let [accounts, index, counters, refcounts] = rqc_store_ranges(
        dir,
        backend,
        [
            "t:Account",
            "i:Account:by_balance",
            "b:Account:0",
            "r:Owner",
        ],
    );
    let ids: std::collections::BTreeSet<i64> = accounts
        .iter()
        .map(
            |(k, _)| match rqc_runtime::encoding::key::decode_key(k, &[], 1).unwrap().0[0] {
                Value::Int(n) => n,
                _ => panic!("an Int key"),
            },
        )
        .collect();
    for i in acknowledged {
        assert!(
            ids.contains(&(i * 2)) && ids.contains(&(i * 2 + 1)),
            "acknowledged commit {i} was lost"
        );
    }
    let mut present = 0;
    for i in 0..upto.max(1) + 1000 {
        let (a, b) = (ids.contains(&(i * 2)), ids.contains(&(i * 2 + 1)));
        assert_eq!(a, b, "mutation {i} is torn: one of its two rows survived");
        present += usize::from(a);
    }
    assert_eq!(
        index.len(),
        accounts.len(),
        "the index has as many entries as the table"
    );
    let index_values: std::collections::BTreeSet<&Vec<u8>> = index.iter().map(|(_, v)| v).collect();
    for (_, row) in &accounts {
        assert!(index_values.contains(row), "every row has its index entry");
    }
    let mut per_owner: BTreeMap<i64, u64> = BTreeMap::new();
    for (_, row) in &accounts {
        let values = rqc_runtime::encoding::row::decode_row(row, 3).unwrap();
        if let Value::Int(owner) = values[1] {
            *per_owner.entry(owner).or_default() += 1;
        }
    }
    let decode_counters = |entries: &[(Vec<u8>, Vec<u8>)]| -> BTreeMap<i64, u64> {
        entries
            .iter()
            .map(|(k, v)| {
                let Value::Int(owner) =
                    rqc_runtime::encoding::key::decode_key(k, &[], 1).unwrap().0[0]
                else {
                    panic!()
                };
                (owner, u64::from_be_bytes(v.as_slice().try_into().unwrap()))
            })
            .collect()
    };
    assert_eq!(
        decode_counters(&counters),
        per_owner,
        "the bound counters equal the rows per owner"
    );
    assert_eq!(
        decode_counters(&refcounts),
        per_owner,
        "the reference counters equal the rows per owner"
    );
    Round {
        acknowledged: acknowledged.len(),
        present,
    }
}

type Entries = Vec<(Vec<u8>, Vec<u8>)>;

fn rqc_store_ranges(dir: &str, backend: Backend, trees: [&str; 4]) -> [Entries; 4] {
    use rqc_runtime::store::{RedbStore, SledStore, Store};
    let path = std::path::Path::new(dir);
    let store: Box<dyn Store> = retry(|| match backend {
        Backend::Sled => SledStore::open(path, false)
            .map(|s| Box::new(s) as Box<dyn Store>)
            .map_err(|e| e.to_string()),
        _ => RedbStore::open(path, false)
            .map(|s| Box::new(s) as Box<dyn Store>)
            .map_err(|e| e.to_string()),
    });
    trees.map(|tree| store.range(tree, &[], None, false, usize::MAX).unwrap())
}

#[test]
fn acknowledged_commits_survive_sigkill_and_nothing_is_torn() {
    if std::env::var("RQC_CRASH_DIR").is_ok() {
        return; // the child runs `crash_child` only
    }
    let rounds: usize = std::env::var("RQC_CRASH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    // `RQC_CRASH_BACKEND=sled` (or `redb`) runs one backend only.
    let only = std::env::var("RQC_CRASH_BACKEND").ok();
    for backend in ["redb", "sled"] {
        if only.as_deref().is_some_and(|b| b != backend) {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db").display().to_string();
        let mut acknowledged = Vec::new();
        let mut next = 0;
        let mut seed: u64 = 0x2545_F491;
        for round in 0..rounds {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let (acked, after) = crash_round(&path, backend, next, seed);
            acknowledged.extend(acked);
            next = after.max(next);
            let result = verify(&path, backend_named(backend), &acknowledged, next);
            // A commit the child made but could not report before the kill
            // is allowed to be there: start after the highest present.
            next = next.max(result.present as i64);
            if (round + 1) % 100 == 0 && round + 1 < rounds {
                eprintln!(
                    "{backend}: {} rounds, {} acknowledged so far",
                    round + 1,
                    result.acknowledged
                );
            }
            if round + 1 == rounds {
                eprintln!(
                    "{backend}: {rounds} rounds, {} acknowledged commits, {} present, 0 lost, 0 torn, indexes and counters consistent",
                    result.acknowledged, result.present
                );
            }
        }
    }
}
