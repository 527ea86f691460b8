//! Value ranges of integers: `-lo ≤ v ≤ hi` with both ends non-negative polynomials, exact numeric ends beside them, and the arithmetic over both.
//!
//! Every variable of the cost calculus is non-negative, so a signed range is
//! kept as two non-negative polynomials: `hi` bounds the value from above,
//! `lo` bounds its negative part (`v ≥ -lo`). An end that nothing bounds is
//! a polynomial with an unbounded variable named after its cause, so a
//! message can say which value lets a count grow. Beside them an interval
//! keeps its numeric ends, `least ≤ v ≤ most`, when they are numbers: these
//! may be negative or above zero at the bottom (`n: Int >= 1`, `x % 10` in
//! `[-9, 9]`, `n - 1` below a narrowed `n ≤ 10`), which the polynomials,
//! never below zero, cannot say. Every operation computes both, and each
//! side tightens the other ([`Interval::new`]): a limit reads `hi` alone.
//! The rules are those of interval arithmetic; spec/cost.md, "Values",
//! states them and why each is sound.

use crate::ends::{product, quotient_by_positive, End};
use crate::{Poly, Var};

/// The values an `Int` expression may take (see the module's comment).
/// Build one with [`Interval::new`] or the constructors, which keep the two
/// kinds of ends consistent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interval {
    /// The value is at most this.
    pub hi: Poly,
    /// The value is at least minus this.
    pub lo: Poly,
    /// The value is at least this number (`None`: nothing numeric is known).
    pub least: Option<i64>,
    /// The value is at most this number (`None`: nothing numeric is known).
    pub most: Option<i64>,
}

/// Whether the number `cap` bounds more tightly than `end`: `end`'s
/// maximum is larger, or it has none because something unbounded is in it.
/// An end whose variables callers fix (a function's measures) is kept: a
/// call's smaller argument gives a smaller bound, and the numeric end still
/// holds beside it; but not against a cap of 0, which no argument beats
/// (`p: Int >= 0` in a function has no negative part at any call, so
/// `lo(p)·lo(n)` is 0, not a product of the callers' negative parts).
fn looser(end: &Poly, cap: u64) -> bool {
    match end.max_value() {
        Some(max) => max > cap,
        None => cap == 0 || !end.unbounded_params().is_empty() || !end.tables().is_empty(),
    }
}

/// How a comparison an `if` tested relates a value to another
/// ([`Interval::assume`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// `v < other`
    Below,
    /// `v <= other`
    AtMost,
    /// `v > other`
    Above,
    /// `v >= other`
    AtLeast,
    /// `v == other`
    Equal,
}

impl Relation {
    /// The relation the other side has to this one (`a < b` is `b > a`).
    pub fn flipped(self) -> Relation {
        match self {
            Relation::Below => Relation::Above,
            Relation::AtMost => Relation::AtLeast,
            Relation::Above => Relation::Below,
            Relation::AtLeast => Relation::AtMost,
            Relation::Equal => Relation::Equal,
        }
    }

    /// The relation that holds when this one does not (`!(a < b)` is
    /// `a >= b`); `None` for `==`, whose negation bounds nothing.
    pub fn negated(self) -> Option<Relation> {
        match self {
            Relation::Below => Some(Relation::AtLeast),
            Relation::AtMost => Some(Relation::Above),
            Relation::Above => Some(Relation::AtMost),
            Relation::AtLeast => Some(Relation::Below),
            Relation::Equal => None,
        }
    }

    /// What a range's end says of each key it reads (`upper`: the end
    /// above; `inclusive`: the end itself read): `T.i[u, at <= e]` reads
    /// keys `at <= e`.
    pub fn of_range_end(upper: bool, inclusive: bool) -> Relation {
        match (upper, inclusive) {
            (true, true) => Relation::AtMost,
            (true, false) => Relation::Below,
            (false, true) => Relation::AtLeast,
            (false, false) => Relation::Above,
        }
    }
}

impl Interval {
    /// Where a column of every row a range read lies: `relation` to the
    /// end `end` (`Relation::of_range_end`), or equal to a prefix's value
    /// (`Relation::Equal`). Shared by the checker's access and the plan
    /// verifier's scan, so both narrow a row read alike.
    pub fn read_within(relation: Relation, end: &Interval) -> Interval {
        Interval::unbounded("a column read").assume(relation, end)
    }
}

