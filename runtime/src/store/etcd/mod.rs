//! The etcd backend: a database is a key prefix of a cluster, read at one revision and committed as one checked Txn.
//!
//! Keys: a tree is the sub-prefix `PREFIX/t/NAME\0` (a NUL ends the name,
//! so no tree's keys fall inside another's), and the database's marker is
//! `PREFIX/store` (see `connect`). The catalog is a tree like the others,
//! so everything of a database lives under its prefix.
//!
//! Isolation is optimistic: every read of a transaction is at one
//! revision (the first read fixes it), a write transaction buffers its
//! writes (`overlay`) and commits them as ONE etcd transaction whose
//! compares cover all it read from the store — each key read still has
//! the mod_revision it was read at (an absent one, 0), and each range read
//! has no key modified after the read revision (a range compare; a key
//! of the range that was deleted fails its own key's compare). A failed
//! compare is a conflict (E0595), which the engine answers by running the
//! mutation again. A commit larger than the cluster's operation limit,
//! measured when the database was made, is refused (E0564) before it is
//! sent.

mod batch;
mod commit;
mod connect;
mod errors;
mod watch;
mod write;
use write::EtcdWrite;

pub use connect::{is_etcd_url, EtcdOptions, EtcdUrl, PASSWORD_VARIABLE};

use super::overlay::Overlay;
use super::{
    BatchAnswer, BatchRead, Bell, ReadTxn, RequestLimit, Store, Tree, TreeNames, WriteTxn,
};
use crate::error::{Result, RuntimeError};
use connect::retrying_reads;
use errors::from_etcd;
use etcd_client::{
    Client, Compare, CompareOp, GetOptions, SortOrder, SortTarget, Txn, TxnOp, TxnOpResponse,
};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

pub struct EtcdStore {
    client: Client,
    /// Runs the client's futures: every call of the store blocks on one.
    runtime: tokio::runtime::Runtime,
    /// The URL as given, for messages.
    url: String,
    /// The database's prefix, ending with `/`.
    prefix: Vec<u8>,
    names: TreeNames,
    /// The cluster's operation limit recorded in the marker.
    max_txn_ops: usize,
    /// The largest request the cluster takes, as the marker records it.
    max_request_bytes: usize,
}

impl EtcdStore {
    /// Connects to the database at `url` (`etcd://host:port,.../prefix`),
    /// making it (its marker) when the prefix is empty.
    pub fn connect(url: &str, options: &EtcdOptions) -> Result<EtcdStore> {
        let parsed = EtcdUrl::parse(url)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("rqc-etcd")
            .enable_all()
            .build()
            .map_err(RuntimeError::store)?;
        let prefix = format!("{}/", parsed.prefix).into_bytes();
        let (client, marker) = runtime.block_on(async {
            let client = connect::connect(url, &parsed, options).await?;
            let marker = connect::marker(url, &client, &prefix).await?;
            Ok::<_, RuntimeError>((client, marker))
        })?;
        Ok(EtcdStore {
            client,
            runtime,
            url: url.to_string(),
            prefix,
            names: TreeNames::default(),
            max_txn_ops: marker.max_txn_ops,
            max_request_bytes: marker.max_request_bytes,
        })
    }

    /// The prefix of `tree`'s keys.
    fn tree_prefix(&self, tree: Tree) -> Vec<u8> {
        let name = self.names.name(tree);
        [self.prefix.as_slice(), b"t/", name.as_bytes(), b"\0"].concat()
    }

    fn error(&self, error: etcd_client::Error) -> RuntimeError {
        from_etcd(&self.url, error)
    }
}

impl Store for EtcdStore {
    fn tree(&self, name: &str) -> Tree {
        self.names.tree(name)
    }

