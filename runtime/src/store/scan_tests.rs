//! Tests of `ReadTxn::scan`: LMDB's cursor lends each entry of exactly the range a read of it gives, in read and write transactions, stops where its visitor says, and the default, a chunk at a time, gives the same.

use super::{Durability, LmdbStore, MemoryStore, ReadTxn, Store, Tree, SALVAGE_CHUNK};

type Entry = (Vec<u8>, Vec<u8>);

/// Every entry `scan` lends of `start..end`, copied.
fn scanned(txn: &dyn ReadTxn, tree: Tree, start: &[u8], end: Option<&[u8]>) -> Vec<Entry> {
    let mut seen = Vec::new();
    txn.scan(tree, start, end, &mut |key, value| {
        seen.push((key.to_vec(), value.to_vec()));
        Ok(true)
    })
    .unwrap();
    seen
}

/// The keys each store is given: the empty key, bytes at both ends, a
/// run of keys sharing a prefix, and the longest key LMDB stores here.
fn keys() -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = vec![vec![], vec![0], vec![0xFF, 0xFF], vec![7; 509]];
    keys.extend((0..40u8).map(|i| vec![1, i]));
    keys.extend((0..40u8).map(|i| vec![1, i, 0]));
    keys
}

/// The ranges read: whole, from inside, ending inside, empty, reversed
/// ends, and bounds longer than any stored key.
fn bounds() -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
    vec![
        (vec![], None),
        (vec![1, 5], None),
        (vec![], Some(vec![1, 5, 0])),
        (vec![1, 5], Some(vec![1, 9])),
        (vec![1, 9], Some(vec![1, 5])),
        (vec![1, 5], Some(vec![1, 5])),
        (vec![7; 600], None),
        (vec![], Some(vec![7; 600])),
        (vec![7; 509], None),
        (vec![2], None),
    ]
}

fn fill(store: &dyn Store, trees: &[Tree]) {
    let mut txn = store.begin_write().unwrap();
    for (n, &tree) in trees.iter().enumerate() {
        for key in keys() {
            let value = [key.as_slice(), &[n as u8]].concat();
            txn.put(tree, &key, &value).unwrap();
        }
    }
    txn.commit().unwrap();
}

#[test]
fn lmdb_lends_exactly_what_a_range_reads_in_either_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let store = LmdbStore::open(dir.path(), Durability::None).unwrap();
    let trees = [store.tree("a"), store.tree("b"), store.tree("c")];
    fill(&store, &trees);
    let empty = store.tree("never written");
    let read = store.begin_read().unwrap();
    let write = store.begin_write().unwrap();
    for txn in [&*read as &dyn ReadTxn, &*write as &dyn ReadTxn] {
        for (start, end) in bounds() {
            let end = end.as_deref();
            // The middle tree: its neighbours' entries are never lent.
            let range = txn.range(trees[1], &start, end, false, usize::MAX).unwrap();
            assert_eq!(
                scanned(txn, trees[1], &start, end),
                range,
                "{start:?}..{end:?}"
            );
            assert!(range.iter().all(|(_, v)| v.last() == Some(&1)));
            assert!(scanned(txn, empty, &start, end).is_empty());
        }
        let whole = scanned(txn, trees[1], b"", None);
        assert_eq!(whole.len(), keys().len());
        assert!(whole.windows(2).all(|w| w[0].0 < w[1].0), "in key order");
    }
}

#[test]
fn a_scan_stops_where_its_visitor_says() {
    let dir = tempfile::tempdir().unwrap();
    let store = LmdbStore::open(dir.path(), Durability::None).unwrap();
    let tree = store.tree("t");
    fill(&store, &[tree]);
    let read = store.begin_read().unwrap();
    for stop in [1, 2, 17] {
        let mut seen = 0;
        read.scan(tree, b"", None, &mut |_, _| {
            seen += 1;
            Ok(seen < stop)
        })
        .unwrap();
        assert_eq!(seen, stop);
    }
    // An error of the visitor is the scan's.
    let error = read
        .scan(tree, b"", None, &mut |_, _| {
            Err(crate::error::internal("the visitor's"))
        })
        .unwrap_err();
    assert!(error.message.contains("the visitor's"), "{error}");
}

#[test]
fn the_default_reads_a_chunk_at_a_time_and_lends_the_same() {
    // More entries than a chunk, so that the default resumes after one.
    let memory = MemoryStore::new();
    let dir = tempfile::tempdir().unwrap();
    let lmdb = LmdbStore::open(dir.path(), Durability::None).unwrap();
    let mut all = Vec::new();
    for store in [&memory as &dyn Store, &lmdb as &dyn Store] {
        let tree = store.tree("t");
        let mut txn = store.begin_write().unwrap();
        for i in 0..(SALVAGE_CHUNK as u32 * 2 + 3) {
            txn.put(tree, &i.to_be_bytes(), &[i as u8]).unwrap();
        }
        txn.commit().unwrap();
        let read = store.begin_read().unwrap();
        let seen = scanned(
            &*read,
            tree,
            &5u32.to_be_bytes(),
            Some(&8190u32.to_be_bytes()),
        );
        assert_eq!(seen.len(), 8190 - 5);
        assert_eq!(seen.last().unwrap().0, 8189u32.to_be_bytes());
        all.push(seen);
    }
    assert_eq!(all[0], all[1]);
}
