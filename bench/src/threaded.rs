//! Timing rqc runs from several client threads at once, the systems
//! interleaved in rounds in a random order, with each run's round trips
//! held against its proved bound.

use crate::cells::{rqc_rows, Rows};
use crate::timing::{clock_overhead_ns, Measured, Rng};
use rqc::{Error, Output};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::Instant;

/// Run `i` on system `s`: the same `i` is the same work on every system.
/// It must be callable from many threads at once.
pub type RunOp<'a> = dyn Fn(usize, usize) -> Result<Output, Error> + Sync + 'a;

/// The code of a transaction given up after conflicting again and again
/// (spec/errors.md): counted, not a failure of the benchmark, since
/// optimistic writers on a store shared by many clients can meet it.
const GAVE_UP: &str = "E0596";

/// What one system did over the timed runs of one experiment.
pub struct Line {
    pub system: String,
    /// Nanoseconds per run, in run order (so `batch` runs make a round).
    pub measured: Measured,
    /// Seconds from the first run's start to the last run's end in each of
    /// the system's rounds, summed: runs over this is its throughput (the
    /// hand-over between rounds is left out).
    pub wall: f64,
    /// For each run that completed, in run order: its number, the round
    /// trips it made (the last attempt's, its commit counted) and the
    /// bound its entry point was proved to.
    pub trips: Vec<(usize, u64, u64)>,
    /// Attempts beyond the first (commits that conflicted and ran again).
    pub retries: u64,
    /// Runs given up after conflicting on every attempt (E0596).
    pub gave_up: usize,
}

impl Line {
    /// Completed runs per second.
    pub fn throughput(&self) -> f64 {
        self.trips.len() as f64 / self.wall
    }
}

/// Runs `range` once on every system, one run at a time (untimed): the
/// warm-up and the check. Where `compared(i)`, every system must return
/// the rows the first one returns; every run must stay within its bound.
pub fn check(
    systems: &[String],
    op: &RunOp<'_>,
    range: std::ops::Range<usize>,
    compared: &dyn Fn(usize) -> bool,
) {
    let mut expected: Vec<Rows> = Vec::new();
    let mut any_rows = false;
    for (s, system) in systems.iter().enumerate() {
        for (w, i) in range.clone().enumerate() {
            let output = op(s, i).unwrap_or_else(|e| panic!("run {i} on {system}: {e}"));
            within_bound(system, i, &output);
            let rows = if compared(i) {
                rqc_rows(&output)
            } else {
                Vec::new()
            };
            any_rows |= !rows.is_empty();
            if s == 0 {
                expected.push(rows);
            } else {
                assert_eq!(
                    rows, expected[w],
                    "run {i}: {system} returns other rows than {}",
                    systems[0]
                );
            }
        }
    }
    assert!(any_rows || range.is_empty(), "the check saw no rows at all");
}

fn within_bound(system: &str, i: usize, output: &Output) {
    assert!(
        output.stats.round_trips <= output.bound.round_trips,
        "run {i} on {system} made {} round trips, beyond its bound of {}",
        output.stats.round_trips,
        output.bound.round_trips
    );
}

/// One run as a worker recorded it.
struct Sample {
    system: usize,
    i: usize,
    ns: f64,
    /// Start and end, in seconds since the experiment began.
    span: (f64, f64),
    trips: u64,
    bound: u64,
    retries: u64,
    gave_up: bool,
}

