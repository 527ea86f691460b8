//! Rejections: the diagnostics that say why a cost grows with a table, and how to fix it.

use super::expr::{Checked, Checker};
use super::types::StreamTy;
use crate::cost::{Cost, Poly, Var};
use crate::span::Span;
use crate::syntax::ast::{BinaryOp, Expr, ExprKind};
use crate::syntax::printer::print_expr;
use rqc_plan::{AggregateKind, Builtin};

impl Checker<'_> {
    /// E0301 for a combinator that may read a whole stream.
    pub fn reject_stream_consumer(
        &mut self,
        op: Builtin,
        span: Span,
        args: &[&Expr],
        stream: &StreamTy,
        cost: Cost,
    ) -> Checked {
        let source = &stream.source;
        let fixes = match op {
            Builtin::Filter => {
                let counted = self.counted_filter == Some(span);
                self.filter_fixes(stream, args.get(1).copied(), counted)
            }
            Builtin::SortBy => {
                let mut fixes = self.sort_fixes(stream, args);
                fixes.extend(aggregate_fixes(op, stream));
                fixes
            }
            Builtin::Count => {
                let plain = self
                    .rewritable(stream, args[0])
                    .and(super::fixes::plain_prefix_values(stream));
                let mut fixes: Vec<String> = plain
                    .and_then(|values| {
                        let columns = &source.prefix_columns;
                        self.kept_fix(AggregateKind::Count, &source.table, columns, &values, None)
                    })
                    .into_iter()
                    .collect();
                fixes.extend(aggregate_fixes(op, stream));
                fixes
            }
            Builtin::Sum | Builtin::SumFloat | Builtin::Min | Builtin::Max => {
                let mut fixes: Vec<String> =
                    self.kept_of_column(op, stream, args).into_iter().collect();
                fixes.extend(aggregate_fixes(op, stream));
                fixes
            }
            _ => aggregate_fixes(op, stream),
        };
        self.unbounded(
            span,
            &format!("`{op}` reads {}", what(stream)),
            stream,
            fixes,
        );
        // Check the remaining arguments for their own errors, and cost the
        // result as if the stream were a list of N(T) rows.
        let table = if source.table.is_empty() {
            "input"
        } else {
            source.table.as_str()
        };
        let size = Poly::var(Var::table(table));
        let mut cost = cost.plus(&Cost::new(Poly::zero(), size.clone(), Poly::zero()));
        for arg in &args[1..] {
            if matches!(arg.kind, ExprKind::Lambda(..)) {
                let (func, _, once) = self.function_argument(
                    arg,
                    std::slice::from_ref(&stream.elem),
                    &format!("`{op}`"),
                );
                cost = cost.plus(&once).plus(&func.latent.times(&size));
            } else {
                self.check(arg);
            }
        }
        Checked::new(super::types::Ty::Error, cost, super::tir::TExpr::Error)
    }

    /// E0301 for `flat_map` whose function returns an unlimited stream, or
    /// `flatten` over a list of streams.
    pub fn reject_inner_stream(
        &mut self,
        op: Builtin,
        span: Span,
        stream: &StreamTy,
        cost: Cost,
    ) -> Checked {
        let access = &stream.source.access;
        let fixes = vec![
            format!("limit each inner read: `{access} |> take(10)`"),
            table_fix(stream),
        ];
        self.unbounded(
            span,
            &format!("`{op}` reads {} for each element", what(stream)),
            stream,
            fixes,
        );
        let size = Poly::var(Var::table(&stream.source.table));
        Checked::new(
            super::types::Ty::Error,
            cost.plus(&Cost::new(Poly::zero(), size, Poly::zero())),
            super::tir::TExpr::Error,
        )
    }

    /// E0301 for a query that returns a stream with no limit.
    pub fn reject_unconsumed(&mut self, span: Span, stream: &StreamTy, kind: &str) {
        let fixes = vec![
            "return a bounded number of rows: append `|> take(100)` (or a parameter `n: Int <= 100` and `|> take(n)`)"
                .to_string(),
            "or only the first row: append `|> first()`".to_string(),
        ];
        self.unbounded(
            span,
            &format!(
                "the {kind} returns {} with no limit",
                stream.source.description
            ),
            stream,
            fixes,
        );
    }

    /// E0301 for `update` or `delete` over a stream.
    pub fn reject_unbounded_write(&mut self, op: &str, span: Span, stream: &StreamTy) {
        let mut fixes = Vec::new();
        if !stream.source.prefix_columns.is_empty() {
            fixes.push(bound_fix(stream));
        }
        fixes.push(format!("or {op} one row at a time by its key"));
        self.unbounded(
            span,
            &format!("`{op}` visits {}", what(stream)),
            stream,
            fixes,
        );
    }

    fn unbounded(&mut self, span: Span, reason: &str, stream: &StreamTy, fixes: Vec<String>) {
        let table = stream.source.table.clone();
        if table.is_empty() {
            // A stream parameter: its source is the caller's.
            let d = self.error(
                "E0301",
                format!("rows grow with the input: {reason}"),
                span,
                "the cost of this grows with the stream",
            );
            d.help.push(if stream.source.description == super::schema_types::STREAM_PARAMETER {
                "take a bounded list instead: declare the parameter as `[T]` and have callers limit it with `|> take(n)`".into()
            } else {
                format!(
                    "limit {} before this: `|> take(n)` first, or have the function return a list it limited",
                    stream.source.description
                )
            });
            return;
        }
        let label = if stream.source.prefix_columns.is_empty() {
            format!("`{table}` is a large table: nothing bounds its size")
        } else {
            format!(
                "`{table}` declares no bound on the rows per {}",
                stream.source.prefix_columns.join(", ")
            )
        };
        let secondary = self.table_label(&table, label);
        let d = self.error(
            "E0301",
            format!("rows grow with N({table}): {reason}"),
            span,
            "the cost of this grows with the table",
        );
        // Each alternative after the first says it is one; the first,
        // whichever it is, stands alone.
        d.help = fixes
            .into_iter()
            .enumerate()
            .map(|(i, fix)| match (i, fix.strip_prefix("or ")) {
                (0, Some(alone)) => alone.to_string(),
                (0, None) => fix,
                (_, Some(_)) => fix,
                (_, None) => format!("or {fix}"),
            })
            .collect();
        d.notes.push("a query compiles only when its seeks and rows are bounded whatever the size of each table".into());
        if let Some(label) = secondary {
            d.secondary.push(label);
        }
    }

    /// `s |> sum(x => x.column)` (or `min`, `max`) over a group: the
    /// aggregate the schema keeps of it, or one to declare.
    fn kept_of_column(&self, op: Builtin, stream: &StreamTy, args: &[&Expr]) -> Option<String> {
        let kind = match op {
            Builtin::Sum | Builtin::SumFloat => AggregateKind::Sum,
            Builtin::Min => AggregateKind::Min,
            _ => AggregateKind::Max,
        };
        let column = super::fixes::column_of_lambda(args.get(1)?)?;
        let values = self
            .rewritable(stream, args[0])
            .and(super::fixes::plain_prefix_values(stream))?;
        let source = &stream.source;
        self.kept_fix(
            kind,
            &source.table,
            &source.prefix_columns,
            &values,
            Some(&column),
        )
    }

    /// For `filter(x => x.column == value)` over a whole table or a
    /// prefix: a read the table already offers, when it has one: by its
    /// key, by a unique index, or by an index (in either direction) whose
    /// columns start with the prefix's and then `column`.
    fn existing_read(&self, stream: &StreamTy, column: &str, value: &str) -> Option<String> {
        let source = &stream.source;
        let table = self.schema.table(&source.table)?;
        let wanted = super::fixes::filter_columns(table, stream, column)?;
        let mut values = super::fixes::prefix_values(stream);
        values.push(value.to_string());
        let values = values.join(", ");
        let name = &source.table;
        if table.key == wanted {
            return Some(format!(
                "read the row by its key instead: `{name}[{values}]` is one seek (the filter's column is `{name}`'s key)"
            ));
        }
        if let Some(index) = table
            .indexes
            .iter()
            .find(|i| i.unique && i.columns == wanted)
        {
            return Some(format!(
                "read the row by its unique index instead: `{name}.{}[{values}]` is one seek",
                index.name
            ));
        }
        let index = table
            .indexes
            .iter()
            .find(|i| i.columns.len() >= wanted.len() && i.columns[..wanted.len()] == wanted[..])?;
        Some(format!(
            "read the index `{}`, which starts with these columns, instead: `{name}.{}[{values}] |> take(k)` with a bounded k",
            index.name, index.name
        ))
    }

    /// Fixes for `filter` over a stream, most specific first. A `counted`
    /// filter is the input of `count()`: a read limited by `take` would
    /// count the wrong rows, so the fix is a maintained count.
    fn filter_fixes(
        &self,
        stream: &StreamTy,
        predicate: Option<&Expr>,
        counted: bool,
    ) -> Vec<String> {
        let source = &stream.source;
        let table = &source.table;
        let mut fixes = Vec::new();
        let predicate = predicate.and_then(simple_predicate);
        if counted {
            if let Some((column, BinaryOp::Eq, value)) = predicate {
                let mut columns = source.prefix_columns.clone();
                columns.push(column);
                let values = super::fixes::plain_prefix_values(stream).map(|mut v| {
                    v.push(value);
                    v
                });
                if let Some(fix) = values.and_then(|values| {
                    self.kept_fix(AggregateKind::Count, table, &columns, &values, None)
                }) {
                    fixes.push(fix);
                }
            }
            if !source.prefix_columns.is_empty() {
                fixes.push(bound_fix(stream));
            }
            return fixes;
        }
        if let Some((column, op, value)) = predicate {
            let is_next = source.next_column.as_deref() == Some(column.as_str());
            if op != BinaryOp::Eq && op != BinaryOp::NotEq && is_next {
                let inner = source.access.trim_end_matches(']');
                fixes.push(format!(
                    "read only the matching rows: select the range in the access instead: `{inner}, {column} {} {value}] |> take(k)` with a bounded k",
                    op.symbol()
                ));
            } else if let Some(range) = matches!(
                op,
                BinaryOp::Lt | BinaryOp::LtEq | BinaryOp::Gt | BinaryOp::GtEq
            )
            .then(|| self.range_fix(stream, &column, op, &value))
            .flatten()
            {
                fixes.push(range);
            } else if let Some(read) = (op == BinaryOp::Eq)
                .then(|| self.existing_read(stream, &column, &value))
                .flatten()
            {
                fixes.push(read);
            } else if op == BinaryOp::Eq {
                let mut columns = source.prefix_columns.clone();
                columns.push(column.clone());
                let name = format!("by_{}", columns.join("_"));
                let values: Vec<String> = if source.prefix_columns.is_empty() {
                    vec![value.clone()]
                } else {
                    let inner = source.access.trim_end_matches(']');
                    let inner = inner.split_once('[').map(|(_, v)| v).unwrap_or("");
                    vec![inner.to_string(), value.clone()]
                };
                fixes.push(format!(
                    "add `index {name} ({})` to table `{table}`, then read `{table}.{name}[{}] |> take(k)` with a bounded k",
                    columns.join(", "),
                    values.join(", ")
                ));
            }
        }
        if !source.prefix_columns.is_empty() {
            fixes.push(bound_fix(stream));
        }
        fixes.push(format!("or filter a bounded part: `… {BOUNDED_PART}filter(…)` reads at most 100 rows (and may find fewer matches)"));
        fixes
    }
}

