//! The etcd backend's commit checks: a commit fails with a conflict when a key or range it read changed (and is sent again when only the key its head writes were made from moved), and a commit over the cluster's operation limit is refused.

#[path = "../../tests/src/etcd_cluster.rs"]
mod etcd_cluster;

use etcd_cluster::{ClusterOptions, EtcdCluster};
use rqc_runtime::store::{resent_commits, EtcdOptions, EtcdStore, Store, Tree, WriteTxn};

fn store(cluster: &EtcdCluster, prefix: &str) -> EtcdStore {
    EtcdStore::connect(&cluster.url(prefix), &EtcdOptions::default()).unwrap()
}

#[test]
fn a_commit_conflicts_when_what_it_read_changed() {
    let cluster = EtcdCluster::start(1);
    let store = store(&cluster, "conflicts");
    let t = store.tree("t");
    let mut setup = store.begin_write().unwrap();
    for k in [b"a", b"c", b"e"] {
        setup.put(t, k, b"0").unwrap();
    }
    setup.commit().unwrap();
    let other = |change: &dyn Fn(&mut dyn rqc_runtime::store::WriteTxn)| {
        let mut txn = store.begin_write().unwrap();
        change(txn.as_mut());
        txn.commit().unwrap();
    };
    // A key read, then changed by another commit.
    let mut txn = store.begin_write().unwrap();
    assert_eq!(txn.get(t, b"a").unwrap(), Some(b"0".to_vec()));
    txn.put(t, b"z", b"1").unwrap();
    other(&|o| o.put(t, b"a", b"1").unwrap());
    assert_eq!(txn.commit().unwrap_err().code, "E0595");
    // A key read absent, then made.
    let mut txn = store.begin_write().unwrap();
    assert_eq!(txn.get(t, b"b").unwrap(), None);
    txn.put(t, b"z", b"2").unwrap();
    other(&|o| o.put(t, b"b", b"1").unwrap());
    assert_eq!(txn.commit().unwrap_err().code, "E0595");
    // A range read, then a key made inside it.
    let mut txn = store.begin_write().unwrap();
    assert_eq!(txn.range(t, b"c", Some(b"e"), false, 10).unwrap().len(), 1);
    txn.put(t, b"z", b"3").unwrap();
    other(&|o| o.put(t, b"d", b"1").unwrap());
    assert_eq!(txn.commit().unwrap_err().code, "E0595");
    // A range read, then a key of it deleted.
    let mut txn = store.begin_write().unwrap();
    assert_eq!(txn.range(t, b"c", Some(b"f"), false, 10).unwrap().len(), 3);
    txn.put(t, b"z", b"4").unwrap();
    other(&|o| o.delete(t, b"d").unwrap());
    assert_eq!(txn.commit().unwrap_err().code, "E0595");
    // A limited range covers only what it returned: a key made past it is no conflict.
    let mut txn = store.begin_write().unwrap();
    let first = txn.range(t, b"a", None, false, 1).unwrap();
    assert_eq!(first[0].0, b"a".to_vec());
    txn.put(t, b"z", b"5").unwrap();
    other(&|o| o.put(t, b"y", b"1").unwrap());
    txn.commit().unwrap();
    // Nothing of the conflicted commits was written.
    let read = store.begin_read().unwrap();
    assert_eq!(read.get(t, b"z").unwrap(), Some(b"5".to_vec()));
}

/// Appends `what` after the head `h` of `log` (a number), at `e` + number,
/// made from the head's value, and writes the number at `at` of the tree
/// `positions` (as an install writes its position into the catalog).
fn after_head(txn: &mut dyn WriteTxn, (log, positions): (Tree, Tree), what: &'static [u8]) {
    txn.write_from(
        log,
        b"h",
        &[positions],
        Box::new(move |head: Option<&[u8]>| {
            let n = head.map_or(0, |h| h[0]) + 1;
            Ok(vec![
                (log, b"h".to_vec(), Some(vec![n])),
                (log, vec![b'e', n], Some(what.to_vec())),
                (positions, what.to_vec(), Some(vec![n])),
            ])
        }),
    )
    .unwrap();
}

/// Commits `txn`: how many times it was sent again, or its error.
fn commit_counting(txn: Box<dyn WriteTxn + '_>) -> Result<u64, String> {
    let before = resent_commits();
    txn.commit()
        .map(|()| resent_commits() - before)
        .map_err(|e| e.code.to_string())
}

