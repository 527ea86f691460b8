//! Subscribing: a query's first evaluation, its registration, and the handle a subscriber reads events from.

use super::events::{change, Event};
use super::hub::{Hub, Sub};
use super::query::{program_at, replan, Plan, Query, Recompile};
use crate::engine::{check_args, retrying, Engine};
use crate::error::{Result, RuntimeError};
use crate::session::Session;
use rqc_plan::{Entry, EntryKind, Value};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// How a subscription is made.
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// Events held for a subscriber that does not read them; past it, an
    /// overflow and the whole result replace them (at least 2).
    pub capacity: usize,
    /// Resume after a reconnect: the first event takes the held result to
    /// the current one (none when it did not change).
    pub resume: Option<Resume>,
}

impl Default for WatchOptions {
    fn default() -> WatchOptions {
        WatchOptions {
            capacity: 1024,
            resume: None,
        }
    }
}

/// What a subscriber held when it lost its subscription.
#[derive(Clone, Debug)]
pub struct Resume {
    /// The position of the last event it took.
    pub position: u64,
    /// The result it held there.
    pub result: Value,
}

/// A live query: read its events with [`Subscription::next_event`].
/// Dropping it unsubscribes. It does not keep the database open: once the
/// database is dropped, its events end.
pub struct Subscription {
    hub: Weak<Hub>,
    sub: Arc<Sub>,
}

impl Subscription {
    /// The next event, waiting for it; `None` once the database closed.
    pub fn next_event(&self) -> Option<Event> {
        self.sub.queue.pop(None)
    }

    /// The next event within `timeout`, or `None`.
    pub fn next_timeout(&self, timeout: Duration) -> Option<Event> {
        self.sub.queue.pop(Some(Instant::now() + timeout))
    }

    /// The next event if one is waiting.
    pub fn try_next(&self) -> Option<Event> {
        self.sub.queue.pop(Some(Instant::now()))
    }

    /// Whether no more events will come (the database closed, or the
    /// watcher failed and said why in a last `Failed` event).
    pub fn is_closed(&self) -> bool {
        self.sub.queue.is_closed()
    }

    /// Waits until every commit up to `position` has been matched, so that
    /// the events it caused are queued; false at `timeout`.
    pub fn wait_for(&self, position: u64, timeout: Duration) -> bool {
        self.hub
            .upgrade()
            .is_some_and(|hub| hub.wait_for(position, timeout))
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(hub) = self.hub.upgrade() {
            hub.unregister(&self.sub);
        }
    }
}

impl Engine {
    /// Subscribes to a query: the first event is its whole current result
    /// (or, resuming, the change from the result held), then one event
    /// for each commit that changes it.
    pub fn subscribe(
        &self,
        entry: &Entry,
        args: &[Value],
        options: WatchOptions,
    ) -> Result<Subscription> {
        self.subscribe_planned(entry, args, options, None)
    }

    /// As [`Engine::subscribe`], for an entry point compiled from a text
    /// beside the installed program (the REPL's `:watch EXPR`): when
    /// another program is installed, `recompile` compiles the text again
    /// against it (spec/live.md, "Across installs").
    pub fn subscribe_recompiled(
        &self,
        entry: &Entry,
        args: &[Value],
        options: WatchOptions,
        recompile: Arc<Recompile>,
    ) -> Result<Subscription> {
        self.subscribe_planned(entry, args, options, Some(recompile))
    }

    fn subscribe_planned(
        &self,
        entry: &Entry,
        args: &[Value],
        options: WatchOptions,
        recompile: Option<Arc<Recompile>>,
    ) -> Result<Subscription> {
        let args = &check_args(entry, args)?[..];
        if entry.kind != EntryKind::Query {
            return Err(RuntimeError::new(
                "E0583",
                format!(
                    "`{}` is a mutation; only a query can be watched",
                    entry.name
                ),
                "watch a query that reads what the mutation writes",
            ));
        }
        if options.capacity < 2 {
            return Err(RuntimeError::new(
                "E0584",
                format!(
                    "a subscription's queue must hold at least 2 events, not {}",
                    options.capacity
                ),
                "give a capacity of 2 or more (an overflow is followed by the whole result)",
            ));
        }
        let (installed, position) = self.bound_installed(entry)?;
        let plan = match position {
            Some(i) => Plan::Installed(i),
            None => {
                let (_, accesses) = self.bound_entry(entry)?;
                Plan::Given(Box::new((entry.clone(), accesses.into_owned())))
            }
        };
        let query = Query {
            installed,
            plan,
            args: args.to_vec(),
        };
        let hub = self.live();
        let known = hub.known();
        let ((first, planned), _) = retrying(|| {
            let session = Session::read(self.store())?;
            // This engine's program may be older than the catalog's (another
            // process installed one since): planned again under that first.
            let program = program_at(
                self.store(),
                session.reads(),
                std::iter::once(&query.installed).chain(known.iter()),
            )?;
            let planned = match program.installed_at == query.installed.installed_at {
                true => None,
                false => Some(replan(&query, recompile.as_deref(), &program)?),
            };
            let first = hub.evaluate(planned.as_ref().unwrap_or(&query), session)?.0;
            Ok((first, planned))
        })?;
        let query = planned.unwrap_or(query);
        let opening = match &options.resume {
            None => Some(Event::Result {
                position: first.position,
                value: first.value.clone(),
            }),

            Some(resume) if resume.position > first.position => {
                return Err(RuntimeError::new(
                    "E0581",
                    format!(
                        "cannot resume from position {}: this database's last commit is {}",
                        resume.position, first.position
                    ),
                    "resume from a position an event of this database gave, or subscribe afresh",
                ))
            }
            // A program installed after the position held: the whole
            // result, as every subscription gets at an install.
            Some(resume) if resume.position < query.installed.installed_at => Some(Event::Result {
                position: first.position,
                value: first.value.clone(),
            }),
            Some(resume) => change(&resume.result, &first.value, first.position),
        };
        let sub = hub.register(query, recompile, first, opening, options.capacity);
        Ok(Subscription {
            hub: Arc::downgrade(hub),
            sub,
        })
    }

    /// The live registry's size and the watcher's evaluations so far.
    pub fn live_stats(&self) -> super::LiveStats {
        self.live().stats()
    }

    /// The position of the last commit (0 before any): what an event's
    /// `position` is measured in.
    pub fn position(&self) -> Result<u64> {
        self.live().head()
    }
}
