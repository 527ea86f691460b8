//! Help lines that propose a concrete read for a rejected stream: an index already in the table's order, a range of an index, a maintained count.
//!
//! Each proposes code that compiles and is accepted once applied (the
//! editor's quick fixes apply them, `ide::code_actions`): a read the
//! schema offers ("… instead: `R`"), or a declaration and then its read
//! ("add `index …` to table `T`, then read `R`", "declare `aggregate …`,
//! then read `R`"). None proposes `take(n)` before `sort_by` or `count`:
//! that would sort or count the wrong rows.

use super::expr::Checker;
use super::modules::Symbol;
use super::types::{StreamTy, Ty};
use crate::syntax::ast::{BinaryOp, Expr, ExprKind};
use crate::syntax::printer::print_expr;
use rqc_plan::{AggregateKind, AggregateSchema, ColumnType, TableSchema};

/// `x => x.column`: the column.
pub(super) fn column_of_lambda(f: &Expr) -> Option<String> {
    let ExprKind::Lambda(params, body) = &f.kind else {
        return None;
    };
    let [param] = params.as_slice() else {
        return None;
    };
    match &body.kind {
        ExprKind::Field(base, field) => match &base.kind {
            ExprKind::Name(n) if n.name == param.name => Some(field.name.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// The positions of the columns `names` in `table`; `None` when one is
/// not its.
fn positions<'a>(
    table: &TableSchema,
    names: impl IntoIterator<Item = &'a str>,
) -> Option<Vec<usize>> {
    names.into_iter().map(|name| table.column(name)).collect()
}

/// The positions of a filtered stream's prefix columns and then the
/// filter's `column`: what an index must start with to read the filter.
pub(super) fn filter_columns(
    table: &TableSchema,
    stream: &StreamTy,
    column: &str,
) -> Option<Vec<usize>> {
    let prefix = stream.source.prefix_columns.iter().map(String::as_str);
    positions(table, prefix.chain([column]))
}

/// `Post.by_author[a]` → `a`; `Post` → nothing.
pub(super) fn prefix_values(stream: &StreamTy) -> Vec<String> {
    if stream.source.prefix_columns.is_empty() {
        return Vec::new();
    }
    let inner = stream.source.access.trim_end_matches(']');
    vec![inner
        .split_once('[')
        .map(|(_, v)| v)
        .unwrap_or("")
        .to_string()]
}

/// Everything inside the access's brackets, its prefix and its range
/// (`E.by_at[at <= t]` → `at <= t`): a read in another order keeps both.
fn access_values(stream: &StreamTy) -> Vec<String> {
    let access = &stream.source.access;
    match access.strip_suffix(']').and_then(|a| a.split_once('[')) {
        Some((_, inner)) if !inner.is_empty() => vec![inner.to_string()],
        _ => Vec::new(),
    }
}

/// The values of the stream's prefix, one per column, when its access has
/// no range after them (`Post.by_author[a]` → `a`).
pub(super) fn plain_prefix_values(stream: &StreamTy) -> Option<Vec<String>> {
    if stream.source.prefix_columns.is_empty() {
        return (!stream.source.access.ends_with(']')).then(Vec::new);
    }
    let inner = stream.source.access.strip_suffix(']')?;
    let (_, inner) = inner.split_once('[')?;
    let mut values = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, ch) in inner.char_indices() {
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                values.push(inner[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    values.push(inner[start..].trim().to_string());
    (values.len() == stream.source.prefix_columns.len()).then_some(values)
}

/// `T.index[values]`, or `T.index` with none.
fn read(table: &str, path: Option<&str>, values: &[String]) -> String {
    let base = match path {
        Some(index) => format!("{table}.{index}"),
        None => table.to_string(),
    };
    if values.is_empty() {
        base
    } else {
        format!("{base}[{}]", values.join(", "))
    }
}

/// An index name for `columns` that the table does not use yet.
fn fresh_index_name(table: &TableSchema, columns: &[String], suffix: &str) -> String {
    let mut name = format!("by_{}", columns.join("_"));
    if table.indexes.iter().any(|i| i.name == name) {
        name.push_str(suffix);
    }
    while table.indexes.iter().any(|i| i.name == name) {
        name.push('2');
    }
    name
}

impl Checker<'_> {
    /// Whether the stream is the rows of its access as written: the
    /// input of the rejected call prints as the access, and holds rows.
    pub(super) fn rewritable(&self, stream: &StreamTy, input: &Expr) -> Option<&TableSchema> {
        let table = self.schema.table(&stream.source.table)?;
        let rows = matches!(&stream.elem, Ty::Row(t, _) if *t == stream.source.table);
        (rows && print_expr(input) == stream.source.access).then_some(table)
    }

    /// `s |> sort_by(x => x.column, order)`: the index that lists the rows
    /// in that order, or one to declare.
    pub(super) fn sort_fixes(&self, stream: &StreamTy, args: &[&Expr]) -> Vec<String> {
        let (Some(table), Some(column)) = (
            self.rewritable(stream, args[0]),
            args.get(1).and_then(|k| column_of_lambda(k)),
        ) else {
            return Vec::new();
        };
        // Sorted by a column the access fixes: every row ties.
        if stream.source.prefix_columns.contains(&column) {
            let access = &stream.source.access;
            return vec![format!(
                "every row of `{access}` has the same `{column}`, so the sort changes nothing: read `{access} |> take(n)`"
            )];
        }
        let desc = args.get(2).is_some_and(|o| print_expr(o) == "desc");
        let mut wanted = Vec::new();
        for name in stream.source.prefix_columns.iter().chain([&column]) {
            match table.column(name) {
                Some(c) => wanted.push(c),
                None => return Vec::new(),
            }
        }
        let name = &stream.source.table;
        let values = access_values(stream);
        let starts = |columns: &[usize]| {
            columns.len() >= wanted.len() && columns[..wanted.len()] == wanted[..]
        };
        let last = wanted.len() - 1;
        let order = if desc { "desc" } else { "asc" };
        if !desc && starts(&table.key) {
            let r = read(name, None, &values);
            return vec![format!(
                "the key lists the rows in this order; read them without sorting instead: `{r} |> take(n)`"
            )];
        }
        let mut fixes = Vec::new();
        if let Some(index) = table
            .indexes
            .iter()
            .find(|i| starts(&i.columns) && i.descending[last] == desc)
        {
            let r = read(name, Some(&index.name), &values);
            fixes.push(format!(
                "the index `{}` lists the rows by `{column}` {order}; read it without sorting instead: `{r} |> take(n)`",
                index.name
            ));
            return fixes;
        }
        let mut columns: Vec<String> = stream.source.prefix_columns.clone();
        columns.push(column.clone());
        let index = fresh_index_name(table, &columns, &format!("_{order}"));
        let declared: Vec<String> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i == last && desc {
                    format!("{c} desc")
                } else {
                    c.clone()
                }
            })
            .collect();
        let r = read(name, Some(&index), &values);
        let other = table
            .indexes
            .iter()
            .find(|i| starts(&i.columns))
            .map(|i| {
                format!(
                    " (`{}` lists them the other way, and read backwards its rows that tie would come out reversed)",
                    i.name
                )
            })
            .unwrap_or_default();
        fixes.push(format!(
            "add `index {index} ({})` to table `{name}`, then read `{r} |> take(n)`: the rows by `{column}` {order}, without sorting{other}",
            declared.join(", ")
        ));
        fixes
    }

    /// `s |> filter(x => x.column OP value)` with a range operator: the
    /// range read of an index (or the key) that starts with the stream's
    /// prefix and then `column`, or one to declare.
    pub(super) fn range_fix(
        &self,
        stream: &StreamTy,
        column: &str,
        op: BinaryOp,
        value: &str,
    ) -> Option<String> {
        let source = &stream.source;
        let table = self.schema.table(&source.table)?;
        let wanted = filter_columns(table, stream, column)?;
        let starts = |columns: &[usize]| {
            columns.len() >= wanted.len() && columns[..wanted.len()] == wanted[..]
        };
        let mut values = prefix_values(stream);
        values.push(format!("{column} {} {value}", op.symbol()));
        let name = &source.table;
        if starts(&table.key) {
            let r = read(name, None, &values);
            return Some(format!(
                "read the range of the key, which holds only matching rows, instead: `{r} |> take(k)` with a bounded k"
            ));
        }
        if let Some(index) = table.indexes.iter().find(|i| starts(&i.columns)) {
            let r = read(name, Some(&index.name), &values);
            return Some(format!(
                "read the range of the index `{}`, which holds only matching rows, instead: `{r} |> take(k)` with a bounded k",
                index.name
            ));
        }
        let mut columns = source.prefix_columns.clone();
        columns.push(column.to_string());
        let index = fresh_index_name(table, &columns, "_range");
        let r = read(name, Some(&index), &values);
        Some(format!(
            "add `index {index} ({})` to table `{name}`, then read the range `{r} |> take(k)` with a bounded k",
            columns.join(", ")
        ))
    }

    /// `count()` of the rows whose `columns` equal `values` (a prefix, or a
    /// filter on one), or their `sum`, `min` or `max` of `column`: the
    /// aggregate the schema keeps of those groups, or one to declare.
    /// `None` when the columns are not the table's, or when no such
    /// aggregate could be declared (a sum of a column that is not `Int`,
    /// an extreme of an optional column or with no next extreme in reach).
    pub(super) fn kept_fix(
        &self,
        kind: AggregateKind,
        table_name: &str,
        columns: &[String],
        values: &[String],
        column: Option<&str>,
    ) -> Option<String> {
        let table = self.schema.table(table_name)?;
        let wanted = positions(table, columns.iter().map(String::as_str))?;
        if wanted.is_empty() {
            return None;
        }
        let kept_column = match column {
            Some(name) => Some(table.column(name)?),
            None => None,
        };
        let op = kind.name();
        let what = match kind {
            AggregateKind::Count => "count",
            AggregateKind::Sum => "total",
            AggregateKind::Min => "least value",
            AggregateKind::Max => "greatest value",
        };
        let value_of = |c: usize| {
            let at = wanted.iter().position(|&w| w == c)?;
            values.get(at).cloned()
        };
        for aggregate in &table.aggregates {
            let same_group = aggregate.by.len() == wanted.len()
                && aggregate.by.iter().all(|c| wanted.contains(c));
            if aggregate.kind != kind || aggregate.column != kept_column || !same_group {
                continue;
            }
            let args: Option<Vec<String>> = aggregate.by.iter().map(|&c| value_of(c)).collect();
            let r = format!("{}[{}]", aggregate.name, args?.join(", "));
            let import = self.import_of(&aggregate.name);
            return Some(format!(
                "read the {what} the schema keeps, in one seek, in place of the {op}: `{r}`{}",
                import.unwrap_or_default()
            ));
        }
        let declared = AggregateSchema {
            name: String::new(),
            kind,
            column: kept_column,
            by: wanted,
        };
        let declarable = match (kind, kept_column) {
            (AggregateKind::Count, None) => true,
            (AggregateKind::Sum, Some(c)) => table.columns[c].ty == ColumnType::Int,
            (AggregateKind::Min | AggregateKind::Max, Some(c)) => {
                !matches!(table.columns[c].ty, ColumnType::Optional(_))
                    && table.extreme_path(&declared).is_some()
            }
            _ => false,
        };
        if !declarable {
            return None;
        }
        let lower = table_name.to_lowercase();
        let mut name = match column {
            Some(column) => format!("{lower}_{op}_{column}_by_{}", columns.join("_")),
            None => format!("{lower}_{op}_by_{}", columns.join("_")),
        };
        while self.index.lookup(self.module, &name).is_some() || self.schema.table(&name).is_some()
        {
            name.push('2');
        }
        let by = if columns.len() == 1 {
            columns[0].clone()
        } else {
            format!("({})", columns.join(", "))
        };
        let of = match column {
            Some(column) => format!("{table_name}.{column}"),
            None => table_name.to_string(),
        };
        Some(format!(
            "declare a {what} kept by every write of `{table_name}`: `aggregate {name} = {op}({of}) by {by}`, then read `{name}[{}]` in place of the {op} (one seek)",
            values.join(", ")
        ))
    }

    /// How to import `name` (an aggregate of another module) where it is
    /// not in scope: ` (import it: `import m.{name}`)`; `None` in scope.
    fn import_of(&self, name: &str) -> Option<String> {
        let in_scope = matches!(
            self.index.lookup(self.module, name),
            Some(Symbol::Aggregate(a)) if a == name
        );
        if in_scope {
            return None;
        }
        let home = self.index.home_of(self.module, name)?;
        Some(format!(" (import it: `import {home}.{{{name}}}`)"))
    }
}
