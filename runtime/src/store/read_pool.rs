//! Read transactions of an LMDB store kept between runs: a slot per reading thread, held for the whole read, ended by a reaper once idle.
//!
//! Opening a read transaction costs LMDB an allocation sized by the number
//! of trees and a slot in the reader table, which a point read would
//! otherwise pay every run. A kept transaction holds its snapshot, so that
//! writers cannot reuse the pages later commits free: a reaper thread ends
//! every transaction kept unused longer than [`KEPT_FOR`], so an idle
//! process pins nothing for longer than that.
//!
//! Each reading thread has a slot of its own (threads past [`SLOTS`] share
//! them): a read locks its thread's slot for as long as it runs, so
//! beginning and ending a read take one uncontended lock. A read finding
//! the slot taken (a read inside another on the same thread, or a thread
//! sharing the slot) reads in a transaction of its own, kept by no one.
//! A kept transaction is read again only while it is of the latest commit
//! (see [`Kept::fresh`]), so a run never sees a state older than a commit
//! it could observe.

use heed::{RoTxn, WithoutTls};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::Duration;

/// How long a read transaction is kept unused.
const KEPT_FOR: Duration = Duration::from_millis(20);

/// The slots: the most read transactions kept (one per thread reading at
/// once).
const SLOTS: usize = 16;

/// A transaction kept in a slot.
pub(super) struct Kept {
    pub(super) txn: RoTxn<'static, WithoutTls>,
    /// The reaper's tick when its last read ended: ended a full tick later.
    tick: u64,
}

impl Kept {
    pub(super) fn new(txn: RoTxn<'static, WithoutTls>) -> Kept {
        Kept { txn, tick: 0 }
    }

    /// Whether a run may read in it: it is of the latest commit (`latest`).
    pub(super) fn fresh(&self, latest: usize) -> bool {
        self.txn.id() == latest
    }
}

/// A thread's slot, locked for one read.
pub(super) type Slot<'p> = MutexGuard<'p, Option<Kept>>;

#[derive(Default)]
pub(super) struct ReadPool {
    slots: Arc<[Mutex<Option<Kept>>; SLOTS]>,
    /// Ticks of the reaper, so that ending a read reads no clock.
    ticks: Arc<AtomicU64>,
    /// Whether the reaper thread runs (without it, nothing is kept).
    reaper: OnceLock<bool>,
}

/// Each thread's slot number, given out in turn.
static NEXT_SLOT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static THREAD_SLOT: usize = NEXT_SLOT.fetch_add(1, Ordering::Relaxed) % SLOTS;
}

impl ReadPool {
    /// This thread's slot, locked until the read ends; `None` when it is
    /// taken (the read then keeps its transaction to itself) or when no
    /// reaper runs.
    pub(super) fn slot(&self) -> Option<Slot<'_>> {
        if !self.reaping() {
            return None;
        }
        // None in a thread's last moments (its thread-locals being freed).
        let slot = &self.slots[THREAD_SLOT.try_with(|s| *s).ok()?];
        match slot.try_lock() {
            Ok(slot) => Some(slot),
            Err(TryLockError::WouldBlock) => None,
            // A read panicked holding it: its transaction is ended.
            Err(TryLockError::Poisoned(poisoned)) => {
                let mut slot = poisoned.into_inner();
                *slot = None;
                Some(slot)
            }
        }
    }

    /// Ends a read in `slot`: its transaction is kept from now on (for at
    /// most two ticks of the reaper, unless read again).
    pub(super) fn release(&self, slot: &mut Slot<'_>) {
        if let Some(kept) = slot.as_mut() {
            kept.tick = self.ticks.load(Ordering::Relaxed);
        }
    }

    /// Starts the reaper on first use; whether it runs.
    fn reaping(&self) -> bool {
        *self.reaper.get_or_init(|| {
            let slots = Arc::downgrade(&self.slots);
            let ticks = Arc::clone(&self.ticks);
            std::thread::Builder::new()
                .name("rqc-lmdb-reaper".into())
                .spawn(move || loop {
                    std::thread::sleep(KEPT_FOR / 2);
                    let Some(slots) = slots.upgrade() else { return };
                    let now = ticks.fetch_add(1, Ordering::Relaxed) + 1;
                    for slot in slots.iter() {
                        // A slot being read is in use, not idle.
                        let mut slot = match slot.try_lock() {
                            Ok(slot) => slot,
                            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
                            Err(TryLockError::WouldBlock) => continue,
                        };
                        if slot.as_ref().is_some_and(|k| k.tick + 1 < now) {
                            *slot = None;
                        }
                    }
                })
                .is_ok()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use heed::EnvOpenOptions;

    fn env(dir: &std::path::Path) -> heed::Env<WithoutTls> {
        let mut options = EnvOpenOptions::new().read_txn_without_tls();
        options.map_size(1 << 24);
        // SAFETY: opened once, by this test only.
        unsafe { options.open(dir) }.unwrap()
    }

    fn kept(pool: &ReadPool) -> usize {
        pool.slots
            .iter()
            .filter(|s| s.lock().unwrap().is_some())
            .count()
    }

    #[test]
    fn a_kept_transaction_is_ended_once_idle_and_kept_while_read() {
        let dir = tempfile::tempdir().unwrap();
        let env = env(dir.path());
        let pool = ReadPool::default();
        let mut slot = pool.slot().expect("the reaper runs and the slot is free");
        *slot = Some(Kept::new(env.clone().static_read_txn().unwrap()));
        // Taken while read: a second read on this thread reads alone.
        assert!(pool.slot().is_none());
        // Not ended while a read holds it, however long.
        std::thread::sleep(KEPT_FOR * 3);
        assert!(slot.is_some());
        pool.release(&mut slot);
        drop(slot);
        let until = std::time::Instant::now() + Duration::from_secs(5);
        while kept(&pool) > 0 {
            assert!(std::time::Instant::now() < until, "still kept");
            std::thread::sleep(KEPT_FOR / 4);
        }
    }
}
