//! Batched levels: a function applied over a list reads ahead level by level, every element's reads of one level in one call, so k applications cost the round trips of one (spec/cost.md §11, Lemma 5).
//!
//! [`apply_all`] evaluates the function over the elements in *dry* passes
//! (`read_ahead`): a read made ahead is answered and counted as in the run,
//! a read not made yet is noted and stops that element ([`Halt::Blocked`],
//! a control value, never an error). The reads noted
//! over all elements go to the store as one batch, and only the elements
//! still stopped are evaluated again, one level further. An element whose
//! evaluation needs `t` calls on its own is done after at most `t + 1`
//! passes, since each pass makes at least its next read. An element that
//! completes keeps its result, and what it counted (seeks, rows, key ranges
//! read) is held apart; a stopped element's counts are taken back, so the
//! pass that completes it counts each of its reads once. Then the results
//! are taken in order, each element's counts added and the enclosing bounds
//! checked as it is reached: the same seeks and rows are counted as one by
//! one, the same errors arise in the same order, and `any`/`all` stop where
//! one by one they would (what elements past the stop counted is dropped
//! with their results, as their reads would not have been made).
//!
//! A function applied inside a dry pass (a `map` in the body of a `map`)
//! evaluates every one of its elements before it stops, so that all their
//! reads of the level are wanted together: a nested level is one pass too.
//! A dry pass that meets a write operator stops there, before anything of
//! it runs ([`Halt::DryWrite`]), and gives up: its counts are taken back and
//! the elements are evaluated one by one, and what was read ahead still
//! answers their reads until the first write (so giving up never costs a
//! call more than not batching; the checker counts such a function
//! unbatched, see compiler/src/check/batch.rs). A body that holds a write
//! of its own is not read ahead at all: its first pass would stop there;
//! nor is one that cannot read (a pass would find nothing to batch).
//! Under `explain --analyze` the passes only read ahead, and the
//! applications then run one by one, so that each operator's figures are
//! those of its evaluations in the run.

use crate::error::Result;
use crate::halt::{Eval, Halt};
use crate::interp::{internal, Interp};
use crate::session::Counted;
use crate::values::Val;

/// When applications stop early: after the first result this holds for.
pub type Until<'a, 'p> = Option<&'a dyn Fn(&Val<'p>) -> Result<bool>>;

/// An element's application done in a pass: its result (an error included,
/// raised when the run reaches it), and what it counted.
type Done<'p> = Option<(Eval<Val<'p>>, Counted)>;

/// `f` applied to each of `items`, in order, read ahead level by level; with
/// `until`, the applications stop after the first result it holds for
/// (`any`, `all`), as they would one by one.
pub fn apply_all<'p>(
    interp: &mut Interp<'p, '_>,
    f: &Val<'p>,
    items: &[Val<'p>],
    until: Until<'_, 'p>,
) -> Eval<Vec<Val<'p>>> {
    if interp.read_ahead_covered || items.len() <= 1 || !interp.reads_ahead(f) {
        return apply_each(interp, f, items, until);
    }
    let mut done: Vec<Done<'p>> = items.iter().map(|_| None).collect();
    let all: Vec<usize> = (0..items.len()).collect();
    if interp.session.dry() {
        // Inside an enclosing pass: one pass, whose wants the enclosing
        // batch reads; a write met goes up to the enclosing pass.
        let stopped = pass(interp, f, items, &all, &mut done)?;
        if !stopped.is_empty() {
            return Err(Halt::Blocked);
        }
        return in_order(interp, done, until);
    }
    if interp.analyzing {
        return analyzed(interp, f, items, until, done);
    }
    if read_ahead(interp, f, items, &mut done)? {
        in_order(interp, done, until)
    } else {
        apply_each(interp, f, items, until)
    }
}

fn apply_each<'p>(
    interp: &mut Interp<'p, '_>,
    f: &Val<'p>,
    items: &[Val<'p>],
    until: Until<'_, 'p>,
) -> Eval<Vec<Val<'p>>> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let value = match interp.field_of(f, item) {
            Some(field) => field?,
            None => interp.call(f, vec![item.clone()])?,
        };
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

/// `explain --analyze`: the passes read ahead, then the applications run one
/// by one, every read answered from what was read ahead, each operator
/// counting its own evaluations.
fn analyzed<'p>(
    interp: &mut Interp<'p, '_>,
    f: &Val<'p>,
    items: &[Val<'p>],
    until: Until<'_, 'p>,
    mut done: Vec<Done<'p>>,
) -> Eval<Vec<Val<'p>>> {
    interp.analyzing = false;
    let read = read_ahead(interp, f, items, &mut done);
    interp.analyzing = true;
    // The passes' results go: the applications run again, counted.
    drop(done);
    let covered = interp.read_ahead_covered;
    // Every read of these applications, nested ones included, is now
    // answered: a nested batch need not look.
    interp.read_ahead_covered = read?;
    let result = apply_each(interp, f, items, until);
    interp.read_ahead_covered = covered;
    result
}

/// One pass over the elements `waiting`: those that complete keep their
/// result and counts in `done`; the ones stopped at a read not made yet are
/// returned, their counts taken back. A write met stops the pass with
/// [`Halt::DryWrite`] (its element's counts taken back too).
fn pass<'p>(
    interp: &mut Interp<'p, '_>,
    f: &Val<'p>,
    items: &[Val<'p>],
    waiting: &[usize],
    done: &mut [Done<'p>],
) -> Eval<Vec<usize>> {
    let mut stopped = Vec::new();
    for &i in waiting {
        let mark = interp.session.mark();
        let result = interp.call(f, vec![items[i].clone()]);
        let counted = interp.session.take_since(&mark);
        match result {
            Err(Halt::Blocked) => stopped.push(i),
            Err(Halt::DryWrite) => return Err(Halt::DryWrite),
            // Done, or failing as the run will when it reaches it.
            result => done[i] = Some((result, counted)),
        }
    }
    Ok(stopped)
}

/// The dry passes and their batches, until every element is done; false
/// when a pass met a write (the reads made ahead so far still answer,
/// until the run's first write; nothing the passes counted is kept).
fn read_ahead<'p>(
    interp: &mut Interp<'p, '_>,
    f: &Val<'p>,
    items: &[Val<'p>],
    done: &mut [Done<'p>],
) -> Eval<bool> {
    let mut waiting: Vec<usize> = (0..items.len()).collect();
    loop {
        interp.session.ahead.dry = true;
        let stopped = pass(interp, f, items, &waiting, done);
        interp.session.ahead.dry = false;
        let stopped = match stopped {
            Err(Halt::DryWrite) => {
                interp.session.drop_wanted();
                done.iter_mut().for_each(|d| *d = None);
                return Ok(false);
            }
            stopped => stopped?,
        };
        if stopped.is_empty() {
            return Ok(true);
        }
        interp.session.read_wanted()?;
        interp.within_deadline()?;
        waiting = stopped;
    }
}

/// The results in order, each element's counts added as the run reaches
/// it and checked against the enclosing bounds; the first error is the
/// run's, and `until` stops as one by one.
fn in_order<'p>(
    interp: &mut Interp<'p, '_>,
    done: Vec<Done<'p>>,
    until: Until<'_, 'p>,
) -> Eval<Vec<Val<'p>>> {
    let mut out = Vec::with_capacity(done.len());
    for element in done {
        let (result, counted) =
            element.ok_or_else(|| internal("an element read ahead without its result"))?;
        interp.session.add(counted);
        interp.within_deadline()?;
        let value = result?;
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
