//! The `Store` contract, on every backend: a write transaction reads its own
//! writes (points, batches and ranges, either way, with limits), a dropped
//! one stores nothing, and a read transaction never sees a commit made
//! after it began. etcd is among the backends, on a one-member cluster
//! started for each test (tests/src/etcd_cluster.rs).

#[path = "../../tests/src/etcd_cluster.rs"]
mod etcd_cluster;

use rqc_runtime::store::{
    Durability, EtcdOptions, EtcdStore, LmdbStore, MemoryStore, RedbStore, SledStore, Store,
};
use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

fn each_backend(check: impl Fn(&str, Arc<dyn Store>)) {
    let dir = tempfile::tempdir().unwrap();
    let cluster = etcd_cluster::EtcdCluster::start(1);
    let etcd = EtcdStore::connect(&cluster.url("conformance"), &EtcdOptions::default()).unwrap();
    let stores: [(&str, Arc<dyn Store>); 5] = [
        ("memory", Arc::new(MemoryStore::new())),
        (
            "sled",
            // Its loads spill every 3 keys (see `a_load_...` below).
            Arc::new(
                SledStore::open(&dir.path().join("sled"), Durability::None)
                    .unwrap()
                    .spill_loads_at(3),
            ),
        ),
        (
            "redb",
            Arc::new(RedbStore::open(&dir.path().join("redb"), Durability::None).unwrap()),
        ),
        (
            "lmdb",
            Arc::new(LmdbStore::open(&dir.path().join("lmdb"), Durability::None).unwrap()),
        ),
        ("etcd", Arc::new(etcd)),
    ];
    for (name, store) in stores {
        check(name, store);
    }
}

fn key(n: u8) -> Vec<u8> {
    vec![b'k', n]
}

#[test]
fn a_write_transaction_reads_its_own_writes() {
    each_backend(|name, store| {
        let t = store.tree("t");
        // Committed: the even keys 0..40.
        let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        let mut txn = store.begin_write().unwrap();
        for n in (0..40).step_by(2) {
            txn.put(t, &key(n), &[n]).unwrap();
            model.insert(key(n), vec![n]);
        }
        txn.commit().unwrap();
        // Pending: odd keys in, every fourth even key out, one rewritten.
        let mut txn = store.begin_write().unwrap();
        for n in (1..40).step_by(3) {
            txn.put(t, &key(n), &[n, n]).unwrap();
            model.insert(key(n), vec![n, n]);
        }
        for n in (0..40).step_by(8) {
            txn.delete(t, &key(n)).unwrap();
            model.remove(&key(n));
        }
        txn.put(t, &key(2), b"new").unwrap();
        model.insert(key(2), b"new".to_vec());
        for n in 0..42 {
            assert_eq!(txn.get(t, &key(n)).unwrap(), model.get(&key(n)).cloned());
        }
        let keys: Vec<Vec<u8>> = (0..42).map(key).collect();
        let batch: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let expected: Vec<_> = keys.iter().map(|k| model.get(k).cloned()).collect();
        assert_eq!(txn.get_many(t, &batch).unwrap(), expected, "{name}");
        for (start, end) in [(0, Some(42)), (3, Some(17)), (8, None), (20, Some(9))] {
            for limit in [0, 1, 3, 7, usize::MAX] {
                for reverse in [false, true] {
                    let end_key = end.map(key);
                    let range = txn
                        .range(t, &key(start), end_key.as_deref(), reverse, limit)
                        .unwrap();
                    let in_range = model
                        .iter()
                        .filter(|(k, _)| {
                            **k >= key(start) && end_key.as_ref().is_none_or(|e| *k < e)
                        })
                        .map(|(k, v)| (k.clone(), v.clone()));
                    let expected: Vec<_> = if reverse {
                        in_range.rev().take(limit).collect()
                    } else {
                        in_range.take(limit).collect()
                    };
                    assert_eq!(range, expected, "{name} {start}..{end:?} {limit} {reverse}");
                }
            }
        }
        let absent = store.tree("absent");
        assert!(txn.range(absent, &[], None, false, 9).unwrap().is_empty());
        txn.commit().unwrap();
        let read = store.begin_read().unwrap();
        let all: BTreeMap<_, _> = read
            .range(t, &[], None, false, usize::MAX)
            .unwrap()
            .into_iter()
            .collect();
        assert_eq!(
            all, model,
            "{name}: the commit stored what the transaction read"
        );
    });
}

