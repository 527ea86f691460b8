//! Tests of storage format 4 on LMDB: prefixes that never begin one another, trees that never read into their neighbours, prefixes given only by commits, and format 3 moved whole.

use super::lmdb_layout::Prefix;
use super::{Durability, LmdbOptions, LmdbStore, Store};
use heed::types::Bytes;
use heed::{CommitOrAbort, EnvOpenOptions};

#[test]
fn no_prefix_begins_another_and_each_ends_before_the_next() {
    let ids = (0..70u32).chain(0x1FF0..0x2010).chain([u32::MAX - 1]);
    let prefixes: Vec<Prefix> = ids.map(Prefix::of).collect();
    for (i, a) in prefixes.iter().enumerate() {
        // Every prefix begins with 0x80 or above: directory keys (0x00) and
        // format 3's names (0x01..0x7F) are never a tree's.
        assert!(a.as_slice()[0] >= 0x80, "{a:?}");
        let end = a.end();
        assert!(a.as_slice() < end.as_slice(), "{a:?}");
        for b in &prefixes[i + 1..] {
            assert!(!b.as_slice().starts_with(a.as_slice()), "{a:?} {b:?}");
            assert!(!a.as_slice().starts_with(b.as_slice()), "{a:?} {b:?}");
            // Ids in order give prefixes in order, each ending before the next.
            assert!(end.as_slice() <= b.as_slice(), "{a:?} ends past {b:?}");
        }
    }
    assert_eq!(Prefix::of(0x3F).as_slice(), &[0xBF]);
    assert_eq!(Prefix::of(0x40).as_slice(), &[0xC0, 0x40]);
    assert_eq!(Prefix::of(0x2000).as_slice(), &[0xE0, 0, 0, 0x20, 0]);
}

#[test]
fn a_tree_reads_only_its_own_entries_and_stops_at_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let store = LmdbStore::open(dir.path(), Durability::None).unwrap();
    let (a, b, c) = (store.tree("a"), store.tree("b"), store.tree("c"));
    let mut txn = store.begin_write().unwrap();
    for (tree, key) in [(a, &b"x"[..]), (b, b""), (b, b"\xff\xff"), (c, b"")] {
        txn.put(tree, key, key).unwrap();
    }
    txn.commit().unwrap();
    let read = store.begin_read().unwrap();
    let all = |tree, reverse| {
        read.range_to_boundary(tree, b"", None, reverse, usize::MAX)
            .unwrap()
    };
    let forward = all(b, false);
    assert_eq!(
        forward.entries,
        vec![(vec![], vec![]), (vec![0xFF, 0xFF], vec![0xFF, 0xFF])]
    );
    // The next tree's first entry is not this tree's boundary.
    assert_eq!(forward.after, None);
    let backward = all(b, true);
    assert_eq!(backward.entries.len(), 2);
    assert_eq!(backward.before, None);
    // A range ending inside the tree reports the entry it stops at.
    let cut = read
        .range_to_boundary(b, b"", Some(b"\x01"), false, usize::MAX)
        .unwrap();
    assert_eq!(cut.entries, vec![(vec![], vec![])]);
    assert_eq!(cut.after, Some((vec![0xFF, 0xFF], vec![0xFF, 0xFF])));
    assert_eq!(read.get(a, b"x").unwrap(), Some(b"x".to_vec()));
    assert_eq!(read.get(a, b"").unwrap(), None);
    let never = store.tree("never written");
    assert!(all(never, false).entries.is_empty());
}

#[test]
fn a_prefix_given_by_a_transaction_that_aborts_is_given_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = LmdbStore::open(dir.path(), Durability::None).unwrap();
    let (lost, kept) = (store.tree("lost"), store.tree("kept"));
    let mut txn = store.begin_write().unwrap();
    txn.put(lost, b"k", b"lost").unwrap();
    drop(txn);
    // The id `lost` was given goes to `kept`: `lost` must not read it.
    let mut txn = store.begin_write().unwrap();
    txn.put(kept, b"k", b"kept").unwrap();
    txn.commit().unwrap();
    let read = store.begin_read().unwrap();
    assert_eq!(read.get(lost, b"k").unwrap(), None);
    assert_eq!(read.get(kept, b"k").unwrap(), Some(b"kept".to_vec()));
    drop(read);
    // A second store (another process's view) finds the same prefixes.
    drop(store);
    let again = LmdbStore::open(dir.path(), Durability::None).unwrap();
    let read = again.begin_read().unwrap();
    assert_eq!(read.get(again.tree("lost"), b"k").unwrap(), None);
    assert_eq!(
        read.get(again.tree("kept"), b"k").unwrap(),
        Some(b"kept".to_vec())
    );
}

