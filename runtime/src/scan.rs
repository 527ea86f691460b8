//! Range reads: a scan's key range from its prefix and bounds, and reading rows from it, eagerly or as a stream's consumer asks.

use crate::bound::BoundTable;
use crate::encoding::key::{encode_component, encode_key, encode_string_prefix};
use crate::entry_bytes::clamp_end;
use crate::error::internal;
use crate::halt::{Eval, Halt};
use crate::interp::Interp;
use crate::read_ahead::Read;
use crate::rows::decode_record;
use crate::store::prefix_end;
use crate::values::{Env, Stream, Val};
use rqc_plan::{Node, Op, RangeEnd, Value};

impl<'p> Interp<'p, '_> {
    /// The key range of a scan: the prefix's entries, narrowed by the range
    /// on the next column. Evaluates the prefix and bounds; reads nothing.
    pub(crate) fn range(
        &mut self,
        table: &'p BoundTable,
        index: Option<usize>,
        prefix: &'p [Node],
        lower: &'p Option<RangeEnd>,
        upper: &'p Option<RangeEnd>,
        env: &Env<'p>,
    ) -> Eval<Stream<'p>> {
        // Key columns are all ascending (an empty list says so).
        let (tree, descending): (_, &[bool]) = match index {
            None => (table.rows, &[]),
            Some(i) => (table.indexes[i], &table.schema.indexes[i].descending),
        };
        let width = match index {
            None => table.schema.key.len(),
            Some(i) => table.schema.indexes[i].columns.len(),
        };
        let mut prefix_values = Vec::with_capacity(prefix.len());
        for p in prefix {
            prefix_values.push(self.value(p, env)?);
        }
        let prefix_bytes = encode_key(&prefix_values, descending)?;
        let next_desc = descending
            .get(prefix_values.len())
            .copied()
            .unwrap_or(false);
        let mut end_of = |e: &'p Option<RangeEnd>| -> Eval<Option<(Vec<u8>, bool)>> {
            let Some(end) = e else { return Ok(None) };
            let mut bytes = prefix_bytes.clone();
            // A tuple's values, one per column from the next: its key in
            // the index is where the rows before (or after) it end. The
            // checker made the columns run one way, so byte order is the
            // tuple's order (reversed, when descending, as below).
            let values: &'p [Node] = match &end.value.op {
                Op::Tuple(items) => items,
                _ => std::slice::from_ref(&*end.value),
            };
            for (k, item) in values.iter().enumerate() {
                let column = prefix_values.len() + k;
                let desc = descending.get(column).copied().unwrap_or(false);
                if column >= width || desc != next_desc {
                    return Err(internal(
                        "a tuple range over columns of mixed directions or past the index",
                    )
                    .into());
                }
                let value = self.value(item, env)?;
                encode_component(&mut bytes, &value, next_desc)?;
            }
            Ok(Some((bytes, end.inclusive)))
        };
        let (mut low, mut high) = (end_of(lower)?, end_of(upper)?);
        // A descending column's values run backwards in byte order.
        if next_desc {
            std::mem::swap(&mut low, &mut high);
        }
        let start = match low {
            None => prefix_bytes.clone(),
            Some((bytes, true)) => bytes,
            Some((bytes, false)) => prefix_end(&bytes).unwrap_or(bytes),
        };
        let end = match high {
            None => prefix_end(&prefix_bytes),
            Some((bytes, true)) => prefix_end(&bytes),
            Some((bytes, false)) => Some(bytes),
        };
        // `none` equals no value, and is no group of any bound (so no
        // bound limits the rows holding it): a prefix holding it reads
        // nothing.
        let (start, end) = if prefix_values.contains(&rqc_plan::Value::Null) {
            (prefix_bytes.clone(), Some(prefix_bytes))
        } else {
            (start, end)
        };
        Ok(Stream {
            table,
            tree,
            start,
            end,
            maps: Vec::new(),
            skip: 0,
            // Set by the scan's evaluation when a paged run walks it.
            paged: false,
            reverse: false,
            next_descending: next_desc,
        })
    }

    /// The key range of `starts_with(col, p)` after a scan's prefix:
    /// exactly the entries whose next column is a String beginning with
    /// `p` (spec/storage.md: a String key is its escaped bytes, so the
    /// strings that begin with `p` are the keys that begin with `p`'s
    /// escaped bytes, and no other key does). Reads nothing.
    pub(crate) fn prefix_range(
        &mut self,
        table: &'p BoundTable,
        index: Option<usize>,
        prefix: &'p [Node],
        start_of: &'p Option<RangeEnd>,
        env: &Env<'p>,
    ) -> Eval<Stream<'p>> {
        let (tree, descending): (_, &[bool]) = match index {
            None => (table.rows, &[]),
            Some(i) => (table.indexes[i], &table.schema.indexes[i].descending),
        };
        let mut prefix_values = Vec::with_capacity(prefix.len());
        for p in prefix {
            prefix_values.push(self.value(p, env)?);
        }
        let mut start = encode_key(&prefix_values, descending)?;
        let next_desc = descending
            .get(prefix_values.len())
            .copied()
            .unwrap_or(false);
        let Some(end) = start_of else {
            return Err(internal("a `starts_with` range without its prefix").into());
        };
        let none_prefix = prefix_values.contains(&rqc_plan::Value::Null);
        let text = match self.value(&end.value, env)? {
            // A prefix holding `none` reads nothing (see `range`).
            Value::Str(_) if none_prefix => {
                return Ok(Stream {
                    table,
                    tree,
                    start: start.clone(),
                    end: Some(start),
                    maps: Vec::new(),
                    skip: 0,
                    paged: false,
                    reverse: false,
                    next_descending: next_desc,
                })
            }
            Value::Str(text) => text,
            // `none` begins no String: a range that holds nothing.
            Value::Null => {
                return Ok(Stream {
                    table,
                    tree,
                    start: start.clone(),
                    end: Some(start),
                    maps: Vec::new(),
                    skip: 0,
                    paged: false,
                    reverse: false,
                    next_descending: next_desc,
                })
            }
            _ => return Err(internal("a `starts_with` prefix that is not a String").into()),
        };
        encode_string_prefix(&mut start, &text, next_desc);
        let end = prefix_end(&start);
        Ok(Stream {
            table,
            tree,
            start,
            end,
            maps: Vec::new(),
            skip: 0,
            paged: false,
            reverse: false,
            next_descending: next_desc,
        })
    }

    /// Up to `wanted` rows of the range, in order, each through the
    /// stream's `map`s. Asks the store for at most one row past what the
    /// enclosing bounds allow, and stops with E0599 if it gets it.
    pub(crate) fn read(&mut self, range: &Stream<'p>, wanted: usize) -> Eval<Vec<Val<'p>>> {
        if wanted == 0 {
            return Ok(Vec::new());
        }
        // Skipped rows are read (and counted) like the others.
        let limit = self.rows_allowed(range.skip.saturating_add(wanted));
        let (table, skip) = (range.table, range.skip);
        // In a mutation on a store of limited requests, ends longer than
        // any stored key (from arguments) are asked for as the shortest
        // ends that bound the same keys (`entry_bytes`).
        let key_limit = range
            .table
            .key_limit
            .filter(|_| self.session.expects.clamps_keys());
        let (start, end) = self.page_range(range);
        let start = clamp_end(&start, key_limit);
        let end = end.as_deref().map(|end| clamp_end(end, key_limit));
        let mut decoded = Vec::new();
        let (mut read, mut last) = (0, None);
        // Decoded where the entries lie (a batch's answers are not copied).
        let reverse = range.reverse;
        let made = self.session.range_with_ahead(
            range.tree,
            &start,
            end.as_deref(),
            reverse,
            limit,
            &mut |entries| {
                read = entries.len();
                if range.paged {
                    last = entries.last().map(|(key, _)| key.to_vec());
                }
                decoded.reserve(entries.len().saturating_sub(skip));
                for (_, bytes) in entries.iter().skip(skip) {
                    decoded.push(decode_record(table, bytes)?);
                }
                Ok(())
            },
        )?;
        if made == Read::Wanted {
            return Err(Halt::Blocked);
        }
        self.within_deadline()?;
        if range.paged {
            if let Some(page) = &mut self.page {
                page.last = last;
                page.full = read == range.skip.saturating_add(wanted);
            }
        }
        let mut rows = Vec::with_capacity(decoded.len());
        for row in decoded {
            let mut row = Val::Data(row);
            for f in &range.maps {
                row = self.call(f, vec![row])?;
            }
            rows.push(row);
        }
        Ok(rows)
    }

    /// The part of a stream's range a paged run reads: entries past the
    /// previous page's last one, in the stream's direction (after it
    /// forwards, before it backwards), within the same range. A key from
    /// outside the range (a hand-made token) leaves it empty, never wider.
    fn page_range(&self, range: &Stream<'p>) -> (Vec<u8>, Option<Vec<u8>>) {
        let (mut start, mut end) = (range.start.clone(), range.end.clone());
        let after = self
            .page
            .as_ref()
            .filter(|_| range.paged)
            .and_then(|p| p.after.as_ref());
        let Some(after) = after else {
            return (start, end);
        };
        if range.reverse {
            // Entries before `after`: it is the new end, never a later one.
            if end.as_ref().is_none_or(|e| after < e) {
                end = Some(after.clone());
            }
            if end.as_ref().is_some_and(|e| *e < start) {
                end = Some(start.clone());
            }
        } else {
            let mut next = after.clone();
            next.push(0);
            if next > start {
                start = next;
            }
            if let Some(e) = end.as_ref().filter(|e| start > **e) {
                start = e.clone();
            }
        }
        (start, end)
    }
}

/// The paged scan of one run: where it resumes, and where it ended.
pub(crate) struct PageCursor {
    /// The node id of the scan the pages walk.
    pub(crate) scan: u32,
    /// Read only entries after this key (the previous page's last).
    pub(crate) after: Option<Vec<u8>>,
    /// The key of the last entry this run read from the scan.
    pub(crate) last: Option<Vec<u8>>,
    /// Whether the read returned every row it was asked for.
    pub(crate) full: bool,
}

impl PageCursor {
    pub(crate) fn new(scan: u32, after: Option<Vec<u8>>) -> PageCursor {
        PageCursor {
            scan,
            after,
            last: None,
            full: false,
        }
    }
}
