//! What `all` and `any` prove of a list's elements in a condition, as the checker's `elements.rs` (spec/cost.md §3.1): `if xs |> all(x => x <= 10)` narrows every element of `xs` to at most 10 in its then branch, by the shared rule (`rqc_cost::Condition::Elements`).

use super::bounds::Verifier;
use super::narrowing::{Comparison, Condition, Named};
use super::scope::Scope;
use rqc_plan::Node;

impl<'p> Verifier<'p> {
    /// Records what `all(list, param => …)` (`all`) or `any(…)` at `node`
    /// says of `list`'s elements, its predicate's body having said `says`
    /// of `param` (its name and the binding its application gave it),
    /// where `node` is (part of) an open condition: only a list bound to a
    /// name or given as a parameter, never a field of one.
    pub(super) fn record_elements(
        &mut self,
        all: bool,
        node: &'p Node,
        list: &'p Node,
        param: (&'p str, Option<u64>),
        says: Condition<'p>,
        scope: &Scope<'p>,
    ) {
        if !self.wanted.contains_key(&(node as *const Node)) || says == Condition::Opaque {
            return;
        }
        let (param, Some(id)) = param else {
            return;
        };
        let Some(list) = Named::of(list, scope).filter(|named| named.path.is_empty()) else {
            return;
        };
        let element = Named::binding(param, id);
        // A list that is an alias of another (a parameter given `xs`, `let
        // ys = xs`): the same of that list too, a second reading.
        let says = through_aliases(&Condition::elements(all, list, element, says), scope);
        self.comparisons.push(Comparison { node, says });
    }
}

/// `says`, recorded in `scope`, read also through the named values its
/// names are aliases of (`super::sums::alias`), as a comparison is; an
/// `all`'s list only where it is bound to a name (as the checker's). The
/// whole chain of aliases ([`ALIASES_READ`]): the plan inlines calls, so
/// a chain the checker reads a part of at each call's level is one chain
/// here, which must be read at least as far.
pub(super) fn through_aliases<'p>(says: &Condition<'p>, scope: &Scope<'p>) -> Condition<'p> {
    says.through_aliases(
        &|named| super::narrowing::definition_of(named, scope),
        &|list: &Named<'p>| list.path.is_empty(),
        ALIASES_READ,
    )
}

/// How many aliases a fact is read through: every one, in practice (each
/// is a binding of the plan, made before the one naming it, so a chain
/// is at most as long as the plan has bindings); finite, so no reading
/// can loop.
const ALIASES_READ: usize = 1 << 16;
