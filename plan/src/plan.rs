//! Index-only plans: a tree of operators, each with its static bound.
//!
//! Every read is one of three access operators — `Get` (whole key),
//! `GetUnique` (unique index) and `Scan` (a key or index prefix, an optional
//! range on the next column, and a limit when the range is not bounded by a
//! declared bound). The planner never emits a `Scan` of a large table
//! without a limit or a bound.

use crate::schema::{ColumnType, Schema};
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The most seeks, rows and round trips (calls on the store's
/// transaction) one evaluation of an operator (with its inputs) may cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bound {
    pub seeks: u64,
    pub rows: u64,
    pub round_trips: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnOp {
    Neg,
    Not,
    /// A `String`'s length in characters.
    Length,
    Lower,
    Upper,
    /// An `Int` as a `Float`.
    ToFloat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinOp {
    Or,
    And,
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    /// `starts_with(s, p)`: false when either is none.
    StartsWith,
}

/// One end of a range on the column after a scan's prefix, or (when the
/// value is an `Op::Tuple`) on the columns from it, compared as a tuple.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RangeEnd {
    pub value: Box<Node>,
    pub inclusive: bool,
}

/// An operator with its id (pre-order position, for `explain --analyze`)
/// and its static bound per evaluation (`None` inside inlined generic code
/// whose bound is covered by an enclosing operator's).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub id: u32,
    pub op: Op,
    pub bound: Option<Bound>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Op {
    Const(Value),
    Param(usize),
    Var(String),
    /// `now()`, in a mutation only: microseconds since the Unix epoch,
    /// read once per transaction attempt.
    Now,
    /// Point read by the whole primary key: at most one row.
    Get {
        table: String,
        key: Vec<Node>,
    },
    /// Point read through a unique index, then the row: at most one row.
    GetUnique {
        table: String,
        index: String,
        values: Vec<Node>,
    },
    /// The value of a maintained aggregate for one group (`key`, its `by`
    /// columns' values): one point read of the aggregate's tree, whatever
    /// the group's size; 0 (count, sum) or `none` (min, max) for a group
    /// with no rows.
    Aggregate {
        aggregate: String,
        key: Vec<Node>,
    },
    /// A range of the key (`index: None`) or of an index: the prefix, an
    /// optional range on the next column, in index order. With `stream`,
    /// a lazy range read by its consumer; else read now, in full (a
    /// declared bound or a small table limits it).
    Scan {
        table: String,
        index: Option<String>,
        prefix: Vec<Node>,
        lower: Option<RangeEnd>,
        upper: Option<RangeEnd>,
        stream: bool,
        /// `starts_with(col, p)`: `lower` holds `p`, and the range is
        /// exactly the entries whose next column begins with it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        starts_with: bool,
    },
    /// A count computed at run time, held to its proved maximum before the
    /// read it limits (above it is a bug in rqc: E0599).
    Limit {
        count: Box<Node>,
        max: u64,
    },
    /// Code no run reaches (the body of a lambda nothing applies); an
    /// internal error if it ever is.
    Unreachable,
    /// A field of a record, found by its name. Only for structural records
    /// (`{a: 1, b: 2}`, a batch parameter's element): two values of one
    /// record type may hold their fields in different orders, so no
    /// position is fixed. A row's column is [`Op::Column`].
    Field(Box<Node>, String),
    /// A column of a row of a table (or `none` of `none`), found by its
    /// position in the table's columns: the checker typed the base as that
    /// table's row, and every row of a table holds its columns in the
    /// schema's order. The name is for `explain` and messages; the verifier
    /// holds it to the column at the position.
    Column(Box<Node>, ColumnAt),
    Record(Vec<(String, Node)>),
    List(Vec<Node>),
    /// The values of a tuple range's end, one per index column from the
    /// one after the scan's prefix: only as a `RangeEnd`'s value. (An rqc
    /// that predates it refuses such a plan as undecodable, E0517, rather
    /// than reading a wider range.)
    Tuple(Vec<Node>),
    Unary(UnOp, Box<Node>),
    Binary(BinOp, Box<Node>, Box<Node>),
    If(Box<Node>, Box<Node>, Box<Node>),
    Let(String, Box<Node>, Box<Node>),
    Seq(Vec<Node>),
    Lambda(Vec<String>, Box<Node>),
    Apply(Box<Node>, Vec<Node>),
    /// A combinator over its first operand, a bounded list, an option or
    /// a stream (`shape`, as the checker typed it): `map`, `filter`,
    /// `flat_map`, `flatten`, `sort_by`, `group_by`, `distinct`, `count`,
    /// `sum`, `min`, `max`, `any`, `all`, `take`, `first`, `exists`,
    /// `unwrap_or`, `reverse`. On a stream only `take`, `skip`, `first`,
    /// `exists`, `map`, `reverse`, and `sort_by` by the column the stream
    /// runs in (its direction: the key is not applied, the checker proved
    /// it is that column).
    Combinator(Combinator, Shape, Vec<Node>),
    /// `sort_by(key, order) |> take(k)` in one pass.
    TopK {
        input: Box<Node>,
        key: Box<Node>,
        descending: bool,
        k: Box<Node>,
    },
    /// One row, a value per column. With `generated` the table's key is
    /// `key auto` and left out: its place holds `none`, replaced by the
    /// table's next key. An insert into a `key auto` table evaluates to the
    /// row's key; any other to 1.
    Insert {
        table: String,
        row: Vec<Node>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        generated: bool,
    },
    /// Each row of `target`, read again by its key, changed by `changes`.
    /// With `row`, the changes are evaluated for each row, with that name
    /// bound to the row as read (`update T[k] as r { … }`, `c += e`);
    /// without, once, before any row is changed.
    Update {
        table: String,
        target: Box<Node>,
        changes: Vec<(ColumnAt, Node)>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        row: Option<String>,
    },
    /// `upsert`: the columns named (the whole key among them), evaluated in
    /// order; the row with that key read once, then changed to them, or,
    /// when there is none, inserted with the other columns' defaults.
    Upsert {
        table: String,
        columns: Vec<(ColumnAt, Node)>,
    },
    Delete {
        table: String,
        target: Box<Node>,
    },
}

/// A column of a table, by its position in the table's columns (what the
/// run indexes with), and its name (what `explain` and messages show, and
/// the verifier holds to the column at that position).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnAt {
    pub position: usize,
    pub name: String,
}

