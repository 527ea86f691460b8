//! Order-preserving key encoding: byte order of encodings equals value order.
//!
//! Each component is a type tag followed by its payload: `Int` as the
//! big-endian bits of `n ^ i64::MIN`, `Float` in IEEE total order, `String`
//! with `0x00` escaped as `0x00 0xFF` and ended by `0x00 0x00` (so a string
//! sorts before its extensions). A descending component is the bitwise
//! complement of its ascending encoding. `Null` sorts first.
//!
//! A `Float` is encoded and decoded canonical (`-0.0` as `0.0`): two
//! values have the same encoding exactly when they are the same value
//! (`rqc_plan::identity`), whatever made them. Only
//! [`key_holds_minus_zero`] sees the bits an older rqc may have stored.

use crate::error::{Result, RuntimeError};
use rqc_plan::{canonical_float, Value};

const NULL: u8 = 0x01;
const FALSE: u8 = 0x02;
const TRUE: u8 = 0x03;
const INT: u8 = 0x10;
const FLOAT: u8 = 0x20;
const STRING: u8 = 0x30;

/// Appends one component.
pub fn encode_component(out: &mut Vec<u8>, value: &Value, descending: bool) -> Result<()> {
    let start = out.len();
    match value {
        Value::Null => out.push(NULL),
        Value::Bool(false) => out.push(FALSE),
        Value::Bool(true) => out.push(TRUE),
        Value::Int(n) => {
            out.push(INT);
            out.extend_from_slice(&((*n as u64) ^ (1 << 63)).to_be_bytes());
        }
        Value::Float(x) => {
            out.push(FLOAT);
            let bits = canonical_float(*x).to_bits();
            let ordered = if bits >> 63 == 1 {
                !bits
            } else {
                bits | (1 << 63)
            };
            out.extend_from_slice(&ordered.to_be_bytes());
        }
        Value::Str(s) => {
            out.push(STRING);
            for &byte in s.as_bytes() {
                out.push(byte);
                if byte == 0 {
                    out.push(0xFF);
                }
            }
            out.extend_from_slice(&[0, 0]);
        }
        Value::List(_) | Value::Record(_) => {
            return Err(RuntimeError::new(
                "E0592",
                "lists and records cannot be keys",
                "key columns are Int, Float, String or Bool",
            ))
        }
    }
    if descending {
        for byte in &mut out[start..] {
            *byte = !*byte;
        }
    }
    Ok(())
}

/// Appends what every String component beginning with `prefix` begins
/// with: the tag and the escaped bytes, without the terminator. Escaping is
/// byte by byte and the terminator `0x00 0x00` is no escaped byte's start,
/// so a component begins with these bytes exactly when its String begins
/// with `prefix`.
pub fn encode_string_prefix(out: &mut Vec<u8>, prefix: &str, descending: bool) {
    let start = out.len();
    out.push(STRING);
    for &byte in prefix.as_bytes() {
        out.push(byte);
        if byte == 0 {
            out.push(0xFF);
        }
    }
    if descending {
        for byte in &mut out[start..] {
            *byte = !*byte;
        }
    }
}

/// Encodes a whole key; `descending[i]` flips the order of component `i`.
pub fn encode_key(values: &[Value], descending: &[bool]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(values.len() * 9);
    for (i, value) in values.iter().enumerate() {
        encode_component(&mut out, value, descending.get(i).copied().unwrap_or(false))?;
    }
    Ok(out)
}

/// Decodes `count` components from the front of `bytes`; returns them and
/// the unread rest. Garbage is an error, never a panic.
pub fn decode_key<'a>(
    mut bytes: &'a [u8],
    descending: &[bool],
    count: usize,
) -> Result<(Vec<Value>, &'a [u8])> {
    let mut values = Vec::with_capacity(count);
    for i in 0..count {
        let flip = descending.get(i).copied().unwrap_or(false);
        let (value, rest) = decode_component(bytes, flip)?;
        values.push(value);
        bytes = rest;
    }
    Ok((values, bytes))
}

/// A float's bits from its order-preserving form.
fn float_bits(ordered: u64) -> u64 {
    if ordered >> 63 == 1 {
        ordered & !(1 << 63)
    } else {
        !ordered
    }
}

