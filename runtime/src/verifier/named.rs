//! What a side of a comparison in the bound pass reads: an entry parameter, a binding, or a part of either (a column, a field, a length, a list's greatest or least, each element's part), as the checker names values (`compiler/src/check/narrowing.rs`; spec/cost.md §3.1).

use super::abstract_value::{Abs, Kind};
use super::narrowing::plain_int;
use super::scope::{find, Scope};
use rqc_cost::Interval;
use rqc_plan::{Combinator, Node, Op, UnOp};

/// What a side of a comparison reads: an entry parameter (by position), or
/// a name and the identity of its binding, or a field of either however
/// deep (`q.at`: a binding's value never changes, so neither do its
/// fields).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Named<'p> {
    pub(super) root: Root<'p>,
    pub(super) path: Vec<Step<'p>>,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Root<'p> {
    Param(usize),
    Binding(&'p str, u64),
}

/// A field read on the way from the root to the compared value: a row's
/// column by position, a record's field by name (as `columns.rs` reads
/// them).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Step<'p> {
    Column(usize),
    Field(&'p str),
    /// The string's length (`length(s)`): always the last step.
    Length,
    /// A list's greatest (`true`) or least element with its default,
    /// `unwrap_or(max(xs), d)` (part of the value: of an empty list, two
    /// defaults are two values): the only step, from a binding or a
    /// parameter (`elements.rs`).
    Extreme(bool, Default),
    /// Each element of a list (or an `Int?`'s one): what `all` proved of
    /// a part of its element (`all(ps, p => p.at <= 10)` of `ps`'s
    /// elements' `at`, [`rqc_cost::Name`]); never read from the plan.
    Each,
}

/// A part of the element `all` tests is that part of each of its list's
/// elements (as the checker's dotted `ps.[].at`).
impl<'p> rqc_cost::Name for Named<'p> {
    fn in_each(&self, element: &Self, list: &Self) -> Option<Self> {
        if self.root != element.root || self.path.len() <= element.path.len() {
            return None;
        }
        let below = self.path.strip_prefix(element.path.as_slice())?;
        let mut path = list.path.clone();
        path.push(Step::Each);
        path.extend(below.iter().cloned());
        Some(Named {
            root: list.root.clone(),
            path,
        })
    }
}

/// The default of a list's greatest or least element: an integer literal,
/// or else a key new at each reading, which no other reading finds (as
/// the checker's `extreme_argument`): a fact of it narrows the list's
/// elements, never the value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Default {
    Literal(i64),
    Unnamed(u64),
}

impl Default {
    fn of(node: &Node) -> Default {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        match super::sums::literal(node) {
            Some(literal) => Default::Literal(literal),
            None => Default::Unnamed(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)),
        }
    }
}