/// What a help inserts before a rejected stage to read a bounded part of
/// its input (`ide::code_actions` inserts it).
pub(crate) const BOUNDED_PART: &str = "|> take(100) |> ";

/// `the rows of Post.by_author[a]` / `every row of User`.
fn what(stream: &StreamTy) -> String {
    if stream.source.prefix_columns.is_empty() {
        stream.source.description.clone()
    } else {
        format!(
            "{}, and nothing bounds how many there are",
            stream.source.description
        )
    }
}

fn bound_fix(stream: &StreamTy) -> String {
    let columns = &stream.source.prefix_columns;
    let shown = if columns.len() == 1 {
        columns[0].clone()
    } else {
        format!("({})", columns.join(", "))
    };
    format!(
        "declare a bound in table `{}`: `bound {shown} <= 1000` (the most rows one {} may have; writes past it are refused)",
        stream.source.table,
        columns.join(", ")
    )
}

/// What the table can declare so that the stream is bounded: the whole
/// table small, or a bound on the rows per prefix.
fn table_fix(stream: &StreamTy) -> String {
    if stream.source.prefix_columns.is_empty() {
        format!(
            "if `{}` stays small, declare it so: `small table {} max 1000 {{ … }}`",
            stream.source.table, stream.source.table
        )
    } else {
        bound_fix(stream)
    }
}

