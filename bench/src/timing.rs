//! Interleaved timing: every system runs the same operations in small
//! batches, in a random order of systems each round, so a noisy machine
//! slows all of them alike; then quantiles and per-round ratios.

use crate::cells::Rows;
use std::hint::black_box;
use std::time::Instant;

/// A deterministic generator, so every system sees the same keys.
pub use rqc_tests::Rng;

/// One system's side of an experiment: `op(i)` performs operation `i`
/// (the same `i` means the same work on every side). With a sink it also
/// hands over what it read or wrote, for the check that every side returns
/// the same rows; timed runs pass `None`, so the check runs the code timed.
pub struct Contender<'a> {
    pub system: String,
    pub op: Op<'a>,
}

/// Operation `i`, with or without a sink for what it returns.
pub type Op<'a> = Box<dyn FnMut(usize, Option<&mut Rows>) + 'a>;

impl<'a> Contender<'a> {
    pub fn new(
        system: impl Into<String>,
        op: impl FnMut(usize, Option<&mut Rows>) + 'a,
    ) -> Contender<'a> {
        Contender {
            system: system.into(),
            op: Box::new(op),
        }
    }
}

/// How an experiment is cut into rounds.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Timed operations per system.
    pub ops: usize,
    /// Operations per system per round.
    pub batch: usize,
    /// Untimed operations first, numbered `ops..ops + warmup` (so a write
    /// experiment's warm-up uses rows of its own): the check. Every system
    /// must return for each the same rows as the first system.
    pub warmup: usize,
    /// The check fails if no warm-up operation returned a row (so a check
    /// of empty results cannot pass for a broken side).
    pub expect_rows: bool,
}

/// One system's timings: nanoseconds per operation, in operation order.
pub struct Measured {
    pub system: String,
    pub samples: Vec<f64>,
    pub batch: usize,
}

/// Checks the contenders on the warm-up operations, then runs every one
/// over operations `0..plan.ops`, batch by batch; each round shuffles the
/// order of the systems. Each sample has the clock's own cost (measured
/// once, see [`clock_overhead_ns`]) taken off.
pub fn interleave(contenders: &mut [Contender<'_>], plan: Plan, seed: u64) -> Vec<Measured> {
    let overhead = clock_overhead_ns();
    let mut expected: Vec<Rows> = Vec::new();
    for (k, c) in contenders.iter_mut().enumerate() {
        for (w, i) in (plan.ops..plan.ops + plan.warmup).enumerate() {
            let mut rows = Vec::new();
            (c.op)(i, Some(&mut rows));
            if k == 0 {
                expected.push(rows);
            } else {
                assert_eq!(
                    rows, expected[w],
                    "operation {i}: {} returns other rows than the first system",
                    c.system
                );
            }
        }
    }
    assert!(
        !plan.expect_rows || plan.warmup == 0 || expected.iter().any(|rows| !rows.is_empty()),
        "the check saw no rows at all"
    );
    let mut samples: Vec<Vec<f64>> = contenders
        .iter()
        .map(|_| Vec::with_capacity(plan.ops))
        .collect();
    let mut order: Vec<usize> = (0..contenders.len()).collect();
    let mut rng = Rng::new(seed);
    let batch = plan.batch.max(1);
    for start in (0..plan.ops).step_by(batch) {
        shuffle(&mut order, &mut rng);
        for &c in &order {
            let op = &mut contenders[c].op;
            for i in start..(start + batch).min(plan.ops) {
                let t = Instant::now();
                op(i, None);
                let ns = t.elapsed().as_nanos() as f64;
                samples[c].push((ns - overhead).max(0.0));
            }
        }
    }
    contenders
        .iter()
        .zip(samples)
        .map(|(c, samples)| Measured {
            system: c.system.clone(),
            samples,
            batch,
        })
        .collect()
}

fn shuffle(order: &mut [usize], rng: &mut Rng) {
    for k in (1..order.len()).rev() {
        order.swap(k, rng.below(k as u64 + 1) as usize);
    }
}

/// The median cost of reading the clock around an empty operation, in ns
/// (about 20–40 ns on Linux); measured once per process.
pub fn clock_overhead_ns() -> f64 {
    static OVERHEAD: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *OVERHEAD.get_or_init(|| {
        let mut times: Vec<f64> = (0..20_000)
            .map(|_| {
                let t = Instant::now();
                black_box(());
                t.elapsed().as_nanos() as f64
            })
            .collect();
        quantile(&mut times, 0.5)
    })
}

/// Quantiles of one system's samples.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub median: f64,
    pub p25: f64,
    pub p75: f64,
    pub p99: f64,
    pub mean: f64,
}

impl Stats {
    pub fn of(samples: &[f64]) -> Stats {
        let mut sorted = samples.to_vec();
        Stats {
            median: quantile(&mut sorted, 0.5),
            p25: quantile(&mut sorted, 0.25),
            p75: quantile(&mut sorted, 0.75),
            p99: quantile(&mut sorted, 0.99),
            mean: sorted.iter().sum::<f64>() / sorted.len().max(1) as f64,
        }
    }
}

/// The `q` quantile (nearest rank); sorts `xs` in place.
pub fn quantile(xs: &mut [f64], q: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    xs[((xs.len() - 1) as f64 * q).round() as usize]
}

/// Round by round, `a`'s batch median over `b`'s: their median and
/// p25–p75. Two systems timed in the same round met the same machine, so
/// this spread says how far noise moved the ratio.
pub fn round_ratios(a: &Measured, b: &Measured) -> (f64, f64, f64) {
    let mut ratios: Vec<f64> = a
        .samples
        .chunks(a.batch)
        .zip(b.samples.chunks(b.batch))
        .map(|(x, y)| quantile(&mut x.to_vec(), 0.5) / quantile(&mut y.to_vec(), 0.5))
        .filter(|r| r.is_finite())
        .collect();
    (
        quantile(&mut ratios, 0.5),
        quantile(&mut ratios, 0.25),
        quantile(&mut ratios, 0.75),
    )
}
