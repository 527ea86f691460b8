//! The most bytes a table's stored entries can take, from its columns' types and `String <= n` length bounds.
//!
//! Every entry rqc stores for a table (its rows, index entries, counters,
//! aggregates, reference counts) has a key made of the table's column
//! values and a value no larger than a row. Once every `String` column of
//! a table has a length bound, which every write enforces (E0576), both are
//! bounded, and so are the requests that carry them: etcd's request size
//! is then a figure proved at install (`commit_limit`), and a read keyed by
//! a longer value can be answered without asking the store (`clamp_*`).
//! The figures are upper bounds, not exact sizes: they only need to be at
//! least what the encodings in `encoding::{key, row}` and the checksum of
//! `store::checked` produce.

use crate::rows::{aggregate_tree, bound_tree, index_tree, refcount_tree, small_tree, table_tree};
use rqc_plan::{Column, ColumnType, TableSchema};

/// What the checked layer adds to a stored value (its checksum), with
/// room to spare.
const VALUE_OVERHEAD: u64 = 16;
/// The most bytes of a counter's or an aggregate's value.
const SMALL_VALUE: u64 = 32;

/// The bounds of one table's entries; `None` when a `String` column has no
/// length bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableBytes {
    /// The longest key of any of the table's trees.
    pub key: Option<u64>,
    /// The longest value of any of the table's trees.
    pub value: Option<u64>,
    /// The longest name of the table's trees.
    pub tree_name: u64,
}

impl TableBytes {
    pub fn of(table: &TableSchema) -> TableBytes {
        let fields: Option<u64> = table.columns.iter().map(row_field).sum();
        TableBytes {
            key: key_layouts(table)
                .map(|columns| {
                    columns
                        .iter()
                        .map(|&c| key_component(&table.columns[c]))
                        .sum::<Option<u64>>()
                })
                .try_fold(0, |longest, key| key.map(|key| longest.max(key)))
                .map(|longest| longest + KEY_SLACK),
            value: fields.map(|f| 1 + f.max(SMALL_VALUE) + VALUE_OVERHEAD),
            tree_name: tree_names(table).map(|n| n.len() as u64).max().unwrap_or(0),
        }
    }

    /// The `String` columns without a length bound, which leave the
    /// table's entries unbounded (its values always; its keys when they
    /// are in one).
    pub fn unbounded_columns(table: &TableSchema) -> impl Iterator<Item = &Column> {
        table.columns.iter().filter(|c| key_component(c).is_none())
    }
}

/// Room for what a key may hold beside its components (none today).
const KEY_SLACK: u64 = 16;

/// The columns of each kind of key the table's trees hold (`rows`): the
/// primary key (rows, reference counts); each index's columns then the
/// primary key's (a unique index's entry drops them unless a value is
/// `none`); each bound's and each aggregate's group columns (counters and
/// aggregate entries). A small table's count has an empty key.
fn key_layouts(table: &TableSchema) -> impl Iterator<Item = Vec<usize>> + '_ {
    let key = table.key.clone();
    std::iter::once(key.clone())
        .chain(
            table
                .indexes
                .iter()
                .map(move |i| [i.columns.as_slice(), &key].concat()),
        )
        .chain(table.bounds.iter().map(|b| b.columns.clone()))
        .chain(table.aggregates.iter().map(|a| a.by.clone()))
}

/// Every tree a table's entries live in, by name.
fn tree_names(table: &TableSchema) -> impl Iterator<Item = String> + '_ {
    let name = &table.name;
    [table_tree(name), small_tree(name), refcount_tree(name)]
        .into_iter()
        .chain(table.indexes.iter().map(|i| index_tree(name, &i.name)))
        .chain((0..table.bounds.len()).map(|i| bound_tree(name, i)))
        .chain(
            table
                .aggregates
                .iter()
                .map(|a| aggregate_tree(name, &a.name)),
        )
}

/// The most bytes of one column's key component: a tag and its payload,
/// each byte of a string possibly escaped, and its two-byte end.
fn key_component(column: &Column) -> Option<u64> {
    match base(&column.ty) {
        ColumnType::Int | ColumnType::Float => Some(9),
        // `base` strips `?`; a `none` is one tag byte.
        ColumnType::Bool | ColumnType::Optional(_) => Some(1),
        ColumnType::String => column.max_len.map(|n| 1 + 2 * n + 2),
    }
}

/// The most bytes of one column in a stored row: a tag, a varint or the
/// float's bits, or a string's varint length and its bytes.
fn row_field(column: &Column) -> Option<u64> {
    match base(&column.ty) {
        ColumnType::Int | ColumnType::Float => Some(11),
        ColumnType::Bool | ColumnType::Optional(_) => Some(1),
        ColumnType::String => column.max_len.map(|n| 11 + n),
    }
}

fn base(ty: &ColumnType) -> &ColumnType {
    match ty {
        ColumnType::Optional(inner) => base(inner),
        other => other,
    }
}

