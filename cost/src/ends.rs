//! Numeric ends of a value range: each an `i64` or infinite, with the exact interval arithmetic over them.
//!
//! An [`Interval`](crate::Interval) keeps, beside its symbolic ends, the
//! numbers its value is known to lie between when they are numbers (a
//! literal, a declared `>= 0`, a `%` by 10). These are exact where the
//! symbolic ends are not: they may be negative (`v ≤ -1`) and subtract
//! (`n - 1`). An `Int` at run time is an `i64` (an overflow stops the run),
//! so an end past the `i64` range says nothing and is kept as infinite.

/// An end of a range: `Below` and `Above` are the infinite ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum End {
    Below,
    At(i128),
    Above,
}

impl End {
    pub(crate) fn lower(end: Option<i64>) -> End {
        end.map_or(End::Below, |n| End::At(n.into()))
    }

    pub(crate) fn upper(end: Option<i64>) -> End {
        end.map_or(End::Above, |n| End::At(n.into()))
    }

    /// The end as an `i64`, `None` when infinite or outside the range.
    pub(crate) fn number(self) -> Option<i64> {
        match self {
            End::At(n) => i64::try_from(n).ok(),
            End::Below | End::Above => None,
        }
    }

    /// This end as the least of an interval of `Int`s: a lower end past
    /// the largest `Int` is that `Int` (a result above it stops the run,
    /// spec/types.md, so every value the run goes on with is at least it:
    /// none), not an unknown one, which would let `n / d` with `d` a
    /// product too large for an `Int` be as large as `n`.
    pub(crate) fn least_number(self) -> Option<i64> {
        match self {
            End::At(n) if n > i128::from(i64::MAX) => Some(i64::MAX),
            _ => self.number(),
        }
    }

    /// This end as the most of an interval of `Int`s: an upper end below
    /// the least `Int` is that `Int` (as [`End::least_number`]).
    pub(crate) fn most_number(self) -> Option<i64> {
        match self {
            End::At(n) if n < i128::from(i64::MIN) => Some(i64::MIN),
            _ => self.number(),
        }
    }

    pub(crate) fn negate(self) -> End {
        match self {
            End::Below => End::Above,
            End::Above => End::Below,
            End::At(n) => End::At(-n),
        }
    }

    /// `self + other`: an infinite end stays infinite (the two ends added
    /// are both lower or both upper ends, so never of opposite signs).
    pub(crate) fn plus(self, other: End) -> End {
        match (self, other) {
            (End::At(a), End::At(b)) => End::At(a + b),
            (End::Below, _) | (_, End::Below) => End::Below,
            _ => End::Above,
        }
    }

    pub(crate) fn times(self, other: End) -> End {
        match (self, other) {
            (End::At(a), End::At(b)) => {
                End::At(a.checked_mul(b).unwrap_or(if (a < 0) == (b < 0) {
                    i128::MAX
                } else {
                    i128::MIN
                }))
            }
            // Zero times anything is zero: the infinite end stands for
            // large numbers, never for infinity itself.
            (End::At(0), _) | (_, End::At(0)) => End::At(0),
            (x, y) => {
                if (x.sign() < 0) == (y.sign() < 0) {
                    End::Above
                } else {
                    End::Below
                }
            }
        }
    }

    /// `self / divisor`, truncated towards zero, for a divisor of at least 1.
    pub(crate) fn divided_by(self, divisor: End) -> End {
        match (self, divisor) {
            // A zero divisor is only ever met at the corner of an empty
            // range, which `Interval::divided_by` does not divide by: no
            // quotient is taken, and nothing may panic here.
            (End::At(a), End::At(b)) => End::At(a.checked_div(b).unwrap_or(0)),
            (End::At(_), _) => End::At(0),
            (infinite, _) => infinite,
        }
    }

    fn sign(self) -> i32 {
        match self {
            End::Below => -1,
            End::Above => 1,
            End::At(n) => n.signum() as i32,
        }
    }
}

/// The smallest and largest of `op` at the four corners of two ranges.
fn corners(a: (End, End), b: (End, End), op: fn(End, End) -> End) -> (End, End) {
    let values = [op(a.0, b.0), op(a.0, b.1), op(a.1, b.0), op(a.1, b.1)];
    let least = values.iter().copied().min().unwrap_or(End::Below);
    let most = values.iter().copied().max().unwrap_or(End::Above);
    (least, most)
}

/// The smallest and largest of the four products of two ranges' ends.
pub(crate) fn product(a: (End, End), b: (End, End)) -> (End, End) {
    corners(a, b, End::times)
}

/// The quotients of `a` by a divisor in `[b.0, b.1]` with `b.0 ≥ 1`:
/// truncation is monotone in the dividend, and in the divisor (falling for
/// a non-negative dividend, rising for a negative one), so the extremes are
/// at the corners.
pub(crate) fn quotient_by_positive(a: (End, End), b: (End, End)) -> (End, End) {
    corners(a, b, End::divided_by)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_see_every_sign_and_infinity() {
        let at = End::At;
        assert_eq!(product((at(-3), at(2)), (at(-4), at(5))), (at(-15), at(12)));
        assert_eq!(
            product((at(0), at(10)), (End::Below, at(10))),
            (End::Below, at(100))
        );
        assert_eq!(
            product((at(0), at(0)), (End::Below, End::Above)),
            (at(0), at(0))
        );
    }

    #[test]
    fn quotients_truncate_towards_zero() {
        let at = End::At;
        assert_eq!(
            quotient_by_positive((at(-7), at(9)), (at(2), End::Above)),
            (at(-3), at(4))
        );
        assert_eq!(
            quotient_by_positive((at(-7), at(-1)), (at(1), at(7))),
            (at(-7), at(0))
        );
    }
}
