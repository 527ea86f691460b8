//! That the durability level an open asks for reaches LMDB: its environment's sync flags, read back from LMDB.
//!
//! redb's and sled's levels are seen in behaviour only, by the crash test
//! (`tests/tests/crash.rs`): at `full` and `normal` a SIGKILL loses no
//! acknowledged commit (sled's background flush alone would), and at
//! `none` redb loses every commit since the last durable one.

use super::{Durability, LmdbStore};
use crate::engine::Engine;
use crate::open::{Backend, OpenOptions};
use heed::EnvFlags;

const SYNC_FLAGS: EnvFlags = EnvFlags::NO_SYNC.union(EnvFlags::NO_META_SYNC);

fn expected(level: Durability) -> EnvFlags {
    match level {
        Durability::Full => EnvFlags::empty(),
        Durability::Normal => EnvFlags::NO_META_SYNC,
        Durability::None => EnvFlags::NO_SYNC,
    }
}

#[test]
fn each_level_sets_lmdbs_sync_flags() {
    for level in Durability::ALL {
        let dir = tempfile::tempdir().unwrap();
        let store = LmdbStore::open(dir.path(), level).unwrap();
        assert_eq!(
            store.env_flags() & SYNC_FLAGS,
            expected(level),
            "LMDB's flags at `{}`",
            level.name()
        );
    }
}

/// Through `OpenOptions`, as the library and the CLI open a database: a
/// store opened after the engine, in the same process, shares its
/// environment, so its flags are those the engine's open set.
#[test]
fn open_options_carry_the_level_to_lmdb() {
    for level in Durability::ALL {
        let dir = tempfile::tempdir().unwrap();
        let options = OpenOptions {
            backend: Some(Backend::Lmdb),
            durability: level,
            ..OpenOptions::default()
        };
        let engine = Engine::open(dir.path(), options).unwrap();
        let beside = LmdbStore::open(dir.path(), Durability::Full).unwrap();
        assert_eq!(
            beside.env_flags() & SYNC_FLAGS,
            expected(level),
            "LMDB's flags after an open at `{}`",
            level.name()
        );
        drop((beside, engine));
    }
}

/// A database does not record its level: the next open chooses again.
#[test]
fn the_level_is_per_open() {
    let dir = tempfile::tempdir().unwrap();
    for level in [Durability::None, Durability::Full, Durability::Normal] {
        let store = LmdbStore::open(dir.path(), level).unwrap();
        assert_eq!(store.env_flags() & SYNC_FLAGS, expected(level));
        drop(store);
    }
}
