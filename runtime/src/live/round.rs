//! One look of the watcher: the commits since its last look matched against the index, and the touched subscriptions evaluated again at the head — each under the program installed there (spec/live.md).

use super::changelog::{self, KEEP};
use super::hub::{Hub, Sub};
use super::index::{Index, SubId};
use super::query::{program_at, replan};
use crate::engine::Installed;
use crate::error::Result;
use crate::session::Session;
use imbl::OrdMap;
use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// What the look found in the changelog between its last position and
/// the head.
struct Found {
    /// Subscriptions whose read ranges hold a written key.
    touched: BTreeSet<SubId>,
    /// Whether a program was installed in between.
    installs: bool,
    /// Whether some entry in between was trimmed (or the head went back):
    /// every subscription is evaluated again.
    everything: bool,
}

impl Hub {
    /// One look at the changelog: the commits since the last look, matched
    /// against a snapshot of the index, and the touched subscriptions
    /// evaluated again at the head.
    pub(super) fn round(&self) -> Result<()> {
        let (index, subs, dirty, from, program) = {
            let mut registry = self.lock();
            let dirty = std::mem::take(&mut registry.dirty);
            let snapshot = (registry.index.clone(), registry.subs.clone());
            let program = registry.program.clone();
            (snapshot.0, snapshot.1, dirty, registry.position, program)
        };
        let result = self.match_and_evaluate(&index, &subs, &dirty, from, program);
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
        program: Option<Arc<Installed>>,
    ) -> Result<()> {
        let started = Instant::now();
        let mut session = Session::read(self.store.as_ref())?;
        let head = changelog::head(session.reads(), self.log, self.compact)?;
        let from = from.unwrap_or(head);
        let found = self.found(&session, index, from, head)?;
        // The program at the head: the one held, unless an install came
        // (or the entries that would say are gone, or this is the first look).
        let program = match program {
            Some(held) if !found.installs && !found.everything => held,
            held => {
                let known = self.known();
                program_at(
                    self.store.as_ref(),
                    session.reads(),
                    held.iter().chain(known.iter()),
                )?
            }
        };
        let mut touched = found.touched;
        if found.everything || found.installs {
            touched.extend(subs.keys().copied());
        }
        // Subscribed since the last look: evaluated again if a commit came
        // after their first evaluation, or an install.
        touched.extend(dirty.iter().filter(|id| {
            subs.get(*id).is_some_and(|s| {
                s.at() < head || s.query().installed.installed_at != program.installed_at
            })
        }));
        let mut updates = Vec::new();
        let mut ended = Vec::new();
        for id in touched {
            let Some(sub) = subs.get(&id) else { continue };
            let mut query = sub.query();
            // Planned under another program: planned again under this one
            // (its old plan's proof may not hold for what was written
            // since), or ended with the reason.
            let whole = query.installed.installed_at != program.installed_at;
            if whole {
                match replan(&query, sub.recompile.as_deref(), &program) {
                    Ok(planned) => query = Arc::new(planned),
                    Err(error) => {
                        sub.end(head, error);
                        ended.push(id);
                        continue;
                    }
                }
            }
            self.evaluations.fetch_add(1, Ordering::Relaxed);
            let evaluated = self.evaluate(&query, session);
            if whole {
                // Never the old plan again, whatever this evaluation gave.
                if !matches!(&evaluated, Err(e) if e.is_conflict() || e.is_store_failure()) {
                    sub.set_query(Arc::clone(&query));
                }
            }
            match evaluated {
                Ok((evaluated, next)) => {
                    session = next;
                    if whole {
                        sub.deliver_whole(evaluated.position, evaluated.value);
                    } else {
                        sub.deliver(evaluated.position, evaluated.value);
                    }
                    updates.push((id, evaluated.ranges));
                }
                Err(error) if error.is_conflict() || error.is_store_failure() => return Err(error),
                Err(error) => {
                    session = Session::read(self.store.as_ref())?;
                    let position = changelog::head(session.reads(), self.log, self.compact)?;
                    sub.failed(position, error);
                }
            }
        }
        let mut registry = self.lock();
        for id in ended {
            registry.forget(id);
        }
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
        if registry.position.is_none_or(|p| p <= head) {
            registry.position = Some(head);
            registry.program = Some(program);
        }
        if head != from {
            self.rounds.fetch_add(1, Ordering::Relaxed);
            let nanos = started.elapsed().as_nanos() as u64;
            self.busy_nanos.fetch_add(nanos, Ordering::Relaxed);
        }
        self.caught_up.notify_all();
        Ok(())
    }

    /// What commits `from + 1 ..= head` wrote: the subscriptions they
    /// touch, and whether one installed a program.
    fn found(&self, session: &Session<'_>, index: &Index, from: u64, head: u64) -> Result<Found> {
        let mut found = Found {
            touched: BTreeSet::new(),
            installs: false,
            everything: head < from,
        };
        if head <= from {
            return Ok(found);
        }
        let entries = match head - from > KEEP {
            true => None,
            false => changelog::entries(session.reads(), self.log, from, head)?,
        };
        let Some(entries) = entries else {
            found.everything = true;
            return Ok(found);
        };
        for changes in entries {
            for change in changes {
                if changelog::is_install(&change) {
                    found.installs = true;
                    continue;
                }
                let tree = self.store.tree(&change.tree);
                for written in &change.written {
                    index.matching(tree, written, &mut found.touched);
                }
            }
        }
        Ok(found)
    }
}
