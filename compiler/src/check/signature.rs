//! A definition's checked signature: what each call of it instantiates (its parameters' types with their measures, its result's, its cost), and the maps over its measures the calls use.

use super::types::Ty;
use crate::cost::{Cost, Poly};
use crate::syntax::ast::DefKind;

/// The checked signature of a definition: what a call instantiates.
#[derive(Clone, Debug, PartialEq)]
pub struct FnSig {
    pub kind: DefKind,
    pub params: Vec<(String, Ty)>,
    pub ret: Ty,
    /// Over the measure variables of the parameters (`Var::Generic`).
    pub cost: Cost,
    /// Type parameters whose values the body compares or hashes.
    pub inspects: Vec<String>,
    /// A function's list parameter's declared `<= n`, by position (an
    /// entry point's is in its type), and each of its record's list
    /// fields' (the fields on the way, `parameters::declared_list_maxima`):
    /// its body may pass the list on where `<= n` is asked, and a call
    /// proves the argument within it (E0321), as it does a number's or a
    /// string's.
    pub list_maxima: Vec<Vec<(Vec<String>, u64)>>,
    /// A function parameter's requirement met by several uses in the body
    /// (`f(x)` and `f(f(x))`), as it stands in `params`, with those uses:
    /// where a call knows their values it takes the largest, not the sum
    /// that stands for it here (`self_applied.rs`).
    pub uses: Vec<(Poly, Vec<Poly>)>,
    /// What a `Bool` function proves of its parameters where it returns
    /// true, read at each call with the arguments' sums (`guards.rs`).
    pub proves: Option<std::sync::Arc<super::guards::GuardTemplate>>,
    /// What the predicate it returns proves of its own parameters and the
    /// predicate's, where the predicate returns true (`returned_guards.rs`).
    pub returned_guard: Option<std::sync::Arc<super::guards::GuardTemplate>>,
    /// The counts its body measures as sums of its parameters, each bound
    /// at a call (`sum_measures.rs`).
    pub sum_measures: Vec<super::sum_measures::SumMeasure>,
    /// The parameter (by position) the body returns itself, unchanged
    /// (`fn passg(f: T -> U) -> T -> U = f`): a call's result is its
    /// argument, with its type as the caller knows it (what a predicate a
    /// function made proves, its ranges), not the signature's result
    /// rebuilt from the bound type parameters.
    pub returns_param: Option<usize>,
    /// The function parameter (by position) whose application the body
    /// returns (`fn app(f: T -> T, x: T) -> T = f(x)`, `f(f(x))`): a
    /// call's result is also within what the function it is given returns
    /// (`applied_result`).
    pub returns_applied: Option<usize>,
    /// The body is that application to parameters alone (`f(x)`, `x |>
    /// f()`, not `f(f(x))`): the function is given the call's arguments
    /// only, never a result, so a call checks it at the type they fix
    /// and its result is the call's (`applied_results.rs`).
    pub applied_to_arguments: bool,
    /// Each parameter the body never reads (by position): a function
    /// given for one is never applied, so it is checked at the type
    /// parameters the others fix and what it returns fixes none
    /// (`fn appff(f: T -> T, h: T -> T, x: T) = f(x)`: `h`'s results
    /// would widen `T` with no end; [`FnSig::result_fixes_nothing`]).
    pub unread: Vec<bool>,
}

impl FnSig {
    /// Whether parameter `i` is the function the body is the application
    /// of to parameters alone ([`FnSig::applied_to_arguments`]): given
    /// the call's arguments only, checked at the `T` they fix, its result
    /// the call's (`applied_results.rs`).
    pub fn given_arguments_only(&self, i: usize) -> bool {
        self.applied_to_arguments && self.returns_applied == Some(i)
    }

