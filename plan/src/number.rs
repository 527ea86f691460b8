//! The one number parser: a number's text (a literal, `--arg`, a CSV field, a JSON number) read as an `Int` or a `Float`, with one set of error codes.
//!
//! Every place rqc reads a number from text reads it here, so a number
//! means the same in a program, the REPL, `--arg`, a CSV or JSONL load, a
//! `--batch` line and a JSON argument (read by its spelling, so `-0` is
//! the integer 0 there too): the same spellings are accepted,
//! and a number that does not fit is refused with the same code, never
//! read as `0` or as a float nobody asked for (spec/types.md, "Numbers"):
//!
//! - E0004: an integer past 64 bits (`99999999999999999999` for an `Int`);
//! - E0005: not a number (`12abc`, `inf`, `NaN`, `0x10`);
//! - E0006: a float past the largest (`1e999`);
//! - E0007: a fraction or exponent where an `Int` is wanted (`1.0`, `1e3`).
//!
//! An integer for a `Float` is that float (`1` is `1.0`); `-0.0`, however
//! spelled, is `0.0` (spec/types.md, "Value identity").

use crate::schema::ColumnType;
use crate::value::Value;

/// Which number a text is read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberType {
    Int,
    Float,
}

/// Why a text is not a number of its type: a code and what to say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumberError {
    pub code: &'static str,
    /// What is wrong, naming the text (`` `1.5` is not an integer``).
    pub message: String,
    /// A concrete fix.
    pub help: String,
}

impl NumberError {
    fn new(code: &'static str, message: String, help: impl Into<String>) -> NumberError {
        NumberError {
            code,
            message,
            help: help.into(),
        }
    }

    fn too_large_int(text: &str) -> NumberError {
        NumberError::new(
            "E0004",
            format!("`{text}` does not fit in a 64-bit signed integer"),
            format!(
                "integers range from {} to {}; a larger number must be a `Float`",
                i64::MIN,
                i64::MAX
            ),
        )
    }

    fn not_an_int(text: &str) -> NumberError {
        NumberError::new(
            "E0007",
            format!("`{text}` has a fraction or an exponent, and an `Int` is wanted"),
            "write the integer with digits only (`1`, not `1.0` or `1e0`), or make the column or parameter a `Float`",
        )
    }
}

/// The parts of a number's spelling: `[+-]digits[.digits][(e|E)[+-]digits]`,
/// `_` allowed between digits; a fraction may lack digits on one side
/// (`5.`, `.5`), not on both.
struct Spelling {
    negative: bool,
    /// The digits before any fraction, without `_`.
    whole: String,
    /// Whether there is a fraction or an exponent.
    fractional: bool,
    /// The text Rust's float parser reads (no `_`).
    plain: String,
}

