//! BENCHMARKS.md from one run's results: the command and the machine's
//! noise, the goals of issue #12 against what was measured, then every
//! experiment's table; the method and differences come from method.md.

use crate::reads::{Shape, SizeRun, SHAPES};
use crate::timing::{round_ratios, Measured, Stats};
use crate::{Config, Results};
use std::fmt::Write as _;

#[derive(Default)]
pub struct Meta {
    pub command: String,
    pub commit: String,
    pub machine: String,
    pub seconds: f64,
    /// 1-minute load average at start and end.
    pub load: (f64, f64),
    /// Share of the machine's CPU time other processes used.
    pub others: f64,
    pub clock_ns: f64,
}

/// The run counts as quiet when other processes took under a tenth of the CPU.
const QUIET: f64 = 0.10;

pub fn render(config: &Config, r: &Results, svg: &std::path::Path) -> String {
    let mut out = String::new();
    let m = &r.meta;
    let _ = writeln!(out, "# rqc benchmarks\n");
    let _ = writeln!(
        out,
        "Made by `{}` ({} mode) at commit {}, on {}, in {:.0} s; the databases in `{}`.\n",
        m.command,
        config.mode,
        m.commit,
        m.machine,
        m.seconds,
        crate::scratch_dir().display()
    );
    let _ = writeln!(
        out,
        "Noise: load average {:.2} at the start, {:.2} at the end; other processes used {:.0}% of the machine's CPU time during the run. Each timing has the clock's own cost ({:.0} ns) taken off.\n",
        m.load.0, m.load.1, m.others * 100.0, m.clock_ns
    );
    if config.mode == "quick" {
        let _ = writeln!(
            out,
            "**Quick mode**: tiny sizes, for the harness's smoke test; not figures to quote.\n"
        );
    } else if m.others > QUIET {
        let _ = writeln!(out, "**Interim figures**: other work shared the machine during this run; ratios (same rounds, same noise) hold better than absolute times.\n");
    }
    goals(&mut out, r);
    out.push_str(include_str!("method.md"));
    out.push('\n');
    if !r.reads.is_empty() {
        reads(&mut out, &r.reads, svg);
    }
    if !r.inserts.is_empty() {
        inserts(&mut out, r);
    }
    if let Some(t) = &r.tpcc {
        tpcc(&mut out, t);
    }
    commands(&mut out);
    out
}

/// The rqc line the goals are judged on: rqc on its default backend.
pub const RQC: &str = "rqc (lmdb)";
pub(crate) fn us(ns: f64) -> String {
    let us = ns / 1000.0;
    if us >= 100.0 {
        format!("{us:.0}")
    } else if us >= 10.0 {
        format!("{us:.1}")
    } else {
        format!("{us:.2}")
    }
}

/// "median (p25–p75, p99)" in µs.
fn cell(s: &Stats) -> String {
    format!(
        "{} ({}–{}, p99 {})",
        us(s.median),
        us(s.p25),
        us(s.p75),
        us(s.p99)
    )
}

/// "ratio (p25–p75 of the per-round ratios)".
fn ratio(a: &Measured, b: &Measured) -> (f64, String) {
    let r = Stats::of(&a.samples).median / Stats::of(&b.samples).median;
    let (_, lo, hi) = round_ratios(a, b);
    (r, format!("{r:.2} ({lo:.2}–{hi:.2})"))
}

fn find<'a>(measured: &'a [Measured], system: &str) -> Option<&'a Measured> {
    measured.iter().find(|m| m.system == system)
}

fn shape_at(runs: &[SizeRun], n: i64, shape: Shape) -> Option<&[Measured]> {
    runs.iter()
        .find(|r| r.n == n)
        .and_then(|r| r.shapes.iter().find(|s| s.shape == shape))
        .map(|s| s.measured.as_slice())
}

fn pow10(n: i64) -> String {
    let e = (n as f64).log10();
    if (e - e.round()).abs() < 1e-9 {
        format!("10^{}", e.round())
    } else {
        n.to_string()
    }
}