/// A commit comparing more than half the operation limit cannot also ask,
/// in a nested Txn, whether anything but the head changed (etcd holds a
/// nested Txn to the limit less the outer one's operations): it is sent
/// without, and commits as the install proved it would.
#[test]
fn a_commit_too_large_to_ask_again_still_commits() {
    let cluster = EtcdCluster::start_with(
        1,
        ClusterOptions {
            max_txn_ops: Some(10),
            ..ClusterOptions::default()
        },
    );
    let store = store(&cluster, "large");
    let (t, log) = (store.tree("t"), store.tree("log"));
    let trees = (log, store.tree("positions"));
    let mut txn = store.begin_write().unwrap();
    for n in 0..7u8 {
        assert_eq!(txn.get(t, &[n]).unwrap(), None);
    }
    txn.put(t, b"z", b"1").unwrap();
    after_head(txn.as_mut(), trees, b"large");
    assert_eq!(commit_counting(txn).unwrap(), 0);
    assert_eq!(
        store.begin_read().unwrap().get(log, &[b'e', 1]).unwrap(),
        Some(b"large".to_vec())
    );
}

/// The head's writes made from its value (`WriteTxn::write_from`, as the
/// changelog appends): a commit that finds the head alone moved is sent
/// again with them made from the new head, in one request more, not run
/// again (disjoint writers conflicted on the head: issue 35); one that
/// finds anything else it read changed is a conflict, in one request.
#[test]
fn a_commit_that_finds_only_the_head_moved_is_sent_again_after_it() {
    let cluster = EtcdCluster::start(1);
    let store = store(&cluster, "head");
    let t = store.tree("t");
    let trees = (store.tree("log"), store.tree("positions"));
    let (log, positions) = trees;
    let append = |txn: &mut dyn WriteTxn, what: &'static [u8]| after_head(txn, trees, what);
    let mut setup = store.begin_write().unwrap();
    setup.put(t, b"a", b"0").unwrap();
    setup.put(t, b"b", b"0").unwrap();
    append(setup.as_mut(), b"setup");
    assert_eq!(commit_counting(setup).unwrap(), 0);
    // Two writers on disjoint rows, both appending after head 1.
    let mut first = store.begin_write().unwrap();
    assert_eq!(first.get(t, b"a").unwrap(), Some(b"0".to_vec()));
    first.put(t, b"a", b"1").unwrap();
    append(first.as_mut(), b"first");
    let mut second = store.begin_write().unwrap();
    assert_eq!(second.get(t, b"b").unwrap(), Some(b"0".to_vec()));
    second.put(t, b"b", b"1").unwrap();
    append(second.as_mut(), b"second");
    assert_eq!(commit_counting(second).unwrap(), 0);
    let before = cluster.kv_requests();
    assert_eq!(commit_counting(first).unwrap(), 1, "sent again once");
    assert_eq!(
        cluster.kv_requests() - before,
        2,
        "the failed commit, then the one that held"
    );
    let read = store.begin_read().unwrap();
    assert_eq!(read.get(log, b"h").unwrap(), Some(vec![3]));
    assert_eq!(read.get(log, &[b'e', 2]).unwrap(), Some(b"second".to_vec()));
    assert_eq!(read.get(log, &[b'e', 3]).unwrap(), Some(b"first".to_vec()));
    // Its other tree's write made again with it.
    assert_eq!(read.get(positions, b"first").unwrap(), Some(vec![3]));
    assert_eq!(read.get(positions, b"second").unwrap(), Some(vec![2]));
    assert_eq!(read.get(t, b"a").unwrap(), Some(b"1".to_vec()));
    // A row it read changed as well as the head: a conflict, nothing written.
    let mut late = store.begin_write().unwrap();
    assert_eq!(late.get(t, b"a").unwrap(), Some(b"1".to_vec()));
    late.put(t, b"c", b"late").unwrap();
    append(late.as_mut(), b"late");
    let mut other = store.begin_write().unwrap();
    other.put(t, b"a", b"2").unwrap();
    append(other.as_mut(), b"other");
    other.commit().unwrap();
    let before = cluster.kv_requests();
    assert_eq!(commit_counting(late).unwrap_err(), "E0595");
    assert_eq!(cluster.kv_requests() - before, 1, "told in its own request");
    let read = store.begin_read().unwrap();
    assert_eq!(read.get(t, b"c").unwrap(), None);
    assert_eq!(read.get(log, b"h").unwrap(), Some(vec![4]));
}

