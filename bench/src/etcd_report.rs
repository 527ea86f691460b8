//! The markdown section `rqc-bench --etcd` writes: latency, throughput and
//! round trips of rqc on etcd beside rqc on LMDB, kept between markers so
//! it can sit inside BENCHMARKS.md and survive the other runs' rewrites.

use crate::etcd::{EtcdRun, Experiment, MAX_TXN_OPS, MIX, THREADS};
use crate::report::{us, Meta};
use crate::timing::{round_ratios, Stats};
use std::fmt::Write;

/// The lines around the section in a report file.
pub const BEGIN: &str = "<!-- etcd: written by `rqc-bench --etcd`; other runs keep it -->";
pub const END: &str = "<!-- /etcd -->";

pub fn render(run: &EtcdRun, m: &Meta, quick: bool) -> String {
    let mut out = String::new();
    let p = run.plan;
    let _ = writeln!(out, "{BEGIN}\n## rqc on etcd (issue #14)\n");
    let _ = writeln!(
        out,
        "Made by `{}` at commit {}, on {}, in {:.0} s. Load average {:.2} at the start, {:.2} at the end; processes other than the benchmark (the three etcd members among them) used {:.0}% of the machine's CPU time. Each timing has the clock's own cost ({:.0} ns) taken off.\n",
        m.command, m.commit, m.machine, m.seconds, m.load.0, m.load.1, m.others * 100.0, m.clock_ns
    );
    if quick {
        let _ = writeln!(
            out,
            "**Quick mode**: tiny sizes, for the harness's smoke test; not figures to quote.\n"
        );
    }
    let _ = writeln!(
        out,
        "- **The systems.** rqc on etcd: a 3-member etcd 3.4 cluster on loopback that the run starts (`--max-txn-ops {}`, so that the social example's `unfollow_all`, proved to at most 45,001 operations in a commit, installs; each member's data on the local disk, so every commit is a Raft round and an fsync on a majority), reached through `Database::connect(\"etcd://a,b,c/prefix\")`. rqc on LMDB, the embedded default, not synced per commit (`durability: Durability::None`), as the other experiments run it. Both hold the same data, loaded the same way: User, Post and Follow with {} rows each (P1, P2), and one TPC-C warehouse with {} customers per district and {} items ({} entry calls, one commit each).\n\
- **P1, P2, P6.** P1 is the point read `User[id]`, P2 the timeline (index nested-loop join over a user's 20 follows, each author's 10 newest posts, top 10), P6 the standard TPC-C mix (tests/src/tpcc.rs), as in the sections above.\n\
- **Threads.** Each system is one `Database` the client threads share (etcd: one client, its gRPC channel multiplexed). With 8 threads, 8 runs are in flight at once on a 2-core machine that also runs the three etcd members.\n\
- **Interleaved.** Rounds of {} runs per system ({} for P1), the systems in a random order each round; within a round the system's threads take the runs one at a time until none is left. Each run is timed on its own (latency); throughput is completed runs over the system's rounds' wall time (first start to last end in each round, summed: the hand-over between rounds is left out). Ratios are etcd over LMDB: of the median latency, with the p25–p75 of the per-round ratios, and of throughput (below 1: etcd does fewer).\n\
- **Checked first.** {} runs of each workload, one at a time and untimed, must return the same rows on both systems (TPC-C: New-Order's line count, Order-Status's rows, Stock-Level's count).\n\
- **Round trips** are the calls a run makes on its store transaction, its commit included (`Output.stats.round_trips`); the bound is the one its entry point was proved to (`Output.bound.round_trips`, what `rqc check` prints). Every run, checked or timed, is asserted to stay within it; a mutation that conflicted runs again (a retry), each attempt within the bound, and the count is the last attempt's. A mutation given up after 16 conflicting attempts (E0596) is counted: its time stays in the latencies, and it is not a completed run in the throughput.\n\
- **Writers.** On etcd, writers are optimistic: a commit whose reads another commit changed runs again. TPC-C's writers meet on few rows (every Payment updates the one warehouse row, every New-Order its district's), so from 8 threads they retry; on LMDB they wait for the one write lock instead.\n",
        MAX_TXN_OPS, p.n, p.tpcc.customers, p.tpcc.items, run.population, p.batch, p.point_batch, p.checked
    );
    let _ = writeln!(out, "| workload | threads | system | median µs (p25–p75, p99) | runs / s | round trips per run: mean, max (bound) | retries | given up |");
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    for e in &run.experiments {
        for line in &e.lines {
            let s = Stats::of(&line.measured.samples);
            let (mean, max, bound) = trips(&line.trips, |_| true);
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} ({}–{}, p99 {}) | {:.0} | {mean:.1}, {max} ({bound}) | {} | {} |",
                short(e.name),
                e.threads,
                line.system,
                us(s.median),
                us(s.p25),
                us(s.p75),
                us(s.p99),
                line.throughput(),
                line.retries,
                line.gave_up
            );
        }
    }
    let _ = writeln!(
        out,
        "\n| workload | threads | etcd / LMDB, median latency (per round: median, p25–p75) | etcd / LMDB, throughput |"
    );
    let _ = writeln!(out, "|---|---|---|---|");
    for e in &run.experiments {
        let (lmdb, etcd) = (&e.lines[0], &e.lines[1]);
        let ratio =
            Stats::of(&etcd.measured.samples).median / Stats::of(&lmdb.measured.samples).median;
        let (r, r25, r75) = round_ratios(&etcd.measured, &lmdb.measured);
        let _ = writeln!(
            out,
            "| {} | {} | {ratio:.0} ({r:.0}, {r25:.0}–{r75:.0}) | {:.4} |",
            short(e.name),
            e.threads,
            etcd.throughput() / lmdb.throughput()
        );
    }
    mix_trips(&mut out, run);
    let _ = writeln!(out, "\nLoading (seconds, before the experiments):\n");
    let _ = writeln!(out, "| data set, system | s |\n|---|---|");
    for (what, s) in &run.loads {
        let _ = writeln!(out, "| {what} | {s:.1} |");
    }
    let _ = writeln!(
        out,
        "\nThreads: {}. Timed runs per system and thread count: P1 {}, P2 {}, P6 {}.\n\n{END}",
        THREADS.map(|t| t.to_string()).join(", "),
        p.point_ops,
        p.timeline_ops,
        p.tpcc_ops
    );
    out
}