/// What a combinator's input is. An option holding a list is the list at
/// run time, so the shape cannot be told from the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    List,
    Option,
    Stream,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Combinator {
    Map,
    Filter,
    FlatMap,
    Flatten,
    SortBy {
        descending: bool,
    },
    GroupBy,
    Distinct,
    Count,
    Sum,
    /// `sum` of `Float`s: `0.0` of none (a `Sum` of none is the `Int` 0,
    /// which a `Float` sum must not give).
    SumFloat,
    /// The mean, a `Float`; `none` of no values.
    Avg,
    Min,
    Max,
    Any,
    All,
    Take,
    /// `skip(k)`: what is left after the first `k` (none for `k <= 0`).
    Skip,
    /// `reverse()`: a list backwards; a stream read from its other end
    /// (the same seek and rows, spec/cost.md "Reverse reads"); an option
    /// as it is.
    Reverse,
    First,
    Exists,
    UnwrapOr,
}

impl Combinator {
    pub fn name(self) -> &'static str {
        match self {
            Combinator::Map => "Map",
            Combinator::Filter => "Filter",
            Combinator::FlatMap => "FlatMap",
            Combinator::Flatten => "Flatten",
            Combinator::SortBy { .. } => "Sort",
            Combinator::GroupBy => "Group",
            Combinator::Distinct => "Distinct",
            Combinator::Count => "Count",
            Combinator::Sum | Combinator::SumFloat => "Sum",
            Combinator::Avg => "Avg",
            Combinator::Min => "Min",
            Combinator::Max => "Max",
            Combinator::Any => "Any",
            Combinator::All => "All",
            Combinator::Take => "Take",
            Combinator::Skip => "Skip",
            Combinator::Reverse => "Reverse",
            Combinator::First => "First",
            Combinator::Exists => "Exists",
            Combinator::UnwrapOr => "UnwrapOr",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    Query,
    Mutation,
}

/// A parameter as the runtime checks it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamSpec {
    pub name: String,
    pub ty: ParamType,
    /// `n: Int <= 100`, a list's maximum length, or `s: String <= 20`'s
    /// most bytes.
    pub max: Option<i64>,
    /// `n: Int >= 0`: the least value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    /// `ids: [Int; <= n]`: the position of `n`, whose argument the list's
    /// length may not pass either.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_param: Option<usize>,
}

