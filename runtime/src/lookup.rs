//! Point lookups of a plan (`Get`, `GetUnique`, an aggregate's read): the tree they read, their encoded key, and the read itself.

use crate::bound::BoundTable;
use crate::encoding::key::encode_component;
use crate::error::Result;
use crate::halt::{Eval, Halt};
use crate::interp::{internal, Interp};
use crate::read_ahead::Read;
use crate::values::Env;
use rqc_plan::{Node, Op};

impl<'p> Interp<'p, '_> {
    /// A lookup's read: in a mutation on a store of limited requests, a key
    /// longer than any the table's trees hold (an argument past a column's
    /// length bound) finds nothing without asking the store, so no request
    /// carries it (`entry_bytes`).
    pub(crate) fn point_read(
        &mut self,
        table: &BoundTable,
        tree: crate::store::Tree,
        key: &[u8],
    ) -> Eval<Option<Vec<u8>>> {
        if self.cannot_exist(table, key) {
            return Ok(None);
        }
        match self.session.get_ahead(tree, key)? {
            Read::Made(found) => Ok(found),
            Read::Wanted => Err(Halt::Blocked),
        }
    }

    /// Whether a lookup of `key` may find nothing without asking the store
    /// (see [`Interp::point_read`]).
    pub(crate) fn cannot_exist(&self, table: &BoundTable, key: &[u8]) -> bool {
        self.session.expects.clamps_keys() && crate::entry_bytes::cannot_exist(key, table.key_limit)
    }

    /// The tree a lookup (`Get` or `GetUnique`) reads: the rows, or the
    /// unique index (whose entries hold the row).
    pub(crate) fn lookup_tree(&self, node: &Node) -> Result<crate::store::Tree> {
        let (table, index) = self.access(node)?;
        Ok(match (&node.op, index) {
            (Op::Get { .. }, _) => table.rows,
            (Op::Aggregate { .. }, Some(a)) => *table
                .aggregates
                .get(a)
                .ok_or_else(|| internal("an aggregate read bound to no aggregate"))?,
            (Op::GetUnique { .. }, Some(index)) => table.indexes[index],
            (Op::GetUnique { .. }, None) => {
                return Err(internal("a unique read without its index"))
            }
            _ => return Err(internal("a lookup that is not one")),
        })
    }

    /// The encoded key a lookup reads, its key values evaluated in `env`.
    pub(crate) fn lookup_key(&mut self, node: &'p Node, env: &Env<'p>) -> Eval<Vec<u8>> {
        let (table, index) = self.access(node)?;
        // Each value encoded as it is computed: no list of them is built.
        let (nodes, descending): (&'p [Node], &'p [bool]) = match (&node.op, index) {
            (Op::Get { key, .. }, _) | (Op::Aggregate { key, .. }, _) => (key, &[]),
            (Op::GetUnique { values, .. }, Some(index)) => {
                (values, &table.schema.indexes[index].descending)
            }
            (Op::GetUnique { .. }, None) => {
                return Err(internal("a unique read without its index").into())
            }
            _ => return Err(internal("a lookup that is not one").into()),
        };
        let mut key = Vec::with_capacity(nodes.len() * 9);
        for (i, node) in nodes.iter().enumerate() {
            let desc = descending.get(i).copied().unwrap_or(false);
            match &node.op {
                // A parameter is encoded where it lies, uncloned.
                Op::Param(p) if node.bound.is_none() && !self.analyzing => {
                    let value = self
                        .params
                        .get(*p)
                        .ok_or_else(|| internal("missing parameter"))?;
                    encode_component(&mut key, value, desc)?;
                }
                _ => {
                    let value = self.value(node, env)?;
                    encode_component(&mut key, &value, desc)?;
                }
            }
        }
        if matches!(node.op, Op::Aggregate { .. }) {
            // A whole-table aggregate's one group has a key of its own.
            return Ok(crate::aggregates::group_bytes(key)?);
        }
        Ok(key)
    }
}
