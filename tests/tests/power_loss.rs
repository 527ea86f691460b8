//! Power loss, simulated: LMDB's file rebuilt as a power cut could leave it, at random moments, is never damaged and holds what its durability level promises.
//!
//! A SIGKILL (`crash.rs`) loses nothing a process handed to the OS, so it
//! cannot tell `full` from `normal`. Here a child process inserts rows
//! one commit at a time, at one level, with `tests/power/record_writes.c`
//! preloaded: every write to `data.mdb` that reached the kernel is logged
//! in order with its bytes, and so is every sync; the child logs each
//! acknowledged commit after it. The parent then cuts the log at random
//! points and builds the file a power cut there could leave: every write
//! before the last sync, and of each write after it, all, none, or (a torn
//! write) a random subset of its 512-byte sectors. Each such file, opened
//! as a database, must pass `verify` and hold the rows `1..=n` of a prefix
//! of the inserts, where for `full` `n` is at least the number acknowledged
//! before the cut (and at most one more: the commit in flight), and for
//! `normal` at least one less (LMDB's `MDB_NOMETASYNC`: the last commit's
//! meta page waits for the next sync). spec/storage.md, "Durability
//! levels", states both promises.
//!
//! Cuts per level: `RQC_POWER_CUTS` (60 by default, for CI).

use rqc::{Database, Durability, OpenOptions, Value};
use rqc_runtime::Backend;
use rqc_tests::Rng;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

const PROGRAM: &str = "
table K { k: Int key  v: Int  index by_v (v) }
mutation put(k: Int) = insert K { k, v: 0 - k }
";

/// Commits the child makes.
const COMMITS: i64 = 40;

const SECTOR: usize = 512;

/// The child: inserts `1..=COMMITS` at `RQC_POWER_LEVEL`, logging an
/// acknowledgement after each commit returns.
#[test]
fn power_loss_child() {
    let (Ok(dir), Ok(level), Ok(log)) = (
        std::env::var("RQC_POWER_DIR"),
        std::env::var("RQC_POWER_LEVEL"),
        std::env::var("RQC_POWER_LOG"),
    ) else {
        return; // not the child
    };
    let options = OpenOptions {
        backend: Some(Backend::Lmdb),
        durability: Durability::named(&level).unwrap(),
        ..OpenOptions::default()
    };
    let mut db = Database::open_with(&dir, options).unwrap();
    db.install_source("power.rq", PROGRAM).unwrap();
    let mut acks = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    for k in 1..=COMMITS {
        db.run("put", &[Value::Int(k)]).unwrap();
        acks.write_all(b"A").unwrap();
    }
}

/// One record of the log.
enum Op {
    Write(u64, Vec<u8>),
    Sync,
    Acknowledged,
}

fn parse(log: &[u8]) -> Vec<Op> {
    let mut ops = Vec::new();
    let mut at = 0;
    let u64_at = |i: usize| u64::from_le_bytes(log[i..i + 8].try_into().unwrap());
    while at < log.len() {
        match log[at] {
            b'W' => {
                let offset = u64_at(at + 1);
                let len = u64_at(at + 9) as usize;
                ops.push(Op::Write(offset, log[at + 17..at + 17 + len].to_vec()));
                at += 17 + len;
            }
            b'S' => {
                ops.push(Op::Sync);
                at += 1;
            }
            b'A' => {
                ops.push(Op::Acknowledged);
                at += 1;
            }
            other => panic!("the log holds a record {other:#x} at {at}"),
        }
    }
    ops
}

fn apply(file: &mut Vec<u8>, offset: u64, bytes: &[u8]) {
    let offset = offset as usize;
    if file.len() < offset + bytes.len() {
        file.resize(offset + bytes.len(), 0);
    }
    file[offset..offset + bytes.len()].copy_from_slice(bytes);
}

/// The file as a power cut just before `ops[cut]` could leave it.
fn after_power_cut(ops: &[Op], cut: usize, rng: &mut Rng) -> Vec<u8> {
    let synced = ops[..cut]
        .iter()
        .rposition(|op| matches!(op, Op::Sync))
        .map_or(0, |i| i + 1);
    let mut file = Vec::new();
    for (i, op) in ops[..cut].iter().enumerate() {
        let Op::Write(offset, bytes) = op else {
            continue;
        };
        if i < synced {
            apply(&mut file, *offset, bytes);
            continue;
        }
        match rng.below(4) {
            0 | 1 => apply(&mut file, *offset, bytes),
            2 => {}
            _ => {
                for (s, sector) in bytes.chunks(SECTOR).enumerate() {
                    if rng.below(2) == 0 {
                        apply(&mut file, offset + (s * SECTOR) as u64, sector);
                    }
                }
            }
        }
    }
    file
}

