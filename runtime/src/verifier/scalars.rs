//! The bound pass's scalars: constants, unary and binary operators typed as the executor computes them (`arithmetic.rs`: a type it does not take is refused here, not met at run time), with the interval arithmetic of `rqc-cost` (`Interval::plus`, `minus`, `times`, `divided_by`, `remainder`, `negate`); and a `take` count's proved maximum held to what its interval allows.

use super::abstract_value::{Abs, Clash, Kind, RecordAbs};
use super::bounds::Verifier;
use crate::error::Result;
use rqc_cost::{Interval, Poly};
use rqc_plan::{BinOp, Node, UnOp, Value};
use std::rc::Rc;

/// A constant's abstract value: exact sizes.
pub(super) fn constant<'p>(value: &Value) -> std::result::Result<Abs<'p>, Clash> {
    Ok(match value {
        Value::Null => Abs::Null,
        Value::Int(n) => Abs::int(Interval::exact(*n)),
        Value::Float(_) => Abs::unknown(Kind::Float, "a constant"),
        Value::Bool(_) => Abs::unknown(Kind::Bool, "a constant"),
        Value::Str(text) => Abs::string(Poly::constant(text.chars().count() as u64)),
        Value::List(items) => {
            let mut element = Abs::Nothing;
            let mut each = Vec::with_capacity(items.len());
            for item in items {
                let item = constant(item)?;
                element = element.join(&item)?;
                each.push(item);
            }
            let extremes = Abs::extremes_of(&each).map(Rc::new);
            Abs::List(
                Box::new(element),
                Poly::constant(items.len() as u64),
                extremes,
            )
        }
        Value::Record(record) => {
            let mut fields = Vec::new();
            for (name, value) in record.held() {
                fields.push((name.to_string(), constant(value)?));
            }
            Abs::Record(Rc::new(RecordAbs {
                fields,
                table: None,
            }))
        }
    })
}

/// A scalar as an option when its operand may be `none` (the operators
/// give `none` of `none`).
fn optional_like<'p>(operand: &Abs<'p>, result: Abs<'p>) -> Abs<'p> {
    match operand {
        Abs::Opt(_) | Abs::Null => Abs::Opt(Box::new(result)),
        _ => result,
    }
}

fn scalar_of<'a>(value: &'a Abs<'_>) -> Option<&'a super::abstract_value::Scalar> {
    match value {
        Abs::Scalar(s) => Some(s),
        Abs::Opt(inner) => scalar_of(inner),
        _ => None,
    }
}

impl<'p> Verifier<'p> {
    /// The kind of an operand (see [`Abs::scalar_kind`]), E0625 for a
    /// value that is no scalar.
    fn operand_kind(&self, node: &Node, value: &Abs<'p>) -> Result<Option<Kind>> {
        value.scalar_kind().or_else(|what| {
            self.fault(
                "E0625",
                node,
                format!("its operand is {what}, where a scalar goes"),
            )
        })
    }

    /// E0625: an operand of a kind the operator does not take.
    fn wrong_kind<T>(&self, node: &Node, kind: Kind) -> Result<T> {
        self.fault(
            "E0625",
            node,
            format!("its operand is {}, which it does not take", kind.name()),
        )
    }

