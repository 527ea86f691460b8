//! The functions of a call that return a type parameter's values (`g(f(x))` for `f: T -> T`, `g: T -> T`; a producer `p: U -> T`; `w: T -> { v: T }`): every one checked at one `T` that holds what each returns.
//!
//! `self_applied.rs` widens `T` to what the first function fed its own
//! results returns (its fixed point), and every function resolved after it
//! is checked at that `T`. One that returns more (`g` returning 7 where
//! `f`'s fixed point was 6, a producer returning 20 where an argument
//! bound `T` to 1, a `T` inside a record) does not fit it, which was E0419
//! though the program is sound. So the call's functions are resolved again, `T` now widened by
//! what the last pass's functions returned (its measures bound again, as
//! `fed_argument` binds them), until a pass's functions all return within
//! the `T` they were checked at, for at most [`PASSES`] passes; the last
//! pass's diagnostics stand.
//!
//! Why it is sound: the pass that ends checked every function at one
//! `T` (the first widens it further only before the others are checked),
//! and each returned within it; so, by induction on the body's
//! applications (each given the call's arguments or earlier results, all
//! within `T`), every value of type `T` the run makes lies in the `T`
//! every function was checked at.

use super::expr::{Checker, FnSig};
use super::join::join_types;
use super::measures::{self, Bindings};
use super::tir::TExpr;
use super::type_binding::{bind, merge_bindings};
use super::types::Ty;
use crate::span::Span;
use std::collections::BTreeMap;

/// Passes of a call's functions before the last one's verdicts stand.
const PASSES: usize = 6;

/// What a call's function resolution starts from, and what its functions
/// fed a type parameter returned in the current pass.
pub struct FedTypes {
    start: Start,
    reported: usize,
    pass: usize,
    /// Each type parameter widened so far, and its widest join.
    widened: BTreeMap<String, Ty>,
    /// This pass's: each fed type parameter a function returned past, and
    /// its join with what it returned.
    returned: Vec<(String, Ty)>,
}

/// What a call's functions are resolved from at each pass: its type
/// parameters, measures, their origins and the arguments' typed trees.
type Start = (
    BTreeMap<String, Ty>,
    Bindings,
    Vec<(Bindings, Span)>,
    Vec<Option<TExpr>>,
);

/// The state a pass changes, restored before the next.
pub type PassState<'a> = (
    &'a mut BTreeMap<String, Ty>,
    &'a mut Bindings,
    &'a mut Vec<(Bindings, Span)>,
    &'a mut Vec<Option<TExpr>>,
);

impl FedTypes {
    pub fn start(
        checker: &Checker<'_>,
        generics: &BTreeMap<String, Ty>,
        bindings: &Bindings,
        origins: &[(Bindings, Span)],
        tirs: &[Option<TExpr>],
    ) -> FedTypes {
        FedTypes {
            start: (
                generics.clone(),
                bindings.clone(),
                origins.to_vec(),
                tirs.to_vec(),
            ),
            reported: checker.diagnostics.len(),
            pass: 0,
            widened: BTreeMap::new(),
            returned: Vec::new(),
        }
    }

    /// Argument `i` of `sig` was resolved to `found` at the type
    /// parameters `generics`: whether a type parameter's values it returns
    /// (`f: T -> T`, a producer `p: U -> T`, or `T` inside its result, `w:
    /// T -> { v: T }`) lie past the one it was checked at.
    pub fn returned(&mut self, sig: &FnSig, i: usize, found: &Ty, generics: &BTreeMap<String, Ty>) {
        // What a function given the arguments only returns is the call's
        // result, given to no function (`applied_results.rs`); what one the
        // body never reads returns goes nowhere (`FnSig::unread`).
        if sig.result_fixes_nothing(i) {
            return;
        }
        let (Ty::Fn(declared), Ty::Fn(func)) = (&sig.params[i].1, found) else {
            return;
        };
        // What the result binds each type parameter to.
        let mut implied = BTreeMap::new();
        if !bind(&declared.ret, &func.ret, &mut implied) {
            return;
        }
        for (t, values) in implied {
            let Some(bound) = generics.get(&t) else {
                continue;
            };
            let comparable = bound.accepts(&values) || values.accepts(bound);
            let joined = join_types(bound, &values);
            // A `T` widened past every bound would admit any result (a place
            // costed for what nothing bounds admits anything): results that
            // grow without end keep the refusal of the `T` they were
            // checked at (E0419).
            let endless = joined.any_poly(&|p| p.grows_for_good());
            if comparable && joined != *bound && !endless && !bound.any(&|t| t.is_error()) {
                self.returned.push((t, joined));
            }
        }
    }

    /// Whether the call's functions must be resolved again: one returned
    /// past the `T` it was checked at, and passes remain. If so, the
    /// state is restored with each such `T` widened.
    pub fn again(&mut self, checker: &mut Checker<'_>, span: Span, state: PassState<'_>) -> bool {
        let (generics, bindings, origins, tirs) = state;
        let mut grew = false;
        for (t, joined) in std::mem::take(&mut self.returned) {
            let widest = match self.widened.get(&t) {
                Some(before) => join_types(before, &joined),
                None => joined,
            };
            self.widened.insert(t, widest);
            grew = true;
        }
        self.pass += 1;
        if grew && self.pass >= PASSES {
            let names: Vec<&str> = self.widened.keys().map(String::as_str).collect();
            let note = format!(
                "the call's functions were checked again {PASSES} times, `{}` widened each time to hold what they return, and it kept growing",
                names.join("`, `")
            );
            if let Some(refusal) = checker.diagnostics.get_mut(self.reported) {
                refusal.notes.push(note);
            }
        }
        if !grew || self.pass >= PASSES || !checker.may_check_again(span) {
            return false;
        }
        if !checker.drop_reported_since(self.reported) {
            return false;
        }
        let (g, b, o, t) = self.start.clone();
        (*generics, *bindings, *origins, *tirs) = (g, b, o, t);
        for (t, wider) in &self.widened {
            let joined = match generics.get(t) {
                Some(bound) => join_types(bound, wider),
                None => wider.clone(),
            };
            let mut values = Bindings::new();
            measures::bind(&Ty::Generic(t.clone()), &joined, &mut values);
            merge_bindings(bindings, &values);
            generics.insert(t.clone(), joined);
        }
        true
    }
}
