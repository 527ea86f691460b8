//! Durability levels: what an acknowledged commit promises to survive, chosen per open and given to every backend.
//!
//! A database does not record its level: each open chooses one
//! ([`crate::OpenOptions::durability`], `--durability`), and two processes
//! may write one database at different levels. What each level means on
//! each backend is in `spec/storage.md` ("Durability levels").

/// What a commit promises once the mutation that made it returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Durability {
    /// The commit is on disk before it is acknowledged: it survives a
    /// process crash, an OS crash and a power loss (LMDB syncs its data
    /// and its meta page; redb fsyncs; sled flushes, a weaker sync).
    #[default]
    Full,
    /// Atomic and consistent after any crash; a process crash loses
    /// nothing, an OS crash or a power loss may lose the last commits but
    /// never damages the database (LMDB's `MDB_NOMETASYNC`; stores with no
    /// such mode give `Full` here).
    Normal,
    /// Commits are left to the store to write out (LMDB's `MDB_NOSYNC`,
    /// redb's `Durability::None`, sled's background flush) until
    /// [`super::Store::flush`]: for loads and tests.
    None,
}

impl Durability {
    /// Every level, strongest first.
    pub const ALL: [Durability; 3] = [Durability::Full, Durability::Normal, Durability::None];

    /// Its name, as `--durability` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Durability::Full => "full",
            Durability::Normal => "normal",
            Durability::None => "none",
        }
    }

    /// The level called `name` (as `--durability` spells it).
    pub fn named(name: &str) -> Option<Durability> {
        Durability::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Whether this level promises more than `other`: a store opened at
    /// `other` must sync itself to keep this one's promise.
    pub fn stronger_than(self, other: Durability) -> bool {
        self.rank() > other.rank()
    }

    fn rank(self) -> u8 {
        match self {
            Durability::None => 0,
            Durability::Normal => 1,
            Durability::Full => 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Durability;

    #[test]
    fn names_and_order() {
        for level in Durability::ALL {
            assert_eq!(Durability::named(level.name()), Some(level));
        }
        assert_eq!(Durability::default(), Durability::Full);
        assert!(Durability::Full.stronger_than(Durability::Normal));
        assert!(Durability::Normal.stronger_than(Durability::None));
        assert!(!Durability::None.stronger_than(Durability::None));
        assert!(!Durability::Normal.stronger_than(Durability::Full));
    }
}