#[test]
fn a_dropped_write_transaction_stores_nothing() {
    each_backend(|name, store| {
        let t = store.tree("t");
        let mut txn = store.begin_write().unwrap();
        txn.put(t, b"kept", b"1").unwrap();
        txn.commit().unwrap();
        let mut txn = store.begin_write().unwrap();
        txn.put(t, b"lost", b"2").unwrap();
        txn.delete(t, b"kept").unwrap();
        drop(txn);
        let read = store.begin_read().unwrap();
        assert_eq!(read.get(t, b"kept").unwrap(), Some(b"1".to_vec()), "{name}");
        assert_eq!(read.get(t, b"lost").unwrap(), None, "{name}");
    });
}

/// Every key of tree `t`, read in one range.
fn all_of(store: &dyn Store, t: rqc_runtime::store::Tree) -> Vec<(Vec<u8>, Vec<u8>)> {
    let read = store.begin_read().unwrap();
    read.range(t, &[], None, false, usize::MAX).unwrap()
}

/// A load's transaction (which on sled writes into the store as it goes,
/// journaled) reads its own writes, and stores all of them or, dropped,
/// none: keys put, overwritten, deleted and written twice.
#[test]
fn a_load_reads_its_own_writes_and_commits_or_drops_whole() {
    each_backend(|name, store| {
        let (t, u) = (store.tree("t"), store.tree("u"));
        let mut txn = store.begin_write().unwrap();
        for n in (0..40).step_by(2) {
            txn.put(t, &key(n), &[n]).unwrap();
        }
        txn.commit().unwrap();
        let before = all_of(store.as_ref(), t);
        let load = |commit: bool| {
            let mut model: BTreeMap<Vec<u8>, Vec<u8>> = before.iter().cloned().collect();
            let mut txn = store.begin_load().unwrap();
            for n in 0..40u8 {
                match n % 4 {
                    0 => {
                        txn.delete(t, &key(n)).unwrap();
                        model.remove(&key(n));
                    }
                    _ => {
                        txn.put(t, &key(n), &[n, 1]).unwrap();
                        model.insert(key(n), vec![n, 1]);
                    }
                }
                // One key of another tree, written again and again.
                txn.put(u, b"count", &[n]).unwrap();
                let seen = txn.range(t, &[], None, false, usize::MAX).unwrap();
                let expected: Vec<_> = model.clone().into_iter().collect();
                assert_eq!(seen, expected, "{name}: the load reads its writes at {n}");
                let back = txn.range(t, &key(10), None, true, 3).unwrap();
                let expected: Vec<_> = model
                    .range(key(10)..)
                    .rev()
                    .take(3)
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                assert_eq!(back, expected, "{name}: backwards at {n}");
            }
            assert_eq!(txn.get(u, b"count").unwrap(), Some(vec![39]), "{name}");
            if commit {
                txn.commit().unwrap();
            } else {
                drop(txn);
            }
            model
        };
        load(false);
        assert_eq!(all_of(store.as_ref(), t), before, "{name}: dropped");
        assert_eq!(all_of(store.as_ref(), u), vec![], "{name}: dropped");
        let model = load(true);
        let stored: BTreeMap<_, _> = all_of(store.as_ref(), t).into_iter().collect();
        assert_eq!(stored, model, "{name}: committed");
        let count = vec![(b"count".to_vec(), vec![39])];
        assert_eq!(all_of(store.as_ref(), u), count, "{name}: committed");
    });
}

