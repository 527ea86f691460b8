//! The installed schema: tables, columns, keys, indexes and declared bounds.

use serde::{Deserialize, Serialize};

use crate::by_name::{SchemaLookups, TableLookups};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ColumnType {
    Int,
    Float,
    String,
    Bool,
    Optional(Box<ColumnType>),
}

impl ColumnType {
    pub fn name(&self) -> String {
        match self {
            ColumnType::Int => "Int".into(),
            ColumnType::Float => "Float".into(),
            ColumnType::String => "String".into(),
            ColumnType::Bool => "Bool".into(),
            ColumnType::Optional(inner) => format!("{}?", inner.name()),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    pub ty: ColumnType,
    /// `ref T`: the value must be the whole key of a row of `T`.
    pub references: Option<String>,
    /// `= value`: what rows stored before the column was added read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Literal>,
    /// `String <= n`: the most UTF-8 bytes a stored value may have, refused
    /// on write beyond (E0576), so that a row's bytes are bounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_len: Option<u64>,
    /// `ref T on delete cascade` / `on delete set none`: what deleting the
    /// referenced row does to this column's rows (spec/cost.md §7.3); only
    /// on a `ref` column that carries a `bound` of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_delete: Option<OnDelete>,
}

/// What deleting a referenced row does to the rows that reference it
/// through a column declaring it (without one, the delete is refused while
/// any row references it, E0506).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnDelete {
    /// `on delete cascade`: they are deleted too (and theirs, in turn).
    Cascade,
    /// `on delete set none`: the column is set to `none` (an optional one).
    SetNone,
}

impl OnDelete {
    /// As the schema writes it, after `on delete`.
    pub fn text(self) -> &'static str {
        match self {
            OnDelete::Cascade => "cascade",
            OnDelete::SetNone => "set none",
        }
    }
}

impl Column {
    /// What a row that leaves the column out takes (an `insert`, an
    /// upsert's insert path, a CSV header or JSONL row of `rqc load`): its
    /// declared default, else `none` for an optional column; `None` when it
    /// has neither and must be given.
    pub fn left_out(&self) -> Option<crate::Value> {
        match (&self.default, &self.ty) {
            (Some(default), _) => Some(default.value()),
            (None, ColumnType::Optional(_)) => Some(crate::Value::Null),
            (None, _) => None,
        }
    }

    /// The column's type as declared, with its length bound:
    /// `String? <= 280`.
    pub fn declared(&self) -> String {
        match self.max_len {
            Some(max) => format!("{} <= {max}", self.ty.name()),
            None => self.ty.name(),
        }
    }
}

/// A column's default as its literal wrote it (a float by its bits, so
/// that schemas compare exactly).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Literal {
    None,
    Bool(bool),
    Int(i64),
    Float(u64),
    String(String),
}

impl Literal {
    pub fn value(&self) -> crate::Value {
        match self {
            Literal::None => crate::Value::Null,
            Literal::Bool(b) => crate::Value::Bool(*b),
            Literal::Int(n) => crate::Value::Int(*n),
            Literal::Float(bits) => crate::Value::float(f64::from_bits(*bits)),
            Literal::String(s) => crate::Value::Str(s.clone()),
        }
    }
}

/// A secondary index over columns (by position), each ascending or not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexSchema {
    pub name: String,
    pub columns: Vec<usize>,
    pub descending: Vec<bool>,
    pub unique: bool,
}

/// `bound columns <= limit`: at most `limit` rows share a value of `columns`,
/// which are a prefix of the key or of an index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoundSchema {
    pub columns: Vec<usize>,
    pub limit: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSchema {
    pub name: String,
    pub columns: Vec<Column>,
    /// Positions of the key columns, in key order.
    pub key: Vec<usize>,
    pub indexes: Vec<IndexSchema>,
    pub bounds: Vec<BoundSchema>,
    /// `small table … max N`.
    pub small_max: Option<u64>,
    /// `id: Int key auto`: the key is one `Int` column the store generates
    /// when an insert leaves it out, from a counter per table that never
    /// goes back (spec/types.md, spec/storage.md).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub auto: bool,
    /// The maintained aggregates over this table's rows (spec/cost.md §7.1),
    /// added through [`Schema::add_aggregate`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aggregates: Vec<AggregateSchema>,
    /// Columns and indexes by name, built on first use
    /// (`Default::default()` when making a table).
    #[serde(skip)]
    pub lookups: TableLookups,
}

