//! The live registry of one database and its watcher thread: each commit's changelog entry is matched against the subscriptions' read ranges, and only the touched ones are evaluated again.

use super::changelog::{self, KEEP};
use super::events::{change, Event, Queue};
use super::index::{Index, SubId};
use super::ranges::{merge, KeyRange};
use crate::bound::Access;
use crate::engine::{evaluate, Installed};
use crate::error::Result;
use crate::session::Session;
use crate::store::{Bell, Store, Tree};
use imbl::OrdMap;
use rqc_plan::{Entry, Value};
use std::collections::{BTreeSet, HashMap};
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

/// A query as one subscription runs it, again and again.
pub(crate) struct Query {
    pub installed: Arc<Installed>,
    pub plan: Plan,
    pub args: Vec<Value>,
}

/// The entry point a subscription runs: one of the installed program's,
/// shared (many subscriptions to one query hold no copy of its plan), or
/// one given beside it (the REPL's expressions).
pub(crate) enum Plan {
    Installed(usize),
    Given(Box<(Entry, Vec<Access>)>),
}

impl Query {
    fn entry(&self) -> (&Entry, &[Access]) {
        match &self.plan {
            Plan::Installed(i) => (
                &self.installed.program.entries[*i],
                &self.installed.accesses[*i],
            ),
            Plan::Given(given) => (&given.0, &given.1),
        }
    }
}

pub(crate) struct Sub {
    id: SubId,
    query: Query,
    /// The result subscribers were last told of, and its position.
    last: Mutex<(Value, u64)>,
    pub queue: Queue,
}

impl Sub {
    /// Tells the subscriber of `value` (at `position`) if it changed.
    fn deliver(&self, position: u64, value: Value) {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(event) = change(&last.0, &value, position) {
            self.queue.push(event, &value);
            last.0 = value;
        }
        last.1 = position;
    }

    fn at(&self) -> u64 {
        self.last.lock().unwrap_or_else(|p| p.into_inner()).1
    }
}

#[derive(Default)]
struct Registry {
    index: Index,
    subs: OrdMap<SubId, Arc<Sub>>,
    /// The ranges each subscription is indexed under.
    ranges: HashMap<SubId, Vec<KeyRange>>,
    /// Subscribed since the watcher's last look: evaluated again if a
    /// commit came after their first evaluation.
    dirty: Vec<SubId>,
    /// The last commit the watcher has matched (`None` before its first look).
    position: Option<u64>,
}

/// The live subscriptions of one database.
pub struct Hub {
    store: Arc<dyn Store>,
    log: Tree,
    /// The changelog's layout (see [`changelog::compact`]).
    compact: bool,
    registry: Mutex<Registry>,
    caught_up: Condvar,
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
    /// Evaluations by the watcher, for the upkeep's test and benchmark.
    evaluations: AtomicU64,
    /// Looks that found new commits, and the time they took.
    rounds: AtomicU64,
    busy_nanos: AtomicU64,
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

    fn lock(&self) -> MutexGuard<'_, Registry> {
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
        session.seeks = 0;
        session.rows = 0;
        session.read_set = Some(Vec::new());
        let (entry, accesses) = query.entry();
        let (output, mut session) = evaluate(
            &query.installed.bound,
            accesses,
            entry,
            &query.args,
            session,
            false,
        )?;
        let ranges = merge(session.read_set.take().unwrap_or_default());
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
        first: Evaluated,
        opening: Option<Event>,
        capacity: usize,
    ) -> Arc<Sub> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let sub = Arc::new(Sub {
            id,
            query,
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
        let mut registry = self.lock();
        let id = sub.id;
        if registry.subs.remove(&id).is_none() {
            return;
        }
        for range in registry.ranges.remove(&id).unwrap_or_default() {
            registry.index.remove(&range, id);
        }
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

    /// One look at the changelog: the commits since the last look, matched
    /// against a snapshot of the index, and the touched subscriptions
    /// evaluated again at the head.
    fn round(&self) -> Result<()> {
        let (index, subs, dirty, from) = {
            let mut registry = self.lock();
            let dirty = std::mem::take(&mut registry.dirty);
            let snapshot = (registry.index.clone(), registry.subs.clone());
            (snapshot.0, snapshot.1, dirty, registry.position)
        };
        let result = self.match_and_evaluate(&index, &subs, &dirty, from);
        if result.is_err() {
            self.lock().dirty.extend(dirty);
        }
        result
    }

    fn match_and_evaluate(
        &self,
        index: &Index,
        subs: &OrdMap<SubId, Arc<Sub>>,
        dirty: &[SubId],
        from: Option<u64>,
    ) -> Result<()> {
        let started = Instant::now();
        let mut session = Session::read(self.store.as_ref())?;
        let head = changelog::head(session.reads(), self.log, self.compact)?;
        let from = from.unwrap_or(head);
        let mut touched = BTreeSet::new();
        let everything = head < from
            || (head > from && !self.matched(&session, index, from, head, &mut touched)?);
        if everything {
            touched.extend(subs.keys().copied());
        }
        touched.extend(
            dirty
                .iter()
                .filter(|id| subs.get(*id).is_some_and(|s| s.at() < head)),
        );
        let mut updates = Vec::new();
        for id in touched {
            let Some(sub) = subs.get(&id) else { continue };
            self.evaluations.fetch_add(1, Ordering::Relaxed);
            match self.evaluate(&sub.query, session) {
                Ok((evaluated, next)) => {
                    session = next;
                    sub.deliver(evaluated.position, evaluated.value);
                    updates.push((id, evaluated.ranges));
                }
                Err(error) if error.is_conflict() || error.is_store_failure() => return Err(error),
                Err(error) => {
                    session = Session::read(self.store.as_ref())?;
                    let position = changelog::head(session.reads(), self.log, self.compact)?;
                    let mut last = sub.last.lock().unwrap_or_else(|p| p.into_inner());
                    last.1 = position;
                    let whole = last.0.clone();
                    sub.queue.push(Event::Failed { position, error }, &whole);
                }
            }
        }
        let mut registry = self.lock();
        for (id, ranges) in updates {
            if !registry.subs.contains_key(&id) {
                continue;
            }
            let old = registry
                .ranges
                .insert(id, ranges.clone())
                .unwrap_or_default();
            if old != ranges {
                for range in &old {
                    registry.index.remove(range, id);
                }
                for range in &ranges {
                    registry.index.insert(range, id);
                }
            }
        }
        registry.position = Some(registry.position.map_or(head, |p| p.max(head)));
        if head != from {
            self.rounds.fetch_add(1, Ordering::Relaxed);
            let nanos = started.elapsed().as_nanos() as u64;
            self.busy_nanos.fetch_add(nanos, Ordering::Relaxed);
        }
        self.caught_up.notify_all();
        Ok(())
    }

    /// Adds the subscriptions touched by commits `from + 1 ..= head`;
    /// false when some entry is trimmed away (then every one is touched).
    fn matched(
        &self,
        session: &Session<'_>,
        index: &Index,
        from: u64,
        head: u64,
        touched: &mut BTreeSet<SubId>,
    ) -> Result<bool> {
        if head - from > KEEP {
            return Ok(false);
        }
        let Some(entries) = changelog::entries(session.reads(), self.log, from, head)? else {
            return Ok(false);
        };
        for changes in entries {
            for change in changes {
                let tree = self.store.tree(&change.tree);
                for written in &change.written {
                    index.matching(tree, written, touched);
                }
            }
        }
        Ok(true)
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
