//! What a run's batches read ahead: the answers one level of reads got in one call, kept to answer those reads when the run makes them.
//!
//! `batch` evaluates a function over a list *dry* first: a read it meets is
//! answered from here, or noted as wanted and the evaluation stops
//! ([`Read::Wanted`]). Every element's wants go to the store as one
//! [`ReadTxn::read_batch`](crate::store::ReadTxn::read_batch), their answers
//! come here, and the next dry pass goes one level deeper. The run proper
//! then finds every read here. A query's reads all see one state, so the
//! answers stay good for the whole run; a write forgets them all.

use crate::store::{BatchAnswer, BatchRead, Entries, Tree};
use std::collections::{HashMap, HashSet};

/// What a read the executor makes through the session came to: made (from
/// the store, or answered from what a batch read ahead), or, in a dry pass,
/// only wanted: noted for the next batch and not made, and the pass stops
/// there (`batch`). A value, not an error: no user ever sees it.
#[must_use]
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Read<T> {
    Made(T),
    Wanted,
}

impl<T> Read<T> {
    /// The read's result, where a read is never only wanted (outside a
    /// dry pass): E0594 if it was.
    pub fn made(self) -> crate::error::Result<T> {
        match self {
            Read::Made(value) => Ok(value),
            Read::Wanted => Err(crate::error::internal(
                "a read was only wanted outside a read-ahead pass",
            )),
        }
    }
}

/// A range read ahead, by its tree, ends and direction.
type RangeAt = (Tree, Vec<u8>, Option<Vec<u8>>, bool);

/// A range's answer: where it ends, which way it was read, the limit it
/// was read with, and what it gave.
struct RangeAnswer {
    end: Option<Vec<u8>>,
    reverse: bool,
    read_with: usize,
    entries: Entries,
}

/// Answers are found by tree, then by key (or a range's start) as a slice:
/// a lookup allocates nothing.
#[derive(Default)]
pub(crate) struct ReadAhead {
    /// Whether reads are being gathered rather than made.
    pub dry: bool,
    wants: Vec<BatchRead>,
    points: HashMap<Tree, HashMap<Vec<u8>, Option<Vec<u8>>>>,
    /// By tree and start: the ranges from there (a handful of ends).
    ranges: HashMap<Tree, HashMap<Vec<u8>, Vec<RangeAnswer>>>,
}

impl ReadAhead {
    pub fn point(&self, tree: Tree, key: &[u8]) -> Option<Option<&[u8]>> {
        if self.points.is_empty() {
            return None;
        }
        self.points.get(&tree)?.get(key).map(Option::as_deref)
    }

    /// The range's first `limit` entries, when what was read holds them: it
    /// was read with a limit at least as large, or it ran out before its
    /// limit (so it holds the whole range). A dry pass asks for at least
    /// as many rows as the run does (an element's reads are counted from
    /// where the run stands before the elements, so the enclosing bounds
    /// leave it at least as much room).
    pub fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Option<&[(Vec<u8>, Vec<u8>)]> {
        if self.ranges.is_empty() {
            return None;
        }
        let answer = self
            .ranges
            .get(&tree)?
            .get(start)?
            .iter()
            .find(|a| a.end.as_deref() == end && a.reverse == reverse)?;
        let entries = &answer.entries;
        (limit <= answer.read_with || entries.len() < answer.read_with)
            .then(|| &entries[..limit.min(entries.len())])
    }

    pub fn want(&mut self, read: BatchRead) {
        self.wants.push(read);
    }

    /// The reads wanted since the last batch, each once; a range wanted
    /// with several limits once, with the largest (its answer holds the
    /// others' as prefixes).
    pub fn take_wants(&mut self) -> Vec<BatchRead> {
        let mut seen = HashSet::new();
        let mut widest: HashMap<RangeAt, usize> = HashMap::new();
        for read in &self.wants {
            if let BatchRead::Range {
                tree,
                start,
                end,
                reverse,
                limit,
            } = read
            {
                let most = widest
                    .entry((*tree, start.clone(), end.clone(), *reverse))
                    .or_insert(*limit);
                *most = (*most).max(*limit);
            }
        }
        std::mem::take(&mut self.wants)
            .into_iter()
            .filter_map(|read| match read {
                BatchRead::Range {
                    tree,
                    start,
                    end,
                    reverse,
                    ..
                } => {
                    let at = (tree, start, end, reverse);
                    let limit = widest.remove(&at)?;
                    let (tree, start, end, reverse) = at;
                    Some(BatchRead::Range {
                        tree,
                        start,
                        end,
                        reverse,
                        limit,
                    })
                }
                get => seen.insert(get.clone()).then_some(get),
            })
            .collect()
    }

    /// Keeps a batch's answers.
    pub fn answered(
        &mut self,
        reads: Vec<BatchRead>,
        answers: Vec<BatchAnswer>,
    ) -> crate::error::Result<()> {
        if reads.len() != answers.len() {
            return Err(crate::error::internal(
                "a batch of reads answered with another number of results",
            ));
        }
        for (read, answer) in reads.into_iter().zip(answers) {
            match (read, answer) {
                (BatchRead::Get { tree, key }, BatchAnswer::Got(found)) => {
                    self.points.entry(tree).or_default().insert(key, found);
                }
                (
                    BatchRead::Range {
                        tree,
                        start,
                        end,
                        reverse,
                        limit,
                    },
                    BatchAnswer::Ranged(ranged),
                ) => {
                    // One range wanted with two limits (`skip(3) |> take(2)`
                    // and `take(4)` of one stream): both answers come from
                    // one state, so the larger limit's holds the other's;
                    // keeping the smaller would send the larger's read to
                    // the store again, a round trip past the bound.
                    let answers = self
                        .ranges
                        .entry(tree)
                        .or_default()
                        .entry(start)
                        .or_default();
                    let answer = RangeAnswer {
                        end,
                        reverse,
                        read_with: limit,
                        entries: ranged.entries,
                    };
                    match answers
                        .iter_mut()
                        .find(|a| a.end == answer.end && a.reverse == answer.reverse)
                    {
                        Some(kept) if limit > kept.read_with => *kept = answer,
                        Some(_) => {}
                        None => answers.push(answer),
                    }
                }
                _ => {
                    return Err(crate::error::internal(
                        "a batch of reads answered out of order",
                    ))
                }
            }
        }
        Ok(())
    }

    /// Forgets every answer and want: the state they were read from changed.
    pub fn forget(&mut self) {
        // Every write calls this: nothing to do unless a batch read.
        if self.points.is_empty() && self.ranges.is_empty() && self.wants.is_empty() {
            return;
        }
        self.points.clear();
        self.ranges.clear();
        self.wants.clear();
    }
}