#[test]
fn the_longest_key_is_what_lmdb_stores_after_the_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let store = LmdbStore::open(dir.path(), Durability::None).unwrap();
    let tree = store.tree("t");
    let mut txn = store.begin_write().unwrap();
    // Whatever the prefix's length, 509 bytes of key for the first 8,192
    // trees: the limit does not hang on the order trees were made in.
    txn.put(tree, &[7; 509], b"v").unwrap();
    let error = txn.put(tree, &[7; 510], b"v").unwrap_err();
    assert_eq!(error.code, "E0544");
    assert!(
        error.message.contains("its longest is 509 bytes"),
        "{error}"
    );
    txn.commit().unwrap();
    let read = store.begin_read().unwrap();
    assert_eq!(read.get(tree, &[7; 509]).unwrap(), Some(b"v".to_vec()));
    assert_eq!(read.get(tree, &[7; 600]).unwrap(), None);
    let all = read.range(tree, &[7; 600], None, false, 10).unwrap();
    assert!(all.is_empty(), "a bound past the longest key is past it");
}

/// A tree's entries, key and value.
type Entries<'a> = &'a [(&'a [u8], &'a [u8])];

/// A database laid out as format 3 wrote it: each tree a named database,
/// every key after a 0 byte, the catalog's bare format 3.
fn format_3(dir: &std::path::Path, trees: &[(&str, Entries<'_>)]) {
    let mut options = EnvOpenOptions::new();
    options.map_size(1 << 24).max_dbs(16);
    // SAFETY: opened once, by this test only, and closed before the store.
    let env = unsafe { options.open(dir) }.unwrap();
    let txn = env.write_txn().unwrap();
    env.create_databases_and_commit(txn, |opener, txn| {
        for (name, entries) in trees {
            let db = opener.create_database::<Bytes, Bytes>(txn, Some(name))?;
            for (key, value) in *entries {
                db.put(txn, &[&[0][..], key].concat(), value)?;
            }
        }
        Ok::<_, heed::Error>(CommitOrAbort::<_, ()>::Commit(()))
    })
    .unwrap();
    env.prepare_for_closing().wait();
}

#[test]
fn format_3_is_refused_until_moved_whole_in_one_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let rows: &[(&[u8], &[u8])] = &[(b"", b"empty key"), (b"\x10", b"one"), (b"\xfe", b"two")];
    let catalog: &[(&[u8], &[u8])] = &[(b"format", &3u32.to_be_bytes()), (b"schema", b"s")];
    format_3(
        dir.path(),
        &[("__catalog", catalog), ("t:A", rows), ("i:A:x", &[])],
    );
    let Err(refused) = LmdbStore::open(dir.path(), Durability::None) else {
        panic!("format 3 is refused");
    };
    assert_eq!(refused.code, "E0518");
    assert!(refused.message.contains("storage format 3"), "{refused}");
    assert!(refused.help.contains("rqc upgrade --db DIR"), "{refused}");
    let options = LmdbOptions {
        durability: Durability::None,
        ..LmdbOptions::default()
    };
    let moved = LmdbStore::upgrade_layout(dir.path(), options).unwrap();
    let mut trees = moved.trees.clone();
    trees.sort();
    assert_eq!(
        trees,
        vec![
            ("__catalog".to_string(), 2),
            ("i:A:x".to_string(), 0),
            ("t:A".to_string(), 3)
        ]
    );
    let store = LmdbStore::open(dir.path(), Durability::None).unwrap();
    let read = store.begin_read().unwrap();
    let entries = read.range(store.tree("t:A"), b"", None, false, 10).unwrap();
    let expected: Vec<_> = rows.iter().map(|(k, v)| (k.to_vec(), v.to_vec())).collect();
    assert_eq!(entries, expected);
    let catalog = store.tree("__catalog");
    assert_eq!(
        read.get(catalog, b"format").unwrap(),
        Some(super::STORAGE_FORMAT.to_be_bytes().to_vec())
    );
    assert_eq!(read.get(catalog, b"schema").unwrap(), Some(b"s".to_vec()));
    drop(read);
    drop(store);
    // Moved once: a second upgrade moves nothing.
    let again = LmdbStore::upgrade_layout(dir.path(), options).unwrap();
    assert!(again.trees.is_empty());
}

#[test]
fn a_format_older_than_3_is_refused_by_the_upgrade_and_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let catalog: &[(&[u8], &[u8])] = &[(b"format", &2u32.to_be_bytes())];
    format_3(
        dir.path(),
        &[("__catalog", catalog), ("t:A", &[(b"k", b"v")])],
    );
    let before = std::fs::read(dir.path().join(super::LMDB_FILE)).unwrap();
    let options = LmdbOptions {
        durability: Durability::None,
        ..LmdbOptions::default()
    };
    let Err(refused) = LmdbStore::upgrade_layout(dir.path(), options) else {
        panic!("format 2 is refused");
    };
    assert_eq!(refused.code, "E0518");
    assert!(refused.message.contains("storage format 2"), "{refused}");
    assert!(refused.help.contains("rqc dump"), "{refused}");
    let after = std::fs::read(dir.path().join(super::LMDB_FILE)).unwrap();
    assert!(before == after, "the database is left as it was");
}

