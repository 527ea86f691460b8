//! Group commit: mutations that wait for the writer at once share one write transaction and one sync; each runs in turn, alone, and is acknowledged only after the shared commit.
//!
//! A thread with a mutation to run queues it. The first one to find no
//! leader leads: it begins the write transaction, runs every queued
//! mutation in turn (its own first, then those that queue meanwhile, up
//! to [`MOST`]), commits once, and hands each waiting thread its outcome.
//! The first mutation of a group writes straight into the transaction; a
//! failure there aborts it and the leader begins another for the rest.
//! Each later one writes through its own buffer ([`Buffered`]) that joins
//! the transaction only when the mutation succeeds, so a failing mutation
//! stores nothing and the others still commit. Each runs after the ones
//! before it, seeing their writes: the group is the serial order in which
//! the mutations ran, and none is acknowledged before the commit that
//! holds it is done (and synced, when the store syncs every commit).
//!
//! A leader leads one group, then steps down: its own caller goes on to
//! its next mutation and queues it, and a waiting thread leads the next
//! group. A group waits for as many mutations as the last one held
//! (those callers come back), for at most half the last commit's time
//! ([`Gathering`]): so eight writers share one sync rather than seven and
//! then a lone straggler, and a lone writer never waits.
//!
//! The mutations run on the leader's thread, as LMDB wants a write
//! transaction used by the thread that began it. A queued mutation is
//! owned data (a [`Group`]'s call type: for the engine, the entry point
//! and its arguments), run by the leader's own [`Runs`]: every caller of
//! one group runs the same way (the engine the group belongs to), so no
//! thread ever calls into another's borrowed state.

use crate::engine::Output;
use crate::error::{Result, RuntimeError};
use crate::store::{Buffered, Direct, Store, WriteTxn};
use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Most mutations in one group: a commit stays a bounded transaction.
pub(crate) const MOST: usize = 64;

/// How the leader runs a queued call, in a write transaction it is given
/// (which the run commits when it succeeds: for a grouped one, into the
/// group's).
pub(crate) trait Runs<C> {
    fn run(&self, call: &mut C, txn: Box<dyn WriteTxn + '_>) -> Result<Output>;
}

/// A queued mutation: its call, owned until the leader has run it.
struct Queued<C> {
    id: u64,
    call: C,
}

type Outcome = std::thread::Result<Result<Output>>;

struct State<C> {
    queue: VecDeque<Queued<C>>,
    done: HashMap<u64, Outcome>,
    /// Mutations the leader took and has not handed an outcome yet.
    taken: Vec<u64>,
    leading: bool,
    next: u64,
    /// Threads waiting on `turn` (woken only when some wait).
    sleeping: usize,
    /// Whether the leader waits on `arrived` for more mutations.
    gathering: bool,
    /// What the last group held and took.
    last: Gathering,
}

/// How long a group waits for more mutations: until it holds as many as
/// the last group did (their callers come back with their next ones), for
/// at most half the time the last commit took (a commit saved is worth
/// more than the wait; where commits are cheap, so is the wait).
#[derive(Clone, Copy, Default)]
struct Gathering {
    held: usize,
    commit: Duration,
}

/// The most a group waits for more.
const LONGEST_GATHERING: Duration = Duration::from_millis(5);

impl Gathering {
    fn wait(self, longest: Duration) -> Duration {
        (self.commit / 2).min(longest)
    }
}

/// The group commit of one store, over calls of type `C`.
pub(crate) struct Group<C> {
    state: Mutex<State<C>>,
    /// Raised when outcomes are handed out or the lead is free.
    turn: Condvar,
    /// Raised when a mutation queues while the leader gathers.
    arrived: Condvar,
    /// The most a group waits for more ([`LONGEST_GATHERING`]; tests
    /// lengthen it, so that a wait they assert never times out).
    longest: Duration,
}

impl<C> Default for Group<C> {
    fn default() -> Group<C> {
        Group {
            state: Mutex::new(State {
                queue: VecDeque::new(),
                done: HashMap::new(),
                taken: Vec::new(),
                leading: false,
                next: 0,
                sleeping: 0,
                gathering: false,
                last: Gathering::default(),
            }),
            turn: Condvar::new(),
            arrived: Condvar::new(),
            longest: LONGEST_GATHERING,
        }
    }
}

impl<C> Group<C> {
    fn lock(&self) -> MutexGuard<'_, State<C>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `call` in a commit shared with the mutations other threads run
    /// at the same time; returns once that commit is done. Whichever
    /// caller leads runs every call with its own `runs`: all the callers
    /// of one group must run calls alike.
    pub(crate) fn run(&self, store: &dyn Store, runs: &dyn Runs<C>, call: C) -> Result<Output> {
        let mut state = self.lock();
        let id = state.next;
        state.next += 1;
        state.queue.push_back(Queued { id, call });
        if state.gathering {
            self.arrived.notify_one();
        }
        loop {
            if let Some(outcome) = state.done.remove(&id) {
                drop(state);
                return outcome.unwrap_or_else(|panic| resume_unwind(panic));
            }
            if !state.leading {
                state.leading = true;
                drop(state);
                let led = catch_unwind(AssertUnwindSafe(|| self.lead(store, runs)));
                state = self.lock();
                state.leading = false;
                let sleeping = state.sleeping > 0;
                if led.is_err() {
                    // The group's own code panicked (a mutation's panic
                    // is that mutation's outcome): what it had taken and
                    // not answered stored nothing, and is told so.
                    for taken in std::mem::take(&mut state.taken) {
                        state.done.insert(taken, Ok(Err(group_failed())));
                    }
                }
                if sleeping {
                    self.turn.notify_all();
                }
                continue;
            }
            state.sleeping += 1;
            state = self.turn.wait(state).unwrap_or_else(|p| p.into_inner());
            state.sleeping -= 1;
        }
    }