fn aggregate_fixes(op: Builtin, stream: &StreamTy) -> Vec<String> {
    let mut fixes = vec![table_fix(stream)];
    if stream.source.prefix_columns.is_empty()
        && matches!(
            op,
            Builtin::Count | Builtin::Sum | Builtin::SumFloat | Builtin::Avg
        )
    {
        fixes.push("or keep the total in a table of its own, updated by the mutations that write these rows".into());
    }
    // A bounded part's sort, count, total or extreme is not the stream's:
    // `take(n) |> sort_by(…)` sorts the first n rows in the stream's order.
    if matches!(
        op,
        Builtin::SortBy
            | Builtin::Count
            | Builtin::Sum
            | Builtin::SumFloat
            | Builtin::Avg
            | Builtin::Min
            | Builtin::Max
    ) {
        return fixes;
    }
    let args = if matches!(op, Builtin::Count | Builtin::Distinct | Builtin::Flatten) {
        "()"
    } else {
        "(…)"
    };
    fixes.push(format!(
        "or {op} a bounded part: `… {BOUNDED_PART}{op}{args}` reads at most 100 rows"
    ));
    fixes
}

/// `v => v.column OP value` (either side), as (column, op, value text).
fn simple_predicate(f: &Expr) -> Option<(String, BinaryOp, String)> {
    let ExprKind::Lambda(params, body) = &f.kind else {
        return None;
    };
    let [param] = params.as_slice() else {
        return None;
    };
    let ExprKind::Binary(op, lhs, rhs) = &body.kind else {
        return None;
    };
    let field_of_param = |e: &Expr| match &e.kind {
        ExprKind::Field(base, field) => match &base.kind {
            ExprKind::Name(n) if n.name == param.name => Some(field.name.clone()),
            _ => None,
        },
        _ => None,
    };
    if let Some(column) = field_of_param(lhs) {
        return Some((column, *op, print_expr(rhs)));
    }
    let flipped = match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::LtEq => BinaryOp::GtEq,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::GtEq => BinaryOp::LtEq,
        other => *other,
    };
    field_of_param(rhs).map(|column| (column, flipped, print_expr(lhs)))
}
