//! `chain-cost`: what the chain of entries costs an insert over checksums alone, and rqc's whole insert over the same puts on bare LMDB, measured side by side (issue 35 §1, §3).
//!
//! `cargo run --release -p rqc-bench --bin chain-cost -- [--rows 100000] [--inserts 20000] [--batch 100] [--durability none|normal|full] [--tmp DIR]`
//!
//! At `--durability` (default `none`) every system commits at the matching
//! level: rqc's and the store's databases at that level, raw LMDB with
//! `MDB_NOSYNC` (`none`), `MDB_NOMETASYNC` (`normal`) or neither (`full`,
//! its own durable commit: the sync floor), SQLite with `synchronous=OFF`,
//! `NORMAL` or `FULL`.
//!
//! Four LMDB databases of rqc's (`none` durability, storage format 4): three
//! written through the runtime's store layer as an insert with two
//! indexes writes it (one entry in the table's tree and one in each
//! index's tree, one commit per insert, the same keys in the same order),
//! and one by rqc itself:
//! - `lmdb` — the bare store: no seal at all (the floor);
//! - `crc` — every entry sealed with its checksum, no chain
//!   (`Checked::unchained`);
//! - `chain` — checksums and the chain (`Checked::new`), as rqc runs;
//! - `rqc` — the whole insert through the embedding API (`Prepared::run`
//!   of `insert T { a, b, c }` with two indexes holding the row), which
//!   also checks the key, encodes the row and appends the changelog's
//!   entry: issue 35's goal is at most 1.3 × the same puts on bare LMDB.
//!
//! and two peers, each at its best:
//! - `heed` — raw LMDB through heed, none of rqc's code: the same three
//!   puts in one database, each key after a one-byte tree id (the layout
//!   of storage format 4), `MDB_NOSYNC`, one commit per insert;
//! - `sqlite` — SQLite (WAL, `synchronous=OFF`, a prepared statement in
//!   autocommit): `T(a INTEGER PRIMARY KEY, b, c)` with two covering
//!   indexes, `(b, c)` and `(c, b)` (each holds the row, as rqc's do).
//!
//! Each database is first filled with `--rows` rows (untimed, one
//! transaction), so the trees are deep. The timed inserts run in batches
//! of `--batch` commits, the four systems in a fresh random order for
//! each batch; each batch gives a mean µs per insert. Printed: the
//! median and p25–p75 per system, and per batch the ratios chain / crc,
//! crc / lmdb, chain / lmdb, rqc / lmdb and rqc / chain (median and
//! p25–p75 of the ratios).
//!
//! This driver reaches below the embedding API on purpose: the chain is a
//! layer of the store, and only there can it be switched off to compare.

#[allow(dead_code)] // the drivers' shared options
#[path = "../args.rs"]
mod args;

use args::Args;
use rqc::{Backend, Database, OpenOptions, Value};
use rqc_runtime::store::{Checked, Durability, LmdbStore, Store, Tree};
use std::time::Instant;

fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// An `Int` key component as rqc encodes one: a tag, then the value
/// big-endian with its sign bit flipped.
fn int(tag: u8, v: i64, out: &mut Vec<u8>) {
    out.push(tag);
    out.extend_from_slice(&((v as u64) ^ (1 << 63)).to_be_bytes());
}

/// The entries one insert writes: the row under its key, and under each
/// index's key (value, then the row's key) the row again, as rqc's
/// indexes hold it.
fn entries(i: u64) -> [(usize, Vec<u8>, Vec<u8>); 3] {
    let [a, b, c] = values(i);
    let key = |parts: &[i64]| {
        let mut k = Vec::with_capacity(9 * parts.len());
        for p in parts {
            int(0x10, *p, &mut k);
        }
        k
    };
    let row = key(&[a, b, c]);
    [
        (0, key(&[a]), row.clone()),
        (1, key(&[b, a]), row.clone()),
        (2, key(&[c, a]), row),
    ]
}

/// What a system writes through.
enum Writer {
    Store {
        store: Box<dyn Store>,
        trees: [Tree; 3],
    },
    Rqc(Box<Database>),
    Heed {
        env: &'static heed::Env,
        db: heed::Database<'static, heed::types::Bytes, heed::types::Bytes>,
    },
    Sqlite(rusqlite::Connection),
}

struct System {
    name: &'static str,
    writer: Writer,
    /// µs per insert, one per batch.
    batches: Vec<f64>,
    _dir: tempfile::TempDir,
}

const PROGRAM: &str = "
table T { a: Int key  b: Int  c: Int  index by_b (b)  index by_c (c) }
mutation put(a: Int, b: Int, c: Int) = insert T { a, b, c }
";