impl Interval {
    /// `-lo ≤ v ≤ hi` and `least ≤ v ≤ most`, each side tightened by the
    /// other: a polynomial end with a maximum gives a numeric end, and a
    /// numeric end below a polynomial one (or where it has no maximum)
    /// replaces it by the number (at least 0).
    pub fn new(hi: Poly, lo: Poly, least: Option<i64>, most: Option<i64>) -> Interval {
        let mut interval = Interval {
            hi,
            lo,
            least,
            most,
        };
        if let Some(max) = interval.hi.max_value().and_then(|m| i64::try_from(m).ok()) {
            interval.most = Some(interval.most.map_or(max, |most| most.min(max)));
        }
        if let Some(max) = interval.lo.max_value().and_then(|m| i64::try_from(m).ok()) {
            interval.least = Some(interval.least.map_or(-max, |least| least.max(-max)));
        }
        if let Some(most) = interval.most {
            let cap = most.max(0).unsigned_abs();
            if looser(&interval.hi, cap) {
                interval.hi = Poly::constant(cap);
            }
        }
        if let Some(least) = interval.least {
            let cap = least.min(0).unsigned_abs();
            if looser(&interval.lo, cap) {
                interval.lo = Poly::constant(cap);
            }
        }
        interval
    }

    /// Polynomial ends only (a function's parameter, whose numbers its
    /// callers fix).
    pub fn symbolic(hi: Poly, lo: Poly) -> Interval {
        Interval::new(hi, lo, None, None)
    }

    /// The literal `n`.
    pub fn exact(n: i64) -> Interval {
        let magnitude = Poly::constant(n.unsigned_abs());
        let (hi, lo) = if n >= 0 {
            (magnitude, Poly::zero())
        } else {
            (Poly::zero(), magnitude)
        };
        Interval::new(hi, lo, Some(n), Some(n))
    }

