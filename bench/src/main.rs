//! `rqc-bench`: rqc against SQLite and the raw stores, side by side in one
//! process run; writes a markdown report and an SVG plot.
//!
//! `cargo run --release -p rqc-bench -- [--quick] [--out BENCHMARKS.md]`

mod backends;
mod plot;
mod social;
mod timing;
mod tpcc;

use rqc::{Backend, Database, OpenOptions, Value};
use rqc_runtime::store::{RedbStore, SledStore, Store};
use social::*;
use std::fmt::Write as _;
use std::path::PathBuf;
use timing::{measure, Latency, Rng};

struct Row {
    experiment: String,
    system: String,
    latency: Latency,
    peer: Option<(String, Latency)>,
}

struct Config {
    quick: bool,
    out: PathBuf,
}

fn main() {
    let mut config = Config {
        quick: false,
        out: PathBuf::from("BENCHMARKS.md"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => config.quick = true,
            "--out" => config.out = PathBuf::from(args.next().expect("--out FILE")),
            "--compare-backends" => {
                // The storage backends side by side (the README's storage figures).
                print!("{}", backends::compare(config.quick));
                return;
            }
            "--p6-only" => {
                // For profiling: the TPC-C mix alone, figures on stdout, no report.
                let (rqc, sqlite, transactions) = tpcc_mix(if config.quick { 200 } else { 5_000 });
                println!("P6, {transactions} transactions: rqc {rqc:.0} tpm, SQLite {sqlite:.0} tpm, time per transaction rqc/SQLite {:.2}", sqlite / rqc);
                return;
            }
            "--help" | "-h" => {
                println!("rqc-bench [--quick] [--out FILE] [--p6-only] [--compare-backends]\n\nMeasures P1 point reads, P2 the timeline join, P3 inserts and P4 latency against data size,\nfor rqc (redb, sled) beside SQLite and the raw stores, and writes a markdown report (default\nBENCHMARKS.md) with an SVG plot beside it. --quick uses small sizes and finishes in under a minute.\n--p6-only runs just the TPC-C mix and prints its figures (for profiling; put --quick first for the short mix).\n--compare-backends measures redb, LMDB and sled through the public API, interleaved, and prints a table.");
                return;
            }
            other => {
                eprintln!("unknown argument `{other}`; see --help");
                std::process::exit(2);
            }
        }
    }
    let started = std::time::Instant::now();
    let mut rows = Vec::new();
    let iterations = if config.quick { 300 } else { 5_000 };
    let base = if config.quick { 2_000 } else { 100_000 };

    eprintln!("P1/P2: data set of {base} posts");
    rows.extend(point_and_timeline(base, iterations));
    eprintln!("P3: inserts");
    rows.extend(inserts(if config.quick { 300 } else { 5_000 }));
    eprintln!("P6: the TPC-C mix");
    let tpm = tpcc_mix(if config.quick { 200 } else { 5_000 });
    eprintln!("P4: latency against data size");
    let sizes: Vec<i64> = if config.quick {
        vec![1_000, 10_000]
    } else {
        vec![1_000, 10_000, 100_000, 1_000_000]
    };
    let scaling = scaling(&sizes, iterations.min(2_000));

    let svg = config.out.with_extension("svg");
    plot::latency_plot(&svg, &scaling).expect("plot");
    let mut report = report(&config, &rows, &scaling, &svg, started.elapsed());
    report.push_str(&format!(
        "## P6: the TPC-C mix\n\nOne warehouse, scaled down ({} customers per district, {} items, one initial order per customer), the five transactions in the standard mix (45% New-Order, 43% Payment, 4% each of the others), the same {} transactions in the same order in both systems, neither syncing each commit.\n\n| system | transactions per minute | time per transaction, rqc / SQLite |\n|---|---|---|\n| rqc (redb) | {:.0} | {:.2} |\n| SQLite | {:.0} | |\n",
        tpcc::CUSTOMERS, tpcc::ITEMS, tpm.2, tpm.0, tpm.1 / tpm.0, tpm.1
    ));
    std::fs::write(&config.out, report).expect("write the report");
    eprintln!(
        "wrote {} and {} in {:.1}s",
        config.out.display(),
        svg.display(),
        started.elapsed().as_secs_f64()
    );
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

/// P1 (point read by key, and the raw store's get), a bounded range (and
/// the raw store's range) and P2 (the timeline).
fn point_and_timeline(posts: i64, iterations: usize) -> Vec<Row> {
    let size = Size::for_posts(posts);
    let data = generate(&size, &mut Rng(7));
    let dir = temp();
    let sqlite = sqlite_database(&dir.path().join("social.sqlite"), &data);
    let mut by_id = sqlite
        .prepare("SELECT id, handle, name, country FROM user WHERE id = ?1")
        .unwrap();
    let mut timeline = sqlite.prepare(SQL_TIMELINE).unwrap();
    let sqlite_p1 = measure(iterations, |i| {
        let id = 1 + (i as i64 * 7919) % size.users;
        let _: Vec<String> = by_id
            .query_map([id], |r| r.get::<_, String>(1))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
    });
    let sqlite_p2 = measure(iterations / 5, |i| {
        let u = 1 + (i as i64 * 7919) % size.users;
        let n = timeline
            .query_map(rusqlite::params![u, 10], |r| r.get::<_, i64>(0))
            .unwrap()
            .count();
        assert!(n <= 10);
    });
    let mut recent_sql = sqlite.prepare(SQL_RECENT).unwrap();
    let sqlite_range = measure(iterations, |i| {
        let u = 1 + (i as i64 * 7919) % size.users;
        let n = recent_sql
            .query_map(rusqlite::params![u, 10], |r| r.get::<_, i64>(0))
            .unwrap()
            .count();
        assert!(n <= 10);
    });
    let mut rows = Vec::new();
    for backend in [Backend::Redb, Backend::Sled] {
        let name = format!("rqc ({})", backend.name());
        let db = rqc_database(&dir.path().join(backend.name()), backend, &data);
        let user = db.prepare("user").unwrap();
        let p1 = measure(iterations, |i| {
            let id = 1 + (i as i64 * 7919) % size.users;
            assert_eq!(user.run(&[id.into()]).unwrap().rows().len(), 1);
        });
        let raw = raw_store(
            backend,
            &dir.path().join(format!("raw-{}", backend.name())),
            &data,
        );
        let raw_p1 = measure(iterations, |i| {
            let id = 1 + (i as i64 * 7919) % size.users;
            let key = rqc_runtime::encoding::key::encode_key(&[id.into()], &[]).unwrap();
            // One read transaction per read, as one rqc run has.
            let txn = raw.begin_read().unwrap();
            assert!(txn.get(raw.tree("t:User"), &key).unwrap().is_some());
        });
        let recent = db.prepare("recent_posts").unwrap();
        for u in 1..=3 {
            // The raw range reads what rqc's bounded range reads.
            let rqc_rows = recent.run(&[u.into(), 10.into()]).unwrap().rows().len();
            assert_eq!(raw_recent_posts(raw.as_ref(), u), rqc_rows);
        }
        let range = measure(iterations, |i| {
            let u = 1 + (i as i64 * 7919) % size.users;
            assert!(recent.run(&[u.into(), 10.into()]).unwrap().rows().len() <= 10);
        });
        let raw_range = measure(iterations, |i| {
            let u = 1 + (i as i64 * 7919) % size.users;
            assert!(raw_recent_posts(raw.as_ref(), u) <= 10);
        });
        let timeline_q = db.prepare("timeline").unwrap();
        let p2 = measure(iterations / 5, |i| {
            let u = 1 + (i as i64 * 7919) % size.users;
            assert!(timeline_q.run(&[u.into(), 10.into()]).unwrap().rows().len() <= 10);
        });
        rows.push(Row {
            experiment: "P1 point read by key".into(),
            system: name.clone(),
            latency: p1,
            peer: Some(("SQLite".into(), sqlite_p1)),
        });
        rows.push(Row {
            experiment: "P1 point read by key".into(),
            system: name.clone(),
            latency: p1,
            peer: Some((format!("raw {} get", backend.name()), raw_p1)),
        });
        for (peer, latency) in [
            ("SQLite".to_string(), sqlite_range),
            (format!("raw {} range", backend.name()), raw_range),
        ] {
            rows.push(Row {
                experiment: "bounded range: an author's 10 newest posts".into(),
                system: name.clone(),
                latency: range,
                peer: Some((peer, latency)),
            });
        }
        rows.push(Row {
            experiment: "P2 timeline (20 follows, 10 each, top 10)".into(),
            system: name,
            latency: p2,
            peer: Some(("SQLite".into(), sqlite_p2)),
        });
    }
    rows
}

/// The raw store's tree of posts, keyed by (author, at desc, id).
const RAW_POSTS: &str = "raw:posts_by_author";

/// The 10 newest posts of `author`, straight from the raw store.
fn raw_recent_posts(store: &dyn Store, author: i64) -> usize {
    let start = rqc_runtime::encoding::key::encode_key(&[author.into()], &[]).unwrap();
    let end = rqc_runtime::store::prefix_end(&start);
    store
        .begin_read()
        .unwrap()
        .range(store.tree(RAW_POSTS), &start, end.as_deref(), false, 10)
        .unwrap()
        .iter()
        .filter(|(_, row)| rqc_runtime::encoding::row::decode_row(row, 4).is_ok())
        .count()
}

fn raw_store(backend: Backend, dir: &std::path::Path, data: &Data) -> Box<dyn Store> {
    let store: Box<dyn Store> = match backend {
        Backend::Sled => Box::new(SledStore::open(dir, false).unwrap()),
        _ => Box::new(RedbStore::open(dir, false).unwrap()),
    };
    let encode = |key: Vec<Value>, descending: &[bool], row: &[Value]| {
        (
            rqc_runtime::encoding::key::encode_key(&key, descending).unwrap(),
            rqc_runtime::encoding::row::encode_row(row).unwrap(),
        )
    };
    let users: Vec<_> = data
        .users
        .iter()
        .map(|r| encode(r[..1].to_vec(), &[], r))
        .collect();
    // Posts keyed as the `by_author` index orders them: author, newest first, id.
    let posts: Vec<_> = data
        .posts
        .iter()
        .map(|r| {
            encode(
                vec![r[1].clone(), r[2].clone(), r[0].clone()],
                &[false, true],
                r,
            )
        })
        .collect();
    let mut txn = store.begin_write().unwrap();
    for (tree, rows) in [("t:User", &users), (RAW_POSTS, &posts)] {
        for (k, v) in rows {
            txn.put(store.tree(tree), k, v).unwrap();
        }
    }
    txn.commit().unwrap();
    store
}

const INSERT_PROGRAM: &str = "
table T { a: Int key  b: Int  c: Int  index by_b (b)  index by_c (c) }
mutation put(a: Int, b: Int, c: Int) = insert T { a, b, c }
";

/// P3: single-row inserts into three Int columns, two of them indexed, one
/// commit each, in a durable mode and a non-durable one.
fn inserts(n: usize) -> Vec<Row> {
    let mut rows = Vec::new();
    for durable in [true, false] {
        let mode = if durable {
            "durable: each commit synced"
        } else {
            "not synced per commit"
        };
        let keys: Vec<(i64, i64, i64)> = {
            let mut rng = Rng(11);
            let mut seen = std::collections::HashSet::new();
            let mut out = Vec::new();
            while out.len() < n + 100 {
                let a = rng.below(1 << 40);
                if seen.insert(a) {
                    out.push((a, rng.below(1 << 40), rng.below(1 << 40)));
                }
            }
            out
        };
        let dir = temp();
        let sqlite = rusqlite::Connection::open(dir.path().join("t.sqlite")).unwrap();
        sqlite
            .execute_batch(&format!(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = {};
                 CREATE TABLE t (a INTEGER PRIMARY KEY, b INTEGER NOT NULL, c INTEGER NOT NULL);
                 CREATE INDEX t_b ON t(b); CREATE INDEX t_c ON t(c);",
                if durable { "FULL" } else { "OFF" }
            ))
            .unwrap();
        let mut insert = sqlite.prepare("INSERT INTO t VALUES (?1, ?2, ?3)").unwrap();
        let sqlite_p3 = measure(n, |i| {
            let (a, b, c) = keys[i];
            insert.execute(rusqlite::params![a, b, c]).unwrap();
        });
        for backend in [Backend::Redb, Backend::Sled] {
            let mut db = Database::open_with(
                dir.path().join(backend.name()),
                OpenOptions {
                    backend: Some(backend),
                    flush_on_commit: durable,
                    ..OpenOptions::default()
                },
            )
            .unwrap();
            db.install_source("t.rq", INSERT_PROGRAM).unwrap();
            let put = db.prepare("put").unwrap();
            let p3 = measure(n, |i| {
                let (a, b, c) = keys[i];
                put.run(&[a.into(), b.into(), c.into()]).unwrap();
            });
            rows.push(Row {
                experiment: format!("P3 insert, {mode}"),
                system: format!("rqc ({})", backend.name()),
                latency: p3,
                peer: Some(("SQLite".into(), sqlite_p3)),
            });
        }
    }
    rows
}

/// P6: (rqc tpm, SQLite tpm, transactions).
fn tpcc_mix(n: usize) -> (f64, f64, usize) {
    let scale = rqc_tests::tpcc::Scale {
        warehouses: 1,
        customers: tpcc::CUSTOMERS,
        items: tpcc::ITEMS,
    };
    let mut rng = Rng(17);
    let txns: Vec<_> = (0..n)
        .map(|_| rqc_tests::tpcc::Txn::draw(&mut rng, scale))
        .collect();
    let population = rqc_tests::tpcc::population(scale, 17);
    let dir = temp();
    let rqc_tpm = tpcc::rqc_run(&dir.path().join("tpcc-rqc"), &txns, &population);
    let sqlite_tpm = tpcc::sqlite_run(&dir.path().join("tpcc.sqlite"), &txns, &population);
    (rqc_tpm, sqlite_tpm, n)
}

/// One line of P4: a system's median latency at each size.
pub struct Series {
    pub name: String,
    pub points: Vec<(i64, f64)>,
}

/// P4: P1, a bounded range (10 newest posts of an author) and P2 at each size.
fn scaling(sizes: &[i64], iterations: usize) -> Vec<Series> {
    let names = [
        "P1 rqc",
        "P1 SQLite",
        "range rqc",
        "range SQLite",
        "P2 rqc",
        "P2 SQLite",
    ];
    let mut series: Vec<Series> = names
        .iter()
        .map(|n| Series {
            name: n.to_string(),
            points: Vec::new(),
        })
        .collect();
    for &posts in sizes {
        eprintln!("  N = {posts}");
        let size = Size::for_posts(posts);
        let data = generate(&size, &mut Rng(13));
        let dir = temp();
        let db = rqc_database(&dir.path().join("rqc"), Backend::default(), &data);
        let sqlite = sqlite_database(&dir.path().join("s.sqlite"), &data);
        let user = db.prepare("user").unwrap();
        let recent = db.prepare("recent_posts").unwrap();
        let timeline = db.prepare("timeline").unwrap();
        let mut s_user = sqlite
            .prepare("SELECT id, handle, name, country FROM user WHERE id = ?1")
            .unwrap();
        let mut s_recent = sqlite.prepare(SQL_RECENT).unwrap();
        let mut s_timeline = sqlite.prepare(SQL_TIMELINE).unwrap();
        let key = |i: usize| 1 + (i as i64 * 7919) % size.users;
        let results = [
            measure(iterations, |i| drop(user.run(&[key(i).into()]).unwrap())),
            measure(iterations, |i| {
                std::hint::black_box(
                    s_user
                        .query_map([key(i)], |r| r.get::<_, i64>(0))
                        .unwrap()
                        .count(),
                );
            }),
            measure(iterations, |i| {
                drop(recent.run(&[key(i).into(), 10.into()]).unwrap())
            }),
            measure(iterations, |i| {
                std::hint::black_box(
                    s_recent
                        .query_map(rusqlite::params![key(i), 10], |r| r.get::<_, i64>(0))
                        .unwrap()
                        .count(),
                );
            }),
            measure(iterations / 5, |i| {
                drop(timeline.run(&[key(i).into(), Value::Int(10)]).unwrap())
            }),
            measure(iterations / 5, |i| {
                std::hint::black_box(
                    s_timeline
                        .query_map(rusqlite::params![key(i), 10], |r| r.get::<_, i64>(0))
                        .unwrap()
                        .count(),
                );
            }),
        ];
        for (s, latency) in series.iter_mut().zip(results) {
            s.points.push((posts, latency.micros()));
        }
    }
    series
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines().next().map(|l| {
                l.split_whitespace()
                    .nth(1)
                    .unwrap_or("0")
                    .parse::<u64>()
                    .unwrap_or(0)
                    / 1024
                    / 1024
            })
        })
        .unwrap_or(0);
    format!("{cpu}, {cores} cores, {memory} GiB")
}

