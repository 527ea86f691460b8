//! The pause between attempts of a transaction that conflicted: random, and growing with each conflict, so writers that collided do not collide again in step.
//!
//! Optimistic stores (etcd) answer a commit that lost a race with a
//! conflict, and the attempt runs again. Run again at once, two or three
//! writers that commit the same shared key (the changelog's head) meet
//! again and again: some were given up after every attempt (E0596, issue
//! 35 §5). After the `n`-th conflict an attempt waits a random time below
//! `BASE · 2^n`, capped at `CAP` (full jitter): the expected wait roughly
//! doubles while the writers keep colliding, and at most 16 attempts wait
//! under half a second in all.

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