    /// Takes the queued mutations, up to `room` of them.
    fn take(&self, room: usize) -> Vec<Queued<C>> {
        let mut state = self.lock();
        let n = state.queue.len().min(room);
        let taken: Vec<Queued<C>> = state.queue.drain(..n).collect();
        state.taken.extend(taken.iter().map(|q| q.id));
        taken
    }

    /// Hands out outcomes and wakes their threads.
    fn hand_out(&self, outcomes: Vec<(u64, Outcome)>) {
        if outcomes.is_empty() {
            return;
        }
        let mut state = self.lock();
        state
            .taken
            .retain(|id| !outcomes.iter().any(|(done, _)| done == id));
        state.done.extend(outcomes);
        let sleeping = state.sleeping > 0;
        drop(state);
        if sleeping {
            self.turn.notify_all();
        }
    }

    /// Runs one group, one transaction, when a mutation is queued; then
    /// the leader steps down (its caller may be done, and come back).
    fn lead(&self, store: &dyn Store, runs: &dyn Runs<C>) {
        if let Some(first) = self.take(1).into_iter().next() {
            self.group(store, runs, first);
        }
    }

    /// Waits, until `deadline`, for a mutation to queue: whether one did.
    fn gather(&self, deadline: Instant) -> bool {
        let mut state = self.lock();
        state.gathering = true;
        while state.queue.is_empty() {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            state = self
                .arrived
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        state.gathering = false;
        !state.queue.is_empty()
    }

    /// One group: `first`, then whatever queues while it runs.
    fn group(&self, store: &dyn Store, runs: &dyn Runs<C>, mut first: Queued<C>) {
        // Queued before the wait for the writer began: if that wait fails
        // (E0540, another process held the database), these waited as
        // long, and are told so too rather than wait again.
        let (waited, last) = {
            let state = self.lock();
            (state.queue.len(), state.last)
        };
        let deadline = Instant::now() + last.wait(self.longest);
        let mut txn = match store.begin_write() {
            Ok(txn) => txn,
            Err(error) => {
                let mut told = vec![(first.id, Ok(Err(error.clone())))];
                told.extend(
                    self.take(waited)
                        .into_iter()
                        .map(|q| (q.id, Ok(Err(error.clone())))),
                );
                return self.hand_out(told);
            }
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            runs.run(&mut first.call, Box::new(Direct::new(txn.as_mut())))
        }));
        let mut ran: Vec<(u64, Outcome)> = Vec::new();
        match outcome {
            Ok(Ok(output)) => ran.push((first.id, Ok(Ok(output)))),
            // Its writes may be half in the transaction: dropped with it,
            // and the next mutation starts a group of its own.
            failed => {
                drop(txn);
                return self.hand_out(vec![(first.id, failed)]);
            }
        }
        let mut failed: Vec<(u64, Outcome)> = Vec::new();
        let mut torn = false;
        while !torn && ran.len() + failed.len() < MOST {
            let mut more = self.take(MOST - ran.len() - failed.len());
            if more.is_empty() {
                // Those of the last group not back yet are worth a wait.
                if ran.len() + failed.len() >= last.held || !self.gather(deadline) {
                    break;
                }
                more = self.take(MOST - ran.len() - failed.len());
            }
            let mut more = more.into_iter();
            for mut queued in more.by_ref() {
                let touched = Cell::new(false);
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    let buffered = Buffered::buffering(txn.as_mut(), &touched);
                    runs.run(&mut queued.call, Box::new(buffered))
                }));
                match outcome {
                    Ok(Ok(output)) => ran.push((queued.id, Ok(Ok(output)))),
                    other => {
                        failed.push((queued.id, other));
                        // Failed while its writes went into the
                        // transaction (a key LMDB refuses, a full map):
                        // part of them may be there.
                        if touched.get() {
                            torn = true;
                            break;
                        }
                    }
                }
            }
            // Taken but not run: run again in another group.
            for queued in more {
                failed.push((queued.id, Ok(Err(regroup()))));
            }
        }
        if torn {
            // Nothing of the group is stored; the mutations that had run
            // run again (a conflict: each caller retries its own).
            drop(txn);
            failed.extend(ran.into_iter().map(|(id, _)| (id, Ok(Err(regroup())))));
            return self.hand_out(failed);
        }
        // Failures are told at once: nothing of theirs is in the commit.
        let held = ran.len() + failed.len();
        self.hand_out(failed);
        let began = Instant::now();
        let committed = txn.commit();
        self.lock().last = Gathering {
            held,
            commit: began.elapsed(),
        };
        let outcomes = match committed {
            Ok(()) => ran,
            Err(error) => ran
                .into_iter()
                .map(|(id, _)| (id, Ok(Err(error.clone()))))
                .collect(),
        };
        self.hand_out(outcomes);
    }
}

