//! Function values: lambdas checked where their parameters' types are known, delayed lambdas checked at each application, and applying any function value to arguments.
//!
//! A lambda passed straight to a combinator or to a definition's function
//! parameter is checked there, with the parameter types that place gives
//! it. Written anywhere else (a `let`, an `if` branch, a list element) its
//! parameter types are not known yet: it becomes a *delayed* lambda, and
//! every place that applies it — a call, a combinator, a parameter —
//! checks its body again with the types that place passes, in the scope it
//! was written in. Its latent cost at that place is therefore exact; a value
//! that may be one of several functions ([`Ty::Fns`]) costs the dearest.
//! The typed bodies of one lambda's applications are merged into one
//! (their operators' bounds the largest), which the planner uses.

use super::applications::ApplicationContext;
use super::expr::{Checked, Checker};
use super::tir::TExpr;
use super::types::{DelayedLambda, FnCandidate, FnTy, Ty};
use crate::cost::Cost;
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, Ident};
use std::sync::Arc;

/// A delayed lambda's typed body, merged over its applications.
pub struct LambdaBody {
    pub params: Vec<String>,
    pub body: Option<TExpr>,
    /// The lambda this one's body was merged into (the same lambda written
    /// inside another's body, made again at each application of that one):
    /// its later applications' bodies go there too.
    pub(super) merged_into: Option<usize>,
    /// Applications already checked, by argument types and the context
    /// the body's check reads besides its captured scope: re-checking a
    /// body for the same types in the same context gives the same answer.
    pub(super) seen: Vec<(Vec<Ty>, ApplicationContext, Ty, Cost)>,
}

/// The most delayed-lambda bodies one definition may check. Each place that
/// applies a delayed lambda checks its body, and a body that applies
/// another twice doubles the checks at each level: past the limit the
/// definition is refused (E0424), in time proportional to it.
pub const MAX_LAMBDA_CHECKS: usize = 1_000;

/// How deep applications of delayed lambdas may nest while their bodies
/// are checked (a body applying a lambda whose body applies another…). A
/// lambda passed to itself nests without end; past the limit it is refused
/// as recursion (E0214).
pub const MAX_LAMBDA_NESTING: usize = 16;

/// How deep the checker may recurse in one definition, bodies of applied
/// lambdas included: one definition nests at most `MAX_DEPTH` levels, and
/// applied lambdas add their bodies' depths. The checker's stack
/// (`crate::stack::STACK_SIZE`) holds this many in a debug build; an
/// expression deeper is refused (E0424, `Checker::check_expected`).
pub const MAX_CHECK_NESTING: usize = 3 * crate::syntax::depth::MAX_DEPTH;

/// What applies a function value: what its errors say, and who reports
/// an argument that leaves a returned function's reads unbounded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum AppliedBy {
    /// A call written as one, `f(1)`.
    Call,
    /// A combinator, `map(f)`: reported at the function given.
    Combinator,
    /// The resolution against a definition's function parameter: the
    /// definition's call names its own argument instead (`calls.rs`).
    Parameter,
}

/// What applying delayed lambdas has done so far in one definition.
#[derive(Default)]
pub struct LambdaChecks {
    /// How many delayed lambdas' bodies are being checked, one inside
    /// another.
    pub(super) applying: usize,
    /// Bodies checked (applications not answered from `seen`).
    checked: usize,
    /// Expressions being checked, one inside another.
    pub(super) nesting: usize,
    /// Whether E0424 was reported (once per definition).
    pub(super) refused: bool,
    /// How many lambdas are being checked before any application, with
    /// their parameters of unknown type ([`Checker::delay_lambda`]).
    pub(super) unknown_parameters: usize,
    /// How many lambda bodies are being checked for the lengths they may
    /// return ([`Checker::probe_delayed`]): a `take` whose count has no
    /// maximum may then return any number of elements, not none.
    pub(super) probing_lengths: usize,
}

/// The errors a value's range decides (an unbounded count, an argument
/// past its function's ends, a cost past the ceiling, …): a lambda's check
/// before any application reports none of them
/// ([`Checker::delay_lambda`]).
const VALUE_DEPENDENT: [&str; 7] = [
    "E0301", "E0302", "E0308", "E0310", "E0321", "E0322", "E0419",
];

