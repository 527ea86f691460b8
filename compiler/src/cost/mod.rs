//! The cost calculus: (seeks, rows, round trips) as polynomials over non-negative size variables.
//!
//! A polynomial is kept in normal form: a sum of monomials with positive
//! integer coefficients, each monomial a sorted product of variables with
//! exponents. Every variable stands for a non-negative quantity (a signed
//! value enters only through its positive or its negative part), so adding
//! terms never lowers a bound, the coefficient-wise maximum of two
//! polynomials bounds both, and `p ≤ q` holds whenever each coefficient of
//! `p` is at most the matching one of `q`. Knows nothing of the AST.

mod poly;

pub use poly::{Monomial, Poly};

use serde::Serialize;
use std::fmt;

/// A quantity a bound may depend on.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Var {
    /// `N(T)`: the size of a large table; unbounded.
    Table(String),
    /// The positive part `max(0, n)` of an entry point's parameter,
    /// bounded by its declaration (`n: Int <= 100`), or a quantity nothing
    /// bounds (`max: None`): a parameter without a bound, the negative part
    /// of any parameter, a column's value. The name says which, for
    /// messages (`n`, `-n`, `Cfg.lim`).
    Param { name: String, max: Option<u64> },
    /// Rows sharing one value of a bounded prefix (`bound follower <= 5000`).
    Fanout {
        table: String,
        columns: Vec<String>,
        max: u64,
    },
    /// The rows of a `small table … max N`.
    Small { table: String, max: u64 },
    /// A measure of a function's parameter, fixed at each call by the
    /// argument's: a list's length `|xs|`, an `Int`'s upper end `n` or
    /// negative part `lo(n)`, one call's cost `seeks(f)`, `rows(f)`,
    /// `trips(f)`, and
    /// the same inside records, lists, options and results. The name is
    /// the measure's position, unique within the signature.
    Generic(String),
    /// A measure a function-typed parameter must admit at its own
    /// parameters (the length of the list `f` is applied to): fixed once
    /// the body is checked, to the largest of its uses there.
    Req(String),
}

impl Var {
    /// The largest value the variable can take, `None` when unbounded or
    /// only known at a call site.
    pub fn max(&self) -> Option<u64> {
        match self {
            Var::Param { max, .. } => *max,
            Var::Fanout { max, .. } | Var::Small { max, .. } => Some(*max),
            Var::Table(_) | Var::Generic(_) | Var::Req(_) => None,
        }
    }
}

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Var::Table(table) => write!(f, "N({table})"),
            Var::Param { name, .. } => write!(f, "{name}"),
            // Declared bounds print as their numbers: the formula reads as
            // the design states it (`1 + 5000`), the variable stays apart.
            Var::Fanout { max, .. } | Var::Small { max, .. } => write!(f, "{max}"),
            Var::Generic(name) | Var::Req(name) => write!(f, "{name}"),
        }
    }
}

/// The largest bound a run may be proved to keep: a formula whose maximum
/// is above it (or whose arithmetic overflows on the way) is no proof, and
/// the definition is rejected (E0308). spec/cost.md names it.
pub const CEILING: u64 = 1 << 32;

/// What an expression may cost: B-tree descents, entries read, and round
/// trips (calls on the store's transaction, spec/cost.md "Round trips").
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Cost {
    pub seeks: Poly,
    pub rows: Poly,
    pub trips: Poly,
}

impl Cost {
    pub fn zero() -> Cost {
        Cost::default()
    }

    pub fn new(seeks: Poly, rows: Poly, trips: Poly) -> Cost {
        Cost { seeks, rows, trips }
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
        Cost::new(f(&self.seeks), f(&self.rows), f(&self.trips))
    }

    /// The three measures, named as messages name them.
    pub fn measures(&self) -> [(&'static str, &Poly); 3] {
        [
            ("seeks", &self.seeks),
            ("rows", &self.rows),
            ("round trips", &self.trips),
        ]
    }

    pub fn plus(&self, other: &Cost) -> Cost {
        Cost::new(
            self.seeks.plus(&other.seeks),
            self.rows.plus(&other.rows),
            self.trips.plus(&other.trips),
        )
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
    }

    /// An upper bound of both.
    pub fn max(&self, other: &Cost) -> Cost {
        Cost::new(
            self.seeks.max(&other.seeks),
            self.rows.max(&other.rows),
            self.trips.max(&other.trips),
        )
    }

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