/// A commit whose compares fail answers, in its own request, whether the
/// value it expected (the schema generation) changed: a stale expectation
/// (E0550) is told apart from a conflict (E0595) with no request after it,
/// and every request the transaction sent is one it counted.
#[test]
fn a_failed_commit_tells_a_stale_expectation_from_a_conflict_in_its_own_request() {
    let cluster = EtcdCluster::start(1);
    let store = store(&cluster, "expectations");
    let t = store.tree("t");
    let mut setup = store.begin_write().unwrap();
    setup.put(t, b"a", b"0").unwrap();
    setup.put(t, b"g", b"1").unwrap();
    setup.commit().unwrap();
    let other = |key: &[u8], value: &[u8]| {
        let mut txn = store.begin_write().unwrap();
        txn.put(t, key, value).unwrap();
        txn.commit().unwrap();
    };
    for (changed, value, code) in [
        (&b"a"[..], &b"1"[..], "E0595"),
        (&b"g"[..], &b"2"[..], "E0550"),
    ] {
        let expected = store.begin_read().unwrap().get(t, b"g").unwrap().unwrap();
        let mut txn = store.begin_write().unwrap();
        assert_eq!(txn.requests(), Some(0), "beginning sends nothing");
        let start = cluster.kv_requests();
        txn.get(t, b"a").unwrap();
        assert_eq!(txn.requests(), Some(1));
        assert_eq!(cluster.kv_requests() - start, 1, "a read is one request");
        txn.expect(t, b"g", &expected).unwrap();
        txn.put(t, b"z", b"1").unwrap();
        assert_eq!(txn.requests(), Some(1), "an expectation is a compare");
        other(changed, value);
        let before_commit = cluster.kv_requests();
        let refused = txn.commit().unwrap_err();
        assert_eq!(refused.code, code, "{}", refused.message);
        assert_eq!(
            cluster.kv_requests() - before_commit,
            1,
            "the failed commit told {code} in its own request"
        );
    }
}

#[test]
fn a_commit_over_the_operation_limit_is_refused_with_the_fix() {
    let cluster = EtcdCluster::start_with(
        1,
        ClusterOptions {
            max_txn_ops: Some(200),
            ..ClusterOptions::default()
        },
    );
    let store = store(&cluster, "limits");
    // The limit is measured when the database is made, and recorded.
    assert_eq!(store.max_txn_ops(), Some(200));
    let t = store.tree("t");
    let mut txn = store.begin_write().unwrap();
    for n in 0..200u32 {
        txn.put(t, &n.to_be_bytes(), b"v").unwrap();
    }
    txn.commit().unwrap();
    // A batch of point reads larger than the limit is split.
    let keys: Vec<[u8; 4]> = (0..450u32).map(u32::to_be_bytes).collect();
    let keys: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
    let found = store.begin_read().unwrap().get_many(t, &keys).unwrap();
    assert_eq!(found.iter().filter(|f| f.is_some()).count(), 200);
    let mut txn = store.begin_write().unwrap();
    for n in 0..201u32 {
        txn.put(t, &n.to_be_bytes(), b"w").unwrap();
    }
    let refused = txn.commit().unwrap_err();
    assert_eq!(refused.code, "E0564");
    assert!(
        refused.message.contains("needs 201 operations"),
        "{}",
        refused.message
    );
    assert!(refused.help.contains("--max-txn-ops"), "{}", refused.help);
    let kept = store
        .begin_read()
        .unwrap()
        .get(t, &0u32.to_be_bytes())
        .unwrap();
    assert_eq!(kept, Some(b"v".to_vec()));
    // Opened again, the database keeps the limit it recorded.
    drop(store);
    assert_eq!(self::store(&cluster, "limits").max_txn_ops(), Some(200));
}

#[test]
fn a_prefix_holding_other_keys_is_refused() {
    let cluster = EtcdCluster::start(1);
    cluster.etcdctl(&["put", "theirs/config", "x"]);
    let refused = EtcdStore::connect(&cluster.url("theirs"), &EtcdOptions::default())
        .err()
        .unwrap();
    assert_eq!(refused.code, "E0568");
    let malformed = EtcdStore::connect("etcd://127.0.0.1/app", &EtcdOptions::default())
        .err()
        .unwrap();
    assert_eq!(malformed.code, "E0560");
}
