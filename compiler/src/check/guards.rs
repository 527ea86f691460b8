//! What a `Bool` function proves of its arguments where it returns true: a condition over its parameters, kept in its signature and read at each call with the arguments' sums in their place, so `if valid(n) { take(n) }` is narrowed as `if n <= 100 { … }` is (spec/cost.md §3.1).
//!
//! A function is checked once, with its parameters' measures abstract, and
//! its calls read only its signature. For a `Bool` function whose body is a
//! condition (comparisons under `!`, `&&`, `||`, a block's last
//! expression, another such call), the body's comparisons are read as a
//! condition, as an `if`'s are ([`Checker::condition`]), and kept as a
//! template ([`guard_template`]): each comparison whose every named value
//! is a parameter, with the parameter's position in its place; any other
//! comparison proves nothing. A call inside a condition fills the template
//! with the sums its arguments are ([`Checker::definition`]) and records it
//! as the condition the call says ([`Checker::record_guard`]); an argument
//! that is no sum of named values makes each comparison naming its
//! parameter prove nothing. Sound as a `let` of a sum is: each parameter is
//! its argument's value, computed once before the body runs, and the body
//! returns true exactly where its condition holds of those values.

use super::expr::Checker;
use super::narrowing::{Comparison, Condition, Named, Side};
use crate::cost::{Interval, Relation, SideSum};
use crate::syntax::ast::{BinaryOp, Expr, ExprKind, UnaryOp};
use std::sync::Arc;

/// A condition over a function's parameters: each term's name is the
/// parameter's name and its position (not a binding).
pub type GuardTemplate = crate::cost::Condition<Named>;

/// Whether `body`, a `Bool` function's, reads as a condition: a
/// comparison, `!`, `&&` or `||` of such, a block whose last expression is
/// one, or a call (another function that may say one).
pub(super) fn condition_shaped(body: &Expr) -> bool {
    match &body.kind {
        ExprKind::Unary(UnaryOp::Not, inner) => condition_shaped(inner),
        ExprKind::Binary(op, ..) => matches!(
            op,
            BinaryOp::And
                | BinaryOp::Or
                | BinaryOp::Lt
                | BinaryOp::LtEq
                | BinaryOp::Gt
                | BinaryOp::GtEq
                | BinaryOp::Eq
                | BinaryOp::NotEq
        ),
        ExprKind::Block(_, last) => condition_shaped(last),
        ExprKind::Call(..) | ExprKind::Pipe(..) => true,
        _ => false,
    }
}

/// Whether `body`, a `Bool` function's, is read as a condition at its
/// calls ([`Checker::begin_guard`]): [`condition_shaped`], an `if`, or a
/// `Bool` name (its flag: `fn id(c: Bool) -> Bool = c`) or literal, under `!`
/// and at the end of a block too. As the plan verifier reads the inlined
/// body: read as saying nothing, `id(true)` left `c && (id(true) || n >
/// 10)` failed, where `c`, to prove `n <= 10` by its second part, where the
/// verifier read the literal `true`, ruled that part out and proved
/// nothing (E0630 at install).
pub(super) fn reads_as_condition(body: &Expr) -> bool {
    match &body.kind {
        ExprKind::Name(_) | ExprKind::Bool(_) => true,
        ExprKind::Unary(UnaryOp::Not, inner) => reads_as_condition(inner),
        ExprKind::Block(_, last) => reads_as_condition(last),
        // A `Bool` an `if` chooses, read as `(c && a) || (!c && b)`, as
        // the verifier reads the inlined `If`.
        ExprKind::If(..) => true,
        _ => condition_shaped(body),
    }
}

