//! A call of a function whose body returns an application of its function parameter (`fn app(f: T -> T, x: T) -> T = f(x)`): the result is also within what the function given returns, so `app(x => x % 10, n)` is within `[-9, 9]` where the bound `T` is `n`'s whole range (spec/cost.md §3).

use super::signature::FnSig;
use super::types::Ty;

/// `ret`, the result of a call of `sig` rebuilt from its bound type
/// parameters, within what the function given for the parameter the body
/// applies (`sig.returns_applied`) returns, as the call resolved it
/// (`given`, by position: a lambda checked at the parameter types the
/// call fixed, or a named function at them).
///
/// Sound because every value the body returns is a result of that
/// function, and each argument the body gives it has the parameter type
/// the call fixed (the body is checked with the parameter types abstract,
/// so it cannot give it anything else; a `T` the function is fed its own
/// results through holds them, `self_applied.rs`): the function's result
/// at those types holds every such result. Only an `Int`'s range is
/// narrowed, to the meet of the two ranges; any other result, or a
/// function given that is none resolved to one type (one of two), is left
/// as the signature makes it.
pub(super) fn applied_result(sig: &FnSig, given: &[Option<Ty>], ret: Ty) -> Ty {
    // Given the call's arguments only, the function was checked at the
    // type they fix and no `T` was widened to what it returns: its result
    // is the call's, whole (`fn app(f: T -> T, x: T) -> T = f(x)` returns
    // `f(x)`). A function that resolved to none was reported (E-coded)
    // where it was checked: the result is unknown.
    if let Some(i) = sig.returns_applied.filter(|&i| sig.given_arguments_only(i)) {
        return match given.get(i) {
            Some(Some(Ty::Fn(function))) => function.ret.clone(),
            _ => Ty::Error,
        };
    }
    let Ty::Int(range) = &ret else {
        return ret;
    };
    let Some(Some(Ty::Fn(function))) = sig.returns_applied.and_then(|i| given.get(i)) else {
        return ret;
    };
    match &function.ret {
        Ty::Int(within) => Ty::Int(range.intersect(within)),
        _ => ret,
    }
}
