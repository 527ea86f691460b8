//! Timing: per-operation latencies, their median and 99th percentile.

use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug)]
pub struct Latency {
    pub median: Duration,
    pub p99: Duration,
}

impl Latency {
    pub fn micros(self) -> f64 {
        self.median.as_secs_f64() * 1e6
    }
}

/// Runs `op(i)` for `i` in `0..iterations`, timing each, after a warm-up
/// of up to 100 operations numbered from `iterations` on (so a write
/// benchmark's warm-up uses keys of its own).
pub fn measure(iterations: usize, mut op: impl FnMut(usize)) -> Latency {
    for i in 0..iterations.min(100) {
        op(iterations + i);
    }
    let mut times: Vec<Duration> = (0..iterations)
        .map(|i| {
            let start = Instant::now();
            op(i);
            start.elapsed()
        })
        .collect();
    times.sort();
    Latency {
        median: times[times.len() / 2],
        p99: times[(times.len() * 99 / 100).min(times.len() - 1)],
    }
}

/// A deterministic generator, so every system sees the same keys.
pub use rqc_tests::Rng;