fn spelling(text: &str) -> Option<Spelling> {
    let plain: String = text.chars().filter(|c| *c != '_').collect();
    let bytes = plain.as_bytes();
    let mut at = 0;
    let negative = bytes.first() == Some(&b'-');
    if matches!(bytes.first(), Some(b'-' | b'+')) {
        at += 1;
    }
    // `_` only between digits: not first, not after a sign, a point or an `e`.
    let digits_after = |from: usize| -> usize {
        bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let underscore_misplaced = text
        .char_indices()
        .filter(|(_, c)| *c == '_')
        .any(|(i, _)| {
            i == 0 || !text.as_bytes()[i - 1].is_ascii_digit() && text.as_bytes()[i - 1] != b'_'
        });
    if underscore_misplaced {
        return None;
    }
    let whole_len = digits_after(at);
    let whole = plain[at..at + whole_len].to_string();
    at += whole_len;
    let mut fraction_len = 0;
    let mut fractional = false;
    if bytes.get(at) == Some(&b'.') {
        fractional = true;
        at += 1;
        fraction_len = digits_after(at);
        at += fraction_len;
    }
    if whole_len == 0 && fraction_len == 0 {
        return None;
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        fractional = true;
        at += 1;
        if matches!(bytes.get(at), Some(b'-' | b'+')) {
            at += 1;
        }
        let exponent_len = digits_after(at);
        if exponent_len == 0 {
            return None;
        }
        at += exponent_len;
    }
    (at == bytes.len()).then_some(Spelling {
        negative,
        whole,
        fractional,
        plain,
    })
}

/// Reads `text` (surrounding whitespace ignored) as a number of type `ty`.
pub fn parse(text: &str, ty: NumberType) -> Result<Value, NumberError> {
    let text = text.trim();
    let Some(number) = spelling(text) else {
        return Err(NumberError::new(
            "E0005",
            format!("`{text}` is not a number"),
            "write numbers like 42, -7, 1_000, 3.5 or 2.5e3 (no `inf`, `NaN` or hexadecimal)",
        ));
    };
    match ty {
        NumberType::Int if number.fractional => Err(NumberError::not_an_int(text)),
        NumberType::Int => {
            let digits = if number.negative {
                format!("-{}", number.whole)
            } else {
                number.whole
            };
            digits
                .parse::<i64>()
                .map(Value::Int)
                .map_err(|_| NumberError::too_large_int(text))
        }
        NumberType::Float => {
            let x: f64 = number.plain.parse().map_err(|_| {
                NumberError::new(
                    "E0005",
                    format!("`{text}` is not a number"),
                    "write numbers like 42, -7, 1_000, 3.5 or 2.5e3",
                )
            })?;
            float(x, text)
        }
    }
}

/// A float read from `text`: finite (E0006 otherwise), `-0.0` as `0.0`.
fn float(x: f64, text: &str) -> Result<Value, NumberError> {
    if x.is_finite() {
        Ok(Value::float(x))
    } else {
        Err(NumberError::new(
            "E0006",
            format!("`{text}` is beyond the largest 64-bit float"),
            "the largest float is about 1.8e308 (1.7976931348623157e308); write a number no larger",
        ))
    }
}

/// A value given for a column or parameter of type `ty` made to fit it, or
/// `None` when it is not a value of that type at all: an `Int` for a
/// `Float` is that float, a `Float` is canonical (`-0.0` is `0.0`), and a
/// `Float` for an `Int` is refused (E0004 when it is a whole number past
/// 64 bits, E0007 otherwise). Values of other types are left as they are
/// (the caller's type check refuses them).
pub fn conform(ty: &ColumnType, value: Value) -> Result<Value, NumberError> {
    match (ty, value) {
        (ColumnType::Optional(_), Value::Null) => Ok(Value::Null),
        (ColumnType::Optional(inner), value) => conform(inner, value),
        (ColumnType::Float, Value::Int(n)) => Ok(Value::float(n as f64)),
        (ColumnType::Float, Value::Float(x)) => Ok(Value::float(x)),
        (ColumnType::Int, Value::Float(x)) if x.is_finite() => {
            let text = Value::Float(x).to_string();
            Err(if x.fract() == 0.0 && x.abs() >= 2f64.powi(63) {
                NumberError::too_large_int(&text)
            } else {
                NumberError::not_an_int(&text)
            })
        }
        (_, value) => Ok(value),
    }
}

/// The number type of a column type, if it is one (through `?`).
pub fn number_type(ty: &ColumnType) -> Option<NumberType> {
    match ty {
        ColumnType::Int => Some(NumberType::Int),
        ColumnType::Float => Some(NumberType::Float),
        ColumnType::Optional(inner) => number_type(inner),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(text: &str) -> Result<Value, &'static str> {
        parse(text, NumberType::Int).map_err(|e| e.code)
    }

    fn float_of(text: &str) -> Result<f64, &'static str> {
        match parse(text, NumberType::Float).map_err(|e| e.code)? {
            Value::Float(x) => Ok(x),
            other => panic!("{other:?} is not a float"),
        }
    }

    #[test]
    fn integers_read_exactly_or_are_refused_with_a_code() {
        assert_eq!(int("42"), Ok(Value::Int(42)));
        assert_eq!(int(" -7 "), Ok(Value::Int(-7)));
        assert_eq!(int("+7"), Ok(Value::Int(7)));
        assert_eq!(int("1_000"), Ok(Value::Int(1000)));
        assert_eq!(int("9223372036854775807"), Ok(Value::Int(i64::MAX)));
        assert_eq!(int("-9223372036854775808"), Ok(Value::Int(i64::MIN)));
        assert_eq!(int("-0"), Ok(Value::Int(0)));
        assert_eq!(int("9223372036854775808"), Err("E0004"));
        assert_eq!(int("99999999999999999999"), Err("E0004"));
        assert_eq!(int("-9223372036854775809"), Err("E0004"));
        assert_eq!(int("1.0"), Err("E0007"));
        assert_eq!(int("1e3"), Err("E0007"));
        assert_eq!(int("-0.0"), Err("E0007"));
        for bad in [
            "", "-", "abc", "12abc", "inf", "NaN", "0x10", "1..2", "_1", "1e", ".",
        ] {
            assert_eq!(int(bad), Err("E0005"), "{bad:?}");
        }
    }

    #[test]
    fn floats_are_finite_and_never_minus_zero() {
        assert_eq!(float_of("2.5"), Ok(2.5));
        assert_eq!(
            float_of("1"),
            Ok(1.0),
            "an integer for a Float is that float"
        );
        assert_eq!(float_of("99999999999999999999"), Ok(1e20));
        assert_eq!(float_of("1e-3"), Ok(0.001));
        assert_eq!(float_of("1E+2"), Ok(100.0));
        assert_eq!(float_of(".5"), Ok(0.5));
        assert_eq!(float_of("1_000.5"), Ok(1000.5));
        for zero in ["-0.0", "-0", "-1e-400", "0.0", "-0e5"] {
            let x = float_of(zero).unwrap();
            assert_eq!(x.to_bits(), 0.0f64.to_bits(), "{zero} is 0.0");
        }
        assert_eq!(float_of("1e999"), Err("E0006"));
        assert_eq!(float_of("-1e999"), Err("E0006"));
        for bad in ["inf", "-inf", "NaN", "infinity", "1.2.3", "e5", "1e_5"] {
            assert_eq!(float_of(bad), Err("E0005"), "{bad:?}");
        }
    }

    /// A JSON number is read by its spelling (the CLI keeps it: serde_json
    /// makes `-0` the float `-0.0`), so it follows the same table: `-0` for
    /// an `Int` is 0 as `--arg n=-0` is, `-0.0` and `1.0` are E0007.
    #[test]
    fn json_spellings_follow_the_same_rules() {
        assert_eq!(int("-0"), Ok(Value::Int(0)));
        assert_eq!(int("-0.0"), Err("E0007"));
        assert_eq!(int("1.0"), Err("E0007"));
        assert_eq!(int("-0e0"), Err("E0007"));
        assert_eq!(int("1e20"), Err("E0007"));
        assert_eq!(int("18446744073709551615"), Err("E0004"));
        assert_eq!(float_of("1"), Ok(1.0));
        assert_eq!(float_of("-0").map(f64::to_bits), Ok(0.0f64.to_bits()));
        assert_eq!(float_of("18446744073709551615"), Ok(18446744073709551615.0));
    }

    #[test]
    fn values_conform_to_their_type() {
        assert_eq!(
            conform(&ColumnType::Float, Value::Int(3)),
            Ok(Value::Float(3.0))
        );
        let optional = ColumnType::Optional(Box::new(ColumnType::Float));
        assert_eq!(conform(&optional, Value::Int(3)), Ok(Value::Float(3.0)));
        assert_eq!(conform(&optional, Value::Null), Ok(Value::Null));
        let Ok(Value::Float(zero)) = conform(&ColumnType::Float, Value::Float(-0.0)) else {
            panic!("a float")
        };
        assert!(zero.is_sign_positive());
        assert_eq!(
            conform(&ColumnType::Int, Value::Float(1.0)).map_err(|e| e.code),
            Err("E0007")
        );
        assert_eq!(
            conform(&ColumnType::Int, Value::Float(1e20)).map_err(|e| e.code),
            Err("E0004")
        );
        assert_eq!(
            conform(&ColumnType::String, Value::Int(1)),
            Ok(Value::Int(1)),
            "another type is left to the type check"
        );
    }
}