/// `says`, what a function's body says where it is true, as a template
/// over `params` (each parameter's name and the binding its check gave
/// it): `None` where it proves nothing of them.
pub(super) fn guard_template(says: &Condition, params: &[Named]) -> Option<GuardTemplate> {
    let template = says.map_parts(
        &|left, relation, right| {
            both_sides(left, relation, right, &|side| template_side(side, params))
        },
        // `all(xs, …)` of a list parameter: of the argument's list at a call.
        &|list, element, says| match params.iter().position(|param| param == list) {
            Some(position) => Condition::Elements {
                list: (list.0.clone(), position as u64),
                element: element.clone(),
                says: Box::new(says.map_compares(&|left, relation, right| {
                    both_sides(left, relation, right, &|side| {
                        element_side(side, element, params)
                    })
                })),
            },
            None => Condition::Opaque,
        },
    );
    // Kept to its first `MAX_KEPT_CONDITION` parts (`first_parts`): a
    // function calling another twice (`b1(n) && b1(n)`) doubles it at each
    // definition. Not dropped whole: the plan verifier reads the call's
    // inlined body to its own first parts, and a template read as one part
    // that says nothing left room for a comparison after the call (`h(a)
    // && n <= 10`, `h` of 300 comparisons) that the verifier's reading of
    // the body did not reach (adversary round 48: E0630).
    let template = template
        .first_parts(crate::cost::MAX_KEPT_CONDITION)
        .into_owned();
    (template != GuardTemplate::Opaque).then_some(template)
}

/// A side of what an `all`'s predicate says in a template: one of literals
/// only, or a sum of the element alone or its parts (`x`, `x - 1`, `2 * x`,
/// `p.at`, `length(s)`) with no range
/// kept (the function's own ranges hold its measures, which mean nothing
/// at a call: the element's range is the argument list's there); `None`
/// for a side naming anything else, which makes its comparison prove
/// nothing.
fn element_side(side: &Side, element: &Named, params: &[Named]) -> Option<Side> {
    if side.terms.is_empty() {
        return template_side(side, &[]);
    }
    let any = Interval::unbounded("an element");
    let mut sum = SideSum::default();
    sum.literal(side.offset, false);
    for term in &side.terms {
        // The element, or a part of it (`p.at`, `length(s)`): of each
        // element of the argument's list at a call (`rqc_cost::Name`).
        if is_element(&term.name, element) {
            sum.named(term.name.clone(), term.negated, any.clone());
            continue;
        }
        // Another parameter (`x <= k`): its argument at a call, as a
        // comparison of the body's own (`template_side`); a name of one
        // number, that number.
        match parameter_of(&term.name, params) {
            Some(position) => sum.named(
                (term.name.0.clone(), position as u64),
                term.negated,
                any.clone(),
            ),
            None => sum.literal(constant_term(term)?, term.negated),
        }
    }
    Some(sum.side(any))
}

/// Whether `name` is `element`, the parameter of an `all`'s predicate, or
/// a part of it (`p.at`, `s.length`): the same binding. Inside the
/// predicate its name hides a function's parameter of that name, so in a
/// template a term of that name is never the parameter's.
fn is_element(name: &Named, element: &Named) -> bool {
    name.1 == element.1 && crate::cost::path_below(&name.0, &element.0).is_some()
}

/// The position of the parameter `name` (a parameter, or a field, length
/// or greatest of one: `xs.max(0)`) reads, among `params`.
fn parameter_of(name: &Named, params: &[Named]) -> Option<usize> {
    let root = name
        .0
        .split_once('.')
        .map_or(name.0.as_str(), |(root, _)| root);
    params
        .iter()
        .position(|param| param.1 == name.1 && param.0 == root)
}

/// What the argument `argument` (the sum it is) makes of a template's name
/// `name`: for a field, length or greatest of the parameter (`xs.max(0)`),
/// the same of the named value the argument is (an alias,
/// `super::sums::alias`; a greatest only of a name's own list), with no
/// range known; `None` for a parameter itself (its sum is read whole) or
/// an argument that is no named value.
fn below_argument(name: &Named, argument: &Side) -> Option<Option<Named>> {
    let Some((_, below)) = name.0.split_once('.') else {
        return Some(None);
    };
    super::sums::below_alias(argument, below).map(Some)
}

/// The comparison of the sides `side` makes of `left` and `right`, or
/// nothing proved where it makes none of either.
fn both_sides(
    left: &Side,
    relation: Option<crate::cost::Relation>,
    right: &Side,
    side: &dyn Fn(&Side) -> Option<Side>,
) -> Condition {
    match (side(left), side(right)) {
        (Some(left), Some(right)) => Condition::Compare {
            left: Box::new(left),
            relation,
            right: Box::new(right),
        },
        _ => Condition::Opaque,
    }
}

