//! The live generator's installs: a variant of the program installed while the subscriptions are open, and what each subscriber must get (spec/live.md, "Across installs").

use super::{Watcher, VARIANTS};
use proptest::prelude::*;
use rqc_runtime::live::{apply, Event};
use rqc_runtime::Engine;
use rqc_tests::fixtures::as_multiset;
use rqc_tests::reference::Reference;
use std::time::Duration;

/// Installs variant `next` of the program while the subscriptions are open
/// (spec/live.md, "Across installs"): refused whole (E0510) when its bound
/// is below a group's rows, a no-op (no event) when it is the installed
/// one; otherwise each subscriber gets exactly its whole result at the
/// install's position, planned under the new program (a fresh run of the
/// reference under it), or, when its query is gone, its last event, E0587.
pub fn install<'c>(
    engine: &mut Engine,
    compilations: &'c [rqc_compiler::Compilation],
    (variant, next): (&mut usize, usize),
    reference: &mut Reference<'c>,
    watchers: &mut Vec<Watcher>,
) -> Result<(), TestCaseError> {
    let before = engine.position().unwrap();
    let largest = largest_group(reference);
    let refused = largest > VARIANTS[next].0;
    match engine.install(compilations[next].program.clone()) {
        Ok(()) => prop_assert!(
            !refused,
            "a bound of {} over {} rows",
            VARIANTS[next].0,
            largest
        ),
        Err(error) => prop_assert!(refused && error.code == "E0510", "{}", error),
    }
    let installs = !refused && next != *variant;
    if !refused {
        *variant = next;
        reference.under(&compilations[next].checked);
    }
    let position = engine.position().unwrap();
    prop_assert_eq!(
        position,
        before + u64::from(installs),
        "the install's position"
    );
    let program = &compilations[*variant].program;
    let mut ended = Vec::new();
    for (k, watcher) in watchers.iter_mut().enumerate() {
        let Some(live) = &watcher.live else {
            // Disconnected: resumed later only if its query is still there.
            if program.entry(watcher.name).is_none() {
                ended.push(k);
            }
            continue;
        };
        prop_assert!(live.wait_for(position, Duration::from_secs(30)));
        let came: Vec<Event> = std::iter::from_fn(|| live.try_next()).collect();
        if !installs {
            prop_assert!(came.is_empty(), "{:?} with no install", came);
            continue;
        }
        if program.entry(watcher.name).is_none() {
            prop_assert!(
                matches!(came.as_slice(), [Event::Failed { position: p, error }]
                    if *p == position && error.code == "E0587"),
                "{} {:?}",
                watcher.name,
                came
            );
            prop_assert!(live.is_closed());
            ended.push(k);
            continue;
        }
        prop_assert!(
            matches!(came.as_slice(), [Event::Result { position: p, .. }] if *p == position),
            "{} {:?}",
            watcher.name,
            came
        );
        apply(&mut watcher.held, &came[0]);
        watcher.position = position;
        let fresh = reference.run(watcher.name, &watcher.args);
        prop_assert_eq!(
            as_multiset(&watcher.held),
            as_multiset(&fresh),
            "{} {:?} after the install",
            watcher.name,
            &watcher.args
        );
    }
    for k in ended.into_iter().rev() {
        watchers.remove(k);
    }
    Ok(())
}

/// The most rows of `B` with one `a`, in the reference's tables.
fn largest_group(reference: &Reference<'_>) -> i64 {
    let mut counts = std::collections::HashMap::new();
    for row in reference.tables.get("B").map(Vec::as_slice).unwrap_or(&[]) {
        *counts
            .entry(format!("{:?}", row.field("a")))
            .or_insert(0i64) += 1;
    }
    counts.into_values().max().unwrap_or(0)
}
