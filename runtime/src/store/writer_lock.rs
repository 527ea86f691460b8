//! The write lock of a database shared by processes: one writer at a time, waited for up to a deadline.
//!
//! LMDB's own writer mutex waits without a limit, so writers first take
//! this lock, which they wait for at most `wait` and then give up with
//! [`busy`] (E0540). Threads of one process queue on a mutex; processes on
//! an advisory `flock` of a file in the database directory (held by the
//! process, so released by the kernel when it dies, even by SIGKILL).

use crate::error::{Result, RuntimeError};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The file whose `flock` the writers of all processes take.
pub const WRITER_LOCK_FILE: &str = "rqc-writer.lock";

/// How long a writer waits for another by default (`--wait`).
pub const DEFAULT_WAIT: Duration = Duration::from_secs(5);

pub(crate) struct WriterLock {
    /// Whether a thread of this process holds the lock.
    held: Mutex<bool>,
    released: Condvar,
    file: File,
    path: PathBuf,
}

/// The lock, held until dropped.
pub(crate) struct WriterGuard<'l>(&'l WriterLock);

impl WriterLock {
    /// Opens (or makes) the lock file in `dir`.
    pub(crate) fn open(dir: &Path) -> Result<WriterLock> {
        let path = dir.join(WRITER_LOCK_FILE);
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|error| RuntimeError::io_at(&path, error))?;
        Ok(WriterLock {
            held: Mutex::new(false),
            released: Condvar::new(),
            file,
            path,
        })
    }

    /// Takes the lock, waiting at most `wait` for its holder (this process's
    /// or another's) to let go; E0540 past that.
    pub(crate) fn acquire(&self, wait: Duration) -> Result<WriterGuard<'_>> {
        let deadline = Instant::now() + wait;
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        while *held {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(busy(self.dir(), wait));
            }
            held = self
                .released
                .wait_timeout(held, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        *held = true;
        drop(held);
        let guard = WriterGuard(self);
        // Another process may hold the file's lock: poll, backing off from
        // 50 µs to 2 ms (flock has no timed wait).
        let mut pause = Duration::from_micros(50);
        loop {
            match self.file.try_lock() {
                Ok(()) => return Ok(guard),
                Err(std::fs::TryLockError::WouldBlock) => {}
                Err(std::fs::TryLockError::Error(error)) => {
                    return Err(RuntimeError::io_at(&self.path, error))
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(busy(self.dir(), wait));
            }
            std::thread::sleep(pause.min(left));
            pause = (pause * 2).min(Duration::from_millis(2));
        }
    }

    fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(&self.path)
    }
}

impl Drop for WriterGuard<'_> {
    fn drop(&mut self) {
        // Unlocking fails only on a bad descriptor; the kernel lets go at
        // exit in any case.
        let _ = self.0.file.unlock();
        *self.0.held.lock().unwrap_or_else(|p| p.into_inner()) = false;
        self.0.released.notify_one();
    }
}

/// E0540: another writer held the database for longer than the caller waits.
pub fn busy(dir: &Path, wait: Duration) -> RuntimeError {
    RuntimeError::new(
        crate::error::BUSY,
        format!(
            "the database `{}` is busy: another writer held it for {} and this one stopped waiting",
            dir.display(),
            crate::error::seconds(wait)
        ),
        "nothing was written; run it again when the other writer is done, or wait longer with `--wait 30s` (`OpenOptions::wait` in the library)",
    )
}

/// Runs `open` again while it reports the database held by another
/// process (`Ok(None)`), for at most `wait`; then E0540.
pub fn waiting<T>(
    dir: &Path,
    wait: Duration,
    mut open: impl FnMut() -> Result<Option<T>>,
) -> Result<T> {
    let deadline = Instant::now() + wait;
    loop {
        if let Some(opened) = open()? {
            return Ok(opened);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(busy(dir, wait));
        }
        std::thread::sleep(left.min(Duration::from_millis(20)));
    }
}
