//! What a subscriber receives: events, the change between two results, and the bounded queue a subscription's events wait in.

use crate::error::RuntimeError;
use rqc_plan::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// One event of a subscription. `position` is the commit (changelog
/// sequence number) whose state the event describes: resume from it.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The whole result: first, after an overflow, and for a result that
    /// is not a list.
    Result { position: u64, value: Value },
    /// A list result changed: these rows came, these went (as multisets;
    /// the order of the new list is a fresh run's).
    Rows {
        position: u64,
        added: Vec<Value>,
        removed: Vec<Value>,
    },
    /// The subscriber fell behind its queue: the events in between were
    /// dropped, and a `Result` with the whole current result follows.
    Overflow { position: u64 },
    /// Evaluating the query again failed; the subscription goes on
    /// listening to what it read before.
    Failed { position: u64, error: RuntimeError },
}

impl Event {
    /// Where this event stands in the subscription's stream: resume after it (`Resume`).
    pub fn position(&self) -> u64 {
        match self {
            Event::Result { position, .. }
            | Event::Rows { position, .. }
            | Event::Overflow { position }
            | Event::Failed { position, .. } => *position,
        }
    }

    /// One JSON object: `position` and `result`, or `added` and
    /// `removed`, or `overflow: true`, or `error` (spec/live.md).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        let rows = |values: &[Value]| values.iter().map(Value::to_json).collect::<Vec<_>>();
        match self {
            Event::Result { position, value } => {
                json!({ "position": position, "result": value.to_json() })
            }
            Event::Rows {
                position,
                added,
                removed,
            } => json!({ "position": position, "added": rows(added), "removed": rows(removed) }),
            Event::Overflow { position } => json!({ "position": position, "overflow": true }),
            Event::Failed { position, error } => json!({
                "position": position,
                "error": { "code": error.code, "message": error.message, "help": error.help },
            }),
        }
    }
}

/// The event that takes a subscriber from `old` to `new`, or `None` when
/// they are equal.
pub fn change(old: &Value, new: &Value, position: u64) -> Option<Event> {
    if old == new {
        return None;
    }
    let (Value::List(old), Value::List(new)) = (old, new) else {
        return Some(Event::Result {
            position,
            value: new.clone(),
        });
    };
    let (removed, added) = difference(old, new);
    Some(Event::Rows {
        position,
        added,
        removed,
    })
}

/// `(old - new, new - old)` as multisets, each in its list's order, by
/// counting each value (as `==` and the key encoding tell values apart,
/// spec/types.md "Value identity"): O(n) for results of n rows.
fn difference(old: &[Value], new: &[Value]) -> (Vec<Value>, Vec<Value>) {
    fn missing(from: &[Value], minus: &[Value]) -> Vec<Value> {
        let mut counts: HashMap<&Value, usize> = HashMap::new();
        for value in minus {
            *counts.entry(value).or_default() += 1;
        }
        let mut out = Vec::new();
        for value in from {
            match counts.get_mut(value) {
                Some(count) if *count > 0 => *count -= 1,
                _ => out.push(value.clone()),
            }
        }
        out
    }
    (missing(old, new), missing(new, old))
}

/// Takes a subscriber's `current` result through `event`: the whole
/// result, or the rows changed (`Rows` carries no positions: the new rows
/// go last, so compare such results as multisets, or keep a `Result`).
pub fn apply(current: &mut Value, event: &Event) {
    match event {
        Event::Result { value, .. } => *current = value.clone(),
        Event::Rows { added, removed, .. } => {
            let Value::List(items) = current else {
                *current = Value::List(added.clone());
                return;
            };
            for gone in removed {
                if let Some(at) = items.iter().position(|v| v == gone) {
                    items.remove(at);
                }
            }
            items.extend(added.iter().cloned());
        }
        Event::Overflow { .. } | Event::Failed { .. } => {}
    }
}

/// A subscription's pending events: at most `capacity`; past it they are
/// replaced by an overflow and the whole current result (coalesced, so a
/// slow subscriber never holds more than `capacity` events).
pub(crate) struct Queue {
    state: Mutex<Pending>,
    ready: Condvar,
    capacity: usize,
}

