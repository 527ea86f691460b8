//! The social data set in rqc and in SQLite: users, follows (an island of
//! 20 per user), posts with an index on (author, at desc).

use crate::timing::Rng;
use rqc::{Backend, Database, OpenOptions, Value};
use rusqlite::Connection;
use std::path::Path;

pub struct Size {
    pub users: i64,
    pub posts: i64,
    pub follows_per_user: i64,
}

impl Size {
    pub fn for_posts(posts: i64) -> Size {
        Size {
            users: (posts / 10).max(100),
            posts,
            follows_per_user: 20,
        }
    }
}

/// Rows as the three tables hold them.
pub struct Data {
    pub users: Vec<Vec<Value>>,
    pub follows: Vec<Vec<Value>>,
    pub posts: Vec<Vec<Value>>,
}

pub fn generate(size: &Size, rng: &mut Rng) -> Data {
    let countries = ["NZ", "FR", "JP", "BR", "KE"];
    let users = (1..=size.users)
        .map(|id| {
            vec![
                id.into(),
                format!("h{id}").into(),
                format!("User {id}").into(),
                countries[(id % 5) as usize].into(),
            ]
        })
        .collect();
    let mut follows = Vec::new();
    for a in 1..=size.users {
        let mut seen = std::collections::HashSet::new();
        while (seen.len() as i64) < size.follows_per_user.min(size.users - 1) {
            let b = 1 + rng.below(size.users as u64);
            if b != a && seen.insert(b) {
                follows.push(vec![a.into(), b.into(), rng.below(1_000_000).into()]);
            }
        }
    }
    let posts = (1..=size.posts)
        .map(|id| {
            vec![
                id.into(),
                (1 + rng.below(size.users as u64)).into(),
                rng.below(10_000_000).into(),
                "a post of about forty bytes of body text".into(),
            ]
        })
        .collect();
    Data {
        users,
        follows,
        posts,
    }
}

pub fn rqc_database(dir: &Path, backend: Backend, data: &Data) -> Database {
    let mut db = Database::open_with(
        dir,
        OpenOptions {
            backend: Some(backend),
            flush_on_commit: false,
            ..OpenOptions::default()
        },
    )
    .expect("open");
    db.install_paths(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/social")])
        .expect("install");
    for (table, rows) in [
        ("User", &data.users),
        ("Follow", &data.follows),
        ("Post", &data.posts),
    ] {
        for chunk in rows.chunks(20_000) {
            let rows = chunk
                .iter()
                .enumerate()
                .map(|(i, r)| (i + 1, Ok(r.clone())))
                .collect();
            let report = db.load(table, rows, &mut |_| {}).expect("load");
            assert!(
                report.rejected.is_empty(),
                "{table}: {:?}",
                report.rejected.first()
            );
        }
    }
    db
}

pub fn sqlite_database(path: &Path, data: &Data) -> Connection {
    let conn = Connection::open(path).expect("sqlite");
    conn.execute_batch(
        "PRAGMA journal_mode = WAL;
         PRAGMA synchronous = OFF;
         CREATE TABLE user (id INTEGER PRIMARY KEY, handle TEXT NOT NULL UNIQUE, name TEXT NOT NULL, country TEXT NOT NULL);
         CREATE TABLE follow (follower INTEGER NOT NULL REFERENCES user(id), followee INTEGER NOT NULL REFERENCES user(id),
                              since INTEGER NOT NULL, PRIMARY KEY (follower, followee)) WITHOUT ROWID;
         CREATE TABLE post (id INTEGER PRIMARY KEY, author INTEGER NOT NULL REFERENCES user(id), at INTEGER NOT NULL, body TEXT NOT NULL);
         CREATE INDEX post_by_author ON post(author, at DESC);",
    )
    .expect("schema");
    let tx = conn.unchecked_transaction().expect("tx");
    {
        let mut user = tx
            .prepare("INSERT INTO user VALUES (?1, ?2, ?3, ?4)")
            .unwrap();
        for row in &data.users {
            user.execute(rusqlite::params![
                int(&row[0]),
                text(&row[1]),
                text(&row[2]),
                text(&row[3])
            ])
            .unwrap();
        }
        let mut follow = tx
            .prepare("INSERT INTO follow VALUES (?1, ?2, ?3)")
            .unwrap();
        for row in &data.follows {
            follow
                .execute(rusqlite::params![int(&row[0]), int(&row[1]), int(&row[2])])
                .unwrap();
        }
        let mut post = tx
            .prepare("INSERT INTO post VALUES (?1, ?2, ?3, ?4)")
            .unwrap();
        for row in &data.posts {
            post.execute(rusqlite::params![
                int(&row[0]),
                int(&row[1]),
                int(&row[2]),
                text(&row[3])
            ])
            .unwrap();
        }
    }
    tx.commit().unwrap();
    conn
}

pub fn int(v: &Value) -> i64 {
    match v {
        Value::Int(n) => *n,
        _ => 0,
    }
}

pub fn text(v: &Value) -> &str {
    match v {
        Value::Str(s) => s,
        _ => "",
    }
}

/// The timeline in SQL: the newest 10 posts of each followee, then the newest n.
pub const SQL_TIMELINE: &str = "
  SELECT id, author, at, body FROM (
    SELECT p.id, p.author, p.at, p.body,
           row_number() OVER (PARTITION BY p.author ORDER BY p.at DESC) AS rank
    FROM follow f JOIN post p ON p.author = f.followee
    WHERE f.follower = ?1)
  WHERE rank <= 10 ORDER BY at DESC LIMIT ?2";

pub const SQL_RECENT: &str =
    "SELECT id, author, at, body FROM post WHERE author = ?1 ORDER BY at DESC LIMIT ?2";