    /// Whether what a function given for parameter `i` returns fixes no
    /// type parameter of a call: given the call's arguments only (its
    /// result is the call's, [`FnSig::given_arguments_only`]) or never
    /// read by the body ([`FnSig::unread`]). Such a function is resolved
    /// after the others, at the types they fix, and only its parameters
    /// must fit them.
    pub fn result_fixes_nothing(&self, i: usize) -> bool {
        self.given_arguments_only(i) || self.unread.get(i).copied().unwrap_or(false)
    }

    /// The signature with `f` applied to every measure in its parameters'
    /// types, its result's and its cost.
    pub fn map_polys(mut self, f: &dyn Fn(&Poly) -> Poly) -> FnSig {
        self.params = self
            .params
            .into_iter()
            .map(|(name, ty)| (name, ty.map_polys(f)))
            .collect();
        self.ret = self.ret.map_polys(f);
        self.cost = self.cost.map(f);
        self.uses = self
            .uses
            .into_iter()
            .map(|(key, uses)| (f(&key), uses.iter().map(f).collect()))
            .collect();
        for measure in &mut self.sum_measures {
            measure.fallback = f(&measure.fallback);
            if let Some(var) = f(&Poly::var(measure.var)).as_var() {
                measure.var = var;
            }
        }
        self
    }

    /// Whether any measure of it satisfies `test`.
    pub fn any_poly(&self, test: &dyn Fn(&Poly) -> bool) -> bool {
        self.params.iter().any(|(_, ty)| ty.any_poly(test))
            || self.ret.any_poly(test)
            || self.cost.measures().iter().any(|(_, p)| test(p))
            || self.uses.iter().flat_map(|(_, uses)| uses).any(test)
            || self.sum_measures.iter().any(|m| test(&m.fallback))
    }
}

/// Types and costs hold no floats, so equality is an equivalence (and the
/// incremental database can tell an unchanged signature).
impl Eq for FnSig {}

/// The parameter (by position) whose application `body` is, where it is
/// one of `params` applied (`f(x)`, `x |> f()`), in blocks of nothing
/// else: every value the body returns is a result of that function.
pub fn applied_parameter(body: &crate::syntax::ast::Expr, params: &[String]) -> Option<usize> {
    use crate::syntax::ast::ExprKind;
    match &body.kind {
        ExprKind::Call(callee, _) => returned_parameter(callee, params),
        ExprKind::Pipe(_, stage) => match &stage.kind {
            ExprKind::Call(callee, _) => returned_parameter(callee, params),
            _ => None,
        },
        // `let`s that bind no parameter's name again: the result is still
        // the application (`{ let v = y; g(v) }`).
        ExprKind::Block(stmts, result) if lets_apart(stmts, params) => {
            applied_parameter(result, params)
        }
        _ => None,
    }
}

/// Whether `stmts` are `let`s only, none binding a name of `params` again.
fn lets_apart(stmts: &[crate::syntax::ast::Stmt], params: &[String]) -> bool {
    stmts.iter().all(|stmt| match stmt {
        crate::syntax::ast::Stmt::Let { name, .. } => !params.contains(&name.name),
        crate::syntax::ast::Stmt::Expr(_) => false,
    })
}

/// Whether `body`, an application (of a parameter where
/// [`applied_parameter`] finds one), is to parameters alone, none of them a
/// function (`values`: whether each of `params` is a plain value): each
/// argument one of them ([`is_parameter_value`]: a name, an `if` choosing
/// between such, a `let` naming one), so no function's result is given
/// to it.
pub fn applied_to_parameters(
    body: &crate::syntax::ast::Expr,
    params: &[String],
    values: &[bool],
) -> bool {
    use crate::syntax::ast::{ExprKind, Stmt};
    let is_value = |e: &crate::syntax::ast::Expr| is_parameter_value(e, params, values);
    match &body.kind {
        ExprKind::Call(_, args) => args.iter().all(is_value),
        ExprKind::Pipe(input, stage) => match &stage.kind {
            ExprKind::Call(_, args) => is_value(input) && args.iter().all(is_value),
            _ => false,
        },
        // `{ let v = y; g(v) }`: each `let` names a plain parameter's value
        // under a name no parameter has, which is then one too.
        ExprKind::Block(stmts, result) if lets_apart(stmts, params) => {
            let (mut params, mut values) = (params.to_vec(), values.to_vec());
            for stmt in stmts {
                let Stmt::Let { name, value, .. } = stmt else {
                    return false;
                };
                if !is_parameter_value(value, &params, &values) {
                    return false;
                }
                params.push(name.name.clone());
                values.push(true);
            }
            applied_to_parameters(result, &params, &values)
        }
        _ => false,
    }
}

