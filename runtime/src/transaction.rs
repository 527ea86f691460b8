//! Several entry points run in one write transaction: every write of all of them commits together, with one commit (and one sync), or none does.
//!
//! Each run is held to its own proved bound, counted from where the run
//! before it left the session's counters; the commit is held to the sum of
//! the runs' bounds with the commit counted once (spec/cost.md §11,
//! "Transactions"): every mutation's bound carries a commit of its own,
//! and the transaction makes one.

use crate::engine::{check_args, evaluate, retrying_as, within_round_trips, Engine, Output, Stats};
use crate::error::{Result, RuntimeError, TransactionError};
use crate::session::Session;
use rqc_plan::{Bound, Entry, EntryKind, Value, COMMIT_ROUND_TRIPS};

/// The runs of one transaction attempt: begun by [`Engine::begin`],
/// stored by [`Transaction::commit`], and dropped without a trace.
pub struct Transaction<'e> {
    engine: &'e Engine,
    /// Taken by each run and given back; `None` once a run failed.
    session: Option<Session<'e>>,
    /// The runs' bounds and what they read, summed, and how many of them
    /// were mutations (each of whose bounds counts a commit).
    bound: Bound,
    stats: Stats,
    mutations: u64,
    runs: u64,
}

impl<'e> Transaction<'e> {
    /// Runs the query or mutation called `name` inside the transaction
    /// (see [`Transaction::run_entry`]).
    pub fn run(&mut self, name: &str, args: &[Value]) -> Result<Output> {
        let engine = self.engine;
        self.run_entry(engine.entry(name)?, args)
    }

    /// Runs an entry point inside the transaction: it sees the
    /// transaction's earlier writes, and is held to its own bound (a
    /// mutation's round trips with a commit of its own, as if it committed
    /// alone). Its output counts what it read, not what the runs before it
    /// did. A run that fails leaves the transaction unable to commit
    /// (E0597): its writes so far cannot be told from the others'.
    pub fn run_entry(&mut self, entry: &Entry, args: &[Value]) -> Result<Output> {
        let args = &check_args(entry, args)?[..];
        let (tables, accesses) = self.engine.bound_entry(entry)?;
        self.engine.check_unbound(entry)?;
        let session = self.session.take().ok_or_else(failed_earlier)?;
        let (before, written_before) = (session.meter, session.rows_written());
        let (mut output, session) = evaluate(tables, &accesses, entry, args, session, false)
            .map_err(|e| self.engine.explained(e))?;
        let counted = session.meter.since(&before);
        output.stats = Stats {
            seeks: counted.seeks,
            rows: counted.rows,
            round_trips: counted.trips,
        };
        output.written = session.rows_written() - written_before;
        let mutation = entry.kind == EntryKind::Mutation;
        let mut alone = output.clone();
        alone.stats.round_trips += if mutation { COMMIT_ROUND_TRIPS } else { 0 };
        within_round_trips(&entry.name, &alone)?;
        self.bound = add(self.bound, output.bound);
        self.stats = Stats {
            seeks: self.stats.seeks + output.stats.seeks,
            rows: self.stats.rows + output.stats.rows,
            round_trips: self.stats.round_trips + output.stats.round_trips,
        };
        self.mutations += u64::from(mutation);
        self.runs += 1;
        self.session = Some(session);
        Ok(output)
    }

    /// The transaction's bound so far: the sum of its runs' bounds, the
    /// commit counted once (each mutation's bound carries one).
    pub fn bound(&self) -> Bound {
        let shared = COMMIT_ROUND_TRIPS * self.mutations.saturating_sub(1);
        Bound {
            round_trips: self.bound.round_trips.saturating_sub(shared),
            ..self.bound
        }
    }

