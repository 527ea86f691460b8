//! Which functions the runtime applies over a list as one batch per level of reads: those that cannot write (spec/cost.md §11, Lemma 5).
//!
//! The runtime (runtime/src/batch.rs) reads ahead for any function it
//! applies over a list, and gives up only when its dry pass meets a write.
//! So the checker may count `k` applications at the round trips of one
//! exactly where no application can write: anywhere in a query (nothing in
//! it writes), and elsewhere for a lambda written in place whose body
//! neither writes nor calls anything that might (a function, a function
//! value, or a combinator handed a function value, which a mutation's
//! caller may have made a writing lambda), nor reads a stream made
//! elsewhere (whose `map` may write, and runs where it is read).

use super::tir::TExpr;
use crate::syntax::ast::DefKind;
use rqc_plan::{Builtin, Shape};

/// Whether applying `f` over a list in a definition of `kind` is one batch
/// per level of its reads.
pub fn batched(kind: DefKind, f: &TExpr) -> bool {
    if kind == DefKind::Query {
        return true;
    }
    match peel(f) {
        TExpr::Lambda(_, body) => !may_write(body),
        _ => false,
    }
}

fn peel(t: &TExpr) -> &TExpr {
    match t {
        TExpr::Costed(inner, _) => peel(inner),
        other => other,
    }
}

/// Whether evaluating `t` may write (conservative).
pub(super) fn may_write(t: &TExpr) -> bool {
    super::tir::any_node(t, &mut |node| match node {
        TExpr::Insert { .. }
        | TExpr::Update { .. }
        | TExpr::Upsert { .. }
        | TExpr::Delete { .. }
        | TExpr::Call(..)
        | TExpr::CallLocal(..)
        | TExpr::DelayedLambda(_) => true,
        // A stream made elsewhere (a name, a parameter, a field) may carry
        // a mutation's writing `map`, which a limit here runs.
        TExpr::Builtin(_, Shape::Stream, args) if !args.first().is_some_and(made_here) => true,
        // A combinator handed a function value applies it, however the
        // value is reached (a name, a field, an `if`, a block).
        TExpr::Builtin(builtin, _, args) => applies_a_function_value(*builtin, args),
        _ => false,
    })
}

/// Whether `t` is a stream read from its table right here (a scan, and
/// the stream combinators over it), not a stream value from elsewhere.
fn made_here(t: &TExpr) -> bool {
    match peel(t) {
        TExpr::Scan { .. } => true,
        TExpr::Builtin(_, Shape::Stream, args) => args.first().is_some_and(made_here),
        _ => false,
    }
}

/// Whether a combinator's function argument is anything but a lambda
/// written in place (whose body the walk sees).
fn applies_a_function_value(builtin: Builtin, args: &[TExpr]) -> bool {
    if matches!(builtin, Builtin::Take | Builtin::Skip | Builtin::UnwrapOr) {
        return false;
    }
    args.iter().skip(1).any(|a| {
        !matches!(
            peel(a),
            TExpr::Lambda(..) | TExpr::Order(_) | TExpr::Const(_)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rqc_plan::Shape;

    fn local(name: &str) -> TExpr {
        TExpr::Local(name.into())
    }

    fn lambda(body: TExpr) -> TExpr {
        TExpr::Lambda(vec!["x".into()], Box::new(body))
    }

    fn lookup(key: TExpr) -> TExpr {
        TExpr::Lookup {
            table: "User".into(),
            key: vec![key],
        }
    }

    #[test]
    fn reads_of_any_shape_are_batched() {
        // A second level, chosen by `if`: still reads only.
        let second = lookup(TExpr::Field(Box::new(lookup(local("x"))), "id".into()));
        let chosen = TExpr::If(
            Box::new(TExpr::Const(rqc_plan::Value::Bool(true))),
            Box::new(second),
            Box::new(TExpr::Const(rqc_plan::Value::Null)),
        );
        assert!(batched(DefKind::Mutation, &lambda(chosen.clone())));
        assert!(batched(DefKind::Fn, &lambda(chosen)));
    }

    #[test]
    fn what_may_write_is_not_outside_a_query() {
        let insert = TExpr::Insert {
            table: "T".into(),
            row: vec![local("x")],
            generated: false,
        };
        assert!(!batched(DefKind::Mutation, &lambda(insert)));
        let called = lambda(TExpr::CallLocal("g".into(), vec![local("x")]));
        assert!(!batched(DefKind::Fn, &called));
        assert!(batched(DefKind::Query, &called));
        let handed = lambda(TExpr::Builtin(
            Builtin::Map,
            Shape::List,
            vec![local("xs"), local("g")],
        ));
        assert!(!batched(DefKind::Fn, &handed));
        // Reached through a field or an `if`, a function value still is one.
        let through_field = lambda(TExpr::Builtin(
            Builtin::Map,
            Shape::List,
            vec![local("xs"), TExpr::Field(Box::new(local("r")), "f".into())],
        ));
        assert!(!batched(DefKind::Mutation, &through_field));
        let through_if = lambda(TExpr::Builtin(
            Builtin::Map,
            Shape::List,
            vec![
                local("xs"),
                TExpr::If(
                    Box::new(TExpr::Const(rqc_plan::Value::Bool(true))),
                    Box::new(local("g")),
                    Box::new(local("g")),
                ),
            ],
        ));
        assert!(!batched(DefKind::Fn, &through_if));
        // A count is a value, not a function.
        let counted = lambda(TExpr::Builtin(
            Builtin::Take,
            Shape::List,
            vec![local("xs"), local("n")],
        ));
        assert!(batched(DefKind::Mutation, &counted));
        // A function value itself: its body is not seen here.
        assert!(!batched(DefKind::Fn, &local("g")));
        assert!(batched(DefKind::Query, &local("g")));
    }

    /// A stream made elsewhere (a `let`, a parameter) may carry a
    /// mutation's writing `map`, which a limit in the body runs: not read
    /// ahead. One read from its table in the body is seen whole.
    #[test]
    fn a_stream_made_elsewhere_may_write() {
        let first =
            |stream: TExpr| lambda(TExpr::Builtin(Builtin::First, Shape::Stream, vec![stream]));
        assert!(!batched(DefKind::Mutation, &first(local("s"))));
        assert!(batched(DefKind::Query, &first(local("s"))));
        let scan = TExpr::Scan {
            table: "Post".into(),
            index: None,
            prefix: vec![local("x")],
            range: None,
            bounded: false,
        };
        assert!(batched(DefKind::Mutation, &first(scan)));
    }
}