/// The values of insert `i`, as [`entries`] draws them.
fn values(i: u64) -> [i64; 3] {
    [mix(i), mix(i ^ 0xB), mix(i ^ 0xC)].map(|v| (v >> 24) as i64)
}

impl System {
    fn new(
        name: &'static str,
        tmp: &str,
        durability: Durability,
        wrap: fn(LmdbStore) -> Box<dyn Store>,
    ) -> System {
        let dir = tempfile::tempdir_in(tmp).expect("scratch directory");
        let lmdb = LmdbStore::open(dir.path(), durability).expect("open LMDB");
        let store = wrap(lmdb);
        let trees = [store.tree("T"), store.tree("T.by_b"), store.tree("T.by_c")];
        System {
            name,
            writer: Writer::Store { store, trees },
            batches: Vec::new(),
            _dir: dir,
        }
    }

    fn rqc(tmp: &str, durability: Durability) -> System {
        let dir = tempfile::tempdir_in(tmp).expect("scratch directory");
        let options = OpenOptions {
            backend: Some(Backend::Lmdb),
            durability,
            ..OpenOptions::default()
        };
        let mut db = Database::open_with(dir.path(), options).expect("open rqc");
        db.install_source("t.rq", PROGRAM).expect("install");
        System {
            name: "rqc",
            writer: Writer::Rqc(Box::new(db)),
            batches: Vec::new(),
            _dir: dir,
        }
    }

    fn heed(tmp: &str, durability: Durability) -> System {
        let dir = tempfile::tempdir_in(tmp).expect("scratch directory");
        let mut options = heed::EnvOpenOptions::new();
        options.map_size(64 << 30);
        // SAFETY: the environment is opened once, by this process alone,
        // with a documented combination of flags.
        let flags = match durability {
            Durability::None => heed::EnvFlags::NO_SYNC,
            Durability::Normal => heed::EnvFlags::NO_META_SYNC,
            Durability::Full => heed::EnvFlags::empty(),
        };
        let env = unsafe { options.flags(flags).open(dir.path()) }.expect("open LMDB");
        // Open for the whole run: the database handle borrows it.
        let env: &'static heed::Env = Box::leak(Box::new(env));
        let wtxn = env.write_txn().expect("begin");
        let db = env
            .create_databases_and_commit(wtxn, |opener, wtxn| {
                opener
                    .create_database(wtxn, None)
                    .map(heed::CommitOrAbort::<_, ()>::Commit)
            })
            .expect("main database")
            .unwrap_commit();
        System {
            name: "heed",
            writer: Writer::Heed { env, db },
            batches: Vec::new(),
            _dir: dir,
        }
    }

    fn sqlite(tmp: &str, durability: Durability) -> System {
        let dir = tempfile::tempdir_in(tmp).expect("scratch directory");
        let conn = rusqlite::Connection::open(dir.path().join("t.db")).expect("open SQLite");
        let synchronous = match durability {
            Durability::None => "OFF",
            Durability::Normal => "NORMAL",
            Durability::Full => "FULL",
        };
        conn.execute_batch(&format!(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous={synchronous};
             CREATE TABLE T (a INTEGER PRIMARY KEY, b INTEGER NOT NULL, c INTEGER NOT NULL);
             CREATE INDEX by_b ON T (b, c); CREATE INDEX by_c ON T (c, b);"
        ))
        .expect("schema");
        System {
            name: "sqlite",
            writer: Writer::Sqlite(conn),
            batches: Vec::new(),
            _dir: dir,
        }
    }

