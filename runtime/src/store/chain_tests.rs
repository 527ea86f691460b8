//! Tests of the chain of entries: entries removed, moved or made stale behind the store's back are damage; writes keep the chain whole.

use super::chain::{link, END};
use super::{Checked, MemoryStore, ReadTxn, Store, Tree, WriteTxn};
use crate::error::Result;
use proptest::prelude::*;
use std::sync::Arc;

/// A store (in memory, or LMDB in a directory of its own) shared between
/// the checked store and the test, which writes it raw (bypassing the
/// seals) to damage it.
#[derive(Clone)]
pub(super) struct Shared(Arc<dyn Store>);

impl Shared {
    fn memory() -> Shared {
        Shared(Arc::new(MemoryStore::new()))
    }
}

impl Store for Shared {
    fn tree(&self, name: &str) -> Tree {
        self.0.tree(name)
    }
    fn begin_read(&self) -> Result<Box<dyn ReadTxn + '_>> {
        self.0.begin_read()
    }
    fn begin_write(&self) -> Result<Box<dyn WriteTxn + '_>> {
        self.0.begin_write()
    }
    fn flush(&self) -> Result<()> {
        Ok(())
    }
}

pub(super) struct Fixture {
    pub(super) raw: Shared,
    pub(super) checked: Checked,
    pub(super) tree: Tree,
    /// The LMDB store's directory, removed once the fixture is dropped.
    _dir: Option<tempfile::TempDir>,
}

pub(super) fn fixture(keys: &[&[u8]]) -> Fixture {
    fixture_on(Shared::memory(), None, keys)
}

/// A fixture on LMDB, whose own cursor code keeps the chain
/// (`WriteTxn::put_beside`), with other trees' entries on both sides of
/// the tree's in LMDB's one B-tree (a tree's neighbour in the file is
/// another tree's entry, never its own).
fn lmdb_fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let lmdb = super::LmdbStore::open(dir.path(), super::Durability::None).unwrap();
    let raw = Shared(Arc::new(lmdb));
    let checked = Checked::new(Box::new(raw.clone()));
    let before = checked.tree("before");
    let tree = checked.tree("t");
    let after = checked.tree("after");
    let mut txn = checked.begin_write().unwrap();
    for other in [before, after] {
        for key in [&b""[..], b"a", b"m", &[0xFF, 0xFE]] {
            txn.put(other, key, b"other").unwrap();
        }
    }
    // `t`'s prefix between the others' (prefixes are given in the order
    // trees are first written).
    txn.put(tree, b"x", b"").unwrap();
    txn.delete(tree, b"x").unwrap();
    txn.commit().unwrap();
    let mut txn = checked.begin_write().unwrap();
    for key in [&b""[..], b"z"] {
        txn.put(after, key, b"again").unwrap();
    }
    txn.commit().unwrap();
    Fixture {
        raw,
        checked,
        tree,
        _dir: Some(dir),
    }
}

fn fixture_on(raw: Shared, dir: Option<tempfile::TempDir>, keys: &[&[u8]]) -> Fixture {
    let checked = Checked::new(Box::new(raw.clone()));
    let tree = checked.tree("t");
    let mut txn = checked.begin_write().unwrap();
    for key in keys {
        txn.put(tree, key, &[b'v', key.len() as u8]).unwrap();
    }
    txn.commit().unwrap();
    Fixture {
        raw,
        checked,
        tree,
        _dir: dir,
    }
}

impl Fixture {
    fn raw_entries(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        let txn = self.raw.begin_read().unwrap();
        txn.range(self.tree, b"", None, false, usize::MAX).unwrap()
    }

    fn raw_write(&self, write: impl FnOnce(&mut dyn WriteTxn)) {
        let mut txn = self.raw.begin_write().unwrap();
        write(txn.as_mut());
        txn.commit().unwrap();
    }

