//! Running a transaction again after a conflict: at most [`MAX_ATTEMPTS`] attempts, with a pause between them that is random and grows with each conflict, so writers that collided do not collide again in step.
//!
//! Optimistic stores (etcd) answer a commit that lost a race with a
//! conflict, and the attempt runs again. Run again at once, two or three
//! writers that commit the same shared key (the changelog's head) meet
//! again and again: some were given up after every attempt (E0596, issue
//! 35 §5). After the `n`-th conflict an attempt waits a random time below
//! `BASE · 2^n`, capped at `CAP` (full jitter): the expected wait roughly
//! doubles while the writers keep colliding, and at most 16 attempts wait
//! under half a second in all.

use crate::error::{Result, RuntimeError};
use std::cell::Cell;
use std::time::Duration;

/// The first conflict's longest pause.
const BASE: Duration = Duration::from_micros(200);

/// The longest pause after any conflict.
const CAP: Duration = Duration::from_millis(25);

/// Waits after conflict number `conflicts` (1 for the first).
pub fn pause(conflicts: u32) {
    let longest = BASE
        .saturating_mul(1u32 << conflicts.min(16))
        .min(CAP)
        .as_micros() as u64;
    let micros = next_random() % longest.max(1);
    std::thread::sleep(Duration::from_micros(micros));
}

/// A xorshift generator per thread, seeded from the clock and the
/// thread: the pauses of two threads that conflicted together differ.
fn next_random() -> u64 {
    thread_local! {
        static STATE: Cell<u64> = Cell::new(seed());
    }
    STATE.with(|state| {
        let mut x = state.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        state.set(x);
        x
    })
}

fn seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(nanos);
    std::hash::Hash::hash(&std::thread::current().id(), &mut hasher);
    hasher.finish() | 1
}

/// Attempts of one transaction before a run of conflicts is given up (E0596).
pub const MAX_ATTEMPTS: u32 = 16;

/// Runs `attempt`, one whole transaction, again while it fails on a
/// conflict, at most [`MAX_ATTEMPTS`] times in all; returns its result and
/// the number of attempts. Past the cap, E0596.
pub(crate) fn retrying<T>(attempt: impl FnMut() -> Result<T>) -> Result<(T, u32)> {
    retrying_as(attempt)
}

/// [`retrying`] for an attempt whose errors are of a caller's own type
/// (a library transaction's body returns the library's errors): one that
/// holds a runtime conflict runs the attempt again.
pub fn retrying_as<T, E: crate::error::TransactionError>(
    mut attempt: impl FnMut() -> std::result::Result<T, E>,
) -> std::result::Result<(T, u32), E> {
    let mut last = None;
    for attempts in 1..=MAX_ATTEMPTS {
        match attempt() {
            Err(error) if error.runtime().is_some_and(RuntimeError::is_conflict) => {
                last = error.runtime().map(|e| e.message.clone());
                if attempts < MAX_ATTEMPTS {
                    pause(attempts);
                }
            }
            other => return other.map(|value| (value, attempts)),
        }
    }
    let last = last.expect("every attempt conflicted");
    Err(E::from(RuntimeError::new(
        "E0596",
        format!(
            "the transaction conflicted with concurrent ones {MAX_ATTEMPTS} times in a row and was given up (last: {last})"
        ),
        "nothing was committed; run it again, or have fewer writers change the same rows at once",
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_stay_under_their_cap_and_vary() {
        let start = std::time::Instant::now();
        for conflicts in 1..=16 {
            pause(conflicts);
        }
        assert!(start.elapsed() < Duration::from_secs(2));
        let draws: std::collections::HashSet<u64> = (0..32).map(|_| next_random()).collect();
        assert!(draws.len() > 30, "{draws:?}");
    }
}