/// `name: Type`, as signatures and messages show a parameter, with the
/// ends it declares (`n: Int >= 0 <= 100`, `s: String <= 20`, `ids:
/// [Int; <= 10]`): what an argument must keep within.
impl std::fmt::Display for ParamSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let most = self.max.map(|max| format!(" <= {max}"));
        match &self.ty {
            ParamType::Scalar(ty) => {
                write!(f, "{}: {}", self.name, ty.name())?;
                if let Some(least) = self.min {
                    write!(f, " >= {least}")?;
                }
                write!(f, "{}", most.unwrap_or_default())
            }
            ParamType::List(_) | ParamType::Records(_) => match most {
                Some(most) => {
                    let list = self.ty.name();
                    let inner = &list[1..list.len() - 1];
                    write!(f, "{}: [{inner};{most}]", self.name)
                }
                None => write!(f, "{}: {}", self.name, self.ty.name()),
            },
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ParamType {
    Scalar(ColumnType),
    List(ColumnType),
    /// A list of records with these fields (a batch of rows to write).
    Records(Vec<(String, ColumnType)>),
}

impl ParamType {
    pub fn name(&self) -> String {
        match self {
            ParamType::Scalar(ty) => ty.name(),
            ParamType::List(ty) => format!("[{}]", ty.name()),
            ParamType::Records(fields) => {
                let fields: Vec<String> = fields
                    .iter()
                    .map(|(name, ty)| format!("{name}: {}", ty.name()))
                    .collect();
                format!("[{{ {} }}]", fields.join(", "))
            }
        }
    }
}

/// A query or mutation callable from outside.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The module that declares it.
    pub module: String,
    /// Its name in that module.
    pub name: String,
    /// A query (reads) or a mutation (writes).
    pub kind: EntryKind,
    /// Its parameters, in order.
    pub params: Vec<ParamSpec>,
    /// The entry's bound: the root's.
    pub bound: Bound,
    /// The plan that computes its result.
    pub root: Node,
}

/// What `rqc compile -o` writes and the runtime loads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompiledProgram {
    /// The plan file's format: a runtime refuses a version it does not
    /// read.
    pub format_version: u32,
    /// The tables, indexes, bounds and aggregates the plans read.
    pub schema: Schema,
    /// Shared: the compiler's analysis keeps each plan too, and a
    /// compilation hands them out without copying their trees.
    pub entries: Vec<Arc<Entry>>,
}

impl CompiledProgram {
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        // `name` or `module.name`, compared in place (no string per entry).
        let qualified = |e: &Entry| {
            name.strip_prefix(e.module.as_str())
                .and_then(|rest| rest.strip_prefix('.'))
                == Some(e.name.as_str())
        };
        self.entries
            .iter()
            .find(|e| e.name == name || qualified(e))
            .map(|e| &**e)
    }
}

impl Node {
    /// Every node of the tree, pre-order.
    pub fn walk<'a>(&'a self, visit: &mut dyn FnMut(&'a Node)) {
        visit(self);
        for child in self.children() {
            child.walk(visit);
        }
    }

    /// Every node of the tree, pre-order, to change in place.
    pub fn walk_mut(&mut self, visit: &mut dyn FnMut(&mut Node)) {
        visit(self);
        for child in self.children_mut() {
            child.walk_mut(visit);
        }
    }