/// A point read's key longer than every key the tree can hold finds
/// nothing: no store is asked.
pub fn cannot_exist(key: &[u8], limit: Option<u64>) -> bool {
    limit.is_some_and(|limit| key.len() as u64 > limit)
}

/// A range's end as the store is asked for it: an end longer than every
/// stored key (at most `limit` bytes) is replaced by the shortest one that
/// bounds the same stored keys. For a key `k` of at most `limit` bytes and
/// an end `e` longer than that, `k < e` exactly when `k < e[..limit] ++ [0]`
/// (and `k >= e` exactly when `k >= e[..limit] ++ [0]`): `k` cannot equal
/// `e`, nor have it as a prefix. So a request never carries more than
/// `limit + 1` bytes of a key, whatever the arguments.
pub fn clamp_end(end: &[u8], limit: Option<u64>) -> std::borrow::Cow<'_, [u8]> {
    match limit {
        Some(limit) if end.len() as u64 > limit + 1 => {
            let mut clamped = end[..limit as usize].to_vec();
            clamped.push(0);
            std::borrow::Cow::Owned(clamped)
        }
        _ => std::borrow::Cow::Borrowed(end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::key::encode_component;
    use crate::encoding::row::encode_row;
    use rqc_plan::Value;

    fn column(name: &str, ty: ColumnType, max_len: Option<u64>) -> Column {
        Column {
            name: name.into(),
            ty,
            references: None,
            on_delete: None,
            default: None,
            max_len,
        }
    }

    fn table(max_len: Option<u64>) -> TableSchema {
        TableSchema {
            name: "T".into(),
            columns: vec![
                column("id", ColumnType::Int, None),
                column("s", ColumnType::String, max_len),
                column("f", ColumnType::Optional(Box::new(ColumnType::Float)), None),
            ],
            key: vec![0],
            indexes: vec![rqc_plan::IndexSchema {
                name: "by_s".into(),
                columns: vec![1, 2],
                descending: vec![true, false],
                unique: false,
            }],
            bounds: vec![],
            small_max: None,
            auto: false,
            aggregates: vec![],
            lookups: Default::default(),
        }
    }

    #[test]
    fn the_bounds_hold_for_the_longest_values_the_encodings_make() {
        let bytes = TableBytes::of(&table(Some(5)));
        // A string of zero bytes: each escaped, the worst case of a key.
        let worst = [
            Value::Int(i64::MIN),
            Value::Str("\0\0\0\0\0".into()),
            Value::Float(f64::MIN),
        ];
        // The index's entry: its columns, then the primary key.
        let mut key = Vec::new();
        for value in [&worst[1], &worst[2], &worst[0]] {
            encode_component(&mut key, value, true).unwrap();
        }
        assert!(key.len() as u64 <= bytes.key.unwrap(), "{bytes:?}");
        // Not much more: the bound follows the layouts, not every column twice.
        assert!(bytes.key.unwrap() <= key.len() as u64 + 16, "{bytes:?}");
        let row = encode_row(&[
            Value::Int(i64::MIN),
            Value::Str("ééé".into()),
            Value::Float(1.5),
        ]);
        assert!(row.unwrap().len() as u64 + 4 <= bytes.value.unwrap());
    }

    #[test]
    fn an_unbounded_string_leaves_the_table_unbounded() {
        let bytes = TableBytes::of(&table(None));
        assert_eq!((bytes.key, bytes.value), (None, None));
        let names: Vec<_> = TableBytes::unbounded_columns(&table(None))
            .map(|c| c.name.clone())
            .collect();
        assert_eq!(names, ["s"]);
    }

    #[test]
    fn a_clamped_end_orders_every_short_key_as_the_long_end_does() {
        // Every key of at most 4 bytes over an alphabet that holds the
        // smallest and the largest byte.
        let alphabet = [0u8, 0x61, 0x62, 0xFF];
        let mut keys: Vec<Vec<u8>> = vec![vec![]];
        for len in 1..=4 {
            let longer: Vec<Vec<u8>> = keys
                .iter()
                .filter(|k| k.len() == len - 1)
                .flat_map(|k| alphabet.map(|b| [k.as_slice(), &[b]].concat()))
                .collect();
            keys.extend(longer);
        }
        let ends: [&[u8]; 5] = [
            b"aaaaaa",
            b"aab\0\0\xFF",
            b"\0\0\0\0\0",
            b"\xFF\xFF\xFF\xFF\xFF\xFF",
            b"ab",
        ];
        for end in ends {
            let clamped = clamp_end(end, Some(4));
            assert!(clamped.len() <= 5, "{end:?}");
            for key in &keys {
                assert_eq!(
                    key.as_slice() < end,
                    key.as_slice() < &*clamped,
                    "{key:?} {end:?}"
                );
            }
        }
        assert!(cannot_exist(b"aaaaa", Some(4)));
        assert!(!cannot_exist(b"aaaa", Some(4)));
        assert!(!cannot_exist(b"aaaaaaaa", None));
    }
}
