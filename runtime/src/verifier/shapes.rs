//! Each entry point's head (`heads.rs`) and each operator's shape: names valid and unique, parameters well-formed, node ids the pre-order numbering, every table, index, aggregate, column and parameter resolved, every operator's arity, every name bound where it is used, writes only in mutations and never of a key column.
//!
//! What passes here cannot make the executor panic or look up something
//! that is not there: every position it indexes with (a key's, an
//! index's, a parameter's, a node's id) is in range. Kinds of values (a
//! list where a list goes) are the bound pass's (`bounds.rs`), which runs
//! the plan abstractly.

use super::columns::resolve;
use super::heads::check_head;
use super::{plan_fault, shown};
use crate::error::Result;
use rqc_plan::{
    ColumnAt, ColumnType, Combinator, CompiledProgram, Entry, EntryKind, Node, Op, RangeEnd,
    Schema, Shape, TableSchema, Value,
};
use std::collections::HashSet;

/// Checks every entry point's head and plan.
pub(super) fn check_entries(program: &CompiledProgram) -> Result<()> {
    let mut seen = HashSet::new();
    for entry in &program.entries {
        check_head(entry)?;
        if !seen.insert((entry.module.as_str(), entry.name.as_str())) {
            return Err(plan_fault(
                "E0611",
                entry,
                None,
                "the program holds two entry points of this name".into(),
            ));
        }
        check_operators(&program.schema, entry)?;
    }
    Ok(())
}

/// One entry point's head and operators against `schema`.
pub(super) fn check_entry(schema: &Schema, entry: &Entry) -> Result<()> {
    check_head(entry)?;
    check_operators(schema, entry)
}

/// The operators of `entry`'s plan against `schema`.
fn check_operators(schema: &Schema, entry: &Entry) -> Result<()> {
    let mut walk = Walk {
        schema,
        entry,
        next_id: 0,
        scope: Vec::new(),
    };
    walk.node(&entry.root)
}

/// A walk of one plan, pre-order, with the names in scope.
struct Walk<'a> {
    schema: &'a Schema,
    entry: &'a Entry,
    next_id: u32,
    scope: Vec<&'a str>,
}

impl<'a> Walk<'a> {
    fn fault<T>(&self, code: &'static str, node: &Node, what: String) -> Result<T> {
        Err(plan_fault(code, self.entry, Some(node), what))
    }

