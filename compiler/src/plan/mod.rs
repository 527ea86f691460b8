//! Lowering checked entries to index-only plans, and printing plans as trees.

use crate::check::{Body, CheckedEntry, CheckedProgram, Operand};
use crate::syntax::ast::DefKind;
use rqc_plan::{CompiledProgram, Entry, EntryKind, Operator, Plan, Scalar, FORMAT_VERSION};

/// The runnable program: the schema and a plan per accepted query and mutation.
pub fn lower_program(checked: &CheckedProgram) -> CompiledProgram {
    CompiledProgram {
        format_version: FORMAT_VERSION,
        schema: checked.schema.clone(),
        entries: checked.entries.iter().filter_map(lower_entry).collect(),
    }
}

fn lower_entry(entry: &CheckedEntry) -> Option<Entry> {
    let kind = match entry.kind {
        DefKind::Query => EntryKind::Query,
        DefKind::Mutation => EntryKind::Mutation,
        // Helpers are inlined into their callers; they are not entry points.
        DefKind::Fn => return None,
    };
    let operator = match &entry.body {
        Body::KeyLookup { table, key } => Operator::KeyLookup {
            table: table.clone(),
            key: key.iter().map(scalar).collect(),
        },
        Body::Insert { table, row } => Operator::Insert {
            table: table.clone(),
            row: row.iter().map(scalar).collect(),
        },
    };
    Some(Entry {
        module: entry.module.clone(),
        name: entry.name.clone(),
        kind,
        params: entry.params.clone(),
        plan: Plan {
            operator,
            bound: entry.bound,
        },
    })
}

fn scalar(operand: &Operand) -> Scalar {
    match operand {
        Operand::Param(index) => Scalar::Param(*index),
        Operand::Const(value) => Scalar::Const(value.clone()),
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
