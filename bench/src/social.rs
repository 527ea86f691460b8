//! The social data set loaded into rqc (through `Database::load_from`) and into
//! SQLite (with indexes that cover what rqc's cover), and the SQL of each
//! read shape.

use crate::data::Social;
use rqc::{Backend, Database, Durability, OpenOptions, Value};
use rusqlite::Connection;
use std::path::{Path, PathBuf};

/// Rows per load call: each is one transaction on either side.
const CHUNK: i64 = 50_000;

/// The example's social schema and feed queries, plus the benchmark's own
/// shapes (an island returned whole, the top k of an island).
fn program_paths() -> Vec<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    vec![here.join("../examples/social"), here.join("programs")]
}

/// An rqc database on `backend` holding the data set, not synced per
/// commit while it loads (the reads do not write).
pub fn rqc_database(dir: &Path, backend: Backend, social: Social) -> Database {
    let mut db = Database::open_with(
        dir,
        OpenOptions {
            backend: Some(backend),
            durability: Durability::None,
            ..OpenOptions::default()
        },
    )
    .expect("open rqc");
    fill(&mut db, social);
    db
}

/// Installs the programs into `db` (on any store) and loads the data set.
pub fn fill(db: &mut Database, social: Social) {
    db.install_paths(&program_paths()).expect("install");
    // Users first: posts and follows refer to them.
    load(db, "User", social.n, |id| social.user(id).values());
    load(db, "Post", social.n, |id| social.post(id).values());
    load(db, "Follow", social.followers(), |u| {
        social.follows(u).iter().flat_map(|f| f.values()).collect()
    });
}

/// Loads the rows `row(1..=count)` (a follower's call gives its whole
/// island, flattened) in chunks of CHUNK calls.
fn load(db: &Database, table: &str, count: i64, row: impl Fn(i64) -> Vec<Value>) {
    let width = match table {
        "Follow" => 3,
        _ => 4,
    };
    for start in (1..=count).step_by(CHUNK as usize) {
        let mut rows: Vec<_> = (start..(start + CHUNK).min(count + 1))
            .flat_map(|i| {
                let values = row(i);
                values.chunks(width).map(|r| r.to_vec()).collect::<Vec<_>>()
            })
            .enumerate()
            .map(|(line, r)| (line + 1, Ok(r)))
            .collect();
        let report = db.load_from(table, &mut rows, &mut |_| {}).expect("load");
        assert!(
            report.rejected.is_empty(),
            "{table}: {:?}",
            report.rejected.first().map(|r| r.1.to_string())
        );
    }
}

/// Which SQLite connection: as an application opens it, or with memory
/// mapping and a large page cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqliteLine {
    Default,
    Mmap,
}

impl SqliteLine {
    pub fn name(self) -> &'static str {
        match self {
            SqliteLine::Default => "SQLite",
            SqliteLine::Mmap => "SQLite mmap",
        }
    }
}

/// mmap_size asked for (SQLite caps it at its compile-time maximum, which
/// the report reads back) and the page cache (in KiB, as SQLite takes it).
const MMAP_BYTES: i64 = 1 << 34;
const CACHE_KIB: i64 = 4 << 20;

/// A connection in WAL mode; reads are autocommit, each statement sees the
/// latest commit, as a run of rqc does.
pub fn sqlite_open(path: &Path, line: SqliteLine) -> Connection {
    let conn = Connection::open(path).expect("sqlite");
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    if line == SqliteLine::Mmap {
        conn.pragma_update(None, "mmap_size", MMAP_BYTES).unwrap();
        conn.pragma_update(None, "cache_size", -CACHE_KIB).unwrap();
    }
    conn
}

/// What the mmap line's pragmas came to: (mmap bytes, cache KiB).
pub fn sqlite_settings(conn: &Connection) -> (i64, i64) {
    let mmap = conn
        .pragma_query_value(None, "mmap_size", |r| r.get(0))
        .unwrap();
    let cache: i64 = conn
        .pragma_query_value(None, "cache_size", |r| r.get(0))
        .unwrap();
    (mmap, -cache)
}

/// The schema: the same keys as rqc's tables; each rqc index holds a copy
/// of the row, so each SQLite index read here holds every column too.
const SCHEMA: &str = "
  CREATE TABLE user (id INTEGER PRIMARY KEY, handle TEXT NOT NULL, name TEXT NOT NULL, country TEXT NOT NULL);
  CREATE TABLE follow (follower INTEGER NOT NULL REFERENCES user(id), followee INTEGER NOT NULL REFERENCES user(id),
                       since INTEGER NOT NULL, PRIMARY KEY (follower, followee)) WITHOUT ROWID;
  CREATE TABLE post (id INTEGER PRIMARY KEY, author INTEGER NOT NULL REFERENCES user(id), at INTEGER NOT NULL, body TEXT NOT NULL);";

