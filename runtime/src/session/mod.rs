//! A session: the reads and writes of one run inside one store transaction, counted.
//!
//! A query's session reads through one read transaction; a mutation's (and
//! a load's, and a catalog install's) does all its reads, checks, counter
//! updates and writes inside one write transaction, whose reads see its
//! writes. [`Session::commit`] commits it; a session dropped without that
//! (an error, `explain --analyze`) stores nothing.
//!
//! Round trips are counted here, the same on every backend: each request a
//! remote store's transaction sends (`ReadTxn::requests`, counted where it
//! is sent), or on a store in this process each call that reads through
//! the transaction (`get`, `range`, `read_batch`); the commit's read of the
//! changelog's head; and one for a commit that writes. Beginning the
//! transaction and the writes it buffers are not (spec/cost.md §11).
//!
//! `Session` composes its concerns, each a type of its own: the meter
//! (`crate::meter`), what batches read ahead (`crate::read_ahead`), what
//! it wrote ([`written`]), what live queries need of it ([`live`]: the
//! key ranges read, the changelog), what it expects of the database
//! ([`expects`]: the schema generation, clamped keys), a load's sums held
//! past 64 bits ([`load_sums`]), and the counts a dry pass takes back
//! ([`counted`]). The executor's reads are read-ahead-aware (`*_ahead`,
//! a [`Read::Wanted`] in a dry pass); the data layer's plain reads and
//! every write never run dry (E0594 if one did).

mod counted;
mod expects;
mod live;
mod load_sums;
mod written;

pub(crate) use counted::Counted;
pub(crate) use load_sums::{DeferredSum, DeferredSums};

use crate::error::{internal, Result, RuntimeError};
use crate::live::changelog;
use crate::meter::Meter;
use crate::read_ahead::{Read, ReadAhead};
use crate::store::{BatchRead, Entries, Found, Lent, ReadTxn, Store, Tree, WriteTxn};
use expects::Expectations;
use live::{LiveTrace, RangeRead};
use written::Written;

enum Txn<'s> {
    Read(Box<dyn ReadTxn + 's>),
    Write(Box<dyn WriteTxn + 's>),
}

pub struct Session<'s> {
    store: &'s dyn Store,
    txn: Txn<'s>,
    /// Whether the commit is readied ([`Session::prepare_commit`]).
    prepared: bool,
    /// B-tree descents, entries read and calls that read through the
    /// transaction so far.
    pub meter: Meter,
    /// Reads made ahead by batches, and the reads a dry pass wants.
    pub(crate) ahead: ReadAhead,
    /// What it wrote: entries, table rows, whether the commit has work.
    written: Written,
    /// The key ranges read and the changelog, for live queries.
    pub(crate) live: LiveTrace<'s>,
    /// The schema generation the commit expects, and whether keys are
    /// clamped.
    pub(crate) expects: Expectations<'s>,
    /// `now()`, read on its first call in this transaction attempt.
    now: Option<i64>,
    /// A load's aggregate sums held past 64 bits (`None` outside a load).
    deferred_sums: Option<DeferredSums>,
}

impl<'s> Session<'s> {
    /// A session for a query: reads only, one consistent state.
    pub fn read(store: &'s dyn Store) -> Result<Session<'s>> {
        Ok(Session::over(store, Txn::Read(store.begin_read()?)))
    }

    /// A session for a mutation, a load or a migration.
    pub fn write(store: &'s dyn Store) -> Result<Session<'s>> {
        Ok(Session::write_in(store, store.begin_write()?))
    }

    /// A session for a mutation in a write transaction of `store` begun
    /// elsewhere (a group commit's, `crate::group`).
    pub(crate) fn write_in(store: &'s dyn Store, txn: Box<dyn WriteTxn + 's>) -> Session<'s> {
        Session::over(store, Txn::Write(txn))
    }

    /// The session, keeping no keys of the rows it writes (for a load,
    /// which counts its rows itself: [`Session::rows_written`] stays 0).
    pub fn without_row_keys(mut self) -> Session<'s> {
        self.written.without_row_keys();
        self
    }