/// What an aggregate computes over the rows of one group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AggregateKind {
    Count,
    Sum,
    Min,
    Max,
}

impl AggregateKind {
    pub fn name(self) -> &'static str {
        match self {
            AggregateKind::Count => "count",
            AggregateKind::Sum => "sum",
            AggregateKind::Min => "min",
            AggregateKind::Max => "max",
        }
    }
}

/// `aggregate name = kind(T.column) by (columns…)`: one value per group of
/// rows sharing `by`, kept in its own tree keyed by the group and updated
/// by every write of the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AggregateSchema {
    pub name: String,
    pub kind: AggregateKind,
    /// The column summed, or whose extreme is kept (`None` for a count).
    pub column: Option<usize>,
    /// The group's columns, by position.
    pub by: Vec<usize>,
}

impl AggregateSchema {
    /// Its definition as written, over `table`, the table it belongs to:
    /// `count(Post) by author`, `max(Post.at) by author` (no `by` where a
    /// plan holds none: the language requires one).
    pub fn definition(&self, table: &TableSchema) -> String {
        let over = match self.column {
            Some(c) => format!("{}.{}", table.name, table.columns[c].name),
            None => table.name.clone(),
        };
        let by: Vec<&str> = self
            .by
            .iter()
            .map(|&c| table.columns[c].name.as_str())
            .collect();
        match by.is_empty() {
            true => format!("{}({over})", self.kind.name()),
            false => format!("{}({over}) by {}", self.kind.name(), by.join(", ")),
        }
    }
}

/// Where the next extreme of a `min`/`max` aggregate's group is found when
/// its extreme row is deleted or changed (spec/cost.md §7.1): the compiler
/// costs it and the runtime reads it by this one rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtremePath {
    /// An index over the `by` columns (in any order) then the column: the
    /// group's first or last entry, one seek and one row.
    Index(usize),
    /// A bounded group holding the `by` group: a `bound` over some of the
    /// `by` columns, read through the key (`None`) or the index (`Some`)
    /// they prefix, or a small table read whole; at most `limit` rows.
    Group { index: Option<usize>, limit: u64 },
}

impl TableSchema {
    /// How many columns refer to another table (each write of a row checks
    /// and counts its references).
    pub fn references(&self) -> u64 {
        self.columns
            .iter()
            .filter(|c| c.references.is_some())
            .count() as u64
    }

    /// How many row counters a write of one row keeps: one per `bound`,
    /// and the small table's.
    pub fn counters(&self) -> u64 {
        self.bounds.len() as u64 + u64::from(self.small_max.is_some())
    }

    /// How aggregate `aggregate` (a `min` or `max`) finds its group's next
    /// extreme, if it can within a bound: an index first, then a bounded
    /// group; with the columns whose values (in this order) are the
    /// prefix of the tree read.
    pub fn extreme_path(&self, aggregate: &AggregateSchema) -> Option<(ExtremePath, Vec<usize>)> {
        if !matches!(aggregate.kind, AggregateKind::Min | AggregateKind::Max) {
            return None;
        }
        let column = aggregate.column?;
        let n = aggregate.by.len();
        let same_set = |cols: &[usize], set: &[usize]| {
            cols.len() == set.len() && cols.iter().all(|c| set.contains(c))
        };
        for (i, index) in self.indexes.iter().enumerate() {
            if index.columns.len() > n
                && same_set(&index.columns[..n], &aggregate.by)
                && index.columns[n] == column
            {
                return Some((ExtremePath::Index(i), index.columns[..n].to_vec()));
            }
        }
        if let Some(max) = self.small_max {
            return Some((
                ExtremePath::Group {
                    index: None,
                    limit: max,
                },
                Vec::new(),
            ));
        }
        // The smallest bound over columns of the group. Not over an
        // optional column: `none` is no group of any bound, so the rows
        // holding it are no island.
        let optional = |c: &usize| matches!(self.columns[*c].ty, ColumnType::Optional(_));
        let bound = self
            .bounds
            .iter()
            .filter(|b| b.columns.iter().all(|c| aggregate.by.contains(c)))
            .filter(|b| !b.columns.iter().any(optional))
            .min_by_key(|b| b.limit)?;
        let k = bound.columns.len();
        if self.key.len() >= k && same_set(&self.key[..k], &bound.columns) {
            return Some((
                ExtremePath::Group {
                    index: None,
                    limit: bound.limit,
                },
                self.key[..k].to_vec(),
            ));
        }
        self.indexes.iter().enumerate().find_map(|(i, index)| {
            (index.columns.len() >= k && same_set(&index.columns[..k], &bound.columns)).then(|| {
                (
                    ExtremePath::Group {
                        index: Some(i),
                        limit: bound.limit,
                    },
                    index.columns[..k].to_vec(),
                )
            })
        })
    }

