//! What a run returns: its value, the rows it wrote, and what it read against its bound.

use rqc_plan::{Bound, NodeStats, Value};

/// What a run read: B-tree descents and entries, and the calls on the
/// store's transaction it made (its commit included).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub seeks: u64,
    pub rows: u64,
    pub round_trips: u64,
}

/// The result of running an entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// The entry's value.
    pub value: Value,
    /// Rows written (mutations).
    pub written: u64,
    pub stats: Stats,
    pub bound: Bound,
    /// Per operator, by node id (for `explain --analyze`).
    pub operators: Vec<NodeStats>,
    /// Runs of the whole transaction: more than one when a commit
    /// conflicted with another and the mutation ran again (each attempt is
    /// held to the bound; `stats` are the last one's).
    pub attempts: u32,
}

impl Output {
    /// The value as rows: a list's items, a found row, nothing for none.
    pub fn rows(&self) -> &[Value] {
        match &self.value {
            Value::List(items) => items,
            Value::Null => &[],
            other => std::slice::from_ref(other),
        }
    }

    /// A mutation's output that wrote one row and read nothing: what the
    /// group-commit tests hand back from their work.
    #[cfg(test)]
    pub(crate) fn wrote_one(value: Value) -> Output {
        Output {
            value,
            written: 1,
            stats: Stats::default(),
            bound: Bound {
                seeks: 0,
                rows: 0,
                round_trips: 0,
            },
            operators: Vec::new(),
            attempts: 1,
        }
    }
}