    fn range(&self, start: &[u8], end: Option<&[u8]>, reverse: bool) -> Result<Vec<Vec<u8>>> {
        let txn = self.checked.begin_read()?;
        let entries = txn.range(self.tree, start, end, reverse, usize::MAX)?;
        Ok(entries.into_iter().map(|(k, _)| k).collect())
    }

    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.checked.begin_read()?.get(self.tree, key)
    }

    /// The chain's problems over the whole tree, as `verify` reads them.
    fn problems(&self) -> Vec<String> {
        let problems = self.problems_in_chunks(super::SALVAGE_CHUNK);
        // Read in chunks of any size, the chain says the same.
        for chunk in [1, 2, 3] {
            assert_eq!(
                self.problems_in_chunks(chunk),
                problems,
                "chunks of {chunk}"
            );
        }
        problems
    }

    fn problems_in_chunks(&self, chunk: usize) -> Vec<String> {
        let txn = self.checked.begin_read().unwrap();
        let mut from = super::Salvaging::default();
        let mut problems = Vec::new();
        while !from.done() {
            let salvaged = txn.salvage(self.tree, &mut from, chunk).unwrap();
            problems.extend(
                salvaged
                    .into_iter()
                    .filter_map(|(_, v)| v.err().map(|e| e.message)),
            );
        }
        problems
    }
}

fn is_damage<T: std::fmt::Debug>(result: Result<T>) -> bool {
    match result {
        Err(e) => e.code == "E0591",
        Ok(found) => panic!("answered {found:?} from a damaged tree"),
    }
}

const KEYS: &[&[u8]] = &[b"a", b"c", b"e", b"g"];

#[test]
fn the_end_marker_is_never_a_row() {
    let f = fixture(KEYS);
    assert_eq!(f.range(b"", None, false).unwrap(), KEYS.to_vec());
    let mut back = KEYS.to_vec();
    back.reverse();
    assert_eq!(f.range(b"", None, true).unwrap(), back);
    let txn = f.checked.begin_read().unwrap();
    let last = txn.range(f.tree, b"", None, true, 1).unwrap();
    assert_eq!(last[0].0, b"g".to_vec());
    assert_eq!(txn.get(f.tree, END).unwrap(), None);
    assert!(f.problems().is_empty());
    // The raw tree holds the marker, linked to the last key.
    let raw = f.raw_entries();
    assert_eq!(raw.len(), KEYS.len() + 1);
    assert_eq!(raw.last().unwrap().0, END.to_vec());
}

#[test]
fn an_entry_deleted_behind_the_stores_back_is_damage_in_every_position() {
    // First, middle, last and only entry.
    for (keys, cut) in [
        (KEYS, &b"a"[..]),
        (KEYS, b"c"),
        (KEYS, b"e"),
        (KEYS, b"g"),
        (&[&b"k"[..]][..], b"k"),
    ] {
        let f = fixture(keys);
        f.raw_write(|txn| txn.delete(f.tree, cut).unwrap());
        assert!(is_damage(f.get(cut)), "point read of {cut:?}");
        assert!(is_damage(f.range(b"", None, false)), "forward range");
        assert!(is_damage(f.range(b"", None, true)), "reverse range");
        assert!(is_damage(f.range(cut, None, false)), "range from it");
        let mut end = cut.to_vec();
        end.push(0);
        assert!(is_damage(f.range(b"", Some(&end), true)), "range to it");
        assert!(!f.problems().is_empty(), "verify sees the cut of {cut:?}");
        // `dump` still copies out every entry left, each intact.
        let txn = f.checked.begin_read().unwrap();
        let salvaged = super::salvage_all(txn.as_ref(), f.tree).unwrap();
        let kept: Vec<_> = salvaged
            .into_iter()
            .filter_map(|(k, v)| v.ok().map(|_| k))
            .collect();
        let left: Vec<_> = keys
            .iter()
            .filter(|k| **k != cut)
            .map(|k| k.to_vec())
            .collect();
        assert_eq!(kept, left);
        // The other keys still read: a hit is vouched for by its checksum.
        for key in keys.iter().filter(|k| **k != cut) {
            assert!(f.get(key).unwrap().is_some());
        }
    }
}

#[test]
fn the_end_marker_deleted_is_damage() {
    let f = fixture(KEYS);
    f.raw_write(|txn| txn.delete(f.tree, END).unwrap());
    assert!(is_damage(f.get(b"h")));
    assert!(is_damage(f.range(b"e", None, false)));
    assert!(is_damage(f.range(b"", None, true)));
    assert!(!f.problems().is_empty());
}

