//! Reverse reads: `reverse()` over a list, an option or a stream, and `sort_by` on a stream by the column it runs in (spec/cost.md, "Reverse reads").
//!
//! A stream is a range of a key or an index, read from its low end. Read
//! from its high end it is the same range: the same seek, the same rows,
//! so `reverse()` changes no cost. `sort_by(r => r.c, desc)` on a stream
//! is such a read when `c` is the column after the access's prefix; it is
//! accepted only where it gives exactly what sorting the rows would: the
//! same order as the range (a stable sort keeps it), or the reversed order
//! when `c` with the prefix identifies a row (no ties to come out
//! reversed).

use super::builtins::Input;
use super::expr::{Checked, Checker};
use super::fixes::column_of_lambda;
use super::schema_types::STREAM_PARAMETER;
use super::tir::TExpr;
use super::types::{StreamOrder, StreamTy, Ty};
use crate::span::Span;
use crate::syntax::ast::Expr;
use crate::syntax::printer::print_expr;
use rqc_plan::{Builtin, ColumnType, Shape, TableSchema};

/// The order a stream of `columns` (an index's or the key's, each
/// descending or not) runs in after its first `prefix` are fixed: `None`
/// when every column is fixed.
pub(super) fn stream_order(
    schema: &TableSchema,
    columns: &[usize],
    descending: &[bool],
    prefix: usize,
) -> Option<StreamOrder> {
    let next = *columns.get(prefix)?;
    let fixed = &columns[..=prefix];
    let covers = |cols: &[usize]| cols.iter().all(|c| fixed.contains(c));
    // A unique index over optional columns may hold many rows of `none`.
    let required = |cols: &[usize]| {
        cols.iter()
            .all(|&c| !matches!(schema.columns[c].ty, ColumnType::Optional(_)))
    };
    let identifies_row = covers(&schema.key)
        || schema
            .indexes
            .iter()
            .any(|i| i.unique && covers(&i.columns) && required(&i.columns));
    Some(StreamOrder {
        column: schema.columns[next].name.clone(),
        descending: descending.get(prefix).copied().unwrap_or(false),
        identifies_row,
    })
}

/// The order of a whole table (`T`) or index (`T.index`) read as a stream.
pub(super) fn whole_order(schema: &TableSchema, index: Option<&str>) -> Option<StreamOrder> {
    match index {
        None => stream_order(schema, &schema.key, &vec![false; schema.key.len()], 0),
        Some(name) => {
            let index = schema.indexes.iter().find(|i| i.name == name)?;
            stream_order(schema, &index.columns, &index.descending, 0)
        }
    }
}

impl Checker<'_> {
    /// `reverse()`: a list or an option backwards at no cost, a stream read
    /// from its other end at the cost it has.
    pub(super) fn reverse(&mut self, span: Span, input: Checked, shape: Input) -> Checked {
        let kind = shape.kind();
        // The same elements: its least and greatest too (`extremes.rs`).
        let extremes = input.ty.kept_extremes();
        let tir = TExpr::Builtin(Builtin::Reverse, kind, vec![input.tir]);
        match shape {
            Input::List(elem, size) => {
                Checked::new(Ty::list_with(elem, size, extremes), input.cost, tir)
            }
            Input::Option(elem) => Checked::new(Ty::option(elem), input.cost, tir),
            Input::Stream(mut stream) => {
                if !self.reversible(span, &stream, "reverse()") {
                    return Checked::error();
                }
                // Backwards, ties come out backwards too: a later `sort_by`
                // may not take it for the access's order.
                if stream
                    .source
                    .order
                    .as_ref()
                    .is_some_and(|o| !o.identifies_row)
                {
                    stream.source.order = None;
                }
                Checked::new(Ty::Stream(stream), input.cost, tir)
            }
            Input::Error => Checked::error(),
        }
    }

    /// `sort_by(key, order)` on a stream: a read of its range in that
    /// order, when the key is the column it runs in and no tie can come
    /// out otherwise than a sort would put it; anything else is rejected
    /// as before (`reject_stream_consumer`).
    pub(super) fn sort_stream(
        &mut self,
        span: Span,
        args: &[&Expr],
        stream: Box<StreamTy>,
        input: Checked,
    ) -> Checked {
        let order = stream.source.order.clone();
        let column = args.get(1).and_then(|k| column_of_lambda(k));
        let Some(order) = order.filter(|o| column.as_ref() == Some(&o.column)) else {
            return self.reject_stream_consumer(Builtin::SortBy, span, args, &stream, input.cost);
        };
        // The key is typed for its errors, and never applied: the range's
        // order is its order.
        // (A lambda on the column, so evaluating it costs nothing.)
        let (_, key, _) =
            self.function_argument(args[1], std::slice::from_ref(&stream.elem), "`sort_by`");
        let descending = match args.get(2).map(|o| self.written_order(o).tir) {
            None => false,
            Some(TExpr::Order(descending)) => descending,
            Some(_) => return Checked::error(),
        };
        let backwards = descending != order.descending;
        if backwards && !order.identifies_row {
            let shown = format!(
                "sort_by({}, {})",
                print_expr(args[1]),
                if descending { "desc" } else { "asc" }
            );
            let access = &stream.source.access;
            // An index in the sort's direction is read forwards: ties as stored.
            let mut fixes = self.sort_fixes(&stream, args);
            if fixes.is_empty() {
                fixes.push(format!(
                    "read through the key or a `unique` index ending in `{}`, or declare an index of the access's columns then `{}` in the order you want, and read it in its order",
                    order.column, order.column
                ));
            }
            let d = self.error(
                "E0456",
                format!(
                    "`{shown}` on `{access}` would read its range backwards, and rows with the same `{}` would come out in another order than a sort keeps them",
                    order.column
                ),
                span,
                "ties would be reversed",
            );
            d.help.extend(fixes);
            d.notes.push(format!(
                "`{}` with the access's prefix does not identify a row, so several rows may share a value",
                order.column
            ));
            return Checked::error();
        }
        if backwards
            && !self.reversible(
                span,
                &stream,
                &format!("sort_by(…, {})", if descending { "desc" } else { "asc" }),
            )
        {
            return Checked::error();
        }
        let tir = TExpr::Builtin(
            Builtin::SortBy,
            Shape::Stream,
            vec![input.tir, key, TExpr::Order(descending)],
        );
        Checked::new(Ty::Stream(stream), input.cost, tir)
    }

    /// Whether `stream` can be read from its other end; E0457 when a `skip`
    /// dropped rows from its start, or it is a parameter whose rows may
    /// have been (their number is not known here).
    fn reversible(&mut self, span: Span, stream: &StreamTy, what: &str) -> bool {
        let source = &stream.source;
        let why: String = if source.skipped {
            "a `skip` before it dropped rows from the start, which a read from the other end cannot drop without reading them".into()
        } else if source.table.is_empty() && source.description == STREAM_PARAMETER {
            "it is a stream parameter, whose caller may have skipped rows from its start".into()
        } else if source.table.is_empty() {
            format!(
                "it is {}, which may have skipped rows from its start",
                source.description
            )
        } else {
            return true;
        };
        let d = self.error(
            "E0457",
            format!("`{what}` cannot read this stream from its other end: {why}"),
            span,
            "not reversible here",
        );
        d.help.push(if source.table.is_empty() {
            "reverse the stream where it is read from its table, and pass the reversed stream: `f(Message[r] |> reverse())`".into()
        } else {
            format!("reverse before skipping: `{} |> {what} |> skip(k) |> take(n)`", source.access)
        });
        false
    }
}