    fn insert(&self, rows: std::ops::Range<u64>, commit_each: bool) {
        let (store, trees) = match &self.writer {
            Writer::Heed { env, db } => {
                let mut wtxn = env.write_txn().expect("begin");
                for i in rows {
                    for (tree, key, value) in entries(i) {
                        let mut prefixed = Vec::with_capacity(key.len() + 1);
                        prefixed.push(tree as u8);
                        prefixed.extend_from_slice(&key);
                        db.put(&mut wtxn, &prefixed, &value).expect("put");
                    }
                    if commit_each {
                        wtxn.commit().expect("commit");
                        wtxn = env.write_txn().expect("begin");
                    }
                }
                wtxn.commit().expect("commit");
                return;
            }
            Writer::Sqlite(conn) => {
                let mut insert = conn
                    .prepare_cached("INSERT INTO T (a, b, c) VALUES (?1, ?2, ?3)")
                    .expect("prepare");
                if !commit_each {
                    conn.execute_batch("BEGIN").expect("begin");
                }
                for i in rows {
                    let [a, b, c] = values(i);
                    insert.execute((a, b, c)).expect("insert");
                }
                if !commit_each {
                    conn.execute_batch("COMMIT").expect("commit");
                }
                return;
            }
            Writer::Store { store, trees } => (store, trees),
            Writer::Rqc(db) if commit_each => {
                let put = db.prepare("put").expect("put");
                for i in rows {
                    put.run(&values(i).map(Value::Int)).expect("insert");
                }
                return;
            }
            Writer::Rqc(db) => {
                let mut load: rqc::LoadRows = rows
                    .map(|i| (i as usize + 1, Ok(values(i).map(Value::Int).to_vec())))
                    .collect();
                db.load_from("T", &mut load, &mut |_| {}).expect("prefill");
                return;
            }
        };
        let mut txn = store.begin_write().expect("begin");
        for i in rows {
            for (tree, key, value) in entries(i) {
                txn.put(trees[tree], &key, &value).expect("put");
            }
            if commit_each {
                txn.commit().expect("commit");
                txn = store.begin_write().expect("begin");
            }
        }
        txn.commit().expect("commit");
    }
}

/// The value at fraction `q` of sorted `xs`.
fn quantile(xs: &[f64], q: f64) -> f64 {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn spread(xs: &[f64]) -> String {
    format!(
        "{:.2} ({:.2}–{:.2})",
        quantile(xs, 0.5),
        quantile(xs, 0.25),
        quantile(xs, 0.75)
    )
}

fn main() {
    let args = Args::from_env();
    let rows = args.number("--rows", 100_000);
    let inserts = args.number("--inserts", 20_000);
    let batch = args.number("--batch", 100).max(1);
    let tmp = args
        .value("--tmp")
        .unwrap_or_else(|| std::env::temp_dir().display().to_string());
    let durability = args.durability(Durability::None);
    let mut systems = [
        System::new("lmdb", &tmp, durability, |s| Box::new(s)),
        System::new("crc", &tmp, durability, |s| {
            Box::new(
                Checked::unchained(Box::new(s))
                    .identified()
                    .expect("identity"),
            )
        }),
        System::new("chain", &tmp, durability, |s| {
            Box::new(Checked::new(Box::new(s)).identified().expect("identity"))
        }),
        System::rqc(&tmp, durability),
        System::heed(&tmp, durability),
        System::sqlite(&tmp, durability),
    ];
    for system in &systems {
        for start in (0..rows).step_by(50_000) {
            system.insert(start..(start + 50_000).min(rows), false);
        }
    }
    let started = Instant::now();
    let mut order = [0usize, 1, 2, 3, 4, 5];
    let mut next = rows;
    let mut seed = 0x5EED_u64;
    while next < rows + inserts {
        let end = (next + batch).min(rows + inserts);
        // A fresh random order of the systems for each batch.
        for i in (1..order.len()).rev() {
            seed = mix(seed);
            order.swap(i, (seed % (i as u64 + 1)) as usize);
        }
        for &s in &order {
            let system = &mut systems[s];
            let at = Instant::now();
            system.insert(next..end, true);
            let per = at.elapsed().as_secs_f64() * 1e6 / (end - next) as f64;
            system.batches.push(per);
        }
        next = end;
    }
    println!(
        "{inserts} inserts (table + 2 indexes, one commit each, durability {durability:?}) over {rows} rows, in batches of {batch}, {:.1} s",
        started.elapsed().as_secs_f64()
    );
    println!("| system | µs per insert: median (p25–p75) |");
    println!("|---|---|");
    for system in &systems {
        println!("| {} | {} |", system.name, spread(&system.batches));
    }
    let ratio = |a: usize, b: usize| -> Vec<f64> {
        systems[a]
            .batches
            .iter()
            .zip(&systems[b].batches)
            .map(|(x, y)| x / y)
            .collect()
    };
    println!("\n| ratio, per batch | median (p25–p75) |");
    println!("|---|---|");
    println!("| chain / crc | {} |", spread(&ratio(2, 1)));
    println!("| crc / lmdb | {} |", spread(&ratio(1, 0)));
    println!("| chain / lmdb | {} |", spread(&ratio(2, 0)));
    println!("| rqc / lmdb | {} |", spread(&ratio(3, 0)));
    println!("| rqc / chain | {} |", spread(&ratio(3, 2)));
    println!("| lmdb / heed | {} |", spread(&ratio(0, 4)));
    println!("| rqc / heed | {} |", spread(&ratio(3, 4)));
    println!("| heed / sqlite | {} |", spread(&ratio(4, 5)));
    println!("| rqc / sqlite | {} |", spread(&ratio(3, 5)));
}
