//! The read shapes (point read, unique read, bounded range, island scan,
//! index nested-loop timeline, top-k) at each size N, on every system at
//! once: checked to return the same rows, then timed interleaved.

use crate::cells::{rqc_rows, sql_cell, sql_value, Cell};
use crate::data::{handle, uniform_keys, Social};
use crate::raw::{decode_post, decode_user, LmdbFiles, RawRead, RawRedb, RawSled};
use crate::social::{self, sql, SqliteLine};
use crate::timing::{interleave, Contender, Measured, Plan};
use rqc::{Backend, Database, Value};
use rusqlite::Connection;
use std::hint::black_box;
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Point,
    Unique,
    Range,
    Island,
    Timeline,
    TopK,
}

pub const SHAPES: [Shape; 6] = [
    Shape::Point,
    Shape::Unique,
    Shape::Range,
    Shape::Island,
    Shape::Timeline,
    Shape::TopK,
];

/// Rows the bounded range and the timeline return; k of the top-k.
const LIMIT: i64 = 10;
const TOP_K: i64 = 5;

impl Shape {
    pub fn name(self) -> &'static str {
        match self {
            Shape::Point => "point read by key (User[id])",
            Shape::Unique => "unique index read (User.handle[h])",
            Shape::Range => "bounded range (an author's 10 newest posts)",
            Shape::Island => "island scan (a user's 20 follows)",
            Shape::Timeline => "index nested-loop join (timeline: 20 follows × 10 posts, top 10)",
            Shape::TopK => "top-k of an island (5 latest follows)",
        }
    }

    pub fn short(self) -> &'static str {
        match self {
            Shape::Point => "point",
            Shape::Unique => "unique",
            Shape::Range => "range",
            Shape::Island => "island",
            Shape::Timeline => "timeline",
            Shape::TopK => "top-k",
        }
    }

    pub fn entry(self) -> &'static str {
        match self {
            Shape::Point => "user",
            Shape::Unique => "user_by_handle",
            Shape::Range => "recent_posts",
            Shape::Island => "follows_of",
            Shape::Timeline => "timeline",
            Shape::TopK => "top_follows",
        }
    }

    pub fn sql(self) -> &'static str {
        match self {
            Shape::Point => sql::POINT,
            Shape::Unique => sql::UNIQUE,
            Shape::Range => sql::RANGE,
            Shape::Island => sql::ISLAND,
            Shape::Timeline => sql::TIMELINE,
            Shape::TopK => sql::TOP,
        }
    }

    /// The keys are uniform over all the rows the shape can start from.
    pub fn key_range(self, social: Social) -> i64 {
        match self {
            Shape::Point | Shape::Unique => social.n,
            Shape::Range => social.authors(),
            Shape::Island | Shape::Timeline | Shape::TopK => social.followers(),
        }
    }

    /// The arguments for one key: the same values on every side.
    pub fn args(self, key: i64) -> Vec<Value> {
        match self {
            Shape::Point | Shape::Island => vec![key.into()],
            Shape::Unique => vec![handle(key).into()],
            Shape::Range | Shape::Timeline => vec![key.into(), LIMIT.into()],
            Shape::TopK => vec![key.into(), TOP_K.into()],
        }
    }
}

/// Operations per system for each shape, and how many are checked.
#[derive(Clone, Copy, Debug)]
pub struct ReadPlan {
    pub ops: usize,
    /// For the timeline, a hundred times slower than a point read.
    pub slow_ops: usize,
    pub batch: usize,
    /// Operations checked (and run untimed, as a warm-up) first.
    pub checked: usize,
    /// sled is measured up to this size (its memory grows with the data).
    pub sled_max: i64,
}

/// One shape at one size.
pub struct ShapeRun {
    pub shape: Shape,
    pub n: i64,
    pub measured: Vec<Measured>,
}

/// Everything one size measured, and what the report says about it.
pub struct SizeRun {
    pub n: i64,
    pub shapes: Vec<ShapeRun>,
    /// Seconds each system took to load the data set.
    pub loads: Vec<(String, f64)>,
    /// SQLite's plan for each shape, and the mmap line's settings.
    pub plans: Vec<(Shape, String)>,
    pub mmap: (i64, i64),
}

