//! The bound pass's combinators and top-k: over a stream only the limiting consumers (`take`, `first`, `exists`), `map`, `skip`, `reverse` and a `sort_by` that is a reverse read, each costed by spec/cost.md §4.2; over a list or an option by §4.3, a function applied to every element with its round trips batched where the runtime batches them (§11, Lemma 5).

use super::abstract_value::{Abs, Kind, RecordAbs, StreamAbs};
use super::bounds::{Eval, Verifier};
use super::narrowing::Named;
use super::scope::Scope;
use crate::error::Result;
use rqc_cost::{Cost, Interval, Poly};
use rqc_plan::{Combinator, Node, Op, Shape};
use std::rc::Rc;

impl<'p> Verifier<'p> {
    pub(super) fn combinator(&mut self, node: &'p Node, scope: &Scope<'p>) -> Result<Eval<'p>> {
        if let Op::TopK { input, key, k, .. } = &node.op {
            return self.top_k(node, input, key, k, scope);
        }
        let Op::Combinator(c, shape, args) = &node.op else {
            return self.fault("E0621", node, "not a combinator".into());
        };
        let (c, shape) = (*c, *shape);
        let input = self.eval(&args[0], scope)?;
        // An `unwrap_or` of a `min()` or `max()` never `none`, evaluated
        // just now (before the default, which may hold another).
        let present = c == Combinator::UnwrapOr
            && self.present_extreme.take() == Some(&args[0] as *const Node);
        let takes_value = matches!(
            c,
            Combinator::Take | Combinator::Skip | Combinator::UnwrapOr
        );
        // The function (or the count, the default), evaluated as the
        // executor does: its making costs what it costs, once.
        let operand = match args.get(1) {
            Some(arg) => Some(self.eval(arg, scope)?),
            None => None,
        };
        let mut out = Eval {
            value: Abs::Nothing,
            cost: input.cost.clone(),
            writes: input.writes,
        };
        if let Some(operand) = &operand {
            out.cost = out.cost.plus(&operand.cost);
            out.writes |= operand.writes;
        }
        // A stream typed as an option (`opt(s)` of `fn opt(t: T) -> T? = t`)
        // is a present option holding it, as the executor reads it
        // (`combinators.rs`): its one element is the stream, unread.
        if let (Abs::Stream(stream), false) = (&input.value, shape == Shape::Option) {
            return self.on_stream(node, c, stream, operand.as_ref(), out);
        }
        // A list given where a stream is taken is read as a stream is
        // (`combinators::on_listed`): its elements are made already, each
        // read is a step, and a `map` runs on the elements read only.
        if shape == Shape::Stream && crate::combinators::reads_a_stream(c) {
            if let Some((element, _)) = input.value.items() {
                let stream = StreamAbs {
                    element,
                    open: Cost::zero(),
                    each: Cost::steps(Poly::constant(1)),
                    skipped: false,
                    writes: false,
                };
                return self.on_stream(node, c, &stream, operand.as_ref(), out);
            }
        }
        // A list's `take` or `skip` count: an `Int`, bounded or not (the
        // list bounds what it gives).
        let count = |verifier: &Self, operand: &Option<Eval<'p>>| -> Result<Option<Poly>> {
            let value = operand
                .as_ref()
                .map(|o| o.value.clone())
                .unwrap_or(Abs::Nothing);
            let int = verifier.count_interval(node, &value)?;
            Ok(int.hi.max_value().map(Poly::constant))
        };
        let (element, k) = if shape == Shape::Option {
            match &input.value {
                Abs::Null | Abs::Nothing => (Abs::Nothing, Poly::zero()),
                other => (other.unwrapped(), Poly::constant(1)),
            }
        } else {
            match input.value.items() {
                Some(items) => items,
                None => return self.fault("E0625", node, "a stream read as a list".into()),
            }
        };
        // A combinator over a list goes through its elements: a step each,
        // and a sort about log2(k) per element (spec/cost.md §2, "Steps").
        // An element taken out is copied where it is not shared (its
        // strings outside lists).
        let each = Poly::constant(1).plus(&element.copy_steps());
        out.cost = out.cost.plus(&Cost::steps(k.times(&each)));
        let list = |element: Abs<'p>, len: Poly| Abs::list(element, len);
        out.value = match c {
            Combinator::UnwrapOr if present => input.value.unwrapped(),
            Combinator::UnwrapOr => {
                let default = operand.map(|o| o.value).unwrap_or(Abs::Nothing);
                match input.value.unwrapped().join(&default) {
                    Ok(value) => value,
                    Err(clash) => return self.clash(node, clash),
                }
            }
            Combinator::Take | Combinator::Skip => {
                let n = count(self, &operand)?;
                match (c, shape) {
                    (_, Shape::Option) => input.value.clone(),
                    (Combinator::Take, _) => list(element, smaller(&k, n.as_ref())),
                    _ => list(element, k),
                }
            }
            // The same values: a list of `Int`s keeps where its least and
            // greatest lie (`Abs::extremes`), as the checker keeps them.
            Combinator::Reverse => match shape {
                Shape::Option => input.value.clone(),
                _ => Abs::List(Box::new(element), k, input.value.extremes().map(Rc::new)),
            },
            Combinator::Count => Abs::int(Interval::up_to(k)),
            Combinator::First => Abs::Opt(Box::new(element)),
            Combinator::Exists => Abs::unknown(Kind::Bool, "a Bool"),
            Combinator::Flatten => {
                let flattened = match shape {
                    Shape::Option => element.items(),
                    _ => input.value.flattened(),
                };
                match flattened {
                    Some((inner, total)) => list(inner, total),
                    None => return self.fault("E0625", node, "it flattens streams".into()),
                }
            }
            Combinator::Distinct => {
                if !element.is_data() {
                    return self.fault("E0625", node, "it compares streams or functions".into());
                }
                Abs::List(Box::new(element), k, input.value.extremes().map(Rc::new))
            }
            _ if takes_value => unreachable!("take, skip and unwrap_or are above"),
            _ => {
                let f = operand.map(|o| o.value);
                // A `filter`'s predicate written in place: its comparisons,
                // read as a condition, narrow the elements it keeps.
                let predicate = match (c, args.get(1).map(|a| &a.op)) {
                    (
                        Combinator::Filter | Combinator::All | Combinator::Any,
                        Some(Op::Lambda(params, body)),
                    ) if params.len() == 1 => {
                        Some((&params[0], &**body, self.begin_condition(body), None))
                    }
                    // A lambda given by name: its body, its names hidden
                    // (as the checker's `condition_of_predicate`).
                    (Combinator::Filter | Combinator::All | Combinator::Any, _) => match &f {
                        Some(Abs::Fns(closures))
                            if closures.len() == 1 && closures[0].params.len() == 1 =>
                        {
                            let (params, body) = (closures[0].params, closures[0].body);
                            let here = closures[0].frame == self.frames.current();
                            Some((&params[0], body, self.begin_condition(body), Some(here)))
                        }
                        _ => None,
                    },
                    _ => None,
                };
                self.last_lambda_params.clear();
                let applied = f.as_ref().map(|f| self.apply_over(node, f, &element, &k));
                let element = match predicate {
                    Some((param, body, mark, named)) => {
                        let param = (param.as_str(), self.last_lambda_params.first().copied());
                        let kept = match (named, param.1) {
                            // Given by name: its names are its own
                            // scope's, but for its parameter, the element
                            // (`let p = x => pf(x)`, whose inlined body
                            // reads `x.f`: the checker's record of the
                            // call names the element too; adversary round
                            // 60, E0633 before).
                            (Some(_), Some(id)) => {
                                let only = super::scope::bound(&None, param.0, id, &element);
                                self.condition_of_predicate(body, mark, &only)
                            }
                            (Some(_), None) => self.condition_of_predicate(body, mark, &None),
                            // Read where its body ran: its parameter the
                            // element, so a `Bool` part of it (`r.f`) is
                            // read as the checker reads it, true where it
                            // held, and an outer name it hides is not read.
                            (None, Some(id)) => {
                                let inner = super::scope::bound(scope, param.0, id, &element);
                                self.condition(body, mark, &inner)
                            }
                            (None, None) => self.condition(body, mark, scope),
                        };
                        // A closure made in another evaluation of a body
                        // says of what it captured only their ranges, as
                        // the checker's `predicate_says`.
                        let kept = match (named, param.1) {
                            (Some(false), Some(id)) => {
                                let frames = &self.frames;
                                let one_value = |named: &Named<'p>| named.one_value(frames);
                                let element = Named::binding(param.0, id);
                                rqc_cost::element_said_apart(&kept, &element, &one_value)
                            }
                            _ => kept,
                        };
                        match c {
                            // What it says of the list's elements
                            // (`elements.rs`); its own element is a `Bool`.
                            Combinator::All | Combinator::Any => {
                                let all = c == Combinator::All;
                                self.record_elements(all, node, &args[0], param, kept, scope);
                                element
                            }
                            _ => self.kept_by(param, &kept, element),
                        }
                    }
                    None => element,
                };
                let applied = applied.transpose()?;
                let result = applied.as_ref().map(|a| a.value.clone());
                if let Some(applied) = applied {
                    out.cost = out.cost.plus(&applied.cost);
                    out.writes |= applied.writes;
                }
                let result_or_element = result.clone().unwrap_or_else(|| element.clone());
                // A sort's comparisons, about log2(k) per element, and
                // `min`'s or `max`'s, one per element, each reading the
                // keys compared: a string by its length (as the checker).
                let compares = result_or_element.walk_steps();
                match c {
                    Combinator::SortBy { .. } => {
                        let sorting = rqc_cost::sort_steps(&k).times(&compares);
                        out.cost = out.cost.plus(&Cost::steps(sorting));
                    }
                    Combinator::Min | Combinator::Max if compares != Poly::constant(1) => {
                        out.cost = out.cost.plus(&Cost::steps(k.times(&compares)));
                    }
                    _ => {}
                }
                match c {
                    // `none` maps to `none` (its function is never
                    // applied), which a comparison then reads as such
                    // (`narrowing.rs`'s `against_none`).
                    Combinator::Map if shape == Shape::Option => match input.value {
                        Abs::Null => Abs::Null,
                        _ => Abs::Opt(Box::new(result_or_element)),
                    },
                    Combinator::Map => list(result_or_element, k),
                    Combinator::Filter => list(element, k),
                    // The same values in another order (as the checker).
                    Combinator::SortBy { .. } => {
                        Abs::List(Box::new(element), k, input.value.extremes().map(Rc::new))
                    }
                    Combinator::FlatMap => match result_or_element.items() {
                        Some((inner, m)) => list(inner, k.times(&m)),
                        None => {
                            return self.fault("E0625", node, "its function gives a stream".into())
                        }
                    },
                    Combinator::GroupBy => {
                        if !result_or_element.is_data() {
                            return self.fault(
                                "E0625",
                                node,
                                "it groups by a stream or a function".into(),
                            );
                        }
                        let group = RecordAbs::structural(vec![
                            ("key".into(), result_or_element),
                            ("rows".into(), list(element, k.clone())),
                        ]);
                        list(Abs::Record(Rc::new(group)), k)
                    }
                    // The executor adds `Int`s and `Float`s and skips the rest.
                    Combinator::SumFloat => Abs::unknown(Kind::Float, "a sum"),
                    Combinator::Sum => match result_or_element.interval() {
                        // At most `k` terms, each within the element's range.
                        Some(int) => Abs::int(int.times(&Interval::up_to(k.clone()))),
                        None if result_or_element.scalar_kind() == Ok(Some(Kind::Float)) => {
                            Abs::unknown(Kind::Float, "a sum")
                        }
                        None => Abs::int(Interval::unbounded("a sum")),
                    },
                    Combinator::Min | Combinator::Max => {
                        if !result_or_element.is_data() {
                            return self.fault(
                                "E0625",
                                node,
                                "it compares streams or functions".into(),
                            );
                        }
                        let extreme = literal_extreme(c, shape, &input.value, result.is_none());
                        // Of a list known to hold an element: never `none`.
                        let nonempty = input.value.extremes().is_some_and(|e| e.nonempty);
                        self.present_extreme =
                            (extreme.is_some() && nonempty).then_some(node as *const Node);
                        match extreme {
                            Some(extreme) => Abs::Opt(Box::new(Abs::int(extreme))),
                            None => Abs::Opt(Box::new(result_or_element)),
                        }
                    }
                    Combinator::Avg => Abs::Opt(Box::new(Abs::unknown(Kind::Float, "a mean"))),
                    _ => Abs::unknown(Kind::Bool, "a value"),
                }
            }
        };
        // What it walks whole: the list it flattens into, the elements
        // `distinct` compares, the keys `group_by` compares.
        let walked = match c {
            Combinator::Flatten | Combinator::FlatMap | Combinator::Distinct => {
                let result = out.value.clone();
                self.walked(&result)
            }
            Combinator::GroupBy => match out.value.items() {
                Some((Abs::Record(group), groups)) => {
                    match group.fields.iter().find(|(name, _)| name == "key") {
                        Some((_, key)) => self.walked(&list(key.clone(), groups)),
                        None => Poly::zero(),
                    }
                }
                _ => Poly::zero(),
            },
            _ => Poly::zero(),
        };
        out.cost = out.cost.plus(&Cost::steps(walked));
        Ok(out)
    }

    /// A combinator over an unread stream (`combinators::on_stream`).
    fn on_stream(
        &mut self,
        node: &'p Node,
        c: Combinator,
        stream: &StreamAbs<'p>,
        operand: Option<&Eval<'p>>,
        mut out: Eval<'p>,
    ) -> Result<Eval<'p>> {
        let operand = operand.map(|o| o.value.clone()).unwrap_or(Abs::Nothing);
        // Reading it runs what its maps write.
        out.writes |= stream.writes;
        match c {
            Combinator::Take => {
                let n = self.count_of(node, &operand)?;
                out.cost = out.cost.plus(&stream.open).plus(&stream.each.times(&n));
                out.value = Abs::list(stream.element.clone(), n);
            }
            Combinator::First | Combinator::Exists => {
                out.cost = out.cost.plus(&stream.open).plus(&stream.each);
                out.value = if c == Combinator::First {
                    Abs::Opt(Box::new(stream.element.clone()))
                } else {
                    Abs::unknown(Kind::Bool, "a Bool")
                };
            }
            // Applied to each row read, one by one (not batched).
            Combinator::Map => {
                let applied =
                    self.apply(node, &operand, vec![stream.element.clone()], Vec::new())?;
                out.writes |= applied.writes;
                out.value = Abs::Stream(Rc::new(StreamAbs {
                    element: applied.value,
                    open: stream.open.clone(),
                    each: stream.each.plus(&applied.cost),
                    skipped: stream.skipped,
                    writes: stream.writes || applied.writes,
                }));
            }
            // The same range read from its other end: the same seek, the
            // same rows per element (spec/cost.md, "Reverse reads"). A
            // stream's `sort_by` key is never applied.
            Combinator::Reverse | Combinator::SortBy { .. } => {
                if stream.skipped {
                    return self.fault(
                        "E0625",
                        node,
                        format!(
                            "`{}` reads a stream from its other end after a `skip` dropped rows from its start",
                            c.name()
                        ),
                    );
                }
                out.value = Abs::Stream(Rc::new(stream.clone()));
            }
            // The rows skipped are read when the stream is.
            Combinator::Skip => {
                let n = self.count_of(node, &operand)?;
                out.value = Abs::Stream(Rc::new(StreamAbs {
                    element: stream.element.clone(),
                    open: stream.open.plus(&stream.each.times(&n)),
                    each: stream.each.clone(),
                    skipped: true,
                    writes: stream.writes,
                }));
            }
            other => {
                return self.fault(
                    "E0625",
                    node,
                    format!(
                        "`{}` over a stream would read it without a limit",
                        other.name()
                    ),
                )
            }
        }
        Ok(out)
    }

    /// A count's interval: E0625 unless it is an `Int` (the executor
    /// refuses anything else, `none` too).
    fn count_interval(&self, node: &Node, count: &Abs<'p>) -> Result<Interval> {
        match count.interval() {
            Some(int) => Ok(int),
            None => self.fault(
                "E0625",
                node,
                format!("its count is {}, not an `Int`", count.kind()),
            ),
        }
    }

    /// The most a count may be: its interval's upper end, which must have
    /// a maximum (at most zero takes nothing).
    fn count_of(&self, node: &Node, count: &Abs<'p>) -> Result<Poly> {
        let int = self.count_interval(node, count)?;
        match int.hi.max_value() {
            Some(n) => Ok(Poly::constant(n)),
            None => self.fault(
                "E0630",
                node,
                format!(
                    "its count has no upper end ({}), so nothing limits what it reads",
                    int.hi.unbounded_params().join(", ")
                ),
            ),
        }
    }

    /// `f` applied to each of `k` elements like `element`: the cost of one
    /// application times `k`, its round trips once when the runtime reads
    /// the applications ahead as one batch per level (a lambda whose body
    /// holds no write and whose applications write nothing; §11, Lemma 5).
    fn apply_over(
        &mut self,
        node: &'p Node,
        f: &Abs<'p>,
        element: &Abs<'p>,
        k: &Poly,
    ) -> Result<Eval<'p>> {
        let one = self.apply(node, f, vec![element.clone()], Vec::new())?;
        let batched = !one.writes
            && match f {
                Abs::Fns(closures) => closures.iter().all(|c| !rqc_plan::batch::writes(c.body)),
                _ => true,
            };
        let cost = if batched {
            one.cost.batched(k)
        } else {
            one.cost.times(k)
        };
        Ok(Eval { cost, ..one })
    }

    /// `sort_by(key) |> take(k)` in one pass.
    fn top_k(
        &mut self,
        node: &'p Node,
        input: &'p Node,
        key: &'p Node,
        k: &'p Node,
        scope: &Scope<'p>,
    ) -> Result<Eval<'p>> {
        let items = self.eval(input, scope)?;
        let Some((element, len)) = items.value.items() else {
            return self.fault("E0625", node, "a stream sorted whole".into());
        };
        let key = self.eval(key, scope)?;
        let count = self.eval(k, scope)?;
        let applied = self.apply_over(node, &key.value, &element, &len)?;
        if !applied.value.is_data() {
            return self.fault("E0625", node, "it sorts by a stream or a function".into());
        }
        // As a `sort_by` then a `take`: a step per element (its copy's
        // strings too) and the sort's comparisons of the keys.
        let each = Poly::constant(1).plus(&element.copy_steps());
        let sorting = rqc_cost::sort_steps(&len).times(&applied.value.walk_steps());
        let steps = Cost::steps(len.times(&each).plus(&sorting));
        let n = self
            .count_interval(node, &count.value)?
            .hi
            .max_value()
            .map(Poly::constant);
        Ok(Eval {
            value: Abs::list(element, smaller(&len, n.as_ref())),
            cost: Cost::zero()
                .plus(&items.cost)
                .plus(&key.cost)
                .plus(&count.cost)
                .plus(&applied.cost)
                .plus(&steps),
            writes: items.writes || key.writes || count.writes || applied.writes,
        })
    }
}

/// `xs |> min()` (or `max()`) of a list of plain `Int`s, read as a list,
/// with no function: where its type says its least or greatest element
/// lies (a literal's, element by element: `Abs::extremes`), as the
/// checker knows it.
fn literal_extreme(c: Combinator, shape: Shape, input: &Abs<'_>, plain: bool) -> Option<Interval> {
    if !plain || shape != Shape::List {
        return None;
    }
    let extremes = input.extremes()?;
    Some(match c {
        Combinator::Min => extremes.least,
        _ => extremes.greatest,
    })
}

/// The tighter of a list's length and a count's most (both bound how many
/// elements a `take` gives): `Poly::tighter`, as the checker keeps it.
fn smaller(len: &Poly, count: Option<&Poly>) -> Poly {
    count.map_or_else(|| len.clone(), |count| len.tighter(count))
}
