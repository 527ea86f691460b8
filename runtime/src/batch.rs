//! Batched levels: a function applied over a list reads ahead level by level, every element's reads of one level in one call, so k applications cost the round trips of one (spec/cost.md §11, Lemma 5).
//!
//! [`apply_all`] first evaluates the function over the elements *dry*
//! (`read_ahead`): a read not made yet is noted and stops that element.
//! The reads noted over all elements go to the store as one batch, and the
//! elements still stopped are evaluated dry again, one level further. An
//! element whose dry evaluation needs `t` calls on its own is done after
//! at most `t` passes, since each pass makes at least its next read. Then
//! the applications run in order as before, each read answered from what
//! was read ahead: the same seeks and rows are counted where each is used,
//! and the same errors arise in the same order.
//!
//! A function applied inside a dry pass (a `map` in the body of a `map`)
//! gathers every one of its elements' reads before it stops, so a nested
//! level is one pass too. A dry pass that meets a write gives up: the
//! elements are then evaluated one by one, and what was read ahead still
//! answers their reads until the first write (so giving up never costs a
//! call more than not batching; the checker counts such a function
//! unbatched, see compiler/src/check/batch.rs). A body that holds a write
//! of its own is not read ahead at all: its first pass would stop there;
//! nor is one that cannot read (a pass would find nothing to batch).

use crate::error::Result;
use crate::interp::Interp;
use crate::read_ahead::{blocked, is_blocked, is_write};
use crate::values::Val;

/// When applications stop early: after the first result this holds for.
pub type Until<'a, 'p> = Option<&'a dyn Fn(&Val<'p>) -> Result<bool>>;

/// `f` applied to each of `items`, in order, read ahead level by level; with
/// `until`, the applications stop after the first result it holds for
/// (`any`, `all`), as they would one by one.
pub fn apply_all<'p>(
    interp: &mut Interp<'p, '_>,
    f: &Val<'p>,
    items: &[Val<'p>],
    until: Until<'_, 'p>,
) -> Result<Vec<Val<'p>>> {
    let covered = interp.read_ahead_covered;
    if !covered && items.len() > 1 && interp.reads_ahead(f) {
        if interp.session.dry() {
            gather(interp, f, items)?;
        } else if read_ahead(interp, f, items)? {
            // Every read of these applications, nested ones included, is
            // now answered: a nested batch need not look.
            interp.read_ahead_covered = true;
        }
    }
    let result = apply_each(interp, f, items, until);
    interp.read_ahead_covered = covered;
    result
}

fn apply_each<'p>(
    interp: &mut Interp<'p, '_>,
    f: &Val<'p>,
    items: &[Val<'p>],
    until: Until<'_, 'p>,
) -> Result<Vec<Val<'p>>> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let value = interp.call(f, vec![item.clone()])?;
        let stop = match until {
            Some(until) => until(&value)?,
            None => false,
        };
        out.push(value);
        if stop {
            break;
        }
    }
    Ok(out)
}

/// Inside an enclosing dry pass: every element evaluated dry, so that all
/// of their reads of this level are wanted together; stops when any was.
fn gather<'p>(interp: &mut Interp<'p, '_>, f: &Val<'p>, items: &[Val<'p>]) -> Result<()> {
    let mut stopped = false;
    for item in items {
        match interp.call(f, vec![item.clone()]) {
            Err(e) if is_blocked(&e) => stopped = true,
            Err(e) if is_write(&e) => return Err(e),
            // Done, or failing as the run proper will.
            _ => {}
        }
    }
    if stopped {
        Err(blocked())
    } else {
        Ok(())
    }
}

/// The dry passes and their batches; false when a pass met a write (the
/// reads made ahead so far still answer, until the run's first write).
fn read_ahead<'p>(interp: &mut Interp<'p, '_>, f: &Val<'p>, items: &[Val<'p>]) -> Result<bool> {
    // Dry passes count nothing: `explain --analyze` counts each operator
    // when the run proper evaluates it.
    let analyzing = std::mem::replace(&mut interp.analyzing, false);
    let mut waiting: Vec<&Val<'p>> = items.iter().collect();
    let done = loop {
        interp.session.ahead.dry = true;
        let mut still = Vec::new();
        let mut wrote = false;
        for item in waiting {
            match interp.call(f, vec![item.clone()]) {
                Err(e) if is_blocked(&e) => still.push(item),
                Err(e) if is_write(&e) => {
                    wrote = true;
                    break;
                }
                // Done, or failing as the run proper will.
                _ => {}
            }
        }
        interp.session.ahead.dry = false;
        if wrote {
            interp.session.drop_wanted();
            break Ok(false);
        }
        if still.is_empty() {
            break Ok(true);
        }
        if let Err(e) = interp
            .session
            .read_wanted()
            .and_then(|()| interp.within_deadline())
        {
            break Err(e);
        }
        waiting = still;
    };
    interp.analyzing = analyzing;
    done
}
