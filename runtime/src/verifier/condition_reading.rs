//! Reading a plan's `Bool` node as a condition, as the checker reads the source (`compiler/src/check/condition_reading.rs`): comparisons found among those recorded, under `!`, `&&`, `||`, `==` of two `Bool`s, `let`s inside the condition, an `If` choosing between two, a name's flag and what its `let` said (spec/cost.md §3.1).

use super::abstract_value::{Abs, Kind};
use super::narrowing::{relation, Comparison, Condition, Named};
use super::scope::{find, Scope};
use rqc_cost::Hidden;
use rqc_plan::{BinOp, Combinator, Node, Op, UnOp, Value};
use std::sync::Arc;

/// The comparisons [`read_condition`] may find in `cond`: those under
/// `!`, `&&` and `||` from its top.
pub(super) fn skeleton(cond: &Node) -> Vec<*const Node> {
    let (mut found, mut work) = (Vec::new(), vec![cond]);
    while let Some(node) = work.pop() {
        match &node.op {
            Op::Unary(UnOp::Not, inner) => work.push(inner),
            Op::Binary(BinOp::And | BinOp::Or, a, b) => work.extend([&**a, &**b]),
            Op::Let(_, value, body) => work.extend([&**value, &**body]),
            Op::If(c, a, b) => work.extend([&**c, &**a, &**b]),
            Op::Binary(op, a, b) => match bool_literal_test(node) {
                Some((tested, _)) => work.push(tested),
                // A test of two `Bool`s reads each (`equal_outcomes`).
                None if matches!(op, BinOp::Eq | BinOp::NotEq) => {
                    found.push(node as *const Node);
                    work.extend([&**a, &**b]);
                }
                None if relation(*op).is_some() => found.push(node as *const Node),
                None => {}
            },
            // A lambda applied in a condition says what its body's
            // condition says (`Verifier::applied_as_condition`); `all` and
            // `any` what their predicate's says of each element
            // (`elements.rs`).
            Op::Apply(..) | Op::Combinator(Combinator::All | Combinator::Any, ..) => {
                found.push(node as *const Node)
            }
            _ => {}
        }
    }
    found
}

/// `cond` as a [`Condition`], its comparisons found among `recorded`, its
/// names read in `scope` and the entry parameters `params`.
pub(super) fn read_condition<'p>(
    cond: &'p Node,
    recorded: &[Comparison<'p>],
    values: (&Scope<'p>, &[Abs<'p>]),
) -> Condition<'p> {
    read_condition_within(cond, recorded, values, &Hidden::none())
}

/// The `let`s inside a condition around the part being read, innermost
/// first, each a link on the reading's own stack (no list copied per
/// `let`): the name it binds, which hides the one in scope, and what its
/// value says, read where the value is evaluated (outside the `let`),
/// or nothing (`None`).
struct Lets<'l, 'p> {
    name: &'p str,
    said: Option<Arc<Condition<'p>>>,
    /// The value it names when bound to one (`let r2 = r`, `let q =
    /// p.inner`): a part of the name is that part of the value, as the
    /// checker reads a field of an alias (`through_aliases`).
    alias: Option<Named<'p>>,
    outer: Option<&'l Lets<'l, 'p>>,
}

/// The innermost `let` of `lets` that binds `name`.
fn let_of<'l, 'p>(mut lets: Option<&'l Lets<'l, 'p>>, name: &str) -> Option<&'l Lets<'l, 'p>> {
    while let Some(link) = lets {
        if link.name == name {
            return Some(link);
        }
        lets = link.outer;
    }
    None
}

/// [`read_condition`] where the names `hidden` hides are not the ones in
/// `scope` (a lambda's body: every name). A `Bool` name a `let` inside
/// the condition binds is not the one in `scope` either, and is read as
/// what its value says (`let t = true`, `let t = c`; a plan binds so an
/// inlined function's `let`s, whose names the checker read through where
/// it checked the function: `{ let t = true; big(t, n) }`, adversary
/// round 49, E0630).
pub(super) fn read_condition_within<'p>(
    cond: &'p Node,
    recorded: &[Comparison<'p>],
    values: (&Scope<'p>, &[Abs<'p>]),
    hidden: &Hidden<'p>,
) -> Condition<'p> {
    read_within_lets(cond, recorded, values, (hidden, None))
}

