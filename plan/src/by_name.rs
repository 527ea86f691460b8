//! Lookups by name kept beside the schema's lists: built on first use, never serialized, never compared.
//!
//! The schema's lists (tables, columns, indexes, aggregates) are public
//! plain data, serialized as they are in plan files. Finding an item by name
//! searched its list, so a program of 64,000 indexes spent seconds in
//! those searches. A [`ByName`] sits beside one list and answers from a
//! hash map built on the first lookup.
//!
//! The lists are only ever appended to, and only while a schema is built.
//! A map built before its list grew is not trusted: the lookup checks the
//! list's length against the one the map was built for, and that the item
//! found bears the name, and otherwise searches the list. A list grown
//! after a lookup makes later lookups slower, never wrong.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use crate::TableSchema;

/// Shorter lists are searched: a few comparisons beat building a map.
const SEARCHED: usize = 16;

/// The position of the first item of each name in one list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ByName {
    built: Lazy<Built>,
}

/// A value built on first use and kept beside what it is built from. It
/// holds nothing that what it sits in is made of: any two are equal, and a
/// copy starts empty (its list may be changed apart from this one's:
/// `TableSchema { columns, ..table.clone() }`), to be built again.
pub struct Lazy<T>(OnceLock<T>);

impl<T> Default for Lazy<T> {
    fn default() -> Lazy<T> {
        Lazy(OnceLock::new())
    }
}

impl<T> Lazy<T> {
    pub fn get_or_init(&self, build: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(build)
    }
}

impl<T> Clone for Lazy<T> {
    fn clone(&self) -> Lazy<T> {
        Lazy(OnceLock::new())
    }
}

impl<T> PartialEq for Lazy<T> {
    fn eq(&self, _: &Lazy<T>) -> bool {
        true
    }
}

impl<T> Eq for Lazy<T> {}

impl<T> fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Lazy")
    }
}

struct Built {
    /// The list's length when the map was built.
    len: usize,
    first: HashMap<Box<str>, usize>,
}

impl ByName {
    /// The position of the first item of `items` whose name is `name`.
    pub fn find<T>(&self, items: &[T], name_of: impl Fn(&T) -> &str, name: &str) -> Option<usize> {
        if items.len() > SEARCHED {
            let built = self.built.get_or_init(|| Built {
                len: items.len(),
                first: first_of_each(items.iter().map(&name_of)),
            });
            if built.len == items.len() {
                match built.first.get(name) {
                    None => return None,
                    Some(&i) if name_of(&items[i]) == name => return Some(i),
                    Some(_) => {} // changed in place: search
                }
            }
        }
        items.iter().position(|item| name_of(item) == name)
    }
}

/// A map from each name to the position of its first occurrence.
pub(crate) fn first_of_each<'a>(names: impl Iterator<Item = &'a str>) -> HashMap<Box<str>, usize> {
    let mut first = HashMap::new();
    for (i, name) in names.enumerate() {
        first.entry(Box::from(name)).or_insert(i);
    }
    first
}

/// A table's lookups: its columns and indexes by name, and its columns by
/// near name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableLookups {
    pub(crate) columns: ByName,
    pub(crate) indexes: ByName,
    pub(crate) near_columns: crate::near::NearBeside,
    pub(crate) near_indexes: crate::near::NearBeside,
}

/// A schema's lookups: its tables by name and near name, and every table's
/// aggregates (one name space across tables) by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SchemaLookups {
    pub(crate) tables: ByName,
    pub(crate) near_tables: crate::near::NearBeside,
    pub(crate) aggregates: AggregatesByName,
}

/// Each aggregate's table and position in it, by the aggregate's name.
/// Aggregates are added through `Schema::add_aggregate`, which forgets the
/// map; the tables are checked as a [`ByName`] checks its list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct AggregatesByName {
    built: Lazy<BuiltAggregates>,
}

/// The number of tables when built, and each aggregate's table and place.
type BuiltAggregates = (usize, HashMap<Box<str>, (usize, usize)>);

impl AggregatesByName {
    /// The table and position of the first aggregate named `name`.
    pub(crate) fn find(&self, tables: &[TableSchema], name: &str) -> Option<(usize, usize)> {
        let (len, first) = self.built.get_or_init(|| {
            let mut first = HashMap::new();
            for (t, table) in tables.iter().enumerate() {
                for (a, aggregate) in table.aggregates.iter().enumerate() {
                    first
                        .entry(Box::from(aggregate.name.as_str()))
                        .or_insert((t, a));
                }
            }
            (tables.len(), first)
        });
        let named = |&(t, a): &(usize, usize)| {
            tables
                .get(t)
                .and_then(|table| table.aggregates.get(a))
                .is_some_and(|x| x.name == name)
        };
        if *len == tables.len() {
            match first.get(name) {
                None => return None,
                Some(found) if named(found) => return Some(*found),
                Some(_) => {}
            }
        }
        tables.iter().enumerate().find_map(|(t, table)| {
            let a = table.aggregates.iter().position(|x| x.name == name)?;
            Some((t, a))
        })
    }

    /// Forgets the map: an aggregate was added.
    pub(crate) fn forget(&mut self) {
        self.built = Lazy::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("n{i}")).collect()
    }

    #[test]
    fn finds_the_first_of_each_name_in_short_and_long_lists() {
        for n in [3, SEARCHED + 1, 200] {
            let mut items = names(n);
            items.push("n1".into()); // a repeat: the first one is found
            let by_name = ByName::default();
            for (i, name) in items.iter().enumerate().take(n) {
                assert_eq!(by_name.find(&items, |s| s, name), Some(i));
            }
            assert_eq!(by_name.find(&items, |s| s, "n1"), Some(1));
            assert_eq!(by_name.find(&items, |s| s, "absent"), None);
        }
    }

    #[test]
    fn a_list_grown_after_the_map_was_built_is_still_answered_right() {
        let mut items = names(100);
        let by_name = ByName::default();
        assert_eq!(by_name.find(&items, |s| s, "n5"), Some(5));
        items.push("late".into());
        assert_eq!(by_name.find(&items, |s| s, "late"), Some(100));
        assert_eq!(by_name.find(&items, |s| s, "n99"), Some(99));
        // An item changed in place is not found under its old name.
        items.pop();
        items[5] = "renamed".into();
        assert_eq!(by_name.find(&items, |s| s, "n5"), None);
    }
}
