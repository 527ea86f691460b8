//! A batch of point and range reads of any trees as one etcd Txn per operation limit, at the transaction's revision.
//!
//! What `runtime/src/batch.rs` reads for one level of a plan: the session
//! counts it as `⌈n / L⌉` round trips for `n` reads and the operation limit
//! `L` the database recorded, and this sends exactly that many requests.
//! In a write transaction every key and range read is noted for the
//! commit's compares, as a single read notes it, and pending writes are
//! merged over what is read.

use super::{in_tree, unexpected, EtcdRead, EtcdWrite, Read};
use crate::error::Result;
use crate::store::{BatchAnswer, BatchRead, Ranged};
use etcd_client::{SortOrder, SortTarget, TxnOp, TxnOpResponse};

/// One read of full keys.
enum FullRead {
    Get(Vec<u8>),
    Range {
        from: Vec<u8>,
        to: Vec<u8>,
        reverse: bool,
        limit: usize,
    },
}

enum FullAnswer {
    Get(Option<Read>),
    Range(Vec<Read>),
}

impl EtcdRead<'_> {
    /// The reads, in Txns of at most the operation limit each. A range
    /// that is empty or asks for nothing is answered without an operation
    /// (etcd reads a limit of 0 as no limit).
    fn batch_full(&self, reads: &[FullRead]) -> Result<Vec<FullAnswer>> {
        let store = self.store;
        let mut answers: Vec<Option<FullAnswer>> = reads
            .iter()
            .map(|read| match read {
                FullRead::Range {
                    from, to, limit, ..
                } if *limit == 0 || to <= from => Some(FullAnswer::Range(Vec::new())),
                _ => None,
            })
            .collect();
        let asked: Vec<usize> = (0..reads.len()).filter(|i| answers[*i].is_none()).collect();
        for chunk in asked.chunks(store.max_txn_ops.max(1)) {
            self.sent();
            let compare = self.first_compare();
            let response = store
                .runtime
                .block_on(retrying_txn(self, reads, chunk, &compare))
                .map_err(|e| store.error(e))?;
            self.compared(&compare, response.succeeded())?;
            self.fix(response.header())?;
            let got = response.op_responses();
            if got.len() != chunk.len() {
                return Err(unexpected(
                    "a batch of reads answered with another number of results",
                ));
            }
            for (answer, i) in got.into_iter().zip(chunk) {
                let TxnOpResponse::Get(mut got) = answer else {
                    return Err(unexpected("a read answered with a write"));
                };
                let kvs = got.take_kvs().into_iter().map(Read::from);
                answers[*i] = Some(match reads[*i] {
                    FullRead::Get(_) => FullAnswer::Get(kvs.into_iter().next()),
                    FullRead::Range { .. } => FullAnswer::Range(kvs.collect()),
                });
            }
        }
        answers
            .into_iter()
            .map(|a| a.ok_or_else(|| unexpected("a read missing from its batch's answer")))
            .collect()
    }

    /// [`ReadTxn::read_batch`](crate::store::ReadTxn::read_batch) of a read transaction.
    pub(super) fn batched(&self, reads: &[BatchRead]) -> Result<Vec<BatchAnswer>> {
        let full = self.full_reads(reads)?;
        let answers = self.batch_full(&full)?;
        reads
            .iter()
            .zip(answers)
            .map(|(read, answer)| match (read, answer) {
                (BatchRead::Get { .. }, FullAnswer::Get(found)) => {
                    Ok(BatchAnswer::Got(found.map(|r| r.value)))
                }
                (BatchRead::Range { tree, .. }, FullAnswer::Range(entries)) => {
                    let prefix_len = self.store.tree_prefix(*tree).len();
                    Ok(BatchAnswer::Ranged(Ranged {
                        entries: in_tree(prefix_len, &entries),
                        ..Ranged::default()
                    }))
                }
                _ => Err(unexpected("a batch of reads answered out of order")),
            })
            .collect()
    }

    fn full_reads(&self, reads: &[BatchRead]) -> Result<Vec<FullRead>> {
        reads
            .iter()
            .map(|read| {
                Ok(match read {
                    BatchRead::Get { tree, key } => {
                        FullRead::Get([self.store.tree_prefix(*tree).as_slice(), key].concat())
                    }
                    BatchRead::Range {
                        tree,
                        start,
                        end,
                        reverse,
                        limit,
                    } => {
                        let (from, to) = self.full_range(*tree, start, end.as_deref())?;
                        FullRead::Range {
                            from,
                            to,
                            reverse: *reverse,
                            limit: *limit,
                        }
                    }
                })
            })
            .collect()
    }
}

