//! Value ranges of integers: `-lo ≤ v ≤ hi`, both ends non-negative polynomials, and the arithmetic over them.
//!
//! Every variable of the cost calculus is non-negative, so a signed range is
//! kept as two non-negative polynomials: `hi` bounds the value from above,
//! `lo` bounds its negative part (`v ≥ -lo`). An end that nothing bounds is
//! a polynomial with an unbounded variable named after its cause, so a
//! message can say which value lets a count grow. The rules are those of
//! interval arithmetic with every bound an upper bound of an absolute
//! value; spec/cost.md, "Values", states them and why each is sound.

use crate::{Poly, Var};

/// The values an `Int` expression may take (see the module's comment).
#[derive(Clone, Debug, PartialEq)]
pub struct Interval {
    /// The value is at most this.
    pub hi: Poly,
    /// The value is at least minus this.
    pub lo: Poly,
}

impl Interval {
    /// The literal `n`.
    pub fn exact(n: i64) -> Interval {
        let magnitude = Poly::constant(n.unsigned_abs());
        if n >= 0 {
            Interval {
                hi: magnitude,
                lo: Poly::zero(),
            }
        } else {
            Interval {
                hi: Poly::zero(),
                lo: magnitude,
            }
        }
    }

    /// From 0 up to `size` (a count, a length).
    pub fn up_to(size: Poly) -> Interval {
        Interval {
            hi: size,
            lo: Poly::zero(),
        }
    }

    /// Any integer; `what` names it (a column, an unbounded parameter).
    pub fn unbounded(what: &str) -> Interval {
        // Made for every column read and every `Int` written in a type,
        // from a few names: each is built (its names formatted and
        // interned) once per thread.
        thread_local! {
            static MADE: std::cell::RefCell<
                std::collections::HashMap<String, Interval, crate::NameHash>,
            > = Default::default();
        }
        MADE.with(|made| {
            if let Some(interval) = made.borrow().get(what) {
                return interval.clone();
            }
            let interval = Interval {
                hi: Poly::unbounded(what),
                lo: Poly::unbounded(&format!("-{what}")),
            };
            made.borrow_mut().insert(what.to_string(), interval.clone());
            interval
        })
    }

    /// An entry point's `n: Int <= max` (`None`: no bound): at most `max`,
    /// and as negative as the caller likes.
    pub fn parameter(name: &str, max: Option<u64>) -> Interval {
        Interval {
            hi: Poly::var(Var::param(name, max)),
            lo: Interval::unbounded(name).lo,
        }
    }

    /// `a + b`: the ends add.
    pub fn plus(&self, other: &Interval) -> Interval {
        Interval {
            hi: self.hi.plus(&other.hi),
            lo: self.lo.plus(&other.lo),
        }
    }

    /// `-a`: the ends swap.
    pub fn negate(&self) -> Interval {
        Interval {
            hi: self.lo.clone(),
            lo: self.hi.clone(),
        }
    }

    /// `a - b`, as `a + (-b)`.
    pub fn minus(&self, other: &Interval) -> Interval {
        self.plus(&other.negate())
    }

    /// `a·b ≤ hi_a·hi_b + lo_a·lo_b` (the product of two positives or of two
    /// negatives) and `a·b ≥ -(hi_a·lo_b + lo_a·hi_b)`.
    pub fn times(&self, other: &Interval) -> Interval {
        Interval {
            hi: self.hi.times(&other.hi).plus(&self.lo.times(&other.lo)),
            lo: self.hi.times(&other.lo).plus(&self.lo.times(&other.hi)),
        }
    }

    /// Integer division truncates towards zero: `|a / b| ≤ |a|`, and with a
    /// non-negative divisor the quotient keeps the dividend's sign.
    pub fn divided_by(&self, divisor: &Interval) -> Interval {
        if divisor.lo.is_zero() {
            return self.clone();
        }
        let magnitude = self.hi.max(&self.lo);
        Interval {
            hi: magnitude.clone(),
            lo: magnitude,
        }
    }

    /// A remainder has the dividend's sign and is no larger than it.
    pub fn remainder(&self) -> Interval {
        self.clone()
    }

    /// Either one: the smallest range holding both.
    pub fn join(&self, other: &Interval) -> Interval {
        Interval {
            hi: self.hi.max(&other.hi),
            lo: self.lo.max(&other.lo),
        }
    }

    /// The largest value, when bounded by numbers.
    pub fn max_value(&self) -> Option<u64> {
        self.hi.max_value()
    }

    /// Whether the upper end is bounded: by numbers, or (in a function) by
    /// measures its callers fix.
    pub fn bounded_above(&self) -> bool {
        self.hi.unbounded_params().is_empty() && self.hi.tables().is_empty()
    }

    /// Whether `self ⊆ other` is provable.
    pub fn within(&self, other: &Interval) -> bool {
        self.hi.le(&other.hi) && self.lo.le(&other.lo)
    }

    /// Why the upper end has no maximum, as a sentence (`None` when it has one).
    pub fn why_unbounded(&self) -> Option<String> {
        let names = self.hi.unbounded_params();
        if names.is_empty() {
            return None;
        }
        let reasons: Vec<String> = names
            .iter()
            .map(|name| match name.strip_prefix('-') {
                Some(value) => format!("`{value}` may be any negative number"),
                None => format!("`{name}` has no upper bound"),
            })
            .collect();
        Some(reasons.join(", and "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(max: u64) -> Interval {
        Interval::parameter("n", Some(max))
    }

    #[test]
    fn a_bounded_parameter_is_bounded_above_only() {
        assert_eq!(n(10).max_value(), Some(10));
        assert_eq!(n(10).negate().max_value(), None);
        assert_eq!(
            n(10).negate().why_unbounded().unwrap(),
            "`n` may be any negative number"
        );
    }

    #[test]
    fn subtraction_and_products_see_the_negative_side() {
        let m = Interval::parameter("m", Some(10));
        assert_eq!(n(10).minus(&m).max_value(), None);
        assert_eq!(n(10).times(&m).max_value(), None);
        assert_eq!(Interval::exact(0).minus(&n(10)).max_value(), None);
        let five = Interval::exact(5);
        assert_eq!(n(10).minus(&five).max_value(), Some(10));
        assert_eq!(five.minus(&Interval::exact(-3)).max_value(), Some(8));
        assert_eq!(
            Interval::exact(-3).times(&Interval::exact(-4)).max_value(),
            Some(12)
        );
    }

    #[test]
    fn division_keeps_the_magnitude() {
        let m = Interval::parameter("m", Some(10));
        // m may be -1, so n / m may be -n: unbounded above.
        assert_eq!(n(10).divided_by(&m).max_value(), None);
        let two = Interval::exact(2);
        assert_eq!(n(10).divided_by(&two).max_value(), Some(10));
        let counted = Interval::up_to(Poly::constant(7));
        assert_eq!(
            counted.divided_by(&Interval::exact(-2)).max_value(),
            Some(7)
        );
    }

    #[test]
    fn join_covers_both() {
        let joined = Interval::exact(-4).join(&Interval::exact(9));
        assert_eq!(joined.max_value(), Some(9));
        assert_eq!(joined.lo.max_value(), Some(4));
    }
}
