//! Index-only plans: operator trees, each operator with its static bound.

use crate::schema::{ColumnType, Schema};
use crate::value::Value;
use serde::{Deserialize, Serialize};

/// The most seeks and rows an operator (with its inputs) may cost; `None`
/// only in a plan that was never accepted, which the runtime refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bound {
    pub seeks: u64,
    pub rows: u64,
}

/// A value computed at run time from parameters and constants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Scalar {
    Param(usize),
    Const(Value),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Operator {
    /// Point read by the whole primary key: at most one row.
    KeyLookup { table: String, key: Vec<Scalar> },
    /// Writes one row after checking every constraint of its table.
    Insert {
        table: String,
        /// One scalar per column, in column order.
        row: Vec<Scalar>,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub operator: Operator,
    pub bound: Bound,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    Query,
    Mutation,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamSpec {
    pub name: String,
    pub ty: ColumnType,
    /// `n: Int <= 100`: larger arguments are refused before running.
    pub max: Option<i64>,
}

/// A query or mutation callable from outside.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub module: String,
    pub name: String,
    pub kind: EntryKind,
    pub params: Vec<ParamSpec>,
    pub plan: Plan,
}

/// What `rqc compile -o` writes and the runtime loads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompiledProgram {
    pub format_version: u32,
    pub schema: Schema,
    pub entries: Vec<Entry>,
}

impl CompiledProgram {
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.name == name || format!("{}.{}", e.module, e.name) == name)
    }
}
