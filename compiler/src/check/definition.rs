//! Checking one definition: its parameters, its body, its verdict and its signature.

use super::expr::{Checker, FnSig};
use super::parameters::declared_list_maxima;
use super::tir::TExpr;
use super::types::Ty;
use super::Verdict;
use crate::cost::{class, Cost, Poly};
use crate::syntax::ast::{Def, DefKind, Expr, ExprKind, SizeBound, TypeKind};
use crate::syntax::printer::write_params;
use rqc_plan::{ParamSpec, ParamType};
use std::fmt::Write as _;

/// A query or mutation that was accepted, ready to be planned.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedEntry {
    pub module: String,
    pub name: String,
    pub kind: DefKind,
    /// Scalar parameters as the runtime takes them; `None` when a
    /// parameter is not a scalar (a bounded list).
    pub params: Option<Vec<ParamSpec>>,
    /// Shared with the definition's [`Outcome::body`].
    pub body: std::sync::Arc<TExpr>,
    pub cost: Cost,
    pub signature: String,
}

/// The outcome of one definition.
pub struct Outcome {
    pub verdict: Verdict,
    pub sig: Option<FnSig>,
    pub entry: Option<CheckedEntry>,
    /// An accepted definition's parameter names and typed body, for the
    /// planner to inline at each call.
    pub body: Option<super::tir::FnBody>,
    /// Types and references found (filled in by `check_one`).
    pub facts: Vec<super::expr::Fact>,
}