#[test]
fn a_moved_key_is_damage() {
    let f = fixture(KEYS);
    // The entry of `c` moved under `d`, bytes intact (as a flipped bit in
    // a key would, were the checksum not over the key).
    let raw = f.raw_entries();
    let c = raw.iter().find(|(k, _)| k == b"c").unwrap().1.clone();
    f.raw_write(|txn| {
        txn.delete(f.tree, b"c").unwrap();
        txn.put(f.tree, b"d", &c).unwrap();
    });
    assert!(is_damage(f.get(b"c")));
    assert!(is_damage(f.range(b"b", Some(b"f"), false)));
}

#[test]
fn a_stale_value_with_another_link_is_damage() {
    let f = fixture(KEYS);
    let old = f.raw_entries();
    let mut txn = f.checked.begin_write().unwrap();
    txn.put(f.tree, b"d", b"new").unwrap();
    txn.commit().unwrap();
    // `e` goes back to its entry from before `d` came (linked to `c`).
    let stale_e = old.iter().find(|(k, _)| k == b"e").unwrap().1.clone();
    f.raw_write(|txn| txn.put(f.tree, b"e", &stale_e).unwrap());
    assert!(is_damage(f.range(b"", None, false)));
    assert!(is_damage(f.range(b"d", None, false)));
    // A stale page holding both the old `e` and no `d` is self-consistent:
    // the chain cannot see it (spec/storage.md says so).
    f.raw_write(|txn| txn.delete(f.tree, b"d").unwrap());
    assert_eq!(f.range(b"", None, false).unwrap(), KEYS.to_vec());
}

#[test]
fn a_write_never_builds_on_a_broken_chain() {
    let f = fixture(KEYS);
    f.raw_write(|txn| txn.delete(f.tree, b"c").unwrap());
    let mut txn = f.checked.begin_write().unwrap();
    // Deleting `a` reads `e`, which links to the missing `c`.
    assert!(is_damage(txn.delete(f.tree, b"a")));
    assert!(is_damage(txn.get(f.tree, b"c")));
}

#[test]
fn the_catalog_is_not_chained_and_its_format_is_bare() {
    let raw = Shared::memory();
    let checked = Checked::new(Box::new(raw.clone()));
    let catalog = checked.tree("__catalog");
    let mut txn = checked.begin_write().unwrap();
    txn.put(catalog, b"format", &3u32.to_be_bytes()).unwrap();
    txn.put(catalog, b"schema", b"{}").unwrap();
    txn.commit().unwrap();
    let read = raw.begin_read().unwrap();
    let entries = read.range(catalog, b"", None, false, usize::MAX).unwrap();
    assert_eq!(entries.len(), 2, "no end marker");
    assert_eq!(entries[0].1, 3u32.to_be_bytes().to_vec());
}

#[test]
fn a_key_past_the_end_marker_is_refused() {
    let f = fixture(KEYS);
    let mut txn = f.checked.begin_write().unwrap();
    let err = txn.put(f.tree, &[0xFF; 9], b"x").unwrap_err();
    assert_eq!(err.code, "E0551");
}

/// One write of a generated sequence.
#[derive(Clone, Debug)]
enum Op {
    Put(u8, u8),
    Delete(u8),
    Commit,
}

fn op() -> impl Strategy<Value = Op> {
    // Few keys, so that writes meet the same rows again and again; the
    // empty key among them.
    prop_oneof![
        4 => (0u8..12, any::<u8>()).prop_map(|(k, v)| Op::Put(k, v)),
        3 => (0u8..12).prop_map(Op::Delete),
        1 => Just(Op::Commit),
    ]
}

fn key_of(k: u8) -> Vec<u8> {
    (0..k % 4).map(|i| b'a' + k / 4 + i).collect()
}

/// The raw tree is one whole chain: each entry links to the one before.
fn chain_whole(f: &Fixture) -> std::result::Result<(), TestCaseError> {
    let raw = f.raw_entries();
    let mut before: Option<Vec<u8>> = None;
    for (key, stored) in &raw {
        let (_, l) = f.checked.open_link(f.tree, key, stored).unwrap();
        prop_assert_eq!(l, before.as_deref().map_or(super::chain::START, link));
        before = Some(key.clone());
    }
    if let Some(last) = raw.last() {
        prop_assert_eq!(&last.0, &END.to_vec());
    }
    prop_assert!(f.problems().is_empty());
    Ok(())
}