/// Whether `e` is always the value of one of the plain parameters among
/// `params` (`values`): its name, or an `if` choosing between such
/// (`if c { y } else { z }`) whose condition reads no function
/// parameter, so no function's result can reach it.
fn is_parameter_value(e: &crate::syntax::ast::Expr, params: &[String], values: &[bool]) -> bool {
    use crate::syntax::ast::ExprKind;
    let plain = |name: &str| {
        params
            .iter()
            .rposition(|p| p == name)
            .is_some_and(|i| values[i])
    };
    match &e.kind {
        ExprKind::Name(name) => plain(&name.name),
        ExprKind::If(cond, a, b) => {
            let reads_a_function = cond.free_names().iter().any(|n| {
                params
                    .iter()
                    .rposition(|p| p == n)
                    .is_some_and(|i| !values[i])
            });
            !reads_a_function
                && is_parameter_value(a, params, values)
                && is_parameter_value(b, params, values)
        }
        ExprKind::Block(stmts, result) if stmts.is_empty() => {
            is_parameter_value(result, params, values)
        }
        _ => false,
    }
}

/// The function parameter (by position) that `body`, a call of a
/// definition (`callee_sig` gives its signature, resolved from the callee
/// expression) that gives a function the call's arguments only
/// ([`FnSig::given_arguments_only`]), passes it, where every argument is a
/// parameter and every other a plain value (`fn outer(g: Int -> Int, y:
/// Int) = app(g, y)`): the body is then that parameter applied to
/// parameters alone, as `g(y)` is.
pub fn applied_through_call(
    body: &crate::syntax::ast::Expr,
    params: &[String],
    values: &[bool],
    callee_sig: &dyn Fn(&crate::syntax::ast::Expr) -> Option<FnSig>,
) -> Option<usize> {
    use crate::syntax::ast::{Expr, ExprKind};
    let (callee, args): (&Expr, Vec<&Expr>) = match &body.kind {
        ExprKind::Call(callee, args) => (callee, args.iter().collect()),
        ExprKind::Pipe(input, stage) => match &stage.kind {
            ExprKind::Call(callee, args) => {
                (callee, std::iter::once(&**input).chain(args).collect())
            }
            _ => return None,
        },
        ExprKind::Block(stmts, result) if stmts.is_empty() => {
            return applied_through_call(result, params, values, callee_sig)
        }
        _ => return None,
    };
    let param_of = |e: &Expr| match &e.kind {
        ExprKind::Name(name) => params.iter().position(|p| *p == name.name),
        _ => None,
    };
    let sig = callee_sig(callee)?;
    let given = (0..args.len()).find(|&j| sig.given_arguments_only(j))?;
    let passed = param_of(args[given])?;
    let others_plain = (0..args.len())
        .filter(|&j| j != given)
        .all(|j| is_parameter_value(args[j], params, values));
    (!values[passed] && others_plain).then_some(passed)
}

/// The parameter (by position) that `body` is, where it is one of
/// `params` read as it is: the name alone, in blocks of nothing else.
pub fn returned_parameter(body: &crate::syntax::ast::Expr, params: &[String]) -> Option<usize> {
    use crate::syntax::ast::ExprKind;
    match &body.kind {
        ExprKind::Name(name) => params.iter().position(|p| *p == name.name),
        ExprKind::Block(stmts, result) if stmts.is_empty() => returned_parameter(result, params),
        _ => None,
    }
}
