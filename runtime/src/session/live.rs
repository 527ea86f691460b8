//! What a session keeps for live queries: the key ranges an evaluation read (a subscription then listens to exactly these), and the changelog a commit records its written keys in.

use crate::error::Result;
use crate::live::changelog::{self, Logging};
use crate::live::ranges::{range_read, KeyRange, WriteSet};
use crate::store::{Tree, WriteTxn};

/// A range read: its tree, ends, direction and limit.
pub(crate) type RangeRead<'a> = (Tree, &'a [u8], Option<&'a [u8]>, bool, usize);

/// A session's live concerns; both kept only when asked for (a plain run
/// notes nothing).
#[derive(Default)]
pub(crate) struct LiveTrace<'s> {
    /// The key ranges read, when a live subscription evaluates.
    reads: Option<Vec<KeyRange>>,
    /// Where the commit records its writes for live subscriptions.
    log: Option<Logging<'s>>,
    /// The keys written so far (kept only with a log).
    written: WriteSet,
}

impl<'s> LiveTrace<'s> {
    /// Notes the key ranges read from now on ([`LiveTrace::take_reads`]).
    pub fn record_reads(&mut self) {
        self.reads = Some(Vec::new());
    }

    /// The key ranges read since [`LiveTrace::record_reads`].
    pub fn take_reads(&mut self) -> Vec<KeyRange> {
        self.reads.take().unwrap_or_default()
    }

    /// Records the commit's written keys in `log` (and wakes its watcher).
    pub fn log_to(&mut self, log: Logging<'s>) {
        self.log = Some(log);
    }

    /// A point read made.
    pub fn point(&mut self, tree: Tree, key: &[u8]) {
        if let Some(reads) = &mut self.reads {
            reads.push(KeyRange::point(tree, key));
        }
    }

    /// A range read made, and the entries it gave: what it depended on
    /// (`live::ranges::range_read`).
    pub fn range(&mut self, read: RangeRead<'_>, entries: &[(Vec<u8>, Vec<u8>)]) {
        let Some(reads) = &mut self.reads else {
            return;
        };
        let (tree, start, end, reverse, limit) = read;
        let last = entries.last().map(|(key, _)| key.as_slice());
        reads.push(range_read(
            tree,
            start,
            end,
            reverse,
            limit,
            last,
            entries.len(),
        ));
    }

    /// How many key ranges are noted (0 when none are kept).
    pub fn reads_noted(&self) -> usize {
        self.reads.as_ref().map_or(0, Vec::len)
    }

    /// The key ranges noted after the first `kept`, taken out.
    pub fn take_reads_after(&mut self, kept: usize) -> Vec<KeyRange> {
        match &mut self.reads {
            Some(reads) if reads.len() > kept => reads.split_off(kept),
            _ => Vec::new(),
        }
    }

    /// Notes again key ranges taken out.
    pub fn add_reads(&mut self, taken: Vec<KeyRange>) {
        if let Some(reads) = &mut self.reads {
            reads.extend(taken);
        }
    }

    /// A key written (kept only when the commit logs).
    pub fn wrote(&mut self, tree: Tree, key: &[u8]) {
        if self.log.is_some() {
            self.written.add(tree, key);
        }
    }

    /// Whether the commit appends a changelog entry (it logs, and wrote).
    pub fn appends(&self) -> bool {
        self.log.is_some() && !self.written.is_empty()
    }

    /// Appends the changelog entry of the keys written, in `txn`.
    pub fn append(&self, txn: &mut dyn WriteTxn) -> Result<()> {
        match &self.log {
            Some(log) if !self.written.is_empty() => {
                changelog::append(txn, log.tree, log.compact, log.names, &self.written)?;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Wakes the live watcher after a commit that logged.
    pub fn committed(&self) {
        if let Some(log) = &self.log {
            log.wake.committed();
        }
    }
}