struct Pending {
    events: VecDeque<Event>,
    closed: bool,
}

impl Queue {
    pub fn new(capacity: usize) -> Queue {
        Queue {
            state: Mutex::new(Pending {
                events: VecDeque::new(),
                closed: false,
            }),
            ready: Condvar::new(),
            capacity,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues `event`, whose result is `whole`.
    pub fn push(&self, event: Event, whole: &Value) {
        let mut pending = self.lock();
        if pending.events.len() < self.capacity {
            pending.events.push_back(event);
        } else {
            let position = event.position();
            pending.events.clear();
            pending.events.push_back(Event::Overflow { position });
            pending.events.push_back(Event::Result {
                position,
                value: whole.clone(),
            });
        }
        self.ready.notify_all();
    }

    /// Queues `event` past the capacity as the last one, and closes.
    pub fn finish(&self, event: Event) {
        let mut pending = self.lock();
        pending.events.push_back(event);
        pending.closed = true;
        self.ready.notify_all();
    }

    /// No more events will come (the database closed, or the watcher failed).
    pub fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_all();
    }

    /// The next event, waiting until `deadline` (`None`: for ever); `None`
    /// at the deadline or once closed with nothing pending.
    pub fn pop(&self, deadline: Option<Instant>) -> Option<Event> {
        let mut pending = self.lock();
        loop {
            if let Some(event) = pending.events.pop_front() {
                return Some(event);
            }
            if pending.closed {
                return None;
            }
            pending = match deadline {
                None => self.ready.wait(pending).unwrap_or_else(|p| p.into_inner()),
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left == Duration::ZERO {
                        return None;
                    }
                    self.ready
                        .wait_timeout(pending, left)
                        .unwrap_or_else(|p| p.into_inner())
                        .0
                }
            };
        }
    }

    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_change_is_the_rows_that_came_and_went() {
        let old = Value::List(vec![1.into(), 2.into(), 2.into(), 3.into()]);
        let new = Value::List(vec![2.into(), 3.into(), 4.into()]);
        let event = change(&old, &new, 7).unwrap();
        assert_eq!(
            event,
            Event::Rows {
                position: 7,
                added: vec![4.into()],
                removed: vec![1.into(), 2.into()],
            }
        );
        let mut held = old.clone();
        apply(&mut held, &event);
        let Value::List(mut held) = held else {
            panic!()
        };
        held.sort_by(rqc_plan::compare);
        assert_eq!(Value::List(held), new);
        assert_eq!(change(&new, &new, 8), None);
    }

    /// Rows are told apart as values are (spec/types.md): a row whose
    /// float a library caller gave as `-0.0` is the row that holds `0.0`,
    /// and rows with the same fields in records built apart are one row.
    #[test]
    fn rows_that_are_the_same_value_are_no_change() {
        let row =
            |x: f64| Value::record(vec![("id".into(), 1.into()), ("x".into(), Value::Float(x))]);
        let old = Value::List(vec![row(0.0), row(2.5)]);
        let new = Value::List(vec![row(-0.0), row(2.5)]);
        assert_eq!(change(&old, &new, 3), None);
        let moved = Value::List(vec![row(0.0), row(-2.5)]);
        assert!(change(&old, &moved, 4).is_some());
    }

    #[test]
    fn a_full_queue_coalesces_into_overflow_and_the_whole_result() {
        let queue = Queue::new(2);
        for position in 1..=5 {
            let value = Value::Int(position as i64);
            queue.push(
                Event::Result {
                    position,
                    value: value.clone(),
                },
                &value,
            );
        }
        let now = Some(Instant::now());
        let drained: Vec<Event> = std::iter::from_fn(|| queue.pop(now)).collect();
        assert_eq!(
            drained,
            vec![
                Event::Overflow { position: 5 },
                Event::Result {
                    position: 5,
                    value: 5.into()
                },
            ]
        );
    }
}