/// E0578: the group commit itself failed (a bug in rqc), not the mutation.
fn group_failed() -> RuntimeError {
    RuntimeError::new(
        "E0578",
        "the commit this mutation shared with concurrent ones failed inside rqc, and nothing of it was stored",
        "this is a bug in rqc; please report it with the program; running the mutation again is safe",
    )
}

/// A conflict for a mutation whose group was given up because another
/// mutation of it failed halfway into the shared transaction: it is run
/// again (as any conflicting transaction is).
fn regroup() -> RuntimeError {
    RuntimeError::conflict(
        "another mutation of the same group commit failed while its writes went into the shared transaction",
    )
}

/// A test's mutation: a closure, which the leader calls.
#[cfg(test)]
pub(crate) type Closure<'a> = Box<dyn FnMut(Box<dyn WriteTxn + '_>) -> Result<Output> + Send + 'a>;

/// Runs test closures.
#[cfg(test)]
pub(crate) struct Closures;

#[cfg(test)]
impl<'a> Runs<Closure<'a>> for Closures {
    fn run(&self, call: &mut Closure<'a>, txn: Box<dyn WriteTxn + '_>) -> Result<Output> {
        call(txn)
    }
}

#[cfg(test)]
#[path = "group_tests.rs"]
mod tests;