#[test]
fn a_read_transaction_never_sees_a_later_commit() {
    each_backend(|name, store| {
        let t = store.tree("t");
        let mut txn = store.begin_write().unwrap();
        txn.put(t, b"a", b"old").unwrap();
        txn.put(t, b"b", b"old").unwrap();
        txn.commit().unwrap();
        let read = store.begin_read().unwrap();
        assert_eq!(read.get(t, b"a").unwrap(), Some(b"old".to_vec()));
        // A writer on another thread changes both keys. Where reads are
        // snapshots it commits at once; on sled it waits for the reader.
        let (done, committed) = mpsc::channel();
        let writer = {
            let store = Arc::clone(&store);
            std::thread::spawn(move || {
                let mut txn = store.begin_write().unwrap();
                txn.put(t, b"a", b"new").unwrap();
                txn.put(t, b"b", b"new").unwrap();
                txn.commit().unwrap();
                done.send(()).unwrap();
            })
        };
        let _ = committed.recv_timeout(Duration::from_millis(200));
        assert_eq!(read.get(t, b"a").unwrap(), Some(b"old".to_vec()), "{name}");
        let both = read.range(t, &[], None, false, 10).unwrap();
        assert!(both.iter().all(|(_, v)| v == b"old"), "{name}: {both:?}");
        drop(read);
        writer.join().unwrap();
        let read = store.begin_read().unwrap();
        assert_eq!(read.get(t, b"b").unwrap(), Some(b"new".to_vec()), "{name}");
    });
}

/// A tree that exists on disk but that this process names for the first
/// time while a write transaction is open is usable in that transaction
/// (on LMDB, naming it opens it for later transactions, not for this one).
#[test]
fn a_tree_first_named_inside_a_write_transaction_is_usable_there() {
    let dir = tempfile::tempdir().unwrap();
    let paths = ["sled", "redb", "lmdb"].map(|name| dir.path().join(name));
    let open = |at: usize| -> Box<dyn Store> {
        match at {
            0 => Box::new(SledStore::open(&paths[0], Durability::None).unwrap()),
            1 => Box::new(RedbStore::open(&paths[1], Durability::None).unwrap()),
            _ => Box::new(LmdbStore::open(&paths[2], Durability::None).unwrap()),
        }
    };
    for at in 0..3 {
        {
            let store = open(at);
            let mut txn = store.begin_write().unwrap();
            txn.put(store.tree("t"), &key(1), b"one").unwrap();
            txn.commit().unwrap();
        }
        let store = open(at);
        let mut txn = store.begin_write().unwrap();
        let tree = store.tree("t");
        assert_eq!(
            txn.get(tree, &key(1)).unwrap().as_deref(),
            Some(&b"one"[..]),
            "{at}"
        );
        txn.put(tree, &key(2), b"two").unwrap();
        txn.commit().unwrap();
        let read = store.begin_read().unwrap();
        assert_eq!(
            read.get(tree, &key(2)).unwrap().as_deref(),
            Some(&b"two"[..])
        );
    }
}

/// A read begun after a commit sees it, whatever the store keeps between
/// reads (LMDB keeps read transactions while no commit comes), also when
/// the commit comes from another store of the same directory.
#[test]
fn a_read_begun_after_a_commit_sees_it() {
    each_backend(|name, store| {
        let tree = store.tree("t");
        for round in 0..20u8 {
            let read = store.begin_read().unwrap();
            let before = read.get(tree, &key(0)).unwrap();
            drop(read);
            let mut write = store.begin_write().unwrap();
            write.put(tree, &key(0), &[round]).unwrap();
            write.commit().unwrap();
            let read = store.begin_read().unwrap();
            assert_eq!(
                read.get(tree, &key(0)).unwrap(),
                Some(vec![round]),
                "{name}, round {round} (before: {before:?})"
            );
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let one = LmdbStore::open(dir.path(), Durability::None).unwrap();
    let two = LmdbStore::open(dir.path(), Durability::None).unwrap();
    let (t1, t2) = (one.tree("t"), two.tree("t"));
    for round in 0..20u8 {
        drop(one.begin_read().unwrap().get(t1, &key(0)).unwrap());
        let mut write = two.begin_write().unwrap();
        write.put(t2, &key(0), &[round]).unwrap();
        write.commit().unwrap();
        assert_eq!(
            one.begin_read().unwrap().get(t1, &key(0)).unwrap(),
            Some(vec![round]),
            "round {round}"
        );
    }
}
