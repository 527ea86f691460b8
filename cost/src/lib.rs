//! The cost calculus: (seeks, rows, round trips, steps) as polynomials over non-negative size variables, and the value intervals of `Int`s.
//!
//! A crate of its own, shared by the checker (`rqc-compiler`), which proves
//! each definition's bound with it, and the runtime (`rqc-runtime`), whose
//! plan verifier recomputes an installed plan's bounds with the same code:
//! two copies of the rules could disagree, and a verifier that accepts what
//! the checker would not is a hole. It is not part of `rqc-plan`, which is
//! the plain data a plan file holds: the calculus is logic over that data,
//! and a plan carries only numbers.
//!
//! A polynomial ([`Poly`]) is kept in normal form: a sum of monomials with
//! positive integer coefficients, each monomial a sorted product of
//! variables ([`Var`]) with exponents. Every variable stands for a
//! non-negative quantity (a signed value enters only through its positive
//! or its negative part), so adding terms never lowers a bound, the
//! coefficient-wise maximum of two polynomials bounds both ([`Poly::max`]),
//! and `p ≤ q` holds whenever each coefficient of `p` is at most the
//! matching one of `q` ([`Poly::le`]). [`Poly::max_value`] evaluates a
//! formula with every variable at its maximum; `Display` prints it as
//! messages and `rqc check` show it (`1 + 10·5000`). [`Cost`] is the four
//! measures together (the steps, values visited in memory, never printed), [`class`] its complexity class, [`CEILING`] the
//! largest bound a proof may give. [`Interval`] is the range of an
//! integer value, with the interval arithmetic the checker applies to
//! `+`, `-`, `*`, `/`, `%`, and joins; [`assume`] what an `if`'s condition
//! proves of the names it compares ([`Condition`]). Knows nothing of the AST
//! or of plans.

#![warn(missing_docs)]

mod across_runs;
mod bool_conditions;
mod condition_size;
mod ends;
mod established;
mod extremes;
mod frames;
mod interval;
mod least;
mod most;
mod names;
mod narrowing;
mod poly;
mod sides;
mod sum_facts;
mod var;

pub use across_runs::{element_said_apart, facts_around, said_where_applied};
pub use condition_size::{Reading, MAX_KEPT_CONDITION, MAX_READ_CONDITION};
pub use extremes::Extremes;
pub use frames::Frames;
pub use interval::{Interval, Relation};
pub use names::{path_below, Name, EACH_ELEMENT};
pub use narrowing::{
    assume, assume_within, Condition, Fact, Hidden, Optional, ENCLOSING_FACTS_READ,
};
pub use poly::{Monomial, Poly};
pub use sides::{
    compared, scaled, sum_leaves, Side, SideSum, SumLeaf, SumShape, Term, MAX_DEFINITIONS_READ,
    MAX_TERMS,
};
pub use sum_facts::{infeasible, sum_now, sum_within, SumNames};
pub use var::{NameHash, Var, VarKind};

use serde::Serialize;

/// The largest bound a run may be proved to keep: a formula whose maximum
/// is above it (or whose arithmetic overflows on the way) is no proof, and
/// the definition is rejected (E0308). spec/cost.md names it.
pub const CEILING: u64 = 1 << 32;

/// What an expression may cost: B-tree descents, entries read, and round
/// trips (calls on the store's transaction, spec/cost.md "Round trips").
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Cost {
    /// B-tree descents (each `O(log N)`).
    pub seeks: Poly,
    /// Entries read (keys or rows), each `O(1)` once the descent is made.
    pub rows: Poly,
    /// Calls on the store's transaction.
    pub trips: Poly,
    /// Values the run visits in memory: each element a list combinator
    /// goes through, each part of a value it compares or flattens
    /// (spec/cost.md §2, "Steps"). Not printed; held to a limit by the
    /// checker, since a list the program builds (by doubling) may be long
    /// while reading nothing.
    #[serde(skip)]
    pub steps: Poly,
}

impl Cost {
    /// Nothing: no seek, row, round trip or step.
    pub fn zero() -> Cost {
        Cost::default()
    }

    /// Seeks, rows and round trips; no steps.
    pub fn new(seeks: Poly, rows: Poly, trips: Poly) -> Cost {
        Cost {
            seeks,
            rows,
            trips,
            steps: Poly::zero(),
        }
    }

    /// `steps` values visited in memory, and nothing else.
    pub fn steps(steps: Poly) -> Cost {
        Cost {
            steps,
            ..Cost::default()
        }
    }

    /// Adds `steps` constant steps, in place (the checker adds one per
    /// expression: no other measure is copied).
    pub fn add_steps(&mut self, steps: u64) {
        self.steps = self.steps.plus(&Poly::constant(steps));
    }

    /// This cost with `steps` as its steps.
    pub fn with_steps(mut self, steps: Poly) -> Cost {
        self.steps = steps;
        self
    }

    /// `s` seeks, `r` rows and `t` round trips.
    pub fn constant(seeks: u64, rows: u64, trips: u64) -> Cost {
        Cost::new(
            Poly::constant(seeks),
            Poly::constant(rows),
            Poly::constant(trips),
        )
    }

    /// Each measure through `f`.
    pub fn map(&self, f: impl Fn(&Poly) -> Poly) -> Cost {
        Cost::new(f(&self.seeks), f(&self.rows), f(&self.trips)).with_steps(f(&self.steps))
    }