fn short(name: &str) -> &str {
    name.split(':').next().unwrap_or(name)
}

/// Mean and max round trips of the completed runs `keep` selects, and the
/// largest bound among them.
fn trips(all: &[(usize, u64, u64)], keep: impl Fn(usize) -> bool) -> (f64, u64, u64) {
    let runs: Vec<&(usize, u64, u64)> = all.iter().filter(|t| keep(t.0)).collect();
    let mean = runs.iter().map(|t| t.1 as f64).sum::<f64>() / runs.len().max(1) as f64;
    let max = runs.iter().map(|t| t.1).max().unwrap_or(0);
    let bound = runs.iter().map(|t| t.2).max().unwrap_or(0);
    (mean, max, bound)
}

/// The mix's round trips per transaction, both thread counts together.
fn mix_trips(out: &mut String, run: &EtcdRun) {
    let mix: Vec<&Experiment> = run.experiments.iter().filter(|e| e.name == MIX).collect();
    let Some(first) = mix.first() else { return };
    let _ = writeln!(
        out,
        "\nP6's round trips per transaction (both thread counts; mean, max, and the proved bound):\n"
    );
    let _ = writeln!(
        out,
        "| entry point | runs | bound | rqc (lmdb) | rqc (etcd) |\n|---|---|---|---|---|"
    );
    let mut names: Vec<&str> = first.entries.clone();
    names.sort();
    names.dedup();
    for name in names {
        let mut cells = Vec::new();
        let (mut runs, mut bound) = (0, 0);
        for s in 0..first.lines.len() {
            let all: Vec<(usize, u64, u64)> = mix
                .iter()
                .flat_map(|e| e.lines[s].trips.iter().copied())
                .collect();
            let keep = |i: usize| first.entries[i] == name;
            let (mean, max, b) = trips(&all, keep);
            runs = all.iter().filter(|t| keep(t.0)).count();
            bound = bound.max(b);
            cells.push(format!("{mean:.1}, {max}"));
        }
        if runs == 0 {
            continue;
        }
        let _ = writeln!(out, "| {name} | {runs} | {bound} | {} |", cells.join(" | "));
    }
}

/// `old` (a report file's text, perhaps empty) with its etcd section
/// replaced by `section`, or `section` added at its end.
pub fn splice(old: &str, section: &str) -> String {
    splice_between(old, section, BEGIN, END)
}

/// The etcd section `old` holds, markers included, if any.
pub fn kept(old: &str) -> Option<&str> {
    kept_between(old, BEGIN, END)
}

/// The hand-written section of the `tpcc` driver's runs (issue 38), which
/// every generated report keeps as the etcd one.
pub const TPCC_BEGIN: &str =
    "<!-- tpcc-driver: written by hand from `--bin tpcc` runs; other runs keep it -->";
pub const TPCC_END: &str = "<!-- /tpcc-driver -->";

/// `old` with the section between `begin` and `end` replaced by `section`
/// (markers included), or `section` added at its end.
pub fn splice_between(old: &str, section: &str, begin: &str, end: &str) -> String {
    if let (Some(b), Some(e)) = (old.find(begin), old.find(end)) {
        if b < e {
            let after = &old[e + end.len()..];
            return format!("{}{}{}", &old[..b], section.trim_end(), after);
        }
    }
    let mut out = old.trim_end().to_string();
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(section.trim_end());
    out.push('\n');
    out
}

/// The section of `old` between `begin` and `end`, markers included.
pub fn kept_between<'a>(old: &'a str, begin: &str, end: &str) -> Option<&'a str> {
    let b = old.find(begin)?;
    let e = old.find(end)?;
    (b < e).then(|| &old[b..e + end.len()])
}
