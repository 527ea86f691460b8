//! Inserts: one row per commit into a table with two secondary indexes, at each durability level beside SQLite's matching `synchronous`, one writer timed per insert, and eight concurrent durable writers timed per burst (throughput).
//!
//! Each level is compared only with its SQLite counterpart
//! ([`sqlite_synchronous`]): rqc's `full` with `FULL`, `normal` with
//! `NORMAL`, `none` with `OFF`, never across levels.

use crate::cells::{rqc_rows, Cell};
use crate::data::mix;
use crate::social::{sqlite_open, SqliteLine};
use crate::timing::{interleave, Contender, Measured, Plan};
use rqc::{Backend, Database, Durability, OpenOptions, Value};
use rusqlite::{params, Connection};
use std::path::Path;
use std::sync::Mutex;

/// rqc's table: each of its two indexes holds a copy of the row.
const PROGRAM: &str = "
table T { a: Int key  b: Int  c: Int  index by_b (b)  index by_c (c) }
mutation put(a: Int, b: Int, c: Int) = insert T { a, b, c }
query row(a: Int) = T[a]
";

/// SQLite's table, with either the plain indexes an application declares
/// (the rowid is the key, so each entry holds b or c and a) or indexes
/// covering the row as rqc's do (each entry holds a, b and c).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqliteIndexes {
    Plain,
    Covering,
}

impl SqliteIndexes {
    pub fn name(self) -> &'static str {
        match self {
            SqliteIndexes::Plain => "SQLite",
            SqliteIndexes::Covering => "SQLite, covering indexes",
        }
    }

    fn schema(self) -> &'static str {
        match self {
            SqliteIndexes::Plain => {
                "CREATE TABLE t (a INTEGER PRIMARY KEY, b INTEGER NOT NULL, c INTEGER NOT NULL);
                 CREATE INDEX t_b ON t(b); CREATE INDEX t_c ON t(c);"
            }
            SqliteIndexes::Covering => {
                "CREATE TABLE t (a INTEGER PRIMARY KEY, b INTEGER NOT NULL, c INTEGER NOT NULL);
                 CREATE INDEX t_b ON t(b, c); CREATE INDEX t_c ON t(c, b);"
            }
        }
    }
}

const INSERT_SQL: &str = "INSERT INTO t VALUES (?1, ?2, ?3)";

/// Row `i`: a distinct key (an odd multiplier permutes 0..2^40) and two
/// indexed values, all uniform, so every insert lands anywhere in each tree.
fn row(i: usize) -> (i64, i64, i64) {
    let i = i as u64;
    let a = (i.wrapping_mul(0xD6E8_FEB8_6659_FD93) & ((1 << 40) - 1)) as i64;
    let b = (mix(i ^ 0xB) >> 24) as i64;
    let c = (mix(i ^ 0xC) >> 24) as i64;
    (a, b, c)
}

#[derive(Clone, Copy, Debug)]
pub struct InsertPlan {
    /// Rows already in the table before the timed inserts.
    pub prefill: usize,
    /// Timed single-writer inserts per system at `none`, and at `normal`
    /// and `full` (which sync).
    pub ops: usize,
    pub durable_ops: usize,
    pub batch: usize,
    pub writers: usize,
    /// Inserts per writer in one burst; bursts per system.
    pub per_writer: usize,
    pub bursts: usize,
}

pub struct InsertRun {
    /// rqc's level; SQLite runs at [`sqlite_synchronous`] of it.
    pub durability: Durability,
    pub measured: Vec<Measured>,
}

pub struct ConcurrentRun {
    pub writers: usize,
    /// Rows one burst inserts (writers × per_writer); samples are bursts.
    pub rows_per_burst: usize,
    pub measured: Vec<Measured>,
}

