//! Attacks on damage detection around the chain of entries: a damaged database must refuse, never answer wrongly.

use rqc::{Backend, Database, Durability, Error, OpenOptions, Value};
use rqc_runtime::store::{LmdbStore, Store};

const V1: &str = "
table Post { id: Int key  author: Int  tag: String }
mutation add(id: Int, author: Int, tag: String) = insert Post { id, author, tag }
query post(id: Int) = Post[id]
";

const V2: &str = "
table Post { id: Int key  author: Int  tag: String  index by_author (author) }
mutation add(id: Int, author: Int, tag: String) = insert Post { id, author, tag }
query post(id: Int) = Post[id]
query by_author(a: Int) = Post.by_author[a] |> take(10)
";

fn open(dir: &std::path::Path) -> Result<Database, Error> {
    Database::open_with(
        dir,
        OpenOptions {
            backend: Some(Backend::Lmdb),
            durability: Durability::Full,
            ..OpenOptions::default()
        },
    )
}

fn seeded(dir: &std::path::Path) {
    let mut db = open(dir).unwrap();
    db.install_source("app.rq", V1).unwrap();
    for (id, author) in [(1, 7), (2, 7), (3, 7), (4, 8)] {
        db.run("add", &[id.into(), author.into(), format!("t{id}").into()])
            .unwrap();
    }
}

/// Moves the catalog's entry at `key` to `moved`, bytes intact: what one
/// flipped bit in the key of a B-tree node does.
fn move_catalog_key(dir: &std::path::Path, key: &[u8], moved: &[u8]) {
    let store = LmdbStore::open(dir, Durability::Full).unwrap();
    let catalog = store.tree("__catalog");
    let mut txn = store.begin_write().unwrap();
    let stored = txn
        .get(catalog, key)
        .unwrap()
        .expect("the catalog holds the key");
    txn.delete(catalog, key).unwrap();
    txn.put(catalog, moved, &stored).unwrap();
    txn.commit().unwrap();
}

fn is_damage<T: std::fmt::Debug>(what: &str, result: Result<T, Error>) {
    match result {
        Err(Error::Runtime(e)) => assert_eq!(e.code, "E0591", "{what}: {}", e.message),
        Err(other) => panic!("{what}: not a runtime error: {other}"),
        Ok(found) => panic!("{what}: answered {found:?} from a damaged database"),
    }
}

/// The catalog is not chained: its schema entry moved by a flipped bit in
/// its key reads as missing, and an install took the database for a fresh
/// one: no migration, so the new index was never back-filled and a query
/// through it answered nothing, with no error.
#[test]
fn a_catalog_whose_schema_key_moved_is_not_a_fresh_database() {
    let dir = tempfile::tempdir().unwrap();
    seeded(dir.path());
    // "schema" -> "schemc": 0x61 ^ 0x02.
    move_catalog_key(dir.path(), b"schema", b"schemc");
    let mut db = match open(dir.path()) {
        Ok(db) => db,
        Err(error) => return is_damage("open", Err::<(), _>(error)),
    };
    match db.install_source("app.rq", V2) {
        Ok(_) => {
            let found = db.run("by_author", &[Value::Int(7)]);
            is_damage("by_author after install", found);
        }
        Err(error) => is_damage("install", Err::<(), _>(error)),
    }
}

/// The whole catalog cut out (its leaf lost): the database reads as never
/// installed, but its tables hold rows; an install must not take it for a
/// fresh one.
#[test]
fn a_database_whose_catalog_was_cut_out_is_not_fresh() {
    let dir = tempfile::tempdir().unwrap();
    seeded(dir.path());
    {
        let store = LmdbStore::open(dir.path(), Durability::Full).unwrap();
        let catalog = store.tree("__catalog");
        let mut txn = store.begin_write().unwrap();
        for key in [&b"format"[..], b"generation", b"program", b"schema"] {
            txn.delete(catalog, key).unwrap();
        }
        txn.commit().unwrap();
    }
    let mut db = open(dir.path()).unwrap();
    match db.install_source("app.rq", V2) {
        Ok(_) => is_damage(
            "by_author after install",
            db.run("by_author", &[Value::Int(7)]),
        ),
        Err(error) => is_damage("install", Err::<(), _>(error)),
    }
}

/// A fresh database still installs, and so does one whose tables are all
/// empty (no false alarm).
#[test]
fn a_fresh_database_installs() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = open(dir.path()).unwrap();
    db.install_source("app.rq", V1).unwrap();
    db.install_source("app.rq", V2).unwrap();
    db.run("add", &[1.into(), 7.into(), "t".into()]).unwrap();
    let found = db.run("by_author", &[Value::Int(7)]).unwrap();
    assert_eq!(
        found.value,
        Value::List(vec![db.run("post", &[1.into()]).unwrap().value])
    );
}

/// `verify` reads the catalog whole: a moved schema entry is listed.
#[test]
fn verify_lists_a_moved_catalog_entry() {
    let dir = tempfile::tempdir().unwrap();
    seeded(dir.path());
    assert!(open(dir.path())
        .unwrap()
        .verify()
        .unwrap()
        .problems
        .is_empty());
    move_catalog_key(dir.path(), b"schema", b"schemc");
    let problems = open(dir.path()).unwrap().verify().unwrap().problems;
    assert!(
        // "schemc", as damage names keys.
        problems.iter().any(|p| p.contains("0x736368656d63")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("no schema")),
        "{problems:?}"
    );
}

