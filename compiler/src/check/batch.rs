//! Which lambdas the runtime batches: a `map` over a list whose function reads only through point lookups keyed by values known before any read pays the round trips of one application (spec/cost.md, Lemma 5).
//!
//! The runtime decides on the plan (runtime/src/batch.rs) with the same
//! rule; this side must never call a body batchable that the runtime, after
//! lowering, would not batch, or a proved bound would be too low. So it is
//! the narrower of the two: it sees a call of a function (inlined later) or
//! of a function value as a read that is not batched, where the runtime may
//! see a lookup it batches.

use super::tir::TExpr;
use crate::syntax::ast::BinaryOp;

/// Whether a lambda body is evaluated by the runtime as one batch per
/// `map`: every read is a lookup evaluated once per application, keyed by
/// constants, parameters, names bound outside the body and their fields.
pub fn batchable(body: &TExpr) -> bool {
    collect(body, &mut Vec::new())
}

fn peel(t: &TExpr) -> &TExpr {
    match t {
        TExpr::Costed(inner, _) => peel(inner),
        other => other,
    }
}

fn collect<'t>(t: &'t TExpr, inner: &mut Vec<&'t str>) -> bool {
    match peel(t) {
        TExpr::Lookup { key, .. }
        | TExpr::UniqueLookup { values: key, .. }
        | TExpr::AggregateRead { key, .. } => key.iter().all(|k| known_ahead(k, inner)),
        TExpr::Record(fields) => fields.iter().all(|(_, v)| collect(v, inner)),
        TExpr::List(items) => items.iter().all(|i| collect(i, inner)),
        TExpr::Unary(_, a) | TExpr::Field(a, _) => collect(a, inner),
        TExpr::Binary(op, a, b) if !matches!(op, BinaryOp::And | BinaryOp::Or) => {
            collect(a, inner) && collect(b, inner)
        }
        TExpr::Let(name, value, body) => {
            if !collect(value, inner) {
                return false;
            }
            inner.push(name);
            let ok = collect(body, inner);
            inner.pop();
            ok
        }
        TExpr::Builtin(name, _, args) => match args.split_first() {
            // The input is evaluated first, once; a limiting consumer reads
            // only when its input may be a stream, which a lookup is not.
            Some((input, rest)) => {
                let consumes = matches!(name.as_str(), "take" | "first" | "exists");
                let lookup = matches!(
                    peel(input),
                    TExpr::Lookup { .. } | TExpr::UniqueLookup { .. } | TExpr::AggregateRead { .. }
                );
                (!consumes || lookup)
                    && collect(input, inner)
                    && rest.iter().all(|arg| argument_reads_nothing(name, arg))
            }
            None => false,
        },
        other => reads_nothing(other),
    }
}

/// A key the runtime computes before any read: no read, no failure, no name
/// bound inside the body.
fn known_ahead(t: &TExpr, inner: &[&str]) -> bool {
    match peel(t) {
        TExpr::Const(_) | TExpr::Param(_) => true,
        TExpr::Local(name) => !inner.contains(&name.as_str()),
        TExpr::Field(base, _) => known_ahead(base, inner),
        _ => false,
    }
}

/// A combinator's argument after its input: a value (`take`'s count,
/// `unwrap_or`'s default) or a lambda written in place, reading nothing.
fn argument_reads_nothing(combinator: &str, arg: &TExpr) -> bool {
    if matches!(combinator, "take" | "skip" | "unwrap_or") {
        return reads_nothing(arg);
    }
    match peel(arg) {
        TExpr::Lambda(_, body) => reads_nothing(body),
        TExpr::Order(_) | TExpr::Const(_) => true,
        // A function value from elsewhere may read.
        _ => false,
    }
}

/// Whether evaluating `t` can make no call on the store (conservative).
fn reads_nothing(t: &TExpr) -> bool {
    match peel(t) {
        TExpr::Const(_) | TExpr::Param(_) | TExpr::Local(_) | TExpr::Order(_) => true,
        TExpr::Field(a, _) | TExpr::Unary(_, a) => reads_nothing(a),
        TExpr::Record(fields) => fields.iter().all(|(_, v)| reads_nothing(v)),
        TExpr::List(items) | TExpr::Seq(items) => items.iter().all(reads_nothing),
        TExpr::Binary(_, a, b) | TExpr::Let(_, a, b) => reads_nothing(a) && reads_nothing(b),
        TExpr::If(c, a, b) => reads_nothing(c) && reads_nothing(a) && reads_nothing(b),
        TExpr::Limit(count, _) => reads_nothing(count),
        TExpr::Lambda(_, body) => reads_nothing(body),
        TExpr::Builtin(name, _, args) => {
            !matches!(name.as_str(), "take" | "first" | "exists")
                && args.split_first().is_some_and(|(input, rest)| {
                    reads_nothing(input) && rest.iter().all(|a| argument_reads_nothing(name, a))
                })
        }
        // Accesses, writes, calls (inlined or of function values), and
        // what is not settled yet.
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rqc_plan::Value;

    fn local(name: &str) -> TExpr {
        TExpr::Local(name.into())
    }

    fn lookup(key: TExpr) -> TExpr {
        TExpr::Lookup {
            table: "User".into(),
            key: vec![key],
        }
    }

    #[test]
    fn a_lookup_keyed_by_the_element_is_batched() {
        let key = TExpr::Field(Box::new(local("f")), "followee".into());
        assert!(batchable(&lookup(key.clone())));
        let record = TExpr::Record(vec![
            ("a".into(), lookup(key.clone())),
            ("b".into(), lookup(local("outside"))),
        ]);
        assert!(batchable(&record));
    }

    #[test]
    fn a_lookup_keyed_by_another_read_or_under_an_if_is_not() {
        let nested = lookup(TExpr::Field(Box::new(lookup(local("x"))), "id".into()));
        assert!(!batchable(&nested));
        let by_let = TExpr::Let(
            "u".into(),
            Box::new(lookup(local("x"))),
            Box::new(lookup(TExpr::Field(Box::new(local("u")), "id".into()))),
        );
        assert!(!batchable(&by_let));
        let chosen = TExpr::If(
            Box::new(TExpr::Const(Value::Bool(true))),
            Box::new(lookup(local("x"))),
            Box::new(TExpr::Const(Value::Null)),
        );
        assert!(!batchable(&chosen));
        let called = TExpr::CallLocal("g".into(), vec![local("x")]);
        assert!(!batchable(&called));
    }
}
