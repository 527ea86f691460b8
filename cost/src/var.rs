//! Size variables, interned: a [`Var`] is a pointer to its one shared [`VarKind`].
//!
//! Every formula of every typed node holds variables, and the checker
//! copies, compares and sorts them all the time; interned, a copy is a
//! pointer copy, equality and hashing compare addresses, and only the
//! order (which fixes how formulas print) looks at the contents. The
//! interner is process-wide and `Sync`, so definitions may be checked on
//! several threads. It never frees: a variable is made of names in the
//! program (tables, parameters, measure positions), so what it keeps is
//! bounded by the vocabulary of the programs the process has seen.

use serde::Serialize;
use std::collections::HashSet;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Mutex, OnceLock};

/// What a quantity a bound may depend on stands for.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum VarKind {
    /// `N(T)`: the size of a large table; unbounded.
    Table(String),
    /// The positive part `max(0, n)` of an entry point's parameter,
    /// bounded by its declaration (`n: Int <= 100`), or a quantity nothing
    /// bounds (`max: None`): a parameter without a bound, the negative part
    /// of any parameter, a column's value. The name says which, for
    /// messages (`n`, `-n`, `Cfg.lim`).
    Param {
        /// The parameter (or value) it is the part of.
        name: String,
        /// Its declared maximum.
        max: Option<u64>,
    },
    /// Rows sharing one value of a bounded prefix (`bound follower <= 5000`).
    Fanout {
        /// The table holding the rows.
        table: String,
        /// The prefix the bound is declared on.
        columns: Vec<String>,
        /// The declared bound.
        max: u64,
    },
    /// The rows of a `small table … max N`.
    Small {
        /// The table.
        table: String,
        /// Its declared maximum.
        max: u64,
    },
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
    /// A measure of a parameter of a function that a function returns
    /// (`fn adder(a: Int) -> Int -> Int = x => x + a`: the upper end of
    /// `x`): unknown, so unbounded, while the body is checked, and replaced
    /// by the argument's measure wherever the returned function is applied
    /// (`compiler/src/check/returned.rs`). `instance` tells apart the
    /// functions one definition's calls return, so a measure can only ever
    /// be replaced by the application of the function it belongs to.
    Own {
        /// The position, for messages (`adder(…)'s argument`).
        label: String,
        /// Which returned function: 0 in the definition that returns it,
        /// a fresh number at each call of it.
        instance: u64,
        /// The most its declaration allows (`-> [Int; <= 10] -> Int`: the
        /// list's length): the body may rely on it, and each application
        /// is held to it (`compiler/src/check/measures.rs`, `fit_poly`).
        most: Option<u64>,
    },
    /// The least of two or more upper ends that a function's callers fix
    /// (`min(x, k)` in a branch that knows `x ≤ k`, neither known before
    /// the call): at each call it becomes the least of what the
    /// arguments give (`least.rs`). Sorted, each once.
    Least(Parts),
    /// The greatest of two or more upper ends that calls fix, none of
    /// them known before the call (`max(|xs|, |ys|)`, the length of `if c
    /// { xs } else { ys }` for two list parameters): at each call it
    /// becomes the greatest of what the arguments give (`most.rs`), where
    /// their coefficient-wise maximum was their sum. Sorted, each once.
    Most(Parts),
}

/// The parts of a [`VarKind::Least`] or [`VarKind::Most`], sorted by
/// their terms.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Parts(pub Vec<crate::Poly>);

impl Ord for Parts {
    fn cmp(&self, other: &Parts) -> std::cmp::Ordering {
        let mut by_terms = self.0.iter().zip(&other.0).map(|(a, b)| a.order(b));
        by_terms
            .find(|o| o.is_ne())
            .unwrap_or_else(|| self.0.len().cmp(&other.0.len()))
    }
}

