//! Properties of the encodings: key bytes sort as their values do in the
//! language's order (`rqc_plan::compare`; each column ascending or
//! descending, composite keys lexicographically), both encodings
//! round-trip, two keys are the same bytes exactly when their values are
//! the same value (`==`: `-0.0` is `0.0`; a string is its bytes), and
//! decoding arbitrary bytes never panics.

use proptest::prelude::*;
use rqc_plan::{compare, Value};
use rqc_runtime::encoding::key::{decode_key, encode_key};
use rqc_runtime::encoding::row::{decode_row, encode_row};
use std::cmp::Ordering;

/// A value of column type `kind` (0 Int, 1 Float, 2 String, 3 Bool, 4 any
/// of them), or none: both zeros, the extremes of every type, and strings
/// that differ only in Unicode normalisation drawn often.
fn value(kind: u8) -> BoxedStrategy<Value> {
    let some = match kind {
        0 => prop_oneof![
            any::<i64>(),
            Just(i64::MIN),
            Just(i64::MAX),
            Just(0),
            Just(-1)
        ]
        .prop_map(Value::Int)
        .boxed(),
        1 => prop_oneof![
            4 => any::<f64>().prop_filter("finite", |x| x.is_finite()),
            1 => Just(-0.0),
            1 => Just(0.0),
            1 => Just(f64::MIN),
            1 => Just(f64::MAX),
            1 => Just(5e-324),
            1 => Just(-5e-324),
        ]
        .prop_map(Value::Float)
        .boxed(),
        2 => prop_oneof![
            3 => "[a-c\\x00\\u{e9}]{0,6}",
            1 => Just("e\u{301}".to_string()),
            1 => Just("\u{e9}".to_string()),
            1 => Just("\u{10FFFF}".to_string()),
        ]
        .prop_map(Value::Str)
        .boxed(),
        3 => any::<bool>().prop_map(Value::Bool).boxed(),
        _ => (0u8..4).prop_flat_map(value).boxed(),
    };
    prop_oneof![1 => Just(Value::Null), 8 => some].boxed()
}

/// Two composite keys of the same column types, and each column's direction.
fn two_keys() -> impl Strategy<Value = (Vec<Value>, Vec<Value>, Vec<bool>)> {
    prop::collection::vec((0u8..5, any::<bool>()), 1..4).prop_flat_map(|columns| {
        let a: Vec<_> = columns.iter().map(|(k, _)| value(*k)).collect();
        let b: Vec<_> = columns.iter().map(|(k, _)| value(*k)).collect();
        let desc: Vec<bool> = columns.iter().map(|(_, d)| *d).collect();
        (a, b, Just(desc))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn encoded_order_is_value_order((a, b, desc) in two_keys()) {
        let expected = a
            .iter()
            .zip(&b)
            .zip(&desc)
            .map(|((x, y), d)| if *d { compare(x, y).reverse() } else { compare(x, y) })
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal);
        let ea = encode_key(&a, &desc).unwrap();
        let eb = encode_key(&b, &desc).unwrap();
        prop_assert_eq!(ea.cmp(&eb), expected);
    }

    #[test]
    fn the_same_bytes_exactly_for_the_same_values((a, b, desc) in two_keys()) {
        let ea = encode_key(&a, &desc).unwrap();
        let eb = encode_key(&b, &desc).unwrap();
        prop_assert_eq!(ea == eb, a == b);
        // And the zeros' two spellings give one key.
        let flipped: Vec<Value> = a
            .iter()
            .map(|v| match v {
                Value::Float(x) if *x == 0.0 => Value::Float(-x),
                other => other.clone(),
            })
            .collect();
        prop_assert_eq!(encode_key(&flipped, &desc).unwrap(), ea);
    }

    #[test]
    fn keys_round_trip((a, _b, desc) in two_keys()) {
        let bytes = encode_key(&a, &desc).unwrap();
        let (decoded, rest) = decode_key(&bytes, &desc, a.len()).unwrap();
        prop_assert_eq!(decoded, a);
        prop_assert!(rest.is_empty());
    }

    #[test]
    fn rows_round_trip(kinds in prop::collection::vec(0u8..4, 0..8), seed in any::<u64>()) {
        let _ = seed;
        let row: Vec<Value> = kinds.iter().map(|k| match k {
            0 => Value::Int(seed as i64),
            1 => Value::Float(seed as f64 / 3.0),
            2 => Value::Str(format!("s{seed}")),
            _ => Value::Null,
        }).collect();
        let bytes = encode_row(&row).unwrap();
        prop_assert_eq!(decode_row(&bytes, row.len()).unwrap(), row);
    }

    #[test]
    fn decoding_garbage_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..40), n in 0usize..5) {
        let _ = decode_key(&bytes, &[true, false], n);
        let _ = decode_row(&bytes, n);
    }
}
