//! One neutral form for a row from any side (rqc values, SQLite values, a
//! raw store's decoded bytes), so the check can compare what they return.
//! Converting happens only in the check, never inside a timed operation.

use rqc::Value;

/// Rows as the check compares them.
pub type Rows = Vec<Vec<Cell>>;

#[derive(Clone, Debug)]
pub enum Cell {
    Null,
    Int(i64),
    Float(f64),
    Text(String),
}

impl PartialEq for Cell {
    fn eq(&self, other: &Cell) -> bool {
        match (self, other) {
            (Cell::Null, Cell::Null) => true,
            (Cell::Int(a), Cell::Int(b)) => a == b,
            // SQLite's sum() adds with extra precision; rqc adds plainly.
            (Cell::Float(a), Cell::Float(b)) => {
                (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
            }
            (Cell::Text(a), Cell::Text(b)) => a == b,
            _ => false,
        }
    }
}

/// An rqc result as rows: each item of a list (or the one value) flattened
/// column by column, records in field order.
pub fn rqc_rows(output: &rqc::Output) -> Vec<Vec<Cell>> {
    output.rows().iter().map(flat).collect()
}

/// A value's scalars in order (records and lists flattened).
pub fn flat(value: &Value) -> Vec<Cell> {
    let mut out = Vec::new();
    flatten_into(value, &mut out);
    out
}

fn flatten_into(value: &Value, out: &mut Vec<Cell>) {
    match value {
        Value::Null => out.push(Cell::Null),
        Value::Bool(b) => out.push(Cell::Int(*b as i64)),
        Value::Int(n) => out.push(Cell::Int(*n)),
        Value::Float(x) => out.push(Cell::Float(*x)),
        Value::Str(s) => out.push(Cell::Text(s.clone())),
        Value::List(items) => items.iter().for_each(|v| flatten_into(v, out)),
        Value::Record(fields) => fields.iter().for_each(|(_, v)| flatten_into(v, out)),
    }
}

pub fn sql_cell(value: &rusqlite::types::Value) -> Cell {
    use rusqlite::types::Value as V;
    match value {
        V::Null => Cell::Null,
        V::Integer(n) => Cell::Int(*n),
        V::Real(x) => Cell::Float(*x),
        V::Text(s) => Cell::Text(s.clone()),
        V::Blob(_) => panic!("no blobs in the benchmark's tables"),
    }
}

/// An rqc value as a SQLite parameter.
pub fn sql_value(v: &Value) -> rusqlite::types::Value {
    use rusqlite::types::Value as V;
    match v {
        Value::Int(n) => V::Integer(*n),
        Value::Float(x) => V::Real(*x),
        Value::Str(s) => V::Text(s.clone()),
        Value::Bool(b) => V::Integer(*b as i64),
        _ => V::Null,
    }
}