/// Each goal of issue #12 and what this run measured for it.
fn goals(out: &mut String, r: &Results) {
    let _ = writeln!(out, "## The goals of issue #12\n\nA goal against \"SQLite\" must hold against every SQLite line measured (its best).\n");
    let _ = writeln!(
        out,
        "| goal | measured (rqc on LMDB, its default backend) | met |\n|---|---|---|"
    );
    let mut row = |goal: &str, measured: String, met: Option<bool>| {
        let met = match met {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "not measured",
        };
        let _ = writeln!(out, "| {goal} | {measured} | {met} |");
    };
    let sizes: Vec<i64> = r
        .reads
        .iter()
        .map(|s| s.n)
        .filter(|&n| n >= 100_000)
        .collect();
    let point = |peer: &str| -> Vec<(i64, f64)> {
        sizes
            .iter()
            .filter_map(|&n| {
                let m = shape_at(&r.reads, n, Shape::Point)?;
                Some((n, ratio(find(m, RQC)?, find(m, peer)?).0))
            })
            .collect()
    };
    let list = |v: &[(i64, f64)]| {
        if v.is_empty() {
            return "—".to_string();
        }
        v.iter()
            .map(|(n, x)| format!("{x:.2} at {}", pow10(*n)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let judged = |v: &[Vec<(i64, f64)>], ok: &dyn Fn(f64) -> bool| {
        (!v.iter().all(|x| x.is_empty())).then(|| v.iter().flatten().all(|&(_, x)| ok(x)))
    };
    let (s, mm) = (point("SQLite"), point("SQLite mmap"));
    row(
        "prepared point read ≤ 0.5 × SQLite's time (10^5, 10^6, 10^7 rows)",
        format!("× SQLite: {}; × SQLite mmap: {}", list(&s), list(&mm)),
        judged(&[s.clone(), mm.clone()], &|x| x <= 0.5),
    );
    let lmdb = point("raw LMDB");
    row(
        "prepared point read ≤ 1.3 × the backend's best raw get",
        format!("× raw LMDB: {}", list(&lmdb)),
        judged(&[lmdb], &|x| x <= 1.3),
    );
    for run in &r.inserts {
        let best = best_sqlite_latency(&run.measured);
        let rqc = find(&run.measured, RQC);
        let (goal, target) = (
            format!(
                "insert, 2 secondary indexes, one writer, `{}` ≤ 1.0 × SQLite `synchronous = {}`",
                run.durability.name(),
                crate::writes::sqlite_synchronous(run.durability)
            ),
            1.0,
        );
        let x = rqc.zip(best).map(|(a, (name, b))| (ratio(a, b).0, name));
        row(
            &goal,
            x.map_or("—".into(), |(x, name)| format!("{x:.2} × {name}")),
            x.map(|(x, _)| x <= target),
        );
    }
    if let Some(c) = &r.concurrent {
        let tp = |system: &str| find(&c.measured, system).map(|m| throughput(c, m).0);
        let best = c
            .measured
            .iter()
            .filter(|m| m.system.starts_with("SQLite"))
            .map(|m| (throughput(c, m).0, m.system.as_str()))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let x = tp(RQC).zip(best).map(|(a, (b, name))| (a / b, name));
        row(
            &format!(
                "durable inserts, {} concurrent writers ≥ 2 × SQLite's throughput",
                c.writers
            ),
            x.map_or("—".into(), |(x, name)| format!("{x:.2} × {name}")),
            x.map(|(x, _)| x >= 2.0),
        );
    }
    if let Some(t) = &r.tpcc {
        let means: Vec<(String, f64)> = t
            .measured
            .iter()
            .map(|m| (m.system.clone(), Stats::of(&m.samples).mean))
            .collect();
        let rqc = means.iter().find(|m| m.0 == RQC).map(|m| m.1);
        let best = means
            .iter()
            .filter(|m| m.0.starts_with("SQLite"))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let x = rqc.zip(best).map(|(a, b)| (a / b.1, b.0.clone()));
        row(
            "TPC-C mix ≤ 1.0 × SQLite's time per transaction",
            x.as_ref().map_or("—".into(), |(x, name)| {
                format!("{x:.2} × {name} (mean time per transaction)")
            }),
            x.map(|(x, _)| x <= 1.0),
        );
    }
    let growth = scaling(&r.reads, RQC);
    let worst = growth.iter().cloned().max_by(|a, b| a.1.total_cmp(&b.1));
    let span = span(&r.reads);
    row(
        &format!(
            "latency at 10^7 rows / latency at 10^4 ≤ 2, every shape (here {})",
            span.map_or("—".into(), |(a, b)| format!(
                "{} / {}",
                pow10(b),
                pow10(a)
            ))
        ),
        growth
            .iter()
            .map(|(s, x)| format!("{} {x:.2}", s.short()))
            .collect::<Vec<_>>()
            .join(", "),
        worst
            .filter(|_| span.is_some_and(|(a, b)| a <= 10_000 && b >= 10_000_000))
            .map(|w| w.1 <= 2.0),
    );
    let _ = writeln!(out, "\nA goal met below 10^7 rows is marked met only for the sizes shown; the latency ratio counts only when measured from 10^4 to 10^7.\n");
}

fn best_sqlite_latency(measured: &[Measured]) -> Option<(&str, &Measured)> {
    measured
        .iter()
        .filter(|m| m.system.starts_with("SQLite"))
        .map(|m| (m.system.as_str(), m))
        .min_by(|a, b| {
            Stats::of(&a.1.samples)
                .median
                .total_cmp(&Stats::of(&b.1.samples).median)
        })
}

/// The smallest and largest read sizes measured.
fn span(runs: &[SizeRun]) -> Option<(i64, i64)> {
    let min = runs.iter().map(|r| r.n).min()?;
    let max = runs.iter().map(|r| r.n).max()?;
    (max > min).then_some((min, max))
}

/// For each shape, `system`'s median at the largest size over the smallest.
fn scaling(runs: &[SizeRun], system: &str) -> Vec<(Shape, f64)> {
    let Some((lo, hi)) = span(runs) else {
        return Vec::new();
    };
    SHAPES
        .iter()
        .filter_map(|&shape| {
            let a = find(shape_at(runs, lo, shape)?, system)?;
            let b = find(shape_at(runs, hi, shape)?, system)?;
            Some((
                shape,
                Stats::of(&b.samples).median / Stats::of(&a.samples).median,
            ))
        })
        .collect()
}

fn reads(out: &mut String, runs: &[SizeRun], svg: &std::path::Path) {
    let _ = writeln!(out, "## Reads\n\nMedian µs per read (p25–p75, p99), then rqc's ratios to each peer (p25–p75 of the per-round ratios). Systems missing at a size were not measured there (sled stops at 10^6: its memory grows with the data).\n");
    let sizes: Vec<i64> = runs.iter().map(|r| r.n).collect();
    let header = |out: &mut String, first: &str| {
        let _ = write!(out, "| {first} |");
        for n in &sizes {
            let _ = write!(out, " N = {} |", pow10(*n));
        }
        let _ = writeln!(out, "\n|---|{}", "---|".repeat(sizes.len()));
    };
    let last = runs.last().expect("at least one size");
    for shape in SHAPES {
        let _ = writeln!(out, "### {}\n", shape.name());
        let sql = shape.sql().split_whitespace().collect::<Vec<_>>().join(" ");
        let plan = last
            .plans
            .iter()
            .find(|p| p.0 == shape)
            .map_or("", |p| p.1.as_str());
        let _ = writeln!(
            out,
            "SQL: `{sql}`; SQLite's plan at N = {}: {plan}.\n",
            pow10(last.n)
        );
        let systems: Vec<String> = runs
            .iter()
            .flat_map(|r| r.shapes.iter().filter(|s| s.shape == shape))
            .flat_map(|s| s.measured.iter().map(|m| m.system.clone()))
            .fold(Vec::new(), |mut v, s| {
                if !v.contains(&s) {
                    v.push(s);
                }
                v
            });
        header(out, "system");
        for system in &systems {
            let _ = write!(out, "| {system} |");
            for &n in &sizes {
                let c = shape_at(runs, n, shape)
                    .and_then(|m| find(m, system))
                    .map_or("—".into(), |m| cell(&Stats::of(&m.samples)));
                let _ = write!(out, " {c} |");
            }
            let _ = writeln!(out);
        }
        let _ = writeln!(out);
        header(out, "ratio");
        for rqc in systems.iter().filter(|s| s.starts_with("rqc")) {
            for peer in systems.iter().filter(|s| !s.starts_with("rqc")) {
                // rqc on sled is compared with raw sled only among the raw stores.
                if rqc.contains("sled") && peer.starts_with("raw") && !peer.contains("sled") {
                    continue;
                }
                // rqc on redb or LMDB is compared with its own raw store.
                if (rqc.contains("redb") && peer.starts_with("raw") && peer != "raw redb")
                    || (rqc.contains("lmdb") && peer.starts_with("raw") && peer != "raw LMDB")
                {
                    continue;
                }
                let _ = write!(out, "| {rqc} / {peer} |");
                for &n in &sizes {
                    let c = shape_at(runs, n, shape)
                        .and_then(|m| Some(ratio(find(m, rqc)?, find(m, peer)?).1))
                        .unwrap_or_else(|| "—".into());
                    let _ = write!(out, " {c} |");
                }
                let _ = writeln!(out);
            }
        }
        let _ = writeln!(out);
    }
    if let Some((lo, hi)) = span(runs) {
        let _ = writeln!(out, "## P4: latency against data size\n\nMedian latency at N = {} over the median at N = {} (goal: ≤ 2 from 10^4 to 10^7).\n", pow10(hi), pow10(lo));
        let systems = [
            RQC,
            "rqc (redb)",
            "SQLite",
            "SQLite mmap",
            "raw redb",
            "raw LMDB",
        ];
        let _ = writeln!(
            out,
            "| shape | {} |\n|---|{}",
            systems.join(" | "),
            "---|".repeat(systems.len())
        );
        for shape in SHAPES {
            let _ = write!(out, "| {} |", shape.short());
            for system in systems {
                let x = scaling(runs, system)
                    .into_iter()
                    .find(|s| s.0 == shape)
                    .map_or("—".into(), |s| format!("{:.2}", s.1));
                let _ = write!(out, " {x} |");
            }
            let _ = writeln!(out);
        }
        let _ = writeln!(
            out,
            "\n![median latency against N]({})\n",
            svg.file_name().unwrap().to_string_lossy()
        );
    }
    let _ = writeln!(out, "### Loading (seconds, untimed by the experiments)\n");
    let _ = writeln!(
        out,
        "| N | {} |",
        runs[0]
            .loads
            .iter()
            .map(|l| l.0.as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(out, "|---|{}", "---|".repeat(runs[0].loads.len()));
    for r in runs {
        let _ = write!(out, "| {} |", pow10(r.n));
        for (name, _) in &runs[0].loads {
            let s = r
                .loads
                .iter()
                .find(|l| &l.0 == name)
                .map_or("—".into(), |l| format!("{:.1}", l.1));
            let _ = write!(out, " {s} |");
        }
        let _ = writeln!(out);
    }
    let (mmap, cache) = last.mmap;
    let _ = writeln!(out, "\nThe SQLite mmap line ran with `mmap_size` = {} MiB (SQLite's compile-time cap) and a page cache of {} MiB; the SQLite line with the defaults (no mmap, 2 MiB of cache).\n", mmap >> 20, cache >> 10);
}

/// Rows per second of a burst's median time, and of its p75 and p25.
fn throughput(c: &crate::writes::ConcurrentRun, m: &Measured) -> (f64, f64, f64) {
    let s = Stats::of(&m.samples);
    let rows = c.rows_per_burst as f64 * 1e9;
    (rows / s.median, rows / s.p75, rows / s.p25)
}

fn inserts(out: &mut String, r: &Results) {
    let _ = writeln!(
        out,
        "## Inserts: one row per commit, two secondary indexes\n"
    );
    let _ = writeln!(out, "rqc at each durability level beside SQLite (WAL) at the matching `synchronous`, never across levels.\n");
    let levels: Vec<String> = r
        .inserts
        .iter()
        .map(|run| {
            format!(
                "`{}` / SQLite `{}`",
                run.durability.name(),
                crate::writes::sqlite_synchronous(run.durability)
            )
        })
        .collect();
    let _ = write!(out, "| system |");
    for level in &levels {
        let _ = write!(out, " {level}: median µs (p25–p75, p99) |");
    }
    let _ = writeln!(out, "\n|---|{}", "---|".repeat(levels.len()));
    let systems: Vec<&str> = r.inserts[0]
        .measured
        .iter()
        .map(|m| m.system.as_str())
        .collect();
    for system in &systems {
        let _ = write!(out, "| {system} |");
        for run in &r.inserts {
            let c =
                find(&run.measured, system).map_or("—".into(), |m| cell(&Stats::of(&m.samples)));
            let _ = write!(out, " {c} |");
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "\n| ratio | {} |\n|---|{}",
        levels.join(" | "),
        "---|".repeat(levels.len())
    );
    for rqc in systems.iter().filter(|s| s.starts_with("rqc")) {
        for peer in systems.iter().filter(|s| s.starts_with("SQLite")) {
            let _ = write!(out, "| {rqc} / {peer} |");
            for run in &r.inserts {
                let c = find(&run.measured, rqc)
                    .zip(find(&run.measured, peer))
                    .map_or("—".into(), |(a, b)| ratio(a, b).1);
                let _ = write!(out, " {c} |");
            }
            let _ = writeln!(out);
        }
    }
    if let Some(c) = &r.concurrent {
        let _ = writeln!(out, "\n### {} concurrent writers, durable\n\nEach sample is one burst of {} commits ({} per writer); rows per second from the burst's wall time: median (from the p75 and p25 bursts).\n", c.writers, c.rows_per_burst, c.rows_per_burst / c.writers);
        let _ = writeln!(out, "| system | rows/s | {RQC} / system |\n|---|---|---|");
        let rqc = find(&c.measured, RQC).map(|m| throughput(c, m).0);
        for m in &c.measured {
            let (mid, lo, hi) = throughput(c, m);
            let x = rqc.map_or("—".into(), |a| format!("{:.2}", a / mid));
            let _ = writeln!(out, "| {} | {mid:.0} ({lo:.0}–{hi:.0}) | {x} |", m.system);
        }
    }
    let _ = writeln!(out);
}

fn tpcc(out: &mut String, t: &crate::tpcc::TpccRun) {
    let p = t.plan;
    let _ = writeln!(out, "## P6: the TPC-C mix\n\nOne warehouse, {} customers per district, {} items ({} rows loaded through rqc's entry points, one commit each); {} transactions timed per system after {} checked ones, in batches of {}. rqc's seeks and entries read are its own counts, averaged over the checked transactions.\n", p.scale.customers, p.scale.items, t.population, p.ops, p.checked, p.batch);
    let kinds = [
        "New-Order",
        "Payment by id",
        "Payment by name",
        "Order-Status",
        "Order-Status by name",
        "Delivery",
        "Stock-Level",
    ];
    let _ = write!(out, "| transaction | count | rqc's seeks / entries read |");
    for m in &t.measured {
        let _ = write!(out, " {}: median µs (p25–p75, p99) |", m.system);
    }
    let _ = writeln!(out, "\n|---|---|---|{}", "---|".repeat(t.measured.len()));
    for kind in kinds {
        let idx: Vec<usize> = (0..p.ops)
            .filter(|&i| crate::tpcc::kind(&t.txns[i]) == kind)
            .collect();
        let work: Vec<(u64, u64)> = t
            .rqc_work
            .iter()
            .filter(|w| crate::tpcc::kind(&t.txns[w.0]) == kind)
            .map(|w| (w.1, w.2))
            .collect();
        let per = |f: fn(&(u64, u64)) -> u64| {
            work.iter().map(f).sum::<u64>() as f64 / work.len().max(1) as f64
        };
        let counts = if work.is_empty() {
            "—".to_string()
        } else {
            format!("{:.0} / {:.0}", per(|w| w.0), per(|w| w.1))
        };
        let _ = write!(out, "| {kind} | {} | {counts} |", idx.len());
        for m in &t.measured {
            let samples: Vec<f64> = idx.iter().map(|&i| m.samples[i]).collect();
            let _ = write!(out, " {} |", cell(&Stats::of(&samples)));
        }
        let _ = writeln!(out);
    }
    let _ = write!(out, "| **mean per transaction** (µs) | {} | |", p.ops);
    for m in &t.measured {
        let _ = write!(out, " {} |", us(Stats::of(&m.samples).mean));
    }
    let _ = write!(out, "\n| **transactions per minute** | | |");
    for m in &t.measured {
        let _ = write!(out, " {:.0} |", 60e9 / Stats::of(&m.samples).mean);
    }
    let _ = writeln!(out, "\n");
    if let Some(rqc) = find(&t.measured, RQC) {
        for m in t.measured.iter().filter(|m| m.system.starts_with("SQLite")) {
            let x = Stats::of(&rqc.samples).mean / Stats::of(&m.samples).mean;
            let _ = writeln!(
                out,
                "{RQC} / {}: {x:.2} × the mean time per transaction (medians by round: {}).\n",
                m.system,
                ratio(rqc, m).1
            );
        }
    }
}

fn commands(out: &mut String) {
    out.push_str(
        "## Commands\n\n\
         - This report, with N up to 10^7 (about an hour, ~25 GB of scratch disk; run it on a quiet machine): \
         `cargo run --release -p rqc-bench -- --full`\n\
         - Up to 10^6 (about 15 minutes): `cargo run --release -p rqc-bench -- --out /tmp/bench.md`\n\
         - One section or some sizes: `--only reads,inserts,tpcc`, `--sizes 10000,100000`; databases elsewhere: `--tmp DIR`\n\
         - The smoke test CI runs (tiny sizes, checks every side returns the same rows): `cargo test -p rqc-bench`\n\
         - rqc on etcd beside rqc on LMDB (starts a local 3-member cluster; a few minutes; writes the last section, which other runs keep): \
         `cargo run --release -p rqc-bench -- --etcd`\n",
    );
}
