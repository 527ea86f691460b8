//! Runtime errors: each with a stable code, a message and a help line.

pub use crate::error_codes::ErrorKind;
use std::fmt;
use std::path::Path;
use std::time::Duration;

/// What went wrong at run time. `code` is stable (see spec/errors.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    /// The stable code, `E05xx`.
    pub code: &'static str,
    /// What went wrong.
    pub message: String,
    /// What to do about it.
    pub help: String,
}

const STORE_FAILED: &str = "E0590";
const CONFLICT: &str = "E0595";
/// Another writer held the database past the wait (see `store::busy`).
pub(crate) const BUSY: &str = "E0540";
const READ_ONLY: &str = "E0541";
const PERMISSION: &str = "E0543";
pub(crate) const MAP_FULL: &str = "E0542";
const DISK_FULL: &str = "E0545";
const DAMAGED: &str = "E0591";

/// `ENOSPC` and `EFBIG` (a `ulimit -f`): the disk or the file size limit is full.
fn is_disk_full(os_error: Option<i32>) -> bool {
    matches!(os_error, Some(28) | Some(27))
}

/// An error a transaction's body may return (the runtime's own, or a
/// library's that can hold one): a conflict among them runs the body again
/// ([`crate::backoff::retrying_as`]).
pub trait TransactionError: From<RuntimeError> {
    /// The runtime error this is, if it is one.
    fn runtime(&self) -> Option<&RuntimeError>;
}

impl TransactionError for RuntimeError {
    fn runtime(&self) -> Option<&RuntimeError> {
        Some(self)
    }
}

/// The way from a storage format no upgrade reads to this rqc's.
const DUMP_AND_RESTORE: &str = "with the rqc that wrote it, run `rqc dump --db DIR --out saved`; then, with this rqc, `rqc restore --db NEW --from saved PROGRAM` (the old database is left as it was)";

impl RuntimeError {
    /// An error of `code`, saying what went wrong and what to do.
    pub fn new(code: &'static str, message: impl Into<String>, help: impl Into<String>) -> Self {
        RuntimeError {
            code,
            message: message.into(),
            help: help.into(),
        }
    }

    /// A failure of the store, in its own words (a full disk has its own code).
    pub fn store(error: impl fmt::Display) -> Self {
        // The backends wrap an I/O error in their own; its text keeps the code.
        let text = error.to_string();
        if text.contains("(os error 28)") || text.contains("(os error 27)") {
            return RuntimeError::disk_full(&text);
        }
        RuntimeError::new(
            STORE_FAILED,
            format!("the storage engine failed: {error}"),
            "check that the database directory is writable and the disk is not full; nothing of the failed operation was committed",
        )
    }

    /// A transaction lost to a concurrent one (a store with optimistic
    /// transactions reports it, at a read or at the commit): nothing of it
    /// was stored, and the engine runs the whole mutation again.
    pub fn conflict(error: impl fmt::Display) -> Self {
        RuntimeError::new(
            CONFLICT,
            format!("the transaction conflicted with another one: {error}"),
            "nothing was committed; run it again",
        )
    }

    /// A write to a database opened read-only: its directory or files are
    /// not writable by this user, or it is on a read-only mount.
    pub fn read_only(dir: &Path) -> Self {
        RuntimeError::new(
            READ_ONLY,
            format!(
                "the database `{}` is open read-only (its files or directory are not writable by this user, or the mount is read-only), so it cannot be written",
                dir.display()
            ),
            "queries still run; to write, run as the user that owns the database, or make the directory and its files writable",
        )
    }

    /// An I/O failure on `path`, naming it: a permission error has a code
    /// of its own (E0543), a read-only mount E0541.
    pub fn io_at(path: &Path, error: std::io::Error) -> Self {
        if is_disk_full(error.raw_os_error()) {
            return RuntimeError::disk_full(&format!("`{}`: {error}", path.display()));
        }
        match error.kind() {
            std::io::ErrorKind::PermissionDenied => RuntimeError::new(
                PERMISSION,
                format!("permission denied on `{}`", path.display()),
                "run as the user that owns the database, or give this user access to the directory and its files (e.g. `chmod`)",
            ),
            std::io::ErrorKind::ReadOnlyFilesystem => {
                RuntimeError::read_only(path.parent().unwrap_or(path))
            }
            _ => RuntimeError::new(
                STORE_FAILED,
                format!("the storage engine failed on `{}`: {error}", path.display()),
                "check that the path exists and the disk is not full; nothing of the failed operation was committed",
            ),
        }
    }

    /// The kind of failure this is (`crate::error_codes`).
    pub fn kind(&self) -> ErrorKind {
        crate::error_codes::kind_of(self.code)
    }