/// Whether `bytes`, a whole key (components to its end, `descending[i]`
/// flipping component `i`), holds a `Float` component stored as `-0.0`:
/// what an older rqc wrote, which `verify` reports and `rqc upgrade`
/// rewrites. A key that does not decode holds none (verify reports it
/// apart).
pub fn key_holds_minus_zero(bytes: &[u8], descending: &[bool]) -> bool {
    stored_components(bytes, descending)
        .is_some_and(|values| values.iter().any(rqc_plan::holds_minus_zero))
}

/// A whole key (components to its end) as this rqc encodes it: each
/// component decoded and encoded again, so a stored `-0.0` becomes `0.0`'s
/// bytes. `None` for a key that does not decode.
pub fn canonical_key(bytes: &[u8], descending: &[bool]) -> Option<Vec<u8>> {
    encode_key(&stored_components(bytes, descending)?, descending).ok()
}

/// One component, a float canonical.
fn decode_component(bytes: &[u8], flip: bool) -> Result<(Value, &[u8])> {
    let (value, rest) = decode_stored(bytes, flip)?;
    Ok((
        match value {
            Value::Float(x) => Value::float(x),
            other => other,
        },
        rest,
    ))
}

/// Every component of a whole key as stored, a float with its own bits
/// (`-0.0` kept), for what `verify` shows; `None` when it does not decode.
pub fn stored_components(mut bytes: &[u8], descending: &[bool]) -> Option<Vec<Value>> {
    let mut values = Vec::new();
    while !bytes.is_empty() {
        let flip = descending.get(values.len()).copied().unwrap_or(false);
        let (value, rest) = decode_stored(bytes, flip).ok()?;
        values.push(value);
        bytes = rest;
    }
    Some(values)
}