/// A side whose every term is a parameter, or a field, length or greatest
/// of one, with the parameter's position in its place, or a name of one
/// number ([`constant_term`]); or a side of literals only. No range is
/// kept: each is the argument's at a call.
pub(super) fn template_side(side: &Side, params: &[Named]) -> Option<Side> {
    if side.terms.is_empty() {
        let literal =
            side.interval.least == Some(side.offset) && side.interval.most == Some(side.offset);
        return literal.then(|| Side::exact(side.offset));
    }
    let mut sum = SideSum::default();
    sum.literal(side.offset, false);
    for term in &side.terms {
        match parameter_of(&term.name, params) {
            Some(position) => {
                let name = (term.name.0.clone(), position as u64);
                sum.named(name, term.negated, Interval::exact(0));
            }
            None => sum.literal(constant_term(term)?, term.negated),
        }
    }
    Some(sum.side(Interval::exact(0)))
}

/// The number a term that names no parameter stands for where its range
/// is that one number (`{ let c = 5; x => x <= c }`, `{ let k = 10; n <=
/// k }`): the value of a binding whose range is one number is that
/// number, at every call; `None` for any other.
fn constant_term(term: &crate::cost::Term<Named>) -> Option<i64> {
    term.interval.constant()
}

/// `template` with each parameter's position replaced by the sum its
/// argument is (`sums`, by position): a comparison naming a parameter
/// whose argument is no sum proves nothing.
pub(super) fn filled(template: &GuardTemplate, sums: &[Option<Arc<Side>>]) -> Condition {
    filled_with(template, sums, &[])
}

/// [`filled`], each `Bool` parameter whose argument is no sum but says a
/// condition (`said`, by position: `!c`, `n <= 10`, a call of a `Bool`
/// function) replaced, where the template tests its flag, by that
/// condition: the parameter is the argument's value, computed once
/// before the body runs, true exactly where the condition holds. So
/// `id(n <= 10)` with `fn id(c: Bool) -> Bool = c` proves `n <= 10`, and
/// `neg(!c)` proves `c`, as the verifier reads the inlined body (the
/// argument bound by a `let`, a name read as what its value says).
pub(super) fn filled_with(
    template: &GuardTemplate,
    sums: &[Option<Arc<Side>>],
    said: &[Option<Condition>],
) -> Condition {
    template.map_parts(
        &|left, relation, right| {
            if let Some(says) = flag_parameter(left, relation, right)
                .and_then(|position| said.get(position)?.as_ref())
            {
                return says.clone();
            }
            both_sides(left, relation, right, &|side| {
                filled_side(side, sums, &|_| false)
            })
        },
        // The list the argument is, when it is one bound to a name; the
        // predicate's other parameters, their arguments.
        &|list, element, says| {
            let argument = sums.get(list.1 as usize).and_then(|sum| sum.as_deref());
            match argument.and_then(Side::alias_of) {
                Some(list) if !list.0.contains('.') => Condition::Elements {
                    list: list.clone(),
                    element: element.clone(),
                    says: Box::new(says.map_compares(&|left, relation, right| {
                        both_sides(left, relation, right, &|side| {
                            filled_side(side, sums, &|name| is_element(name, element))
                        })
                    })),
                },
                _ => Condition::Opaque,
            }
        },
    )
}

/// The position of the parameter whose flag `left relation right` tests
/// (`Condition::flag`: `c >= 1`, `c` alone on the left), if it is one.
fn flag_parameter(left: &Side, relation: Option<Relation>, right: &Side) -> Option<usize> {
    let [term] = left.terms.as_slice() else {
        return None;
    };
    let flag = relation == Some(Relation::AtLeast)
        && !term.negated
        && left.offset == 0
        && right.terms.is_empty()
        && right.offset == 1;
    flag.then_some(term.name.1 as usize)
}

