//! The type `none` takes where a value of a type is wanted: the measures it fixes (a function's, or every one), so a `none` adds nothing to a join and leaves no measure unfixed.

use super::types::{FnTy, Ty};
use crate::cost::{Cost, Interval, Poly};

impl Ty {
    /// The type `none` takes where a value of this type (an option's) is
    /// wanted. It holds no value, so any fits; where this type has a
    /// function's measures (a parameter `n: Int? <= 4`, fixed at each call
    /// by its argument), a `none` fixes them at a value within the declared
    /// ends (a number, an empty string or list) rather than leave them
    /// unfixed (unbounded: `h(none)` was E0301).
    pub fn held_by_none(&self) -> Ty {
        self.held_by_none_where(false)
    }

    /// [`Ty::held_by_none`] at every measure (`every`), not only a
    /// function's: the type of a `none` written where a value of this type
    /// is expected (`fn oi(c) -> Int? = if c { n } else { none }`), which
    /// then adds nothing to a join, where the declared `Int`'s unbounded
    /// ends made `oi(c, 5)` unbounded.
    pub fn held_by_none_where(&self, every: bool) -> Ty {
        // A callee's measure, or a returned function's own (`returned.rs`).
        let generic = |p: &Poly| {
            every
                || p.vars().iter().any(|v| {
                    matches!(
                        v.kind(),
                        crate::cost::VarKind::Generic(_) | crate::cost::VarKind::Own { .. }
                    )
                })
        };
        match self {
            Ty::Int(i) if generic(&i.hi) || generic(&i.lo) => {
                // 0 when the ends allow it (the smallest measures), else
                // the end nearest it.
                let at = if i.least.is_some_and(|l| l > 0) {
                    i.least.unwrap_or(0)
                } else if i.most.is_some_and(|m| m < 0) {
                    i.most.unwrap_or(0)
                } else {
                    0
                };
                Ty::Int(Interval::exact(at))
            }
            Ty::Str(bytes) if generic(bytes) => Ty::Str(Poly::zero()),
            Ty::List(elem, size, _) if generic(size) => Ty::list((**elem).clone(), Poly::zero()),
            // No stream is ever read through `none`: opening it and each
            // element cost nothing, where the declared `(stream T)?` says
            // not what (its measures are unbounded until a value fixes them).
            Ty::Stream(stream) => {
                let mut held = (**stream).clone();
                held.open = Cost::zero();
                held.per_element = Cost::zero();
                Ty::Stream(Box::new(held))
            }
            // No function is ever called through `none`: a call costs
            // nothing and gives nothing (`Error` adds nothing to a join),
            // where the declared `(Int -> Int)?` says not what.
            Ty::Fn(func) => Ty::Fn(Box::new(FnTy {
                params: func.params.clone(),
                ret: Ty::Error,
                latent: Cost::zero(),
                proves: None,
            })),
            other => other.clone(),
        }
    }
}