proptest! {
    #[test]
    fn writes_keep_the_chain_whole(ops in prop::collection::vec(op(), 1..60)) {
        keeps_the_chain_whole(fixture(&[]), ops)?;
    }

    #[test]
    fn lmdb_writes_keep_the_chain_whole(ops in prop::collection::vec(op(), 1..60)) {
        keeps_the_chain_whole(lmdb_fixture(), ops)?;
    }
}

/// Runs `ops` on `f`'s tree against a model: after every commit the raw
/// tree is one whole chain, and reads inside and after the transactions
/// see the model, vouched for.
fn keeps_the_chain_whole(f: Fixture, ops: Vec<Op>) -> std::result::Result<(), TestCaseError> {
    {
        let mut model = std::collections::BTreeMap::new();
        let mut pending = model.clone();
        let mut txn = f.checked.begin_write().unwrap();
        for op in ops {
            match op {
                Op::Put(k, v) => {
                    txn.put(f.tree, &key_of(k), &[v]).unwrap();
                    pending.insert(key_of(k), vec![v]);
                }
                Op::Delete(k) => {
                    txn.delete(f.tree, &key_of(k)).unwrap();
                    pending.remove(&key_of(k));
                }
                Op::Commit => {
                    txn.commit().unwrap();
                    model = pending.clone();
                    chain_whole(&f)?;
                    txn = f.checked.begin_write().unwrap();
                }
            }
            // Reads inside the transaction see its writes, vouched for.
            let seen = txn.range(f.tree, b"", None, false, usize::MAX).unwrap();
            prop_assert_eq!(seen, pending.clone().into_iter().collect::<Vec<_>>());
        }
        drop(txn);
        chain_whole(&f)?;
        let read = f.checked.begin_read().unwrap();
        for k in 0..12u8 {
            prop_assert_eq!(
                read.get(f.tree, &key_of(k)).unwrap(),
                model.get(&key_of(k)).cloned()
            );
            let back = read.range(f.tree, b"", Some(&key_of(k)), true, 2).unwrap();
            let expected: Vec<_> = model
                .range(..key_of(k))
                .rev()
                .take(2)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            prop_assert_eq!(back, expected);
        }
    }
    Ok(())
}

/// Mutations of several threads sharing group commits (each but the
/// first of a group buffered and replayed into the shared transaction,
/// some failing after their writes): after every commit the chain is
/// whole, and the checked reads see exactly the raw entries.
#[test]
fn group_commits_keep_the_chain_whole() {
    use crate::engine::Output;
    use crate::group::{Closure, Closures, Group};
    use rqc_plan::Value;
    let f = fixture(&[b"m"]);
    let group: Group<Closure<'_>> = Group::default();
    let (f_ref, group) = (&f, &group);
    std::thread::scope(|s| {
        for thread in 0..6u64 {
            s.spawn(move || {
                for round in 0..40u64 {
                    // Each round its own keys (the closure owns its seed).
                    let mut seed = thread * 7919 + round * 104_729 + 1;
                    let work = move |mut txn: Box<dyn WriteTxn + '_>| {
                        for step in 0..4 {
                            seed ^= seed << 13;
                            seed ^= seed >> 7;
                            seed ^= seed << 17;
                            let key = key_of((seed % 12) as u8);
                            if seed % 3 == 0 {
                                txn.delete(f_ref.tree, &key)?;
                            } else {
                                txn.put(f_ref.tree, &key, &[step, thread as u8])?;
                            }
                        }
                        if round % 7 == 3 {
                            return Err(crate::error::RuntimeError::new(
                                "E0502", "refused", "test",
                            ));
                        }
                        txn.commit()?;
                        Ok(Output::wrote_one(Value::Int(0)))
                    };
                    match group.run(&f_ref.checked, &Closures, Box::new(work)) {
                        Ok(_) => {}
                        Err(e) => assert!(["E0502", "E0595"].contains(&e.code), "{e:?}"),
                    }
                }
            });
        }
    });
    assert!(chain_whole(&f).is_ok());
    let read = f.checked.begin_read().unwrap();
    let seen = read.range(f.tree, b"", None, false, usize::MAX).unwrap();
    let raw = f.raw_entries();
    assert_eq!(seen.len() + 1, raw.len(), "every entry but the end marker");
}

