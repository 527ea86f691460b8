//! Opening an LMDB environment: once per process, read-only where this user cannot write, with a map reserved up front.

use super::writer_lock::{WriterLock, DEFAULT_WAIT};
use super::Durability;
use crate::error::{Result, RuntimeError, MAP_FULL};
use heed::types::Bytes;
use heed::{CommitOrAbort, Database, Env, EnvFlags, EnvOpenOptions, MdbError, RoTxn, WithoutTls};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

/// LMDB's data file inside the database directory (beside `lock.mdb`).
pub const LMDB_FILE: &str = "data.mdb";

/// The map reserved for a database: 1 TiB of address space on 64-bit
/// systems (1 GiB on others). Halved at open while the system refuses it.
pub const MAP_SIZE: usize = if usize::BITS >= 64 { 1 << 40 } else { 1 << 30 };

/// The most named databases LMDB opens: format 4 keeps every tree in the
/// main one, and only `rqc upgrade` opens the named trees of a format-3
/// database (at most this many). Each read transaction allocates a small
/// array of this size.
const MAX_TREES: u32 = 512;

pub(super) type Db = Database<'static, Bytes, Bytes>;

/// How an LMDB database is opened.
#[derive(Clone, Copy, Debug)]
pub struct LmdbOptions {
    /// What a commit promises: `Full` syncs data and meta page before it
    /// returns; `Normal` opens with `MDB_NOMETASYNC` (the meta page is
    /// synced by the next commit's data sync or [`Store::flush`]); `None`
    /// with `MDB_NOSYNC` (nothing synced until [`Store::flush`]).
    pub durability: Durability,
    /// How long a writer waits for another one before giving up (E0540).
    pub wait: Duration,
    /// The map size (see [`MAP_SIZE`]).
    pub map_size: usize,
}

impl Default for LmdbOptions {
    fn default() -> Self {
        LmdbOptions {
            durability: Durability::Full,
            wait: DEFAULT_WAIT,
            map_size: MAP_SIZE,
        }
    }
}

/// What this process may do with a database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    ReadWrite,
    /// Its files or directory are not writable by this user, or it is on a
    /// read-only mount: queries run, writes fail with E0541.
    ReadOnly,
    /// Read-only, and LMDB's lock file is not writable either, so this
    /// process cannot register its readers: a writer in another process
    /// may reuse the pages a read is on. Each read therefore checks, after
    /// copying what it read, that no writer could have reused them yet, and
    /// otherwise starts the run again.
    ReadOnlyUnlocked,
}

/// One open LMDB environment, shared by the stores of a process that open
/// the same directory (LMDB forbids opening it twice in one process).
pub(super) struct Environment {
    pub(super) env: Env<WithoutTls>,
    pub(super) dir: PathBuf,
    pub(super) access: Access,
    /// What LMDB itself does at a commit: the level of the first store
    /// that opened the environment in this process (its flags are the
    /// environment's); a store of a stronger level syncs after its
    /// commits. `None` for a read-only environment (it commits nothing).
    pub(super) durability: Durability,
    pub(super) writer: Option<WriterLock>,
    /// The longest key LMDB stores (511 bytes in its default build).
    pub(super) max_key: usize,
    /// The main (unnamed) database, which holds every tree (storage
    /// format 4, `lmdb_layout`).
    pub(super) main: Db,
}

/// The environments open in this process, by canonical directory.
static OPEN: Mutex<Vec<(PathBuf, Weak<Environment>)>> = Mutex::new(Vec::new());

impl Environment {
    pub(super) fn open(dir: &Path, options: &LmdbOptions) -> Result<Arc<Environment>> {
        if !dir.exists() {
            std::fs::create_dir_all(dir).map_err(|e| RuntimeError::io_at(dir, e))?;
        }
        let dir = dir
            .canonicalize()
            .map_err(|e| RuntimeError::io_at(dir, e))?;
        let mut open = OPEN.lock().unwrap_or_else(|p| p.into_inner());
        open.retain(|(_, env)| env.strong_count() > 0);
        if let Some(env) = open
            .iter()
            .find(|(d, _)| *d == dir)
            .and_then(|(_, e)| e.upgrade())
        {
            return Ok(env);
        }
        let env = Arc::new(Environment::open_new(dir.clone(), options)?);
        open.push((dir, Arc::downgrade(&env)));
        Ok(env)
    }

    fn open_new(dir: PathBuf, options: &LmdbOptions) -> Result<Environment> {
        let writer = match WriterLock::open(&dir) {
            Ok(lock) if writable(&dir.join(LMDB_FILE))? => Some(lock),
            Ok(_) => None,
            Err(error) if matches!(error.code, "E0541" | "E0543") => None,
            Err(error) => return Err(error),
        };
        let mut access = if writer.is_some() {
            Access::ReadWrite
        } else {
            Access::ReadOnly
        };
        let env = loop {
            let flags = match access {
                Access::ReadWrite => sync_flags(options.durability),
                Access::ReadOnly => EnvFlags::READ_ONLY,
                Access::ReadOnlyUnlocked => EnvFlags::READ_ONLY | EnvFlags::NO_LOCK,
            };
            match open_env(&dir, flags, options.map_size) {
                // LMDB's lock file is not writable: read without it.
                Err(heed::Error::Io(error))
                    if access == Access::ReadOnly
                        && error.kind() == std::io::ErrorKind::PermissionDenied =>
                {
                    access = Access::ReadOnlyUnlocked;
                }
                Err(error) => return Err(open_error(&dir, error)),
                Ok(env) => break env,
            }
        };
        if access == Access::ReadWrite {
            // Slots of readers whose process died would keep old pages from
            // reuse.
            env.clear_stale_readers().map_err(|e| open_error(&dir, e))?;
        }
        let rtxn = env.read_txn().map_err(|e| open_error(&dir, e))?;
        let main = env
            .open_databases_and_commit(rtxn, |opener, rtxn| {
                opener
                    .open_database::<Bytes, Bytes>(rtxn, None)
                    .map(CommitOrAbort::<_, ()>::Commit)
            })
            .map_err(|e| open_error(&dir, e))?
            .unwrap_commit()
            .ok_or_else(|| RuntimeError::corrupt("LMDB's main database is missing"))?;
        Ok(Environment {
            max_key: env.max_key_size(),
            env,
            dir,
            access,
            durability: match access {
                Access::ReadWrite => options.durability,
                _ => Durability::None,
            },
            writer,
            main,
        })
    }

