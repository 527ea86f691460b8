//! The three systems YCSB runs on, each at its best: rqc (the example
//! program, entries prepared once), SQLite (WAL, statements prepared once,
//! rows built into owned strings) and raw LMDB through heed (a record's ten
//! fields under its key, read in place through a long-lived read
//! transaction). Each loads a batch, runs an operation and digests every
//! record in key order, for the check that they agree.

use crate::cells::{flat, rqc_rows, Cell, Rows};
use crate::ycsb_gen::{Kind, Op, FIELDS, FIELD_BYTES};
use rqc::{Database, Durability, Prepared, Value};
use rusqlite::{Connection, OptionalExtension, Statement};
use std::hint::black_box;
use std::ops::Bound;
use std::path::Path;

/// Records per load commit, on every system.
pub const LOAD_BATCH: usize = 2_000;

/// F's write, the example's `read_modify_write`: the suffix appended while
/// the field stays within its bound, the field replaced by it otherwise.
pub fn modified(old: &str, suffix: &str) -> String {
    if old.chars().count() + suffix.chars().count() <= FIELD_BYTES {
        format!("{old}{suffix}")
    } else {
        suffix.to_string()
    }
}

/// Every record in key order, hashed (FNV-1a over key and fields), and counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digest {
    pub hash: u64,
    pub records: u64,
}

impl Digest {
    fn new() -> Digest {
        Digest {
            hash: 0xCBF2_9CE4_8422_2325,
            records: 0,
        }
    }

    fn add<'a>(&mut self, key: &str, fields: impl IntoIterator<Item = &'a str>) {
        let mut eat = |bytes: &[u8]| {
            for &b in bytes.iter().chain([&0xff]) {
                self.hash = (self.hash ^ b as u64).wrapping_mul(0x0100_0000_01B3);
            }
        };
        eat(key.as_bytes());
        for f in fields {
            eat(f.as_bytes());
        }
        self.records += 1;
    }
}

/// An operation's rows, hashed and counted the way a digest takes
/// records: what a warm-up compares across systems run apart.
pub fn rows_digest(rows: &Rows) -> Digest {
    let mut digest = Digest::new();
    for row in rows {
        digest.add("", texts(row));
    }
    digest
}

fn texts(cells: &[Cell]) -> Vec<&str> {
    cells
        .iter()
        .map(|c| match c {
            Cell::Text(s) => s.as_str(),
            other => panic!("a record's field is {other:?}"),
        })
        .collect()
}

/// rqc through its public API: the five entries prepared once.
pub struct RqcSide<'d> {
    read: Prepared<'d>,
    scan: Prepared<'d>,
    update: Prepared<'d>,
    insert: Prepared<'d>,
    rmw: Prepared<'d>,
}

/// An operation's arguments for rqc, built before timing.
pub fn rqc_args(op: &Op) -> Vec<Value> {
    let key = Value::from(op.key.as_str());
    match op.kind {
        Kind::Read => vec![key],
        Kind::Scan => vec![key, Value::Int(op.n as i64)],
        _ => vec![key, Value::from(op.value.as_str())],
    }
}