/// One Txn of the reads at `chunk`, retried as a single read is.
async fn retrying_txn(
    read: &EtcdRead<'_>,
    reads: &[FullRead],
    chunk: &[usize],
    compare: &Option<etcd_client::Compare>,
) -> std::result::Result<etcd_client::TxnResponse, etcd_client::Error> {
    let ops: Vec<TxnOp> = chunk
        .iter()
        .map(|i| match &reads[*i] {
            FullRead::Get(key) => TxnOp::get(key.clone(), Some(read.at())),
            FullRead::Range {
                from,
                to,
                reverse,
                limit,
            } => TxnOp::get(
                from.clone(),
                Some(
                    read.at()
                        .with_range(to.clone())
                        .with_limit(i64::try_from(*limit).unwrap_or(0))
                        .with_sort(
                            SortTarget::Key,
                            if *reverse {
                                SortOrder::Descend
                            } else {
                                SortOrder::Ascend
                            },
                        ),
                ),
            ),
        })
        .collect();
    let client = read.store.client.clone();
    super::connect::retrying_reads(|| {
        let mut kv = super::connect::kv(&client);
        let txn = EtcdRead::guarded(compare, ops.clone());
        async move { kv.txn(txn).await }
    })
    .await
}

impl EtcdWrite<'_> {
    /// [`ReadTxn::read_batch`](crate::store::ReadTxn::read_batch) of a write
    /// transaction: pending writes answer or merge, the rest is read as one
    /// batch and noted for the commit's compares.
    pub(super) fn batched(&self, reads: &[BatchRead]) -> Result<Vec<BatchAnswer>> {
        // A point the transaction wrote is answered by its write; a range
        // asks the store for enough entries that pending deletions cannot
        // leave it short.
        let mut stored = Vec::new();
        let mut positions = Vec::new();
        for (i, read) in reads.iter().enumerate() {
            match read {
                BatchRead::Get { tree, key } if self.overlay.get(*tree, key).is_some() => {}
                BatchRead::Range {
                    tree,
                    start,
                    end,
                    reverse,
                    limit,
                } => {
                    let asked = self
                        .overlay
                        .asked(*tree, start, end.as_deref(), *reverse, *limit);
                    stored.push(BatchRead::Range {
                        tree: *tree,
                        start: start.clone(),
                        end: end.clone(),
                        reverse: *reverse,
                        limit: asked,
                    });
                    positions.push(i);
                }
                other => {
                    stored.push(other.clone());
                    positions.push(i);
                }
            }
        }
        let full = self.read.full_reads(&stored)?;
        let answers = self.read.batch_full(&full)?;
        let mut by_position: Vec<Option<FullAnswer>> = (0..reads.len()).map(|_| None).collect();
        for ((i, answer), read) in positions.into_iter().zip(answers).zip(full) {
            match (&read, &answer) {
                (FullRead::Get(key), FullAnswer::Get(found)) => {
                    self.note(std::slice::from_ref(key), std::slice::from_ref(found))
                }
                (
                    FullRead::Range {
                        from,
                        to,
                        reverse,
                        limit,
                    },
                    FullAnswer::Range(entries),
                ) => self.note_range(from.clone(), to.clone(), entries, *limit, *reverse),
                _ => return Err(unexpected("a batch of reads answered out of order")),
            }
            by_position[i] = Some(answer);
        }
        reads
            .iter()
            .zip(by_position)
            .map(|(read, answer)| match (read, answer) {
                (BatchRead::Get { tree, key }, None) => {
                    Ok(BatchAnswer::Got(self.overlay.get(*tree, key).flatten()))
                }
                (BatchRead::Get { .. }, Some(FullAnswer::Get(found))) => {
                    Ok(BatchAnswer::Got(found.map(|r| r.value)))
                }
                (
                    BatchRead::Range {
                        tree,
                        start,
                        end,
                        reverse,
                        limit,
                    },
                    Some(FullAnswer::Range(entries)),
                ) => {
                    let prefix_len = self.read.store.tree_prefix(*tree).len();
                    let entries = in_tree(prefix_len, &entries);
                    let merged = self.overlay.range(
                        *tree,
                        start,
                        end.as_deref(),
                        *reverse,
                        *limit,
                        |_| Ok(entries),
                    )?;
                    Ok(BatchAnswer::Ranged(Ranged {
                        entries: merged,
                        ..Ranged::default()
                    }))
                }
                _ => Err(unexpected("a batch of reads answered out of order")),
            })
            .collect()
    }
}
