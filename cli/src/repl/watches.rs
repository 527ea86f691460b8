//! The REPL's live queries (`:watch`): their events shown as they arrive, between inputs as well as after one.
//!
//! A thread looks at the watches every [`LOOK_EVERY`] and shows what
//! arrived. It shows it only while it holds the console, which the loop
//! holds from the moment an input is read to the end of its output (never
//! while it waits for one): so an event is
//! never shown inside a command's output, and the events a command's own
//! commit caused are shown right after its output (the loop drains them
//! there, once the watcher has matched every commit so far), in the same
//! place on every run.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// How often the thread looks for events: well under what a person notices.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// Where an event arriving between inputs is shown: stdout, or above the
/// prompt of the line being edited.
pub type Sink = Box<dyn FnMut(&str) + Send>;

type List = Arc<Mutex<Vec<(usize, rqc::Subscription)>>>;

/// The watches and the console their events are shown on.
#[derive(Default)]
pub struct Watches {
    list: List,
    console: Arc<Mutex<()>>,
    /// Given by the loop; taken by the thread when the first watch starts.
    sink: Option<Sink>,
}

/// The console: while it is held, no event is shown.
#[derive(Clone)]
pub struct Console(Arc<Mutex<()>>);

impl Console {
    /// Holds the console until the guard drops.
    pub fn hold(&self) -> MutexGuard<'_, ()> {
        lock(&self.0)
    }
}

impl Watches {
    /// Where events arriving between inputs go (without it, they are shown
    /// only after each input).
    pub fn show_arrivals_on(&mut self, sink: Sink) {
        self.sink = Some(sink);
    }

    /// The console, held from the moment an input is read to the end of
    /// its output.
    pub fn console(&self) -> Console {
        Console(Arc::clone(&self.console))
    }

    /// Adds a watch; returns its number.
    pub fn add(&mut self, live: rqc::Subscription) -> usize {
        let mut list = lock(&self.list);
        let number = list.last().map_or(1, |(n, _)| n + 1);
        list.push((number, live));
        drop(list);
        if let Some(sink) = self.sink.take() {
            let (list, console) = (Arc::clone(&self.list), Arc::clone(&self.console));
            std::thread::spawn(move || show_arrivals(list, console, sink));
        }
        number
    }

    /// Stops every watch; returns how many there were.
    pub fn stop_all(&mut self) -> usize {
        std::mem::take(&mut *lock(&self.list)).len()
    }

    /// Every event waiting, once each watch has matched the commits up to
    /// `position` (the events they caused are then all queued), as lines.
    pub fn drain(&self, position: u64) -> Vec<String> {
        let mut list = lock(&self.list);
        for (_, live) in list.iter() {
            live.wait_for(position, Duration::from_secs(5));
        }
        waiting(&mut list)
    }

    pub fn is_empty(&self) -> bool {
        lock(&self.list).is_empty()
    }
}

/// The thread: every [`LOOK_EVERY`], what arrived, shown while it holds
/// the console. It ends with the session (its list is the session's).
fn show_arrivals(list: List, console: Arc<Mutex<()>>, mut sink: Sink) {
    while Arc::strong_count(&list) > 1 {
        std::thread::sleep(LOOK_EVERY);
        let _console = lock(&console);
        for line in waiting(&mut lock(&list)) {
            sink(&line);
        }
    }
}

/// The events waiting on each watch, as `watch N: {…}` lines; a watch
/// its last event ended (an install it could not follow, spec/live.md) is
/// said so and taken out.
fn waiting(list: &mut Vec<(usize, rqc::Subscription)>) -> Vec<String> {
    let mut lines = Vec::new();
    let mut ended = Vec::new();
    for (number, live) in list.iter() {
        // Closed before this look: this look takes its last event.
        let closed = live.is_closed();
        while let Some(event) = live.try_next() {
            lines.push(format!("watch {number}: {}", event.to_json()));
        }
        if closed {
            lines.push(format!("watch {number} ended; :watch EXPR watches again"));
            ended.push(*number);
        }
    }
    list.retain(|(number, _)| !ended.contains(number));
    lines
}

/// A lock whose holder panicked still guards plain data: take it.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
