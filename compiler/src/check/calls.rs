//! Calls: of built-in combinators and of functions written in RQL (instantiating
//! their cost signatures); function values are called in `called_values.rs`.

use super::expr::{Checked, Checker, FnSig};
use super::measures::{self, Bindings};
use super::modules::Symbol;
use super::narrowing::Condition;
use super::passing;
use super::schema_types::STREAM_PARAMETER;
use super::tir::TExpr;
use super::type_binding::merge_bindings;
use super::types::Ty;
use super::unknown_args::unknown_generics;
use crate::cost::Cost;
use crate::span::Span;
use crate::syntax::ast::{DefKind, Expr, ExprKind};

/// The name `f(a)(b)` gives the function value `f(a)` returns: no program
/// can write it (a name has no space).
pub const CALLED_VALUE: &str = "the called value";
use std::collections::BTreeMap;

impl Checker<'_> {
    /// `callee(args)`, or `input |> callee(args)` meaning `callee(input, args)`.
    pub fn check_call(
        &mut self,
        span: Span,
        callee: &Expr,
        input: Option<&Expr>,
        args: &[Expr],
    ) -> Checked {
        let all: Vec<&Expr> = input.into_iter().chain(args.iter()).collect();
        match &callee.kind {
            ExprKind::Name(name) => {
                if let Some(local) = self.scope.get(&name.name) {
                    let ty = local.ty.clone();
                    return self.call_local(span, &name.name, &ty, &all);
                }
                match self.index.lookup(self.module, &name.name).cloned() {
                    Some(Symbol::Def(def)) => {
                        self.refer(name.span, || super::expr::Target::Def(def));
                        return self.call_def(span, callee, def, &all);
                    }
                    Some(Symbol::Table(table)) => {
                        self.error(
                            "E0412",
                            format!("`{table}` is a table, not a function"),
                            callee.span,
                            "not callable",
                        )
                        .help
                        .push(format!("read rows by key with brackets: `{table}[…]`"));
                        return Checked::error();
                    }
                    _ => {}
                }
                if let Some(checked) = self.check_builtin(span, name, &all) {
                    return checked;
                }
                self.unknown_function(name);
                Checked::error()
            }
            ExprKind::Field(base, field) => {
                // A local named like a module hides it, as it hides a
                // definition: `lib.lim(n)` after `let lib = {lim: …}`
                // calls the record's field, as `lib.lim` reads it.
                if let ExprKind::Name(module) = &base.kind {
                    let module_symbol = match self.local(&module.name) {
                        Some(_) => None,
                        None => self.index.lookup(self.module, &module.name).cloned(),
                    };
                    if let Some(Symbol::Module(m)) = module_symbol {
                        return match self.index.scopes[m].get(&field.name).cloned() {
                            Some(Symbol::Def(def)) if self.index.defs[def].public => {
                                self.refer(field.span, || super::expr::Target::Def(def));
                                self.call_def(span, callee, def, &all)
                            }
                            Some(Symbol::Def(_)) => {
                                let module_name = self.index.modules[m].name.clone();
                                self.error(
                                    "E0212",
                                    format!("`{}.{}` is private", module.name, field.name),
                                    field.span,
                                    "not public",
                                )
                                .help
                                .push(format!("mark it `pub` in module `{module_name}`"));
                                Checked::error()
                            }
                            _ => {
                                self.error(
                                    "E0211",
                                    format!(
                                        "module `{}` has no function `{}`",
                                        module.name, field.name
                                    ),
                                    field.span,
                                    "not declared there",
                                )
                                .help
                                .push("check the name, and that it is declared `pub`".into());
                                Checked::error()
                            }
                        };
                    }
                }
                // Method syntax for a combinator (`xs.count()`): a pipe.
                if rqc_plan::Builtin::named(&field.name).is_some() {
                    let base = crate::syntax::printer::print_expr(base);
                    self.error(
                        "E0412",
                        format!(
                            "`{}` is a combinator, applied with `|>`, not a field",
                            field.name
                        ),
                        field.span,
                        "not a field",
                    )
                    .help
                    .push(format!("write `{base} |> {}(…)`", field.name));
                    return Checked::error();
                }
                // A field holding a function (`r.g(4)`): the value, called.
                self.call_value(span, callee, &all)
            }
            // `mk()(u)`, `(if c { f } else { g })(u)`: the function value
            // an expression gives, called as `{ let f = mk(); f(u) }` is,
            // under a name no program can write (a name has no space), so
            // it is checked as a function value in scope is: at its
            // application.
            ExprKind::Call(..)
            | ExprKind::If(..)
            | ExprKind::Block(..)
            | ExprKind::Lambda(..)
            | ExprKind::Pipe(..) => self.call_value(span, callee, &all),
            _ => {
                let help = "call a function by name: `f(x)` or `x |> f()`".to_string();
                self.error(
                    "E0412",
                    "this is not a function",
                    callee.span,
                    "not callable",
                )
                .help
                .push(help);
                Checked::error()
            }
        }
    }

    /// The signature of the definition `callee` names (`app`, `m.app`),
    /// as a call of it resolves it; `None` for anything else.
    pub(super) fn named_definition_sig(&self, callee: &Expr) -> Option<FnSig> {
        let def = match &callee.kind {
            ExprKind::Name(name) => match self.index.lookup(self.module, &name.name) {
                Some(Symbol::Def(def)) => *def,
                _ => return None,
            },
            ExprKind::Field(base, field) => {
                let ExprKind::Name(module) = &base.kind else {
                    return None;
                };
                if self.local(&module.name).is_some() {
                    return None;
                }
                let Some(Symbol::Module(m)) = self.index.lookup(self.module, &module.name) else {
                    return None;
                };
                match self.index.scopes[*m].get(&field.name) {
                    Some(Symbol::Def(def)) if self.index.defs[*def].public => *def,
                    _ => return None,
                }
            }
            _ => return None,
        };
        (self.sig_of)(def)
    }

    /// Instantiates a definition's signature at this call: binds type
    /// parameters to the join of what the arguments give them, then the
    /// signature's measures to the arguments' (spec/cost.md, "Calls").
    fn call_def(&mut self, span: Span, callee: &Expr, def: usize, args: &[&Expr]) -> Checked {
        let callee_span = callee.span;
        // What this call's result is about to be applied to, when the call
        // was deferred for it (`deferred.rs`).
        let hint = self.take_call_hint(span);
        let name = self.index.defs[def].name.clone();
        let Some(sig) = (self.sig_of)(def) else {
            self.error(
                "E0304",
                format!("`{name}` could not be checked, so neither can this call"),
                callee_span,
                "calls a rejected definition",
            )
            .help
            .push(format!("fix the errors reported at `{name}` first"));
            return Checked::error();
        };
        // This call's own instances of the functions it returns.
        let sig = self.fresh_own_instances(sig);
        // Its measures named apart from this definition's own, which the
        // arguments may carry into its type parameters: a callee's `x`
        // bound to 3 must not replace the caller's `x` inside a `T`.
        let sig = measures::apart(sig, &self.def_measures);
        if sig.kind == DefKind::Mutation && self.kind != DefKind::Mutation {
            self.error(
                "E0406",
                format!(
                    "a {} cannot call the mutation `{name}`",
                    self.kind.keyword()
                ),
                callee_span,
                "writes",
            )
            .help
            .push("only a mutation may write; declare this definition as a `mutation`".into());
            return Checked::error();
        }
        if sig.params.len() != args.len() {
            self.arity(span, &format!("`{name}`"), sig.params.len(), args.len());
            return Checked::error();
        }
        let mut generics: BTreeMap<String, Ty> = BTreeMap::new();
        let mut bindings = Bindings::new();
        let mut origins: Vec<(Bindings, Span)> = Vec::new();
        let mut cost = Cost::zero();
        let mut tirs: Vec<Option<TExpr>> = vec![None; args.len()];
        let mut arg_tys: Vec<Option<Ty>> = vec![None; args.len()];
        // Lambdas are checked last, with the parameter types the other
        // arguments fix; values first.
        let is_lambda_for_fn = |i: usize| {
            matches!(args[i].kind, ExprKind::Lambda(..)) && matches!(sig.params[i].1, Ty::Fn(_))
        };
        // The sums the arguments are, where the callee proves something of
        // its parameters and the call is inside a condition (`guards.rs`).
        let guard = sig.proves.clone().filter(|_| self.conditions_open > 0);
        // A function returning its parameter itself (`fn gid(x: T) -> T =
        // x`) given a condition, inside one, says what its argument says.
        let passes_on = sig
            .returns_param
            .filter(|_| self.conditions_open > 0 && guard.is_none());
        let summed = guard.is_some() || passes_on.is_some() || !sig.sum_measures.is_empty();
        let mut sums = vec![None; args.len()];
        // What each `Bool` argument says (`!c`, `n <= 10`, a call, a name
        // a `let` bound to a condition): read for its flag
        // (`guards::filled_with`).
        let mut said: Vec<Option<Condition>> = vec![None; args.len()];
        // A function value given the arguments only (`app(g, y)` for `fn
        // app(f: T -> T, x: T) = f(x)`) after the others, as a lambda is:
        // what it returns is the call's result, fed to nothing, so it fixes
        // no `T` its parameters take (`given_late`).
        let given_only = |i: usize| sig.result_fixes_nothing(i);
        let plain_order: Vec<usize> = (0..args.len())
            .filter(|&i| !is_lambda_for_fn(i) && !given_only(i))
            .chain((0..args.len()).filter(|&i| !is_lambda_for_fn(i) && given_only(i)))
            .collect();
        for i in plain_order {
            let (param, pty) = &sig.params[i];
            self.island_stream = None;
            // Checked inside a condition, as a `let`'s value is, so that
            // the sum it is keeps its names' ranges.
            let mark = summed.then(|| self.begin_condition());
            let mut checked = self.check(args[i]);
            if let Some(mark) = mark {
                sums[i] = self.guard_argument(args[i], &checked.ty);
                let says = self.condition(args[i], mark);
                if checked.ty == Ty::Bool && says != Condition::Opaque {
                    said[i] = Some(says);
                }
            }
            // An island (`Follow[u]`, a small table) given where a stream
            // is taken is the stream it also is (`island_stream.rs`), as
            // it is for a limit written after it.
            // Not in a mutation: there a `map` over an island writes for
            // every element, whatever follows (spec/cost.md §4.2), where
            // over a stream it writes for those read.
            let writes = self.may_write;
            if let (Ty::Stream(_), Ty::List(..), false) = (pty, &checked.ty, writes) {
                checked = self.read_as_stream_at(checked, args[i].span);
            }
            // A returned function's own ends fix nothing yet (`returned.rs`).
            let names = (param.as_str(), name.as_str());
            // An argument of no known type yet (a lambda's parameter
            // before it is applied) fixes no `T`: nor then does the
            // function, which is resolved once it is known.
            let unknown_before = arg_tys.iter().flatten().any(Ty::is_error);
            let bound = if given_late(&sig, i, &checked.ty, &generics, unknown_before) {
                // Its shape checked on a copy; its types bound once it is
                // resolved at the `T` the others fixed (`call_functions.rs`).
                let mut trial = generics.clone();
                self.bind_type(names, pty, &checked.ty, args[i].span, &mut trial, true)
            } else {
                self.bind_type(names, pty, &checked.ty, args[i].span, &mut generics, true)
            };
            if !bound {
                // What this argument would have fixed is unknown, not a
                // `T` every later use would be refused for again.
                unknown_generics(pty, &mut generics);
            }
            if let (false, true, Ty::Stream(_), Ty::List(..)) = (bound, writes, pty, &checked.ty) {
                self.explain_no_stream_where_writes(&format!("`{param}: [T]`"));
            }
            if bound {
                self.within_declared_ends(pty, &checked.ty, args[i].span, &name, param);
                // A function's declared result is checked once the call
                // has resolved the function (`results_within_declared`).
                let declared = sig.list_maxima.get(i).map_or(&[][..], Vec::as_slice);
                let at = (name.as_str(), param.as_str(), args[i].span);
                self.within_declared_maxima(at, declared, &checked.ty, false);
                arg_tys[i] = Some(checked.ty);
            }
            cost = cost.plus(&checked.cost);
            tirs[i] = Some(checked.tir);
        }
        // A type parameter only an argument of no known type could have
        // fixed (a lambda's parameter before the lambda is applied, or a
        // value an error was reported at) is unknown too: `Error`, which
        // fits everything, not a `T` that `+ 1` or a lambda would refuse.
        if arg_tys.iter().flatten().any(Ty::is_error) {
            for (_, pty) in &sig.params {
                unknown_generics(pty, &mut generics);
            }
        }
        // Type parameters only the application of the result fixes.
        if let Some(hint) = &hint {
            super::deferred::bind_from_hint(&sig.ret, hint, &mut generics);
        }
        // Measures of plain values, then of values holding functions (whose
        // expected parameter types may use the former).
        // Functions the callee only passes back, whose parameter types
        // nothing here fixes: returned as they are (`passing.rs`).
        for i in (0..args.len()).filter(|&i| !is_lambda_for_fn(i) && !sig.params[i].1.holds_fn()) {
            let Some(arg_ty) = &arg_tys[i] else {
                continue;
            };
            let mut own = Bindings::new();
            measures::bind(&sig.params[i].1, arg_ty, &mut own);
            merge_bindings(&mut bindings, &own);
            origins.push((own, args[i].span));
        }
        // Then functions, each once the call fixes its parameter types
        // (`call_functions.rs`).
        let site = super::call_functions::CallSite {
            span,
            name: &name,
            sig: &sig,
            args,
            arg_tys: &arg_tys,
        };
        let (kept, given_fns) = self.resolve_call_functions(
            &site,
            (&mut generics, &mut bindings, &mut origins, &mut tirs),
        );
        self.results_within_declared(&site, &given_fns);
        // A type parameter the callee compares may not be a stream or a function.
        for generic in &sig.inspects {
            if let Some(bound) = generics.get(generic) {
                if bound.holds_stream() || bound.holds_fn() {
                    let what = if bound.holds_stream() {
                        "a stream, which it would read in full"
                    } else {
                        "a function"
                    };
                    self.error(
                        if bound.holds_stream() {
                            "E0301"
                        } else {
                            "E0401"
                        },
                        format!(
                            "`{name}` compares its `{generic}` values, and here they are {what}"
                        ),
                        span,
                        "compared inside",
                    )
                    .help
                    .push(
                        "pass values that can be compared: limit a stream first with `|> take(n)`"
                            .into(),
                    );
                }
            }
        }
        // A type parameter only an untyped `none` could have fixed, once
        // every other argument had its say: unknown (`Error`), so the
        // result says so (E0536) rather than hold a `U` nothing bound.
        for (i, (_, pty)) in sig.params.iter().enumerate() {
            if matches!(&arg_tys[i], Some(Ty::Option(inner)) if inner.is_error()) {
                unknown_generics(pty, &mut generics);
            }
        }
        // A returned function whose parameter types hold a type parameter
        // no parameter holds (`fn konst(x: T) -> U -> T = u => x`): only
        // its application says what it is given, so the call is deferred
        // to it (`deferred.rs`), once.
        if let (None, Ty::Fn(returned)) = (&hint, &sig.ret) {
            let in_params: Vec<String> =
                sig.params.iter().flat_map(|(_, p)| p.generics()).collect();
            let unfixed = returned
                .params
                .iter()
                .flat_map(|p| p.generics())
                .any(|g| !generics.contains_key(&g) && !in_params.contains(&g));
            if unfixed {
                return self.deferred_after_arguments(span, callee, args, returned.params.len());
            }
        }
        // The signature's result with the functions it only passes back in
        // place; one it holds in another form (applied twice) that nothing
        // here fixes the parameter types of is deferred to where the result
        // is applied (`deferred.rs`), or else E0425.
        let mut passed = passing::passed_back(&sig, &kept);
        if let Some(i) = passing::kept_in_another_form(&sig, &kept, &passed) {
            if let (None, Ty::Fn(returned)) = (&hint, &sig.ret) {
                return self.deferred_call(span, callee, args, returned.params.len());
            }
            self.unfixed_lambda(args[i].span, &name, &sig.params[i].0);
            // Reported here: its uses would only repeat it.
            passed = Ty::Error;
        }
        // Measures only an argument of unknown type fixes: unknown, not
        // unbounded (`unknown_args.rs`).
        let unknown = super::unknown_args::unknown_measures(&sig, &arg_tys, &bindings);
        super::unknown_args::bind_unknown(&unknown, &mut bindings);
        let result_unknown = super::unknown_args::holds_unknown(&passed, &unknown);
        measures::close_bindings(&mut bindings);
        // Counts the callee measures as sums of its parameters, bound to
        // what is known here of the sums the arguments are.
        for measure in &sig.sum_measures {
            let fallback = measures::instantiate(&measure.fallback, &bindings);
            let bound = self.bound_sum_measure(measure, &sums, fallback);
            bindings.insert(measure.var, bound);
        }
        // The caller's own measures that its arguments brought in through
        // a type parameter (its parameter's ends inside the `T` a value
        // bound) stay its own: only the callee's unbound ones become
        // unbounded (`fn o(y: Int <= 10) = app(adder(5), y)` is `y + 5`).
        // The signature's were named apart from them above, so any other
        // measure left is the callee's, leaked through a binding (cut).
        let keep = &self.def_measures;
        let cut = |p: &crate::cost::Poly| measures::cut_callee_measures(p, keep, &name);
        let ret = match result_unknown {
            true => Ty::Error,
            false => passed
                .substitute_generics(&generics)
                .map_polys(&|p| cut(&measures::instantiate_keeping(p, &bindings, keep))),
        };
        let call_cost = sig.cost.map(|p| cut(&measures::instantiate(p, &bindings)));
        // The function given, resolved at parameter types in the callee's
        // measures, read in the caller's as the result is: bound, and any
        // left (its own result's, `g()` of `g(g(5))`) cut, never a variable
        // of the callee in the caller's formula, which another callee's
        // parameter of that name would bind (adversary round 61: `keep(y
        // => 1, h(x => x * 3))` printed 15 for 45).
        let given_fns: Vec<Option<Ty>> = given_fns
            .iter()
            .map(|given| {
                given.as_ref().map(|ty| {
                    ty.substitute_generics(&generics)
                        .map_polys(&|p| cut(&measures::instantiate_keeping(p, &bindings, keep)))
                })
            })
            .collect();
        // An unbounded argument is an error only where the callee's cost
        // depends on it (an unbounded value in the result is the caller's
        // to bound, where it uses it), and only when the call's cost is
        // unbounded with it: `min(x, k)` with `k` given 3 costs 3 whatever
        // `x` is.
        // A cost in a returned function's own measures (its body passing
        // the function it is given on: `g => big(g)`) is bounded where
        // that function is applied, and refused there if it is not
        // (`returned.rs`).
        let bounded = call_cost
            .measures()
            .iter()
            .all(|(_, p)| !p.grows_for_good() || super::returned::bounded_but_own(p));
        if !bounded {
            self.blame_unbounded_arguments(&name, &sig, &bindings, origins);
        }
        let qualified = self.index.def_name(def);
        // A stream the declared result type holds is the one the callee
        // returns, not a parameter of the caller: say so where it is read.
        let ret = ret.map(&|t| match t {
            Ty::Stream(stream) if stream.source.description == STREAM_PARAMETER => {
                let mut stream = stream.clone();
                stream.source.description = format!("the stream `{name}` returns");
                Some(Ty::Stream(stream))
            }
            _ => None,
        });
        if let Some(template) = &guard {
            self.record_guard_said(span, template, &sums, &said);
        }
        // Its value is the argument's: it says what the argument says
        // (`gid(n <= 10)` proves `n <= 10`; the verifier reads the inlined
        // body, the argument bound by a `let` read as what its value says).
        if let Some(says) = passes_on.and_then(|i| said.get(i)?.clone()) {
            self.record_said(span, says);
        }
        // A function that returns a parameter itself gives a predicate a
        // function made back as the caller knows it (`passg(le(10))`
        // proves what `le(10)` does), where its result, rebuilt from the
        // bound type parameters, would prove nothing. (Another value's
        // type the bound type parameters carry already, and the declared
        // result may say more than an untyped `none` given.)
        let returned = sig
            .returns_param
            .and_then(|i| arg_tys.get(i).cloned().flatten());
        let ret = match returned {
            Some(made) if !result_unknown && Checker::made_guard(&made).is_some() => made,
            _ => ret,
        };
        // A result it returns by applying the function it is given is
        // within what that function returns (`applied_results.rs`).
        let ret = match result_unknown {
            true => ret,
            false => super::applied_results::applied_result(&sig, &given_fns, ret),
        };
        // A predicate it makes proves what its body does (`returned_guards.rs`).
        let ret = Checker::made_predicate(ret, sig.returned_guard.as_ref(), &arg_tys);
        // A generic result takes its arguments' types: nested calls of a
        // function that returns a record of two may double it at each.
        self.type_within_limits(
            Checked::new(
                ret,
                cost.plus(&call_cost),
                TExpr::Call(
                    super::fn_id::FnId::new(&qualified),
                    tirs.into_iter()
                        .map(|t| t.unwrap_or(TExpr::Error))
                        .collect(),
                ),
            ),
            span,
        )
    }
}

/// Whether argument `i` of a call of `sig`, of type `arg`, is a function
/// given the call's arguments only ([`FnSig::given_arguments_only`]) whose
/// parameter types the other arguments fixed already: it is resolved at
/// them, and what it returns widens no `T` (`fn outer(g: Int -> Int, y:
/// Int) = app(g, y)` requires of `g` only `y`'s values, where binding `T`
/// to its result too made `g` required to take what it returns, with no
/// end; spec/cost.md §3, "Calls"). So too where another argument's type
/// is not known yet (`unknown_before`: `y` in a returned `y => app(g,
/// y)`, checked before it is applied), which leaves `T` unknown.
fn given_late(
    sig: &FnSig,
    i: usize,
    arg: &Ty,
    generics: &BTreeMap<String, Ty>,
    unknown_before: bool,
) -> bool {
    sig.result_fixes_nothing(i)
        && matches!(arg, Ty::Fn(_))
        && (unknown_before || !passing::unbound_parameters(&sig.params[i].1, generics))
}
