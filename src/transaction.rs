//! A library transaction: several calls that see each other's writes and commit together, with one commit, or not at all.

use crate::database::Database;
use crate::error::Error;
use rqc_plan::{Bound, Entry, Value};
use rqc_runtime::{Output, RuntimeError, Stats};
use std::cell::RefCell;

/// The calls of one transaction ([`Database::transaction`]): each runs
/// where the ones before it left the database, held to its own bound.
/// Dropped without [`Transaction::commit`], it stores nothing.
pub struct Transaction<'db> {
    db: &'db Database,
    runs: RefCell<rqc_runtime::transaction::Transaction<'db>>,
}

/// An entry point a [`Transaction`] prepared: it runs in that transaction.
/// (A [`Prepared`] of [`Database::prepare`] runs in one of its own, and
/// may be shared between threads; this one may not, as its transaction
/// may not.)
pub struct TxPrepared<'t, 'db> {
    transaction: &'t Transaction<'db>,
    entry: &'t Entry,
}

impl TxPrepared<'_, '_> {
    /// The entry point's parameters, in order, with their types and bounds.
    pub fn params(&self) -> &[rqc_plan::ParamSpec] {
        &self.entry.params
    }

    /// The entry point: its name, kind, parameters, bound and plan.
    pub fn entry(&self) -> &Entry {
        self.entry
    }

    /// Runs with positional arguments in the transaction.
    pub fn run(&self, args: &[Value]) -> Result<Output, Error> {
        self.transaction.run_entry(self.entry, args)
    }

    /// Runs with arguments taken by name from a serializable struct or map.
    pub fn run_named<P: serde::Serialize>(&self, params: &P) -> Result<Output, Error> {
        self.run(&crate::prepared::named_args(self.entry, params)?)
    }

    /// Runs and reads the result rows into `T`.
    pub fn query<T: serde::de::DeserializeOwned>(&self, args: &[Value]) -> Result<Vec<T>, Error> {
        crate::prepared::rows_as(self.entry, &self.run(args)?)
    }

    /// Runs and reads the first row, if any, into `T`.
    pub fn query_one<T: serde::de::DeserializeOwned>(
        &self,
        args: &[Value],
    ) -> Result<Option<T>, Error> {
        crate::prepared::first_as(self.entry, &self.run(args)?)
    }

    /// E0667: a page reads in a transaction of its own.
    pub fn run_page(&self, _args: &[Value]) -> Result<crate::Page, Error> {
        Err(not_within("a page"))
    }

    /// E0667: a subscription reads in transactions of its own.
    pub fn subscribe(&self, _args: &[Value]) -> Result<crate::Subscription, Error> {
        Err(not_within("a subscription"))
    }
}

impl<'db> Transaction<'db> {
    pub(crate) fn new(
        db: &'db Database,
        runs: rqc_runtime::transaction::Transaction<'db>,
    ) -> Transaction<'db> {
        Transaction {
            db,
            runs: RefCell::new(runs),
        }
    }

    /// Looks an entry point up, to run it in this transaction (any number
    /// of times). Its page and subscription methods are refused (E0667):
    /// they read in transactions of their own.
    pub fn prepare(&self, name: &str) -> Result<TxPrepared<'_, 'db>, Error> {
        Ok(TxPrepared {
            transaction: self,
            entry: self.db.entry(name)?,
        })
    }

    /// Runs the query or mutation `name` in this transaction.
    pub fn run(&self, name: &str, args: &[Value]) -> Result<Output, Error> {
        self.prepare(name)?.run(args)
    }

    /// Runs an entry point compiled against the installed program but not
    /// installed (the REPL's expressions) in this transaction.
    pub fn run_entry(&self, entry: &Entry, args: &[Value]) -> Result<Output, Error> {
        Ok(self.runs.borrow_mut().run_entry(entry, args)?)
    }

    /// The transaction's bound so far: its calls' bounds summed, the commit
    /// counted once (spec/cost.md §11, "Transactions").
    pub fn bound(&self) -> Bound {
        self.runs.borrow().bound()
    }

    /// How many calls ran so far.
    pub fn calls(&self) -> u64 {
        self.runs.borrow().runs()
    }

    /// Stores every write of every call at once; returns what the whole
    /// transaction read, its commit's round trips counted. A conflict with
    /// another writer is E0595 (nothing stored: run the calls again).
    pub fn commit(self) -> Result<Stats, Error> {
        Ok(self.runs.into_inner().commit()?)
    }
}

/// E0667: a page or a subscription asked of an entry point prepared by a
/// transaction.
pub(crate) fn not_within(what: &str) -> Error {
    Error::Runtime(RuntimeError::new(
        "E0667",
        format!("{what} cannot be read inside a transaction: it reads in a transaction of its own"),
        "prepare the entry point with `Database::prepare` (outside the transaction), or run it with `run` inside",
    ))
}