/// The same on the real backends: an entry cut out of an LMDB or redb file
/// behind rqc's back (the raw backend, without seals) is damage to a
/// point read and to a range over it.
#[test]
fn an_entry_cut_out_of_an_lmdb_or_redb_file_is_damage() {
    use crate::open::{Backend, OpenOptions};
    for backend in [Backend::Lmdb, Backend::Redb] {
        let dir = tempfile::tempdir().unwrap();
        let options = OpenOptions::default();
        {
            let store = backend.open_store(dir.path(), &options).unwrap();
            let tree = store.tree("t");
            let mut txn = store.begin_write().unwrap();
            for key in KEYS {
                txn.put(tree, key, b"v").unwrap();
            }
            txn.commit().unwrap();
        }
        {
            let raw: Box<dyn Store> = match backend {
                Backend::Lmdb => {
                    Box::new(super::LmdbStore::open(dir.path(), super::Durability::Full).unwrap())
                }
                _ => Box::new(super::RedbStore::open(dir.path(), super::Durability::Full).unwrap()),
            };
            let tree = raw.tree("t");
            let mut txn = raw.begin_write().unwrap();
            txn.delete(tree, b"e").unwrap();
            txn.commit().unwrap();
        }
        let store = backend.open_store(dir.path(), &options).unwrap();
        let tree = store.tree("t");
        let read = store.begin_read().unwrap();
        assert!(is_damage(read.get(tree, b"e")), "{backend:?}");
        assert!(
            is_damage(read.range(tree, b"b", None, false, 10)),
            "{backend:?}"
        );
        assert!(
            is_damage(read.range(tree, b"", Some(b"f"), true, 10)),
            "{backend:?}"
        );
        assert_eq!(read.get(tree, b"g").unwrap(), Some(b"v".to_vec()));
        // `g` is the first entry of a range from `f`: it links to `e`, not
        // to its real predecessor `c`.
        assert!(
            is_damage(read.range(tree, b"f", None, false, 10)),
            "{backend:?}"
        );
        assert_eq!(
            read.range(tree, b"", Some(b"b"), false, 10).unwrap().len(),
            1
        );
    }
}

/// Two databases of the same program hold an entry under the same tree
/// and key: one's bytes copied into the other (pages copied in from a
/// backup of another database) fail their checksum once each database
/// seeds its checksums with its own identity, and pass without one (why
/// identities were added). A database reopened keeps its identity.
#[test]
fn an_entry_copied_in_from_another_database_is_damage() {
    let copied_passes = |identified: bool| {
        let open = |raw: &Shared| {
            let checked = Checked::new(Box::new(raw.clone()));
            if identified {
                checked.identified().unwrap()
            } else {
                checked
            }
        };
        let (raw_one, raw_two) = (Shared::memory(), Shared::memory());
        for (raw, value) in [(&raw_one, b"one"), (&raw_two, b"two")] {
            let checked = open(raw);
            let tree = checked.tree("t:Post");
            let mut txn = checked.begin_write().unwrap();
            txn.put(tree, b"k", value).unwrap();
            txn.put(tree, b"own", value).unwrap();
            txn.commit().unwrap();
        }
        let tree = raw_one.tree("t:Post");
        let stored = raw_one
            .begin_read()
            .unwrap()
            .get(tree, b"k")
            .unwrap()
            .unwrap();
        let mut txn = raw_two.begin_write().unwrap();
        txn.put(raw_two.tree("t:Post"), b"k", &stored).unwrap();
        txn.commit().unwrap();
        // Opened again: the identity it made is read back, not made anew.
        let two = open(&raw_two);
        let own = two.begin_read().unwrap().get(two.tree("t:Post"), b"own");
        assert_eq!(own.unwrap().as_deref(), Some(&b"two"[..]));
        let read = two.begin_read().unwrap().get(two.tree("t:Post"), b"k");
        match read {
            Ok(value) => {
                assert_eq!(value.as_deref(), Some(&b"one"[..]));
                true
            }
            Err(error) => {
                assert_eq!(error.code, "E0591", "{error}");
                false
            }
        }
    };
    assert!(
        copied_passes(false),
        "without identities the copy reads as data"
    );
    assert!(!copied_passes(true), "with them it is damage");
}