impl<'p> Named<'p> {
    /// What `operand` reads, evaluated in `scope`: a parameter, a name,
    /// or a field of one.
    pub(super) fn of(operand: &'p Node, scope: &Scope<'p>) -> Option<Named<'p>> {
        let (base, step) = match &operand.op {
            Op::Param(i) => return Some(Named::root(Root::Param(*i))),
            Op::Var(name) => {
                let binding = find(scope, name)?;
                return Some(Named::root(Root::Binding(binding.name, binding.id)));
            }
            Op::Column(base, column) => (base, Step::Column(column.position)),
            Op::Field(base, field) => (base, Step::Field(field)),
            Op::Unary(UnOp::Length, base) => (base, Step::Length),
            Op::Combinator(Combinator::UnwrapOr, _, args) => {
                let [extreme, default] = args.as_slice() else {
                    return None;
                };
                let default = Default::of(default);
                // Of a list, or of an `Int?` (a list of at most one), as
                // the checker's `extreme_argument`; an `Int?` given by
                // name is its own greatest (`unwrap_or(o, d)`).
                let (greatest, list) = match &extreme.op {
                    Op::Combinator(Combinator::Max, _, inner) => (true, inner.as_slice()),
                    Op::Combinator(Combinator::Min, _, inner) => (false, inner.as_slice()),
                    Op::Var(_) | Op::Param(_) => (true, std::slice::from_ref(extreme)),
                    _ => return None,
                };
                let [list] = list else {
                    return None;
                };
                let named = Named::of(list, scope).filter(|n| n.path.is_empty())?;
                return Some(Named {
                    path: vec![Step::Extreme(greatest, default)],
                    ..named
                });
            }
            _ => return None,
        };
        let mut named = Named::of(base, scope)?;
        named.path.push(step);
        Some(named)
    }

    /// This value's part that `part` reads of `root` (`r2.f` of `r2`, a
    /// chain of columns and fields down to `root`): the same part of what
    /// this names.
    pub(super) fn with_parts_of(mut self, part: &'p Node, root: &'p Node) -> Option<Named<'p>> {
        let mut steps = Vec::new();
        let mut at = part;
        while !std::ptr::eq(at, root) {
            let (base, step) = match &at.op {
                Op::Column(base, column) => (base, Step::Column(column.position)),
                Op::Field(base, field) => (base, Step::Field(field)),
                _ => return None,
            };
            steps.push(step);
            at = base;
        }
        self.path.extend(steps.into_iter().rev());
        Some(self)
    }

    /// The value this names, in `scope` with `params`: its root's value
    /// walked along the path (a row's column, a record's field, a
    /// string's length), when that is a plain `Int`.
    pub(super) fn range(&self, scope: &Scope<'p>, params: &[Abs<'p>]) -> Option<Interval> {
        plain_int(&self.value(scope, params)?)
    }

    /// [`Named::range`], or where it names an `Int?`, its number's range:
    /// what a sum narrowed by a comparison of numbers reads of a term of
    /// the comparison (`rqc_cost::sum_within`'s `range`, as the checker's
    /// `range_now`), where an option stood at or above the other side,
    /// holding a number.
    pub(super) fn number_range(&self, scope: &Scope<'p>, params: &[Abs<'p>]) -> Option<Interval> {
        match self.value(scope, params)? {
            Abs::Opt(number) => plain_int(&number),
            value => plain_int(&value),
        }
    }

    /// Whether this names a plain `Bool` (a column or field tested as a
    /// condition: `Condition::flag`).
    pub(super) fn holds_a_bool(&self, scope: &Scope<'p>, params: &[Abs<'p>]) -> bool {
        matches!(self.value(scope, params), Some(Abs::Scalar(s)) if s.kind == Kind::Bool)
    }

    /// The value this names, in `scope` with `params`: its root's value
    /// walked along the path (a row's column, a record's field, a
    /// string's length).
    fn value(&self, scope: &Scope<'p>, params: &[Abs<'p>]) -> Option<Abs<'p>> {
        let mut value = match self.root {
            Root::Param(i) => params.get(i)?.clone(),
            Root::Binding(name, id) => {
                let binding = find(scope, name).filter(|b| b.id == id)?;
                binding.value.clone()
            }
        };
        for step in &self.path {
            value = match (step, &value) {
                (Step::Length, Abs::Scalar(string)) if string.kind == Kind::Str => {
                    Abs::int(string.length())
                }
                (Step::Column(at), Abs::Record(record)) => record.fields.get(*at)?.1.clone(),
                (Step::Field(name), Abs::Record(record)) => {
                    record.fields.iter().find(|(n, _)| n == name)?.1.clone()
                }
                // Read only as a side of its own, whose range is the
                // side's (as the checker's `add_leaves`).
                _ => return None,
            };
        }
        Some(value)
    }

    /// Whether this names a value with one value here: an entry
    /// parameter, or a binding made outside every lambda's body or in an
    /// evaluation of a body still in progress (or a field or length of
    /// either: `rqc_cost::Frames::one_value`).
    pub(super) fn one_value(&self, frames: &rqc_cost::Frames) -> bool {
        match self.root {
            Root::Param(_) => true,
            Root::Binding(_, id) => frames.one_value(id),
        }
    }

    /// The binding `name` of identity `id` itself (a lambda's parameter).
    pub(super) fn binding(name: &'p str, id: u64) -> Named<'p> {
        Named::root(Root::Binding(name, id))
    }

    fn root(root: Root<'p>) -> Named<'p> {
        Named {
            root,
            path: Vec::new(),
        }
    }
}
