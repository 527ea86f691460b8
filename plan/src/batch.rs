//! Which operators read ahead one batch per level: a combinator applying a function that reads over a list (spec/cost.md §11, Lemma 5), as `explain` shows it.
//!
//! The runtime (runtime/src/batch.rs) reads ahead for every function it
//! applies over a list, and gives up where a dry pass meets a write; this
//! says where it reads ahead, for the plan's reader.

use crate::plan::{Combinator, Node, Op, Shape};

/// Whether `node` applies a function that may read over a list, each
/// level of its reads in one batch for all elements.
pub fn reads_ahead(node: &Node) -> bool {
    let function = match &node.op {
        Op::Combinator(c, Shape::List, args) if takes_function(*c) => args.get(1),
        Op::TopK { key, .. } => Some(&**key),
        _ => None,
    };
    match function.map(|f| &f.op) {
        Some(Op::Lambda(_, body)) => !reads_nothing(body) && !may_write(body),
        _ => false,
    }
}

/// Whether evaluating `node` may write (a batch's dry pass gives up there):
/// a write, or a function value applied (conservative).
fn may_write(node: &Node) -> bool {
    match &node.op {
        Op::Apply(..) => true,
        // A combinator handed a function value applies it.
        Op::Combinator(c, _, args)
            if takes_function(*c) && args.get(1).is_some_and(|f| !is_lambda(f)) =>
        {
            true
        }
        Op::TopK { key, .. } if !is_lambda(key) => true,
        _ => writes(node) || node.children().into_iter().any(may_write),
    }
}

/// Whether evaluating `node` may call the store (conservative): a body
/// that cannot is not read ahead, a pass over it would find nothing to
/// read.
pub fn may_read(node: &Node) -> bool {
    !reads_nothing(node)
}

/// Whether `node` holds a write of its own (not through a function value):
/// the runtime does not read ahead for such a body, whose dry pass would
/// stop at the write.
pub fn writes(node: &Node) -> bool {
    match &node.op {
        Op::Insert { .. } | Op::Update { .. } | Op::Upsert { .. } | Op::Delete { .. } => true,
        _ => node.children().into_iter().any(writes),
    }
}

fn is_lambda(node: &Node) -> bool {
    matches!(node.op, Op::Lambda(..))
}

fn takes_function(c: Combinator) -> bool {
    !matches!(
        c,
        Combinator::Take
            | Combinator::Skip
            | Combinator::UnwrapOr
            | Combinator::First
            | Combinator::Exists
            | Combinator::Flatten
            | Combinator::Distinct
            | Combinator::Count
            | Combinator::Reverse
    )
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
        | Op::Upsert { .. }
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
