//! Opening a database: the backend that holds it, recorded in its directory, and the options it opens with.
//!
//! A database directory names its backend in a marker file written when
//! it is created, so the backend is chosen only then: an existing database
//! opens with its own, and asking for another one is an error (E0515).

use crate::error::{Result, RuntimeError};
pub use crate::store::Converted;
pub use crate::store::Durability;
use crate::store::{
    guarded, Checked, LmdbOptions, LmdbStore, MemoryStore, RedbStore, SledStore, Store,
    DEFAULT_WAIT, LMDB_FILE, REDB_FILE,
};
use std::path::Path;
use std::time::Duration;

/// Which store backs the database.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// LMDB (through heed): a memory-mapped copy-on-write B-tree; readers
    /// in any process never wait, writers of all processes take turns; at
    /// `Durability::Full`, each commit is synced before it returns. The
    /// default: the only backend several processes share, and the fastest
    /// writer measured (see the README's storage section).
    #[default]
    Lmdb,
    /// redb: a copy-on-write B-tree; at `Durability::Full` and `Normal`,
    /// each commit is fsynced before it returns. One process at a time.
    Redb,
    /// sled 0.34: flushes with `sync_file_range`, which is no full barrier
    /// against power loss. One process at a time.
    Sled,
    /// Nothing is written to disk; for tests.
    Memory,
}

impl Backend {
    /// Every backend.
    pub const ALL: [Backend; 4] = [Backend::Memory, Backend::Redb, Backend::Sled, Backend::Lmdb];

    /// The backends that keep a database on disk.
    pub const ON_DISK: [Backend; 3] = [Backend::Redb, Backend::Sled, Backend::Lmdb];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Lmdb => "lmdb",
            Backend::Redb => "redb",
            Backend::Sled => "sled",
            Backend::Memory => "memory",
        }
    }

    /// A store of this backend in `dir` (created when missing; memory
    /// ignores it), without the directory's marker: for tests and tools
    /// that work on stores ([`crate::Engine::open`] opens databases).
    pub fn open_store(self, dir: &Path, options: &OpenOptions) -> Result<Box<dyn Store>> {
        let OpenOptions {
            durability, wait, ..
        } = *options;
        // A backend that panics opening a damaged file reports damage.
        let stored = guarded("opening the database", || {
            Ok::<Box<dyn Store>, _>(match self {
                Backend::Memory => Box::new(MemoryStore::new()),
                Backend::Lmdb => Box::new(LmdbStore::open_with(
                    dir,
                    LmdbOptions {
                        durability,
                        wait,
                        ..LmdbOptions::default()
                    },
                )?),
                // Both admit one process at a time: another one's open waits.
                Backend::Sled => Box::new(SledStore::open_waiting(dir, durability, wait)?),
                Backend::Redb => Box::new(RedbStore::open_waiting(dir, durability, wait)?),
            })
        })?;
        // Every on-disk store checks what it reads (see `store::checked`);
        // memory holds nothing a disk could damage.
        Ok(match self {
            Backend::Memory => stored,
            _ => Box::new(Checked::new(stored).identified()?),
        })
    }

    /// The backend called `name` (as `--store` and the marker spell it).
    pub fn named(name: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.name() == name)
    }
}

#[derive(Clone, Copy, Debug)]
pub struct OpenOptions {
    /// The backend of a new database. An existing one opens with the
    /// backend it was created with; naming another is an error (E0515).
    /// `None`: the existing database's, or the default for a new one.
    pub backend: Option<Backend>,
    /// What an acknowledged commit survives: `Full` (the default), `Normal`
    /// or `None` (see [`Durability`]). Per open: the database does not
    /// record it, and the next open chooses again.
    pub durability: Durability,
    /// How long a writer waits while another one (of this process or
    /// another) holds the database, before it gives up with E0540.
    pub wait: Duration,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            backend: None,
            durability: Durability::Full,
            wait: DEFAULT_WAIT,
        }
    }
}

impl OpenOptions {
    /// The defaults, with `backend` for a new database.
    pub fn with_backend(backend: Backend) -> OpenOptions {
        OpenOptions {
            backend: Some(backend),
            ..OpenOptions::default()
        }
    }
}

/// Moves the existing database in `dir` into this rqc's storage layout
/// (`rqc upgrade`'s first step, before the database is opened): an LMDB
/// database of storage format 3 into format 4, in one transaction
/// ([`LmdbStore::upgrade_layout`]). What it moved; nothing for a database
/// in this layout already, of another backend, or not there (the open
/// after says what is wrong with it).
pub fn upgrade_layout(dir: &Path, options: OpenOptions) -> Result<Converted> {
    let Ok(found) = std::fs::read_to_string(dir.join(MARKER)) else {
        return Ok(Converted::default());
    };
    if Backend::named(found.trim()) != Some(Backend::Lmdb) {
        return Ok(Converted::default());
    }
    check_data_file(dir, Backend::Lmdb)?;
    let OpenOptions {
        durability, wait, ..
    } = options;
    guarded("upgrading the database", || {
        LmdbStore::upgrade_layout(
            dir,
            LmdbOptions {
                durability,
                wait,
                ..LmdbOptions::default()
            },
        )
    })
}

