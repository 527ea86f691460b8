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

/// Runs `work` on every item over the threads: each takes the next
/// [`BATCH`] items not yet taken, in order, until none are left, so that a
/// thread whose items were cheap takes more (neighbours often depend on
/// each other, a query on the helper defined just before it, and a batch
/// keeps them together). This thread takes part; each other thread has a
/// deep stack (the checks recurse, see [`crate::stack`]). With one thread
/// it does nothing: the caller's own requests compute the same queries in
/// order.
pub(super) fn warm<T: Sync>(db: &Database, items: &[T], work: impl Fn(&Database, &T) + Sync) {
    let threads = threads_for(items);
    if threads >= 2 {
        share(db, items, threads, work);
    }
}

/// [`warm`], each item's result kept: the results in the items' order,
/// built on the threads that computed them, so that the caller only
/// assembles them. With one thread, the caller maps the items in order.
pub(super) fn map<T: Sync, R: Send>(
    db: &Database,
    items: &[T],
    work: impl Fn(&Database, &T) -> R + Sync,
) -> Vec<R> {
    let threads = threads_for(items);
    if threads < 2 {
        return items.iter().map(|item| work(db, item)).collect();
    }
    let mut batches = share(db, items, threads, work);
    batches.sort_unstable_by_key(|(start, _)| *start);
    let mut results = Vec::with_capacity(items.len());
    for (_, batch) in batches {
        results.extend(batch);
    }
    results
}

/// The threads a run over `items` uses: past one only when each has
/// enough items to repay its start.
fn threads_for<T>(items: &[T]) -> usize {
    threads().min(items.len() / MIN_ITEMS_PER_THREAD)
}

/// The batches of results, each with the index of its first item, in the
/// order the threads finished them.
fn share<T: Sync, R: Send>(
    db: &Database,
    items: &[T],
    threads: usize,
    work: impl Fn(&Database, &T) -> R + Sync,
) -> Vec<(usize, Vec<R>)> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let take = |db: &Database| {
        let mut done = Vec::new();
        loop {
            let start = next.fetch_add(BATCH, std::sync::atomic::Ordering::Relaxed);
            let Some(batch) = items.get(start..(start + BATCH).min(items.len())) else {
                return done;
            };
            done.push((
                start,
                batch.iter().map(|item| work(db, item)).collect::<Vec<R>>(),
            ));
        }
    };
    let take = &take;
    std::thread::scope(|scope| {
        // A thread the system will not make (address space limited,
        // `ulimit -v`) leaves its batches to the others and to this one,
        // each on a stack as deep: fewer threads, the same check.
        let handles: Vec<_> = (1..threads)
            .map_while(|_| {
                let db = db.clone();
                std::thread::Builder::new()
                    .name("rqc-check".into())
                    .stack_size(crate::stack::STACK_SIZE)
                    .spawn_scoped(scope, move || take(&db))
                    .ok()
            })
            .collect();
        let mut batches = take(db);
        for handle in handles {
            batches.extend(
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        batches
    })
}

/// How many items a thread takes at a time: enough that taking costs
/// nothing beside them, few enough that the threads end together.
const BATCH: usize = 16;

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
