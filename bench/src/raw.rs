//! The raw stores at their best: redb, LMDB (heed) and sled holding the
//! users by id and the posts by (author, newest first, id) with the whole
//! row, as rqc's table and covering index do; read through one long-lived
//! read transaction with the tables opened once, values decoded in place.

use crate::data::Social;
use std::path::Path;

/// The two reads a raw baseline answers: a user by id, and an author's
/// newest posts. `f` sees the stored row's bytes without a copy.
pub trait RawRead {
    fn user<R>(&self, id: i64, f: impl FnOnce(Option<&[u8]>) -> R) -> R;
    fn recent(&self, author: i64, n: usize, f: impl FnMut(&[u8]));
}

pub fn user_key(id: i64) -> [u8; 8] {
    id.to_be_bytes()
}

/// Author, then time descending (its complement ascends), then id.
pub fn post_key(author: i64, at: i64, id: i64) -> [u8; 24] {
    let mut k = [0; 24];
    k[..8].copy_from_slice(&author.to_be_bytes());
    k[8..16].copy_from_slice(&(!(at as u64)).to_be_bytes());
    k[16..].copy_from_slice(&id.to_be_bytes());
    k
}

/// A row's bytes: integers as 8 bytes, strings as a 2-byte length and UTF-8.
fn encode(fields: &[Field<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for f in fields {
        match f {
            Field::Int(n) => out.extend_from_slice(&n.to_le_bytes()),
            Field::Text(s) => {
                out.extend_from_slice(&(s.len() as u16).to_le_bytes());
                out.extend_from_slice(s.as_bytes());
            }
        }
    }
    out
}

enum Field<'a> {
    Int(i64),
    Text(&'a str),
}

/// Reads a row's fields in order, borrowing its strings.
struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    fn int(&mut self) -> i64 {
        let (n, rest) = self.0.split_at(8);
        self.0 = rest;
        i64::from_le_bytes(n.try_into().unwrap())
    }

    fn text(&mut self) -> &'a str {
        let len = u16::from_le_bytes([self.0[0], self.0[1]]) as usize;
        let (s, rest) = self.0[2..].split_at(len);
        self.0 = rest;
        std::str::from_utf8(s).expect("stored as UTF-8")
    }
}

pub fn decode_user(bytes: &[u8]) -> (i64, &str, &str, &str) {
    let mut f = Fields(bytes);
    (f.int(), f.text(), f.text(), f.text())
}

pub fn decode_post(bytes: &[u8]) -> (i64, i64, i64, &str) {
    let mut f = Fields(bytes);
    (f.int(), f.int(), f.int(), f.text())
}

/// Every (key, row) the raw stores hold, in one pass per table.
fn for_each_row(social: Social, mut put: impl FnMut(Tree, &[u8], &[u8])) {
    for id in 1..=social.n {
        let u = social.user(id);
        let row = encode(&[
            Field::Int(u.id),
            Field::Text(&u.handle),
            Field::Text(&u.name),
            Field::Text(u.country),
        ]);
        put(Tree::Users, &user_key(id), &row);
    }
    for id in 1..=social.n {
        let p = social.post(id);
        let row = encode(&[
            Field::Int(p.id),
            Field::Int(p.author),
            Field::Int(p.at),
            Field::Text(&p.body),
        ]);
        put(Tree::Posts, &post_key(p.author, p.at, p.id), &row);
    }
}

#[derive(Clone, Copy)]
enum Tree {
    Users,
    Posts,
}

const REDB_USERS: redb::TableDefinition<&[u8], &[u8]> = redb::TableDefinition::new("users");
const REDB_POSTS: redb::TableDefinition<&[u8], &[u8]> = redb::TableDefinition::new("posts");

/// redb with its default cache, as rqc opens it. Fields drop in order:
/// the tables, the transaction, then the database.
pub struct RawRedb {
    users: redb::ReadOnlyTable<&'static [u8], &'static [u8]>,
    posts: redb::ReadOnlyTable<&'static [u8], &'static [u8]>,
    _txn: redb::ReadTransaction,
    _db: redb::Database,
}

impl RawRedb {
    pub fn create(dir: &Path, social: Social) -> RawRedb {
        std::fs::create_dir_all(dir).unwrap();
        let db = redb::Database::create(dir.join("raw.redb")).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let mut users = txn.open_table(REDB_USERS).unwrap();
            let mut posts = txn.open_table(REDB_POSTS).unwrap();
            for_each_row(social, |tree, k, v| {
                match tree {
                    Tree::Users => users.insert(k, v),
                    Tree::Posts => posts.insert(k, v),
                }
                .unwrap();
            });
        }
        txn.commit().unwrap();
        use redb::ReadableDatabase;
        let txn = db.begin_read().unwrap();
        RawRedb {
            users: txn.open_table(REDB_USERS).unwrap(),
            posts: txn.open_table(REDB_POSTS).unwrap(),
            _txn: txn,
            _db: db,
        }
    }
}

