//! Calls: of built-in combinators, of functions written in RQL (instantiating
//! their cost signatures), and of function values in scope.

use super::expr::{unbounded_value, Checked, Checker};
use super::modules::Symbol;
use super::tir::TExpr;
use super::types::Ty;
use crate::cost::{Cost, Poly, Var};
use crate::span::Span;
use crate::syntax::ast::{DefKind, Expr, ExprKind};
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
                if let Some(local) = self.scope.iter().rev().find(|l| l.name == name.name) {
                    let ty = local.ty.clone();
                    return self.call_local(span, &name.name, &ty, &all);
                }
                match self.index.lookup(self.module, &name.name).cloned() {
                    Some(Symbol::Def(def)) => {
                        self.refer(name.span, super::expr::Target::Def(def));
                        return self.call_def(span, callee.span, def, &all);
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
                if let ExprKind::Name(module) = &base.kind {
                    if let Some(Symbol::Module(m)) =
                        self.index.lookup(self.module, &module.name).cloned()
                    {
                        return match self.index.scopes[m].get(&field.name).cloned() {
                            Some(Symbol::Def(def)) if self.index.defs[def].public => {
                                self.refer(field.span, super::expr::Target::Def(def));
                                self.call_def(span, callee.span, def, &all)
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
                self.error("E0412", "this is not a function", callee.span, "not callable")
                    .help
                    .push("call a function by name: `f(x)` or `x |> f()`; fields are read without parentheses".into());
                Checked::error()
            }
            _ => {
                self.error(
                    "E0412",
                    "this is not a function",
                    callee.span,
                    "not callable",
                )
                .help
                .push("call a function by name: `f(x)` or `x |> f()`".into());
                Checked::error()
            }
        }
    }

    fn unknown_function(&mut self, name: &crate::syntax::ast::Ident) {
        let mut known: Vec<String> = super::builtins::BUILTINS
            .iter()
            .map(|s| s.to_string())
            .collect();
        known.extend(
            self.index.scopes[self.module]
                .iter()
                .filter(|(_, s)| matches!(s, Symbol::Def(_)))
                .map(|(n, _)| n.clone()),
        );
        let refs: Vec<&str> = known.iter().map(String::as_str).collect();
        let suggestion = super::names::closest(&name.name, &refs).map(str::to_string);
        let d = self.error(
            "E0201",
            format!("no function named `{}`", name.name),
            name.span,
            "unknown function",
        );
        d.help.push(match suggestion {
            Some(close) => format!("did you mean `{close}`?"),
            None => "the combinators are take, first, exists, map, filter, flat_map, flatten, sort_by, group_by, distinct, count, sum, min, max, any, all, unwrap_or; or import a function: `import module.{f}`".into(),
        });
    }

    fn call_local(&mut self, span: Span, name: &str, ty: &Ty, args: &[&Expr]) -> Checked {
        let Ty::Fn(func) = ty else {
            self.error(
                "E0412",
                format!("`{name}` is a `{ty}`, not a function"),
                span,
                "not callable",
            )
            .help
            .push("only functions are called".into());
            return Checked::error();
        };
        if func.params.len() != args.len() {
            self.arity(span, name, func.params.len(), args.len());
            return Checked::error();
        }
        let mut cost = Cost::zero();
        let mut tirs = Vec::new();
        for (param, arg) in func.params.iter().zip(args) {
            let checked = self.check_expected(arg, Some(param));
            self.expect_type(
                param,
                &checked.ty,
                arg.span,
                &format!("`{name}` takes `{param}`"),
            );
            cost = cost.plus(&checked.cost);
            tirs.push(checked.tir);
        }
        Checked::new(
            func.ret.clone(),
            cost.plus(&func.latent),
            TExpr::CallLocal(name.to_string(), tirs),
        )
    }

    fn arity(&mut self, span: Span, name: &str, expected: usize, found: usize) {
        self.error(
            "E0414",
            format!(
                "`{name}` takes {expected} argument{}, {found} given",
                if expected == 1 { "" } else { "s" }
            ),
            span,
            "wrong number of arguments",
        )
        .help
        .push("with `x |> f(a)`, `x` is the first argument".into());
    }

    /// Instantiates a definition's signature at this call: binds type
    /// parameters, then replaces the sizes, values and latent costs the
    /// signature is generic over by the arguments'.
    fn call_def(&mut self, span: Span, callee_span: Span, def: usize, args: &[&Expr]) -> Checked {
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
            self.arity(span, &name, sig.params.len(), args.len());
            return Checked::error();
        }
        let mut generics: BTreeMap<String, Ty> = BTreeMap::new();
        let mut substitutions: Vec<(Var, Poly)> = Vec::new();
        let mut unbounded_args: Vec<(String, Span)> = Vec::new();
        let mut cost = Cost::zero();
        let mut tirs: Vec<Option<TExpr>> = vec![None; args.len()];
        let mut deferred = Vec::new();
        for (i, ((param, pty), arg)) in sig.params.iter().zip(args).enumerate() {
            if matches!(arg.kind, ExprKind::Lambda(..)) && matches!(pty, Ty::Fn(_)) {
                deferred.push(i);
                continue;
            }
            let checked = self.check(arg);
            self.bind_argument(
                param,
                pty,
                &checked,
                arg.span,
                &name,
                &mut generics,
                &mut substitutions,
            );
            if matches!(pty, Ty::Int)
                && checked
                    .value
                    .as_ref()
                    .is_none_or(|v| !v.unbounded_params().is_empty())
            {
                unbounded_args.push((param.clone(), arg.span));
            }
            cost = cost.plus(&checked.cost);
            tirs[i] = Some(checked.tir);
        }
        for i in deferred {
            let (param, pty) = &sig.params[i];
            let expected = pty.substitute_generics(&generics);
            let checked = self.check_expected(args[i], Some(&expected));
            self.bind_argument(
                param,
                pty,
                &checked,
                args[i].span,
                &name,
                &mut generics,
                &mut substitutions,
            );
            tirs[i] = Some(checked.tir);
        }
        let substitute = |p: &Poly| {
            substitutions
                .iter()
                .fold(p.clone(), |acc, (var, value)| acc.substitute(var, value))
        };
        let ret = sig
            .ret
            .substitute_generics(&generics)
            .map_polys(&substitute);
        let call_cost = Cost::new(substitute(&sig.cost.seeks), substitute(&sig.cost.rows));
        // An unbounded argument is an error only where the callee's bound
        // depends on it.
        for (param, arg_span) in unbounded_args {
            let var = Var::Arg(param.clone());
            let uses = sig.cost.seeks.vars().contains(&var)
                || sig.cost.rows.vars().contains(&var)
                || ty_mentions(&sig.ret, &var);
            if uses {
                self.error(
                    "E0302",
                    format!("`{name}` reads up to `{param}` rows, and this argument has no bound"),
                    arg_span,
                    "unbounded",
                )
                .help
                .push(
                    "pass a literal, or a parameter declared with a bound such as `n: Int <= 100`"
                        .into(),
                );
            }
        }
        let qualified = self.index.def_name(def);
        Checked::new(
            ret,
            cost.plus(&call_cost),
            TExpr::Call(
                qualified,
                tirs.into_iter()
                    .map(|t| t.unwrap_or(TExpr::Error))
                    .collect(),
            ),
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn bind_argument(
        &mut self,
        param: &str,
        pty: &Ty,
        arg: &Checked,
        span: Span,
        callee: &str,
        generics: &mut BTreeMap<String, Ty>,
        substitutions: &mut Vec<(Var, Poly)>,
    ) {
        let expected = pty.substitute_generics(generics);
        if !expected.accepts(&arg.ty) && !bind(pty, &arg.ty, generics) {
            self.mismatch(
                &expected,
                &arg.ty,
                span,
                &format!("parameter `{param}` of `{callee}`"),
            );
            return;
        }
        bind(pty, &arg.ty, generics);
        match (pty, &arg.ty) {
            (Ty::List(..), Ty::List(_, size)) => {
                substitutions.push((Var::Size(param.to_string()), size.clone()))
            }
            (Ty::Int, _) => substitutions.push((
                Var::Arg(param.to_string()),
                arg.value.clone().unwrap_or_else(|| unbounded_value(param)),
            )),
            (Ty::Fn(_), Ty::Fn(func)) => {
                substitutions.push((
                    Var::LatentSeeks(param.to_string()),
                    func.latent.seeks.clone(),
                ));
                substitutions.push((Var::LatentRows(param.to_string()), func.latent.rows.clone()));
            }
            _ => {}
        }
    }
}

/// Binds type parameters of `param` to the parts of `arg`; false when the
/// shapes differ.
fn bind(param: &Ty, arg: &Ty, generics: &mut BTreeMap<String, Ty>) -> bool {
    match (param, arg) {
        (_, Ty::Error) => true,
        (Ty::Generic(name), _) => match generics.get(name) {
            Some(bound) => bound.accepts(arg) || arg.accepts(bound),
            None => {
                generics.insert(name.clone(), arg.clone());
                true
            }
        },
        (Ty::List(p, _), Ty::List(a, _)) => bind(p, a, generics),
        (Ty::Option(p), Ty::Option(a)) => bind(p, a, generics),
        (Ty::Option(p), a) => bind(p, a, generics),
        (Ty::Stream(p), Ty::Stream(a)) => bind(&p.elem, &a.elem, generics),
        (Ty::Fn(p), Ty::Fn(a)) => {
            p.params.len() == a.params.len()
                && p.params
                    .iter()
                    .zip(&a.params)
                    .all(|(x, y)| bind(x, y, generics))
                && bind(&p.ret, &a.ret, generics)
        }
        (Ty::Record(p), Ty::Record(a)) => p
            .iter()
            .all(|(n, t)| a.iter().any(|(m, u)| n == m && bind(t, u, generics))),
        _ => param.accepts(arg),
    }
}

fn ty_mentions(ty: &Ty, var: &Var) -> bool {
    let found = std::cell::Cell::new(false);
    ty.map_polys(&|p: &Poly| {
        if p.vars().contains(var) {
            found.set(true);
        }
        p.clone()
    });
    found.get()
}
