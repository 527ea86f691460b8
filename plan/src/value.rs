//! Runtime values: what parameters, columns and results hold.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

/// A value a query takes or answers: as JSON shows it, with integers and
/// floats apart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Value {
    /// `none`: an optional value that is absent.
    Null,
    /// A `Bool`.
    Bool(bool),
    /// An `Int`: 64 bits, signed.
    Int(i64),
    /// A `Float`: 64 bits, always finite.
    Float(f64),
    /// A `String`.
    Str(String),
    /// A list, of rows or of values.
    List(Vec<Value>),
    /// A row or a record: its fields by name, in order.
    Record(Record),
}

/// Named fields. The names are shared: every row of one table read in a
/// run holds the same names, counted once, not copied into each row.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    names: Arc<[String]>,
    values: Vec<Value>,
}

impl Record {
    /// Fields in order (a name given twice keeps both; lookups find the first).
    pub fn new(fields: Vec<(String, Value)>) -> Record {
        let (names, values): (Vec<String>, Vec<Value>) = fields.into_iter().unzip();
        Record {
            names: names.into(),
            values,
        }
    }

    /// A record of `values` under shared `names` (one per value).
    pub fn with_names(names: Arc<[String]>, values: Vec<Value>) -> Record {
        debug_assert_eq!(names.len(), values.len());
        Record { names, values }
    }

    /// The value of the first field called `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        let at = self.names.iter().position(|n| n == name)?;
        self.values.get(at)
    }

    /// The value of the first field called `name`, to change it.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Value> {
        let at = self.names.iter().position(|n| n == name)?;
        self.values.get_mut(at)
    }

    /// The value at a field's position.
    pub fn at(&self, position: usize) -> Option<&Value> {
        self.values.get(position)
    }

    /// The fields with their names, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.names.iter().zip(&self.values)
    }

    /// The values, in field order.
    pub fn values(&self) -> &[Value] {
        &self.values
    }

    /// The values, in field order, taken out.
    pub fn into_values(self) -> Vec<Value> {
        self.values
    }

    /// How many fields.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there is no field.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl FromIterator<(String, Value)> for Record {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(fields: I) -> Record {
        Record::new(fields.into_iter().collect())
    }
}

/// As a list of `[name, value]` pairs, the form plans and files keep.
impl Serialize for Record {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Record {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Record, D::Error> {
        Ok(Record::new(Vec::<(String, Value)>::deserialize(
            deserializer,
        )?))
    }
}

impl Value {
    /// A list's items; an option as a list of at most one.
    pub fn into_items(self) -> Vec<Value> {
        match self {
            Value::List(items) => items,
            Value::Null => Vec::new(),
            other => vec![other],
        }
    }

    /// The plain JSON form users see: records as objects, `none` as null.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(n) => J::from(*n),
            Value::Float(x) => serde_json::Number::from_f64(*x)
                .map(J::Number)
                .unwrap_or(J::Null),
            Value::Str(s) => J::String(s.clone()),
            Value::List(items) => J::Array(items.iter().map(Value::to_json).collect()),
            Value::Record(record) => J::Object(
                record
                    .iter()
                    .map(|(name, value)| (name.clone(), value.to_json()))
                    .collect(),
            ),
        }
    }

    /// The value a JSON value stands for; `None` for a number that is
    /// neither a 64-bit integer nor a float.
    pub fn from_json(json: &serde_json::Value) -> Option<Value> {
        use serde_json::Value as J;
        Some(match json {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            J::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64()?),
            },
            J::String(s) => Value::Str(s.clone()),
            J::Array(items) => {
                Value::List(items.iter().map(Value::from_json).collect::<Option<_>>()?)
            }
            J::Object(fields) => Value::Record(Record::new(
                fields
                    .iter()
                    .map(|(k, v)| Some((k.clone(), Value::from_json(v)?)))
                    .collect::<Option<_>>()?,
            )),
        })
    }

    /// The field `name` of a record value; `None` for another value or an absent field.
    pub fn field(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Record(record) => record.get(name),
            _ => None,
        }
    }
}

impl Value {
    /// A record of `fields`, in order.
    pub fn record(fields: Vec<(String, Value)>) -> Value {
        Value::Record(Record::new(fields))
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_json())
    }
}

/// `None` is `none`; `Some(x)` is `x`.
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(value: Option<T>) -> Value {
        value.map_or(Value::Null, Into::into)
    }
}

/// A list of the values.
impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(items: Vec<T>) -> Value {
        Value::List(items.into_iter().map(Into::into).collect())
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Int(n)
    }
}

impl From<i32> for Value {
    fn from(n: i32) -> Value {
        Value::Int(n.into())
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::Float(x)
    }
}

/// The language's order of values, for sort keys, comparisons and index
/// order: none first, then by value (`Int` and `Float` as numbers, strings
/// byte by byte).
pub fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Less,
        (_, Value::Null) => Ordering::Greater,
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Float(x), Value::Float(y)) => x.total_cmp(y),
        (Value::Int(x), Value::Float(y)) => (*x as f64).total_cmp(y),
        (Value::Float(x), Value::Int(y)) => x.total_cmp(&(*y as f64)),
        (Value::Str(x), Value::Str(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        // The checker never compares values of different types; a total
        // order keeps sorting well defined all the same.
        _ => a.to_string().cmp(&b.to_string()),
    }
}