fn rqc_open(dir: &Path, backend: Backend, durability: Durability, prefill: usize) -> Database {
    let mut db = Database::open_with(
        dir,
        OpenOptions {
            backend: Some(backend),
            durability,
            ..OpenOptions::default()
        },
    )
    .expect("open rqc");
    db.install_source("t.rq", PROGRAM).expect("install");
    for start in (0..prefill).step_by(50_000) {
        let mut rows: rqc::LoadRows = (start..(start + 50_000).min(prefill))
            .map(|i| {
                let (a, b, c) = row(i);
                (i + 1, Ok(vec![Value::Int(a), Value::Int(b), Value::Int(c)]))
            })
            .collect();
        db.load_from("T", &mut rows, &mut |_| {}).expect("prefill");
    }
    db
}

/// SQLite's `synchronous` setting that makes the promise rqc's `level`
/// makes (one mapping for every benchmark; it lives in tpcc_sql.rs, the
/// file the `tpcc` driver includes).
pub use crate::tpcc_sql::synchronous as sqlite_synchronous;

/// WAL, synchronous as [`sqlite_synchronous`] of `level`.
fn sqlite_db(path: &Path, indexes: SqliteIndexes, level: Durability, prefill: usize) -> Connection {
    let mut conn = sqlite_open(path, SqliteLine::Default);
    conn.execute_batch(indexes.schema()).unwrap();
    let tx = conn.transaction().unwrap();
    {
        let mut insert = tx.prepare(INSERT_SQL).unwrap();
        for i in 0..prefill {
            let (a, b, c) = row(i);
            insert.execute(params![a, b, c]).unwrap();
        }
    }
    tx.commit().unwrap();
    conn.pragma_update(None, "synchronous", sqlite_synchronous(level))
        .unwrap();
    conn
}

/// One writer: each insert its own commit, timed one by one, rqc at
/// `level` and SQLite at its match. The check reads each warm-up row back
/// on every side.
pub fn single_writer(plan: InsertPlan, level: Durability, seed: u64) -> InsertRun {
    let dir = tempfile::tempdir_in(crate::scratch_dir()).unwrap();
    let base = plan.prefill;
    let dbs: Vec<(String, Database)> = [Backend::Lmdb, Backend::Redb, Backend::Sled]
        .into_iter()
        .map(|b| {
            let path = dir.path().join(b.name());
            (
                format!("rqc ({})", b.name()),
                rqc_open(&path, b, level, base),
            )
        })
        .collect();
    let mut contenders: Vec<Contender<'_>> = Vec::new();
    for (name, db) in &dbs {
        let put = db.prepare("put").unwrap();
        let read = db.prepare("row").unwrap();
        contenders.push(Contender::new(name.clone(), move |i, sink| {
            let (a, b, c) = row(base + i);
            put.run(&[a.into(), b.into(), c.into()]).unwrap();
            if let Some(rows) = sink {
                *rows = rqc_rows(&read.run(&[a.into()]).unwrap());
            }
        }));
    }
    for indexes in [SqliteIndexes::Plain, SqliteIndexes::Covering] {
        let path = dir.path().join(format!("{indexes:?}.sqlite"));
        let conn = sqlite_db(&path, indexes, level, base);
        contenders.push(Contender::new(indexes.name(), move |i, sink| {
            let (a, b, c) = row(base + i);
            conn.prepare_cached(INSERT_SQL)
                .unwrap()
                .execute(params![a, b, c])
                .unwrap();
            if let Some(rows) = sink {
                let back: (i64, i64, i64) = conn
                    .query_row("SELECT a, b, c FROM t WHERE a = ?1", [a], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                    })
                    .unwrap();
                rows.push(vec![
                    Cell::Int(back.0),
                    Cell::Int(back.1),
                    Cell::Int(back.2),
                ]);
            }
        }));
    }
    let measured = interleave(
        &mut contenders,
        Plan {
            ops: match level {
                Durability::None => plan.ops,
                Durability::Normal | Durability::Full => plan.durable_ops,
            },
            batch: plan.batch,
            warmup: plan.batch,
            expect_rows: true,
        },
        seed,
    );
    InsertRun {
        durability: level,
        measured,
    }
}

