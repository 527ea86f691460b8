//! What an `if`'s condition says in each branch of the bound pass, read as the checker reads it (`compiler/src/check/narrowing.rs`) and narrowed by the same shared rule (`rqc_cost::assume`, `Interval::assume`, `Interval::intersect`; spec/cost.md §3.1).
//!
//! While a condition (an `if`'s, or a `let`'s value) is evaluated, each
//! comparison of two plain `Int`s it is made of (under `!`, `&&`, `||`)
//! records both sides' intervals and which side is a parameter or a name
//! bound in scope, with that binding's identity. The condition is then read as an `rqc_cost::Condition` —
//! comparisons under `!`, `&&` and `||`, and `Bool` names a `let` bound to
//! such a condition — and each branch is evaluated with the parameters and
//! names it proves something of bound again to their narrowed intervals.
//!
//! Sound because the run evaluates a branch only when its condition held
//! (or failed), on the same values of the names it compared: a parameter
//! keeps one value for the whole run, and a name is narrowed only where it
//! is still the binding the comparison read (a binding keeps its identity
//! when narrowed, and a name bound again is a new binding). An `Int?`
//! side (`none` compares below every number) has its number narrowed and
//! narrows nothing of the other side (`rqc_cost::Condition::MayBeNone`).

use super::abstract_value::{Abs, Kind, Scalar};
use super::bounds::{Eval, Verifier};
use super::condition_reading::{read_condition, read_condition_within, skeleton};
use super::named::Root;
pub(super) use super::named::{Named, Step};
use super::narrowed_values::narrow_at;
use super::scope::{find, Binding, Scope};
use super::sums::add_leaves;
use rqc_cost::{Hidden, Interval, Relation, SideSum};
use rqc_plan::{BinOp, Node};
use std::rc::Rc;
use std::sync::Arc;

/// What a `Bool` value of the plan says about the integers it compared.
pub(super) type Condition<'p> = rqc_cost::Condition<Named<'p>>;

pub(super) type Side<'p> = rqc_cost::Side<Named<'p>>;

/// A comparison evaluated inside an open condition, found again by its
/// node.
pub(super) struct Comparison<'p> {
    pub(super) node: &'p Node,
    /// What it says, read where it was evaluated, with the sums its
    /// `let`-bound names were bound to then (as the checker's).
    pub(super) says: Condition<'p>,
}

