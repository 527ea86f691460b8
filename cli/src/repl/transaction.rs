//! The REPL's `:begin` … `:commit` or `:rollback`: the calls between run in one write transaction, held by a thread of its own and rolled back after an idle timeout.
//!
//! A store's write transaction stays on the thread that began it (LMDB's
//! does), and the session's inputs come one at a time: the transaction
//! lives on a thread that runs each call it is sent and waits for the next
//! no longer than the idle timeout. Past it, or when a call fails (its
//! writes so far cannot be told from the others'), the thread drops the
//! transaction, and nothing of it is written.

use rqc::{Database, Entry, Error, Output, Stats, Value};
use rqc_plan::Bound;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// What the session asks of the transaction's thread.
enum Request {
    Run(Box<Entry>, Vec<Value>, Sender<Result<Output, Error>>),
    Commit(Sender<Result<Committed, Error>>),
}

/// A committed transaction: what it read (its commit counted), its
/// bound, and its attempts (more than one where etcd sent the commit
/// again after the changelog's head alone moved).
pub struct Committed {
    pub stats: Stats,
    pub bound: Bound,
    pub attempts: u32,
}

/// An open transaction of the session.
pub struct Open {
    requests: Option<Sender<Request>>,
    thread: Option<JoinHandle<()>>,
    /// Why the thread ended it on its own (the idle timeout), once it did.
    ended: Arc<Mutex<Option<String>>>,
}

/// How a call in the transaction went.
pub enum Ran {
    /// It ran; the transaction goes on.
    Done(Output),
    /// It was refused, and the transaction is rolled back.
    Refused(Error),
}

impl Open {
    /// Begins a transaction of `db` on a thread of its own, rolled back
    /// after `idle` with no request (and `timed_out` then says so).
    pub fn begin(db: &Arc<Database>, idle: Duration) -> Result<Open, Error> {
        let (requests, received) = mpsc::channel();
        let (began, beginning) = mpsc::channel();
        let ended = Arc::new(Mutex::new(None));
        let db = Arc::clone(db);
        let ends = Arc::clone(&ended);
        let thread = std::thread::spawn(move || hold(&db, idle, &received, &began, &ends));
        match beginning.recv() {
            Ok(Ok(())) => Ok(Open {
                requests: Some(requests),
                thread: Some(thread),
                ended,
            }),
            Ok(Err(error)) => Err(error),
            Err(_) => Err(gone()),
        }
    }

    /// Why the transaction ended on its own, if it did (it is then over).
    pub fn timed_out(&self) -> Option<String> {
        self.ended.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Runs `entry` in the transaction.
    pub fn run(&self, entry: &Entry, args: &[Value]) -> Ran {
        let (reply, answer) = mpsc::channel();
        let request = Request::Run(Box::new(entry.clone()), args.to_vec(), reply);
        match self.ask(request, &answer) {
            Ok(Ok(output)) => Ran::Done(output),
            Ok(Err(error)) | Err(error) => Ran::Refused(error),
        }
    }

    /// Commits the transaction: what it read (its commit counted) and how
    /// many calls it ran.
    pub fn commit(mut self) -> Result<Committed, Error> {
        let (reply, answer) = mpsc::channel();
        let committed = self.ask(Request::Commit(reply), &answer);
        self.end();
        committed?
    }

    /// Sends a request and waits for its answer.
    fn ask<T>(&self, request: Request, answer: &Receiver<T>) -> Result<T, Error> {
        let sent = self
            .requests
            .as_ref()
            .is_some_and(|r| r.send(request).is_ok());
        match sent {
            true => answer.recv().map_err(|_| gone()),
            false => Err(gone()),
        }
    }

    /// Ends the thread: a transaction not committed is dropped.
    fn end(&mut self) {
        self.requests = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Dropped (`:rollback`, the session's end), the transaction stores nothing.
impl Drop for Open {
    fn drop(&mut self) {
        self.end();
    }
}

/// The transaction's thread: begins it, runs each call sent, commits when
/// asked, and drops it at the first refusal, when the session lets go of
/// it, or after `idle` with no request.
fn hold(
    db: &Database,
    idle: Duration,
    requests: &Receiver<Request>,
    began: &Sender<Result<(), Error>>,
    ended: &Mutex<Option<String>>,
) {
    let transaction = match db.begin() {
        Ok(transaction) => {
            let _ = began.send(Ok(()));
            transaction
        }
        Err(error) => {
            let _ = began.send(Err(error));
            return;
        }
    };
    loop {
        match requests.recv_timeout(idle) {
            Ok(Request::Run(entry, args, reply)) => {
                let ran = transaction.run_entry(&entry, &args);
                let refused = ran.is_err();
                let _ = reply.send(ran);
                if refused {
                    return;
                }
            }
            Ok(Request::Commit(reply)) => {
                let bound = transaction.bound();
                let resent = rqc_runtime::store::resent_commits();
                let committed = transaction.commit().map(|stats| Committed {
                    stats,
                    bound,
                    attempts: 1 + rqc_runtime::store::resent_since(resent),
                });
                let _ = reply.send(committed);
                return;
            }
            Err(RecvTimeoutError::Timeout) => {
                let seconds = idle.as_secs_f64();
                *ended.lock().unwrap_or_else(|p| p.into_inner()) = Some(format!(
                    "the transaction was idle for {seconds}s and was rolled back: nothing of it was written"
                ));
                return;
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// The transaction's thread ended while asked something (it timed out
/// meanwhile, or failed to begin).
fn gone() -> Error {
    Error::Runtime(rqc_runtime::RuntimeError::new(
        "E0450",
        "the transaction is no longer open: it was rolled back, and nothing of it was written",
        "start another with `:begin`, and run its calls again",
    ))
}

/// E0451: `:begin` inside a transaction, `:commit` or `:rollback` outside one.
pub fn misplaced(message: &str, help: &str) -> Error {
    Error::Runtime(rqc_runtime::RuntimeError::new("E0451", message, help))
}

/// E0452: a command that cannot run inside a transaction: `:load` installs
/// in a transaction of its own (the open one holds the writer), `:page` and
/// `:next` read in one of their own.
pub fn not_in_one(command: &str) -> Error {
    Error::Runtime(rqc_runtime::RuntimeError::new(
        "E0452",
        format!("`{command}` cannot run inside a transaction"),
        "`:commit` or `:rollback` the transaction first",
    ))
}