    /// Whether another writer held the database too long (E0540).
    pub fn is_busy(&self) -> bool {
        self.kind() == ErrorKind::Busy
    }

    /// Whether a concurrent writer's commit conflicted with this one (a run that may be tried again).
    pub fn is_conflict(&self) -> bool {
        self.kind() == ErrorKind::Conflict
    }

    /// Whether the schema changed under this handle (E0550): nothing was
    /// written or answered; a handle opened again may run the request.
    pub fn is_stale(&self) -> bool {
        self.kind() == ErrorKind::Stale
    }

    /// E0550: another process installed a program of another schema since
    /// this one was installed or opened; its writes would not keep the new
    /// schema's rules.
    pub fn stale_schema() -> RuntimeError {
        RuntimeError::new(
            "E0550",
            "another process installed a program with another schema in this database since this one was opened; nothing was written",
            "open the database again (or install the program again) so that writes keep the schema it now holds",
        )
    }

    /// E0550 for a run's reads: the schema changed under this handle, so
    /// its plans may read what the new schema no longer bounds or keeps (a
    /// loosened `bound`, a dropped index); the run answers nothing.
    pub fn stale_schema_read() -> RuntimeError {
        RuntimeError::new(
            "E0550",
            "another process installed a program with another schema in this database since this one was opened: this handle's plans were proved for the schema it held then, so the run stopped and answers nothing",
            "open the database again (or install the program again) so that runs are planned for the schema it now holds",
        )
    }

    /// Whether the store failed (not the data or the program): such an
    /// error stops a run or a load whole, whatever row it met.
    pub fn is_store_failure(&self) -> bool {
        self.kind().is_store_failure()
    }

    /// A store whose data is damaged (E0591): `what` says where.
    pub fn corrupt(what: &str) -> Self {
        RuntimeError::damaged(format!("stored data could not be decoded: {what}"))
    }

    /// A database an older rqc wrote in storage format `version`, which this
    /// one (`current`) does not read (E0518): its help says what to run.
    pub fn older_format(version: u32, current: u32) -> Self {
        let (carries, help) = match version {
            0 | 1 => ("whose entries carry no checksums", DUMP_AND_RESTORE.to_string()),
            2 => ("whose entries carry no links to each other", DUMP_AND_RESTORE.to_string()),
            _ => (
                "whose LMDB trees are databases of their own",
                "run `rqc upgrade --db DIR` with this rqc: it moves the database into this format in place, in one transaction (`rqc verify --db DIR` checks it after)".to_string(),
            ),
        };
        RuntimeError::new(
            "E0518",
            format!(
                "this database was written by an older rqc (storage format {version}, {carries}; this rqc reads format {current})"
            ),
            help,
        )
    }

    /// The disk, or the process's file size limit, is full (E0545).
    pub fn disk_full(what: &str) -> Self {
        RuntimeError::new(
            DISK_FULL,
            format!("the disk is full, or the file size limit (`ulimit -f`) was reached: {what}"),
            "nothing of this write was committed and the database is as it was; free some space (or raise the limit) and run it again",
        )
    }

    /// E0545 before a write on sled that could fill its disk: sled cannot
    /// promise that a write failing on a full disk leaves its database
    /// readable. `needs` says what the room is for, `outcome` what was done.
    pub fn sled_short_of_room(
        dir: &std::path::Path,
        free: u64,
        needs: String,
        outcome: &str,
        help: String,
    ) -> Self {
        RuntimeError::new(
            DISK_FULL,
            format!(
                "the disk holding `{}` has {} MiB free, {needs}: sled cannot promise that a full disk leaves its database readable, so {outcome}",
                dir.display(),
                free >> 20
            ),
            help,
        )
    }

    /// A damaged database (E0591), saying what is damaged.
    pub fn damaged(what: String) -> Self {
        RuntimeError::new(
            DAMAGED,
            format!("the database is damaged: {what}"),
            "nothing was answered from the damaged data; `rqc verify --db DIR` lists what is damaged and `rqc dump --db DIR` copies out every row that is still readable",
        )
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.code, self.message)
    }
}

impl std::error::Error for RuntimeError {}

/// A duration for a message: `5 s`, `0.25 s`.
pub(crate) fn seconds(wait: Duration) -> String {
    format!("{} s", (wait.as_secs_f64() * 1000.0).round() / 1000.0)
}

pub type Result<T> = std::result::Result<T, RuntimeError>;

/// E0594: the run met a shape its plan should never have (the verifier
/// and the checker let no such plan through): said as a bug, never run
/// past.
pub fn internal(what: &str) -> RuntimeError {
    RuntimeError::new(
        "E0594",
        format!("the plan could not be evaluated: {what}"),
        "this is a bug in rqc; please report it with the program",
    )
}
