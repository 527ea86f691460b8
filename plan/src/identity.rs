//! Value identity: the one relation "the same value" (`==`, hashing) and the one order ([`compare`]) every part of rqc uses, both agreeing with the key encoding.
//!
//! Two values are the same value exactly when the runtime's key encoding
//! gives them the same bytes, and [`compare`] orders values as their
//! encodings are ordered (spec/types.md, "Value identity"). So whatever
//! decides "did this column change?", "is this key taken?", "which group
//! is this row in?" or "are these two answers equal?" gets the answer the
//! index entries, counters and aggregate groups get from the bytes:
//!
//! - a `Float` is compared by its bits in IEEE total order after
//!   [`canonical_float`] (`-0.0` is `0.0`, which is all a float inside the
//!   system can be anyway; NaN and the infinities never get in);
//! - a `String` by its UTF-8 bytes, with no Unicode normalisation (`"é"`
//!   written precomposed and decomposed are two values);
//! - values of different types are never the same, and order by type:
//!   `none`, `Bool`, `Int`, `Float`, `String`, then lists and records
//!   (the checker never compares an `Int` with a `Float`: it converts one
//!   first, so no lossy `as f64` decides anything);
//! - lists element by element, then by length; records (never keys) field
//!   by field in the order of their names, whatever order each holds them
//!   in, then by length.

use crate::value::{Record, Value};
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The float every `Float` value holds for `x`: `-0.0` becomes `0.0`,
/// every other float stays itself. IEEE arithmetic makes `-0.0` from
/// ordinary values (`-x`, `x * -1.0`, `0.0 / -5.0`, `-4.0 % 2.0`, an
/// underflow), and its bits differ from `0.0`'s, so each place a float
/// is made or read passes it through here.
pub fn canonical_float(x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x
    }
}

/// Whether `value` holds a `Float` that is `-0.0` (by its bits, which `==`
/// cannot tell from `0.0`'s), through lists and records: what no value
/// inside the system holds, and what an older rqc may have stored or a
/// program built in memory may carry.
pub fn holds_minus_zero(value: &Value) -> bool {
    match value {
        Value::Float(x) => x.to_bits() == (-0.0f64).to_bits(),
        Value::List(items) => items.iter().any(holds_minus_zero),
        Value::Record(record) => record.values().iter().any(holds_minus_zero),
        _ => false,
    }
}

/// The rank of a value's type in the order of values (the key encoding's
/// tag order).
fn rank(value: &Value) -> u8 {
    match value {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Int(_) => 2,
        Value::Float(_) => 3,
        Value::Str(_) => 4,
        Value::List(_) => 5,
        Value::Record(_) => 6,
    }
}

/// The bits a float is identified by.
fn float_bits(x: f64) -> u64 {
    canonical_float(x).to_bits()
}

/// The order of values, for sort keys, comparisons, `min`/`max` and index
/// order: the order of their key encodings (see the module's doc).
pub fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Float(x), Value::Float(y)) => canonical_float(*x).total_cmp(&canonical_float(*y)),
        (Value::Str(x), Value::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::List(x), Value::List(y)) => compare_all(x.iter(), y.iter()),
        (Value::Record(x), Value::Record(y)) => {
            let fields = x.by_name().zip(y.by_name());
            for ((name_x, value_x), (name_y, value_y)) in fields {
                let ordering = name_x.cmp(name_y).then_with(|| compare(value_x, value_y));
                if ordering.is_ne() {
                    return ordering;
                }
            }
            x.len().cmp(&y.len())
        }
        _ => rank(a).cmp(&rank(b)),
    }
}

/// Lexicographic: the first pair that differs decides, then the length.
fn compare_all<'a>(
    mut x: impl Iterator<Item = &'a Value>,
    mut y: impl Iterator<Item = &'a Value>,
) -> Ordering {
    loop {
        match (x.next(), y.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(a), Some(b)) => {
                let ordering = compare(a, b);
                if ordering.is_ne() {
                    return ordering;
                }
            }
        }
    }
}

