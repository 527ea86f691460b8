//! Evaluating an entry's plan in a session: the value, what it read and wrote, and its round trips held to the proved bound before a commit.

use crate::bound::{Access, Tables};
use crate::engine::{Output, Stats};
use crate::error::Result;
use crate::halt::Halt;
use crate::interp::{Env, Interp};
use crate::session::Session;
use rqc_plan::{Entry, Value};

/// Evaluates `entry` in `session`; returns what it read and wrote, and the
/// session for the caller to commit or drop.
pub(crate) fn evaluate<'s>(
    bound: &Tables,
    accesses: &[Access],
    entry: &Entry,
    args: &[Value],
    mut session: Session<'s>,
    analyzing: bool,
) -> Result<(Output, Session<'s>)> {
    let (output, _) = evaluate_in(bound, accesses, entry, args, &mut session, analyzing, None)?;
    Ok((output, session))
}

/// As [`evaluate`], walking a paged scan with `page` (see [`crate::page`]);
/// returns the cursor where the page ended.
pub(crate) fn evaluate_paged<'s>(
    bound: &Tables,
    accesses: &[Access],
    entry: &Entry,
    args: &[Value],
    mut session: Session<'s>,
    analyzing: bool,
    page: Option<crate::page::PageCursor>,
) -> Result<(Output, Session<'s>, Option<crate::page::PageCursor>)> {
    let (output, page) = evaluate_in(bound, accesses, entry, args, &mut session, analyzing, page)?;
    Ok((output, session, page))
}

/// As [`evaluate_paged`], in a session the caller keeps (a query's: it
/// is only dropped after).
pub(crate) fn evaluate_in(
    bound: &Tables,
    accesses: &[Access],
    entry: &Entry,
    args: &[Value],
    session: &mut Session<'_>,
    analyzing: bool,
    page: Option<crate::page::PageCursor>,
) -> Result<(Output, Option<crate::page::PageCursor>)> {
    let split = session.max_txn_ops();
    let mut interp = Interp::new(bound, accesses, args, session, split);
    interp.analyzing = analyzing;
    interp.page = page;
    // A dry pass's control value stops inside `batch`: one that comes
    // this far is a bug, an error (E0594), never a value.
    let value = interp
        .value(&entry.root, &Env::new())
        .map_err(Halt::into_error)?;
    let output = Output {
        value,
        written: interp.session.rows_written(),
        stats: Stats {
            seeks: interp.session.meter.seeks,
            rows: interp.session.meter.rows,
            round_trips: interp.session.meter.trips,
        },
        bound: crate::commit_limit::widened(entry.bound, split),
        operators: interp.stats,
        attempts: 1,
    };
    Ok((output, interp.page))
}

/// Readies `session`'s commit and holds its round trips to the bound
/// before it is made (the changelog head's read, counted, and the commit
/// itself), so a broken proof stores nothing.
pub(crate) fn committing(name: &str, output: &mut Output, session: &mut Session<'_>) -> Result<()> {
    session.prepare_commit()?;
    output.stats.round_trips = session.meter.trips + u64::from(session.commits());
    within_round_trips(name, output)
}

/// E0546 when a run's round trips, its commit counted, pass the entry's
/// proved bound (the operators' own checks cannot see the commit).
pub(crate) fn within_round_trips(name: &str, output: &Output) -> Result<()> {
    let (made, bound) = (output.stats.round_trips, output.bound.round_trips);
    if made > bound {
        return Err(crate::interp::beyond_round_trips(format!(
            "`{name}` made {made} round trips with its commit, beyond its proved bound of {bound}"
        )));
    }
    Ok(())
}
