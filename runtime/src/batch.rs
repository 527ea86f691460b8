//! Batched lookups: `map` over a list reads its function's point lookups ahead, one `get_many` per lookup for all elements, instead of one `get` per element.
//!
//! This is what makes an index nested-loop join over a bounded list cost
//! the round trips of one application, not k (spec/cost.md, "Round trips",
//! Lemma 5). A function body is batched only when every read it makes is
//! such a lookup, evaluated once per application whatever the data (not
//! under an `if`, the right side of `&&`/`||`, or a lambda), and keyed by
//! values known before any read (constants, parameters, names bound
//! outside the body, and fields of them). Then each lookup's keys are
//! computed for every element first (they cannot fail or read), read in
//! one call per lookup, and the applications run in order as before,
//! each lookup finding its row in the batch: the same seeks and rows are
//! counted where each is used, and the same errors arise in the same
//! order. The checker admits the same shape on the typed form
//! (compiler/src/check/batch.rs); the runtime never batches where it did
//! not, and where it did, this module batches.

use crate::error::Result;
use crate::interp::Interp;
use crate::values::{Closure, Val};
use rqc_plan::{BinOp, Combinator, Node, Op};
use std::collections::HashMap;

/// `f` applied to each of `items`, in order, its lookups read ahead in one
/// batch each when its body allows it.
pub fn apply_all<'p>(
    interp: &mut Interp<'p, '_>,
    f: &Val<'p>,
    items: &[Val<'p>],
) -> Result<Vec<Val<'p>>> {
    let batched = match f {
        Val::Closure(closure) if items.len() > 1 => lookups(closure.body)
            .filter(|l| !l.is_empty())
            .map(|l| (closure, l)),
        _ => None,
    };
    let Some((closure, lookups)) = batched else {
        return items.iter().map(|i| interp.call(f, vec![i.clone()])).collect();
    };
    let outer = std::mem::take(&mut interp.prefetched);
    let result = read_ahead(interp, closure, &lookups, items)
        .and_then(|()| items.iter().map(|i| interp.call(f, vec![i.clone()])).collect());
    interp.prefetched = outer;
    result
}

/// Computes every lookup's key for every element and reads each lookup's
/// keys in one call, into `interp.prefetched`.
fn read_ahead<'p>(
    interp: &mut Interp<'p, '_>,
    closure: &Closure<'p>,
    lookups: &[&'p Node],
    items: &[Val<'p>],
) -> Result<()> {
    // The keys are evaluated again when each application runs: kept out of
    // `explain --analyze`'s counts here, so each node counts once per use.
    let analyzing = std::mem::replace(&mut interp.analyzing, false);
    let mut keys: Vec<Vec<Vec<u8>>> = vec![Vec::with_capacity(items.len()); lookups.len()];
    let mut failure = None;
    'items: for item in items {
        let mut env = closure.env.clone();
        for param in closure.params.iter() {
            env = env.bind(param, item.clone());
        }
        for (lookup, out) in lookups.iter().zip(&mut keys) {
            match interp.lookup_key(lookup, &env) {
                Ok(key) => out.push(key),
                Err(error) => {
                    failure = Some(error);
                    break 'items;
                }
            }
        }
    }
    interp.analyzing = analyzing;
    if let Some(error) = failure {
        return Err(error);
    }
    for (lookup, keys) in lookups.iter().zip(keys) {
        let tree = interp.lookup_tree(lookup)?;
        let mut unique: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        unique.sort_unstable();
        unique.dedup();
        let found = interp.session.get_many(tree, &unique)?;
        let mut read = HashMap::with_capacity(unique.len());
        for (key, value) in unique.into_iter().zip(found) {
            read.insert((lookup.id, key.to_vec()), value);
        }
        interp.prefetched.extend(read);
        interp.within_deadline()?;
    }
    Ok(())
}

/// The lookups a function body reads ahead, in evaluation order; `None`
/// when the body reads in any other way.
pub fn lookups(body: &Node) -> Option<Vec<&Node>> {
    let mut found = Vec::new();
    collect(body, &mut Vec::new(), &mut found).then_some(found)
}

/// Walks the nodes evaluated exactly once per application: lookups with
/// keys known before any read are gathered, anything else must not read.
fn collect<'p>(node: &'p Node, inner: &mut Vec<&'p str>, found: &mut Vec<&'p Node>) -> bool {
    match &node.op {
        Op::Get { key, .. } | Op::GetUnique { values: key, .. } => {
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
                let consumes = matches!(c, Combinator::Take | Combinator::First | Combinator::Exists);
                let lookup = matches!(input.op, Op::Get { .. } | Op::GetUnique { .. });
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
    if matches!(c, Combinator::Take | Combinator::UnwrapOr) {
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
pub fn reads_nothing(node: &Node) -> bool {
    match &node.op {
        Op::Get { .. }
        | Op::GetUnique { .. }
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
