//! What a run has read so far: its seeks, rows and round trips, the counts the executor holds to the printed bound.

/// The counts of one session's reads (spec/cost.md §8, §11): B-tree
/// descents, entries read, and calls that read through the transaction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Meter {
    pub seeks: u64,
    pub rows: u64,
    pub trips: u64,
}

impl Meter {
    /// What was counted since `before` (a reading taken earlier).
    pub fn since(&self, before: &Meter) -> Meter {
        Meter {
            seeks: self.seeks.saturating_sub(before.seeks),
            rows: self.rows.saturating_sub(before.rows),
            trips: self.trips.saturating_sub(before.trips),
        }
    }
}