impl<'d> RqcSide<'d> {
    pub fn new(db: &'d Database) -> RqcSide<'d> {
        let entry = |name| db.prepare(name).expect("examples/ycsb is installed");
        RqcSide {
            read: entry("read"),
            scan: entry("scan"),
            update: entry("update_record"),
            insert: entry("insert_record"),
            rmw: entry("read_modify_write"),
        }
    }

    pub fn load(db: &Database, batch: &[(String, String)]) {
        db.transaction(|tx| {
            let insert = tx.prepare("insert_record")?;
            for (k, v) in batch {
                insert.run(&[Value::from(k.as_str()), Value::from(v.as_str())])?;
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("loading rqc: {e}"));
    }

    pub fn run(&self, kind: Kind, args: &[Value], sink: Option<&mut Rows>) {
        let entry = match kind {
            Kind::Read => &self.read,
            Kind::Scan => &self.scan,
            Kind::Update => &self.update,
            Kind::Insert => &self.insert,
            Kind::ReadModifyWrite => &self.rmw,
        };
        let output = entry
            .run(args)
            .unwrap_or_else(|e| panic!("rqc {}({args:?}): {e}", kind.name()));
        match sink {
            Some(rows) if matches!(kind, Kind::Read | Kind::Scan) => *rows = rqc_rows(&output),
            _ => drop(black_box(output)),
        }
    }

    /// Every record, through the scan entry a page of 100 at a time.
    pub fn digest(&self) -> Digest {
        let mut digest = Digest::new();
        let mut start = String::new();
        loop {
            let output = self
                .scan
                .run(&[Value::from(start.as_str()), Value::Int(100)])
                .expect("rqc scans");
            let rows: Vec<Vec<Cell>> = output.rows().iter().map(flat).collect();
            let mut fresh = 0;
            for row in &rows {
                let texts = texts(row);
                if texts[0] == start && digest.records > 0 {
                    continue; // the last page's last record, again
                }
                digest.add(texts[0], texts[1..].iter().copied());
                fresh += 1;
            }
            match rows.last() {
                Some(last) if fresh > 0 => start = texts(last)[0].to_string(),
                _ => return digest,
            }
        }
    }
}

const COLUMNS: &str =
    "key_, field0, field1, field2, field3, field4, field5, field6, field7, field8, field9";

/// The table as YCSB's JDBC binding declares it: a rowid table with the
/// key as its primary key (a unique index from key to rowid beside the
/// table). Not `WITHOUT ROWID`: that stores the row in the key's B-tree,
/// cells hold at most 1,002 bytes inline on 4 KB pages: a record of
/// about 1,040 bytes with its key and header would keep 489 of them in the
/// tree and the rest on a 4 KB overflow page of its own (a page read more
/// per lookup, a page more per record). A rowid table's leaf holds the
/// whole record inline.
pub fn sqlite_create(path: &Path, durability: Durability) -> Connection {
    let conn = Connection::open(path).expect("sqlite");
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    let sync = match durability {
        Durability::Full => "FULL",
        Durability::Normal => "NORMAL",
        Durability::None => "OFF",
    };
    conn.pragma_update(None, "synchronous", sync).unwrap();
    let fields: Vec<String> = (0..FIELDS).map(|i| format!("field{i} TEXT")).collect();
    conn.execute_batch(&format!(
        "CREATE TABLE IF NOT EXISTS usertable (key_ TEXT PRIMARY KEY, {})",
        fields.join(", ")
    ))
    .unwrap();
    conn
}

pub fn sqlite_load(conn: &mut Connection, batch: &[(String, String)]) {
    let tx = conn.transaction().unwrap();
    {
        let mut insert = tx.prepare_cached(&insert_sql()).unwrap();
        for (k, v) in batch {
            insert.execute(rusqlite::params![k, v]).unwrap();
        }
    }
    tx.commit().unwrap();
}

fn insert_sql() -> String {
    format!(
        "INSERT INTO usertable VALUES (?1, {})",
        ["?2"; FIELDS].join(", ")
    )
}

/// SQLite with every statement prepared once, run in autocommit; the
/// read-modify-write in one `BEGIN IMMEDIATE` transaction.
pub struct SqliteSide<'c> {
    read: Statement<'c>,
    scan: Statement<'c>,
    update: Statement<'c>,
    insert: Statement<'c>,
    rmw_read: Statement<'c>,
    rmw_write: Statement<'c>,
    begin: Statement<'c>,
    commit: Statement<'c>,
}

/// A row's columns as owned strings.
fn owned(row: &rusqlite::Row<'_>) -> Vec<String> {
    (0..=FIELDS).map(|c| row.get(c).unwrap()).collect()
}

fn text_cells(row: Vec<String>) -> Vec<Cell> {
    row.into_iter().map(Cell::Text).collect()
}

impl<'c> SqliteSide<'c> {
    pub fn new(conn: &'c Connection) -> SqliteSide<'c> {
        let p = |sql: &str| conn.prepare(sql).expect("the SQL prepares");
        SqliteSide {
            read: p(&format!("SELECT {COLUMNS} FROM usertable WHERE key_ = ?1")),
            scan: p(&format!(
                "SELECT {COLUMNS} FROM usertable WHERE key_ >= ?1 ORDER BY key_ LIMIT ?2"
            )),
            update: p("UPDATE usertable SET field0 = ?2 WHERE key_ = ?1"),
            insert: p(&insert_sql()),
            rmw_read: p("SELECT field1 FROM usertable WHERE key_ = ?1"),
            rmw_write: p("UPDATE usertable SET field1 = ?2 WHERE key_ = ?1"),
            begin: p("BEGIN IMMEDIATE"),
            commit: p("COMMIT"),
        }
    }

    pub fn run(&mut self, op: &Op, sink: Option<&mut Rows>) {
        let mut out: Vec<Vec<String>> = Vec::new();
        match op.kind {
            Kind::Read => {
                let mut rows = self.read.query([&op.key]).unwrap();
                while let Some(row) = rows.next().unwrap() {
                    out.push(owned(row));
                }
            }
            Kind::Scan => {
                let mut rows = self
                    .scan
                    .query(rusqlite::params![op.key, op.n as i64])
                    .unwrap();
                while let Some(row) = rows.next().unwrap() {
                    out.push(owned(row));
                }
            }
            Kind::Update => {
                self.update.execute([&op.key, &op.value]).unwrap();
            }
            Kind::Insert => {
                self.insert.execute([&op.key, &op.value]).unwrap();
            }
            Kind::ReadModifyWrite => {
                self.begin.execute([]).unwrap();
                let old: Option<String> = self
                    .rmw_read
                    .query_row([&op.key], |r| r.get(0))
                    .optional()
                    .unwrap();
                if let Some(old) = old {
                    let new = modified(&old, &op.value);
                    self.rmw_write.execute([&op.key, &new]).unwrap();
                }
                self.commit.execute([]).unwrap();
            }
        }
        match sink {
            Some(rows) => *rows = out.into_iter().map(text_cells).collect(),
            None => drop(black_box(out)),
        }
    }

    pub fn digest(conn: &Connection) -> Digest {
        let mut digest = Digest::new();
        let mut stmt = conn
            .prepare(&format!("SELECT {COLUMNS} FROM usertable ORDER BY key_"))
            .unwrap();
        let mut rows = stmt.query([]).unwrap();
        while let Some(row) = rows.next().unwrap() {
            let row = owned(row);
            digest.add(&row[0], row[1..].iter().map(String::as_str));
        }
        digest
    }
}

type Bytes = heed::types::Bytes;

/// A record's bytes: each field as a 2-byte length and its UTF-8.
fn encode<'a>(fields: impl IntoIterator<Item = &'a str>) -> Vec<u8> {
    let mut out = Vec::with_capacity(FIELDS * (FIELD_BYTES + 2));
    for f in fields {
        out.extend_from_slice(&(f.len() as u16).to_le_bytes());
        out.extend_from_slice(f.as_bytes());
    }
    out
}

/// A record's fields, borrowed from the store.
fn decode(mut bytes: &[u8]) -> [&str; FIELDS] {
    let mut fields = [""; FIELDS];
    for f in fields.iter_mut() {
        let len = u16::from_le_bytes([bytes[0], bytes[1]]) as usize;
        let (s, rest) = bytes[2..].split_at(len);
        *f = std::str::from_utf8(s).expect("stored as UTF-8");
        bytes = rest;
    }
    fields
}

fn lmdb_cells(key: &[u8], fields: [&str; FIELDS]) -> Vec<Cell> {
    let key = std::str::from_utf8(key).expect("a UTF-8 key");
    std::iter::once(key)
        .chain(fields)
        .map(|s| Cell::Text(s.to_string()))
        .collect()
}

/// The LMDB environment, its sync flags after `--durability` (`none`:
/// `MDB_NOSYNC`, `normal`: `MDB_NOMETASYNC`, `full`: a sync per commit).
pub fn lmdb_open(dir: &Path, durability: Durability) -> heed::Env {
    std::fs::create_dir_all(dir).unwrap();
    let mut options = heed::EnvOpenOptions::new();
    // The map is address space, not disk: room for 10^7 records and more.
    options.map_size(64 << 30);
    unsafe {
        match durability {
            Durability::None => options.flags(heed::EnvFlags::NO_SYNC),
            Durability::Normal => options.flags(heed::EnvFlags::NO_META_SYNC),
            Durability::Full => &mut options,
        };
        options.open(dir).expect("LMDB opens")
    }
}

/// Raw LMDB: reads in a read transaction kept open until a write (which
/// must see, and be seen by, the next read), writes one commit each.
pub struct LmdbSide<'e> {
    env: &'e heed::Env,
    db: heed::Database<'e, Bytes, Bytes>,
    rtxn: Option<heed::RoTxn<'e, heed::WithTls>>,
}

impl<'e> LmdbSide<'e> {
    pub fn new(env: &'e heed::Env) -> LmdbSide<'e> {
        let wtxn = env.write_txn().unwrap();
        let db = env
            .create_databases_and_commit(wtxn, |dbo, wtxn| {
                let db = dbo.create_database(wtxn, None)?;
                heed::Result::Ok(heed::CommitOrAbort::<_, ()>::Commit(db))
            })
            .unwrap()
            .unwrap_commit();
        LmdbSide {
            env,
            db,
            rtxn: None,
        }
    }

    pub fn load(&mut self, batch: &[(String, String)]) {
        self.rtxn = None;
        let mut wtxn = self.env.write_txn().unwrap();
        for (k, v) in batch {
            let record = encode([v.as_str(); FIELDS]);
            self.db.put(&mut wtxn, k.as_bytes(), &record).unwrap();
        }
        wtxn.commit().unwrap();
    }

    fn reader(&mut self) -> &heed::RoTxn<'e, heed::WithTls> {
        let env = self.env;
        self.rtxn
            .get_or_insert_with(|| env.read_txn().expect("a read transaction"))
    }

