//! Which function bodies the runtime reads ahead as one batch per lookup: every read a point lookup evaluated once per application, keyed by values known before any read (spec/cost.md §11, Lemma 5).
//!
//! A rule on plans, shared by the runtime (which batches by it) and
//! `explain` (which shows it). The checker's rule on the typed form
//! (compiler/src/check/batch.rs) admits no body this one refuses.

use crate::plan::{BinOp, Combinator, Node, Op};

/// The lookups a function body reads ahead, in evaluation order; `None`
/// when the body reads in any other way.
pub fn lookups(body: &Node) -> Option<Vec<&Node>> {
    let mut found = Vec::new();
    collect(body, &mut Vec::new(), &mut found).then_some(found)
}

/// Walks the nodes evaluated exactly once per application: lookups (key,
/// unique and aggregate reads) with
/// keys known before any read are gathered, anything else must not read.
fn collect<'p>(node: &'p Node, inner: &mut Vec<&'p str>, found: &mut Vec<&'p Node>) -> bool {
    match &node.op {
        Op::Get { key, .. } | Op::GetUnique { values: key, .. } | Op::Aggregate { key, .. } => {
            let known = key.iter().all(|k| known_ahead(k, inner));
            if known {
                found.push(node);
            }
            known
        }
        Op::Record(fields) => fields.iter().all(|(_, v)| collect(v, inner, found)),
        Op::List(items) => items.iter().all(|i| collect(i, inner, found)),
        Op::Unary(_, a) | Op::Field(a, _) => collect(a, inner, found),
        // The input is evaluated first, once; a limiting consumer reads
        // only when its input may be a stream, which a lookup is not.
        Op::Combinator(c, _, args) => match args.split_first() {
            Some((input, rest)) => {
                let consumes =
                    matches!(c, Combinator::Take | Combinator::First | Combinator::Exists);
                let lookup = matches!(
                    input.op,
                    Op::Get { .. } | Op::GetUnique { .. } | Op::Aggregate { .. }
                );
                (!consumes || lookup)
                    && collect(input, inner, found)
                    && rest.iter().all(|arg| argument_reads_nothing(*c, arg))
            }
            None => false,
        },
        Op::Binary(op, a, b) if !matches!(op, BinOp::And | BinOp::Or) => {
            collect(a, inner, found) && collect(b, inner, found)
        }
        Op::Let(name, value, body) => {
            if !collect(value, inner, found) {
                return false;
            }
            inner.push(name);
            let ok = collect(body, inner, found);
            inner.pop();
            ok
        }
        _ => reads_nothing(node),
    }
}

/// A key computed from what is known before the body reads: no read, no
/// failure, no name the body binds.
fn known_ahead(node: &Node, inner: &[&str]) -> bool {
    match &node.op {
        Op::Const(_) | Op::Param(_) => true,
        Op::Var(name) => !inner.contains(&name.as_str()),
        Op::Field(base, _) => known_ahead(base, inner),
        _ => false,
    }
}

/// A combinator's argument after its input: a value (`take`'s count,
/// `unwrap_or`'s default) or a lambda written in place, reading nothing.
fn argument_reads_nothing(c: Combinator, arg: &Node) -> bool {
    if matches!(
        c,
        Combinator::Take | Combinator::Skip | Combinator::UnwrapOr
    ) {
        return reads_nothing(arg);
    }
    match &arg.op {
        Op::Lambda(_, body) => reads_nothing(body),
        Op::Const(_) => true,
        // A function value from elsewhere may read.
        _ => false,
    }
}

/// Whether evaluating `node` can make no call on the store. Conservative:
/// an applied function value, a limiting consumer (its input may be a
/// stream) or any access says it may.
fn reads_nothing(node: &Node) -> bool {
    match &node.op {
        Op::Get { .. }
        | Op::GetUnique { .. }
        | Op::Aggregate { .. }
        | Op::Scan { .. }
        | Op::Insert { .. }
        | Op::Update { .. }
        | Op::Delete { .. }
        | Op::Apply(..)
        | Op::Unreachable => false,
        Op::Combinator(c, _, args) => {
            !matches!(c, Combinator::Take | Combinator::First | Combinator::Exists)
                && args.split_first().is_some_and(|(input, rest)| {
                    reads_nothing(input) && rest.iter().all(|a| argument_reads_nothing(*c, a))
                })
        }
        Op::TopK { input, key, k, .. } => {
            reads_nothing(input)
                && reads_nothing(k)
                && matches!(&key.op, Op::Lambda(_, body) if reads_nothing(body))
        }
        _ => node.children().into_iter().all(reads_nothing),
    }
}