    /// From 0 up to `size` (a count, a length).
    pub fn up_to(size: Poly) -> Interval {
        Interval::new(size, Poly::zero(), Some(0), None)
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
                least: None,
                most: None,
            };
            made.borrow_mut().insert(what.to_string(), interval.clone());
            interval
        })
    }

    /// An entry point's `n: Int >= least <= most`, either end optional:
    /// its positive part is the variable `n` (at most `most`, or unbounded),
    /// its negative part at most `-least` (or unbounded).
    pub fn parameter(name: &str, least: Option<i64>, most: Option<i64>) -> Interval {
        let hi = Poly::var(Var::param(name, most.map(|m| m.max(0).unsigned_abs())));
        let lo = match least {
            Some(least) => Poly::constant(least.min(0).unsigned_abs()),
            None => Interval::unbounded(name).lo,
        };
        Interval::new(hi, lo, least, most)
    }

    /// The numeric ends, infinite where unknown.
    fn ends(&self) -> (End, End) {
        (End::lower(self.least), End::upper(self.most))
    }

    /// This interval's polynomial ends with numeric ends `ends`.
    fn with_ends(hi: Poly, lo: Poly, ends: (End, End)) -> Interval {
        Interval::new(hi, lo, ends.0.least_number(), ends.1.most_number())
    }

    /// Whether no value lies in it: its least number above its greatest
    /// (narrowed by facts that cannot all hold).
    pub fn is_empty(&self) -> bool {
        let (least, most) = self.ends();
        least > most
    }

    /// `a + b`: the ends add.
    pub fn plus(&self, other: &Interval) -> Interval {
        let (a, b) = (self.ends(), other.ends());
        Interval::with_ends(
            self.hi.plus(&other.hi),
            self.lo.plus(&other.lo),
            (a.0.plus(b.0), a.1.plus(b.1)),
        )
    }

    /// `-a`: the ends swap.
    pub fn negate(&self) -> Interval {
        let (least, most) = self.ends();
        Interval::with_ends(
            self.lo.clone(),
            self.hi.clone(),
            (most.negate(), least.negate()),
        )
    }

    /// `a - b`, as `a + (-b)`.
    pub fn minus(&self, other: &Interval) -> Interval {
        self.plus(&other.negate())
    }

    /// The range `c` times a value in this range holds: itself for 1, its
    /// negation for -1, 0 for 0 (a name that cancels), else the product.
    pub fn times_coefficient(&self, c: i64) -> Interval {
        match c {
            0 => Interval::exact(0),
            1 => self.clone(),
            -1 => self.negate(),
            c => self.times(&Interval::exact(c)),
        }
    }

    /// `a·b ≤ hi_a·hi_b + lo_a·lo_b` (the product of two positives or of two
    /// negatives) and `a·b ≥ -(hi_a·lo_b + lo_a·hi_b)`; numerically the
    /// least and largest of the ends' four products.
    pub fn times(&self, other: &Interval) -> Interval {
        Interval::with_ends(
            self.hi.times(&other.hi).plus(&self.lo.times(&other.lo)),
            self.hi.times(&other.lo).plus(&self.lo.times(&other.hi)),
            product(self.ends(), other.ends()),
        )
    }

    /// Integer division truncates towards zero: `|a / b| ≤ |a|`, and with a
    /// non-negative divisor the quotient keeps the dividend's sign. With a
    /// divisor known to be at least 1 (or at most -1), numerically the
    /// quotients at the ends' corners.
    pub fn divided_by(&self, divisor: &Interval) -> Interval {
        let (hi, lo) = if divisor.lo.is_zero() {
            (self.hi.clone(), self.lo.clone())
        } else {
            let magnitude = self.hi.max(&self.lo);
            (magnitude.clone(), magnitude)
        };
        let (a, b) = (self.ends(), divisor.ends());
        // A divisor whose range is empty (narrowed by a test that cannot
        // hold: `if c < 0 { 5 / c }` with `c >= 0`) has no value, so the
        // division never runs: the widest quotient below is sound, and the
        // corners of an empty range would divide by zero.
        let ends = if b.0 > b.1 {
            let magnitude = a.1.max(a.0.negate());
            (magnitude.negate(), magnitude)
        } else if b.0 >= End::At(1) {
            quotient_by_positive(a, b)
        } else if b.1 <= End::At(-1) {
            let (least, most) = quotient_by_positive(a, (b.1.negate(), b.0.negate()));
            (most.negate(), least.negate())
        } else if b.0 >= End::At(0) {
            (a.0.min(End::At(0)), a.1.max(End::At(0)))
        } else {
            let magnitude = a.1.max(a.0.negate());
            (magnitude.negate(), magnitude)
        };
        Interval::with_ends(hi, lo, ends)
    }

    /// `a % m`: the remainder has the dividend's sign, and is no larger than
    /// it nor than `|m| - 1` (so `[0, m-1]` for `a ≥ 0` and a positive `m`,
    /// else `[-(m-1), m-1]`). A zero divisor stops the run (E0531), so the
    /// ranges need hold only for a divisor that is not zero.
    pub fn remainder(&self, divisor: &Interval) -> Interval {
        // Of two numbers, the number (`4 % 2` is 0, as a divisor too).
        if let (Some(a), Some(m)) = (self.constant(), divisor.constant()) {
            if let Some(rem) = a.checked_rem(m) {
                return Interval::exact(rem);
            }
        }
        // |m|, as a polynomial and as a number (when both ends are numbers).
        let modulus = divisor.hi.max(&divisor.lo);
        let (m0, m1) = divisor.ends();
        let largest = match (m0, m1) {
            (End::At(_), End::At(_)) => m1.max(m0.negate()).plus(End::At(-1)),
            _ => End::Above,
        };
        let (a0, a1) = self.ends();
        let ends = (
            a0.min(End::At(0)).max(largest.negate()),
            a1.max(End::At(0)).min(largest),
        );
        let lo = if self.lo.is_zero() {
            Poly::zero()
        } else {
            self.lo.tighter(&modulus)
        };
        Interval::with_ends(self.hi.tighter(&modulus), lo, ends)
    }

    /// Either one: the smallest range holding both.
    pub fn join(&self, other: &Interval) -> Interval {
        let (a, b) = (self.ends(), other.ends());
        Interval::with_ends(
            self.hi.max(&other.hi),
            self.lo.max(&other.lo),
            (a.0.min(b.0), a.1.max(b.1)),
        )
    }

    /// Within `other`'s upper end only: what every element of a list is
    /// where its greatest is in `other` (`max`, spec/cost.md §3.1).
    pub fn below_upper_of(&self, other: &Interval) -> Interval {
        self.intersect(&Interval::new(
            other.hi.clone(),
            self.lo.clone(),
            self.least,
            other.most,
        ))
    }

    /// Within `other`'s lower end only: what every element of a list is
    /// where its least is in `other` (`min`).
    pub fn above_lower_of(&self, other: &Interval) -> Interval {
        self.intersect(&Interval::new(
            self.hi.clone(),
            other.lo.clone(),
            other.least,
            self.most,
        ))
    }

    /// Both at once: a value in each (`x == y` holds).
    pub fn intersect(&self, other: &Interval) -> Interval {
        let (a, b) = (self.ends(), other.ends());
        Interval::with_ends(
            self.hi.tighter(&other.hi),
            self.lo.tighter(&other.lo),
            (a.0.max(b.0), a.1.min(b.1)),
        )
    }

    /// The range of the value once `value relation other` is known to hold
    /// (an `if` tested it): `v < o` puts `v` below `o`'s upper end, less
    /// one where that is a number, and so on.
    pub fn assume(&self, relation: Relation, other: &Interval) -> Interval {
        let (mine, theirs) = (self.ends(), other.ends());
        let below = |strict: bool| {
            let most = if strict {
                theirs.1.plus(End::At(-1))
            } else {
                theirs.1
            };
            Interval::with_ends(
                self.hi.tighter(&other.hi),
                self.lo.clone(),
                (mine.0, mine.1.min(most)),
            )
        };
        let above = |strict: bool| {
            let least = if strict {
                theirs.0.plus(End::At(1))
            } else {
                theirs.0
            };
            Interval::with_ends(
                self.hi.clone(),
                self.lo.tighter(&other.lo),
                (mine.0.max(least), mine.1),
            )
        };
        match relation {
            Relation::Below => below(true),
            Relation::AtMost => below(false),
            Relation::Above => above(true),
            Relation::AtLeast => above(false),
            Relation::Equal => self.intersect(other),
        }
    }

    /// The least of values in these ranges (`[a, b] |> min()`): below
    /// every one's upper end, and above the lowest lower end.
    pub fn least_of(values: &[Interval]) -> Option<Interval> {
        let (first, rest) = values.split_first()?;
        Some(rest.iter().fold(first.clone(), |acc, v| {
            let (a, b) = (acc.ends(), v.ends());
            Interval::with_ends(
                acc.hi.tighter(&v.hi),
                acc.lo.max(&v.lo),
                (a.0.min(b.0), a.1.min(b.1)),
            )
        }))
    }

    /// The greatest of values in these ranges (`[a, b] |> max()`): above
    /// every one's lower end, and below the highest upper end.
    pub fn greatest_of(values: &[Interval]) -> Option<Interval> {
        let (first, rest) = values.split_first()?;
        Some(rest.iter().fold(first.clone(), |acc, v| {
            let (a, b) = (acc.ends(), v.ends());
            Interval::with_ends(
                acc.hi.max(&v.hi),
                acc.lo.tighter(&v.lo),
                (a.0.max(b.0), a.1.max(b.1)),
            )
        }))
    }

    /// The same range, not below zero (a count).
    pub fn non_negative(&self) -> Interval {
        self.intersect(&Interval::up_to(self.hi.clone()))
    }

    /// Each polynomial end through `f` (a call's bindings substituted), the
    /// numeric ends kept: they hold whatever the variables are.
    pub fn map_polys(&self, f: &dyn Fn(&Poly) -> Poly) -> Interval {
        Interval::new(f(&self.hi), f(&self.lo), self.least, self.most)
    }

    /// Whether no value is at or below zero: `least ≥ 1`.
    pub fn positive(&self) -> bool {
        self.least.is_some_and(|least| least >= 1)
    }

    /// Whether no value is below zero.
    pub fn never_negative(&self) -> bool {
        self.lo.is_zero()
    }

    /// The one value, when the range holds one.
    pub fn constant(&self) -> Option<i64> {
        self.least.filter(|least| Some(*least) == self.most)
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

    /// Whether `self ⊆ other` is provable: each polynomial end within
    /// `other`'s, and each numeric end `other` has within it.
    pub fn within(&self, other: &Interval) -> bool {
        self.hi.le(&other.hi) && self.lo.le(&other.lo) && other.passed_ends(self) == (None, None)
    }

    /// The numeric ends of `self` that a value in `value` may pass: the
    /// lower end when `value` is not provably at least it, the upper when
    /// not provably at most it (a declared parameter's ends, the ends a
    /// function was costed for).
    pub fn passed_ends(&self, value: &Interval) -> (Option<i64>, Option<i64>) {
        (
            self.least
                .filter(|least| value.least.is_none_or(|l| l < *least)),
            self.most
                .filter(|most| value.most.is_none_or(|m| m > *most)),
        )
    }

    /// Why the upper end has no maximum, as a sentence (`None` when it has one).
    pub fn why_unbounded(&self) -> Option<String> {
        let names = self.hi.unbounded_params();
        if names.is_empty() {
            return None;
        }
        // A name is code, shown as such; a description of a value no name
        // holds (`a value the returned function is given`) is prose.
        let shown = |name: &str| match name.contains(' ') {
            true => name.to_string(),
            false => format!("`{name}`"),
        };
        let reasons: Vec<String> = names
            .iter()
            .map(|name| match name.strip_prefix('-') {
                Some(value) => format!("{} may be any negative number", shown(value)),
                None => format!("{} has no upper bound", shown(name)),
            })
            .collect();
        Some(reasons.join(", and "))
    }
}

#[cfg(test)]
#[path = "interval_tests.rs"]
mod tests;
