//! How much a value of a type may hold: its values (numbers, strings, rows), the steps of walking or copying it whole, and whether the type itself is small enough to carry.

use super::types::{FnCandidate, FnTy, Ty};
use crate::cost::Poly;

impl Ty {
    /// Whether the type has at most `parts` parts and nests at most
    /// `depth` levels: read with early exits, so a huge type costs no more
    /// than the limits to refuse.
    pub fn within(&self, parts: usize, depth: usize) -> bool {
        fn walk(ty: &Ty, depth: usize, left: &mut usize) -> bool {
            if depth == 0 || *left == 0 {
                return false;
            }
            *left -= 1;
            let inner = |t: &Ty, left: &mut usize| walk(t, depth - 1, left);
            let function = |f: &FnTy, left: &mut usize| {
                f.params.iter().all(|p| inner(p, left)) && inner(&f.ret, left)
            };
            match ty {
                Ty::Option(t) | Ty::List(t, ..) => inner(t, left),
                Ty::Record(fields) => fields.iter().all(|(_, t)| inner(t, left)),
                Ty::Stream(s) => inner(&s.elem, left),
                Ty::Fn(f) => function(f, left),
                Ty::Fns(candidates) => candidates.iter().all(|c| match c {
                    FnCandidate::Known(f) => function(f, left),
                    FnCandidate::Lambda(_) => true,
                }),
                _ => true,
            }
        }
        walk(self, depth, &mut { parts })
    }

    /// The values (numbers, strings, rows, …) a value of this type may
    /// hold, every list at its longest, as a formula of its measures
    /// (a function's, fixed at each call).
    pub fn values(&self) -> Poly {
        self.per_value(&|_| None)
    }

    /// The steps of walking a value of this type whole (comparing,
    /// flattening, copying it): a step per value, and a string a step per
    /// 4 KiB it may hold (`rqc_cost::string_steps`: 4,096 for one of
    /// unbounded length). A type parameter's is the caller's (`values(T)`,
    /// bound to the argument's walk at each call).
    pub fn walk_steps(&self) -> Poly {
        self.per_value(&|ty| match ty {
            Ty::Str(bytes) => Some(Poly::constant(crate::cost::string_steps(bytes.max_value()))),
            _ => None,
        })
    }

    /// A quantity summed over the values a value of this type may hold,
    /// every list at its longest: `leaf`'s for a value it answers for,
    /// else one per value. A type parameter's values are the caller's: a
    /// measure each call fixes (`measures::bind`), so a generic function
    /// that compares its `T` costs each caller what its `T` holds.
    fn per_value(&self, leaf: &dyn Fn(&Ty) -> Option<Poly>) -> Poly {
        if let Some(cost) = leaf(self) {
            return cost;
        }
        match self {
            Ty::Option(t) => t.per_value(leaf),
            Ty::List(elem, size, _) => size.times(&elem.per_value(leaf)),
            Ty::Record(fields) => fields
                .iter()
                .fold(Poly::zero(), |sum, (_, t)| sum.plus(&t.per_value(leaf))),
            Ty::Generic(name) => Poly::var(crate::cost::Var::new(crate::cost::VarKind::Generic(
                format!("values({name})"),
            ))),
            _ => Poly::constant(1),
        }
    }

    /// The steps of copying a value of this type where the run copies it
    /// rather than share it: its strings outside any list (a list, and a
    /// record holding one, is shared by pointer; a string, and a record of
    /// scalars inside a list, is copied when taken out or named).
    pub fn copy_steps(&self) -> Poly {
        match self {
            Ty::Option(t) => t.copy_steps(),
            Ty::Record(fields) => fields
                .iter()
                .fold(Poly::zero(), |sum, (_, t)| sum.plus(&t.copy_steps())),
            Ty::Str(bytes) => Poly::constant(crate::cost::string_steps(bytes.max_value())),
            _ => Poly::zero(),
        }
    }

    /// The most values a value of this type may hold, as a number:
    /// [`Ty::values`] at its largest; `None` where a length is not a
    /// number yet (a function's measure, fixed at each call).
    pub fn most_values(&self) -> Option<u64> {
        Some(match self {
            Ty::Option(t) => t.most_values()?,
            Ty::List(elem, size, _) => size.max_value()?.saturating_mul(elem.most_values()?),
            Ty::Record(fields) => fields.iter().try_fold(0u64, |sum, (_, t)| {
                Some(sum.saturating_add(t.most_values()?))
            })?,
            _ => 1,
        })
    }
}
