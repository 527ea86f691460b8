//! Values during evaluation: data, function values, lazy streams, and lists or records that hold either.

use crate::bound::BoundTable;
use crate::error::Result;
use crate::interp::internal;
use crate::store::Tree;
use rqc_plan::{Node, Value};
use std::rc::Rc;

/// A value during evaluation. Data is a plan [`Value`]; lists and records
/// that hold a function or a stream are kept apart (`List`, `Record`), so
/// that data stays in the form it is read and returned in.
#[derive(Clone)]
pub enum Val<'p> {
    Data(Value),
    Closure(Rc<Closure<'p>>),
    Stream(Rc<Stream<'p>>),
    List(Rc<Vec<Val<'p>>>),
    Record(Rc<Vec<(String, Val<'p>)>>),
}

pub struct Closure<'p> {
    pub params: &'p [String],
    pub body: &'p Node,
    pub env: Env<'p>,
}

/// An unread range: where it is, and the functions to apply to each row
/// read (`map`s over the stream), in order. Nothing is read until a
/// limiting consumer reads from it.
pub struct Stream<'p> {
    pub table: &'p BoundTable,
    pub tree: Tree,
    pub start: Vec<u8>,
    pub end: Option<Vec<u8>>,
    pub maps: Vec<Val<'p>>,
    /// Rows read and dropped before the first (`skip`).
    pub skip: usize,
    /// The scan a paged run walks (`page`): its reads record where the
    /// page ended.
    pub paged: bool,
}

/// The names in scope: a persistent list, newest binding first. Scopes are a
/// handful of names (parameters of the lambdas around, `let`s), so a scan
/// beats hashing, and binding costs one small allocation with no copy of the
/// name (profiled on the TPC-C mix: the hash map's inserts were 6% of time).
#[derive(Clone, Default)]
pub struct Env<'p>(Option<Rc<Binding<'p>>>);

struct Binding<'p> {
    name: &'p str,
    value: Val<'p>,
    outer: Env<'p>,
}

impl<'p> Env<'p> {
    pub fn new() -> Env<'p> {
        Env(None)
    }

    /// This scope with `name` bound to `value` (shadowing an outer `name`).
    pub fn bind(&self, name: &'p str, value: Val<'p>) -> Env<'p> {
        Env(Some(Rc::new(Binding {
            name,
            value,
            outer: self.clone(),
        })))
    }

    pub fn get(&self, name: &str) -> Option<&Val<'p>> {
        let mut scope = self.0.as_deref();
        while let Some(binding) = scope {
            if binding.name == name {
                return Some(&binding.value);
            }
            scope = binding.outer.0.as_deref();
        }
        None
    }
}

impl<'p> Val<'p> {
    /// The data, or an internal error for a function or a stream (the
    /// checker never lets one reach a place that reads data).
    pub fn data(self) -> Result<Value> {
        match self {
            Val::Data(v) => Ok(v),
            Val::Closure(_) => Err(internal("a function where a value was expected")),
            Val::Stream(_) => Err(internal("an unread stream where a value was expected")),
            Val::List(_) | Val::Record(_) => Err(internal(
                "a list or record holding functions or streams where data was expected",
            )),
        }
    }

    /// A list from its items: data when every item is.
    pub fn from_items(items: Vec<Val<'p>>) -> Val<'p> {
        if items.iter().all(|i| matches!(i, Val::Data(_))) {
            Val::Data(Value::List(
                items
                    .into_iter()
                    .map(|i| match i {
                        Val::Data(v) => v,
                        _ => unreachable!("checked: every item is data"),
                    })
                    .collect(),
            ))
        } else {
            Val::List(Rc::new(items))
        }
    }

    /// A record from its fields: data when every field is.
    pub fn from_fields(fields: Vec<(String, Val<'p>)>) -> Val<'p> {
        if fields.iter().all(|(_, v)| matches!(v, Val::Data(_))) {
            Val::Data(Value::Record(
                fields
                    .into_iter()
                    .map(|(n, v)| match v {
                        Val::Data(v) => (n, v),
                        _ => unreachable!("checked: every field is data"),
                    })
                    .collect(),
            ))
        } else {
            Val::Record(Rc::new(fields))
        }
    }

    /// The items of a list, or of an option as a list of at most one.
    pub fn items(self) -> Result<Vec<Val<'p>>> {
        Ok(match self {
            Val::Data(Value::List(items)) => items.into_iter().map(Val::Data).collect(),
            Val::Data(Value::Null) => Vec::new(),
            Val::List(items) => (*items).clone(),
            Val::Stream(_) => return Err(internal("a stream read as a list")),
            other => vec![other],
        })
    }

    pub fn is_none(&self) -> bool {
        matches!(self, Val::Data(Value::Null))
    }

    /// A field of a record (none of none).
    pub fn field(self, name: &str) -> Result<Val<'p>> {
        self.field_ref(name)
    }

    /// A field of a record it borrows: only the field is copied.
    pub fn field_ref(&self, name: &str) -> Result<Val<'p>> {
        match self {
            Val::Data(Value::Null) => Ok(Val::Data(Value::Null)),
            Val::Data(record) => record
                .field(name)
                .cloned()
                .map(Val::Data)
                .ok_or_else(|| internal(&format!("no field {name}"))),
            Val::Record(fields) => fields
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| internal(&format!("no field {name}"))),
            _ => Err(internal(&format!(
                "field {name} of something that is not a record"
            ))),
        }
    }
}