    /// How many levels the tree nests (a leaf: 1), found without recursion:
    /// a tree read from elsewhere is not yet known to be shallow.
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut work = vec![(self, 1)];
        while let Some((node, depth)) = work.pop() {
            deepest = deepest.max(depth);
            work.extend(node.children().into_iter().map(|child| (child, depth + 1)));
        }
        deepest
    }

    pub fn children(&self) -> Vec<&Node> {
        match &self.op {
            Op::Const(_) | Op::Param(_) | Op::Var(_) | Op::Now => Vec::new(),
            Op::Get { key, .. } | Op::Aggregate { key, .. } => key.iter().collect(),
            Op::GetUnique { values, .. } => values.iter().collect(),
            Op::Scan {
                prefix,
                lower,
                upper,
                ..
            } => {
                let mut out: Vec<&Node> = prefix.iter().collect();
                out.extend(lower.iter().map(|e| &*e.value));
                out.extend(upper.iter().map(|e| &*e.value));
                out
            }
            Op::Limit { count, .. } => vec![count],
            Op::Unreachable => Vec::new(),
            Op::Field(base, _) | Op::Column(base, _) => vec![base],
            Op::Record(fields) => fields.iter().map(|(_, n)| n).collect(),
            Op::List(items) | Op::Tuple(items) | Op::Seq(items) | Op::Combinator(_, _, items) => {
                items.iter().collect()
            }
            Op::Unary(_, a) => vec![a],
            Op::Binary(_, a, b) | Op::Let(_, a, b) => vec![a, b],
            Op::If(c, t, e) => vec![c, t, e],
            Op::Lambda(_, body) => vec![body],
            Op::Apply(f, args) => {
                let mut out = vec![&**f];
                out.extend(args.iter());
                out
            }
            Op::TopK { input, key, k, .. } => vec![input, key, k],
            Op::Insert { row, .. } => row.iter().collect(),
            Op::Upsert { columns, .. } => columns.iter().map(|(_, n)| n).collect(),
            Op::Update {
                target, changes, ..
            } => {
                let mut out = vec![&**target];
                out.extend(changes.iter().map(|(_, n)| n));
                out
            }
            Op::Delete { target, .. } => vec![target],
        }
    }

    /// The same children as [`Node::children`], for passes that rewrite
    /// the tree (numbering); kept beside it so the two list the same nodes.
    pub fn children_mut(&mut self) -> Vec<&mut Node> {
        match &mut self.op {
            Op::Const(_) | Op::Param(_) | Op::Var(_) | Op::Now => Vec::new(),
            Op::Get { key, .. } | Op::Aggregate { key, .. } => key.iter_mut().collect(),
            Op::GetUnique { values, .. } => values.iter_mut().collect(),
            Op::Scan {
                prefix,
                lower,
                upper,
                ..
            } => {
                let mut out: Vec<&mut Node> = prefix.iter_mut().collect();
                out.extend(lower.iter_mut().map(|e| &mut *e.value));
                out.extend(upper.iter_mut().map(|e| &mut *e.value));
                out
            }
            Op::Limit { count, .. } => vec![&mut **count],
            Op::Unreachable => Vec::new(),
            Op::Field(base, _) | Op::Column(base, _) => vec![&mut **base],
            Op::Record(fields) => fields.iter_mut().map(|(_, n)| n).collect(),
            Op::List(items) | Op::Tuple(items) | Op::Seq(items) | Op::Combinator(_, _, items) => {
                items.iter_mut().collect()
            }
            Op::Unary(_, a) | Op::Lambda(_, a) => vec![&mut **a],
            Op::Binary(_, a, b) | Op::Let(_, a, b) => vec![&mut **a, &mut **b],
            Op::If(c, t, e) => vec![&mut **c, &mut **t, &mut **e],
            Op::Apply(f, args) => {
                let mut out = vec![&mut **f];
                out.extend(args.iter_mut());
                out
            }
            Op::TopK { input, key, k, .. } => vec![&mut **input, &mut **key, &mut **k],
            Op::Insert { row, .. } => row.iter_mut().collect(),
            Op::Upsert { columns, .. } => columns.iter_mut().map(|(_, n)| n).collect(),
            Op::Update {
                target, changes, ..
            } => {
                let mut out = vec![&mut **target];
                out.extend(changes.iter_mut().map(|(_, n)| n));
                out
            }
            Op::Delete { target, .. } => vec![&mut **target],
        }
    }
}

/// What one operator read over a run, gathered by the executor for
/// `explain --analyze`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeStats {
    pub evaluations: u64,
    pub seeks: u64,
    pub rows: u64,
    pub round_trips: u64,
}