/// Durable inserts (`full`, SQLite `FULL`) from `plan.writers` threads at once; one sample is the
/// wall time of a burst in which each writer commits `per_writer` rows.
pub fn concurrent_writers(plan: InsertPlan, seed: u64) -> ConcurrentRun {
    let dir = tempfile::tempdir_in(crate::scratch_dir()).unwrap();
    let (writers, per_writer, base) = (plan.writers, plan.per_writer, plan.prefill);
    let burst_rows = writers * per_writer;
    // Row of writer `t`'s `j`th insert in burst `i`.
    let at = move |i: usize, t: usize, j: usize| row(base + i * burst_rows + t * per_writer + j);
    let dbs: Vec<(String, Database)> = [Backend::Lmdb, Backend::Redb, Backend::Sled]
        .into_iter()
        .map(|b| {
            let path = dir.path().join(b.name());
            (
                format!("rqc ({})", b.name()),
                rqc_open(&path, b, Durability::Full, base),
            )
        })
        .collect();
    let mut contenders: Vec<Contender<'_>> = Vec::new();
    for (name, db) in &dbs {
        contenders.push(Contender::new(name.clone(), move |i, _| {
            std::thread::scope(|s| {
                for t in 0..writers {
                    s.spawn(move || {
                        let put = db.prepare("put").unwrap();
                        for j in 0..per_writer {
                            let (a, b, c) = at(i, t, j);
                            put.run(&[a.into(), b.into(), c.into()]).unwrap();
                        }
                    });
                }
            })
        }));
    }
    // SQLite, one connection per writer: each commit takes the write lock
    // with BEGIN IMMEDIATE, waiting in SQLite's busy handler meanwhile.
    let path = dir.path().join("connections.sqlite");
    drop(sqlite_db(
        &path,
        SqliteIndexes::Plain,
        Durability::Full,
        base,
    ));
    let mut connections: Vec<Connection> = (0..writers)
        .map(|_| {
            let conn = sqlite_open(&path, SqliteLine::Default);
            conn.pragma_update(None, "synchronous", sqlite_synchronous(Durability::Full))
                .unwrap();
            conn.busy_timeout(std::time::Duration::from_secs(60))
                .unwrap();
            conn
        })
        .collect();
    contenders.push(Contender::new(
        "SQLite, a connection per writer",
        move |i, _| {
            std::thread::scope(|s| {
                for (t, conn) in connections.iter_mut().enumerate() {
                    s.spawn(move || {
                        for j in 0..per_writer {
                            let (a, b, c) = at(i, t, j);
                            let tx = conn
                                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                                .unwrap();
                            tx.prepare_cached(INSERT_SQL)
                                .unwrap()
                                .execute(params![a, b, c])
                                .unwrap();
                            tx.commit().unwrap();
                        }
                    });
                }
            })
        },
    ));
    // SQLite, one connection shared behind a mutex: writers queue in the
    // process instead of sleeping in the busy handler.
    let path = dir.path().join("shared.sqlite");
    let shared = Mutex::new(sqlite_db(
        &path,
        SqliteIndexes::Plain,
        Durability::Full,
        base,
    ));
    contenders.push(Contender::new(
        "SQLite, one shared connection",
        move |i, _| {
            let shared = &shared;
            std::thread::scope(|s| {
                for t in 0..writers {
                    s.spawn(move || {
                        for j in 0..per_writer {
                            let (a, b, c) = at(i, t, j);
                            let conn = shared.lock().unwrap();
                            conn.prepare_cached(INSERT_SQL)
                                .unwrap()
                                .execute(params![a, b, c])
                                .unwrap();
                        }
                    });
                }
            })
        },
    ));
    let measured = interleave(
        &mut contenders,
        Plan {
            ops: plan.bursts,
            batch: 1,
            warmup: 1,
            expect_rows: false,
        },
        seed,
    );
    ConcurrentRun {
        writers,
        rows_per_burst: burst_rows,
        measured,
    }
}