    fn table(&self, node: &Node, name: &str) -> Result<&'a TableSchema> {
        match self.schema.tables.iter().find(|t| t.name == name) {
            Some(table) => Ok(table),
            None => self.fault(
                "E0620",
                node,
                format!("no table {} in the schema", shown(name)),
            ),
        }
    }

    fn node(&mut self, node: &'a Node) -> Result<()> {
        if node.id != self.next_id {
            return self.fault(
                "E0623",
                node,
                format!(
                    "its id is {}, where the pre-order numbering gives {} (ids index the run's figures and bindings)",
                    node.id, self.next_id
                ),
            );
        }
        self.next_id += 1;
        self.operator(node)?;
        match &node.op {
            Op::Let(name, value, body) => {
                self.node(value)?;
                self.scope.push(name);
                let result = self.node(body);
                self.scope.pop();
                result
            }
            Op::Lambda(params, body) => {
                let depth = self.scope.len();
                self.scope.extend(params.iter().map(String::as_str));
                let result = self.node(body);
                self.scope.truncate(depth);
                result
            }
            // The changes read the row as read, by its name; the target
            // does not.
            Op::Update {
                target,
                changes,
                row: Some(row),
                ..
            } => {
                self.node(target)?;
                self.scope.push(row);
                let result = changes.iter().try_for_each(|(_, c)| self.node(c));
                self.scope.pop();
                result
            }
            Op::Scan { lower, upper, .. } => {
                // A tuple is a range end's value, read there only.
                for child in node.children() {
                    let is_end = [lower, upper]
                        .into_iter()
                        .flatten()
                        .any(|end| std::ptr::eq(&*end.value, child));
                    match &child.op {
                        Op::Tuple(items) if is_end => {
                            self.check_id(child)?;
                            for item in items {
                                self.node(item)?;
                            }
                        }
                        _ => self.node(child)?,
                    }
                }
                Ok(())
            }
            _ => node.children().into_iter().try_for_each(|c| self.node(c)),
        }
    }

    /// A tuple range end's id, numbered as any node's.
    fn check_id(&mut self, node: &Node) -> Result<()> {
        if node.id != self.next_id {
            return self.fault(
                "E0623",
                node,
                format!(
                    "its id is {}, where the pre-order numbering gives {}",
                    node.id, self.next_id
                ),
            );
        }
        self.next_id += 1;
        Ok(())
    }

    /// The operator itself, its children aside.
    fn operator(&self, node: &'a Node) -> Result<()> {
        match &node.op {
            Op::Const(value) if !finite(value) => self.fault(
                "E0621",
                node,
                "a constant holds an infinite or NaN float, which no value holds".into(),
            ),
            // A plan file's `-0.0` reads as `0.0`; a program built in memory
            // is refused rather than rewritten, as a default of `-0.0` is
            // (E0613): the verifier checks, it never changes what it checks.
            Op::Const(value) if rqc_plan::holds_minus_zero(value) => self.fault(
                "E0621",
                node,
                "a constant holds the float -0.0, which no value holds (every float is canonical, spec/types.md \"Value identity\")".into(),
            ),
            // A query's answer must not change with the clock.
            Op::Now if self.entry.kind != EntryKind::Mutation => self.fault(
                "E0622",
                node,
                "a query reads the clock (`now()`)".into(),
            ),
            Op::Param(i) if *i >= self.entry.params.len() => self.fault(
                "E0620",
                node,
                format!(
                    "it reads parameter {i}, and the entry point has {}",
                    self.entry.params.len()
                ),
            ),
            Op::Var(name) if !self.scope.iter().any(|n| n == name) => self.fault(
                "E0624",
                node,
                format!(
                    "it reads {}, which no `let` or lambda around it binds",
                    shown(name)
                ),
            ),
            Op::Get { table, key } => {
                let table = self.table(node, table)?;
                self.arity(node, "key values", key.len(), table.key.len())
            }
            Op::GetUnique {
                table,
                index,
                values,
            } => {
                let table = self.table(node, table)?;
                match table.indexes.iter().find(|i| &i.name == index) {
                    Some(found) if found.unique => {
                        self.arity(node, "index values", values.len(), found.columns.len())
                    }
                    _ => self.fault(
                        "E0620",
                        node,
                        format!(
                            "{} has no unique index {}",
                            shown(&table.name),
                            shown(index)
                        ),
                    ),
                }
            }
            Op::Aggregate { aggregate, key } => {
                match self
                    .schema
                    .tables
                    .iter()
                    .find_map(|t| t.aggregates.iter().find(|a| &a.name == aggregate))
                {
                    Some(found) => self.arity(node, "group values", key.len(), found.by.len()),
                    None => self.fault(
                        "E0620",
                        node,
                        format!("no aggregate {} in the schema", shown(aggregate)),
                    ),
                }
            }
            Op::Scan { .. } => self.scan(node),
            Op::Tuple(_) => self.fault("E0621", node, "a tuple outside a range's end".into()),
            Op::Record(fields) => {
                let mut names = HashSet::new();
                match fields.iter().find(|(name, _)| !names.insert(name.as_str())) {
                    Some((name, _)) => self.fault(
                        "E0611",
                        node,
                        format!("the record gives field {} twice", shown(name)),
                    ),
                    None => Ok(()),
                }
            }
            Op::Lambda(params, _) => {
                let mut names = HashSet::new();
                match params.iter().find(|p| !names.insert(p.as_str())) {
                    Some(p) => self.fault(
                        "E0611",
                        node,
                        format!("the lambda names parameter {} twice", shown(p)),
                    ),
                    None => Ok(()),
                }
            }
            Op::Combinator(c, shape, args) => self.combinator(node, *c, *shape, args.len()),
            Op::Insert {
                table,
                row,
                generated,
            } => {
                self.writes(node)?;
                let table = self.table(node, table)?;
                self.arity(node, "column values", row.len(), table.columns.len())?;
                // A generated key: only in a `key auto` table, its place
                // holding `none` (the store writes the key there).
                let placeholder = row
                    .get(table.key[0])
                    .is_some_and(|n| matches!(&n.op, Op::Const(rqc_plan::Value::Null)));
                if *generated && !(table.auto && placeholder) {
                    return self.fault(
                        "E0621",
                        node,
                        format!(
                            "it generates the key of {}, which is not `key auto` or whose place in the row is not `none`",
                            shown(&table.name)
                        ),
                    );
                }
                Ok(())
            }
            Op::Update { table, changes, .. } => {
                self.writes(node)?;
                let table = self.table(node, table)?;
                self.changes(node, table, changes)
            }
            Op::Upsert { table, columns } => {
                self.writes(node)?;
                let table = self.table(node, table)?;
                self.upserted(node, table, columns)
            }
            Op::Delete { table, .. } => {
                self.writes(node)?;
                self.table(node, table).map(|_| ())
            }
            _ => Ok(()),
        }
    }

    fn arity(&self, node: &Node, what: &str, given: usize, wanted: usize) -> Result<()> {
        if given == wanted {
            return Ok(());
        }
        self.fault(
            "E0621",
            node,
            format!("it gives {given} {what} where {wanted} are read"),
        )
    }

    /// A write is only in a mutation.
    fn writes(&self, node: &Node) -> Result<()> {
        if self.entry.kind == EntryKind::Mutation {
            return Ok(());
        }
        self.fault("E0622", node, "a query writes".into())
    }

    /// The positions of the columns a write names: each a column of the
    /// table, under its name (E0627, `columns.rs`), given once (`verb`
    /// says what the write does with it).
    fn named(
        &self,
        node: &Node,
        table: &TableSchema,
        named: &[(ColumnAt, Node)],
        verb: &str,
    ) -> Result<HashSet<usize>> {
        let mut seen = HashSet::new();
        for (column, _) in named {
            let position =
                resolve(table, column).or_else(|what| self.fault("E0627", node, what))?;
            if !seen.insert(position) {
                let name = shown(&column.name);
                return self.fault("E0611", node, format!("it {verb} {name} twice"));
            }
        }
        Ok(seen)
    }

    /// An update's changes: columns of the table, each once, none of the key.
    fn changes(
        &self,
        node: &Node,
        table: &TableSchema,
        changes: &[(ColumnAt, Node)],
    ) -> Result<()> {
        let changed = self.named(node, table, changes, "changes")?;
        match table.key.iter().find(|c| changed.contains(c)) {
            Some(&position) => self.fault(
                "E0622",
                node,
                format!(
                    "it changes {}, a column of the key of {} (a row would be stored under a key it does not hold)",
                    shown(&table.columns[position].name),
                    shown(&table.name)
                ),
            ),
            None => Ok(()),
        }
    }

    /// An upsert names columns of its table once each, its whole key among
    /// them, and leaves out only columns a new row can fill
    /// (`Column::left_out`): its insert path writes a whole row.
    fn upserted(
        &self,
        node: &Node,
        table: &TableSchema,
        columns: &[(ColumnAt, Node)],
    ) -> Result<()> {
        let given = self.named(node, table, columns, "gives")?;
        let left_out = table
            .columns
            .iter()
            .enumerate()
            .filter(|(position, _)| !given.contains(position));
        for (position, column) in left_out {
            let why = if table.key.contains(&position) {
                format!(
                    "a column of the key of {} (the row is found by it)",
                    shown(&table.name)
                )
            } else if column.left_out().is_none() {
                "which has no default (a new row would have no value for it)".to_string()
            } else {
                continue;
            };
            return self.fault(
                "E0622",
                node,
                format!("it upserts without {}, {why}", shown(&column.name)),
            );
        }
        Ok(())
    }

    /// A scan's index, prefix and range fit the key or index it reads.
    fn scan(&self, node: &Node) -> Result<()> {
        let Op::Scan {
            table,
            index,
            prefix,
            lower,
            upper,
            starts_with,
            ..
        } = &node.op
        else {
            return Ok(());
        };
        let table = self.table(node, table)?;
        let (columns, descending): (&[usize], &[bool]) = match index {
            None => (&table.key, &[]),
            Some(name) => match table.indexes.iter().find(|i| &i.name == name) {
                Some(found) => (&found.columns, &found.descending),
                None => {
                    return self.fault(
                        "E0620",
                        node,
                        format!("{} has no index {}", shown(&table.name), shown(name)),
                    )
                }
            },
        };
        let width = columns.len();
        let ranged = lower.is_some() || upper.is_some();
        if prefix.len() > width || (ranged && prefix.len() >= width) {
            return self.fault(
                "E0621",
                node,
                format!(
                    "its prefix of {} values{} does not fit the {width} columns it reads",
                    prefix.len(),
                    if ranged { " and a range" } else { "" }
                ),
            );
        }
        let direction = |k: usize| descending.get(k).copied().unwrap_or(false);
        for end in [lower, upper].into_iter().flatten() {
            let RangeEnd { value, .. } = end;
            if let Op::Tuple(items) = &value.op {
                let from = prefix.len();
                let fits = !items.is_empty()
                    && from + items.len() <= width
                    && (from..from + items.len()).all(|k| direction(k) == direction(from));
                if !fits || *starts_with {
                    return self.fault(
                        "E0621",
                        node,
                        "a tuple range over columns past the index's or of mixed directions".into(),
                    );
                }
            }
        }
        if *starts_with {
            let next = columns
                .get(prefix.len())
                .and_then(|&c| table.columns.get(c));
            let string = next.is_some_and(|c| {
                matches!(&c.ty, ColumnType::String)
                    || matches!(&c.ty, ColumnType::Optional(inner) if **inner == ColumnType::String)
            });
            if lower.is_none() || upper.is_some() || !string {
                return self.fault(
                    "E0621",
                    node,
                    "a `starts_with` range needs its prefix string, no upper end, and a `String` column next".into(),
                );
            }
        }
        Ok(())
    }

    /// A combinator's number of operands, and the combinators a stream
    /// takes.
    fn combinator(&self, node: &Node, c: Combinator, shape: Shape, given: usize) -> Result<()> {
        use Combinator::*;
        let wanted: &[usize] = match c {
            Map | Filter | FlatMap | SortBy { .. } | GroupBy | Any | All => &[2],
            Take | Skip | UnwrapOr => &[2],
            Count | Distinct | Flatten | First | Exists | Reverse => &[1],
            Sum | SumFloat | Avg | Min | Max => &[1, 2],
        };
        if !wanted.contains(&given) {
            return self.fault(
                "E0621",
                node,
                format!("`{}` has {given} operands, not {}", c.name(), wanted[0]),
            );
        }
        let stream_reads = matches!(
            c,
            Take | First | Exists | Map | Skip | Reverse | SortBy { .. }
        );
        if shape == Shape::Stream && !stream_reads {
            return self.fault(
                "E0621",
                node,
                format!("`{}` over a stream would read it without a limit", c.name()),
            );
        }
        Ok(())
    }
}

/// Whether every float in `value` is finite.
fn finite(value: &Value) -> bool {
    !crate::row_types::not_finite(value)
}
