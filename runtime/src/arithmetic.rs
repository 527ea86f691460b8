//! The executor's scalar operators: arithmetic, comparisons, string joins and case mappings, each with its overflow error (E0530, E0531, E0538, E0539).

use crate::error::{internal, Result, RuntimeError};
use rqc_plan::{compare, BinOp, UnOp, Value};
use std::cmp::Ordering;

/// `op v` on a scalar (`none` of `none`).
pub(crate) fn unary(op: UnOp, v: Value) -> Result<Value> {
    Ok(match (op, v) {
        (UnOp::Neg, Value::Int(n)) => Value::Int(n.checked_neg().ok_or_else(overflow)?),
        (UnOp::Neg, Value::Float(x)) => Value::float(-x),
        (UnOp::Not, Value::Bool(b)) => Value::Bool(!b),
        (UnOp::Length, Value::Str(s)) => Value::Int(s.chars().count() as i64),
        (UnOp::Lower, Value::Str(s)) => Value::Str(within_any(s.to_lowercase())?),
        (UnOp::Upper, Value::Str(s)) => Value::Str(within_any(s.to_uppercase())?),
        (UnOp::ToFloat, Value::Int(n)) => Value::float(n as f64),
        (_, Value::Null) => Value::Null,
        _ => return Err(internal("a unary operator on the wrong type")),
    })
}

pub(crate) fn binary(op: BinOp, left: Value, right: Value) -> Result<Value> {
    use Value::*;
    Ok(match op {
        BinOp::Eq => Bool(left == right),
        BinOp::NotEq => Bool(left != right),
        BinOp::Lt => Bool(compare(&left, &right) == Ordering::Less),
        BinOp::LtEq => Bool(compare(&left, &right) != Ordering::Greater),
        BinOp::Gt => Bool(compare(&left, &right) == Ordering::Greater),
        BinOp::GtEq => Bool(compare(&left, &right) != Ordering::Less),
        BinOp::StartsWith => match (left, right) {
            (Str(s), Str(p)) => Bool(s.starts_with(p.as_str())),
            (Null, _) | (_, Null) => Bool(false),
            _ => return Err(internal("`starts_with` on the wrong types")),
        },
        _ => match (left, right) {
            (Null, _) | (_, Null) => Null,
            (Int(a), Int(b)) => Int(match op {
                BinOp::Add => a.checked_add(b).ok_or_else(overflow)?,
                BinOp::Sub => a.checked_sub(b).ok_or_else(overflow)?,
                BinOp::Mul => a.checked_mul(b).ok_or_else(overflow)?,
                BinOp::Div if b == 0 => return Err(division()),
                BinOp::Div => a.checked_div(b).ok_or_else(overflow)?,
                _ if b == 0 => return Err(division()),
                // `i64::MIN % -1` is 0 (only its quotient overflows).
                _ => a.wrapping_rem(b),
            }),
            (Float(a), Float(b)) => Value::float(float_arithmetic(op, a, b)?),
            (Str(a), Str(b)) if op == BinOp::Add => Str(joined(a, &b)?),
            _ => return Err(internal("arithmetic on the wrong types")),
        },
    })
}

/// `a op b` on two floats, finite or an error: no `Float` is infinite or
/// NaN (JSON, the answer's form, has no spelling for either; it would print
/// `null`). Every float a run starts from is finite (a literal past
/// `f64::MAX` is E0006, an argument or loaded value past it is refused), so
/// a result that is not is a division by zero (E0531) or an overflow (E0538).
fn float_arithmetic(op: BinOp, a: f64, b: f64) -> Result<f64> {
    let result = match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        BinOp::Div | BinOp::Rem if b == 0.0 => return Err(division()),
        BinOp::Div => a / b,
        _ => a % b,
    };
    finite(result)
}