/// What a branch narrows: the scope with its names narrowed, and the
/// parameters narrowed (by position).
pub(super) struct Narrowed<'p> {
    pub scope: Scope<'p>,
    pub params: Vec<(usize, Abs<'p>)>,
    /// The condition and whether it held: an inner `if` of the branch
    /// reads it again.
    pub fact: (Arc<Condition<'p>>, bool),
}

/// The relation a comparison operator tests (`None` for `!=`), or nothing
/// for an operator that is no comparison of numbers.
pub(super) fn relation(op: BinOp) -> Option<Option<Relation>> {
    Some(match op {
        BinOp::Lt => Some(Relation::Below),
        BinOp::LtEq => Some(Relation::AtMost),
        BinOp::Gt => Some(Relation::Above),
        BinOp::GtEq => Some(Relation::AtLeast),
        BinOp::Eq => Some(Relation::Equal),
        BinOp::NotEq => None,
        _ => return None,
    })
}

/// A plain `Int`'s interval (not an option, not `none`).
pub(super) fn plain_int(value: &Abs<'_>) -> Option<Interval> {
    match value {
        Abs::Scalar(s) if s.kind == Kind::Int => Some(s.int.clone()),
        _ => None,
    }
}

/// A plain `Int`'s interval, or an `Int?`'s number's (`true`), as a
/// comparison's side (`rqc_cost::Condition::MayBeNone`).
fn int(value: &Abs<'_>) -> Option<(Interval, bool)> {
    match value {
        Abs::Opt(inner) => plain_int(inner).map(|interval| (interval, true)),
        _ => plain_int(value).map(|interval| (interval, false)),
    }
}

/// The outcome of `a relation b` (`None` for `!=`) where one side is
/// `none` and the other a plain `Int`: `none` stands below every number.
fn against_none(relation: Option<Relation>, values: (&Abs<'_>, &Abs<'_>)) -> Option<bool> {
    let seen_from_none = match values {
        (Abs::Null, other) if plain_int(other).is_some() => relation,
        (other, Abs::Null) if plain_int(other).is_some() => relation.map(Relation::flipped),
        _ => return None,
    };
    Some(match seen_from_none {
        Some(Relation::Below | Relation::AtMost) | None => true,
        Some(Relation::Above | Relation::AtLeast | Relation::Equal) => false,
    })
}

impl<'p> Verifier<'p> {
    /// The comparisons of `cond` that [`Verifier::condition`] may read
    /// are recorded from here until it is called; the mark to give it.
    /// Only those: a condition may apply lambdas that compare a million
    /// times, and the records would hold them all.
    pub(super) fn begin_condition(&mut self, cond: &'p Node) -> usize {
        for comparison in skeleton(cond) {
            *self.wanted.entry(comparison).or_default() += 1;
        }
        self.comparisons.len()
    }

    /// Records `a op b` (the comparison `node`, its operands' values just
    /// evaluated in `scope`) when a condition is open and both are `Int`s,
    /// or one an `Int?`.
    pub(super) fn record_comparison(
        &mut self,
        node: &'p Node,
        op: BinOp,
        operands: (&'p Node, &'p Node),
        values: (&Abs<'p>, &Abs<'p>),
        scope: &Scope<'p>,
    ) {
        let Some(relation) = relation(op) else {
            return;
        };
        if !self.wanted.contains_key(&(node as *const Node)) {
            return;
        }
        // `none` against a number: the outcome is fixed, as a literal's
        // (the checker may read such an option at a number's range that
        // no number of it lies in: `if n > n { p } else { none }`).
        if let Some(outcome) = against_none(relation, values) {
            let says = Condition::Constant(outcome);
            self.comparisons.push(Comparison { node, says });
            return;
        }
        let (Some((x, x_optional)), Some((y, y_optional))) = (int(values.0), int(values.1)) else {
            return;
        };
        let side = |operand: &'p Node, interval: Interval| {
            let mut sum = SideSum::default();
            add_leaves(operand, Some(&interval), scope, &self.params, &mut sum);
            sum.side(interval)
        };
        let Ok(optional) = rqc_cost::Optional::of(x_optional, y_optional) else {
            return;
        };
        let (left, right) = (side(operands.0, x), side(operands.1, y));
        // As `rqc_cost::compared` reads it, and through every alias a side
        // that is one named value is (`elements::through_aliases`).
        let compare = Condition::Compare {
            left: Box::new(left),
            relation,
            right: Box::new(right),
        }
        .with_option(optional);
        let says = super::elements::through_aliases(&compare, scope);
        let comparison = Comparison { node, says };
        self.comparisons.push(comparison);
    }

    /// The comparisons of `cond` are no longer wanted for it.
    fn close(&mut self, cond: &'p Node) {
        for comparison in skeleton(cond) {
            if let Some(open) = self.wanted.get_mut(&comparison) {
                *open -= 1;
                if *open == 0 {
                    self.wanted.remove(&comparison);
                }
            }
        }
    }

    /// [`Verifier::condition`] of the body of a predicate given by name,
    /// applied since `mark`, read in `only`: its parameter's binding alone
    /// (every other name of its body is its own scope's, and reads as
    /// nothing here), or, where the application bound none, no name at all.
    pub(super) fn condition_of_predicate(
        &mut self,
        body: &'p Node,
        mark: usize,
        only: &Scope<'p>,
    ) -> Condition<'p> {
        self.close(body);
        let recorded = self.comparisons.split_off(mark.min(self.comparisons.len()));
        let hidden = match only {
            Some(_) => Hidden::none(),
            None => Hidden::Every,
        };
        read_condition_within(body, &recorded, (only, &[]), &hidden)
    }

    /// Applies `f` to `args` (their `sums`) at `node`, and where `node` is
    /// a condition's part (or the whole) and `f` is one lambda, records
    /// what its body's condition says: the comparisons its evaluation
    /// recorded, each read with the parameters' argument sums, its names
    /// hidden (as the checker's `record_lambda_guard`).
    pub(super) fn applied_as_condition(
        &mut self,
        node: &'p Node,
        f: &Abs<'p>,
        (args, sums): (Vec<Abs<'p>>, Vec<Option<Arc<Side<'p>>>>),
        scope: &Scope<'p>,
    ) -> crate::error::Result<Eval<'p>> {
        let body = match f {
            Abs::Fns(closures) if closures.len() == 1 => Some(closures[0].body),
            _ => None,
        }
        .filter(|_| self.wanted.contains_key(&(node as *const Node)));
        let Some(body) = body else {
            return self.apply(node, f, args, sums);
        };
        let mark = self.begin_condition(body);
        let applied = self.apply(node, f, args, sums);
        self.close(body);
        // The application's own records, read here and then dropped: an
        // application of the same lambda around this one reads its body's
        // comparisons at the same nodes, and must find its own (as the
        // checker's `record_lambda_guard`; adversary round 58, E0599).
        let recorded = self.comparisons.split_off(mark.min(self.comparisons.len()));
        let says = read_condition_within(body, &recorded, (&None, &[]), &Hidden::Every);
        // Each argument that is an alias read through here, as a
        // comparison written here is (the checker's `record_guard`).
        let says = super::elements::through_aliases(&says, scope);
        // Made in another evaluation of a body, it says nothing of the
        // values it captured there, as the checker's `record_lambda_guard`.
        let made_here =
            matches!(f, Abs::Fns(closures) if closures[0].frame == self.frames.current());
        let frames = &self.frames;
        let one_value = |named: &Named<'p>| named.one_value(frames);
        let keep: Option<&dyn Fn(&Named<'p>) -> bool> = match made_here {
            true => None,
            false => Some(&one_value),
        };
        let says = rqc_cost::said_where_applied(says, keep);
        if says != Condition::Opaque {
            self.comparisons.push(Comparison { node, says });
        }
        applied
    }

    /// `cond` (just evaluated in `scope`, its comparisons recorded since
    /// `mark`) as a [`Condition`]; the records are dropped, unless a
    /// condition `cond` is part of is still open: a `let`'s value inside
    /// one is read again where the `let`'s name is tested there
    /// (`read_within_lets`; adversary round 50: dropped, `let t = 1 >= 1`
    /// read as nothing, and E0630).
    pub(super) fn condition(
        &mut self,
        cond: &'p Node,
        mark: usize,
        scope: &Scope<'p>,
    ) -> Condition<'p> {
        self.close(cond);
        let from = mark.min(self.comparisons.len());
        let said = read_condition(cond, &self.comparisons[from..], (scope, &self.params));
        if self.wanted.is_empty() {
            self.comparisons.truncate(from);
        }
        said
    }

    /// `a && b` (`and`) or `a || b`, evaluated in `scope`: `b` runs only
    /// where `a` held (or, for `||`, failed), so it is evaluated with what
    /// `a` proves then, as the checker's `check_after_condition`. `a`'s
    /// comparisons are kept for a condition this one is part of.
    pub(super) fn eval_after_condition(
        &mut self,
        and: bool,
        a: &'p Node,
        b: &'p Node,
        scope: &Scope<'p>,
    ) -> crate::error::Result<(Eval<'p>, Eval<'p>)> {
        let mark = self.begin_condition(a);
        let left = self.eval(a, scope);
        let from = mark.min(self.comparisons.len());
        let proves = Arc::new(read_condition(
            a,
            &self.comparisons[from..],
            (scope, &self.params),
        ));
        self.close(a);
        let left = left?;
        let narrowed = self.narrowed(&proves, and, scope);
        let right = self.branch(b, narrowed)?;
        // No condition is open to read them: they are dropped.
        if self.wanted.is_empty() {
            self.comparisons.truncate(mark);
        }
        Ok((left, right))
    }

    /// What `condition` being `holds` narrows in a branch evaluated in
    /// `scope` (the outer branches' conditions read again with it): each name's interval, intersected with what its binding
    /// already knew (an outer `if`).
    pub(super) fn narrowed(
        &self,
        condition: &Arc<Condition<'p>>,
        holds: bool,
        scope: &Scope<'p>,
    ) -> Narrowed<'p> {
        let mut facts = Vec::new();
        rqc_cost::assume_within(
            &self.facts,
            condition,
            holds,
            &mut facts,
            rqc_cost::Reading::Verifier,
        );
        let (scope, params) = self.bind_narrowed(facts, scope);
        Narrowed {
            scope,
            params,
            fact: (condition.clone(), holds),
        }
    }

    /// The element `element` that `filter(param => …)` keeps, within what
    /// its predicate's condition `kept` proves of `param` where it is true,
    /// as the checker's `kept_by`: a plain `Int`'s interval, a string's
    /// length. `param` is the parameter's name and the binding its
    /// application gave it: a fact about another binding of that name (one
    /// around the `filter`, or a `let` inside the predicate) is not the
    /// parameter's.
    pub(super) fn kept_by(
        &self,
        param: (&str, Option<u64>),
        kept: &Condition<'p>,
        element: Abs<'p>,
    ) -> Abs<'p> {
        let (param, Some(parameter)) = param else {
            return element;
        };
        let mut facts = Vec::new();
        rqc_cost::assume_within(&[], kept, true, &mut facts, rqc_cost::Reading::Verifier);
        let mut element = element;
        for (named, interval) in facts {
            let Root::Binding(name, id) = named.root else {
                continue;
            };
            // The element itself, or a path inside it: a record's field, a
            // row's column (as the checker's `kept_by`).
            if name != param || id != parameter {
                continue;
            }
            // A string's bytes, as the checker's type keeps them: not the
            // length itself (a type holds no length).
            let value = match (&element, named.path.as_slice()) {
                (Abs::Scalar(string), [Step::Length]) if string.kind == Kind::Str => {
                    Some(Abs::Scalar(Rc::new(Scalar {
                        chars: rqc_cost::bytes_within_length(&string.chars, &interval),
                        ..(**string).clone()
                    })))
                }
                (_, [Step::Length]) => None,
                _ => narrow_at(&element, &named.path, &interval),
            };
            if let Some(value) = value {
                element = value;
            }
        }
        element
    }

    /// `scope` and the entry parameters with what the facts of the `if`s
    /// around this place prove (the scope being a lambda's, applied here),
    /// as the checker's `narrow_to_enclosing_facts`: the scope, and the
    /// parameters narrowed (by position).
    pub(super) fn narrowed_around(&self, scope: Scope<'p>) -> (Scope<'p>, Vec<(usize, Abs<'p>)>) {
        if self.facts.is_empty() {
            return (scope, Vec::new());
        }
        let mut facts = Vec::new();
        rqc_cost::assume_within(
            &self.facts,
            &Condition::Opaque,
            true,
            &mut facts,
            rqc_cost::Reading::Verifier,
        );
        self.bind_narrowed(facts, &scope)
    }

    /// Each name (or field of one, or parameter) of `facts` bound again
    /// with what it was proved to lie in, where it is still the binding
    /// the fact read: the scope, and the parameters narrowed.
    fn bind_narrowed(
        &self,
        facts: Vec<(Named<'p>, Interval)>,
        scope: &Scope<'p>,
    ) -> (Scope<'p>, Vec<(usize, Abs<'p>)>) {
        let mut out = scope.clone();
        let mut params: Vec<(usize, Abs<'p>)> = Vec::new();
        for (named, interval) in facts {
            match named.root {
                Root::Param(i) => {
                    let known = params
                        .iter()
                        .rev()
                        .find(|(p, _)| *p == i)
                        .map(|(_, value)| value.clone())
                        .or_else(|| self.param_value(i));
                    if let Some(value) = known.and_then(|k| narrow_at(&k, &named.path, &interval)) {
                        params.push((i, value));
                    }
                }
                Root::Binding(name, id) => {
                    // Only the binding the comparison read, and only an `Int`.
                    let Some(binding) = find(&out, name).filter(|b| b.id == id) else {
                        continue;
                    };
                    let Some(value) = narrow_at(&binding.value, &named.path, &interval) else {
                        continue;
                    };
                    let condition = binding.condition.clone();
                    let definition = binding.definition.clone();
                    out = Some(Rc::new(Binding {
                        name,
                        value,
                        id,
                        condition,
                        definition,
                        outer: out.clone(),
                    }));
                }
            }
        }
        (out, params)
    }
}

/// The sum the name `named` (still that binding) was bound to by `let`
/// or as a parameter, if it was; for a field, a length or a greatest of a
/// binding that is an alias of another named value (`super::sums::alias`),
/// the same of that value (a greatest only of a name's own list, as
/// [`Named::of`] reads one).
pub(super) fn definition_of<'p>(named: &Named<'p>, scope: &Scope<'p>) -> Option<Arc<Side<'p>>> {
    let Root::Binding(name, id) = named.root else {
        return None;
    };
    let definition = find(scope, name)
        .filter(|b| b.id == id)?
        .definition
        .clone()?;
    if named.path.is_empty() {
        return Some(definition);
    }
    let mut target = definition.alias_of()?.clone();
    let extreme = matches!(named.path.last(), Some(Step::Extreme(..)));
    if extreme && !target.path.is_empty() {
        return None;
    }
    target.path.extend(named.path.iter().cloned());
    Some(Arc::new(super::sums::alias(target)))
}

/// What a `let` keeps of its value: the condition it says, when it is a
/// `Bool` that says something.
pub(super) fn kept<'p>(condition: Condition<'p>, value: &Abs<'p>) -> Option<Arc<Condition<'p>>> {
    let boolean = matches!(value, Abs::Scalar(s) if s.kind == Kind::Bool);
    // One past the parts the verifier keeps says nothing, as the
    // checker's past its fewer: the verifier's reading of the same source
    // is larger (a `Bool` function inlined where the checker reads its
    // template), and must not be dropped where the checker's was kept
    // (adversary round 62, E0633).
    let small = condition.fits_within(rqc_cost::Reading::Verifier.kept());
    (boolean && condition != Condition::Opaque && small).then(|| Arc::new(condition))
}
