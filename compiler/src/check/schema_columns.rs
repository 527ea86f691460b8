//! A column's declaration checked: its length bound, its default literal and whether it may be a generated key.

use crate::cost::CEILING;
use crate::diagnostics::Diagnostic;
use crate::syntax::ast;
use rqc_plan::{ColumnType, Literal};

/// `name: String <= n`: a length bound is a positive byte count, at most
/// the ceiling, on a `String` or `String?` column (E0240, E0241).
pub(super) fn length_bound(
    file: &str,
    column: &str,
    ty: &ColumnType,
    n: i64,
    span: crate::Span,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<u64> {
    let base = match ty {
        ColumnType::Optional(inner) => inner.as_ref(),
        other => other,
    };
    if *base != ColumnType::String {
        diagnostics.push(
            Diagnostic::error(
                "E0240",
                format!(
                    "`{column}` is `{}`: a length bound `<= {n}` applies only to `String` columns",
                    ty.name()
                ),
                file,
                span,
                "not a string column",
            )
            .with_help(format!(
                "remove `<= {n}`; to limit how many rows share a value, declare `bound {column} <= {n}` in the table"
            )),
        );
        return None;
    }
    if n < 1 || n as u64 > CEILING {
        diagnostics.push(
            Diagnostic::error(
                "E0241",
                format!("a string's length bound must be between 1 and {CEILING} bytes, not {n}"),
                file,
                span,
                "out of range",
            )
            .with_help("declare the most UTF-8 bytes a value may have, such as `<= 200`"),
        );
        return None;
    }
    Some(n as u64)
}

/// E0242: a default longer than the column's length bound.
pub(super) fn long_default(file: &str, len: usize, max: u64, span: crate::Span) -> Diagnostic {
    Diagnostic::error(
        "E0242",
        format!("the column's default is {len} bytes long, but its values may have at most {max}"),
        file,
        span,
        "the length bound",
    )
    .with_help(format!(
        "shorten the default, or raise the bound to `<= {len}`"
    ))
}

/// A column's default: a literal of the column's type (an `Int` literal
/// for a `Float` too, `none` for an optional column), negated numbers too.
pub(super) fn default_literal(value: &ast::Expr, ty: &ColumnType) -> Option<Literal> {
    use ast::ExprKind;
    let inner = match ty {
        ColumnType::Optional(inner) => {
            if matches!(value.kind, ExprKind::None) {
                return Some(Literal::None);
            }
            inner.as_ref()
        }
        other => other,
    };
    let (negated, value) = match &value.kind {
        ExprKind::Unary(ast::UnaryOp::Neg, operand) => (true, operand.as_ref()),
        _ => (false, value),
    };
    match (&value.kind, inner) {
        (ExprKind::Int(n), ColumnType::Int) => {
            Some(Literal::Int(if negated { n.checked_neg()? } else { *n }))
        }
        (ExprKind::Int(n), ColumnType::Float) => {
            let x = *n as f64;
            Some(float_literal(if negated { -x } else { x }))
        }
        (ExprKind::Float(x), ColumnType::Float) => {
            Some(float_literal(if negated { -x } else { *x }))
        }
        (ExprKind::Str(text), ColumnType::String) if !negated => {
            Some(Literal::String(text.clone()))
        }
        (ExprKind::Bool(b), ColumnType::Bool) if !negated => Some(Literal::Bool(*b)),
        _ => None,
    }
}

/// E0458's message: `what` (a literal, a default) is a string past the
/// most any string may hold (16 MiB).
pub(super) fn past_any_string(what: &str, bytes: usize) -> String {
    format!(
        "{what} is {bytes} bytes, past the {} any string may hold",
        rqc_cost::MAX_STRING_BYTES
    )
}

pub(super) fn bad_default(file: &str, ty: &ColumnType, span: crate::Span) -> Diagnostic {
    Diagnostic::error(
        "E0209",
        format!(
            "a default of a `{}` column must be a literal of that type",
            ty.name()
        ),
        file,
        span,
        "not a literal of the column's type",
    )
    .with_help(match ty {
        ColumnType::Optional(_) => "write a literal such as `= 0`, `= \"\"` or `= none`",
        _ => "write a literal such as `= 0`, `= 1.5`, `= \"\"` or `= false`",
    })
}

/// Why `auto` cannot mark this column, if it cannot: only an `Int` key
/// column, whole key of its table (a `key (a, b)` beside it is E0205),
/// with no default (the store gives every new row its value).
pub(super) fn auto_key_refused(
    keyed: bool,
    ty: &ColumnType,
    defaulted: bool,
) -> Option<&'static str> {
    if !keyed {
        Some("`auto` marks a key: it follows `key` on the key column")
    } else if *ty != ColumnType::Int {
        Some("a generated key is an `Int` (not optional): the store counts up from 1")
    } else if defaulted {
        Some("a generated key has no default: the store gives each new row the next one")
    } else {
        None
    }
}

/// E0440: `auto` where no generated key can be.
pub(super) fn bad_auto(file: &str, column: &str, why: &str, span: crate::Span) -> Diagnostic {
    Diagnostic::error(
        "E0440",
        format!("`{column}` cannot be a generated key: {why}"),
        file,
        span,
        "`auto` here",
    )
    .with_help(format!(
        "declare the key as `{column}: Int key auto`, or drop `auto` and give the key in each insert"
    ))
}

/// A `Float` default as stored: canonical (`-0.0` is `0.0`, spec/types.md).
fn float_literal(x: f64) -> Literal {
    Literal::Float(rqc_plan::canonical_float(x).to_bits())
}