    pub(super) fn unary(&self, node: &Node, op: UnOp, operand: &Abs<'p>) -> Result<Abs<'p>> {
        // No value reaches here (the element of `none`): none leaves.
        if matches!(operand, Abs::Nothing) {
            return Ok(Abs::Nothing);
        }
        let Some(kind) = self.operand_kind(node, operand)? else {
            return Ok(Abs::Null);
        };
        let scalar = scalar_of(operand).expect("a scalar kind is a scalar's");
        let result = match (op, kind) {
            (UnOp::Neg, Kind::Int) => Abs::int(scalar.int.negate()),
            (UnOp::Neg, Kind::Float) => Abs::unknown(Kind::Float, "a value"),
            (UnOp::Not, Kind::Bool) => Abs::unknown(Kind::Bool, "a value"),
            (UnOp::Length, Kind::Str) => Abs::int(scalar.length()),
            // A case mapping gives at most three characters for one.
            (UnOp::Lower | UnOp::Upper, Kind::Str) => Abs::string(
                scalar
                    .chars
                    .times(&Poly::constant(rqc_cost::CASE_MAPPING_GROWTH)),
            ),
            (UnOp::ToFloat, Kind::Int) => Abs::unknown(Kind::Float, "a value"),
            (_, kind) => return self.wrong_kind(node, kind),
        };
        Ok(optional_like(operand, result))
    }

    /// A binary operator's result: interval arithmetic on `Int`s
    /// (spec/cost.md §3), lengths added for strings, a `Bool` of a
    /// comparison.
    pub(super) fn binary(
        &self,
        node: &Node,
        op: BinOp,
        left: &Abs<'p>,
        right: &Abs<'p>,
    ) -> Result<Abs<'p>> {
        if matches!(
            op,
            BinOp::Eq
                | BinOp::NotEq
                | BinOp::Lt
                | BinOp::LtEq
                | BinOp::Gt
                | BinOp::GtEq
                | BinOp::And
                | BinOp::Or
        ) {
            return Ok(Abs::unknown(Kind::Bool, "a comparison"));
        }
        // No value reaches here (`x + 1` inside a `map` over `none`): no
        // value leaves either, where `none` would make the result optional.
        if matches!(left, Abs::Nothing) || matches!(right, Abs::Nothing) {
            return Ok(Abs::Nothing);
        }
        let (a, b) = (
            self.operand_kind(node, left)?,
            self.operand_kind(node, right)?,
        );
        if op == BinOp::StartsWith {
            for kind in [a, b].into_iter().flatten() {
                if kind != Kind::Str {
                    return self.wrong_kind(node, kind);
                }
            }
            return Ok(Abs::unknown(Kind::Bool, "a comparison"));
        }
        let (Some(a), Some(b)) = (a, b) else {
            // Arithmetic with `none` gives `none`.
            return Ok(Abs::Null);
        };
        let (x, y) = (
            scalar_of(left).expect("a scalar"),
            scalar_of(right).expect("a scalar"),
        );
        let result = match (a, b) {
            (Kind::Int, Kind::Int) => Abs::int(match op {
                BinOp::Add => x.int.plus(&y.int),
                BinOp::Sub => x.int.minus(&y.int),
                BinOp::Mul => x.int.times(&y.int),
                BinOp::Div => x.int.divided_by(&y.int),
                _ => x.int.remainder(&y.int),
            }),
            (Kind::Float, Kind::Float) => Abs::unknown(Kind::Float, "a value"),
            (Kind::Str, Kind::Str) if op == BinOp::Add => Abs::string(x.chars.plus(&y.chars)),
            (Kind::Int | Kind::Float | Kind::Str, other) => return self.wrong_kind(node, other),
            (other, _) => return self.wrong_kind(node, other),
        };
        let maybe_none = matches!(left, Abs::Opt(_)) || matches!(right, Abs::Opt(_));
        Ok(if maybe_none {
            Abs::Opt(Box::new(result))
        } else {
            result
        })
    }

    /// A `take` or `skip` count's proved maximum: the runtime refuses a
    /// larger count before the read (E0599, "a bug in rqc"), so a maximum
    /// below what the count may be — its interval as the shared rules
    /// compute it, narrowed where an `if` narrows it — is a claim the plan
    /// does not keep (E0633), and so is a maximum over a count they bound
    /// nothing above (the checker writes a `Limit` only over a count it
    /// bounds, with these rules).
    pub(super) fn limit_holds(&self, node: &Node, count: &Interval, max: u64) -> Result<()> {
        match count.max_value() {
            Some(most) if most > max => self.fault(
                "E0633",
                node,
                format!("its count may be {most}, above the maximum {max} it claims"),
            ),
            Some(_) => Ok(()),
            None => self.fault(
                "E0633",
                node,
                format!(
                    "its count has no upper end ({}), so nothing proves the maximum {max} it claims",
                    count
                        .why_unbounded()
                        .unwrap_or_else(|| "nothing bounds it".into())
                ),
            ),
        }
    }
}

/// The steps of copying or comparing a string value whole
/// (`rqc_cost::string_steps`, by its most characters, which its bytes
/// bound); none for another value.
pub(super) fn string_steps(value: &Abs<'_>) -> u64 {
    match value.unwrapped() {
        Abs::Scalar(scalar) if scalar.kind == Kind::Str => {
            rqc_cost::string_steps(scalar.chars.max_value())
        }
        _ => 0,
    }
}
