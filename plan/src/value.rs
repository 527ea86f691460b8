//! Runtime values: what parameters, columns and results hold.

use crate::identity::canonical_float;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::sync::Arc;

/// A value a query takes or answers: as JSON shows it, with integers and
/// floats apart.
///
/// Two values are the same value exactly when their key encodings are the
/// same bytes (`identity.rs`): `==`, hashing and [`compare`] all follow
/// that one relation, and a `Float` is never `-0.0` once inside the
/// system ([`Value::float`]; spec/types.md, "Value identity").
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Value {
    /// `none`: an optional value that is absent.
    Null,
    /// A `Bool`.
    Bool(bool),
    /// An `Int`: 64 bits, signed.
    Int(i64),
    /// A `Float`: 64 bits, always finite, never `-0.0` inside the system
    /// (make one with [`Value::float`]; a plan file's `-0.0` reads as `0.0`).
    Float(#[serde(deserialize_with = "canonical_float_field")] f64),
    /// A `String`.
    Str(String),
    /// A list, of rows or of values.
    List(Vec<Value>),
    /// A row or a record: its fields by name, in order.
    Record(Record),
}

/// A plan file's float, as every float in the system is: `-0.0` is `0.0`.
fn canonical_float_field<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    f64::deserialize(deserializer).map(canonical_float)
}

/// Named fields. The names are shared: every row of one table read in a
/// run holds the same names, counted once, not copied into each row.
///
/// A table's row holds its columns in the schema's order (read by
/// position, `Op::Column`). A structural record (`{b: 2, a: 1}`) holds its
/// fields in the order of their names ([`Record::structural`]), so every
/// record of one type holds each field at one position, which the plan
/// reads it by; it is shown in the order its fields were written.
#[derive(Clone, Debug)]
pub struct Record {
    names: Arc<[String]>,
    values: Vec<Value>,
    /// For a structural record whose fields were written in another order
    /// than their names': the position each written field is held at, in
    /// the written order (what [`Record::iter`] follows; [`Record::held`] gives the held order).
    written: Option<Arc<[u32]>>,
}

impl Record {
    /// Fields in order (a name given twice keeps both; lookups find the first).
    pub fn new(fields: Vec<(String, Value)>) -> Record {
        let (names, values): (Vec<String>, Vec<Value>) = fields.into_iter().unzip();
        Record {
            names: names.into(),
            values,
            written: None,
        }
    }

    /// A record of `values` under shared `names` (one per value).
    pub fn with_names(names: Arc<[String]>, values: Vec<Value>) -> Record {
        debug_assert_eq!(names.len(), values.len());
        Record {
            names,
            values,
            written: None,
        }
    }

    /// A structural record of `fields` (each name once), written in that
    /// order: held in the order of the names, shown as written.
    pub fn structural(fields: Vec<(String, Value)>) -> Record {
        let shape = RecordShape::of(fields.iter().map(|(name, _)| name.clone()).collect());
        shape.record(fields.into_iter().map(|(_, value)| value).collect())
    }

    /// A structural record of `values` held in `names`' order, shown in
    /// the `written` order (`None`: as held), as a [`RecordShape`] makes.
    pub fn with_shape(
        names: Arc<[String]>,
        written: Option<Arc<[u32]>>,
        values: Vec<Value>,
    ) -> Record {
        debug_assert_eq!(names.len(), values.len());
        Record {
            names,
            values,
            written,
        }
    }