/// Built after the load (faster). No ANALYZE: with statistics, the bundled
/// build (STAT4) re-prepares a statement whose parameter meets an indexed
/// column on every new binding, about 2 µs per read, and the plans (listed
/// in the report) are the same without them. `user_handle` is the unique
/// constraint; `user_handle_row` covers the row as rqc's unique index does
/// (the rowid is the id).
const INDEXES: &str = "
  CREATE UNIQUE INDEX user_handle ON user(handle);
  CREATE INDEX user_handle_row ON user(handle, name, country);
  CREATE INDEX post_by_author ON post(author, at DESC, body);
";

pub fn sqlite_database(path: &Path, social: Social) -> Connection {
    let mut conn = sqlite_open(path, SqliteLine::Default);
    conn.pragma_update(None, "synchronous", "OFF").unwrap();
    conn.execute_batch(SCHEMA).expect("schema");
    let tx = conn.transaction().unwrap();
    {
        let mut user = tx
            .prepare("INSERT INTO user VALUES (?1, ?2, ?3, ?4)")
            .unwrap();
        for id in 1..=social.n {
            let u = social.user(id);
            user.execute(rusqlite::params![u.id, u.handle, u.name, u.country])
                .unwrap();
        }
        let mut post = tx
            .prepare("INSERT INTO post VALUES (?1, ?2, ?3, ?4)")
            .unwrap();
        for id in 1..=social.n {
            let p = social.post(id);
            post.execute(rusqlite::params![p.id, p.author, p.at, p.body])
                .unwrap();
        }
        let mut follow = tx
            .prepare("INSERT INTO follow VALUES (?1, ?2, ?3)")
            .unwrap();
        for u in 1..=social.followers() {
            for f in social.follows(u) {
                follow
                    .execute(rusqlite::params![f.follower, f.followee, f.since])
                    .unwrap();
            }
        }
    }
    tx.commit().unwrap();
    conn.execute_batch(INDEXES).expect("indexes");
    conn
}

/// The SQL of each read shape, selecting every column rqc returns.
pub mod sql {
    pub const POINT: &str = "SELECT id, handle, name, country FROM user WHERE id = ?1";
    /// The planner prefers the unique index (then a second seek, into the
    /// table); the covering index reads the row in one, as rqc does.
    pub const UNIQUE: &str =
        "SELECT id, handle, name, country FROM user INDEXED BY user_handle_row WHERE handle = ?1";
    pub const RANGE: &str =
        "SELECT id, author, at, body FROM post WHERE author = ?1 ORDER BY at DESC LIMIT ?2";
    pub const ISLAND: &str =
        "SELECT follower, followee, since FROM follow WHERE follower = ?1 ORDER BY followee";
    pub const TOP: &str =
        "SELECT follower, followee, since FROM follow WHERE follower = ?1 ORDER BY since DESC LIMIT ?2";
    /// rqc's timeline: for each followee, its 10 newest posts (a bounded
    /// range of the covering index), then the newest n of all. SQL has no
    /// LIMIT per group outside a subquery; of the forms that return the same
    /// rows, this is the fastest found (about 4× a window function's
    /// speed): the 10th newest time of each followee bounds its range.
    pub const TIMELINE: &str = "
  SELECT p.id, p.author, p.at, p.body FROM follow f JOIN post p INDEXED BY post_by_author
    ON p.author = f.followee
   AND p.at >= coalesce((SELECT at FROM post q WHERE q.author = f.followee
                         ORDER BY at DESC LIMIT 1 OFFSET 9), -1)
  WHERE f.follower = ?1 ORDER BY p.at DESC LIMIT ?2";
}

/// SQLite's plan for `sql`, one line per step, for the report.
pub fn query_plan(conn: &Connection, sql: &str) -> String {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    // The plan does not depend on the values; NULLs fill the parameters.
    let nulls = vec![rusqlite::types::Value::Null; stmt.parameter_count()];
    let steps: Vec<String> = stmt
        .query_map(rusqlite::params_from_iter(nulls), |r| r.get::<_, String>(3))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    steps.join("; ")
}
