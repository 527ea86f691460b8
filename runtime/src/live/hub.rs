//! The live registry of one database and its watcher thread: each commit's changelog entry is matched against the subscriptions' read ranges, and only the touched ones are evaluated again.

use super::changelog;
use super::events::{change, Event, Queue};
use super::index::{Index, SubId};
use super::query::{Query, Recompile};
use super::ranges::{merge, KeyRange};
use crate::engine::{evaluate, Installed};
use crate::error::Result;
use crate::session::Session;
use crate::store::{Bell, Store, Tree};
use imbl::OrdMap;
use rqc_plan::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the watcher looks at the changelog's head for commits of
/// other processes (a commit of this process wakes it at once).
pub const POLL: Duration = Duration::from_millis(10);

/// How often the watcher looks when the store rings it for every commit
/// (etcd's watch, see [`Store::ring_on_write`]): only a backstop, so that
/// a watch that stalls without breaking delays events by at most this.
pub const POLL_RUNG: Duration = Duration::from_secs(1);

/// The watcher's flag, and whether it waits for it.
#[derive(Default)]
struct Flag {
    raised: bool,
    waiting: bool,
}

/// A flag a committing writer raises to wake the watcher, and whether
/// the watcher is stopped (the database closes).
#[derive(Default)]
pub struct Wake {
    raised: Mutex<Flag>,
    cond: Condvar,
    stopped: AtomicBool,
    /// Rings by the store's watch.
    rung: AtomicU64,
}

impl super::changelog::AfterCommit for Wake {
    fn committed(&self) {
        self.notify();
    }
}

impl Bell for Wake {
    fn ring(&self) {
        self.rung.fetch_add(1, Ordering::Relaxed);
        self.notify();
    }

    fn wanted(&self) -> bool {
        !self.stopped()
    }
}

impl Wake {
    pub(crate) fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    /// Raises the flag; wakes the watcher when it waits (a commit without
    /// a watcher waiting makes no system call here).
    pub fn notify(&self) {
        let mut flag = self.raised.lock().unwrap_or_else(|p| p.into_inner());
        flag.raised = true;
        if flag.waiting {
            self.cond.notify_all();
        }
    }

    /// Waits until raised or `timeout`, and lowers the flag.
    fn wait(&self, timeout: Duration) {
        let mut flag = self.raised.lock().unwrap_or_else(|p| p.into_inner());
        if !flag.raised {
            flag.waiting = true;
            flag = self
                .cond
                .wait_timeout(flag, timeout)
                .unwrap_or_else(|p| p.into_inner())
                .0;
            flag.waiting = false;
        }
        flag.raised = false;
    }
}

pub(crate) struct Sub {
    id: SubId,
    /// Replaced when an install plans it again (`query::replan`).
    query: Mutex<Arc<Query>>,
    /// The watched expression's text, compiled again at an install.
    pub(super) recompile: Option<Arc<Recompile>>,
    /// The result subscribers were last told of, and its position.
    last: Mutex<(Value, u64)>,
    pub queue: Queue,
}

impl Sub {
    pub(super) fn query(&self) -> Arc<Query> {
        Arc::clone(&self.query.lock().unwrap_or_else(|p| p.into_inner()))
    }

    pub(super) fn set_query(&self, query: Arc<Query>) {
        *self.query.lock().unwrap_or_else(|p| p.into_inner()) = query;
    }

    /// Tells the subscriber of the whole `value` at `position`, changed or
    /// not: its query was planned again under another program.
    pub(super) fn deliver_whole(&self, position: u64, value: Value) {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        let event = Event::Result {
            position,
            value: value.clone(),
        };
        self.queue.push(event, &value);
        *last = (value, position);
    }

    /// Ends the subscription with `error` at `position`: its last event.
    pub(super) fn end(&self, position: u64, error: crate::error::RuntimeError) {
        self.last.lock().unwrap_or_else(|p| p.into_inner()).1 = position;
        self.queue.finish(Event::Failed { position, error });
    }

    /// Tells the subscriber of `value` (at `position`) if it changed.
    pub(super) fn deliver(&self, position: u64, value: Value) {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(event) = change(&last.0, &value, position) {
            self.queue.push(event, &value);
            last.0 = value;
        }
        last.1 = position;
    }

    pub(super) fn at(&self) -> u64 {
        self.last.lock().unwrap_or_else(|p| p.into_inner()).1
    }

    /// Tells the subscriber that evaluating its query again at `position`
    /// failed; it goes on listening.
    pub(super) fn failed(&self, position: u64, error: crate::error::RuntimeError) {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        last.1 = position;
        let whole = last.0.clone();
        self.queue.push(Event::Failed { position, error }, &whole);
    }
}