/// `x` canonical (`-0.0`, which `-4.0 % 2.0`, `0.0 / -5.0` or an
/// underflow make, is `0.0`), or E0538 when it is infinite or NaN.
pub(crate) fn finite(x: f64) -> Result<f64> {
    if x.is_finite() {
        Ok(rqc_plan::canonical_float(x))
    } else {
        Err(RuntimeError::new(
            "E0538",
            "float overflow",
            "the result is beyond the largest float (about 1.8e308); \
             check the values involved, or scale them down (divide before you multiply)",
        ))
    }
}

/// The longest string a run makes, in bytes (as long as any column or
/// argument may be, and more than any a program spells).
pub const MAX_STRING_BYTES: usize = rqc_cost::MAX_STRING_BYTES as usize;

/// `a + b`, or E0539 past [`MAX_STRING_BYTES`]: a string joined to itself
/// doubles at each `let` (`let s1 = s0 + s0`), and thirty of them asked
/// for 8 GB of a query printed `rows ≤ 0` (adversary finding). The
/// string overflows as an `Int` does (E0530): an error, nothing written.
fn joined(mut a: String, b: &str) -> Result<String> {
    let bytes = a.len().saturating_add(b.len());
    if bytes > MAX_STRING_BYTES {
        return Err(string_overflow(
            "joined",
            bytes,
            "join fewer or shorter strings; a string joined to itself doubles at each `let`",
        ));
    }
    a.push_str(b);
    Ok(a)
}

/// A case mapping's result, or E0539 past [`MAX_STRING_BYTES`]: mapping
/// may lengthen a string (`ß` becomes `SS`), and no string longer than
/// that may exist (every bound counts a string's work as at most it).
fn within_any(mapped: String) -> Result<String> {
    if mapped.len() > MAX_STRING_BYTES {
        return Err(string_overflow(
            "case-mapped",
            mapped.len(),
            "map a shorter string",
        ));
    }
    Ok(mapped)
}

/// E0539: a string made past [`MAX_STRING_BYTES`]; nothing is written.
fn string_overflow(made: &str, bytes: usize, help: &str) -> RuntimeError {
    RuntimeError::new(
        "E0539",
        format!("string overflow: the {made} string would be {bytes} bytes, past the {MAX_STRING_BYTES} a string may hold"),
        help,
    )
}

fn overflow() -> RuntimeError {
    RuntimeError::new(
        "E0530",
        "integer overflow",
        "the result does not fit in 64 bits; check the values involved",
    )
}

fn division() -> RuntimeError {
    RuntimeError::new(
        "E0531",
        "division by zero",
        "guard the division with an `if`",
    )
}

#[cfg(test)]
mod tests {
    use rqc_cost::CASE_MAPPING_GROWTH;

    /// Every character's case mappings, as the runtime makes them, within
    /// `CASE_MAPPING_GROWTH` times its characters and its bytes: the
    /// checker's and the verifier's bound of `lower(s)` and `upper(s)`.
    #[test]
    fn no_case_mapping_grows_a_character_past_the_bound() {
        let mut largest = (0, 0);
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let own = c.len_utf8();
            for mapped in [c.to_lowercase().to_string(), c.to_uppercase().to_string()] {
                let chars = mapped.chars().count() as u64;
                let bytes = mapped.len() as u64;
                assert!(chars <= CASE_MAPPING_GROWTH, "{c:?} maps to {mapped:?}");
                assert!(
                    bytes <= CASE_MAPPING_GROWTH * own as u64,
                    "{c:?} maps to {mapped:?}"
                );
                largest = largest.max((bytes * 100 / own as u64, chars));
            }
        }
        // The bound is reached, so it is not loose: `ΐ` (2 bytes) to three
        // characters of 2 bytes each.
        assert_eq!(largest.0, 300, "{largest:?}");
        // A string's lower case with a final sigma (context-dependent)
        // is still within: `Σ` and `ς` are 2 bytes each.
        let s = "ΑΣ ΑΣ";
        assert!(s.to_lowercase().len() <= s.len() * CASE_MAPPING_GROWTH as usize);
    }
}
