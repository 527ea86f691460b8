//! `--durability full|normal|none`: the level a command opens its database at, for that open only.

use clap::{Args, ValueEnum};
use rqc::Durability;

/// The levels as `--durability` spells them (see `rqc::Durability`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DurabilityChoice {
    /// A commit is on disk before it is acknowledged: it survives a
    /// process crash, an OS crash and a power loss (sled: its flush is no
    /// full barrier against power loss).
    Full,
    /// Atomic and consistent after any crash: a process crash loses
    /// nothing; an OS crash or power loss may lose the last commits, never
    /// damages the database (LMDB's MDB_NOMETASYNC; redb and sled have no
    /// such mode and commit as at full).
    Normal,
    /// Commits are not synced: a power loss may lose any since the last
    /// sync, and on LMDB may damage the database; on redb and sled a
    /// process crash may lose them too. For loads and tests.
    None,
}

impl DurabilityChoice {
    pub fn level(self) -> Durability {
        match self {
            DurabilityChoice::Full => Durability::Full,
            DurabilityChoice::Normal => Durability::Normal,
            DurabilityChoice::None => Durability::None,
        }
    }
}

/// The flag, flattened into each command that writes a database.
#[derive(Args, Clone, Copy)]
pub struct DurabilityArg {
    /// What an acknowledged commit survives. For this open only: the
    /// database does not record it. On etcd the cluster decides (every
    /// commit is on a majority's disk) and the flag changes nothing.
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = DurabilityChoice::Full)]
    durability: DurabilityChoice,
}

impl DurabilityArg {
    pub fn level(self) -> Durability {
        self.durability.level()
    }
}
