//! Tables whose declaration has an error, and the definitions that touch one: rejected without a bound.
//!
//! A table with an error stays in the schema, repaired (a bound above the
//! ceiling dropped, an `on delete` refused), so the rest of the program is
//! still checked. A bound proved against the repaired table would be a
//! promise about a program the user did not write (an adversary saw
//! `delete A[id]` printed `seeks ≤ 2` while its cascade into a table whose
//! bound was refused made it `≤ 17` once fixed), so a definition that
//! reads or writes such a table, or a table its writes keep (a reference
//! to or from the written table), is rejected with no bound: its verdict
//! says `rejected`, its callers that it could not be checked (E0304), and
//! the table's own diagnostics say what to fix. A delete keeps what its
//! cascades reach, however far; a refused `aggregate` keeps its table's
//! writes (not its reads) from a bound.

use super::definition::Outcome;
use super::schema::TableSource;
use super::tir::{any_node, TExpr};
use crate::diagnostics::Diagnostic;
use crate::syntax::ast::{FieldModifier, TableMember};
use rqc_plan::Schema;
use std::collections::BTreeSet;

/// The tables an error diagnostic points inside the declaration of, and
/// the tables those declare references to (a write of a referenced table
/// keeps the references to it: a delete's counters and cascades), as the
/// declarations say (a broken table may be left out of the schema).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Broken {
    pub tables: BTreeSet<String>,
    pub referenced: BTreeSet<String>,
    /// Tables a refused `aggregate` may be over: reading them is as
    /// declared, but a write would keep the aggregate (its cost left out).
    pub written: BTreeSet<String>,
}

pub fn broken_tables(tables: &[TableSource<'_>], diagnostics: &[Diagnostic]) -> Broken {
    let mut broken = Broken::default();
    for source in tables {
        let span = source.table.span;
        let has_error = diagnostics.iter().any(|d| {
            d.is_error()
                && d.primary.file == source.file
                && span.start <= d.primary.span.start
                && d.primary.span.end <= span.end
        });
        if !has_error {
            continue;
        }
        broken.tables.insert(source.table.name.name.clone());
        for member in &source.table.members {
            let TableMember::Field(field) = member else {
                continue;
            };
            for modifier in &field.modifiers {
                if let FieldModifier::Ref(path, _) = modifier {
                    broken.referenced.insert(path.dotted());
                    if let Some(last) = path.segments.last() {
                        broken.referenced.insert(last.name.clone());
                    }
                }
            }
        }
    }
    broken
}

/// Takes an accepted definition's bound away when it touches a broken
/// table: it is rejected, and offers no body to inline or entry to run.
pub fn reject_if_touching(outcome: &mut Outcome, schema: &Schema, broken: &Broken) {
    if (broken.tables.is_empty() && broken.written.is_empty()) || !outcome.verdict.accepted {
        return;
    }
    let body = match (&outcome.body, &outcome.entry) {
        (Some((_, body)), _) => body.clone(),
        (None, Some(entry)) => entry.body.clone(),
        (None, None) => return,
    };
    if !touches_broken(&body, schema, broken) {
        return;
    }
    outcome.verdict.accepted = false;
    outcome.sig = None;
    outcome.entry = None;
    outcome.body = None;
}

/// Whether `body` reads or writes a broken table, or writes one whose
/// references (either way) lead to a broken table.
fn touches_broken(body: &TExpr, schema: &Schema, broken: &Broken) -> bool {
    let is_broken = |table: &str| broken.tables.contains(table);
    // The tables a write of `table` keeps: those it references (an insert
    // checks them) and those referencing it (a delete's counters and
    // cascades, an update's moved references).
    // The tables a write of `table` keeps: those it references (an
    // insert or update checks them and moves their counters), and for a
    // delete those referencing it (its counters and cascades).
    let references = |table: &str| {
        broken.written.contains(table)
            || schema
                .table(table)
                .into_iter()
                .flat_map(|t| t.columns.iter().filter_map(|c| c.references.as_deref()))
                .any(is_broken)
    };
    // A delete keeps the tables referencing its table, and through their
    // cascades (a delete or a `set none` is a write of them) the tables
    // referencing those, as far as references reach.
    let referenced = |table: &str| {
        let mut seen = BTreeSet::from([table.to_string()]);
        let mut work = vec![table.to_string()];
        while let Some(table) = work.pop() {
            if broken.referenced.contains(&table) || broken.written.contains(&table) {
                return true;
            }
            for t in &schema.tables {
                let refers = t
                    .columns
                    .iter()
                    .any(|c| c.references.as_deref() == Some(table.as_str()));
                if refers {
                    if is_broken(&t.name) {
                        return true;
                    }
                    if seen.insert(t.name.clone()) {
                        work.push(t.name.clone());
                    }
                }
            }
        }
        false
    };
    any_node(body, &mut |node| match node {
        TExpr::Lookup { table, .. }
        | TExpr::UniqueLookup { table, .. }
        | TExpr::Scan { table, .. } => is_broken(table),
        TExpr::AggregateRead { aggregate, .. } => schema
            .aggregate(aggregate)
            .is_some_and(|(table, _)| is_broken(&table.name)),
        TExpr::Insert { table, .. } | TExpr::Upsert { table, .. } | TExpr::Update { table, .. } => {
            is_broken(table) || references(table)
        }
        TExpr::Delete { table, .. } => is_broken(table) || references(table) || referenced(table),
        _ => false,
    })
}
