//! Batched lookups: `map` over a list reads its function's point lookups ahead, one `get_many` per lookup for all elements, instead of one `get` per element.
//!
//! This is what makes an index nested-loop join over a bounded list cost
//! the round trips of one application, not k (spec/cost.md, "Round trips",
//! Lemma 5). A function body is batched only when every read it makes is
//! such a lookup (a key, unique or aggregate read), evaluated once per application whatever the data (not
//! under an `if`, the right side of `&&`/`||`, or a lambda), and keyed by
//! values known before any read (constants, parameters, names bound
//! outside the body, and fields of them). Then each lookup's keys are
//! computed for every element first (they cannot fail or read), read in
//! one call per lookup, and the applications run in order as before,
//! each lookup finding its row in the batch: the same seeks and rows are
//! counted where each is used, and the same errors arise in the same
//! order. The checker admits the same shape on the typed form
//! (compiler/src/check/batch.rs), the runtime on the plan
//! (`rqc_plan::batch`): it batches wherever the checker assumed it, and
//! may batch more (a lambda inlined from a function), which only saves calls.

use crate::error::Result;
use crate::interp::Interp;
use crate::values::{Closure, Val};
use rqc_plan::batch::lookups;
use rqc_plan::Node;
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
        return items
            .iter()
            .map(|i| interp.call(f, vec![i.clone()]))
            .collect();
    };
    let outer = std::mem::take(&mut interp.prefetched);
    let result = read_ahead(interp, closure, &lookups, items).and_then(|()| {
        items
            .iter()
            .map(|i| interp.call(f, vec![i.clone()]))
            .collect()
    });
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
        // As `Interp::call` binds `map`'s one argument.
        let mut env = closure.env.clone();
        for param in closure.params.iter().take(1) {
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
