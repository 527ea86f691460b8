//! Checking one definition: its parameters, its body, its verdict and its signature.

use super::expr::{Checked, Checker, FnSig};
use super::tir::TExpr;
use super::types::{FnTy, Ty};
use super::Verdict;
use crate::cost::{class, Cost, Poly, Var};
use crate::syntax::ast::{Def, DefKind, SizeBound, TypeKind};
use crate::syntax::printer::print_param;
use rqc_plan::{ParamSpec, ParamType};

/// A query or mutation that was accepted, ready to be planned.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedEntry {
    pub module: String,
    pub name: String,
    pub kind: DefKind,
    /// Scalar parameters as the runtime takes them; `None` when a
    /// parameter is not a scalar (a bounded list).
    pub params: Option<Vec<ParamSpec>>,
    pub body: TExpr,
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
    pub body: Option<(Vec<String>, TExpr)>,
    /// Types and references found (filled in by `check_one`).
    pub facts: Vec<super::expr::Fact>,
}

impl Checker<'_> {
    pub fn check_definition(&mut self, def: &Def, module_name: &str) -> Outcome {
        let mut params = Vec::new();
        let mut specs: Option<Vec<ParamSpec>> = Some(Vec::new());
        for (position, param) in def.params.iter().enumerate() {
            if params
                .iter()
                .any(|(n, _): &(String, Ty)| *n == param.name.name)
            {
                self.error(
                    "E0203",
                    format!("parameter `{}` is declared twice", param.name.name),
                    param.name.span,
                    "second declaration",
                )
                .help
                .push("give each parameter its own name".into());
                continue;
            }
            let ty = self.resolve_type(&param.ty, Some(&def.generics));
            let (ty, value) = self.parameter(def, param, ty);
            if let Some(specs_list) = specs.as_mut() {
                let spec = match &ty {
                    Ty::List(elem, size) => {
                        super::schema_types::as_column(elem).map(|column| ParamSpec {
                            name: param.name.name.clone(),
                            ty: ParamType::List(column),
                            max: size.max_value().map(|m| m as i64),
                        })
                    }
                    other => super::schema_types::as_column(other).map(|column| ParamSpec {
                        name: param.name.name.clone(),
                        ty: ParamType::Scalar(column),
                        max: value
                            .as_ref()
                            .and_then(Poly::max_value)
                            .map(|m| m as i64)
                            .filter(|_| param.bound.is_some()),
                    }),
                };
                match spec {
                    Some(spec) => specs_list.push(spec),
                    None => specs = None,
                }
            }
            let tir = if def.kind == DefKind::Fn {
                TExpr::Local(param.name.name.clone())
            } else {
                TExpr::Param(position)
            };
            self.push_local(&param.name, ty.clone(), value, tir);
            params.push((param.name.name.clone(), ty));
        }
        let body = self.check(&def.body);
        if let Some(ret) = &def.ret {
            let declared = self.resolve_type(ret, Some(&def.generics));
            self.expect_type(
                &declared,
                &body.ty,
                def.body.span,
                "the declared result type",
            );
        }
        if def.kind != DefKind::Fn {
            if let Ty::Stream(stream) = &body.ty {
                let stream = (**stream).clone();
                self.reject_unconsumed(def.body.span, &stream, def.kind.keyword());
            }
        }
        let accepted = self.diagnostics.iter().all(|d| !d.is_error()) && bounded(&body.cost);
        if !accepted && self.diagnostics.iter().all(|d| !d.is_error()) {
            // Every unbounded cost is reported where it arises; this is the
            // backstop that keeps the promise if one is missed.
            self.error(
                "E0301",
                "this definition's cost is not bounded",
                def.name.span,
                "unbounded",
            )
            .help
            .push("see the cost of each part with `rqc explain`".into());
        }
        let params_text: Vec<String> = def.params.iter().map(print_param).collect();
        let signature = format!(
            "{}({}) -> {}",
            def.name.name,
            params_text.join(", "),
            body.ty
        );
        let verdict = Verdict {
            module: module_name.to_string(),
            name: def.name.name.clone(),
            kind: def.kind,
            signature: signature.clone(),
            cost: body.cost.clone(),
            accepted,
            class: class(&body.cost),
        };
        let sig = accepted.then(|| FnSig {
            kind: def.kind,
            params,
            ret: body.ty.clone(),
            cost: body.cost.clone(),
        });
        let entry = (accepted && def.kind != DefKind::Fn).then(|| CheckedEntry {
            module: module_name.to_string(),
            name: def.name.name.clone(),
            kind: def.kind,
            params: specs,
            body: body.tir.clone(),
            cost: body.cost.clone(),
            signature,
        });
        let inlined = accepted.then(|| {
            let names = def.params.iter().map(|p| p.name.name.clone()).collect();
            (names, body.tir.clone())
        });
        let _: Checked = body;
        Outcome {
            verdict,
            sig,
            entry,
            body: inlined,
            facts: Vec::new(),
        }
    }

    /// A parameter's type with its sizes, and its value bound for `Int`s.
    /// In a function they are generic (fixed at each call); in an entry
    /// point they come from the declared bounds.
    fn parameter(
        &mut self,
        def: &Def,
        param: &crate::syntax::ast::Param,
        ty: Ty,
    ) -> (Ty, Option<Poly>) {
        let name = param.name.name.clone();
        let entry = def.kind != DefKind::Fn;
        if param.bound.is_some() && !matches!(ty, Ty::Int) {
            self.error(
                "E0306",
                format!("only an `Int` parameter takes `<= N`, and `{name}` is `{ty}`"),
                param.span,
                "bound on a non-Int",
            )
            .help
            .push(format!(
                "bound a list by its type instead: `{name}: [Int; <= 50]`"
            ));
        }
        match ty {
            Ty::Int if entry => {
                let max = match &param.bound {
                    Some(SizeBound::Literal(n, _)) => Some((*n).max(0) as u64),
                    Some(SizeBound::Name(other)) => {
                        self.error(
                            "E0307",
                            "an entry point's bound is a number",
                            other.span,
                            "a name",
                        )
                        .help
                        .push(format!("write a literal: `{name}: Int <= 100`"));
                        None
                    }
                    None => None,
                };
                (Ty::Int, Some(Poly::var(Var::Param { name, max })))
            }
            Ty::Int => (Ty::Int, Some(Poly::var(Var::Arg(name)))),
            Ty::List(elem, _) if entry => {
                let size = match &param.ty.kind {
                    TypeKind::List(_, Some(SizeBound::Literal(n, _))) => Poly::var(Var::Param {
                        name: format!("|{name}|"),
                        max: Some((*n).max(0) as u64),
                    }),
                    TypeKind::List(_, Some(SizeBound::Name(other))) => {
                        match self.scope.iter().find(|l| l.name == other.name) {
                            Some(local) if local.value.is_some() => {
                                local.value.clone().expect("checked")
                            }
                            _ => {
                                self.error(
                                    "E0307",
                                    format!(
                                        "`{}` is not an earlier `Int` parameter with a bound",
                                        other.name
                                    ),
                                    other.span,
                                    "unknown bound",
                                )
                                .help
                                .push(format!("write a number: `{name}: [Int; <= 50]`"));
                                Poly::zero()
                            }
                        }
                    }
                    _ => {
                        self.error("E0303", format!("the list parameter `{name}` has no bound"), param.ty.span, "unbounded list")
                            .help
                            .push(format!("an entry point's list needs a maximum length: `{name}: [{elem}; <= 50]`"));
                        Poly::zero()
                    }
                };
                (Ty::list(*elem, size), None)
            }
            Ty::List(elem, _) => (Ty::list(*elem, Poly::var(Var::Size(name))), None),
            Ty::Fn(func) if entry => {
                self.error("E0305", format!("an entry point cannot take the function `{name}`"), param.ty.span, "a function parameter")
                    .help
                    .push("queries and mutations take values from outside; move the function into a `fn` they call".into());
                (Ty::Fn(func), None)
            }
            Ty::Fn(func) => (
                Ty::Fn(Box::new(FnTy {
                    params: func.params,
                    ret: func.ret,
                    latent: Cost::new(
                        Poly::var(Var::LatentSeeks(name.clone())),
                        Poly::var(Var::LatentRows(name)),
                    ),
                })),
                None,
            ),
            other => (other, None),
        }
    }
}

/// No large table and no unbounded parameter in the cost.
fn bounded(cost: &Cost) -> bool {
    cost.unbounded_tables().is_empty()
        && cost.seeks.unbounded_params().is_empty()
        && cost.rows.unbounded_params().is_empty()
}