/// A template's side with its parameters' argument sums in their places,
/// its range theirs and its literals'. An argument known by its range
/// only (a value a predicate captured, `returned_guards.rs`) leaves the
/// side that range and no names: it narrows nothing, and bounds the other.
/// A term `kept` is no parameter (an `all`'s element): kept as it is,
/// its range unknown.
pub(super) fn filled_side(
    side: &Side,
    sums: &[Option<Arc<Side>>],
    kept: &dyn Fn(&Named) -> bool,
) -> Option<Side> {
    let mut sum = SideSum::default();
    let mut interval = Interval::exact(side.offset);
    let mut ranged = false;
    sum.literal(side.offset, false);
    for term in &side.terms {
        if kept(&term.name) {
            let any = Interval::unbounded("an element");
            sum.named(term.name.clone(), term.negated, any.clone());
            interval = interval.plus(&if term.negated { any.negate() } else { any });
            continue;
        }
        let argument = sums.get(term.name.1 as usize)?.as_ref()?;
        // A field, length or greatest of the parameter: of the value the
        // argument names, its range unknown here.
        if let Some(below) = below_argument(&term.name, argument)? {
            let any = Interval::unbounded("a named value");
            sum.named(below, term.negated, any.clone());
            interval = interval.plus(&if term.negated { any.negate() } else { any });
            continue;
        }
        if argument.terms.is_empty() && argument.interval.constant() != Some(argument.offset) {
            ranged = true;
            let range = argument.interval.clone();
            interval = interval.plus(&if term.negated { range.negate() } else { range });
            continue;
        }
        sum.literal(argument.offset, term.negated);
        let shift = Interval::exact(argument.offset);
        interval = interval.plus(&if term.negated { shift.negate() } else { shift });
        for inner in &argument.terms {
            let negated = inner.negated != term.negated;
            sum.named(inner.name.clone(), negated, inner.interval.clone());
            let range = match negated {
                true => inner.interval.negate(),
                false => inner.interval.clone(),
            };
            interval = interval.plus(&range);
        }
    }
    if sum.failed() {
        return None;
    }
    if ranged {
        return Some(Side::opaque(interval));
    }
    Some(sum.side(interval))
}

