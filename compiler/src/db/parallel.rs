//! Warming tracked queries over the machine's cores: each thread asks a
//! share of the keys on its own handle of the database, so that what the
//! caller then asks in order is already computed.
//!
//! salsa lets clones of a database compute queries at the same time (a
//! query asked on two threads is computed once, the other waits for it).
//! Every clone is dropped before this returns, so an edit after it (which
//! waits for all other handles to go) never blocks.

use super::Database;

/// How many threads warm the queries: `RQC_THREADS` if it is a whole
/// number from 1 to [`MAX_THREADS`] (`1` computes everything on the caller's thread, as
/// the queries would be asked anyway), else the cores the process may use.
/// A library cannot report a malformed setting; the `rqc` command refuses
/// one before it compiles (E0601, [`threads_setting`]).
pub(super) fn threads() -> usize {
    match threads_setting() {
        Some(Ok(n)) => n,
        _ => std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS)),
    }
}

/// `RQC_THREADS` read: `None` when unset, else the number (1 to
/// [`MAX_THREADS`]) or the text that is not one.
pub fn threads_setting() -> Option<Result<usize, String>> {
    let value = std::env::var_os("RQC_THREADS")?;
    let text = value.to_string_lossy().into_owned();
    Some(match text.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(text),
    })
}

/// The most threads a check starts: each has a deep stack
/// ([`crate::stack::STACK_SIZE`]), and past the cores more threads only
/// reserve memory.
pub const MAX_THREADS: usize = 64;

/// Runs `work` on every item, the items split into as many contiguous
/// runs as there are threads (neighbours often depend on each other:
/// a query on the helper defined just before it): the first run on this
/// thread, each other on a thread of its own with a deep stack (the
/// checks recurse, see [`crate::stack`]). With one thread it does nothing:
/// the caller's own requests compute the same queries in order.
pub(super) fn warm<T: Sync>(db: &Database, items: &[T], work: impl Fn(&Database, &T) + Sync) {
    let threads = threads().min(items.len() / MIN_ITEMS_PER_THREAD);
    if threads < 2 {
        return;
    }
    let run = items.len().div_ceil(threads);
    let work = &work;
    std::thread::scope(|scope| {
        let mut runs = items.chunks(run);
        let own = runs.next().unwrap_or_default();
        let handles: Vec<_> = runs
            .map(|run| {
                let db = db.clone();
                std::thread::Builder::new()
                    .name("rqc-check".into())
                    .stack_size(crate::stack::STACK_SIZE)
                    .spawn_scoped(scope, move || run.iter().for_each(|item| work(&db, item)))
                    .expect("the system gives a thread its stack")
            })
            .collect();
        own.iter().for_each(|item| work(db, item));
        for handle in handles {
            handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
    });
}

/// Below this many items a run's work does not repay a thread's start.
const MIN_ITEMS_PER_THREAD: usize = 64;

/// Computes a query that reads thousands of others (the layout of every
/// piece, the keys or calls of every definition) on a handle of its own,
/// dropped after: its result is kept in the shared storage all the same.
/// Each handle keeps a stack of active queries whose tables salsa reuses
/// and never shrinks, and clears whole on every completion: a query that
/// read every definition would leave its depth's table that large, and
/// each later query at that depth would clear it again (cleared bytes grew
/// with definitions × definitions: 8% of a 5,000-line cold check).
pub(super) fn aside(db: &Database, query: impl FnOnce(&Database)) {
    query(&db.clone());
}