#[derive(Default)]
pub(super) struct Registry {
    pub index: Index,
    pub subs: OrdMap<SubId, Arc<Sub>>,
    /// The ranges each subscription is indexed under.
    pub ranges: HashMap<SubId, Vec<KeyRange>>,
    /// Subscribed since the watcher's last look: evaluated again if a
    /// commit came after their first evaluation.
    pub dirty: Vec<SubId>,
    /// The last commit the watcher has matched (`None` before its first look).
    pub position: Option<u64>,
    /// The program installed at `position`: every subscription the watcher
    /// evaluates runs a plan of it (spec/live.md, "Across installs").
    pub program: Option<Arc<Installed>>,
}

impl Registry {
    /// Forgets subscription `id` and the ranges it is indexed under.
    pub fn forget(&mut self, id: SubId) {
        if self.subs.remove(&id).is_none() {
            return;
        }
        for range in self.ranges.remove(&id).unwrap_or_default() {
            self.index.remove(&range, id);
        }
    }
}

/// The live subscriptions of one database.
pub struct Hub {
    pub(super) store: Arc<dyn Store>,
    pub(super) log: Tree,
    /// The changelog's layout (see [`changelog::compact`]).
    pub(super) compact: bool,
    registry: Mutex<Registry>,
    pub(super) caught_up: Condvar,
    pub(crate) wake: Arc<Wake>,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// The database's directory, when it has one: a thread woken by
    /// writes to its files wakes the watcher (see `wakeup`; it holds only
    /// the flag, and ends by itself once the watcher is stopped).
    dir: Option<PathBuf>,
    /// Why the watcher stopped, when it failed: a later subscription is
    /// told at once rather than waiting for events that cannot come.
    failed: Mutex<Option<crate::error::RuntimeError>>,
    /// Whether the store rings the watcher for every commit (then it
    /// looks on its own only every [`POLL_RUNG`]).
    rung: AtomicBool,
    next_id: AtomicU64,
    /// The program this process installed or opened last: the watcher
    /// plans subscriptions under it, rather than reading it again, when the
    /// catalog holds it.
    known: Mutex<Option<Arc<Installed>>>,
    /// Evaluations by the watcher, for the upkeep's test and benchmark.
    pub(super) evaluations: AtomicU64,
    /// Looks that found new commits, and the time they took.
    pub(super) rounds: AtomicU64,
    pub(super) busy_nanos: AtomicU64,
}

/// What the registry holds, and what the watcher did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveStats {
    /// Subscriptions open now.
    pub subscriptions: usize,
    /// Boundaries in the index of read ranges.
    pub boundaries: usize,
    /// Subscriptions the watcher evaluated again, since the database opened.
    pub evaluations: u64,
    /// The watcher's looks that found new commits, and the time they took
    /// (matching, evaluating, queueing and re-indexing): the upkeep.
    pub rounds: u64,
    /// The time those rounds took.
    pub busy: Duration,
    /// Rings by the store's watch of the changelog (etcd's), when it has one.
    pub rings: u64,
}

/// What one evaluation gave: the result, its position, the ranges read.
pub(crate) struct Evaluated {
    pub value: Value,
    pub position: u64,
    pub ranges: Vec<KeyRange>,
}

impl Hub {
    pub fn new(store: Arc<dyn Store>, dir: Option<&Path>) -> Hub {
        let log = store.tree(changelog::LOG_TREE);
        Hub {
            compact: changelog::compact(store.as_ref()),
            store,
            log,
            registry: Mutex::default(),
            caught_up: Condvar::new(),
            wake: Arc::default(),
            thread: Mutex::new(None),
            dir: dir.map(Path::to_path_buf),
            failed: Mutex::new(None),
            rung: AtomicBool::new(false),
            next_id: AtomicU64::new(1),
            known: Mutex::new(None),
            evaluations: AtomicU64::new(0),
            rounds: AtomicU64::new(0),
            busy_nanos: AtomicU64::new(0),
        }
    }

    pub fn log_tree(&self) -> Tree {
        self.log
    }

    /// The changelog's layout on this store (see [`changelog::compact`]).
    pub fn compact_log(&self) -> bool {
        self.compact
    }