const TWO_INDEXES: &str = "
table Pair { id: Int key  a: Int  b: Int  index by_a (a)  index by_b (b) }
mutation add(id: Int, a: Int, b: Int) = insert Pair { id, a, b }
query by_a(x: Int) = Pair.by_a[x] |> take(10)
";

/// Replaces every entry of tree `to` by those of tree `from`, bytes
/// intact: what a flipped bit in `to`'s root page number does when it
/// lands on `from`'s root (or a branch's child pointer on a leaf of a
/// sibling tree whose keys have the same form).
fn point_tree_at(dir: &std::path::Path, to: &str, from: &str) {
    let store = LmdbStore::open(dir, Durability::Full).unwrap();
    let (to, from) = (store.tree(to), store.tree(from));
    let mut txn = store.begin_write().unwrap();
    for (key, _) in txn.range(to, b"", None, false, usize::MAX).unwrap() {
        txn.delete(to, &key).unwrap();
    }
    for (key, value) in txn.range(from, b"", None, false, usize::MAX).unwrap() {
        txn.put(to, &key, &value).unwrap();
    }
    txn.commit().unwrap();
}

/// An entry's checksum covers its key, value and link but not its tree: a
/// tree whose pages are another tree's (same key form, same value form)
/// reads as whole, and a query through it answers the other tree's rows.
#[test]
fn a_tree_read_from_another_trees_pages_is_damage() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut db = open(dir.path()).unwrap();
        db.install_source("app.rq", TWO_INDEXES).unwrap();
        db.run("add", &[1.into(), 7.into(), 8.into()]).unwrap();
        db.run("add", &[2.into(), 8.into(), 7.into()]).unwrap();
        let right = db.run("by_a", &[Value::Int(7)]).unwrap().value;
        let Value::List(rows) = &right else {
            panic!("{right:?}")
        };
        assert_eq!(rows.len(), 1);
    }
    point_tree_at(dir.path(), "i:Pair:by_a", "i:Pair:by_b");
    let db = open(dir.path()).unwrap();
    // Answers the row with a = 8, b = 7 for a = 7.
    is_damage("by_a", db.run("by_a", &[Value::Int(7)]));
}

/// A table's tree that reads as wholly empty, end marker included (LMDB's
/// record of the tree lost, or its root page pointing at an empty leaf):
/// spec/storage.md lists it as a limit of the chain. A point read of a
/// row then answers that there is none, and `verify` finds nothing wrong.
#[test]
#[ignore = "documented limit (spec/storage.md): needs an end marker written for every tree at install and a tree with none refused, a format change not made yet"]
fn a_table_tree_read_as_wholly_empty_is_damage() {
    let dir = tempfile::tempdir().unwrap();
    seeded(dir.path());
    {
        let store = LmdbStore::open(dir.path(), Durability::Full).unwrap();
        let tree = store.tree("t:Post");
        let mut txn = store.begin_write().unwrap();
        for (key, _) in txn.range(tree, b"", None, false, usize::MAX).unwrap() {
            txn.delete(tree, &key).unwrap();
        }
        txn.commit().unwrap();
    }
    let db = open(dir.path()).unwrap();
    let problems = db.verify().unwrap().problems;
    let found = db.run("post", &[Value::Int(1)]);
    assert!(!problems.is_empty(), "verify found nothing");
    is_damage("post", found);
}

/// No false alarm: readers on other threads, each read in transactions
/// kept between runs (`store::read_pool`), while a writer inserts and
/// deletes around the keys they read, commit after commit.
#[test]
fn readers_during_commits_see_no_damage() {
    use rqc_runtime::{Backend, OpenOptions as StoreOptions};
    let options = StoreOptions {
        durability: Durability::None,
        ..StoreOptions::default()
    };
    for backend in [Backend::Lmdb, Backend::Redb] {
        let dir = tempfile::tempdir().unwrap();
        let store = backend.open_store(dir.path(), &options).unwrap();
        let tree = store.tree("t");
        let key = |k: u64| vec![0x10, (k % 64) as u8];
        let done = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            for reader in 0..2u64 {
                let (store, done) = (&store, &done);
                scope.spawn(move || {
                    let mut k = reader;
                    while !done.load(std::sync::atomic::Ordering::Relaxed) {
                        k = k
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        let txn = store.begin_read().unwrap();
                        let probe = key(k >> 33);
                        // A read that first opens the tree after a commit it
                        // does not see is refused as a conflict (E0595, which
                        // the engine retries): tried again, as the engine
                        // does. Any other error fails the test.
                        let reverse = k & 1 == 0;
                        let limit = (k >> 8) as usize % 4;
                        let reads = || -> Result<(), rqc_runtime::RuntimeError> {
                            txn.get(tree, &probe)?;
                            txn.range(tree, &probe, None, reverse, limit)?;
                            txn.range(tree, b"", Some(&probe), reverse, limit + 1)?;
                            Ok(())
                        };
                        match reads() {
                            Err(e) if e.is_conflict() => continue,
                            other => other.unwrap(),
                        }
                    }
                });
            }
            let mut k = 7u64;
            for _ in 0..2000 {
                let mut txn = store.begin_write().unwrap();
                for _ in 0..3 {
                    k = k
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    if k >> 63 == 0 {
                        txn.put(tree, &key(k >> 33), b"v").unwrap();
                    } else {
                        txn.delete(tree, &key(k >> 33)).unwrap();
                    }
                }
                txn.commit().unwrap();
            }
            done.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        let txn = store.begin_read().unwrap();
        let all = rqc_runtime::store::salvage_all(txn.as_ref(), tree).unwrap();
        assert!(all.iter().all(|(_, v)| v.is_ok()), "{backend:?}");
    }
}