pub fn run_size(n: i64, plan: ReadPlan, seed: u64) -> SizeRun {
    let social = Social { n };
    let dir = tempfile::tempdir_in(crate::scratch_dir()).expect("scratch directory");
    let mut loads = Vec::new();
    let mut timed = |name: &str, f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        let s = t.elapsed().as_secs_f64();
        eprintln!("    loaded {name} in {s:.1} s");
        loads.push((name.to_string(), s));
    };
    let with_sled = n <= plan.sled_max;
    let mut rqc: Vec<(String, Database)> = Vec::new();
    for backend in [Backend::Lmdb, Backend::Redb, Backend::Sled] {
        if backend == Backend::Sled && !with_sled {
            continue;
        }
        let name = format!("rqc ({})", backend.name());
        let path = dir.path().join(backend.name());
        timed(&name, &mut || {
            rqc.push((name.clone(), social::rqc_database(&path, backend, social)))
        });
    }
    let sqlite_path = dir.path().join("social.sqlite");
    timed("SQLite", &mut || {
        drop(social::sqlite_database(&sqlite_path, social))
    });
    let sqlite: Vec<(SqliteLine, Connection)> = [SqliteLine::Default, SqliteLine::Mmap]
        .into_iter()
        .map(|line| (line, social::sqlite_open(&sqlite_path, line)))
        .collect();
    let mut raw_redb = None;
    timed("raw redb", &mut || {
        raw_redb = Some(RawRedb::create(&dir.path().join("raw-redb"), social))
    });
    let mut lmdb_files = None;
    timed("raw LMDB", &mut || {
        lmdb_files = Some(LmdbFiles::create(&dir.path().join("raw-lmdb"), social))
    });
    let mut raw_sled = None;
    if with_sled {
        timed("raw sled", &mut || {
            raw_sled = Some(RawSled::create(&dir.path().join("raw-sled"), social))
        });
    }
    let (raw_redb, lmdb_files) = (raw_redb.unwrap(), lmdb_files.unwrap());
    let lmdb = lmdb_files.reader();
    let mut shapes = Vec::new();
    for (s, &shape) in SHAPES.iter().enumerate() {
        let ops = if shape == Shape::Timeline {
            plan.slow_ops
        } else {
            plan.ops
        };
        let batch = if shape == Shape::Timeline {
            (plan.batch / 5).max(1)
        } else {
            plan.batch
        };
        // The warm-up is the check that every side returns the same rows.
        let warmup = plan.checked.max(batch);
        let keys = uniform_keys(
            ops + warmup,
            shape.key_range(social),
            seed ^ (n as u64) ^ s as u64,
        );
        let args: Vec<Vec<Value>> = keys.iter().map(|&k| shape.args(k)).collect();
        let mut contenders: Vec<Contender<'_>> = Vec::new();
        for (name, db) in &rqc {
            contenders.push(rqc_contender(name, db, shape.entry(), &args));
        }
        for (line, conn) in &sqlite {
            contenders.push(sqlite_contender(line.name(), conn, shape.sql(), &args));
        }
        // Generic, not behind a trait object: the raw reads pay no extra call.
        contenders.extend(raw_contender("raw redb", &raw_redb, shape, &keys));
        contenders.extend(raw_contender("raw LMDB", &lmdb, shape, &keys));
        if let Some(raw_sled) = &raw_sled {
            contenders.extend(raw_contender("raw sled", raw_sled, shape, &keys));
        }
        eprintln!("  N = {n}: {}", shape.short());
        let measured = interleave(
            &mut contenders,
            Plan {
                ops,
                batch,
                warmup,
                expect_rows: true,
            },
            seed.wrapping_add(s as u64),
        );
        shapes.push(ShapeRun { shape, n, measured });
    }
    let plans = SHAPES
        .iter()
        .map(|&s| (s, social::query_plan(&sqlite[0].1, s.sql())))
        .collect();
    let mmap = social::sqlite_settings(&sqlite[1].1);
    SizeRun {
        n,
        shapes,
        loads,
        plans,
        mmap,
    }
}

fn rqc_contender<'a>(
    name: &str,
    db: &'a Database,
    entry: &str,
    args: &'a [Vec<Value>],
) -> Contender<'a> {
    let prepared = db.prepare(entry).expect("the entry is installed");
    Contender::new(name, move |i, sink| {
        let output = prepared.run(&args[i]).expect("rqc runs");
        match sink {
            Some(rows) => *rows = rqc_rows(&output),
            None => drop(black_box(output)),
        }
    })
}

/// A prepared statement run in autocommit, every column read into an owned
/// row value, as rqc builds its rows.
fn sqlite_contender<'a>(
    name: &str,
    conn: &'a Connection,
    sql: &str,
    args: &[Vec<Value>],
) -> Contender<'a> {
    let mut stmt = conn.prepare(sql).expect("the SQL prepares");
    let width = stmt.column_count();
    let params: Vec<Vec<rusqlite::types::Value>> = args
        .iter()
        .map(|a| a.iter().map(sql_value).collect())
        .collect();
    Contender::new(name, move |i, sink| {
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params[i].iter()))
            .unwrap();
        let mut out: Vec<Vec<rusqlite::types::Value>> = Vec::new();
        while let Some(row) = rows.next().unwrap() {
            out.push((0..width).map(|c| row.get(c).unwrap()).collect());
        }
        match sink {
            Some(sink) => {
                *sink = out
                    .iter()
                    .map(|r| r.iter().map(sql_cell).collect())
                    .collect()
            }
            None => drop(black_box(out)),
        }
    })
}

/// The raw stores answer the point read and the bounded range only.
fn raw_contender<'a, R: RawRead>(
    name: &str,
    raw: &'a R,
    shape: Shape,
    keys: &'a [i64],
) -> Option<Contender<'a>> {
    match shape {
        Shape::Point => Some(Contender::new(name, move |i, sink| {
            raw_point(raw, keys[i], sink)
        })),
        Shape::Range => Some(Contender::new(name, move |i, sink| {
            raw_range(raw, keys[i], sink)
        })),
        _ => None,
    }
}

/// A user decoded in place: handed to the check, or kept from the optimiser.
fn raw_point<R: RawRead>(raw: &R, id: i64, sink: Option<&mut Vec<Vec<Cell>>>) {
    raw.user(id, |bytes| {
        let u = decode_user(bytes.expect("every id is a user"));
        match sink {
            Some(rows) => rows.push(vec![
                Cell::Int(u.0),
                Cell::Text(u.1.into()),
                Cell::Text(u.2.into()),
                Cell::Text(u.3.into()),
            ]),
            None => drop(black_box(u)),
        }
    })
}

fn raw_range<R: RawRead>(raw: &R, author: i64, mut sink: Option<&mut Vec<Vec<Cell>>>) {
    raw.recent(author, LIMIT as usize, |bytes| {
        let p = decode_post(bytes);
        match sink.as_deref_mut() {
            Some(rows) => rows.push(vec![
                Cell::Int(p.0),
                Cell::Int(p.1),
                Cell::Int(p.2),
                Cell::Text(p.3.into()),
            ]),
            None => drop(black_box(p)),
        }
    })
}
