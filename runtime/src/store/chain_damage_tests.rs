//! Damage against every read path: one entry cut out of a tree or moved under another key is answered as before or refused, never answered otherwise.

use super::chain_tests::fixture;
use super::{Store, Tree};
use proptest::prelude::*;

fn one_byte_key(k: u8) -> Vec<u8> {
    vec![b'a' + k]
}

/// What a cut or moved entry may do to reads: one read of each kind.
#[derive(Debug, Clone)]
struct Reads {
    start: Vec<u8>,
    end: Option<Vec<u8>>,
    reverse: bool,
    limit: usize,
    probe: Vec<u8>,
}

fn reads() -> impl Strategy<Value = Reads> {
    (0u8..17, 0u8..18, any::<bool>(), 0usize..5, 0u8..17).prop_map(
        |(start, end, reverse, limit, probe)| Reads {
            start: one_byte_key(start),
            end: (end < 17).then(|| one_byte_key(end)),
            reverse,
            limit,
            probe: one_byte_key(probe),
        },
    )
}

/// Cuts the `cut`-th raw entry of `tree` (modulo their number) out of
/// `raw`, putting its bytes under `moved_to` when given.
fn cut_or_move(raw: &dyn Store, tree: Tree, cut: usize, moved_to: Option<u8>) {
    let entries = raw
        .begin_read()
        .unwrap()
        .range(tree, b"", None, false, usize::MAX)
        .unwrap();
    if entries.is_empty() {
        return;
    }
    let (key, stored) = entries[cut % entries.len()].clone();
    let mut txn = raw.begin_write().unwrap();
    txn.delete(tree, &key).unwrap();
    if let Some(to) = moved_to {
        txn.put(tree, &one_byte_key(to), &stored).unwrap();
    }
    txn.commit().unwrap();
}

/// Every read of `r` through `store` answers as `model` does, or is
/// refused as damage.
fn answers_or_refuses(
    store: &dyn Store,
    tree: Tree,
    model: &std::collections::BTreeMap<Vec<u8>, Vec<u8>>,
    r: &Reads,
) -> std::result::Result<(), TestCaseError> {
    let Reads {
        start,
        end,
        reverse,
        limit,
        probe,
    } = r;
    let (reverse, limit) = (*reverse, *limit);
    let in_range = |k: &Vec<u8>| k >= start && end.as_ref().is_none_or(|e| k < e);
    let mut expected: Vec<_> = model.iter().filter(|(k, _)| in_range(k)).collect();
    if reverse {
        expected.reverse();
    }
    expected.truncate(limit);
    let expected: Vec<(Vec<u8>, Vec<u8>)> = expected
        .into_iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let txn = store.begin_read().unwrap();
    match txn.range(tree, start, end.as_deref(), reverse, limit) {
        Ok(found) => prop_assert_eq!(found, expected.clone(), "range"),
        Err(e) => prop_assert_eq!(e.code, "E0591"),
    }
    {
        let batch = [
            super::BatchRead::Range {
                tree,
                start: start.clone(),
                end: end.clone(),
                reverse,
                limit,
            },
            super::BatchRead::Get {
                tree,
                key: probe.clone(),
            },
        ];
        match txn.read_batch(&batch) {
            Ok(answers) => {
                let mut answers = answers.into_iter();
                match answers.next() {
                    Some(super::BatchAnswer::Ranged(r)) => {
                        prop_assert_eq!(r.entries, expected, "batched range")
                    }
                    other => panic!("{other:?}"),
                }
                match answers.next() {
                    Some(super::BatchAnswer::Got(v)) => {
                        prop_assert_eq!(v.as_ref(), model.get(probe), "batched get")
                    }
                    other => panic!("{other:?}"),
                }
            }
            Err(e) => prop_assert_eq!(e.code, "E0591"),
        }
    }
    match txn.get(tree, probe) {
        Ok(v) => prop_assert_eq!(v.as_ref(), model.get(probe), "get"),
        Err(e) => prop_assert_eq!(e.code, "E0591"),
    }
    match txn.get_many(tree, &[probe.as_slice()]) {
        Ok(v) => prop_assert_eq!(v[0].as_ref(), model.get(probe), "get_many"),
        Err(e) => prop_assert_eq!(e.code, "E0591"),
    }
    let mut got = None;
    let lent = txn.get_with(tree, probe, &mut |v| {
        got = Some(v.map(<[u8]>::to_vec));
        Ok(())
    });
    let got = got.flatten();
    match lent {
        Ok(()) => prop_assert_eq!(got.as_ref(), model.get(probe), "get_with"),
        Err(e) => prop_assert_eq!(e.code, "E0591"),
    }
    Ok(())
}

fn model_of(
    present: &std::collections::BTreeSet<u8>,
) -> std::collections::BTreeMap<Vec<u8>, Vec<u8>> {
    present
        .iter()
        .map(|&k| (one_byte_key(k), vec![b'v', 1]))
        .collect()
}

proptest! {
    /// One entry of a tree (its end marker too) cut out or moved under
    /// another key, bytes intact: every read through the checked store
    /// either answers as the tree did before or is refused as damage.
    #[test]
    fn one_entry_cut_or_moved_is_never_answered(
        present in prop::collection::btree_set(0u8..16, 0..10),
        cut in 0usize..12,
        moved_to in prop::option::of(0u8..16),
        r in reads(),
    ) {
        let model = model_of(&present);
        let refs: Vec<&[u8]> = model.keys().map(|k| k.as_slice()).collect();
        let f = fixture(&refs);
        cut_or_move(&f.raw, f.tree, cut, moved_to);
        answers_or_refuses(&f.checked, f.tree, &model, &r)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// The same on LMDB, whose ranges hand the entry they stop at to the
    /// chain (`Ranged::before`, `Ranged::after`).
    #[test]
    fn one_entry_cut_or_moved_in_lmdb_is_never_answered(
        present in prop::collection::btree_set(0u8..16, 0..10),
        cut in 0usize..12,
        moved_to in prop::option::of(0u8..16),
        r in reads(),
    ) {
        use crate::open::{Backend, OpenOptions};
        let model = model_of(&present);
        let dir = tempfile::tempdir().unwrap();
        let options = OpenOptions::default();
        {
            let store = Backend::Lmdb.open_store(dir.path(), &options).unwrap();
            let tree = store.tree("t");
            let mut txn = store.begin_write().unwrap();
            for (key, value) in &model {
                txn.put(tree, key, value).unwrap();
            }
            txn.commit().unwrap();
        }
        {
            let raw = super::LmdbStore::open(dir.path(), super::Durability::Full).unwrap();
            let tree = raw.tree("t");
            cut_or_move(&raw, tree, cut, moved_to);
        }
        let store = Backend::Lmdb.open_store(dir.path(), &options).unwrap();
        let tree = store.tree("t");
        answers_or_refuses(store.as_ref(), tree, &model, &r)?;
    }
}