    /// One write transaction: `change` maps the record's fields (if it is
    /// there) to its new ones.
    fn write(&mut self, key: &str, change: impl FnOnce(Option<[&str; FIELDS]>) -> Option<Vec<u8>>) {
        self.rtxn = None;
        let mut wtxn = self.env.write_txn().unwrap();
        let old = self
            .db
            .get(&wtxn, key.as_bytes())
            .unwrap()
            .map(<[u8]>::to_vec);
        if let Some(record) = change(old.as_deref().map(decode)) {
            self.db.put(&mut wtxn, key.as_bytes(), &record).unwrap();
        }
        wtxn.commit().unwrap();
    }

    pub fn run(&mut self, op: &Op, sink: Option<&mut Rows>) {
        match op.kind {
            Kind::Read => {
                let db = self.db;
                let rtxn = self.reader();
                let found = db.get(rtxn, op.key.as_bytes()).unwrap().map(decode);
                match sink {
                    Some(rows) => {
                        *rows = found
                            .map(|f| lmdb_cells(op.key.as_bytes(), f))
                            .into_iter()
                            .collect()
                    }
                    None => drop(black_box(found)),
                }
            }
            Kind::Scan => {
                let db = self.db;
                let rtxn = self.reader();
                let from = (Bound::Included(op.key.as_bytes()), Bound::Unbounded);
                let mut rows = Vec::new();
                for entry in db.range(rtxn, &from).unwrap().take(op.n as usize) {
                    let (k, v) = entry.unwrap();
                    let fields = decode(v);
                    match sink {
                        Some(_) => rows.push(lmdb_cells(k, fields)),
                        None => drop(black_box((k, fields))),
                    }
                }
                if let Some(sink) = sink {
                    *sink = rows;
                }
            }
            Kind::Update => self.write(&op.key, |old| {
                old.map(|mut f| {
                    f[0] = &op.value;
                    encode(f)
                })
            }),
            Kind::Insert => self.write(&op.key, |_| Some(encode([op.value.as_str(); FIELDS]))),
            Kind::ReadModifyWrite => self.write(&op.key, |old| {
                old.map(|f| {
                    let new = modified(f[1], &op.value);
                    let mut f: [&str; FIELDS] = f;
                    f[1] = &new;
                    encode(f)
                })
            }),
        }
    }

    pub fn digest(&mut self) -> Digest {
        let mut digest = Digest::new();
        let db = self.db;
        let rtxn = self.reader();
        for entry in db.iter(rtxn).unwrap() {
            let (k, v) = entry.unwrap();
            digest.add(std::str::from_utf8(k).unwrap(), decode(v));
        }
        digest
    }
}