/// The same value (see the module's doc): [`compare`] says `Equal`.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(x), Value::Bool(y)) => x == y,
            (Value::Int(x), Value::Int(y)) => x == y,
            (Value::Float(x), Value::Float(y)) => float_bits(*x) == float_bits(*y),
            (Value::Str(x), Value::Str(y)) => x.as_bytes() == y.as_bytes(),
            (Value::List(x), Value::List(y)) => x == y,
            (Value::Record(x), Value::Record(y)) => x == y,
            _ => false,
        }
    }
}

/// Reflexive: a float is compared by its bits, not by IEEE `==`.
impl Eq for Value {}

/// Hashes what `==` compares, so equal values hash alike.
impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u8(rank(self));
        match self {
            Value::Null => {}
            Value::Bool(b) => b.hash(state),
            Value::Int(n) => n.hash(state),
            Value::Float(x) => float_bits(*x).hash(state),
            Value::Str(s) => s.as_bytes().hash(state),
            Value::List(items) => items.hash(state),
            Value::Record(record) => record.hash(state),
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The order of values ([`compare`]).
impl Ord for Value {
    fn cmp(&self, other: &Value) -> Ordering {
        compare(self, other)
    }
}

/// The same fields: the same names with the same values, in whatever
/// order each record holds them (`{a: 1, b: 2}` and `{b: 2, a: 1}` are one
/// value of one type, so `==`, `distinct`, `in` and `group_by` must not
/// tell them apart).
impl PartialEq for Record {
    fn eq(&self, other: &Record) -> bool {
        // Two records made by one literal (or rows of one table) share
        // their names, held in one order: compared value by value.
        if Arc::ptr_eq(self.names(), other.names()) {
            return self.values() == other.values();
        }
        self.len() == other.len()
            && self
                .by_name()
                .zip(other.by_name())
                .all(|((name_a, a), (name_b, b))| name_a == name_b && a == b)
    }
}

impl Eq for Record {}

/// Hashes the fields by name, as `==` compares them.
impl Hash for Record {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.len());
        for (name, value) in self.by_name() {
            name.hash(state);
            value.hash(state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::hash_map::DefaultHasher;

    fn hash(value: &Value) -> u64 {
        let mut hasher = DefaultHasher::new();
        value.hash(&mut hasher);
        hasher.finish()
    }

    /// Every value a test draws from: both zeros, the extremes of every
    /// type, a string and its decomposed spelling.
    fn samples() -> Vec<Value> {
        let floats = [
            -0.0,
            0.0,
            f64::MIN,
            f64::MAX,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1.0,
            -1.0,
            9007199254740992.0,
            9007199254740993.0,
        ];
        let mut values = vec![Value::Null, Value::Bool(false), Value::Bool(true)];
        values.extend([i64::MIN, -1, 0, 1, i64::MAX, 9007199254740993].map(Value::Int));
        values.extend(floats.map(Value::Float));
        values.extend(
            ["", "a", "a\0", "é", "e\u{301}", "\u{10FFFF}", "Z"].map(|s| Value::Str(s.into())),
        );
        values.push(Value::List(vec![Value::Float(-0.0)]));
        values.push(Value::List(vec![Value::Float(0.0)]));
        values.push(Value::record(vec![("x".into(), Value::Float(-0.0))]));
        values.push(Value::record(vec![("x".into(), Value::Float(0.0))]));
        // One record written in both orders, and records that differ only
        // in which field holds which value.
        let (one, two) = (Value::Int(1), Value::Int(2));
        for fields in [
            [("a", &one), ("b", &two)],
            [("b", &two), ("a", &one)],
            [("a", &two), ("b", &one)],
            [("b", &one), ("a", &two)],
            [("a", &one), ("c", &two)],
        ] {
            values.push(Value::record(
                fields
                    .iter()
                    .map(|(n, v)| (n.to_string(), (*v).clone()))
                    .collect(),
            ));
        }
        values
    }

    /// A record is one value in whatever order it holds its fields, and
    /// two records differing in which field holds which value are two.
    #[test]
    fn a_record_is_the_same_value_in_any_order_of_its_fields() {
        let record = |fields: &[(&str, i64)]| {
            Value::record(
                fields
                    .iter()
                    .map(|(n, v)| (n.to_string(), Value::Int(*v)))
                    .collect(),
            )
        };
        let (ab, ba) = (record(&[("a", 1), ("b", 2)]), record(&[("b", 2), ("a", 1)]));
        assert_eq!(ab, ba);
        assert_eq!(compare(&ab, &ba), Ordering::Equal);
        assert_eq!(hash(&ab), hash(&ba));
        assert_ne!(ab, record(&[("b", 1), ("a", 2)]));
        assert_ne!(ab, record(&[("a", 1), ("b", 2), ("c", 3)]));
        let nested = |inner: Value| Value::List(vec![Value::record(vec![("r".into(), inner)])]);
        assert_eq!(nested(ab.clone()), nested(ba.clone()));
    }

    #[test]
    fn the_canonical_float_of_minus_zero_is_zero_and_nothing_else_changes() {
        assert_eq!(canonical_float(-0.0).to_bits(), 0.0f64.to_bits());
        for x in [0.0, 1.0, -1.0, f64::MIN, f64::MAX, 5e-324, -5e-324] {
            assert_eq!(canonical_float(x).to_bits(), x.to_bits());
        }
        let Value::Float(x) = Value::float(-0.0) else {
            panic!("a float")
        };
        assert!(x.is_sign_positive());
        let Value::Float(x) = Value::from(-0.0) else {
            panic!("a float")
        };
        assert!(x.is_sign_positive());
        assert_eq!(
            Value::List(vec![Value::Float(-0.0)]).canonical(),
            Value::List(vec![Value::Float(0.0)])
        );
    }

    /// `==`, `compare` and hashing are one relation, and `compare` is a
    /// total order (antisymmetric, transitive) on every pair of samples.
    #[test]
    fn equality_order_and_hash_agree_on_every_pair() {
        let values = samples();
        for a in &values {
            assert_eq!(a, a, "{a:?} is itself");
            for b in &values {
                let ordering = compare(a, b);
                assert_eq!(a == b, ordering.is_eq(), "{a:?} vs {b:?}");
                assert_eq!(compare(b, a), ordering.reverse(), "{a:?} vs {b:?}");
                if a == b {
                    assert_eq!(hash(a), hash(b), "{a:?} and {b:?} hash alike");
                }
                for c in &values {
                    if compare(a, b).is_le() && compare(b, c).is_le() {
                        assert!(compare(a, c).is_le(), "{a:?} <= {b:?} <= {c:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_two_zeros_are_one_value_and_nothing_else_merges() {
        assert_eq!(Value::Float(-0.0), Value::Float(0.0));
        assert_eq!(
            compare(&Value::Float(-0.0), &Value::Float(0.0)),
            Ordering::Equal
        );
        assert!(Value::Float(-5e-324) < Value::Float(0.0));
        // Strings by their bytes: no normalisation.
        assert_ne!(Value::Str("é".into()), Value::Str("e\u{301}".into()));
        assert_eq!(
            compare(&Value::Str("e\u{301}".into()), &Value::Str("é".into())),
            Ordering::Less
        );
        // No number of one type is the same as one of the other.
        assert_ne!(Value::Int(1), Value::Float(1.0));
        // A large Int is not rounded to decide anything.
        assert_ne!(
            Value::Int(9007199254740993),
            Value::Float(9007199254740992.0)
        );
        assert_eq!(
            compare(&Value::Int(i64::MAX), &Value::Float(f64::MIN)),
            Ordering::Less,
            "types order before values, as the key encoding's tags do"
        );
    }

    #[test]
    fn a_plan_files_minus_zero_reads_as_zero() {
        let value: Value = serde_json::from_str(r#"{"Float": -0.0}"#).unwrap();
        let Value::Float(x) = value else {
            panic!("a float")
        };
        assert!(x.is_sign_positive());
        let json: serde_json::Value = serde_json::from_str("[-0.0]").unwrap();
        let Some(Value::List(items)) = Value::from_json(&json) else {
            panic!("a list")
        };
        let Value::Float(x) = items[0] else {
            panic!("a float")
        };
        assert!(x.is_sign_positive());
        assert_eq!(Value::Float(-0.0).to_json().to_string(), "0.0");
    }
}
