//! The combinators over a bounded list (or an option, as a list of ≤ 1): their result types, their costs and the steps they take (spec/cost.md §4.3, §2 "Steps").

use super::expr::{Checked, Checker};
use super::tir::TExpr;
use super::types::Ty;
use crate::cost::{Interval, Poly};
use crate::span::Span;
use crate::syntax::ast::Expr;
use rqc_plan::{Builtin, Shape};

impl Checker<'_> {
    /// A combinator over a bounded list (or an option, as a list of ≤ 1).
    // The input's parts arrive apart because each caller has already taken
    // the checked input apart to find its shape, element and size.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn list_op(
        &mut self,
        op: Builtin,
        span: Span,
        input: Checked,
        kind: Shape,
        elem: Ty,
        size: Poly,
        list: &Expr,
        rest: &[&Expr],
    ) -> Checked {
        // `distinct` keeps every value once, `sort_by` every value: their
        // least and greatest too.
        let extremes = input.ty.kept_extremes();
        let mut tirs = vec![input.tir];
        let mut cost = input.cost;
        let place = format!("`{op}`");
        let mut per_call = |this: &mut Self, f: &Expr, params: Vec<Ty>| {
            let (func, tir, once) = this.function_argument(f, &params, &place);
            // As `map`: one batch per level of reads when it cannot write.
            cost = cost
                .plus(&once)
                .plus(&if super::batch::batched(this.kind, &tir) {
                    func.latent.batched(&size)
                } else {
                    func.latent.times(&size)
                });
            tirs.push(tir);
            func
        };
        let elem_walked = elem.clone();
        // What a sort's, `min`'s or `max`'s comparisons read: its key.
        let mut compared: Option<Ty> = None;
        let ty = match op {
            Builtin::Filter => {
                // The predicate's comparisons, read as a condition: what it
                // proves of its parameter holds of every element kept.
                let mark = self.begin_condition();
                self.last_lambda_params.clear();
                self.last_applied = None;
                let applied = per_call(self, rest[0], vec![elem.clone()]);
                self.expect_type(
                    &Ty::Bool,
                    &applied.ret,
                    rest[0].span,
                    "`filter` keeps the elements its function says true for",
                );
                let elem = match self.predicate_says(rest[0], mark) {
                    Some((param, kept)) => {
                        let param = (param.as_str(), self.last_lambda_params.first());
                        self.kept_by(param, &kept, elem)
                    }
                    // A predicate a function made (`filter(le(10))`).
                    None => match &applied.proves {
                        Some(guard) => self.kept_by_made(guard, elem),
                        None => elem,
                    },
                };
                Ty::list(elem, size.clone())
            }
            Builtin::Any | Builtin::All => {
                // The predicate's comparisons, read as a condition: what it
                // proves of its parameter holds of every element where
                // `all` is true (`any` false), `elements.rs`.
                let mark = self.begin_condition();
                self.last_lambda_params.clear();
                self.last_applied = None;
                let applied = per_call(self, rest[0], vec![elem.clone()]);
                self.expect_type(
                    &Ty::Bool,
                    &applied.ret,
                    rest[0].span,
                    "the function answers true or false",
                );
                let says = match self.predicate_says(rest[0], mark) {
                    Some((param, says)) => {
                        let binding = self.last_lambda_params.first().copied();
                        binding.map(|binding| ((param, binding), says))
                    }
                    // A predicate a function made (`all(xs, le(10))`).
                    None => applied
                        .proves
                        .as_ref()
                        .and_then(|guard| super::returned_guards::made_says(guard, &elem)),
                };
                self.record_elements(op == Builtin::All, span, list, says);
                Ty::Bool
            }
            Builtin::FlatMap => {
                let ret = per_call(self, rest[0], vec![elem.clone()]).ret;
                match ret {
                    Ty::List(inner, k, _) => Ty::list(*inner, size.times(&k)),
                    Ty::Option(inner) if ambiguous_option(&inner) => {
                        self.ambiguous_flatten(Builtin::FlatMap, &inner, rest[0].span);
                        Ty::Error
                    }
                    Ty::Option(inner) => Ty::list(*inner, size.clone()),
                    Ty::Stream(stream) => {
                        return self.reject_inner_stream(
                            Builtin::FlatMap,
                            rest[0].span,
                            &stream,
                            cost,
                        );
                    }
                    Ty::Error => Ty::Error,
                    other => {
                        self.error(
                            "E0401",
                            format!(
                                "`flat_map`'s function must give a list, and it gives `{other}`"
                            ),
                            rest[0].span,
                            "not a list",
                        )
                        .help
                        .push("to transform each element use `map`".into());
                        Ty::Error
                    }
                }
            }
            Builtin::Flatten => match elem {
                Ty::List(inner, k, _) => Ty::list(*inner, size.times(&k)),
                // At run time an option holding a list is the list: the two
                // could not be told apart.
                Ty::Option(inner) if ambiguous_option(&inner) => {
                    self.ambiguous_flatten(Builtin::Flatten, &inner, span);
                    Ty::Error
                }
                Ty::Option(inner) => Ty::list(*inner, size.clone()),
                Ty::Stream(stream) => {
                    return self.reject_inner_stream(Builtin::Flatten, span, &stream, cost);
                }
                Ty::Error => Ty::Error,
                other => {
                    self.error("E0401", format!("`flatten` takes a list of lists or of options, and the elements are `{other}`"), span, "nothing to flatten")
                        .help
                        .push("remove `flatten()`".into());
                    Ty::Error
                }
            },
            Builtin::SortBy => {
                let ret = per_call(self, rest[0], vec![elem.clone()]).ret;
                compared = Some(ret.clone());
                if !ret.is_ordered() {
                    self.error(
                        "E0401",
                        format!(
                            "`sort_by` sorts by an Int, Float or String (or an option of one, `none` first), and this key is `{ret}`"
                        ),
                        rest[0].span,
                        "not sortable",
                    )
                    .help
                    .push(match ret {
                        Ty::Bool => "sort by a number: `x => if x.flag { 1 } else { 0 }`".into(),
                        _ => "give a key function to a number or string, such as `p => p.at`"
                            .into(),
                    });
                }
                if let Some(order) = rest.get(1) {
                    tirs.push(self.written_order(order).tir);
                }
                // The same values in another order: the same least and
                // greatest.
                Ty::list_with(elem, size.clone(), extremes)
            }
            Builtin::GroupBy => {
                let key = per_call(self, rest[0], vec![elem.clone()]).ret;
                self.inspect(&key, rest[0].span, "group by");
                Ty::list(
                    Ty::Record(vec![
                        ("key".into(), key),
                        ("rows".into(), Ty::list(elem, size.clone())),
                    ]),
                    size.clone(),
                )
            }
            Builtin::Distinct => {
                self.inspect(&elem, span, "compare");
                Ty::list_with(elem, size.clone(), extremes)
            }
            Builtin::Count => Ty::Int(Interval::up_to(size.clone())),
            Builtin::Sum | Builtin::Avg | Builtin::Min | Builtin::Max => {
                let value_ty = match rest.first() {
                    Some(f) => per_call(self, f, vec![elem.clone()]).ret,
                    None => elem.clone(),
                };
                compared = Some(value_ty.clone());
                let numeric = matches!(value_ty, Ty::Int(_) | Ty::Float | Ty::Error);
                let ordered = numeric || matches!(value_ty, Ty::Str(_));
                if (matches!(op, Builtin::Sum | Builtin::Avg) && !numeric) || !ordered {
                    self.error(
                        "E0401",
                        format!("`{op}` needs numbers, and these are `{value_ty}`"),
                        span,
                        "not numbers",
                    )
                    .help
                    .push(format!(
                        "give a function to a number: `|> {op}(x => x.amount)`"
                    ));
                }
                match (op, &value_ty) {
                    // At most `size` values, each within the element's range.
                    (Builtin::Sum, Ty::Int(each)) => {
                        Ty::Int(each.times(&Interval::up_to(size.clone())))
                    }
                    (Builtin::Sum, _) => value_ty,
                    // The mean of no values is none.
                    (Builtin::Avg, _) => Ty::option(Ty::Float),
                    _ if rest.is_empty() => Ty::option(elem),
                    _ => Ty::option(value_ty),
                }
            }
            _ => unreachable!("list_op is called for list combinators only"),
        };
        // What the run walks whole: a flattened list, made element by
        // element; the elements `distinct` and `group_by` compare.
        let walked = match op {
            Builtin::FlatMap | Builtin::Flatten => self.note_value_size(&ty, span),
            Builtin::Distinct => self.note_value_size(&Ty::list(elem_walked, size.clone()), span),
            // The keys are compared (and each group holds its key), and
            // the elements are put into their groups.
            Builtin::GroupBy => match &ty {
                Ty::List(group, _, _) => match group.as_ref() {
                    Ty::Record(fields) => {
                        let key = fields.iter().find(|(n, _)| n == "key").map(|(_, t)| t);
                        let keys = key
                            .map(|key| {
                                self.note_value_size(&Ty::list(key.clone(), size.clone()), span)
                            })
                            .unwrap_or_else(Poly::zero);
                        keys.plus(&size)
                    }
                    _ => Poly::zero(),
                },
                _ => Poly::zero(),
            },
            // A sort compares about log2(k) times per element, each
            // comparison reading both keys: a string by its length.
            Builtin::SortBy => {
                let key = compared.as_ref().map_or(Poly::constant(1), Ty::walk_steps);
                crate::cost::sort_steps(&size).times(&key)
            }
            // A comparison per element; a string's by its length (one
            // step is counted per element already).
            Builtin::Min | Builtin::Max => match compared.as_ref().map(Ty::walk_steps) {
                Some(key) if key != Poly::constant(1) => size.times(&key),
                _ => Poly::zero(),
            },
            _ => Poly::zero(),
        };
        let cost = cost.plus(&crate::cost::Cost::steps(walked));
        // A sum of `Float`s is `0.0` of none, where the runtime's plain
        // sum gives the `Int` 0 (it cannot tell an empty list's type).
        let op = match (op, &ty) {
            (Builtin::Sum, Ty::Float) => Builtin::SumFloat,
            _ => op,
        };
        Checked::new(ty, cost, TExpr::Builtin(op, kind, tirs))
    }

    /// E0420: flattening options of collections, which the runtime could
    /// not tell from the collections themselves.
    fn ambiguous_flatten(&mut self, op: Builtin, inner: &Ty, span: Span) {
        self.error(
            "E0420",
            format!("`{op}` over options of `{inner}` is ambiguous"),
            span,
            "an option of a collection",
        )
        .help
        .push("unwrap each option first: `o |> unwrap_or([])`".into());
    }
}

/// Whether an option of `inner` is, at run time, indistinguishable from a
/// collection: a list, a stream, or a type parameter that may be one.
pub(super) fn ambiguous_option(inner: &Ty) -> bool {
    matches!(inner, Ty::List(..) | Ty::Stream(_) | Ty::Generic(_))
}