fn read_within_lets<'p>(
    cond: &'p Node,
    recorded: &[Comparison<'p>],
    values: (&Scope<'p>, &[Abs<'p>]),
    (hidden, lets): (&Hidden<'p>, Option<&Lets<'_, 'p>>),
) -> Condition<'p> {
    let (scope, params) = values;
    let read = |node: &'p Node| Box::new(read_within_lets(node, recorded, values, (hidden, lets)));
    // A name `hidden` hides, or one a `let` inside the condition binds: not
    // the one in scope.
    let hides = |name: &str| hidden.hides(name) || let_of(lets, name).is_some();
    let boolean = |value: &Abs<'p>| matches!(value, Abs::Scalar(s) if s.kind == Kind::Bool);
    // `c == true` is `c`, `c == false` is `!c` (`!=` the other way).
    if let Some((tested, itself)) = bool_literal_test(cond) {
        return match itself {
            true => *read(tested),
            false => Condition::Not(read(tested)),
        };
    }
    match &cond.op {
        Op::Unary(UnOp::Not, inner) => Condition::Not(read(inner)),
        Op::Binary(BinOp::And, a, b) => Condition::And(read(a), read(b)),
        Op::Binary(BinOp::Or, a, b) => Condition::Or(read(a), read(b)),
        Op::Const(Value::Bool(value)) => Condition::Constant(*value),
        Op::Binary(op, a, b) => {
            let found = recorded.iter().rev().find(|c| std::ptr::eq(c.node, cond));
            match (found, op) {
                (Some(compared), _) => compared.says.clone(),
                // Of two `Bool`s, as the checker's `read_condition_within`.
                (None, BinOp::Eq | BinOp::NotEq) => {
                    Condition::equal_outcomes(*read(a), *read(b), *op == BinOp::Eq)
                }
                (None, _) => Condition::Opaque,
            }
        }
        Op::Apply(..) | Op::Combinator(Combinator::All | Combinator::Any, ..) => recorded
            .iter()
            .rev()
            .find(|c| std::ptr::eq(c.node, cond))
            .map_or(Condition::Opaque, |c| c.says.clone()),
        // A hidden name: one a `let` inside the condition binds says what
        // its value says (the innermost `let` of it); any other, nothing.
        Op::Var(name) if hides(name) => match let_of(lets, name).and_then(|l| l.said.as_ref()) {
            Some(said) => Condition::Named(Arc::clone(said)),
            None => Condition::Opaque,
        },
        // A `Bool` name: true where it held, and what the condition a
        // `let` bound it to says (as the checker's `read_condition_within`).
        Op::Var(name) => {
            let Some(binding) = find(scope, name).filter(|b| boolean(&b.value)) else {
                return Condition::Opaque;
            };
            let flag = super::elements::through_aliases(
                &Condition::flag(Named::binding(binding.name, binding.id)),
                scope,
            );
            Condition::of_bool_name(flag, binding.condition.as_ref())
        }
        // A `Bool` entry parameter (hidden in a lambda's body, whose names
        // are its own scope's, as the checker hides them).
        Op::Param(i) if !hidden.hides_unlisted() && params.get(*i).is_some_and(boolean) => {
            Named::of(cond, scope).map_or(Condition::Opaque, Condition::flag)
        }
        // A `Bool` column or field of a name (`p.active`), as the checker's
        // `read_condition_within`: true where it held.
        Op::Column(..) | Op::Field(..) => {
            let mut root = cond;
            while let Op::Column(base, _) | Op::Field(base, _) = &root.op {
                root = base;
            }
            let named = match &root.op {
                // A part of a `let` inside the condition bound to a named
                // value: that part of the value (`{ let r2 = r; r2.f }`).
                Op::Var(name) if hides(name) => let_of(lets, name)
                    .and_then(|l| l.alias.clone())
                    .and_then(|alias| alias.with_parts_of(cond, root)),
                Op::Var(_) => Named::of(cond, scope),
                Op::Param(_) if !hidden.hides_unlisted() => Named::of(cond, scope),
                _ => None,
            };
            match named.filter(|n| n.holds_a_bool(scope, params)) {
                Some(named) => super::elements::through_aliases(&Condition::flag(named), scope),
                None => Condition::Opaque,
            }
        }
        // A `Bool` chosen by an `if`: `(c && a) || (!c && b)`, as the
        // checker's `read_condition_within`.
        Op::If(c, a, b) => {
            Condition::chosen(*read(c), *read(a), *read(b), rqc_cost::Reading::Verifier)
        }
        // A block of `let`s is its last expression (`{ let q = z; n <= 5 }`).
        Op::Let(name, value, body) => {
            let said = *read(value);
            let said = (said != Condition::Opaque
                && said.fits_within(rqc_cost::Reading::Verifier.kept()))
            .then(|| Arc::new(said));
            let alias = match &value.op {
                Op::Var(outer) if hides(outer) => let_of(lets, outer).and_then(|l| l.alias.clone()),
                Op::Var(_) | Op::Param(_) if hidden.hides_unlisted() => None,
                Op::Var(_) | Op::Param(_) => Named::of(value, scope),
                _ => None,
            };
            let inner = Lets {
                name,
                said,
                alias,
                outer: lets,
            };
            read_within_lets(body, recorded, values, (hidden, Some(&inner)))
        }
        _ => Condition::Opaque,
    }
}

/// `c == b` or `c != b` (either way round) with `b` a `Bool` literal: `c`
/// and whether the test is `c` itself (`c == true`, `c != false`) or its
/// negation, as the checker's `bool_literal_test`.
fn bool_literal_test(node: &Node) -> Option<(&Node, bool)> {
    let Op::Binary(op @ (BinOp::Eq | BinOp::NotEq), a, b) = &node.op else {
        return None;
    };
    let (tested, literal) = match (&a.op, &b.op) {
        (_, Op::Const(Value::Bool(literal))) => (&**a, *literal),
        (Op::Const(Value::Bool(literal)), _) => (&**b, *literal),
        _ => return None,
    };
    Some((tested, (*op == BinOp::Eq) == literal))
}