    /// This process installed `program`: the watcher plans every
    /// subscription again under it once it reads the install's entry.
    pub(crate) fn installed(&self, program: &Arc<Installed>) {
        *self.known.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::clone(program));
        self.wake.notify();
    }

    /// The program this process installed last, if any.
    pub(crate) fn known(&self) -> Option<Arc<Installed>> {
        self.known.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The last commit's position in the store.
    pub fn head(&self) -> Result<u64> {
        changelog::head(self.store.begin_read()?.as_ref(), self.log, self.compact)
    }

    /// Evaluates `query` in `session`, recording what it read.
    pub(crate) fn evaluate<'s>(
        &self,
        query: &Query,
        mut session: Session<'s>,
    ) -> Result<(Evaluated, Session<'s>)> {
        let position = changelog::head(session.reads(), self.log, self.compact)?;
        session.meter.seeks = 0;
        session.meter.rows = 0;
        session.live.record_reads();
        let (entry, accesses) = query.entry();
        let (output, mut session) = evaluate(
            &query.installed.bound,
            accesses,
            entry,
            &query.args,
            session,
            false,
        )?;
        let ranges = merge(session.live.take_reads());
        let evaluated = Evaluated {
            value: output.value,
            position,
            ranges,
        };
        Ok((evaluated, session))
    }

    /// Registers a query first evaluated as `first`; its events go to the
    /// returned subscription's queue, starting with `opening`.
    pub(crate) fn register(
        self: &Arc<Self>,
        query: Query,
        recompile: Option<Arc<Recompile>>,
        first: Evaluated,
        opening: Option<Event>,
        capacity: usize,
    ) -> Arc<Sub> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let sub = Arc::new(Sub {
            id,
            query: Mutex::new(Arc::new(query)),
            recompile,
            last: Mutex::new((first.value.clone(), first.position)),
            queue: Queue::new(capacity),
        });
        if let Some(event) = opening {
            sub.queue.push(event, &first.value);
        }
        {
            let mut registry = self.lock();
            for range in &first.ranges {
                registry.index.insert(range, id);
            }
            registry.ranges.insert(id, first.ranges);
            registry.subs.insert(id, Arc::clone(&sub));
            registry.dirty.push(id);
        }
        let failed = self
            .failed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if let Some(error) = failed {
            let position = sub.at();
            sub.queue.finish(Event::Failed { position, error });
        }
        self.start();
        self.wake.notify();
        sub
    }

    /// Forgets the subscription `sub` (its handle was dropped).
    pub(crate) fn unregister(&self, sub: &Arc<Sub>) {
        self.lock().forget(sub.id);
    }

    pub fn stats(&self) -> LiveStats {
        let registry = self.lock();
        LiveStats {
            subscriptions: registry.subs.len(),
            boundaries: registry.index.len(),
            evaluations: self.evaluations.load(Ordering::Relaxed),
            rounds: self.rounds.load(Ordering::Relaxed),
            busy: Duration::from_nanos(self.busy_nanos.load(Ordering::Relaxed)),
            rings: self.wake.rung.load(Ordering::Relaxed),
        }
    }

    /// Waits until the watcher has matched every commit up to `position`;
    /// false at `timeout`.
    pub fn wait_for(&self, position: u64, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut registry = self.lock();
        loop {
            if registry.position.is_some_and(|p| p >= position) && registry.dirty.is_empty() {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            self.wake.notify();
            registry = self
                .caught_up
                .wait_timeout(registry, left.min(POLL))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    fn start(self: &Arc<Self>) {
        let mut thread = self.thread.lock().unwrap_or_else(|p| p.into_inner());
        if thread.is_some() || self.wake.stopped() {
            return;
        }
        let hub = Arc::clone(self);
        *thread = Some(std::thread::spawn(move || {
            // However the watcher ends (stopped, failed, or a panic), no
            // more events come: every subscriber's queue is closed.
            let _closing = Closing(&hub);
            hub.watch()
        }));
        if let Some(dir) = &self.dir {
            super::wakeup::spawn(dir, Arc::downgrade(&self.wake));
        }
        // Armed after the watcher started: its first ring (on arming)
        // makes the watcher look once more, so no commit falls between.
        let bell: Arc<dyn Bell> = Arc::clone(&self.wake) as Arc<dyn Bell>;
        if self.store.ring_on_write(self.log, changelog::HEAD, bell) {
            self.rung.store(true, Ordering::Release);
        }
    }

    /// Stops the watcher and closes every subscription (the database closes).
    pub fn shutdown(&self) {
        self.wake.stopped.store(true, Ordering::Release);
        self.wake.notify();
        let thread = self.thread.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(thread) = thread {
            let _ = thread.join();
        }
        for (_, sub) in self.lock().subs.iter() {
            sub.queue.close();
        }
    }

    fn watch(&self) {
        while !self.wake.stopped() {
            if let Err(error) = self.round() {
                if error.is_conflict() {
                    continue;
                }
                // Nothing more can be matched: every subscriber is told
                // why, and no event is silently missed after it.
                *self.failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(error.clone());
                let registry = self.lock();
                for (_, sub) in registry.subs.iter() {
                    let position = sub.at();
                    sub.queue.finish(Event::Failed {
                        position,
                        error: error.clone(),
                    });
                }
                return;
            }
            // With nothing subscribed there is nothing to look for: sleep
            // until a subscription (or the database closing) wakes it.
            let idle = self.lock().subs.is_empty();
            self.wake.wait(if idle {
                Duration::from_secs(3600)
            } else if self.rung.load(Ordering::Acquire) {
                POLL_RUNG
            } else {
                POLL
            });
        }
    }
}

/// Closes every subscription's queue when the watcher thread ends.
struct Closing<'h>(&'h Hub);

impl Drop for Closing<'_> {
    fn drop(&mut self) {
        for (_, sub) in self.0.lock().subs.iter() {
            sub.queue.close();
        }
    }
}