fn report(
    config: &Config,
    rows: &[Row],
    scaling: &[Series],
    svg: &std::path::Path,
    took: std::time::Duration,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# rqc benchmarks\n");
    let _ = writeln!(
        out,
        "Measured by `cargo run --release -p rqc-bench{}` in one process run ({:.0} s) on {}.\n",
        if config.quick { " -- --quick" } else { "" },
        took.as_secs_f64(),
        machine()
    );
    if config.quick {
        let _ = writeln!(out, "**Quick mode**: small sizes and few iterations, for a smoke test; the figures are not for quoting.\n");
    }
    let _ = writeln!(out, "Medians of per-operation latency in microseconds (p99 in brackets); the ratio is rqc / peer (below 1: rqc is faster).\nEvery system reads the same generated data with the same indexes; SQLite uses WAL and prepared statements.\n");
    let _ = writeln!(
        out,
        "| experiment | system | median µs (p99) | peer | peer median µs (p99) | ratio |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for row in rows {
        let (peer, peer_latency) = row.peer.clone().expect("every row has a peer");
        let _ = writeln!(
            out,
            "| {} | {} | {:.1} ({:.1}) | {} | {:.1} ({:.1}) | {:.2} |",
            row.experiment,
            row.system,
            row.latency.micros(),
            row.latency.p99.as_secs_f64() * 1e6,
            peer,
            peer_latency.micros(),
            peer_latency.p99.as_secs_f64() * 1e6,
            row.latency.micros() / peer_latency.micros()
        );
    }
    let _ = writeln!(
        out,
        "\n## P4: latency against data size (rqc on its default backend, redb)\n"
    );
    let _ = write!(out, "| N (posts) |");
    for s in scaling {
        let _ = write!(out, " {} |", s.name);
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "|---|{}", "---|".repeat(scaling.len()));
    for (i, (n, _)) in scaling[0].points.iter().enumerate() {
        let _ = write!(out, "| {n} |");
        for s in scaling {
            let _ = write!(out, " {:.1} |", s.points[i].1);
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "\n![latency against N]({})\n",
        svg.file_name().unwrap().to_string_lossy()
    );
    out
}