    /// The four measures, named as messages name them (the steps last:
    /// they are the one measure never printed).
    pub fn measures(&self) -> [(&'static str, &Poly); 4] {
        [
            ("seeks", &self.seeks),
            ("rows", &self.rows),
            ("round trips", &self.trips),
            ("steps", &self.steps),
        ]
    }

    /// Both, one after the other: each measure summed.
    pub fn plus(&self, other: &Cost) -> Cost {
        Cost::new(
            self.seeks.plus(&other.seeks),
            self.rows.plus(&other.rows),
            self.trips.plus(&other.trips),
        )
        .with_steps(self.steps.plus(&other.steps))
    }

    /// The cost repeated `times` times.
    pub fn times(&self, times: &Poly) -> Cost {
        self.map(|p| p.times(times))
    }

    /// The cost of `times` applications evaluated as one batch (spec/cost.md,
    /// Lemma 5): seeks and rows repeat, the round trips of one application
    /// are paid once.
    pub fn batched(&self, times: &Poly) -> Cost {
        Cost::new(
            self.seeks.times(times),
            self.rows.times(times),
            self.trips.clone(),
        )
        .with_steps(self.steps.times(times))
    }

    /// An upper bound of both.
    pub fn max(&self, other: &Cost) -> Cost {
        Cost::new(
            self.seeks.max(&other.seeks),
            self.rows.max(&other.rows),
            self.trips.max(&other.trips),
        )
        .with_steps(self.steps.max(&other.steps))
    }

    /// Each measure with `var` replaced by `value` (a generic measure fixed at a call).
    pub fn substitute(&self, var: &Var, value: &Poly) -> Cost {
        self.map(|p| p.substitute(var, value))
    }

    /// The large tables the cost grows with.
    pub fn unbounded_tables(&self) -> Vec<String> {
        let mut tables = self.seeks.tables();
        for table in self.rows.tables().into_iter().chain(self.trips.tables()) {
            if !tables.contains(&table) {
                tables.push(table);
            }
        }
        tables
    }
}

/// The complexity class of an accepted bound: constant numbers of seeks,
/// each `O(log N)`, and of rows, each `O(1)` (round trips are fewer than
/// seeks plus a commit, and do not change the class).
pub fn class(cost: &Cost) -> &'static str {
    if !cost.unbounded_tables().is_empty() {
        "O(N)"
    } else if cost.seeks.is_zero() {
        "O(1)"
    } else {
        "O(log N)"
    }
}

/// The most values one walked value may hold (a comparison's operands, a
/// flattened list, …) when it holds no rows (E0423 in the checker).
pub const MAX_VALUE_PARTS: u64 = 1 << 20;

/// How many walks of the largest value a definition may make: its steps
/// are held to [`steps_room`] (spec/cost.md §2, "Steps").
pub const MAX_WALKS: u64 = 16;

/// The most steps a query or mutation that may read `rows` rows may take:
/// [`MAX_WALKS`] times the largest value it may walk, [`MAX_VALUE_PARTS`]
/// or `(rows + 1)²` (rows compared pairwise). The checker refuses past it
/// (E0426), and so does the plan verifier (E0634).
pub fn steps_room(rows: u64) -> u64 {
    let room = rows.saturating_add(1);
    room.saturating_mul(room)
        .max(MAX_VALUE_PARTS)
        .saturating_mul(MAX_WALKS)
}

/// The steps of a sort of at most `size` elements: `⌈log2 k⌉` comparisons
/// per element for the most elements `k` (at least one), or 32 per
/// element where the length is not a number yet (a function's measure).
pub fn sort_steps(size: &Poly) -> Poly {
    let per_element = match size.max_value() {
        Some(most) => u64::from(64 - most.saturating_sub(1).leading_zeros()).max(1),
        None => 32,
    };
    size.times(&Poly::constant(per_element))
}

/// The most bytes a string may hold: a join past it is refused at run time
/// (E0539).
pub const MAX_STRING_BYTES: u64 = 1 << 24;

/// How many bytes of a string one step stands for where a string is
/// joined or compared whole.
pub const STRING_STEP_BYTES: u64 = 4096;

/// The steps of joining or comparing a string of at most `bytes` bytes
/// (`None`: any length, up to [`MAX_STRING_BYTES`]): one per
/// [`STRING_STEP_BYTES`], at least one. A string's length is unbounded in
/// most types (a column without `<= n`), so the cap keeps ordinary
/// programs within their room while a join of 16 MiB strings at each of
/// 2^20 elements is not.
pub fn string_steps(bytes: Option<u64>) -> u64 {
    bytes
        .unwrap_or(MAX_STRING_BYTES)
        .min(MAX_STRING_BYTES)
        .div_ceil(STRING_STEP_BYTES)
        .max(1)
}

/// The most bytes of UTF-8 one character takes.
pub const MAX_UTF8_BYTES: u64 = 4;

/// How many times longer a case mapping (`lower`, `upper`) may make a
/// string, in characters and in UTF-8 bytes alike: Unicode maps one
/// character to at most three (`ΐ`, 2 bytes, to `Ϊ́`, 6), never to
/// more bytes than three times its own. The checker and the plan verifier
/// bound a case mapping's result by it; the runtime maps with Rust's
/// `to_lowercase`/`to_uppercase`, and `runtime/src/arithmetic.rs`'s test
/// checks every character against it.
pub const CASE_MAPPING_GROWTH: u64 = 3;

/// A string's byte bound `bytes` where its length (in characters) is known
/// to lie in `length` (an `if` compared it, spec/cost.md §3.1): at most
/// [`MAX_UTF8_BYTES`] per character. The checker and the plan verifier
/// narrow a string with this.
pub fn bytes_within_length(bytes: &Poly, length: &Interval) -> Poly {
    bytes.tighter(&length.hi.times(&Poly::constant(MAX_UTF8_BYTES)))
}