    /// The fields with their names in the order they were written (a
    /// row's in the schema's order): how a record is shown.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        (0..self.values.len()).map(move |i| {
            let at = self.written.as_ref().map_or(i, |w| w[i] as usize);
            (&self.names[at], &self.values[at])
        })
    }

    /// Where each written field is held, in the written order (`None`:
    /// as held), to make a record of the same shape.
    pub fn written(&self) -> Option<Arc<[u32]>> {
        self.written.clone()
    }

    /// The shared names, in the order the record holds them.
    pub fn names(&self) -> &Arc<[String]> {
        &self.names
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

    /// The fields with their names, in the order the record holds them (a
    /// row's columns in the schema's order, a structural record's fields
    /// in their names': the positions the plan reads them at);
    /// [`Record::iter`] gives the written order.
    pub fn held(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.names.iter().zip(&self.values)
    }

    /// The fields in the order of their names: how records are compared
    /// and hashed (`identity.rs`), since two records of one type may hold
    /// their fields in different orders. No copy when they are in that
    /// order already (a record of one field, or written so).
    pub fn by_name(&self) -> impl Iterator<Item = (&String, &Value)> {
        let mut order: Vec<usize> = Vec::new();
        if !self.names.is_sorted() {
            order = (0..self.names.len()).collect();
            order.sort_by(|&a, &b| self.names[a].cmp(&self.names[b]));
        }
        (0..self.names.len()).map(move |i| {
            let at = order.get(i).copied().unwrap_or(i);
            (&self.names[at], &self.values[at])
        })
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

/// The shape of the structural records one literal makes (`{b: …, a: …}`):
/// their names in order, shared by every record made, and where each
/// written field is held. Made once (when a program is installed), so a
/// run building such records sorts and copies no name.
#[derive(Clone, Debug)]
pub struct RecordShape {
    pub names: Arc<[String]>,
    /// The position each written field is held at, in the written order;
    /// `None` when the fields were written in the names' order.
    pub written: Option<Arc<[u32]>>,
}

impl RecordShape {
    /// The shape of a record whose fields are written as `written` (each
    /// name once; the checker refuses a name given twice, E0203).
    pub fn of(written: Vec<String>) -> RecordShape {
        let mut order: Vec<usize> = (0..written.len()).collect();
        order.sort_by(|&a, &b| written[a].cmp(&written[b]));
        let names: Arc<[String]> = order.iter().map(|&i| written[i].clone()).collect();
        let in_order = order.iter().enumerate().all(|(k, &i)| k == i);
        let written = (!in_order).then(|| {
            let mut held = vec![0u32; order.len()];
            for (position, &i) in order.iter().enumerate() {
                held[i] = position as u32;
            }
            held.into()
        });
        RecordShape { names, written }
    }

    /// Each written field's position among the held ones.
    pub fn held_at(&self, written: usize) -> usize {
        self.written
            .as_ref()
            .map_or(written, |w| w[written] as usize)
    }

    /// The record of `values`, given in the written order.
    pub fn record(&self, values: Vec<Value>) -> Record {
        Record::with_shape(self.names.clone(), self.written.clone(), self.hold(values))
    }

    /// `values`, given in the written order, in the held order.
    pub fn hold<T>(&self, values: Vec<T>) -> Vec<T> {
        let Some(written) = &self.written else {
            return values;
        };
        let mut held: Vec<Option<T>> = (0..values.len()).map(|_| None).collect();
        for (i, value) in values.into_iter().enumerate() {
            held[written[i] as usize] = Some(value);
        }
        held.into_iter()
            .map(|v| v.expect("a permutation"))
            .collect()
    }
}

impl FromIterator<(String, Value)> for Record {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(fields: I) -> Record {
        Record::new(fields.into_iter().collect())
    }
}

/// As a list of `[name, value]` pairs in the order held, the form plans
/// and files keep (read back, a record holds them in that order).
impl Serialize for Record {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.held())
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
    /// The bytes of the longest string anywhere inside (0 for none).
    pub fn longest_string(&self) -> u64 {
        match self {
            Value::Str(text) => text.len() as u64,
            Value::List(items) => items.iter().map(Value::longest_string).max().unwrap_or(0),
            Value::Record(record) => record
                .values()
                .iter()
                .map(Value::longest_string)
                .max()
                .unwrap_or(0),
            _ => 0,
        }
    }

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
            Value::Float(x) => serde_json::Number::from_f64(canonical_float(*x))
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

    /// The value a JSON value stands for, untyped: a number without a
    /// fraction or exponent that fits 64 bits is an `Int`, any other number
    /// a `Float` (`-0.0` as `0.0`); `None` for a number that is neither.
    /// Where the type is known, [`crate::number::parse`] reads a number's
    /// spelling for it (`1` for a `Float` is `1.0`; `-0` for an `Int` is 0;
    /// `1.0` for an `Int` is refused) and `conform` fits a value to it.
    pub fn from_json(json: &serde_json::Value) -> Option<Value> {
        use serde_json::Value as J;
        Some(match json {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            J::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::float(n.as_f64()?),
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

    /// The `Float` `x`, canonical: `-0.0` is `0.0` (spec/types.md, "Value
    /// identity"). Every float the system makes goes through here.
    pub fn float(x: f64) -> Value {
        Value::Float(canonical_float(x))
    }

    /// The value with every float in it canonical, through lists and
    /// records: what a value from outside (the library's arguments and
    /// rows) becomes on entry.
    pub fn canonical(self) -> Value {
        match self {
            Value::Float(x) => Value::float(x),
            Value::List(items) => Value::List(items.into_iter().map(Value::canonical).collect()),
            Value::Record(record) => {
                let Record {
                    names,
                    values,
                    written,
                } = record;
                Value::Record(Record {
                    names,
                    values: values.into_iter().map(Value::canonical).collect(),
                    written,
                })
            }
            other => other,
        }
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

/// The canonical `Float` (see [`Value::float`]).
impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::float(x)
    }
}
