//! Lowering checked entries to index-only plans, and printing plans as trees.

use crate::check::tir::TExpr;
use crate::check::{CheckedEntry, CheckedProgram};
use crate::syntax::ast::DefKind;
use rqc_plan::{Bound, CompiledProgram, Entry, EntryKind, Operator, Plan, Scalar, FORMAT_VERSION};

/// The runnable program: the schema and a plan per accepted query and
/// mutation this version can plan (see [`unplanned`]).
pub fn lower_program(checked: &CheckedProgram) -> CompiledProgram {
    CompiledProgram {
        format_version: FORMAT_VERSION,
        schema: checked.schema.clone(),
        entries: checked.entries.iter().filter_map(lower_entry).collect(),
    }
}

/// Accepted entry points that this version cannot plan yet.
pub fn unplanned(checked: &CheckedProgram) -> Vec<String> {
    checked
        .entries
        .iter()
        .filter(|e| lower_entry(e).is_none())
        .map(|e| e.name.clone())
        .collect()
}

fn lower_entry(entry: &CheckedEntry) -> Option<Entry> {
    let kind = match entry.kind {
        DefKind::Query => EntryKind::Query,
        DefKind::Mutation => EntryKind::Mutation,
        // Helpers are inlined into their callers; they are not entry points.
        DefKind::Fn => return None,
    };
    let operator = match &entry.body {
        TExpr::Lookup { table, key } => Operator::KeyLookup {
            table: table.clone(),
            key: key.iter().map(scalar).collect::<Option<_>>()?,
        },
        TExpr::Insert { table, row } => Operator::Insert {
            table: table.clone(),
            row: row.iter().map(scalar).collect::<Option<_>>()?,
        },
        _ => return None,
    };
    let bound = Bound {
        seeks: entry.cost.seeks.max_value()?,
        rows: entry.cost.rows.max_value()?,
    };
    Some(Entry {
        module: entry.module.clone(),
        name: entry.name.clone(),
        kind,
        params: entry.params.clone()?,
        plan: Plan { operator, bound },
    })
}

fn scalar(expr: &TExpr) -> Option<Scalar> {
    match expr {
        TExpr::Param(index) => Some(Scalar::Param(*index)),
        TExpr::Const(value) => Some(Scalar::Const(value.clone())),
        _ => None,
    }
}

/// The plan as an indented tree: operator, access path and bound.
pub fn explain(entry: &Entry) -> String {
    let show = |s: &Scalar| match s {
        Scalar::Param(i) => entry
            .params
            .get(*i)
            .map(|p| format!("${}", p.name))
            .unwrap_or_else(|| format!("${i}")),
        Scalar::Const(v) => v.to_string(),
    };
    let bound = entry.plan.bound;
    let line = match &entry.plan.operator {
        Operator::KeyLookup { table, key } => format!(
            "KeyLookup {table} key=[{}]",
            key.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
        Operator::Insert { table, row } => format!(
            "Insert {table} row=[{}] checks=key,unique,ref,bound",
            row.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
    };
    format!(
        "{} {}\n└─ {line}  seeks ≤ {}  rows ≤ {}\n",
        match entry.kind {
            EntryKind::Query => "query",
            EntryKind::Mutation => "mutation",
        },
        entry.name,
        bound.seeks,
        bound.rows
    )
}