    /// What the runs so far read, summed (the commit's round trips are
    /// added by [`Transaction::commit`]).
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// How many runs the transaction made.
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// Stores every write of every run at once, with one commit, after
    /// holding the runs' round trips and the commit's to the
    /// transaction's bound (E0546; a broken proof stores nothing). A
    /// commit the store's operation or request limit refuses is E0665 or
    /// E0666, nothing stored. Returns what the whole transaction read, its
    /// commit counted.
    pub fn commit(mut self) -> Result<Stats> {
        let mut session = self.session.take().ok_or_else(failed_earlier)?;
        session.prepare_commit()?;
        let mut total = Output {
            value: Value::Null,
            written: session.rows_written(),
            stats: self.stats,
            bound: self.bound(),
            operators: Vec::new(),
            attempts: 1,
        };
        total.stats.round_trips = session.meter.trips + u64::from(session.commits());
        within_round_trips("the transaction", &total)?;
        session
            .commit()
            .map_err(|e| beyond_store_limits(e, self.runs))?;
        Ok(total.stats)
    }
}

impl Engine {
    /// Begins one attempt of a transaction: its runs
    /// ([`Transaction::run`]) see each other's writes, and
    /// [`Transaction::commit`] stores all of them at once; dropped, it
    /// stores nothing. A commit that conflicts with another is E0595:
    /// [`Engine::transaction`] runs the whole attempt again.
    pub fn begin(&self) -> Result<Transaction<'_>> {
        let session = self.write_session()?;
        // Writers take turns on a local store: a schema the same now stays
        // the same until the commit (on etcd the commit compares it).
        self.same_schema(session.reads())?;
        Ok(Transaction {
            engine: self,
            session: Some(session),
            bound: Bound {
                seeks: 0,
                rows: 0,
                round_trips: 0,
            },
            stats: Stats::default(),
            mutations: 0,
            runs: 0,
        })
    }

    /// Runs `body` in one write transaction: the runs it makes see each
    /// other's writes, and all of their writes commit at once when it
    /// returns `Ok` (nothing commits when it returns an error). A commit
    /// that conflicts runs `body` again from the start, in a new attempt
    /// held to the bounds on its own, so it must have no effect outside the
    /// transaction.
    pub fn transaction<T>(&self, body: impl FnMut(&mut Transaction<'_>) -> Result<T>) -> Result<T> {
        self.transaction_as(body)
    }

    /// [`Engine::transaction`] for a body whose errors are of the caller's
    /// own type (a library's, which may hold a runtime error).
    pub fn transaction_as<T, E: TransactionError>(
        &self,
        mut body: impl FnMut(&mut Transaction<'_>) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        let (value, _) = retrying_as(|| {
            let mut transaction = self.begin()?;
            let value = body(&mut transaction)?;
            transaction.commit()?;
            Ok::<T, E>(value)
        })?;
        Ok(value)
    }
}

/// Bounds summed (a sum past 64 bits stays at the most).
fn add(a: Bound, b: Bound) -> Bound {
    Bound {
        seeks: a.seeks.saturating_add(b.seeks),
        rows: a.rows.saturating_add(b.rows),
        round_trips: a.round_trips.saturating_add(b.round_trips),
    }
}

/// A transaction's commit refused by the store's limits on one request
/// (etcd's `--max-txn-ops`, E0564, and `--max-request-bytes`, E0565): each
/// run was proved to fit alone, their sum is not, so the fix is fewer runs
/// in one transaction (E0665, E0666).
fn beyond_store_limits(error: RuntimeError, runs: u64) -> RuntimeError {
    let (code, what) = match error.code {
        "E0564" => ("E0665", "operations"),
        "E0565" => ("E0666", "bytes"),
        _ => return error,
    };
    RuntimeError::new(
        code,
        format!(
            "the transaction of {runs} runs commits as one request, too many {what} for the store: {}",
            error.message
        ),
        "split the calls into smaller transactions (each call alone fits: it was proved to at install), or start every etcd member with a larger limit and make a new database",
    )
}

/// E0597: a run, or the commit, after a run of the transaction failed.
fn failed_earlier() -> RuntimeError {
    RuntimeError::new(
        "E0597",
        "a run of this transaction failed, so nothing of it can run or commit any more",
        "return the failed run's error from the transaction's body (`?`): the transaction is then dropped, and nothing of it is written",
    )
}
