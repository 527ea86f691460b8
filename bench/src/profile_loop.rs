//! `--loop SHAPE`: one read shape run in a tight loop on rqc (LMDB) and on raw LMDB, for a profiler (`perf record -g`) and a quick ratio; not a measurement to quote.

use crate::data::{uniform_keys, Social};
use crate::raw::{decode_user, LmdbFiles, RawRead};
use crate::reads::Shape;
use rqc::Backend;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// How long each side runs, unless `RQC_LOOP_SECONDS` says otherwise.
const SECONDS: f64 = 3.0;

/// Loads rqc (LMDB) and raw LMDB at `n` rows, then runs `shape` on each
/// for a few seconds (rqc only when `RQC_LOOP_ONLY=rqc`, so that a profile
/// sees rqc alone) and prints the time per run.
pub fn run(shape: Shape, n: i64) {
    let social = Social { n };
    let dir = tempfile::tempdir_in(crate::scratch_dir()).expect("scratch directory");
    let db = crate::social::rqc_database(&dir.path().join("lmdb"), Backend::Lmdb, social);
    let files = LmdbFiles::create(&dir.path().join("raw-lmdb"), social);
    let raw = files.reader();
    let keys = uniform_keys(1 << 16, shape.key_range(social), 7);
    let args: Vec<_> = keys.iter().map(|&k| shape.args(k)).collect();
    let prepared = db.prepare(shape.entry()).expect("the entry is installed");
    let seconds = std::env::var("RQC_LOOP_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SECONDS);
    let only_rqc = std::env::var("RQC_LOOP_ONLY").is_ok_and(|s| s == "rqc");
    let rqc_run = |i: usize| {
        black_box(prepared.run(&args[i]).expect("rqc runs"));
    };
    let raw_run = |i: usize| {
        raw.user(keys[i], |bytes| {
            black_box(bytes.map(decode_user));
        });
    };
    let with_raw = !only_rqc && shape == Shape::Point;
    // Batches of each side in turn, so that both meet the same machine.
    let until = Instant::now() + Duration::from_secs_f64(seconds);
    let (mut rqc, mut lmdb) = (Duration::ZERO, Duration::ZERO);
    let mut runs = 0usize;
    while Instant::now() < until {
        let start = Instant::now();
        for k in 0..256 {
            rqc_run((runs + k) % args.len());
        }
        rqc += start.elapsed();
        if with_raw {
            let start = Instant::now();
            for k in 0..256 {
                raw_run((runs + k) % args.len());
            }
            lmdb += start.elapsed();
        }
        runs += 256;
    }
    let per = |d: Duration| d.as_nanos() as f64 / runs as f64;
    println!(
        "{} at N = {n}: rqc (lmdb) {:.0} ns per run",
        shape.short(),
        per(rqc)
    );
    if with_raw {
        println!(
            "{} at N = {n}: raw LMDB {:.0} ns per get; rqc / raw LMDB = {:.2}",
            shape.short(),
            per(lmdb),
            per(rqc) / per(lmdb)
        );
    }
}