impl PartialOrd for Parts {
    fn partial_cmp(&self, other: &Parts) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A quantity a bound may depend on (see [`VarKind`]), interned.
#[derive(Clone, Copy)]
pub struct Var(&'static VarKind);

/// The interner's hash: the multiply-rotate hash of rustc (FxHash). Its
/// keys are short names the program chose, so a keyed hash against
/// flooding buys nothing, and SipHash cost more than the rest of interning.
#[derive(Default)]
pub struct NameHasher(u64);

/// Maps keyed by names the program chose hash with [`NameHasher`].
pub type NameHash = BuildHasherDefault<NameHasher>;

impl Hasher for NameHasher {
    /// Eight bytes at a time, little-endian, the last word padded with
    /// zeros: built byte by byte, since a copy of a few bytes into a
    /// padded word is a call to `memcpy` (names are short).
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let word: [u8; 8] = word.try_into().expect("chunks_exact gives eight bytes");
            self.write_u64(u64::from_le_bytes(word));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let word = rest
                .iter()
                .enumerate()
                .fold(0u64, |word, (i, byte)| word | u64::from(*byte) << (8 * i));
            self.write_u64(word);
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_u8(&mut self, byte: u8) {
        self.write_u64(u64::from(byte));
    }

    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type Interned = HashSet<&'static VarKind, NameHash>;

fn interner() -> &'static Mutex<Interned> {
    static INTERNER: OnceLock<Mutex<Interned>> = OnceLock::new();
    INTERNER.get_or_init(Default::default)
}

impl Var {
    /// The one variable of `kind`.
    pub fn new(kind: VarKind) -> Var {
        // A panic while the lock is held cannot leave the set half-updated
        // (an insert is one step), so a poisoned lock is still sound.
        let mut set = interner()
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(&existing) = set.get(&kind) {
            return Var(existing);
        }
        let leaked: &'static VarKind = Box::leak(Box::new(kind));
        set.insert(leaked);
        Var(leaked)
    }

    /// `N(table)`.
    pub fn table(table: &str) -> Var {
        Var::new(VarKind::Table(table.to_string()))
    }

    /// A parameter's part, at most `max` (`None`: unbounded).
    pub fn param(name: &str, max: Option<u64>) -> Var {
        Var::new(VarKind::Param {
            name: name.to_string(),
            max,
        })
    }

    /// What it stands for.
    pub fn kind(&self) -> &'static VarKind {
        self.0
    }

    /// The largest value the variable can take, `None` when unbounded or
    /// only known at a call site.
    pub fn max(&self) -> Option<u64> {
        match self.0 {
            VarKind::Param { max, .. } => *max,
            VarKind::Fanout { max, .. } | VarKind::Small { max, .. } => Some(*max),
            VarKind::Own { most, .. } => *most,
            VarKind::Table(_) | VarKind::Generic(_) | VarKind::Req(_) => None,
            VarKind::Least(parts) => parts.0.iter().filter_map(|p| p.max_value()).min(),
            VarKind::Most(parts) => parts
                .0
                .iter()
                .map(|p| p.max_value())
                .collect::<Option<Vec<u64>>>()?
                .into_iter()
                .max(),
        }
    }
}

impl PartialEq for Var {
    fn eq(&self, other: &Var) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Var {}

impl std::hash::Hash for Var {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::ptr::hash(self.0, state)
    }
}

/// By contents, as before interning: the order sorts a formula's terms,
/// and so how it prints.
impl Ord for Var {
    fn cmp(&self, other: &Var) -> std::cmp::Ordering {
        if self == other {
            std::cmp::Ordering::Equal
        } else {
            self.0.cmp(other.0)
        }
    }
}

impl PartialOrd for Var {
    fn partial_cmp(&self, other: &Var) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Serialize for Var {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            VarKind::Table(table) => write!(f, "N({table})"),
            VarKind::Param { name, .. } => write!(f, "{name}"),
            // Declared bounds print as their numbers: the formula reads as
            // the design states it (`1 + 5000`), the variable stays apart.
            VarKind::Fanout { max, .. } | VarKind::Small { max, .. } => write!(f, "{max}"),
            VarKind::Generic(name) | VarKind::Req(name) => write!(f, "{name}"),
            VarKind::Own { label, .. } => write!(f, "{label}"),
            VarKind::Least(parts) => {
                let parts: Vec<String> = parts.0.iter().map(|p| p.to_string()).collect();
                write!(f, "min({})", parts.join(", "))
            }
            VarKind::Most(parts) => {
                let parts: Vec<String> = parts.0.iter().map(|p| p.to_string()).collect();
                write!(f, "max({})", parts.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_kinds_are_one_variable_and_order_by_contents() {
        let a = Var::param("b", Some(3));
        let b = Var::param("b", Some(3));
        assert!(std::ptr::eq(a.kind(), b.kind()));
        assert_eq!(a, b);
        assert_ne!(a, Var::param("b", Some(4)));
        assert!(Var::param("a", None) < Var::param("b", None));
        assert!(
            Var::table("Z") < Var::param("a", None),
            "variants order first"
        );
    }
}
