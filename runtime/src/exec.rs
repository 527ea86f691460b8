//! The plan executor: runs an entry's plan against a store, counting seeks and rows.

use crate::catalog::table_tree;
use crate::encoding::key::encode_key;
use crate::encoding::row::decode_row;
use crate::error::{Result, RuntimeError};
use crate::store::Store;
use crate::writes::insert_row;
use rqc_plan::{Bound, Entry, Operator, Scalar, Schema, TableSchema, Value};

/// What a run read: B-tree descents and entries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub seeks: u64,
    pub rows: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// Result rows as records (queries).
    pub rows: Vec<Value>,
    /// Rows written (mutations).
    pub written: u64,
    pub stats: Stats,
    pub bound: Bound,
}

/// Runs `entry` with arguments already checked against its parameters.
pub fn execute(
    store: &dyn Store,
    schema: &Schema,
    entry: &Entry,
    args: &[Value],
) -> Result<Output> {
    let mut stats = Stats::default();
    let mut rows = Vec::new();
    let mut written = 0;
    match &entry.plan.operator {
        Operator::KeyLookup { table, key } => {
            let table = table_schema(schema, table)?;
            let key: Vec<Value> = key.iter().map(|s| scalar(s, args)).collect();
            let bytes = encode_key(&key, &[])?;
            stats.seeks += 1;
            if let Some(found) = store.get(&table_tree(&table.name), &bytes)? {
                stats.rows += 1;
                rows.push(record(table, decode_row(&found, table.columns.len())?));
            }
        }
        Operator::Insert { table, row } => {
            let table = table_schema(schema, table)?;
            let values: Vec<Value> = row.iter().map(|s| scalar(s, args)).collect();
            let reads = insert_row(store, table, values)?;
            stats.seeks += reads;
            stats.rows += reads;
            written = 1;
        }
    }
    check_bound(entry, stats)?;
    Ok(Output {
        rows,
        written,
        stats,
        bound: entry.plan.bound,
    })
}

fn table_schema<'s>(schema: &'s Schema, name: &str) -> Result<&'s TableSchema> {
    schema.table(name).ok_or_else(|| {
        RuntimeError::new(
            "E0593",
            format!("the plan reads table `{name}`, which the schema lacks"),
            "recompile the program; the plan and the schema come from different versions",
        )
    })
}

fn scalar(scalar: &Scalar, args: &[Value]) -> Value {
    match scalar {
        Scalar::Param(i) => args[*i].clone(),
        Scalar::Const(value) => value.clone(),
    }
}

/// A stored row as a record of its columns.
pub fn record(table: &TableSchema, values: Vec<Value>) -> Value {
    Value::Record(
        table
            .columns
            .iter()
            .zip(values)
            .map(|(c, v)| (c.name.clone(), v))
            .collect(),
    )
}

/// Reading more than the proof allows is a bug in rqc, never in the data:
/// loud in debug and test builds, an error in release.
fn check_bound(entry: &Entry, stats: Stats) -> Result<()> {
    let bound = entry.plan.bound;
    if stats.seeks <= bound.seeks && stats.rows <= bound.rows {
        return Ok(());
    }
    let message = format!(
        "`{}` read {} seeks and {} rows, beyond its proved bound of {} and {}",
        entry.name, stats.seeks, stats.rows, bound.seeks, bound.rows
    );
    debug_assert!(false, "{message}");
    Err(RuntimeError::new(
        "E0599",
        message,
        "this is a bug in rqc; please report it with the program",
    ))
}