impl Checker<'_> {
    /// The parameters of `def`, in scope, as comparisons name them.
    pub(super) fn params_named(&self, def: &crate::syntax::ast::Def) -> Vec<Named> {
        def.params
            .iter()
            .filter_map(|p| {
                let name = &p.name.name;
                self.local(name).map(|local| (name.clone(), local.binding))
            })
            .collect()
    }

    /// Where `def` is a function whose result is a `Bool` (`declared`, or
    /// none declared) and whose body is a condition, opens a condition
    /// for its body (its parameters, and the mark to read it from).
    pub(super) fn begin_guard(
        &mut self,
        def: &crate::syntax::ast::Def,
        declared: Option<&super::types::Ty>,
    ) -> Option<(Vec<Named>, super::narrowing::ConditionMark)> {
        let boolean = matches!(declared, None | Some(super::types::Ty::Bool));
        (def.kind == crate::syntax::ast::DefKind::Fn && boolean && reads_as_condition(&def.body))
            .then(|| (self.params_named(def), self.begin_condition()))
    }

    /// What the body `body` (of type `ty`, just checked in the condition
    /// [`Checker::begin_guard`] opened) proves of the parameters, as the
    /// signature keeps it.
    pub(super) fn guard_proved(
        &mut self,
        guard: Option<(Vec<Named>, super::narrowing::ConditionMark)>,
        body: &Expr,
        ty: &super::types::Ty,
    ) -> Option<Arc<GuardTemplate>> {
        let (params, mark) = guard?;
        let says = self.condition(body, mark);
        (*ty == super::types::Ty::Bool)
            .then(|| guard_template(&says, &params))
            .flatten()
            .map(Arc::new)
    }

    /// The sum an argument of a call is, for its parameter's place in a
    /// template: a sum of named values (`Checker::definition`), or a
    /// value that is one number (a literal, `2 + 3`).
    pub(super) fn guard_argument(&self, arg: &Expr, ty: &super::types::Ty) -> Option<Arc<Side>> {
        // A `Bool` literal is its flag's value (`Condition::flag`): 1 for
        // `true`, 0 for `false`, so `big(true, n)` reads `big`'s template
        // with its `Bool` parameter decided; so is a name a `let` bound to
        // a condition its literals decide (`let t = true`), which the plan
        // passes on as the name, read by the verifier with what it says.
        let decided = match &arg.kind {
            ExprKind::Bool(value) => Some(*value),
            ExprKind::Name(ident) => self
                .local(&ident.name)
                .filter(|local| matches!(local.ty, super::types::Ty::Bool))
                .and_then(|local| local.condition.as_ref()?.decided()),
            _ => None,
        };
        if let Some(value) = decided {
            return Some(Arc::new(Side::exact(i64::from(value))));
        }
        // A `Bool` a `let` bound inside the open condition is no flag
        // there (`Local::in_condition`): what it says stands for it.
        if let ExprKind::Name(ident) = &arg.kind {
            if self.local(&ident.name).is_some_and(|l| l.in_condition)
                && *ty == super::types::Ty::Bool
            {
                return None;
            }
        }
        self.definition(arg, ty).or_else(|| constant_side(ty))
    }

    /// Records what applying `callee`, one lambda, at `span` just said of
    /// the values compared in its body: its body read as a condition over
    /// the comparisons its check recorded (those since `from`, each read
    /// with the parameters' argument sums, `Checker::apply_delayed`), its
    /// names hidden (they are its scope's, not this one's). An application
    /// answered from an earlier check recorded none, and says nothing.
    pub(super) fn record_lambda_guard(
        &mut self,
        span: crate::span::Span,
        callee: &super::types::Ty,
        from: usize,
    ) {
        if self.conditions_open == 0 {
            return;
        }
        // The application's own records (its body's comparisons, found by
        // their spans) are read here and then dropped, whatever the
        // callee: an application of the same lambda around this one (`p(m,
        // y => p(0, …))`) reads its body's comparisons at the same spans,
        // and must find its own, never this one's (adversary round 58: the
        // outer read `x <= 50` with the inner `x` = 0, and proved a bound a
        // run read past, E0599).
        let from = from.min(self.comparisons.len());
        let recorded = self.comparisons.split_off(from);
        let super::types::Ty::Fns(candidates) = callee else {
            return;
        };
        let [super::types::FnCandidate::Lambda(lambda)] = candidates.as_slice() else {
            return;
        };
        let says = self.read_condition_within(&lambda.body, &recorded, &crate::cost::Hidden::Every);
        let says = self.through_aliases(&says);
        // Made in another check of a body, it says nothing of the values
        // it captured there (`rqc_cost::said_where_applied`).
        let frames = &self.frames;
        let one_value = |(_, binding): &Named| frames.one_value(*binding);
        let keep: Option<&dyn Fn(&Named) -> bool> = match lambda.frame == frames.current() {
            true => None,
            false => Some(&one_value),
        };
        let says = crate::cost::said_where_applied(says, keep);
        if says != Condition::Opaque {
            self.comparisons.push(Comparison::said_by_call(span, says));
        }
    }

    /// Records what the call at `span` of a function whose signature
    /// proves `template` says, its arguments being the sums `sums`: read
    /// where the call is an `if`'s condition (or part of one).
    pub(super) fn record_guard(
        &mut self,
        span: crate::span::Span,
        template: &GuardTemplate,
        sums: &[Option<Arc<Side>>],
    ) {
        self.record_guard_said(span, template, sums, &[]);
    }

    /// [`Checker::record_guard`], with what each `Bool` argument that is
    /// no sum says (`said`, [`filled_with`]).
    pub(super) fn record_guard_said(
        &mut self,
        span: crate::span::Span,
        template: &GuardTemplate,
        sums: &[Option<Arc<Side>>],
        said: &[Option<Condition>],
    ) {
        if self.conditions_open == 0 {
            return;
        }
        // Each argument that is an alias (`let ys = xs; small(ys)`) read
        // through here, as a comparison written here is.
        self.record_said(span, filled_with(template, sums, said));
    }
}

/// The side a value of type `ty` that is one number is (a literal,
/// `2 + 3`): that number, no name.
pub(super) fn constant_side(ty: &super::types::Ty) -> Option<Arc<Side>> {
    let super::types::Ty::Int(range) = ty else {
        return None;
    };
    Some(Arc::new(Side::exact(range.constant()?)))
}