impl Checker<'_> {
    pub fn check_definition(&mut self, def: &Def, module_name: &str) -> Outcome {
        // Sized up front: each definition's lists are kept (signature,
        // entry), and a grown one keeps its spare room.
        let mut params = Vec::with_capacity(def.params.len());
        let mut specs: Option<Vec<ParamSpec>> = Some(Vec::with_capacity(def.params.len()));
        let generics = super::schema_types::TypeParams::new(&def.generics);
        for (position, param) in def.params.iter().enumerate() {
            // The scope holds just the parameters so far (a search of them
            // per parameter grew with the square of their number).
            if self.scope.contains(&param.name.name) {
                self.declared_twice(&param.name);
                continue;
            }
            let ty = self.resolve_type(&param.ty, Some(&generics));
            let ty = self.parameter(def, param, ty);
            if let Some(specs_list) = specs.as_mut() {
                let spec = match &ty {
                    Ty::List(elem, size, _) => {
                        let sized_by = match &param.ty.kind {
                            TypeKind::List(_, Some(SizeBound::Name(other))) => {
                                def.params.iter().position(|p| p.name.name == other.name)
                            }
                            _ => None,
                        };
                        let element = match elem.as_ref() {
                            Ty::Record(fields) => fields
                                .iter()
                                .map(|(name, ty)| {
                                    super::schema_types::as_column(ty).map(|c| (name.clone(), c))
                                })
                                .collect::<Option<Vec<_>>>()
                                .map(ParamType::Records),
                            other => super::schema_types::as_column(other).map(ParamType::List),
                        };
                        element.map(|ty| ParamSpec {
                            name: param.name.name.clone(),
                            ty,
                            max: size.max_value().map(|m| m as i64),
                            min: None,
                            max_param: sized_by,
                        })
                    }
                    // The ends as declared: the runtime refuses an argument
                    // outside them (E0522) before the run.
                    other => super::schema_types::as_column(other).map(|column| ParamSpec {
                        name: param.name.name.clone(),
                        ty: ParamType::Scalar(column),
                        max: match &param.bound {
                            Some(SizeBound::Literal(n, _)) => Some(*n),
                            _ => None,
                        },
                        min: param.lower.map(|(n, _)| n),
                        max_param: None,
                    }),
                };
                match spec {
                    Some(spec) => specs_list.push(spec),
                    None => {
                        // A type no caller could pass: said, never an
                        // entry point silently left out of the program.
                        if def.kind != DefKind::Fn
                            && !matches!(ty, Ty::Fn(_) | Ty::Fns(_) | Ty::Error)
                        {
                            self.error(
                                "E0309",
                                format!(
                                    "no caller can pass `{}` its parameter `{}`",
                                    def.name.name, param.name.name
                                ),
                                param.ty.span,
                                "not a type an argument can have",
                            )
                            .help
                            .push("an entry point takes column types (`Int`, `Float`, `String`, `Bool`, optional ones), lists of them, or lists of records of them: `rows: [{ id: Int, name: String }; <= 100]`".into());
                        }
                        specs = None
                    }
                }
            }
            let tir = if def.kind == DefKind::Fn {
                TExpr::Local(param.name.name.clone())
            } else {
                TExpr::Param(position)
            };
            self.push_local(&param.name, ty.clone(), tir);
            params.push((param.name.name.clone(), ty));
        }
        // A function given a function (or a type parameter, which a call
        // may bind to one), or a stream (which may carry a writing `map`),
        // may run a mutation's writing lambda.
        self.may_write = def.kind == DefKind::Mutation
            || params.iter().any(|(_, ty)| {
                ty.holds_fn()
                    || !ty.generics().is_empty()
                    || ty.any(&|t| matches!(t, Ty::Stream(_)))
            });
        // A callee's measures are renamed apart from these at each call.
        self.def_measures = params
            .iter()
            .flat_map(|(_, ty)| super::measures::generic_vars(ty))
            .collect();
        // A function's list parameter's declared `<= n`, which its callers
        // prove (E0321): the body may pass the list on where `<= n` is asked.
        self.declared_sizes = def
            .params
            .iter()
            .filter(|_| def.kind == DefKind::Fn)
            .flat_map(|p| {
                declared_list_maxima(&p.ty).into_iter().map(|(steps, n)| {
                    let length = super::parameters::length_measure(&p.name.name, &steps);
                    (
                        crate::cost::Var::new(crate::cost::VarKind::Generic(length)),
                        n,
                    )
                })
            })
            .collect();
        let declared = def
            .ret
            .as_ref()
            .map(|ret| self.resolve_type(ret, Some(&generics)));
        self.checking_entry = def.kind != DefKind::Fn;
        self.fn_params = match def.kind {
            DefKind::Fn => self.params_named(def),
            _ => Vec::new(),
        };
        self.sum_measures.clear();
        let guard = self.begin_guard(def, declared.as_ref());
        let returned_guard = self.begin_returned_guard(def, declared.as_ref());
        let mut body = self.check_expected(&def.body, declared.as_ref());
        let proves = self.guard_proved(guard, &def.body, &body.ty);
        if let Some(declared) = &declared {
            if self.expect_type(
                declared,
                &body.ty,
                def.body.span,
                "the declared result type",
            ) {
                let subject = format!("the result of `{}`", def.name.name);
                let reported = self.diagnostics.len();
                self.within_declared_lengths(
                    (declared, &subject),
                    (&body.ty, "its body"),
                    def.body.span,
                );
                body.ty = body.ty.with_declared_options(declared);
                if def.kind == DefKind::Fn {
                    // Lambdas it returns take their parameters' types from the
                    // declaration (`-> Int -> Int`): checked with them now, the
                    // result carries each one's latent cost to the callers.
                    // Their parameters' ends are their own variables, so the
                    // result keeps what each application passes (`returned.rs`).
                    body.ty =
                        self.resolve_returned(&body.ty, declared, def.body.span, &def.name.name);
                    // What a function it returns returns, now resolved
                    // (`-> Int -> [Int; <= 1] = x => [x, x, x]`), once.
                    if self.diagnostics.len() == reported {
                        let subject = format!("the result of what `{}` returns", def.name.name);
                        let found = (&body.ty, "its body");
                        self.within_declared_lengths((declared, &subject), found, def.body.span);
                    }
                }
            }
        }
        let returned_guard = self.returned_guard_proved(returned_guard, def);
        // A list or an island read as a stream here must not leave in the
        // result (a stream, or a function that takes a function, which a
        // mutation may give a writing lambda): its writes would be mapped
        // over it lazily, where over the list itself they are made for
        // every element.
        if let (DefKind::Fn, Some(at)) = (def.kind, self.read_as_stream) {
            // A function that takes a function may be given a writing one.
            let takes_a_function = |t: &Ty| match t {
                Ty::Fn(f) => f
                    .params
                    .iter()
                    .any(|p| p.holds_fn() || !p.generics().is_empty()),
                Ty::Fns(_) => true,
                _ => false,
            };
            if body
                .ty
                .any(&|t| matches!(t, Ty::Stream(_)) || takes_a_function(t))
            {
                self.error(
                    "E0401",
                    format!(
                        "`{}` reads a list as a stream and returns a stream, or a function that takes a function, which could bring a mutation's writes to it",
                        def.name.name
                    ),
                    at,
                    "read as a stream here",
                )
                .help
                .push("limit it here (`|> take(n)`) and return the list, or take and return a list (`[T]`): a mutation's writes over a list are counted for every element".into());
            }
        }
        if def.kind != DefKind::Fn {
            // The result is encoded whole, for the caller or as JSON.
            let walked = self.note_value_size(&body.ty, def.body.span);
            body.cost = body.cost.plus(&Cost::steps(walked));
            self.check_result(def, &body.ty);
            if declared.is_none() {
                self.untyped_result(def, &body.ty);
            }
        } else if body.ty.holds_delayed() {
            self.error(
                "E0417",
                "this function returns a lambda whose parameter types nothing fixes",
                def.body.span,
                "a lambda, returned",
            )
            .help
            .push(format!(
                "declare the function's result type, which gives the lambda its parameters' types: `fn {}(…) -> Int -> Int = …`; or pass the lambda to where it is used",
                def.name.name
            ));
        }
        // What the function parameters' own parameters must admit: the
        // largest use in the body.
        let solve = |p: &Poly| self.requirements.solve(p);
        let params: Vec<(String, Ty)> = params
            .into_iter()
            .map(|(n, t)| (n, t.map_polys(&solve)))
            .collect();
        let ret_ty = body.ty.map_polys(&solve);
        // What a call costs (a mutation called by another runs inside the
        // caller's transaction), and what a run of the entry point costs:
        // a mutation's commit reads the changelog's head and commits.
        let body_cost = body.cost.map(solve);
        self.values_within_reads(&body_cost);
        if def.kind != DefKind::Fn {
            // What the caller passes in counts as what it reads: ranking
            // a list argument's elements pairwise is as fair as rows'.
            let passed: u64 = params
                .iter()
                .filter_map(|(_, ty)| ty.values().max_value())
                .fold(0, u64::saturating_add);
            self.steps_within_reads(&body_cost, passed, def.name.span);
        }
        let mut cost = body_cost.clone();
        if def.kind == DefKind::Mutation {
            cost.trips = cost
                .trips
                .plus(&Poly::constant(rqc_plan::COMMIT_ROUND_TRIPS));
        }
        let tir = std::sync::Arc::new(self.resolve_lambdas(body.tir));
        // A body that could not be typed somewhere (a table declared with
        // errors, a syntax error inside it) is not run: its error is
        // reported where it is.
        let whole = !super::tir::contains_error(&tir);
        let mut clean = self.diagnostics.iter().all(|d| !d.is_error());
        if !whole && clean {
            // Nothing here reported it: a `none` whose type nothing fixed,
            // used where its type matters (`none |> map(o => o |> count())`).
            if let Some(none) = self.untyped_none {
                self.untyped_none_used(none);
                clean = false;
            }
        }
        if def.kind != DefKind::Fn && bounded(&cost) && clean {
            self.ceiling(def, &cost);
        }
        if whole && ret_ty.is_error() && self.diagnostics.iter().all(|d| !d.is_error()) {
            // No silent fallback: a result of no type is where an error was
            // reported, so one reported nowhere is a bug in the checker,
            // never a program to run.
            self.error(
                "E0598",
                format!(
                    "the checker found no type for `{}`'s result and reported no error: a bug in rqc",
                    def.name.name
                ),
                def.name.span,
                "no type found",
            )
            .help
            .push("report it with the program; until it is fixed, write the result's type (`-> Int`) or split the expression".into());
        }
        let accepted = self.diagnostics.iter().all(|d| !d.is_error()) && bounded(&cost) && whole;
        if !accepted && whole && self.diagnostics.iter().all(|d| !d.is_error()) {
            // Every unbounded cost is reported where it arises; this is the
            // backstop that keeps the promise if one is missed.
            let mut notes: Vec<String> = Vec::new();
            for (measure, poly) in cost.measures() {
                if !poly.grows_for_good() {
                    continue;
                }
                let mut why: Vec<String> = poly
                    .unbounded_params()
                    .iter()
                    .map(|name| format!("`{name}`"))
                    .collect();
                why.extend(poly.tables().iter().map(|t| format!("the size of `{t}`")));
                if !why.is_empty() {
                    notes.push(format!(
                        "its {measure} grow with {}, which nothing bounds",
                        why.join(" and ")
                    ));
                }
            }
            let d = self.error(
                "E0301",
                "this definition's cost is not bounded",
                def.name.span,
                "unbounded",
            );
            d.help
                .push("see the cost of each part with `rqc explain`".into());
            d.notes.extend(notes);
        }
        let mut signature = def.name.name.clone();
        write_params(&mut signature, &def.params);
        // A result that could not be typed (it calls a rejected
        // definition, say) has no type to show: the cause stands instead.
        if !ret_ty.any(&Ty::is_error) {
            // Writing to a `String` cannot fail.
            let _ = write!(signature, " -> {ret_ty}");
        } else if let (Some(declared), true) = (&def.ret, accepted) {
            // Accepted with a part of no type (`none` of a declared
            // optional function, which holds none): as declared.
            let _ = write!(
                signature,
                " -> {}",
                crate::syntax::printer::print_type(declared)
            );
        }
        let cause = self
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .filter(|_| !accepted)
            .map(|d| format!("{}: {}", d.code, d.message));
        let verdict = Verdict {
            module: module_name.to_string(),
            name: def.name.name.clone(),
            kind: def.kind,
            signature: signature.clone(),
            cost: cost.clone(),
            accepted,
            class: class(&cost),
            cause,
        };
        let param_names: Vec<String> = def.params.iter().map(|p| p.name.name.clone()).collect();
        let plain_values: Vec<bool> = params.iter().map(|(_, ty)| !ty.holds_fn()).collect();
        let applied_directly =
            super::signature::applied_parameter(&def.body, &param_names).filter(|_| {
                super::signature::applied_to_parameters(&def.body, &param_names, &plain_values)
            });
        let applied_through = applied_directly.is_none().then(|| {
            // A parameter of the same name hides the definition.
            let callee_sig = |callee: &Expr| match &callee.kind {
                ExprKind::Name(name) if param_names.contains(&name.name) => None,
                _ => self.named_definition_sig(callee),
            };
            super::signature::applied_through_call(
                &def.body,
                &param_names,
                &plain_values,
                &callee_sig,
            )
        });
        let returns_applied = match applied_through.flatten() {
            Some(i) => Some(i),
            None => super::signature::applied_parameter(&def.body, &param_names),
        };
        let applied_to_arguments =
            applied_directly.is_some() || applied_through.flatten().is_some();
        let sig = accepted.then(|| FnSig {
            kind: def.kind,
            params,
            ret: ret_ty,
            cost: signature_steps(body_cost),
            inspects: self.inspected.iter().cloned().collect(),
            list_maxima: def
                .params
                .iter()
                .map(|p| match def.kind {
                    DefKind::Fn => declared_list_maxima(&p.ty),
                    _ => Vec::new(),
                })
                .collect(),
            uses: self.requirements.uses(),
            proves,
            returned_guard,
            sum_measures: std::mem::take(&mut self.sum_measures),
            returns_param: super::signature::returned_parameter(&def.body, &param_names),
            returns_applied,
            applied_to_arguments,
            unread: {
                let read = def.body.free_names();
                param_names.iter().map(|p| !read.contains(p)).collect()
            },
        });
        let entry = (accepted && def.kind != DefKind::Fn).then(|| CheckedEntry {
            module: module_name.to_string(),
            name: def.name.name.clone(),
            kind: def.kind,
            params: specs,
            body: tir.clone(),
            cost: cost.clone(),
            signature,
        });
        let inlined = accepted.then(|| {
            let names = def.params.iter().map(|p| p.name.name.clone()).collect();
            (names, tir)
        });
        Outcome {
            verdict,
            sig,
            entry,
            body: inlined,
            facts: Vec::new(),
        }
    }
}

/// No large table and no unbounded parameter in the cost.
fn bounded(cost: &Cost) -> bool {
    cost.unbounded_tables().is_empty()
        && cost
            .measures()
            .iter()
            .all(|(_, poly)| poly.unbounded_params().is_empty())
}

/// The cost a signature gives its callers, its steps' constant part
/// rounded up to a multiple of 16: an edit that adds or removes a few
/// operators in a body keeps its signature, so the callers' checks are
/// not run again (`compiler/tests/incremental.rs`). The rounding adds at
/// most 15 steps per call, not a factor, so a chain of calls grows by
/// its length, not exponentially.
fn signature_steps(mut cost: Cost) -> Cost {
    const STEP_ROUNDING: u64 = 16;
    let constant = cost.steps.constant_term();
    let rounded = constant
        .div_ceil(STEP_ROUNDING)
        .saturating_mul(STEP_ROUNDING);
    cost.steps = cost.steps.plus(&Poly::constant(rounded - constant));
    cost
}