    /// The session, letting an aggregate's sum pass 64 bits between rows
    /// (for a load and a restore, whose rows come in any order): it is
    /// written when it is back within them, and [`Session::commit`]
    /// refuses with the overflow (E0526) if any is left past them.
    pub fn deferring_sums(mut self) -> Session<'s> {
        self.deferred_sums = Some(DeferredSums::default());
        self
    }

    /// The sums left past 64 bits so far, when this session defers them.
    pub(crate) fn deferred_sums(&mut self) -> Option<&mut DeferredSums> {
        self.deferred_sums.as_mut()
    }

    /// E0526 if a deferred sum is left past 64 bits (the first group's, in
    /// key order): what the whole load leaves must fit.
    pub fn sums_settled(&self) -> Result<()> {
        match &self.deferred_sums {
            Some(deferred) => deferred.settled(),
            None => Ok(()),
        }
    }

    fn over(store: &'s dyn Store, txn: Txn<'s>) -> Session<'s> {
        let clamps_keys = matches!(txn, Txn::Write(_)) && store.request_limit().is_some();
        Session {
            store,
            txn,
            prepared: false,
            meter: Meter::default(),
            ahead: ReadAhead::default(),
            written: Written::default(),
            live: LiveTrace::default(),
            expects: Expectations::new(clamps_keys),
            now: None,
            deferred_sums: None,
        }
    }

    /// `now()`: the clock read once per transaction attempt (a session is
    /// one), the same value for every call in it (`crate::clock`).
    pub fn now(&mut self) -> Result<i64> {
        match self.now {
            Some(now) => Ok(now),
            None => {
                let now = crate::clock::now_micros()?;
                self.now = Some(now);
                Ok(now)
            }
        }
    }

    /// The handle of a tree named on a cold path (the catalog, a migration):
    /// runs use handles bound at install.
    pub fn tree(&self, name: &str) -> Tree {
        self.store.tree(name)
    }

    /// A call that reads through the transaction, with its round trips
    /// counted: the requests a remote store sent for it, or `local` on a
    /// store in this process (one call; a batch, as many as a store with
    /// an operation limit would send). Counted whether it succeeds or not.
    fn call<T>(&mut self, local: u64, read: impl FnOnce(&dyn ReadTxn) -> Result<T>) -> Result<T> {
        let txn = self.reads();
        let before = txn.requests();
        let result = read(txn);
        let made = match (before, txn.requests()) {
            (Some(before), Some(after)) => after.saturating_sub(before),
            _ => local,
        };
        self.meter.trips += made;
        result
    }

    /// The transaction's reads, uncounted (the catalog's own reads).
    pub fn reads(&self) -> &dyn ReadTxn {
        match &self.txn {
            Txn::Read(txn) => txn.as_ref(),
            Txn::Write(txn) => txn.as_ref(),
        }
    }

    fn writes(&mut self) -> Result<&mut dyn WriteTxn> {
        match &mut self.txn {
            Txn::Write(txn) => Ok(txn.as_mut()),
            Txn::Read(_) => Err(RuntimeError::new(
                "E0594",
                "a write in a run that only reads",
                "this is a bug in rqc; please report it with the program",
            )),
        }
    }

    /// A point read: one seek, one row when found (answered from what a
    /// batch read ahead when it holds it: no call). The data layer's: never
    /// in a dry pass, whose reads are the executor's [`Session::get_ahead`].
    pub fn get(&mut self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.not_dry("a read")?;
        self.get_ahead(tree, key)?.made()
    }

    /// The executor's point read: [`Session::get`], or in a dry pass, when
    /// it was not read ahead, only wanted (`batch` takes a stopped
    /// element's counts back).
    pub(crate) fn get_ahead(&mut self, tree: Tree, key: &[u8]) -> Result<Read<Option<Vec<u8>>>> {
        if !self.ahead.dry && self.ahead.point(tree, key).is_none() {
            // From the store: its owned value, moved (a write transaction's
            // reads lend nothing, so `get_with_ahead` would copy it twice).
            self.meter.seeks += 1;
            let value = self.call(1, |txn| txn.get(tree, key))?;
            self.live.point(tree, key);
            if value.is_some() {
                self.meter.rows += 1;
            }
            return Ok(Read::Made(value));
        }
        let mut value = None;
        let read = self.get_with_ahead(tree, key, &mut |found| {
            value = found.map(<[u8]>::to_vec);
            Ok(())
        })?;
        Ok(match read {
            Read::Made(()) => Read::Made(value),
            Read::Wanted => Read::Wanted,
        })
    }

    /// [`Session::get_ahead`], the value handed to `found` where it lies
    /// (in the store's page, or in what a batch read ahead): no copy.
    pub(crate) fn get_with_ahead(
        &mut self,
        tree: Tree,
        key: &[u8],
        found: &mut Found<'_>,
    ) -> Result<Read<()>> {
        let mut is_some = false;
        let mut seen = |value: Option<&[u8]>| {
            is_some = value.is_some();
            found(value)
        };
        match self.ahead.point(tree, key) {
            Some(value) => {
                self.meter.seeks += 1;
                seen(value)?;
            }
            None if self.ahead.dry => {
                self.ahead.want(BatchRead::Get {
                    tree,
                    key: key.to_vec(),
                });
                return Ok(Read::Wanted);
            }
            None => {
                self.meter.seeks += 1;
                self.call(1, |txn| txn.get_with(tree, key, &mut seen))?;
            }
        }
        self.live.point(tree, key);
        if is_some {
            self.meter.rows += 1;
        }
        Ok(Read::Made(()))
    }

    /// A point read that always counts a row (a counter's read-modify-write).
    pub fn get_counter(&mut self, tree: Tree, key: &[u8]) -> Result<u64> {
        let value = self.get(tree, key)?;
        if value.is_none() {
            self.meter.rows += 1;
        }
        Ok(value
            .and_then(|bytes| <[u8; 8]>::try_from(bytes.as_slice()).ok())
            .map(u64::from_be_bytes)
            .unwrap_or(0))
    }

    /// A counter of zero is no entry at all.
    pub fn set_counter(&mut self, tree: Tree, key: &[u8], value: u64) -> Result<()> {
        if value == 0 {
            self.delete(tree, key)
        } else {
            self.put(tree, key, &value.to_be_bytes())
        }
    }

    /// Entries with keys in `[start, end)` in order, at most `limit`: one
    /// seek, one row per entry.
    pub fn range(
        &mut self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        self.range_in(tree, start, end, false, limit)
    }

    /// Every entry of `tree` in key order, handed to `each` a chunk of at
    /// most `chunk` at a time, each chunk read from just after the last
    /// key of the one before: what a migration holds of a tree is one
    /// chunk, never the tree (issue 35 §6). `each` may write into `tree`
    /// (a migration rewrites the rows it reads, or deletes them): a key at
    /// or before the last one read is not read again, one written after it
    /// is read in its turn. One seek per chunk, one row per entry.
    pub fn each_chunk(
        &mut self,
        tree: Tree,
        chunk: usize,
        mut each: impl FnMut(&mut Session<'s>, Entries) -> Result<()>,
    ) -> Result<()> {
        let chunk = chunk.max(1);
        let mut start = Vec::new();
        loop {
            let entries = self.range(tree, &start, None, chunk)?;
            let last = entries.len() < chunk;
            match entries.last() {
                Some((key, _)) => crate::store::just_after(key, &mut start),
                None => return Ok(()),
            }
            each(self, entries)?;
            if last {
                return Ok(());
            }
        }
    }

    /// Like [`Session::range`], from the high end down when `reverse` (a
    /// reverse read, a `max` aggregate's next extreme through an ascending
    /// index): the same one seek and one row per entry. Never in a dry pass.
    pub fn range_in(
        &mut self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        self.not_dry("a range read")?;
        self.range_ahead(tree, start, end, reverse, limit)?.made()
    }

    /// [`Session::range_in`], or in a dry pass, when it was not read ahead,
    /// only wanted.
    fn range_ahead(
        &mut self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Read<Entries>> {
        // An empty range (such as `t1..t2` with t1 > t2) reads nothing.
        if end.is_some_and(|end| end <= start) {
            self.meter.seeks += 1;
            return Ok(Read::Made(Vec::new()));
        }
        let result = match self.ahead.range(tree, start, end, reverse, limit) {
            Some(result) => {
                self.meter.seeks += 1;
                result.to_vec()
            }
            None if self.ahead.dry => {
                self.ahead.want(BatchRead::Range {
                    tree,
                    start: start.to_vec(),
                    end: end.map(<[u8]>::to_vec),
                    reverse,
                    limit,
                });
                return Ok(Read::Wanted);
            }
            None => {
                self.meter.seeks += 1;
                self.call(1, |txn| txn.range(tree, start, end, reverse, limit))?
            }
        };
        self.ranged((tree, start, end, reverse, limit), &result);
        Ok(Read::Made(result))
    }

    /// The executor's range read: its entries handed to `read` where they
    /// lie when a batch read them ahead (no copy), counted as
    /// [`Session::range_in`]; in a dry pass, when not read ahead, only
    /// wanted.
    pub(crate) fn range_with_ahead(
        &mut self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
        read: &mut Lent<'_>,
    ) -> Result<Read<()>> {
        let empty = end.is_some_and(|end| end <= start);
        let ahead = if empty {
            None
        } else {
            self.ahead.range(tree, start, end, reverse, limit)
        };
        let Some(entries) = ahead else {
            return match self.range_ahead(tree, start, end, reverse, limit)? {
                Read::Made(entries) => read(&entries).map(Read::Made),
                Read::Wanted => Ok(Read::Wanted),
            };
        };
        self.meter.seeks += 1;
        self.meter.rows += entries.len() as u64;
        self.live.range((tree, start, end, reverse, limit), entries);
        read(entries).map(Read::Made)
    }

    /// Counts a range's entries as rows read, and notes what they depended
    /// on for a subscription.
    fn ranged(&mut self, read: RangeRead<'_>, entries: &[(Vec<u8>, Vec<u8>)]) {
        self.meter.rows += entries.len() as u64;
        self.live.range(read, entries);
    }

    /// E0594 if a plain read or a write comes in a dry pass: the executor's
    /// reads there are the `_ahead` ones, and it stops a pass at a write
    /// operator before the data layer is entered (`halt::Halt::DryWrite`).
    fn not_dry(&self, what: &str) -> Result<()> {
        if self.ahead.dry {
            return Err(internal(&format!(
                "{what} reached the session in a read-ahead pass"
            )));
        }
        Ok(())
    }

    /// The most reads one request of the store holds, when it has a limit.
    pub(crate) fn max_txn_ops(&self) -> Option<u64> {
        self.store.max_txn_ops().map(|l| l as u64)
    }

    /// Whether reads are being gathered by a dry pass (`batch`).
    pub(crate) fn dry(&self) -> bool {
        self.ahead.dry
    }

    /// Makes the reads the dry passes wanted, as one batch: one round trip,
    /// or one per operation limit of them on a store that has one. Their
    /// seeks and rows are counted when the run makes each read.
    pub(crate) fn read_wanted(&mut self) -> Result<()> {
        let wanted = self.ahead.take_wants();
        if wanted.is_empty() {
            return Ok(());
        }
        let calls = match self.store.max_txn_ops() {
            Some(limit) => wanted.len().div_ceil(limit.max(1)),
            None => 1,
        };
        let answers = self.call(calls as u64, |txn| txn.read_batch(&wanted))?;
        self.ahead.answered(wanted, answers)
    }

    /// Drops what dry passes wanted and did not get read.
    pub(crate) fn drop_wanted(&mut self) {
        self.ahead.take_wants();
    }

    /// An index entry, a counter or a catalog entry written.
    pub fn put(&mut self, tree: Tree, key: &[u8], value: &[u8]) -> Result<()> {
        self.not_dry("a write")?;
        self.ahead.forget();
        self.writes()?.put(tree, key, value)?;
        self.written.entry();
        self.live.wrote(tree, key);
        Ok(())
    }

    pub fn delete(&mut self, tree: Tree, key: &[u8]) -> Result<()> {
        self.not_dry("a write")?;
        self.ahead.forget();
        self.writes()?.delete(tree, key)?;
        self.written.entry();
        self.live.wrote(tree, key);
        Ok(())
    }

    /// Records a program's install in the live changelog, in this
    /// transaction (a catalog install's session logs nothing else: every
    /// subscription is planned again at an install, whatever it wrote).
    /// Returns the install's position.
    pub(crate) fn log_install(
        &mut self,
        catalog: Tree,
        position_key: &'static [u8],
    ) -> Result<changelog::Position> {
        let store = self.store;
        let position = changelog::append_install(self.writes()?, store, catalog, position_key)?;
        self.written.other();
        Ok(position)
    }

    /// A table's row written (inserted or updated): counted as written.
    pub fn put_row(&mut self, tree: Tree, key: &[u8], value: &[u8]) -> Result<()> {
        self.put(tree, key, value)?;
        self.written.row(tree, key);
        Ok(())
    }

    /// A table's row deleted: counted as written.
    pub fn delete_row(&mut self, tree: Tree, key: &[u8]) -> Result<()> {
        self.delete(tree, key)?;
        self.written.row(tree, key);
        Ok(())
    }

    /// A read-modify-write's read that found nothing: counted as a row all
    /// the same (spec/cost.md §7 charges the check a row found or not).
    pub fn count_row(&mut self) {
        self.meter.rows += 1;
    }

    /// An index entry written or removed: one seek into that index.
    pub fn count_seek(&mut self) {
        self.meter.seeks += 1;
    }

    /// How many entries were put or deleted so far (two readings differ
    /// when something was written in between).
    pub fn entries_written(&self) -> u64 {
        self.written.entries()
    }

    /// Table rows inserted, updated or deleted (index entries and counters
    /// not counted).
    pub fn rows_written(&self) -> u64 {
        self.written.rows()
    }

    /// Whether [`Session::commit`] will call the store (one more round trip).
    pub fn commits(&self) -> bool {
        matches!(self.txn, Txn::Write(_)) && self.written.any()
    }

    /// Readies the commit inside the transaction, before it is held to the
    /// bound: the schema generation it expects (a compare of the commit's
    /// own request on etcd, a check now on a store whose writers take
    /// turns), and with a changelog the entry of the keys written, at the
    /// position after its head, whose read is one round trip, counted
    /// (spec/cost.md §11). Nothing is stored until [`Session::commit`].
    pub fn prepare_commit(&mut self) -> Result<()> {
        self.sums_settled()?;
        if self.prepared || !self.written.any() {
            return Ok(());
        }
        let Txn::Write(txn) = &mut self.txn else {
            return Ok(());
        };
        self.expects.hold(txn.as_mut())?;
        if self.live.appends() {
            let before = txn.requests();
            let appended = self.live.append(txn.as_mut());
            self.meter.trips += match (before, txn.requests()) {
                (Some(before), Some(after)) => after.saturating_sub(before),
                _ => 1,
            };
            appended?;
        }
        self.prepared = true;
        Ok(())
    }

    /// Commits the run's writes, all at once (a run that only read has
    /// nothing to commit), readied first if [`Session::prepare_commit`]
    /// was not called. A stale schema is told apart from a conflict by the
    /// store itself (its check, or the failed commit's own answer), so the
    /// commit reads nothing more. The live watcher is woken after.
    pub fn commit(mut self) -> Result<()> {
        self.prepare_commit()?;
        match self.txn {
            Txn::Write(txn) if self.written.any() => {
                txn.commit()?;
                self.live.committed();
                Ok(())
            }
            _ => Ok(()),
        }
    }
}