/// Compiles the recording library into `dir`.
fn record_writes_library(dir: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("power/record_writes.c");
    let library = dir.join("record_writes.so");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&compiler)
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&library)
        .arg(&source)
        .arg("-ldl")
        .status()
        .unwrap_or_else(|e| panic!("the C compiler `{compiler}` (set CC) could not run: {e}"));
    assert!(status.success(), "compiling {}", source.display());
    library
}

/// The keys of `K` in the database in `dir`, after `verify` found it sound.
fn verified_keys(dir: &Path, what: &str) -> Vec<i64> {
    let options = OpenOptions {
        backend: Some(Backend::Lmdb),
        ..OpenOptions::default()
    };
    let db = Database::open_with(dir, options).unwrap_or_else(|e| panic!("{what}: {e}"));
    let verification = db.verify().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        verification.is_sound(),
        "{what}: {:?}",
        verification.problems
    );
    let dump = db.dump().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(dump.problems.is_empty(), "{what}: {:?}", dump.problems);
    let (_, rows) = dump
        .tables
        .iter()
        .find(|(name, _)| name == "K")
        .unwrap_or_else(|| panic!("{what}: no table K"));
    rows.iter()
        .map(|row| match row.field("k") {
            Some(Value::Int(k)) => *k,
            other => panic!("{what}: a row with k = {other:?}"),
        })
        .collect()
}

fn power_cuts(level: Durability) {
    let cuts: u64 = std::env::var("RQC_POWER_CUTS").map_or(60, |n| n.parse().unwrap());
    let tmp = tempfile::tempdir().unwrap();
    let library = record_writes_library(tmp.path());
    let (dir, log) = (tmp.path().join("db"), tmp.path().join("writes.log"));
    std::fs::write(&log, b"").unwrap();
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "power_loss_child", "--test-threads", "1"])
        .env("LD_PRELOAD", &library)
        .env("RQC_POWER_FILE", "/data.mdb")
        .env("RQC_POWER_LOG", &log)
        .env("RQC_POWER_DIR", &dir)
        .env("RQC_POWER_LEVEL", level.name())
        .output()
        .unwrap();
    assert!(output.status.success(), "the child failed: {output:?}");
    let ops = parse(&std::fs::read(&log).unwrap());
    let acks = ops
        .iter()
        .filter(|op| matches!(op, Op::Acknowledged))
        .count();
    assert_eq!(acks as i64, COMMITS, "every commit acknowledged");
    let syncs = ops.iter().filter(|op| matches!(op, Op::Sync)).count();
    // At least one sync per commit at both levels (the writes reached the
    // log, so the library saw LMDB's calls).
    assert!(
        syncs as i64 >= COMMITS,
        "{syncs} syncs for {COMMITS} commits"
    );
    // Cuts after the first acknowledgement: the database and its program
    // exist (their creation is not what this tests).
    let first = ops
        .iter()
        .position(|op| matches!(op, Op::Acknowledged))
        .unwrap();
    let writes = ops.len() - acks - syncs;
    let image = tmp.path().join("image");
    let mut lost_acknowledged = 0;
    let mut rng = Rng::new(0x504F_5745 ^ cuts);
    for round in 0..cuts {
        let cut = first + 1 + rng.below((ops.len() - first) as u64) as usize;
        let acknowledged = ops[..cut]
            .iter()
            .filter(|op| matches!(op, Op::Acknowledged))
            .count() as i64;
        let _ = std::fs::remove_dir_all(&image);
        std::fs::create_dir_all(&image).unwrap();
        // The marker naming the backend (written once, at creation).
        std::fs::copy(dir.join("rqc-store"), image.join("rqc-store")).unwrap();
        std::fs::write(image.join("data.mdb"), after_power_cut(&ops, cut, &mut rng)).unwrap();
        let what = format!(
            "{} cut {round} at record {cut} of {}, {acknowledged} acknowledged",
            level.name(),
            ops.len()
        );
        let keys = verified_keys(&image, &what);
        let n = keys.len() as i64;
        assert_eq!(keys, (1..=n).collect::<Vec<_>>(), "{what}: not a prefix");
        let least = match level {
            Durability::Full => acknowledged,
            _ => acknowledged - 1,
        };
        assert!(
            (least..=acknowledged + 1).contains(&n),
            "{what}: {n} rows, expected {least}..={}",
            acknowledged + 1
        );
        lost_acknowledged += usize::from(n < acknowledged);
    }
    eprintln!(
        "{}: {writes} writes and {syncs} syncs logged for {COMMITS} commits; {cuts} cuts, {lost_acknowledged} of them losing the last acknowledged commit",
        level.name()
    );
}

#[test]
fn a_power_cut_at_full_loses_no_acknowledged_commit() {
    power_cuts(Durability::Full);
}

#[test]
fn a_power_cut_at_normal_loses_at_most_the_last_commit_and_never_damages() {
    power_cuts(Durability::Normal);
}