/// One component as stored (a float's bits as they are).
fn decode_stored(bytes: &[u8], flip: bool) -> Result<(Value, &[u8])> {
    let at = |i: usize| -> Result<u8> {
        bytes
            .get(i)
            .map(|b| if flip { !b } else { *b })
            .ok_or_else(|| RuntimeError::corrupt("key ends inside a component"))
    };
    let fixed = |rest_from: usize| -> Result<u64> {
        let mut word = [0u8; 8];
        for (i, slot) in word.iter_mut().enumerate() {
            *slot = at(rest_from + i)?;
        }
        Ok(u64::from_be_bytes(word))
    };
    match at(0)? {
        NULL => Ok((Value::Null, &bytes[1..])),
        FALSE => Ok((Value::Bool(false), &bytes[1..])),
        TRUE => Ok((Value::Bool(true), &bytes[1..])),
        INT => Ok((Value::Int((fixed(1)? ^ (1 << 63)) as i64), &bytes[9..])),
        FLOAT => Ok((
            Value::Float(f64::from_bits(float_bits(fixed(1)?))),
            &bytes[9..],
        )),
        STRING => {
            let mut text = Vec::new();
            let mut i = 1;
            loop {
                let byte = at(i)?;
                if byte == 0 {
                    match at(i + 1)? {
                        0 => break,
                        0xFF => text.push(0),
                        _ => return Err(RuntimeError::corrupt("bad escape in a string key")),
                    }
                    i += 2;
                } else {
                    text.push(byte);
                    i += 1;
                }
            }
            let text = String::from_utf8(text)
                .map_err(|_| RuntimeError::corrupt("string key is not UTF-8"))?;
            Ok((Value::Str(text), &bytes[i + 2..]))
        }
        tag => Err(RuntimeError::corrupt(&format!(
            "unknown key tag {tag:#04x}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order_matches(a: &Value, b: &Value, cmp: std::cmp::Ordering) {
        for desc in [false, true] {
            let ea = encode_key(std::slice::from_ref(a), &[desc]).unwrap();
            let eb = encode_key(std::slice::from_ref(b), &[desc]).unwrap();
            let expected = if desc { cmp.reverse() } else { cmp };
            assert_eq!(ea.cmp(&eb), expected, "{a:?} vs {b:?} desc={desc}");
        }
    }

    #[test]
    fn ints_floats_and_strings_keep_their_order() {
        use std::cmp::Ordering::*;
        order_matches(&Value::Int(-5), &Value::Int(3), Less);
        order_matches(&Value::Int(i64::MIN), &Value::Int(i64::MAX), Less);
        order_matches(&Value::Float(-1.5), &Value::Float(-0.5), Less);
        order_matches(&Value::Float(0.5), &Value::Float(2.0), Less);
        order_matches(&Value::Str("ab".into()), &Value::Str("abc".into()), Less);
        order_matches(&Value::Str("a\0".into()), &Value::Str("a".into()), Greater);
        order_matches(&Value::Null, &Value::Int(i64::MIN), Less);
    }

    #[test]
    fn composite_keys_round_trip() {
        let values = vec![Value::Int(7), Value::Str("x\0y".into()), Value::Float(-2.5)];
        let desc = [false, true, true];
        let bytes = encode_key(&values, &desc).unwrap();
        let (decoded, rest) = decode_key(&bytes, &desc, 3).unwrap();
        assert_eq!(decoded, values);
        assert!(rest.is_empty());
    }

    /// `starts_with`'s range is exact: a key lies within
    /// `[prefix bytes, prefix_end)` exactly when its String begins with the
    /// prefix, for prefixes and strings with `\0`, `\u{1}`, multi-byte and
    /// top-of-Unicode characters, either order, and a key column after it.
    #[test]
    fn a_string_prefix_range_holds_exactly_the_strings_that_begin_with_it() {
        let alphabet = ["", "a", "\0", "\u{1}", "é", "\u{10FFFF}", "\u{ff}"];
        let mut texts = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(longer);
            texts.sort();
            texts.dedup();
        }
        for desc in [false, true] {
            for prefix in texts.iter().filter(|t| t.chars().count() <= 2) {
                let mut start = Vec::new();
                encode_string_prefix(&mut start, prefix, desc);
                let end = crate::store::prefix_end(&start);
                for text in &texts {
                    let key =
                        encode_key(&[Value::Str(text.clone()), Value::Int(-1)], &[desc, false])
                            .unwrap();
                    let inside = key >= start && end.as_ref().is_none_or(|e| key < *e);
                    assert_eq!(
                        inside,
                        text.starts_with(prefix.as_str()),
                        "{text:?} against the prefix {prefix:?}, desc={desc}"
                    );
                }
            }
        }
    }

    /// `-0.0` and `0.0` are one key (the same bytes, either order), a
    /// stored `-0.0` decodes as `0.0`, and only the raw check sees it.
    #[test]
    fn minus_zero_is_encoded_and_decoded_as_zero() {
        for desc in [false, true] {
            let zero = encode_key(&[Value::Float(0.0), Value::Int(1)], &[desc]).unwrap();
            let minus = encode_key(&[Value::Float(-0.0), Value::Int(1)], &[desc]).unwrap();
            assert_eq!(zero, minus, "desc={desc}");
            assert!(!key_holds_minus_zero(&zero, &[desc]));
            // What an older rqc stored: -0.0's own bits.
            let mut old = vec![FLOAT];
            old.extend_from_slice(&(!(-0.0f64).to_bits()).to_be_bytes());
            if desc {
                old.iter_mut().for_each(|b| *b = !*b);
            }
            old.extend(encode_key(&[Value::Int(1)], &[]).unwrap());
            assert!(key_holds_minus_zero(&old, &[desc]), "desc={desc}");
            assert_eq!(canonical_key(&old, &[desc]).unwrap(), minus);
            let (values, _) = decode_key(&old, &[desc], 2).unwrap();
            let Value::Float(x) = values[0] else {
                panic!("a float")
            };
            assert!(x.is_sign_positive(), "decoded as 0.0");
        }
        let tiny = encode_key(&[Value::Float(-5e-324)], &[]).unwrap();
        assert!(tiny < encode_key(&[Value::Float(0.0)], &[]).unwrap());
        assert!(!key_holds_minus_zero(&tiny, &[]));
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(decode_key(&[0x10, 1, 2], &[], 1).is_err());
        assert!(decode_key(&[0x77], &[], 1).is_err());
        assert!(decode_key(&[0x30, b'a', 0, 7], &[], 1).is_err());
        assert!(decode_key(&[], &[], 1).is_err());
    }
}