/// A store of trees `a`, `b`, `c` (ids 1, 2, 3), each holding one entry;
/// then `damage` applied to LMDB's main database raw.
fn damaged_directory(
    damage: impl FnOnce(&heed::Env, &mut heed::RwTxn<'_>, heed::Database<Bytes, Bytes>),
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = LmdbStore::open(dir.path(), Durability::None).unwrap();
        let mut txn = store.begin_write().unwrap();
        for name in ["a", "b", "c"] {
            txn.put(store.tree(name), b"k", name.as_bytes()).unwrap();
        }
        txn.commit().unwrap();
    }
    let mut options = EnvOpenOptions::new();
    options.map_size(1 << 24).max_dbs(16);
    // SAFETY: opened once, by this test only, after the store closed.
    let env = unsafe { options.open(dir.path()) }.unwrap();
    let rtxn = env.read_txn().unwrap();
    let main = env
        .open_databases_and_commit(rtxn, |opener, rtxn| {
            opener
                .open_database::<Bytes, Bytes>(rtxn, None)
                .map(CommitOrAbort::<_, ()>::Commit)
        })
        .unwrap()
        .unwrap_commit()
        .unwrap();
    let mut txn = env.write_txn().unwrap();
    damage(&env, &mut txn, main);
    txn.commit().unwrap();
    env.prepare_for_closing().wait();
    dir
}

/// What a fresh store reads of tree `b`: its entry, or the error.
fn read_b(dir: &std::path::Path) -> crate::error::Result<Option<Vec<u8>>> {
    let store = LmdbStore::open(dir, Durability::None).unwrap();
    let read = store.begin_read()?;
    read.get(store.tree("b"), b"k")
}

#[test]
fn a_damaged_directory_is_damage_never_a_tree_that_reads_empty() {
    let intact = damaged_directory(|_, _, _| {});
    assert_eq!(read_b(intact.path()).unwrap(), Some(b"b".to_vec()));
    // A byte of `b`'s name flipped: its entry names another tree.
    let renamed = damaged_directory(|_, txn, main| {
        let key = [0, 0, 0, 0, 2];
        let mut value = main.get(txn, &key).unwrap().unwrap().to_vec();
        value[0] ^= 0x01;
        main.put(txn, &key, &value).unwrap();
    });
    // Its id moved to one no tree has.
    let moved = damaged_directory(|_, txn, main| {
        let key = [0, 0, 0, 0, 2];
        let value = main.get(txn, &key).unwrap().unwrap().to_vec();
        main.delete(txn, &key).unwrap();
        main.put(txn, &[0, 0, 0, 0, 0x7E], &value).unwrap();
    });
    // The entry gone (a page cut out).
    let cut = damaged_directory(|_, txn, main| {
        main.delete(txn, &[0, 0, 0, 0, 2]).unwrap();
    });
    // The next id lowered onto a tree's: the next write would share it.
    let lowered = damaged_directory(|_, txn, main| {
        let value = main.get(txn, &[0]).unwrap().unwrap().to_vec();
        let mut next = value.clone();
        next[3] = 2;
        main.put(txn, &[0], &next).unwrap();
    });
    for (what, dir) in [
        ("renamed", renamed),
        ("moved", moved),
        ("cut", cut),
        ("lowered", lowered),
    ] {
        let error = read_b(dir.path()).expect_err(what);
        assert_eq!(error.code, "E0591", "{what}: {error}");
        assert!(error.message.contains("tree directory"), "{what}: {error}");
    }
}