/// Opens the store of the database in `dir` (created when missing), and
/// tells its backend.
pub(crate) fn open_store(dir: &Path, options: OpenOptions) -> Result<(Backend, Box<dyn Store>)> {
    if options.backend == Some(Backend::Memory) {
        return Ok((Backend::Memory, Box::new(MemoryStore::new())));
    }
    let (backend, new) = database_backend(dir, options.backend)?;
    if !new {
        check_data_file(dir, backend)?;
    }
    let store = backend.open_store(dir, &options)?;
    if new {
        // Marked once the backend made its files: a marked directory
        // without them is damaged, never a new database.
        let marker = dir.join(MARKER);
        std::fs::write(&marker, backend.name()).map_err(|e| RuntimeError::io_at(&marker, e))?;
        let creating = dir.join(CREATING);
        std::fs::remove_file(&creating).map_err(|e| RuntimeError::io_at(&creating, e))?;
    }
    Ok((backend, store))
}

/// Refuses a database whose data file is missing or empty (a truncated
/// copy, a file replaced by `: > data.mdb`): LMDB and redb would take it as
/// a new database and answer every query with nothing.
fn check_data_file(dir: &Path, backend: Backend) -> Result<()> {
    let file = match backend {
        Backend::Lmdb => LMDB_FILE,
        Backend::Redb => REDB_FILE,
        // sled keeps a directory of files of its own, and checks them.
        Backend::Sled | Backend::Memory => return Ok(()),
    };
    let path = dir.join(file);
    match std::fs::metadata(&path) {
        Ok(meta) if meta.len() > 0 => Ok(()),
        Ok(_) => Err(RuntimeError::damaged(format!(
            "its data file `{}` is empty",
            path.display()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(RuntimeError::damaged(format!(
            "its data file `{}` is missing",
            path.display()
        ))),
        Err(e) => Err(RuntimeError::io_at(&path, e)),
    }
}

/// The file naming a database directory's backend.
pub const MARKER: &str = "rqc-store";

/// The file a creation writes first (the creating process's id) and
/// removes once the directory is marked: a directory holding it and no
/// marker is a creation that did not finish (a full disk, a kill), which
/// the next open makes again from nothing once its process is gone.
pub const CREATING: &str = "rqc-creating";

/// The backend of the database in `dir` and whether it is new: the one its
/// marker names, or for a new database the one asked for (marked once its
/// store is made). Refuses a path that is a
/// file, a non-empty directory that is not an rqc database, or a database
/// of another backend than the one asked for, before anything is written.
fn database_backend(dir: &Path, requested: Option<Backend>) -> Result<(Backend, bool)> {
    if dir.exists() && !dir.is_dir() {
        return Err(RuntimeError::new(
            "E0511",
            format!("`{}` is a file, not a database directory", dir.display()),
            "give --db a directory (it is created if missing)",
        ));
    }
    let marker = dir.join(MARKER);
    match std::fs::read_to_string(&marker) {
        Ok(found) => {
            let found = found.trim();
            let Some(backend) = Backend::named(found) else {
                return Err(RuntimeError::new(
                    "E0511",
                    format!(
                        "`{}` names an unknown storage backend `{found}`",
                        dir.display()
                    ),
                    "it was made by a newer rqc, or damaged; open it with the rqc that made it",
                ));
            };
            return match requested {
                Some(asked) if asked != backend => Err(RuntimeError::new(
                    "E0515",
                    format!(
                        "`{}` is a {found} database, not a {} one",
                        dir.display(),
                        asked.name()
                    ),
                    format!("leave out --store (an existing database opens with its own backend), or give `--store {found}`"),
                )),
                _ => Ok((backend, false)),
            };
        }
        Err(error) if error.kind() == std::io::ErrorKind::PermissionDenied => {
            return Err(RuntimeError::io_at(&marker, error))
        }
        Err(_) => {}
    }
    let creating = dir.join(CREATING);
    if creating.exists() {
        unfinished_creation(dir, &creating)?;
    }
    let is_empty = std::fs::read_dir(dir)
        .map(|mut e| e.next().is_none())
        .unwrap_or(true);
    if !is_empty {
        return Err(RuntimeError::new(
            "E0511",
            format!("`{}` is not an rqc database", dir.display()),
            "give --db an empty or new directory, or one rqc created",
        ));
    }
    let backend = requested.unwrap_or_default();
    std::fs::create_dir_all(dir).map_err(|e| RuntimeError::io_at(dir, e))?;
    std::fs::write(&creating, std::process::id().to_string())
        .map_err(|e| RuntimeError::io_at(&creating, e))?;
    Ok((backend, true))
}

/// A directory a creation left unmarked (`creating` names its process):
/// while that process lives it is still creating it (E0540, busy);
/// once it is gone, everything in the directory is that creation's (it
/// began in an empty directory), and is removed so the open makes the
/// database again (issue 35 §5: a creation that hit a full disk left a
/// directory no rqc would open, even after space was freed).
fn unfinished_creation(dir: &Path, creating: &Path) -> Result<()> {
    let pid = std::fs::read_to_string(creating)
        .ok()
        .and_then(|text| text.trim().parse::<i32>().ok());
    if let Some(pid) = pid.filter(|&pid| pid as u32 != std::process::id()) {
        // SAFETY: kill(2) with signal 0 only asks whether `pid` exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
        if alive {
            return Err(RuntimeError::new(
                "E0540",
                format!(
                    "`{}` is being created by another process (pid {pid})",
                    dir.display()
                ),
                "wait for it to finish, then open it",
            ));
        }
    }
    let entries = std::fs::read_dir(dir).map_err(|e| RuntimeError::io_at(dir, e))?;
    for entry in entries {
        let path = entry.map_err(|e| RuntimeError::io_at(dir, e))?.path();
        let removed = if path.is_dir() && !path.is_symlink() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed.map_err(|e| RuntimeError::io_at(&path, e))?;
    }
    Ok(())
}

/// Before a load of about `bytes` into the database in `dir` (made with
/// `new_backend` if there is none yet): on sled, which cannot promise that
/// a write failing on a full disk leaves the database readable, refuses
/// (E0545) unless the disk has room for eight times the input and 64 MiB
/// more. (A load on sled also stops, and rolls back, before its next batch
/// would leave too little room: `store::sled_load`.) Other backends fail
/// such a write cleanly, and are not checked.
pub fn check_room_for_load(dir: &Path, new_backend: Option<Backend>, bytes: u64) -> Result<()> {
    let marked = std::fs::read_to_string(dir.join(MARKER)).ok();
    let backend = match marked {
        Some(marked) => Backend::named(marked.trim()),
        None => new_backend,
    };
    if backend != Some(Backend::Sled) {
        return Ok(());
    }
    // A new database's disk is its nearest existing parent's.
    let on_disk = dir.ancestors().find(|p| p.exists());
    match on_disk.map(fs2::available_space) {
        Some(Ok(free)) => room_for_load(dir, free, bytes),
        _ => Ok(()),
    }
}

/// The decision of [`check_room_for_load`], given the free space.
fn room_for_load(dir: &Path, free: u64, bytes: u64) -> Result<()> {
    let needed = bytes.saturating_mul(8).saturating_add(64 << 20);
    if free >= needed {
        return Ok(());
    }
    Err(RuntimeError::sled_short_of_room(
        dir,
        free,
        format!("and this load may need {} MiB", needed >> 20),
        "nothing was loaded",
        crate::store::LOAD_ELSEWHERE.to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new database is checked too, on the disk it will be made on.
    #[test]
    fn a_load_into_a_new_sled_database_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("not/yet");
        let huge = u64::MAX / 16;
        let refused = check_room_for_load(&new, Some(Backend::Sled), huge).unwrap_err();
        assert_eq!(refused.code, "E0545");
        assert!(check_room_for_load(&new, Some(Backend::Lmdb), huge).is_ok());
        assert!(check_room_for_load(&new, None, huge).is_ok());
        assert!(check_room_for_load(&new, Some(Backend::Sled), 1).is_ok());
    }

    #[test]
    fn a_sled_load_needs_eight_times_its_size_and_64_mib() {
        let dir = Path::new("/data/db");
        assert!(room_for_load(dir, (64 << 20) + 8 * 1000, 1000).is_ok());
        let refused = room_for_load(dir, (64 << 20) + 8 * 1000 - 1, 1000).unwrap_err();
        assert_eq!(refused.code, "E0545");
        assert!(
            refused.message.contains("`/data/db` has 64 MiB free"),
            "{}",
            refused.message
        );
        assert!(room_for_load(dir, u64::MAX, u64::MAX).is_ok());
    }

    /// A creation that did not finish (its process gone, a 0-byte data
    /// file and no marker, as a full disk leaves it) is made again at the
    /// next open; one whose process still runs is busy, and left alone.
    #[test]
    fn an_unfinished_creation_is_made_again_once_its_process_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        std::fs::create_dir(&db).unwrap();
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        let pid = gone.id();
        gone.wait().unwrap();
        std::fs::write(db.join(CREATING), pid.to_string()).unwrap();
        std::fs::write(db.join(LMDB_FILE), b"").unwrap();
        let (backend, store) = open_store(&db, OpenOptions::default()).unwrap();
        assert_eq!(backend, Backend::Lmdb);
        drop(store);
        assert!(db.join(MARKER).exists());
        assert!(!db.join(CREATING).exists());
        // Opened again: the database made, not a creation.
        open_store(&db, OpenOptions::default()).unwrap();

        let other = dir.path().join("other");
        std::fs::create_dir(&other).unwrap();
        // Process 1 always runs.
        std::fs::write(other.join(CREATING), "1").unwrap();
        std::fs::write(other.join(LMDB_FILE), b"").unwrap();
        let busy = open_store(&other, OpenOptions::default()).err().unwrap();
        assert_eq!(busy.code, "E0540", "{}", busy.message);
        assert!(other.join(LMDB_FILE).exists(), "left alone");
    }
}