/// Times runs `first..first + ops` on every system from `threads` client
/// threads. Each round, in a random order of systems, a system gets the
/// next `batch` runs, which its threads take one at a time until none is
/// left; the next system starts when all of them are done. Each run is
/// timed on its own (the clock's cost taken off).
pub fn timed(
    systems: &[String],
    op: &RunOp<'_>,
    first: usize,
    ops: usize,
    threads: usize,
    batch: usize,
    seed: u64,
) -> Vec<Line> {
    let overhead = clock_overhead_ns();
    let barrier = Barrier::new(threads + 1);
    let (system, next, end) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    let done = AtomicBool::new(false);
    let samples: Mutex<Vec<Sample>> = Mutex::new(Vec::with_capacity(ops * systems.len()));
    let failure: Mutex<Option<String>> = Mutex::new(None);
    let batch = batch.max(1);
    let base = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut mine = Vec::new();
                loop {
                    barrier.wait();
                    if done.load(Ordering::SeqCst) {
                        break;
                    }
                    let s = system.load(Ordering::SeqCst);
                    let end = end.load(Ordering::SeqCst);
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        if i >= end {
                            break;
                        }
                        let t = Instant::now();
                        let result = op(s, i);
                        let elapsed = t.elapsed();
                        let ns = (elapsed.as_nanos() as f64 - overhead).max(0.0);
                        let from = t.duration_since(base).as_secs_f64();
                        let span = (from, from + elapsed.as_secs_f64());
                        let (trips, bound, retries, gave_up) = match result {
                            Ok(output) => (
                                output.stats.round_trips,
                                output.bound.round_trips,
                                u64::from(output.attempts.saturating_sub(1)),
                                false,
                            ),
                            Err(e) if e.code() == GAVE_UP => (0, 0, 0, true),
                            Err(e) => {
                                // Kept for after the rounds: a panic here
                                // would leave the others waiting forever.
                                let message = format!("run {i} on {}: {e}", systems[s]);
                                failure.lock().unwrap().get_or_insert(message);
                                (0, 0, 0, true)
                            }
                        };
                        mine.push(Sample {
                            system: s,
                            i,
                            ns,
                            span,
                            trips,
                            bound,
                            retries,
                            gave_up,
                        });
                    }
                    barrier.wait();
                }
                samples.lock().unwrap().extend(mine);
            });
        }
        let mut order: Vec<usize> = (0..systems.len()).collect();
        let mut rng = Rng::new(seed);
        for start in (first..first + ops).step_by(batch) {
            for k in (1..order.len()).rev() {
                order.swap(k, rng.below(k as u64 + 1) as usize);
            }
            for &s in &order {
                system.store(s, Ordering::SeqCst);
                next.store(start, Ordering::SeqCst);
                end.store((start + batch).min(first + ops), Ordering::SeqCst);
                barrier.wait();
                barrier.wait();
            }
        }
        done.store(true, Ordering::SeqCst);
        barrier.wait();
    });
    if let Some(message) = failure.into_inner().unwrap() {
        panic!("{message}");
    }
    let mut samples = samples.into_inner().unwrap();
    samples.sort_by_key(|x| (x.system, x.i));
    systems
        .iter()
        .enumerate()
        .map(|(s, name)| {
            let mine: Vec<&Sample> = samples.iter().filter(|x| x.system == s).collect();
            assert_eq!(mine.len(), ops, "every run of {name} was recorded once");
            for x in mine.iter().filter(|x| !x.gave_up) {
                assert!(
                    x.trips <= x.bound,
                    "run {} on {name} made {} round trips, beyond its bound of {}",
                    x.i,
                    x.trips,
                    x.bound
                );
            }
            let done: Vec<&&Sample> = mine.iter().filter(|x| !x.gave_up).collect();
            let wall = mine
                .chunks(batch)
                .map(|round| {
                    let start = round.iter().map(|x| x.span.0).fold(f64::INFINITY, f64::min);
                    let end = round.iter().map(|x| x.span.1).fold(0.0, f64::max);
                    end - start
                })
                .sum();
            Line {
                system: name.clone(),
                measured: Measured {
                    system: name.clone(),
                    samples: mine.iter().map(|x| x.ns).collect(),
                    batch,
                },
                wall,
                trips: done.iter().map(|x| (x.i, x.trips, x.bound)).collect(),
                retries: mine.iter().map(|x| x.retries).sum(),
                gave_up: mine.len() - done.len(),
            }
        })
        .collect()
}