    pub(super) fn error(&self, error: heed::Error) -> RuntimeError {
        lmdb_error(&self.dir, error)
    }

    /// In unlocked reading: whether the pages of the snapshot `txn` read
    /// may have been reused by now. A page of snapshot S is freed by commit
    /// S+1 at the earliest and reused by commit S+3, which begins only
    /// after S+2 is committed.
    pub(super) fn snapshot_reusable(&self, txn: &RoTxn<'_, WithoutTls>) -> bool {
        self.access == Access::ReadOnlyUnlocked && self.env.info().last_txn_id > txn.id() + 1
    }
}

/// Whether `file` (if it exists) can be written by this process.
fn writable(file: &Path) -> Result<bool> {
    match std::fs::File::options().read(true).write(true).open(file) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(true),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            ) =>
        {
            Ok(false)
        }
        Err(e) => Err(RuntimeError::io_at(file, e)),
    }
}

/// The flags that make LMDB keep `durability`'s promise at each commit:
/// `MDB_NOMETASYNC` leaves the meta page's sync to the next commit's (LMDB:
/// a system crash may undo the last commit, and the database keeps its
/// integrity); `MDB_NOSYNC` leaves every sync to [`super::Store::flush`].
pub(super) fn sync_flags(durability: Durability) -> EnvFlags {
    match durability {
        Durability::Full => EnvFlags::empty(),
        Durability::Normal => EnvFlags::NO_META_SYNC,
        Durability::None => EnvFlags::NO_SYNC,
    }
}

/// Opens the environment, with a smaller map while the system refuses the
/// address space (a `ulimit -v`), down to 1 GiB.
fn open_env(dir: &Path, flags: EnvFlags, map_size: usize) -> heed::Result<Env<WithoutTls>> {
    let mut size = map_size;
    let mut waited = false;
    loop {
        let mut options = EnvOpenOptions::new().read_txn_without_tls();
        options.map_size(size).max_dbs(MAX_TREES);
        // SAFETY: LMDB's rules for an environment: it is opened once per
        // process (the caller holds `OPEN`, which lists the open ones), and
        // the flags given are LMDB's documented combinations.
        let opened = unsafe { options.flags(flags).open(dir) };
        match opened {
            Err(heed::Error::Io(e)) if e.kind() == std::io::ErrorKind::OutOfMemory => {
                if size <= 1 << 30 {
                    return Err(heed::Error::Io(e));
                }
                size /= 2;
            }
            // The last store of this directory is still closing it.
            Err(heed::Error::EnvAlreadyOpened) if !waited => {
                if let Some(closing) = heed::env_closing_event(dir) {
                    closing.wait_timeout(Duration::from_secs(5));
                }
                waited = true;
            }
            other => return other,
        }
    }
}

fn open_error(dir: &Path, error: heed::Error) -> RuntimeError {
    match error {
        heed::Error::Io(error) => RuntimeError::io_at(dir, error),
        heed::Error::Mdb(MdbError::Invalid | MdbError::VersionMismatch) => RuntimeError::new(
            "E0511",
            format!(
                "`{}` does not hold an LMDB database rqc can read",
                dir.display()
            ),
            "give --db the directory of an rqc database, or an empty or new one",
        ),
        other => lmdb_error(dir, other),
    }
}

fn lmdb_error(dir: &Path, error: heed::Error) -> RuntimeError {
    match error {
        heed::Error::Mdb(MdbError::MapFull) => RuntimeError::new(
            MAP_FULL,
            format!(
                "the database `{}` is full: it reached the size reserved for it (LMDB's map)",
                dir.display()
            ),
            "nothing of this write was committed; delete rows that are no longer needed (their space is reused), or move the data to a new database",
        ),
        heed::Error::Mdb(MdbError::TxnFull) => RuntimeError::new(
            "E0590",
            "the storage engine failed: the transaction writes more pages than LMDB holds in one (about 512 MiB)",
            "nothing was committed; load the rows in several smaller files",
        ),
        // LMDB reports a short write (a full disk, a reached `ulimit -f`)
        // as an I/O error: told apart by looking at the disk and the limit.
        heed::Error::Io(error)
            if error.raw_os_error() == Some(libc::EIO) && space_exhausted(dir) =>
        {
            RuntimeError::disk_full(&format!("`{}`: {error}", dir.display()))
        }
        heed::Error::Io(error) => RuntimeError::io_at(dir, error),
        other => RuntimeError::store(other),
    }
}

/// Whether the disk holding `dir` has less than 1 MiB free, or the data
/// file is within 1 MiB of this process's file size limit.
fn space_exhausted(dir: &Path) -> bool {
    const SLACK: u64 = 1 << 20;
    if fs2::available_space(dir).is_ok_and(|free| free < SLACK) {
        return true;
    }
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the limit into the struct it is given.
    let known = unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut limit) } == 0;
    let size = std::fs::metadata(dir.join(LMDB_FILE)).map_or(0, |m| m.len());
    known && limit.rlim_cur != libc::RLIM_INFINITY && size + SLACK >= limit.rlim_cur
}