    /// The position of the column called `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        (self.lookups.columns).find(&self.columns, |c| &c.name, name)
    }

    /// The columns' names in a [`crate::near::NearIndex`], ranked in
    /// order, when there are more than [`crate::near::INDEXED`].
    pub fn near_columns(&self) -> Option<&crate::near::NearIndex> {
        let names = || self.columns.iter().map(|c| c.name.as_str());
        (self.lookups.near_columns).in_order(self.columns.len(), names)
    }

    /// The indexes' names in a [`crate::near::NearIndex`], ranked
    /// alphabetically, when there are more than [`crate::near::INDEXED`].
    pub fn near_indexes(&self) -> Option<&crate::near::NearIndex> {
        let names = || self.indexes.iter().map(|i| i.name.as_str());
        (self.lookups.near_indexes).alphabetical(self.indexes.len(), names)
    }

    /// The index called `name`.
    pub fn index(&self, name: &str) -> Option<&IndexSchema> {
        let i = (self.lookups.indexes).find(&self.indexes, |i| &i.name, name)?;
        Some(&self.indexes[i])
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schema {
    pub tables: Vec<TableSchema>,
    /// Tables and aggregates by name, built on first use.
    #[serde(skip)]
    pub lookups: SchemaLookups,
}

impl Schema {
    /// The tables, each after the tables its columns reference (a load or
    /// a restore writes them in this order, so every reference it checks
    /// finds its row); a cycle of references is broken where it starts.
    pub fn referenced_first(&self) -> Vec<&TableSchema> {
        let mut order: Vec<&TableSchema> = Vec::new();
        let mut left: Vec<&TableSchema> = self.tables.iter().collect();
        while !left.is_empty() {
            let ready = left.iter().position(|t| {
                t.columns.iter().all(|c| {
                    c.references
                        .as_deref()
                        .is_none_or(|r| r == t.name || order.iter().any(|o| o.name == r))
                })
            });
            order.push(left.remove(ready.unwrap_or(0)));
        }
        order
    }

    /// The table called `name`.
    pub fn table(&self, name: &str) -> Option<&TableSchema> {
        let t = (self.lookups.tables).find(&self.tables, |t| &t.name, name)?;
        Some(&self.tables[t])
    }

    /// The tables' names in a [`crate::near::NearIndex`], ranked in order,
    /// when there are more than [`crate::near::INDEXED`].
    pub fn near_tables(&self) -> Option<&crate::near::NearIndex> {
        let names = || self.tables.iter().map(|t| t.name.as_str());
        (self.lookups.near_tables).in_order(self.tables.len(), names)
    }

    /// The aggregate called `name`, and the table it is over.
    pub fn aggregate(&self, name: &str) -> Option<(&TableSchema, &AggregateSchema)> {
        let (t, a) = self.lookups.aggregates.find(&self.tables, name)?;
        Some((&self.tables[t], &self.tables[t].aggregates[a]))
    }

    /// Adds `aggregate` to the table called `table`, if there is one.
    pub fn add_aggregate(&mut self, table: &str, aggregate: AggregateSchema) -> bool {
        let Some(t) = (self.lookups.tables).find(&self.tables, |t| &t.name, table) else {
            return false;
        };
        self.tables[t].aggregates.push(aggregate);
        self.lookups.aggregates.forget();
        true
    }

    /// Whether some column refers to `table`: then its rows carry reference
    /// counts, and deleting one must find its count at zero.
    pub fn is_referenced(&self, table: &str) -> bool {
        self.tables.iter().any(|t| {
            t.columns
                .iter()
                .any(|c| c.references.as_deref() == Some(table))
        })
    }
}