    fn begin_read(&self) -> Result<Box<dyn ReadTxn + '_>> {
        Ok(Box::new(EtcdRead::new(self)))
    }

    fn begin_write(&self) -> Result<Box<dyn WriteTxn + '_>> {
        Ok(Box::new(EtcdWrite {
            read: EtcdRead::new(self),
            overlay: Overlay::default(),
            keys: RefCell::default(),
            ranges: RefCell::default(),
            expected: Vec::new(),
            from_key: None,
        }))
    }

    /// A commit etcd acknowledged is on a quorum's disks already.
    fn flush(&self) -> Result<()> {
        Ok(())
    }

    fn max_txn_ops(&self) -> Option<usize> {
        Some(self.max_txn_ops)
    }

    fn request_limit(&self) -> Option<RequestLimit> {
        Some(RequestLimit {
            max_bytes: self.max_request_bytes as u64,
            // `prefix` `t/` tree-name `\0`, before each tree's own key.
            key_overhead: self.prefix.len() as u64 + 3,
        })
    }

    /// An etcd watch on the key, on the store's own runtime: it ends with
    /// the store (the runtime drops its tasks) or once the bell is unwanted.
    fn ring_on_write(&self, tree: Tree, key: &[u8], bell: Arc<dyn Bell>) -> bool {
        let full = [self.tree_prefix(tree).as_slice(), key].concat();
        self.runtime
            .spawn(watch::ring(self.client.clone(), full, bell));
        true
    }
}

/// Reads at one revision of the cluster: the first read's, passed to the others.
struct EtcdRead<'s> {
    store: &'s EtcdStore,
    /// 0 until the first read fixes it.
    revision: Cell<i64>,
    /// Point reads made, by full key: at one revision a key reads the same
    /// every time, so a batch read ahead (a load's, see `load`) answers
    /// the single reads that follow without a round trip.
    points: RefCell<HashMap<Vec<u8>, Option<Read>>>,
    /// Requests sent so far (`ReadTxn::requests`): each Range or Txn of
    /// reads, counted where it is sent, once however often the client
    /// tried to reach a member.
    requests: Cell<u64>,
    /// A full key and the value it must hold, compared in the first
    /// request (`ReadTxn::expect_on_first_read`): the schema generation a
    /// handle's plans were proved for.
    expected: RefCell<Option<(Vec<u8>, Vec<u8>)>>,
}

/// An entry read from the store, with the revision it was last modified at.
#[derive(Clone)]
struct Read {
    key: Vec<u8>,
    value: Vec<u8>,
    mod_revision: i64,
}

impl From<etcd_client::KeyValue> for Read {
    fn from(kv: etcd_client::KeyValue) -> Read {
        let mod_revision = kv.mod_revision();
        let (key, value) = kv.into_key_value();
        Read {
            key,
            value,
            mod_revision,
        }
    }
}

impl<'s> EtcdRead<'s> {
    fn new(store: &'s EtcdStore) -> Self {
        EtcdRead {
            store,
            revision: Cell::new(0),
            points: RefCell::default(),
            requests: Cell::new(0),
            expected: RefCell::default(),
        }
    }

    /// The compare the first request carries, while one is asked for and
    /// nothing was read yet.
    fn first_compare(&self) -> Option<Compare> {
        if self.revision.get() != 0 {
            return None;
        }
        let expected = self.expected.borrow();
        let (key, value) = expected.as_ref()?;
        Some(Compare::value(key.clone(), CompareOp::Equal, value.clone()))
    }

    /// After a request that carried `compare`: E0550 when it failed (the
    /// key holds another value), and no compare on later requests.
    fn compared(&self, compare: &Option<Compare>, succeeded: bool) -> Result<()> {
        if compare.is_none() {
            return Ok(());
        }
        self.expected.replace(None);
        if succeeded {
            Ok(())
        } else {
            Err(RuntimeError::stale_schema_read())
        }
    }

    /// A Txn of `ops`, guarded by `compare` when there is one.
    fn guarded(compare: &Option<Compare>, ops: Vec<TxnOp>) -> Txn {
        match compare {
            Some(compare) => Txn::new().when(vec![compare.clone()]).and_then(ops),
            None => Txn::new().and_then(ops),
        }
    }

