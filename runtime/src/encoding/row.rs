//! Compact row encoding: a format byte, then each column as a tag and payload.
//!
//! A `Float` is encoded and decoded canonical (`-0.0` as `0.0`), as keys
//! are (`key.rs`); [`row_holds_minus_zero`] alone sees a stored `-0.0`.

use crate::error::{Result, RuntimeError};
use rqc_plan::{canonical_float, Value};

const FORMAT: u8 = 1;
const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const INT: u8 = 3;
const FLOAT: u8 = 4;
const STRING: u8 = 5;

pub fn encode_row(values: &[Value]) -> Result<Vec<u8>> {
    let mut out = vec![FORMAT];
    for value in values {
        match value {
            Value::Null => out.push(NULL),
            Value::Bool(false) => out.push(FALSE),
            Value::Bool(true) => out.push(TRUE),
            Value::Int(n) => {
                out.push(INT);
                write_varint(&mut out, zigzag(*n));
            }
            Value::Float(x) => {
                out.push(FLOAT);
                out.extend_from_slice(&canonical_float(*x).to_le_bytes());
            }
            Value::Str(s) => {
                out.push(STRING);
                write_varint(&mut out, s.len() as u64);
                out.extend_from_slice(s.as_bytes());
            }
            Value::List(_) | Value::Record(_) => {
                return Err(RuntimeError::new(
                    "E0592",
                    "lists and records cannot be stored in a column",
                    "columns are Int, Float, String or Bool",
                ))
            }
        }
    }
    Ok(out)
}

/// Decodes a row of exactly `columns` values. Garbage is an error.
pub fn decode_row(bytes: &[u8], columns: usize) -> Result<Vec<Value>> {
    decode_columns(bytes, columns, None)
}

/// Decodes a row of exactly `columns` values, of which only those `wanted`
/// marks: each other one is checked for its shape and skipped (no string
/// copied or checked for UTF-8) and reads as `Value::Null`. For a read
/// whose every use takes a wanted column (`bound::projections`), so the
/// nulls are never seen. `None` wants all.
pub fn decode_columns(bytes: &[u8], columns: usize, wanted: Option<&[bool]>) -> Result<Vec<Value>> {
    Ok(decode_raw(bytes, columns, wanted)?
        .into_iter()
        .map(|value| match value {
            Value::Float(x) => Value::float(x),
            other => other,
        })
        .collect())
}

/// Whether a stored row holds a `Float` stored as `-0.0` (what an older
/// rqc wrote; `verify` reports it, `rqc upgrade` rewrites it). A row that
/// does not decode holds none (verify reports it apart).
pub fn row_holds_minus_zero(bytes: &[u8], columns: usize) -> bool {
    decode_raw(bytes, columns, None)
        .is_ok_and(|values| values.iter().any(rqc_plan::holds_minus_zero))
}

/// The values as stored, floats with their bits; those `wanted` leaves
/// out read as `Value::Null` (see [`decode_columns`]).
fn decode_raw(bytes: &[u8], columns: usize, wanted: Option<&[bool]>) -> Result<Vec<Value>> {
    let mut reader = Reader { bytes, at: 0 };
    if reader.byte()? != FORMAT {
        return Err(RuntimeError::corrupt("unknown row format"));
    }
    let mut values = Vec::with_capacity(columns);
    for column in 0..columns {
        let keep = wanted.is_none_or(|wanted| wanted.get(column) == Some(&true));
        let value = match reader.byte()? {
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            INT => Value::Int(unzigzag(reader.varint()?)),
            FLOAT => Value::Float(f64::from_le_bytes(
                reader.take(8)?.try_into().expect("8 bytes"),
            )),
            STRING => {
                let len = reader.varint()?;
                let len =
                    usize::try_from(len).map_err(|_| RuntimeError::corrupt("string too long"))?;
                let text = reader.take(len)?;
                // A column not wanted is not copied nor checked for UTF-8.
                match keep {
                    true => Value::Str(
                        String::from_utf8(text.to_vec())
                            .map_err(|_| RuntimeError::corrupt("string column is not UTF-8"))?,
                    ),
                    false => Value::Null,
                }
            }
            tag => return Err(RuntimeError::corrupt(&format!("unknown column tag {tag}"))),
        };
        values.push(if keep { value } else { Value::Null });
    }
    if reader.at != bytes.len() {
        return Err(RuntimeError::corrupt("row has trailing bytes"));
    }
    Ok(values)
}

fn zigzag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

fn unzigzag(n: u64) -> i64 {
    ((n >> 1) as i64) ^ -((n & 1) as i64)
}

fn write_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len())
            .ok_or_else(|| RuntimeError::corrupt("row ends early"))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn varint(&mut self) -> Result<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7F) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(RuntimeError::corrupt("varint too long"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip() {
        let row = vec![
            Value::Int(-300),
            Value::Int(i64::MAX),
            Value::Str("héllo".into()),
            Value::Null,
            Value::Bool(true),
            Value::Float(2.5),
        ];
        assert_eq!(
            decode_row(&encode_row(&row).unwrap(), row.len()).unwrap(),
            row
        );
    }

    #[test]
    fn minus_zero_is_stored_and_read_as_zero() {
        let zero = encode_row(&[Value::Float(0.0)]).unwrap();
        assert_eq!(encode_row(&[Value::Float(-0.0)]).unwrap(), zero);
        assert!(!row_holds_minus_zero(&zero, 1));
        let mut old = vec![FORMAT, FLOAT];
        old.extend_from_slice(&(-0.0f64).to_le_bytes());
        assert!(row_holds_minus_zero(&old, 1));
        let Value::Float(x) = decode_row(&old, 1).unwrap()[0] else {
            panic!("a float")
        };
        assert!(x.is_sign_positive());
    }

    #[test]
    fn a_projection_decodes_the_wanted_columns_and_checks_the_rest() {
        let row = vec![
            Value::Str("not wanted".into()),
            Value::Int(-7),
            Value::Float(-0.0),
            Value::Str("wanted".into()),
        ];
        let bytes = encode_row(&row).unwrap();
        let wanted = [false, true, false, true];
        assert_eq!(
            decode_columns(&bytes, 4, Some(&wanted)).unwrap(),
            vec![
                Value::Null,
                Value::Int(-7),
                Value::Null,
                Value::Str("wanted".into())
            ]
        );
        // Every wanted column reads as the whole decode reads it.
        let whole = decode_row(&bytes, 4).unwrap();
        let only_float = decode_columns(&bytes, 4, Some(&[false, false, true, false])).unwrap();
        assert_eq!(only_float[2], whole[2]);
        let Value::Float(x) = only_float[2] else {
            panic!("a float")
        };
        assert!(
            x.is_sign_positive(),
            "canonical zero as in the whole decode"
        );
        // A skipped column is still read for its shape: a row that ends
        // early or has trailing bytes is an error whatever is wanted.
        let none = [false; 4];
        assert!(decode_columns(&bytes[..bytes.len() - 1], 4, Some(&none)).is_err());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode_columns(&longer, 4, Some(&none)).is_err());
        assert!(
            decode_columns(&[1, 9], 1, Some(&[false])).is_err(),
            "unknown tag"
        );
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(decode_row(&[], 1).is_err());
        assert!(decode_row(&[1, 5, 200], 1).is_err());
        assert!(decode_row(
            &[1, 3, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
            1
        )
        .is_err());
        assert!(decode_row(&[1, 9], 1).is_err());
        assert!(decode_row(&[1, 0, 0], 1).is_err(), "trailing bytes");
    }
}
