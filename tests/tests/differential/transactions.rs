//! Transactions of the differential test: several of its writes (inserts, updates, increments, upserts, deletes) in one `Engine::transaction`, all or nothing, each call checked against the reference as it runs and the tables, indexes, counters and aggregates after every commit.

use super::writes::Write;
use proptest::prelude::*;
use rqc_plan::{Schema, Value, COMMIT_ROUND_TRIPS};
use rqc_runtime::{Engine, RuntimeError};
use rqc_tests::reference::Reference;
use rqc_tests::state::{check_integrity, reference_tables, store_tables};

/// Runs each transaction on rqc and on the reference: the reference applies
/// its calls in turn, each seeing the ones before, and when one is refused
/// (by the tables as the calls before it left them) takes every call of
/// the transaction back; rqc must refuse the same call with the same code
/// and store nothing. Returns the transactions committed and refused.
pub fn run(
    engine: &Engine,
    reference: &mut Reference<'_>,
    transactions: &[Vec<Write>],
    bound: i64,
    schema: &Schema,
) -> Result<(usize, usize), TestCaseError> {
    let (mut committed, mut refused) = (0, 0);
    for calls in transactions {
        let before = store_tables(engine.store(), schema);
        let position = engine.position().unwrap();
        // The reference first: which call (if any) is refused, and each
        // call's value.
        let expected = reference.transaction(calls.iter().map(Write::call), |tables, at| {
            calls[at].refused(tables, bound)
        });
        let (expected, refusal) = match expected {
            Ok(values) => (values, None),
            Err(refusal) => (Vec::new(), Some(refusal)),
        };
        let mut ran = 0;
        let outcome = engine.transaction(|tx| {
            ran = 0;
            let mut outputs = Vec::new();
            for write in calls {
                let (name, args) = write.call();
                outputs.push(tx.run(name, &args)?);
                ran += 1;
            }
            Ok::<_, RuntimeError>((outputs, tx.bound()))
        });
        match (outcome, refusal) {
            (Ok((outputs, total)), None) => {
                let values: Vec<&Value> = outputs.iter().map(|o| &o.value).collect();
                let expected: Vec<&Value> = expected.iter().collect();
                prop_assert_eq!(values, expected, "rqc vs reference: {:?}", calls);
                for output in &outputs {
                    // Each call within its own bound, a commit of its own
                    // counted as if it committed alone.
                    prop_assert!(
                        output.stats.seeks <= output.bound.seeks
                            && output.stats.rows <= output.bound.rows
                            && output.stats.round_trips + COMMIT_ROUND_TRIPS
                                <= output.bound.round_trips,
                        "{:?}: a call read {:?}, over its bound {:?}",
                        calls,
                        output.stats,
                        output.bound
                    );
                }
                let trips: u64 = outputs.iter().map(|o| o.stats.round_trips).sum();
                prop_assert!(trips + COMMIT_ROUND_TRIPS <= total.round_trips);
                let written = outputs.iter().any(|o| o.written > 0);
                let after = engine.position().unwrap();
                prop_assert!(
                    after == position + u64::from(written) || (!written && after == position),
                    "one commit, one position: {} then {} after {:?}",
                    position,
                    after,
                    calls
                );
                committed += 1;
            }
            (Err(error), Some((at, code))) => {
                prop_assert_eq!(error.code, code, "{:?}: {}", calls, error);
                prop_assert_eq!(ran, at, "refused at the call the reference refuses");
                prop_assert_eq!(&before, &store_tables(engine.store(), schema));
                prop_assert_eq!(engine.position().unwrap(), position, "nothing committed");
                refused += 1;
            }
            (Ok(_), Some((at, code))) => {
                return Err(TestCaseError::fail(format!(
                    "{calls:?}: call {at} was not refused ({code})"
                )));
            }
            (Err(error), None) => {
                return Err(TestCaseError::fail(format!("{calls:?}: {error}")));
            }
        }
        prop_assert_eq!(
            store_tables(engine.store(), schema),
            reference_tables(reference, schema),
            "tables after the transaction {:?}",
            calls
        );
        let integrity = check_integrity(engine.store(), schema);
        prop_assert_eq!(integrity, Ok(()), "after the transaction {:?}", calls);
    }
    Ok((committed, refused))
}