    /// Counts one request sent to the cluster.
    fn sent(&self) {
        self.requests.set(self.requests.get() + 1);
    }

    /// Options reading at the transaction's revision (the newest for the first read).
    fn at(&self) -> GetOptions {
        GetOptions::new().with_revision(self.revision.get())
    }

    /// Notes the revision a response was read at, when it is the first.
    fn fix(&self, header: Option<&etcd_client::ResponseHeader>) -> Result<()> {
        if self.revision.get() == 0 {
            let revision = header.map(|h| h.revision()).unwrap_or(0);
            if revision <= 0 {
                return Err(unexpected("a response without a revision"));
            }
            self.revision.set(revision);
        }
        Ok(())
    }

    /// Point reads of full keys, in batches of the operation limit (one
    /// round trip each), all at the transaction's revision; a key read
    /// before is answered from what it read.
    fn get_full(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Read>>> {
        let unread: Vec<Vec<u8>> = {
            let points = self.points.borrow();
            let mut unread: Vec<Vec<u8>> = keys
                .iter()
                .filter(|k| !points.contains_key(*k))
                .cloned()
                .collect();
            unread.sort();
            unread.dedup();
            unread
        };
        let read = self.fetch(&unread)?;
        let mut points = self.points.borrow_mut();
        for (key, found) in unread.into_iter().zip(read) {
            points.insert(key, found);
        }
        keys.iter()
            .map(|k| {
                points
                    .get(k)
                    .cloned()
                    .ok_or_else(|| unexpected("a key missing from its batch's answer"))
            })
            .collect()
    }

    /// Point reads of full keys from the cluster, in batches of the
    /// operation limit (one round trip each).
    fn fetch(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Read>>> {
        let store = self.store;
        let mut found = Vec::with_capacity(keys.len());
        for batch in keys.chunks(store.max_txn_ops.max(1)) {
            self.sent();
            let compare = self.first_compare();
            let response = store
                .runtime
                .block_on(retrying_reads(|| {
                    let mut kv = connect::kv(&store.client);
                    let ops: Vec<TxnOp> = batch
                        .iter()
                        .map(|key| TxnOp::get(key.clone(), Some(self.at())))
                        .collect();
                    let txn = Self::guarded(&compare, ops);
                    async move { kv.txn(txn).await }
                }))
                .map_err(|e| store.error(e))?;
            self.compared(&compare, response.succeeded())?;
            self.fix(response.header())?;
            let answers = response.op_responses();
            if answers.len() != batch.len() {
                return Err(unexpected(
                    "a batch of reads answered with another number of results",
                ));
            }
            for (answer, key) in answers.into_iter().zip(batch) {
                let TxnOpResponse::Get(mut got) = answer else {
                    return Err(unexpected("a read answered with a write"));
                };
                let read = got.take_kvs().into_iter().next().map(Read::from);
                debug_assert!(read.as_ref().is_none_or(|r| &r.key == key));
                found.push(read);
            }
        }
        Ok(found)
    }

    /// The full keys `[from, to)` of a range of `tree`.
    fn full_range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
    ) -> Result<(Vec<u8>, Vec<u8>)> {
        let prefix = self.store.tree_prefix(tree);
        let from = [prefix.as_slice(), start].concat();
        let to = match end {
            Some(end) => [prefix.as_slice(), end].concat(),
            None => super::prefix_end(&prefix)
                .ok_or_else(|| unexpected("a tree prefix without an end"))?,
        };
        Ok((from, to))
    }

    /// A range of `tree`'s entries, with full keys and revisions.
    fn range_full(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<(Vec<u8>, Vec<u8>, Vec<Read>)> {
        let store = self.store;
        let (from, to) = self.full_range(tree, start, end)?;
        if limit == 0 || to <= from {
            return Ok((from, to, Vec::new()));
        }
        // etcd 3.4 sorts a descending range after reading all of it; the
        // answer (and the round trip) still holds at most `limit` entries.
        let order = if reverse {
            SortOrder::Descend
        } else {
            SortOrder::Ascend
        };
        let options = self
            .at()
            .with_range(to.clone())
            .with_limit(i64::try_from(limit).unwrap_or(0))
            .with_sort(SortTarget::Key, order);
        self.sent();
        if let Some(compare) = self.first_compare() {
            // The first request: the range as a Txn guarded by the compare.
            let compare = Some(compare);
            let response = store
                .runtime
                .block_on(retrying_reads(|| {
                    let mut kv = connect::kv(&store.client);
                    let op = TxnOp::get(from.clone(), Some(options.clone()));
                    let txn = Self::guarded(&compare, vec![op]);
                    async move { kv.txn(txn).await }
                }))
                .map_err(|e| store.error(e))?;
            self.compared(&compare, response.succeeded())?;
            self.fix(response.header())?;
            let Some(TxnOpResponse::Get(mut got)) = response.op_responses().into_iter().next()
            else {
                return Err(unexpected("a range read answered with something else"));
            };
            let reads = got.take_kvs().into_iter().map(Read::from).collect();
            return Ok((from, to, reads));
        }
        let mut response = store
            .runtime
            .block_on(retrying_reads(|| {
                let mut kv = connect::kv(&store.client);
                let (key, options) = (from.clone(), options.clone());
                async move { kv.get(key, Some(options)).await }
            }))
            .map_err(|e| store.error(e))?;
        self.fix(response.header())?;
        let reads = response.take_kvs().into_iter().map(Read::from).collect();
        Ok((from, to, reads))
    }
}

/// `reads` with their keys as the tree knows them (without its prefix).
fn in_tree(prefix_len: usize, reads: &[Read]) -> Vec<(Vec<u8>, Vec<u8>)> {
    reads
        .iter()
        .map(|r| (r.key[prefix_len..].to_vec(), r.value.clone()))
        .collect()
}

impl ReadTxn for EtcdRead<'_> {
    fn expect_on_first_read(&self, tree: Tree, key: &[u8], value: &[u8]) {
        if self.revision.get() == 0 {
            let full = [self.store.tree_prefix(tree).as_slice(), key].concat();
            self.expected.replace(Some((full, value.to_vec())));
        }
    }

    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let full = [self.store.tree_prefix(tree).as_slice(), key].concat();
        Ok(self.get_full(&[full])?.pop().flatten().map(|r| r.value))
    }

    fn requests(&self) -> Option<u64> {
        Some(self.requests.get())
    }

    fn read_batch(&self, reads: &[BatchRead]) -> Result<Vec<BatchAnswer>> {
        self.batched(reads)
    }

    fn get_many(&self, tree: Tree, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        let prefix = self.store.tree_prefix(tree);
        let full: Vec<Vec<u8>> = keys
            .iter()
            .map(|k| [prefix.as_slice(), k].concat())
            .collect();
        Ok(self
            .get_full(&full)?
            .into_iter()
            .map(|r| r.map(|r| r.value))
            .collect())
    }

    fn range(
        &self,
        tree: Tree,
        start: &[u8],
        end: Option<&[u8]>,
        reverse: bool,
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let prefix_len = self.store.tree_prefix(tree).len();
        let (_, _, reads) = self.range_full(tree, start, end, reverse, limit)?;
        Ok(in_tree(prefix_len, &reads))
    }
}

/// E0579: the cluster answered in a shape rqc does not expect.
fn unexpected(what: &str) -> RuntimeError {
    RuntimeError::new(
        "E0579",
        format!("the etcd cluster sent {what} (a bug in rqc, or an etcd it does not support)"),
        "report it with the etcd version (`etcd --version`)",
    )
}
