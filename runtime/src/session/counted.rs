//! Taking back what one evaluation counted: a dry read-ahead pass keeps an element's seeks, rows and key ranges read with its result, and the run counts them when it reaches it (`batch`).

use super::Session;
use crate::live::ranges::KeyRange;

/// Where a session's counts stood ([`Session::mark`]).
pub(crate) struct Mark {
    seeks: u64,
    rows: u64,
    reads: usize,
}

/// What one evaluation counted, held apart until the run reaches it.
#[derive(Default)]
pub(crate) struct Counted {
    seeks: u64,
    rows: u64,
    reads: Vec<KeyRange>,
}

impl Session<'_> {
    /// Where the counts stand, so that what one evaluation counts can be
    /// taken back ([`Session::take_since`]).
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            seeks: self.meter.seeks,
            rows: self.meter.rows,
            reads: self.live.reads_noted(),
        }
    }

    /// The seeks, rows and key ranges read counted since `mark`, taken out of
    /// the totals (a dry pass keeps them with the element's result, and
    /// [`Session::add`] counts them when the run reaches it). Round trips
    /// stay: a call made is counted where it is made.
    pub(crate) fn take_since(&mut self, mark: &Mark) -> Counted {
        let counted = Counted {
            seeks: self.meter.seeks.saturating_sub(mark.seeks),
            rows: self.meter.rows.saturating_sub(mark.rows),
            reads: self.live.take_reads_after(mark.reads),
        };
        self.meter.seeks = mark.seeks;
        self.meter.rows = mark.rows;
        counted
    }

    /// Counts what [`Session::take_since`] took out.
    pub(crate) fn add(&mut self, counted: Counted) {
        self.meter.seeks += counted.seeks;
        self.meter.rows += counted.rows;
        self.live.add_reads(counted.reads);
    }
}