impl Checker<'_> {
    /// Drops the errors reported since there were `before` that a value
    /// decides ([`VALUE_DEPENDENT`]), of code that never runs with those
    /// values: a lambda before any application, a branch its condition
    /// rules out (`dead_branches.rs`).
    pub(super) fn drop_value_dependent_since(&mut self, before: usize) {
        let reported = self
            .diagnostics
            .split_off(before.min(self.diagnostics.len()));
        self.diagnostics.extend(
            reported
                .into_iter()
                .filter(|d| !VALUE_DEPENDENT.contains(&d.code.as_str())),
        );
    }

    /// A lambda whose parameters have `param_tys`, checked now.
    pub fn check_lambda(&mut self, params: &[Ident], body: &Expr, param_tys: &[Ty]) -> Checked {
        let depth = self.scope.len();
        self.params_named_once(params);
        // A check of a body that runs many times (`rqc_cost::Frames`).
        self.frames.enter();
        let mut bindings = Vec::with_capacity(params.len());
        for (param, ty) in params.iter().zip(param_tys) {
            let local = super::expr::Local::new(
                param.name.clone(),
                param.span,
                ty.clone(),
                TExpr::Local(param.name.clone()),
            );
            bindings.push(local.binding);
            self.bind_local(local);
        }
        let checked = self.check(body);
        self.frames.leave();
        self.scope.truncate(depth);
        // Set after the body, whose own lambdas set it too.
        self.last_lambda_params = bindings;
        Checked::new(
            Ty::Fn(Box::new(FnTy {
                params: param_tys.to_vec(),
                ret: checked.ty,
                latent: checked.cost,
                proves: None,
            })),
            Cost::zero(),
            TExpr::Lambda(
                params.iter().map(|p| p.name.clone()).collect(),
                Box::new(checked.tir),
            ),
        )
    }

    /// A definition named as a value (`xs |> map(inc)`, `twice(inc, 3)`,
    /// `m.inc`): the lambda that calls it, `(·0, …) => inc(·0, …)`, delayed
    /// like any lambda, so each application checks the call with the
    /// arguments it is given (a generic definition included). `callee` is
    /// the name as written; the parameters, which no program can name, sit
    /// at an empty span after it, so the name still refers to the
    /// definition for the editor.
    pub(super) fn named_function_value(&mut self, callee: &Expr, def: usize) -> Checked {
        let Some(sig) = (self.sig_of)(def) else {
            // Reported as a call of a rejected definition is (E0304).
            let span = callee.span;
            return self.check_call(span, callee, None, &[]);
        };
        self.delay_applying(callee.clone(), "·", sig.params.len())
    }

    /// The delayed lambda `(p0, …) => function(p0, …)` of `arity`
    /// parameters named `prefix` and a number (a name no program can
    /// write), which sit at an empty span after `function`: it applies
    /// `function` to what it is given, wherever it is applied.
    pub(super) fn delay_applying(&mut self, function: Expr, prefix: &str, arity: usize) -> Checked {
        let (params, body) = applying(function, prefix, arity);
        self.delay_lambda(&params, &body)
    }

    /// E0203 for a lambda's parameter named twice (`(k, k) => …`), as for
    /// a definition's: the body could only ever read the second. `_`, the
    /// name of what a lambda ignores, may be given for several (`(_, _) =>
    /// 3`, adversary finding). Reported once, though a lambda's body is
    /// checked at each application.
    fn params_named_once(&mut self, params: &[Ident]) {
        for (i, param) in params.iter().enumerate() {
            let ignored = param.name == "_";
            let twice = !ignored && params[..i].iter().any(|p| p.name == param.name);
            let reported = || {
                self.diagnostics
                    .iter()
                    .any(|d| d.code == "E0203" && d.primary.span == param.span)
            };
            if twice && !reported() {
                self.declared_twice(param);
            }
        }
    }

    /// E0203: a definition's or a lambda's parameter named again.
    pub(super) fn declared_twice(&mut self, param: &Ident) {
        self.error(
            "E0203",
            format!("parameter `{}` is declared twice", param.name),
            param.span,
            "second declaration",
        )
        .help
        .push("give each parameter its own name".into());
    }

    /// A lambda written where its parameters' types are not known.
    pub fn delay_lambda(&mut self, params: &[Ident], body: &Expr) -> Checked {
        let id = self.lambdas.len();
        self.lambdas.push(LambdaBody {
            params: params.iter().map(|p| p.name.clone()).collect(),
            body: None,
            merged_into: None,
            seen: Vec::new(),
        });
        // Checked once now with unknown parameter types, so that what does
        // not depend on them (names, columns, calls) is reported even if
        // the lambda is never applied. What a value decides (`take(n)`
        // bounded by the `if n <= k` it is in, or by the `if` around the
        // application) is left to the applications, each checked in its
        // place with its arguments' types: a lambda never applied never
        // runs. Nothing else of this check is used.
        let unknown = vec![Ty::Error; params.len()];
        self.lambda_checks.unknown_parameters += 1;
        let before = self.diagnostics.len();
        let _ = self.check_lambda(params, body, &unknown);
        self.drop_value_dependent_since(before);
        self.lambda_checks.unknown_parameters -= 1;
        let lambda = DelayedLambda {
            id,
            params: params.to_vec(),
            body: body.clone(),
            captured: self.scope.clone(),
            facts: self.branch_facts.clone(),
            frame: self.frames.current(),
            keeps_foreign_sums: makes_lambdas(body) || super::guards::condition_shaped(body),
        };
        Checked::new(
            Ty::Fns(vec![FnCandidate::Lambda(Arc::new(lambda))]),
            Cost::zero(),
            TExpr::DelayedLambda(id),
        )
    }

    /// A function argument of a combinator: a lambda checked with
    /// `param_tys`, or any function value applied to them. Also what
    /// evaluating the value costs, once, before any application (`map(mk(
    /// User[a].id))` looks `User[a]` up once; a lambda written here costs
    /// nothing).
    pub fn function_argument(
        &mut self,
        f: &Expr,
        param_tys: &[Ty],
        place: &str,
    ) -> (FnTy, TExpr, Cost) {
        if let crate::syntax::ast::ExprKind::Lambda(params, body) = &f.kind {
            if params.len() == param_tys.len() {
                let checked = self.check_lambda(params, body, param_tys);
                if let Ty::Fn(func) = checked.ty {
                    return (*func, checked.tir, checked.cost);
                }
            }
        }
        let checked = self.check(f);
        let func = self.apply(&checked.ty, param_tys, f.span, place, AppliedBy::Combinator);
        (func, checked.tir, checked.cost)
    }

    /// What applying a value of type `callee` to arguments of `arg_tys`
    /// gives and costs: every function it may be, applied (a known one's
    /// parameters must admit the arguments; a delayed lambda is checked
    /// with them). Errors are reported at `span`; the result is then
    /// `Error`-typed at no cost. `place` is the function itself where it
    /// is called (`AppliedBy::Call`: `f(1)`), else what it is handed to
    /// (`map`).
    pub fn apply(
        &mut self,
        callee: &Ty,
        arg_tys: &[Ty],
        span: Span,
        place: &str,
        by: AppliedBy,
    ) -> FnTy {
        // The arguments' sums, for a call (`call_local` sets them just
        // before this): taken first, whatever this answers, so that no
        // other application reads them; read for every candidate.
        let sums = std::mem::take(&mut self.argument_sums);
        let direct = by == AppliedBy::Call;
        let unknown = FnTy {
            params: arg_tys.to_vec(),
            ret: Ty::Error,
            latent: Cost::zero(),
            proves: None,
        };
        let candidates = match callee {
            Ty::Fn(func) => vec![FnCandidate::Known((**func).clone())],
            Ty::Fns(candidates) => candidates.clone(),
            Ty::Error => return unknown,
            other => {
                let other = other.to_string();
                self.error(
                    "E0412",
                    format!("{place} takes a function here, and this is `{other}`"),
                    span,
                    "not a function",
                )
                .help
                .push("write a lambda: `x => x.field`".into());
                return unknown;
            }
        };
        let mut ret: Option<Ty> = None;
        let mut latent = Cost::zero();
        // Set again by the check of the lambda applied (none where its
        // answer is reused): what a `filter` given it by name reads.
        self.last_lambda_params.clear();
        let single = match candidates.as_slice() {
            [FnCandidate::Lambda(lambda)] => Some(lambda.clone()),
            _ => None,
        };
        for candidate in candidates {
            let (r, l) = match candidate {
                FnCandidate::Known(func) => {
                    if func.params.len() != arg_tys.len() {
                        self.value_arity(span, place, direct, func.params.len(), arg_tys.len());
                        return unknown;
                    }
                    let mut given = Vec::with_capacity(arg_tys.len());
                    for (arg, param) in arg_tys.iter().zip(&func.params) {
                        let arg = self.list_where_stream_taken(param, arg, span);
                        // Lambdas given where a function is taken are
                        // checked with the parameter types it passes, as
                        // a call's argument is (`call_local`), so that what
                        // a call of them costs fixes the parameter's
                        // measures (a returned function's own: `twice()`
                        // mapped over lambdas).
                        // A function a function returned, whose cost is in
                        // its own measures (`mkc(u)`), is resolved against
                        // what the parameter passes it too.
                        let unresolved = match &arg {
                            Ty::Fns(_) => true,
                            Ty::Fn(_) => super::returned::mentions_own(&arg),
                            _ => false,
                        };
                        let arg = match param {
                            Ty::Fn(expected) if unresolved => {
                                Ty::Fn(Box::new(self.as_function(&arg, expected, span, place)))
                            }
                            _ => arg,
                        };
                        if !param.accepts(&arg) {
                            self.value_mismatch(param, &arg, span, place, direct);
                            if let (Ty::Stream(_), Ty::List(..)) = (param, &arg) {
                                self.explain_no_stream_where_writes("a parameter `[T]`");
                            }
                            return unknown;
                        }
                        self.fits(&arg, param, span, place);
                        given.push(arg);
                    }
                    let (r, l) = super::returned::applied(&func, &given);
                    if by != AppliedBy::Parameter
                        && super::returned::grows_with_argument(&func.latent, &l)
                    {
                        self.unbounded_argument_cost(span, place, direct);
                    } else if by != AppliedBy::Parameter {
                        self.unbounded_made_cost(span, place, direct, &l);
                    }
                    (r, l)
                }
                FnCandidate::Lambda(lambda) => {
                    if lambda.params.len() != arg_tys.len() {
                        self.value_arity(span, place, direct, lambda.params.len(), arg_tys.len());
                        return unknown;
                    }
                    self.apply_delayed(&lambda, arg_tys, &sums)
                }
            };
            ret = Some(match ret {
                None => r,
                Some(previous) => super::join::join_types(&previous, &r),
            });
            latent = latent.max(&l);
        }
        // The one lambda applied, set after its body's own applications
        // (none where it may be one of several).
        self.last_applied = single;
        FnTy {
            params: arg_tys.to_vec(),
            ret: ret.unwrap_or(Ty::Error),
            latent,
            // What the one function applied proves, when a function made
            // it (`returned_guards.rs`): what `filter` given it reads.
            proves: Checker::made_guard(callee).cloned(),
        }
    }

    /// Whether `lambda`'s body may be checked for one more application:
    /// not inside [`MAX_LAMBDA_NESTING`] others (a lambda passed to
    /// itself: E0214), nor past [`MAX_LAMBDA_CHECKS`] (E0424).
    pub(super) fn may_check_body(&mut self, lambda: &DelayedLambda) -> bool {
        if self.lambda_checks.applying >= MAX_LAMBDA_NESTING {
            self.error(
                "E0214",
                format!(
                    "recursion is not allowed: lambdas are applied inside each other more than {MAX_LAMBDA_NESTING} levels deep, as a lambda passed to itself would be without end"
                ),
                lambda.body.span,
                "applied inside its own application",
            )
            .help
            .push(
                "iterate with the bounded combinators instead: `xs |> map(…)`, `flat_map`, `filter`, over a bounded list"
                    .into(),
            );
            return false;
        }
        self.one_more_check("lambdas", lambda.body.span)
    }

    /// Whether one more round of a call's fixed point (`self_applied.rs`)
    /// may check its function argument again: counted as a lambda's body
    /// checked, so nested fixed points stay within [`MAX_LAMBDA_CHECKS`]
    /// (E0424 past it, at `span`).
    pub(super) fn may_check_again(&mut self, span: Span) -> bool {
        self.one_more_check("functions", span)
    }

    /// One more body checked in this definition, within
    /// [`MAX_LAMBDA_CHECKS`]; past it E0424 at `span` (once), saying the
    /// definition applies its `what` in more ways than that.
    fn one_more_check(&mut self, what: &str, span: Span) -> bool {
        if self.lambda_checks.checked >= MAX_LAMBDA_CHECKS {
            let message =
                format!("this definition applies its {what} in more than {MAX_LAMBDA_CHECKS} ways");
            self.refuse_lambda_checks(message, span);
            return false;
        }
        self.lambda_checks.checked += 1;
        true
    }

    /// Drops what was reported since `reported` (a round or pass checked
    /// again), unless that holds the definition's E0424: it is reported
    /// once, so dropped it would be lost and the definition accepted with
    /// what the refused check left (an adversary's generated program was
    /// accepted with an unknown result and no error). `false` then, and
    /// the caller stops checking again.
    pub(super) fn drop_reported_since(&mut self, reported: usize) -> bool {
        let refusal = self.diagnostics[reported.min(self.diagnostics.len())..]
            .iter()
            .any(|d| d.code == "E0424");
        if !refusal {
            self.diagnostics.truncate(reported);
        }
        !refusal
    }

    /// E0424, once per definition: checking its lambdas again at each
    /// application passed a limit.
    pub(super) fn refuse_lambda_checks(&mut self, message: String, span: Span) {
        if std::mem::replace(&mut self.lambda_checks.refused, true) {
            return;
        }
        self.error("E0424", message, span, "checked again at every application")
            .help
            .push(
                "a lambda bound by `let` is checked again wherever it is applied, inside the expression that applies it; \
                 write it as a `fn`, which is checked once"
                    .into(),
            );
    }

    /// Checks that a value flowing where a function of type `expected` is
    /// taken (a definition's parameter) is one: a known function must admit
    /// what `expected` passes; each delayed lambda is checked with it. The
    /// answer has `expected`'s parameters and the value's result and cost.
    pub fn as_function(&mut self, value: &Ty, expected: &FnTy, span: Span, place: &str) -> FnTy {
        let mut applied = self.apply(value, &expected.params, span, place, AppliedBy::Parameter);
        // A curried result (`-> Int -> Int -> Int`): the lambda the
        // application returns takes its parameters' types from the rest
        // of the declaration, in turn.
        if matches!(expected.ret, Ty::Fn(_)) && matches!(applied.ret, Ty::Fn(_) | Ty::Fns(_)) {
            let callee = place.trim_matches('`');
            applied.ret = self.resolve_functions(&applied.ret, &expected.ret, span, callee);
        }
        if let Ty::Fn(func) = value {
            // The parameters were checked by `apply`; the result's shape here
            // (a type parameter not bound yet is bound to it by the caller).
            if expected.ret.generics().is_empty() && !expected.ret.accepts(&func.ret) {
                self.mismatch(&expected.ret, &func.ret, span, place);
            }
        }
        applied
    }
}

/// Whether `body` writes a lambda anywhere in it.
fn makes_lambdas(body: &Expr) -> bool {
    let mut found = false;
    crate::syntax::depth::each_expr(body, |e| {
        found |= matches!(e.kind, ExprKind::Lambda(..));
    });
    found
}

/// The parameters and body of the lambda `(p0, …) => function(p0, …)` of
/// `arity` parameters named `prefix` and a number, at an empty span after
/// `function` ([`Checker::delay_applying`], and a deferred call's,
/// `deferred.rs`).
pub(super) fn applying(function: Expr, prefix: &str, arity: usize) -> (Vec<Ident>, Expr) {
    let span = function.span;
    let at = Span::new(span.end as usize, span.end as usize);
    let params: Vec<Ident> = (0..arity)
        .map(|i| Ident {
            name: format!("{prefix}{i}"),
            span: at,
        })
        .collect();
    let args = params
        .iter()
        .map(|p| Expr {
            kind: ExprKind::Name(p.clone()),
            span: at,
        })
        .collect();
    let body = Expr {
        kind: ExprKind::Call(Box::new(function), args),
        span,
    };
    (params, body)
}