impl RawRead for RawRedb {
    fn user<R>(&self, id: i64, f: impl FnOnce(Option<&[u8]>) -> R) -> R {
        let guard = self.users.get(&user_key(id)[..]).unwrap();
        f(guard.as_ref().map(|g| g.value()))
    }

    fn recent(&self, author: i64, n: usize, mut f: impl FnMut(&[u8])) {
        let start = author.to_be_bytes();
        let end = (author + 1).to_be_bytes();
        for entry in self.posts.range(&start[..]..&end[..]).unwrap().take(n) {
            f(entry.unwrap().1.value());
        }
    }
}

/// LMDB through heed: the files, opened once.
pub struct LmdbFiles {
    env: heed::Env,
}

/// A long-lived LMDB read transaction with both databases opened.
pub struct RawLmdb<'e> {
    txn: heed::RoTxn<'e, heed::WithTls>,
    users: heed::Database<'e, heed::types::Bytes, heed::types::Bytes>,
    posts: heed::Database<'e, heed::types::Bytes, heed::types::Bytes>,
}

impl LmdbFiles {
    pub fn create(dir: &Path, social: Social) -> LmdbFiles {
        std::fs::create_dir_all(dir).unwrap();
        // The map is address space, not disk: sized for 10^7 rows and more.
        let env = unsafe {
            heed::EnvOpenOptions::new()
                .map_size(64 << 30)
                .max_dbs(2)
                .open(dir)
                .unwrap()
        };
        let files = LmdbFiles { env };
        let wtxn = files.env.write_txn().unwrap();
        files
            .env
            .create_databases_and_commit(wtxn, |dbo, wtxn| {
                let users: heed::Database<heed::types::Bytes, heed::types::Bytes> =
                    dbo.create_database(wtxn, Some("users"))?;
                let posts: heed::Database<heed::types::Bytes, heed::types::Bytes> =
                    dbo.create_database(wtxn, Some("posts"))?;
                for_each_row(social, |tree, k, v| {
                    match tree {
                        Tree::Users => users.put(wtxn, k, v),
                        Tree::Posts => posts.put(wtxn, k, v),
                    }
                    .unwrap();
                });
                heed::Result::Ok(heed::CommitOrAbort::<_, ()>::Commit(()))
            })
            .unwrap()
            .unwrap_commit();
        files
    }

    pub fn reader(&self) -> RawLmdb<'_> {
        let rtxn = self.env.read_txn().unwrap();
        let (users, posts) = self
            .env
            .open_databases_and_commit(rtxn, |dbo, rtxn| {
                let users = dbo.open_database(rtxn, Some("users"))?.expect("users");
                let posts = dbo.open_database(rtxn, Some("posts"))?.expect("posts");
                heed::Result::Ok(heed::CommitOrAbort::<_, ()>::Commit((users, posts)))
            })
            .unwrap()
            .unwrap_commit();
        RawLmdb {
            txn: self.env.read_txn().unwrap(),
            users,
            posts,
        }
    }
}

impl RawRead for RawLmdb<'_> {
    fn user<R>(&self, id: i64, f: impl FnOnce(Option<&[u8]>) -> R) -> R {
        f(self.users.get(&self.txn, &user_key(id)).unwrap())
    }

    fn recent(&self, author: i64, n: usize, mut f: impl FnMut(&[u8])) {
        // heed copies the 8-byte prefix into a Vec: its API's one allocation.
        for entry in self
            .posts
            .prefix_iter(&self.txn, &author.to_be_bytes())
            .unwrap()
            .take(n)
        {
            f(entry.unwrap().1);
        }
    }
}

/// sled: no transactions to hold; trees opened once.
pub struct RawSled {
    _db: sled::Db,
    users: sled::Tree,
    posts: sled::Tree,
}

impl RawSled {
    pub fn create(dir: &Path, social: Social) -> RawSled {
        let db = sled::open(dir).unwrap();
        let users = db.open_tree("users").unwrap();
        let posts = db.open_tree("posts").unwrap();
        for_each_row(social, |tree, k, v| {
            match tree {
                Tree::Users => users.insert(k, v),
                Tree::Posts => posts.insert(k, v),
            }
            .unwrap();
        });
        db.flush().unwrap();
        RawSled {
            _db: db,
            users,
            posts,
        }
    }
}

impl RawRead for RawSled {
    fn user<R>(&self, id: i64, f: impl FnOnce(Option<&[u8]>) -> R) -> R {
        let value = self.users.get(user_key(id)).unwrap();
        f(value.as_deref())
    }

    fn recent(&self, author: i64, n: usize, mut f: impl FnMut(&[u8])) {
        for entry in self.posts.scan_prefix(author.to_be_bytes()).take(n) {
            f(&entry.unwrap().1);
        }
    }
}
