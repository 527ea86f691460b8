//! The built-in combinators as the language spells them, written once: the checker resolves a call's name to one, the planner lowers it to the runtime's [`Combinator`], and completion offers the same list.

use crate::plan::Combinator;
use std::fmt;

/// A built-in combinator (`xs |> map(f)`), by what it does, not by its
/// name: a call's name is resolved to one once ([`Builtin::named`]), and
/// every pass after matches on this, never on text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    Take,
    Skip,
    First,
    Exists,
    Map,
    Filter,
    FlatMap,
    Flatten,
    SortBy,
    GroupBy,
    Distinct,
    Count,
    Sum,
    /// `sum` of `Float`s (the checker's choice, not a name: `sum`).
    SumFloat,
    Avg,
    Min,
    Max,
    Any,
    All,
    UnwrapOr,
    Reverse,
}

impl Builtin {
    /// Every built-in combinator, in the order completion offers them.
    pub const ALL: [Builtin; 20] = [
        Builtin::Take,
        Builtin::Skip,
        Builtin::First,
        Builtin::Exists,
        Builtin::Map,
        Builtin::Filter,
        Builtin::FlatMap,
        Builtin::Flatten,
        Builtin::SortBy,
        Builtin::GroupBy,
        Builtin::Distinct,
        Builtin::Count,
        Builtin::Sum,
        Builtin::Avg,
        Builtin::Min,
        Builtin::Max,
        Builtin::Any,
        Builtin::All,
        Builtin::UnwrapOr,
        Builtin::Reverse,
    ];

    /// The name a program calls it by.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Take => "take",
            Builtin::Skip => "skip",
            Builtin::First => "first",
            Builtin::Exists => "exists",
            Builtin::Map => "map",
            Builtin::Filter => "filter",
            Builtin::FlatMap => "flat_map",
            Builtin::Flatten => "flatten",
            Builtin::SortBy => "sort_by",
            Builtin::GroupBy => "group_by",
            Builtin::Distinct => "distinct",
            Builtin::Count => "count",
            Builtin::Sum | Builtin::SumFloat => "sum",
            Builtin::Avg => "avg",
            Builtin::Min => "min",
            Builtin::Max => "max",
            Builtin::Any => "any",
            Builtin::All => "all",
            Builtin::UnwrapOr => "unwrap_or",
            Builtin::Reverse => "reverse",
        }
    }

    /// The built-in a call's name stands for, if any.
    pub fn named(name: &str) -> Option<Builtin> {
        Builtin::ALL.into_iter().find(|b| b.name() == name)
    }

    /// The built-in a runtime operator is (`sort_by` for either direction),
    /// as a program writes it.
    pub fn of(combinator: Combinator) -> Option<Builtin> {
        let kind = std::mem::discriminant(&combinator);
        Builtin::ALL
            .into_iter()
            .find(|b| std::mem::discriminant(&b.combinator(false)) == kind)
    }

    /// The runtime's operator for it; a sort takes its direction, which
    /// the call writes apart (`sort_by(f, desc)`).
    pub fn combinator(self, descending: bool) -> Combinator {
        match self {
            Builtin::Take => Combinator::Take,
            Builtin::Skip => Combinator::Skip,
            Builtin::First => Combinator::First,
            Builtin::Exists => Combinator::Exists,
            Builtin::Map => Combinator::Map,
            Builtin::Filter => Combinator::Filter,
            Builtin::FlatMap => Combinator::FlatMap,
            Builtin::Flatten => Combinator::Flatten,
            Builtin::SortBy => Combinator::SortBy { descending },
            Builtin::GroupBy => Combinator::GroupBy,
            Builtin::Distinct => Combinator::Distinct,
            Builtin::Count => Combinator::Count,
            Builtin::Sum => Combinator::Sum,
            Builtin::SumFloat => Combinator::SumFloat,
            Builtin::Avg => Combinator::Avg,
            Builtin::Min => Combinator::Min,
            Builtin::Max => Combinator::Max,
            Builtin::Any => Combinator::Any,
            Builtin::All => Combinator::All,
            Builtin::UnwrapOr => Combinator::UnwrapOr,
            Builtin::Reverse => Combinator::Reverse,
        }
    }

    /// How many arguments a call takes, the input (the first) counted.
    pub fn arity(self) -> (usize, usize) {
        match self {
            Builtin::Take
            | Builtin::Skip
            | Builtin::Filter
            | Builtin::FlatMap
            | Builtin::GroupBy
            | Builtin::Any
            | Builtin::All
            | Builtin::UnwrapOr
            | Builtin::Map => (2, 2),
            Builtin::SortBy => (2, 3),
            Builtin::Sum | Builtin::SumFloat | Builtin::Avg | Builtin::Min | Builtin::Max => (1, 2),
            Builtin::First
            | Builtin::Exists
            | Builtin::Flatten
            | Builtin::Distinct
            | Builtin::Count
            | Builtin::Reverse => (1, 1),
        }
    }
}

/// As a program writes it.
impl fmt::Display for Builtin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_go_both_ways_and_operators_are_one_each() {
        for builtin in Builtin::ALL {
            assert_eq!(Builtin::named(builtin.name()), Some(builtin));
        }
        // No two built-ins run as one operator.
        let operators: Vec<_> = Builtin::ALL.iter().map(|b| b.combinator(false)).collect();
        for (i, a) in operators.iter().enumerate() {
            assert!(!operators[i + 1..].contains(a), "{a:?} twice");
        }
        assert_eq!(
            Builtin::SortBy.combinator(true),
            Combinator::SortBy { descending: true }
        );
        let names: std::collections::HashSet<_> = Builtin::ALL.iter().map(|b| b.name()).collect();
        assert_eq!(
            names.len(),
            Builtin::ALL.len(),
            "two built-ins share a name"
        );
        assert_eq!(
            Builtin::named("Map"),
            None,
            "names are as a program writes them"
        );
        assert_eq!(
            Builtin::named("length"),
            None,
            "a function, not a combinator"
        );
    }
}
