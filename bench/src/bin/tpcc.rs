//! `tpcc`: TPC-C on rqc, and with `--sqlite` on SQLite beside it: loads W warehouses (streamed, a batch of calls per commit), runs the mix from terminal threads, checks the consistency conditions on each system, prints tpmC-like and each transaction's 90th-percentile response time side by side.
//!
//! `cargo run --release -p rqc-bench --bin tpcc -- --warehouses W [--small] [--db DIR] [--etcd] [--sqlite] [--durability full|normal|none] [--threads N] [--processes P] [--seconds S] [--slice S] [--seed N]`
//!
//! `--etcd`: rqc's database is on a 3-member etcd cluster the run starts
//! on loopback (etcd on PATH; every commit a Raft round and an fsync on a
//! majority, whatever `--durability` says, which then sets SQLite's). The
//! population is loaded into a scratch embedded database as usual and
//! copied to etcd in bulk, table by table (`tpcc_load::copy_into`, as
//! `rqc dump` and `rqc restore` would): etcd takes the 600,000 population
//! calls of one warehouse, each a mutation with its own reads, at about 8
//! MB of data a minute, so that load did not finish in 20 minutes.
//!
//! `--small`: 30 customers per district and 1,000 items (CI's size; TPC-C
//! has 3,000 and 100,000). `--db DIR`: rqc's database is kept there (`rqc
//! verify --db DIR`, `rqc dump --db DIR --out OUT`); otherwise it is a
//! scratch directory, as SQLite's always is. Terminal `t` runs in warehouse
//! `1 + t % W`. The inputs are TPC-C's (NURand, 1% of New-Orders rolled
//! back, 60% of Payments and Order-Statuses by last name), and each
//! system's terminal `t` runs the same sequence of transactions.
//! `--seconds` is each system's time; with `--sqlite` both run in slices
//! of `--slice` seconds (5 by default), in a random order each round, so
//! the machine's other load falls on both alike. `--durability` (default
//! `full`) is rqc's level and SQLite's matching `synchronous` (FULL,
//! NORMAL, OFF; WAL mode). No keying or think times: the terminals run
//! back to back, so tpmC here is "tpmC-like", committed New-Orders per
//! minute. `--processes P`: rqc's terminals run in P processes of their
//! own (each with `--threads` terminals, on the same database, the way
//! several application servers share one), and SQLite runs as many
//! terminal threads (`tpcc_terminals`). The conditions are checked on a dump of the columns they read
//! (`tpcc_conditions::ReadDump`: Stock and Item not at all, each row cut
//! as it is read), held in memory, each system's in turn. Exits 1 when a
//! condition does not hold on either system.

#[path = "../args.rs"]
mod args;
#[allow(dead_code)] // the benchmark's converters; the driver reads SQLite's rows only
#[path = "../cells.rs"]
mod cells;
#[allow(dead_code)] // the benchmark's report helpers; the driver prints a few
#[path = "../machine.rs"]
mod machine;
#[path = "../tpcc_load.rs"]
mod tpcc_load;
#[path = "../tpcc_sql.rs"]
mod tpcc_sql;
#[path = "../tpcc_terminals.rs"]
mod tpcc_terminals;

use args::Args;
use rqc::Durability;
use rqc_tests::tpcc::{Mix, Scale};
use rqc_tests::tpcc_conditions::{check, read_dump};
use rqc_tests::Rng;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tpcc_terminals::{merge, Measured, System, Terminal, KINDS};

/// What the command line asks for.
struct Options {
    scale: Scale,
    threads: u64,
    seconds: u64,
    slice: u64,
    seed: u64,
    durability: Durability,
    sqlite: bool,
    db: Option<PathBuf>,
    /// rqc on a 3-member etcd cluster started here.
    etcd: bool,
    /// Terminal processes for rqc (0: its terminals are threads here).
    processes: u64,
    /// Set in a terminal process: its number.
    terminal_process: Option<u64>,
}

fn options() -> Options {
    let args = Args::from_env();
    Options {
        scale: tpcc_load::scale(&args),
        threads: args.number("--threads", 2).max(1),
        seconds: args.number("--seconds", 10),
        slice: args.number("--slice", 5).max(1),
        seed: args.number("--seed", 1),
        durability: args.durability(Durability::Full),
        sqlite: args.flag("--sqlite"),
        db: args.value("--db").map(Into::into),
        etcd: args.flag("--etcd"),
        processes: args.number("--processes", 0),
        terminal_process: args
            .value("--terminal-process")
            .map(|i| i.parse().expect("a number")),
    }
}

/// Peak and current anonymous memory of the process (LMDB's mapped pages
/// count in RSS whatever the code does, so RssAnon is the figure).
fn memory() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map_or("?".to_string(), |v| v.trim().to_string())
    };
    format!("RssAnon {}, VmHWM {}", field("RssAnon:"), field("VmHWM:"))
}

fn p90(times: &mut [Duration]) -> Option<Duration> {
    times.sort();
    let at = (times.len() * 9).div_ceil(10).checked_sub(1)?;
    Some(times[at])
}

fn ms(d: Option<Duration>) -> String {
    d.map_or("-".to_string(), |d| format!("{:.3}", d.as_secs_f64() * 1e3))
}

fn main() {
    let o = options();
    let scale = o.scale;
    if let (Some(index), Some(dir)) = (o.terminal_process, &o.db) {
        let db = tpcc_terminals::open(dir, o.durability);
        let processes = o.processes.max(1);
        return tpcc_terminals::serve(&db, scale, o.seed, index, o.threads, processes);
    }
    println!(
        "machine: {}; commit {}; durability {} (SQLite synchronous={})",
        machine::describe(),
        machine::commit(),
        o.durability.name(),
        tpcc_sql::synchronous(o.durability)
    );
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let cluster = o.etcd.then(tpcc_load::etcd_cluster);
    let dir = tpcc_load::database_at(cluster.as_ref(), o.db.as_ref(), scratch.path());
    let db = tpcc_terminals::open(&dir, o.durability);
    // On etcd the population goes into an embedded database first.
    let staging = cluster
        .is_some()
        .then(|| tpcc_terminals::open(&scratch.path().join("staging"), Durability::None));
    let sqlite_path = scratch.path().join("tpcc.sqlite");
    let mut sqlite = o
        .sqlite
        .then(|| tpcc_sql::create(&sqlite_path, false, o.durability));

    // One pass over the population, each batch into each system in turn.
    let mut sqlite_load = Duration::ZERO;
    let (calls, rqc_load) = tpcc_load::load(
        staging.as_ref().unwrap_or(&db),
        scale,
        o.seed,
        tpcc_load::LOAD_BATCH,
        &mut |batch| {
            if let Some(conn) = sqlite.as_mut() {
                let started = Instant::now();
                tpcc_sql::load(conn, batch);
                sqlite_load += started.elapsed();
            }
        },
    );
    println!(
        "loaded {} warehouse(s), {} customers per district, {} items: {calls} calls ({} per commit); rqc {:.1} s into {}{}; {}",
        scale.warehouses,
        scale.customers,
        scale.items,
        tpcc_load::LOAD_BATCH,
        rqc_load.as_secs_f64(),
        match &staging {
            Some(_) => "a scratch embedded database, to be copied to etcd".to_string(),
            None => dir.display().to_string(),
        },
        if o.sqlite {
            format!(", SQLite {:.1} s", sqlite_load.as_secs_f64())
        } else {
            String::new()
        },
        memory()
    );
    drop(sqlite);
    if let Some(staging) = staging {
        let (rows, spent) = tpcc_load::copy_into(&staging, &db);
        println!(
            "copied {rows} rows to etcd in {:.1} s ({:.0} rows/s); {}",
            spent.as_secs_f64(),
            rows as f64 / spent.as_secs_f64(),
            memory()
        );
    }

    let mut systems = vec![System::Rqc(&db)];
    if o.sqlite {
        systems.push(System::Sqlite(&sqlite_path, o.durability));
    }
    // Every system runs as many terminals: `--threads` in each terminal
    // process of rqc's, as many threads for SQLite.
    let processes = o.processes;
    let terminal_count = o.threads * processes.max(1);
    // rqc's terminals in processes of their own, on the loaded database.
    let mut remotes = if processes > 0 {
        let mut args: Vec<String> = std::env::args().skip(1).collect();
        if o.db.is_none() {
            args.extend(["--db".to_string(), dir.display().to_string()]);
        }
        tpcc_terminals::spawn(processes, &args)
    } else {
        Vec::new()
    };
    // The same C-Run for every terminal of every system (2.1.6).
    let mix = Mix::new(scale, o.seed, o.seed.wrapping_add(1));
    let mut terminals: Vec<Vec<Terminal>> = systems
        .iter()
        .map(|system| match system {
            System::Rqc(_) if processes > 0 => Vec::new(),
            _ => (0..terminal_count)
                .map(|t| Terminal::new(t, scale, o.seed))
                .collect(),
        })
        .collect();
    let mut spent = vec![Duration::ZERO; systems.len()];
    let mut order_rng = Rng::new(o.seed ^ 0x0051_1CE5);
    let slice = if o.sqlite { o.slice } else { o.seconds };
    let cpu = machine::cpu_ticks();
    let mut left = o.seconds;
    while left > 0 {
        let length = Duration::from_secs(slice.min(left));
        left -= slice.min(left);
        let mut order: Vec<usize> = (0..systems.len()).collect();
        if order.len() == 2 && order_rng.below(2) == 1 {
            order.swap(0, 1);
        }
        for s in order {
            let (system, mix) = (&systems[s], &mix);
            let started = Instant::now();
            let until = started + length;
            if s == 0 && processes > 0 {
                tpcc_terminals::run_all(&mut remotes, length);
            }
            std::thread::scope(|scope| {
                for terminal in terminals[s].iter_mut() {
                    scope.spawn(move || terminal.run_until(system, mix, terminal_count, until));
                }
            });
            spent[s] += started.elapsed();
        }
    }
    println!(
        "mix: {terminal_count} terminal(s){}, {} s per system{}; other processes took {:.0}% of the machine's CPU meanwhile",
        if processes > 0 {
            format!(" (rqc's in {processes} process(es) of {} thread(s))", o.threads)
        } else {
            String::new()
        },
        o.seconds,
        if o.sqlite {
            format!(" in slices of {slice} s, interleaved")
        } else {
            String::new()
        },
        100.0 * machine::others_share(cpu, machine::cpu_ticks())
    );

    // Per system: each kind's times and the deliveries, over its terminals.
    let mut tpmc = Vec::new();
    let mut merged: Vec<Measured> = Vec::new();
    let mut from_processes = Some(tpcc_terminals::report(std::mem::take(&mut remotes)));
    for (s, system) in systems.iter().enumerate() {
        let mut measured = match system {
            System::Rqc(_) => from_processes.take().unwrap_or_default(),
            _ => Measured::default(),
        };
        for terminal in terminals[s].drain(..) {
            merge(&mut measured, terminal);
        }
        let (times, deliveries) = measured;
        let minutes = spent[s].as_secs_f64() / 60.0;
        let total: usize = times.iter().map(Vec::len).sum();
        let (placed, rolled) = (times[0].len(), times[1].len());
        tpmc.push(placed as f64 / minutes);
        println!(
            "{}: {total} transactions in {:.1} s; tpmC-like {:.0}; {rolled} of {} New-Orders rolled back ({:.2}%)",
            system.name(),
            minutes * 60.0,
            placed as f64 / minutes,
            placed + rolled,
            100.0 * rolled as f64 / (placed + rolled).max(1) as f64
        );
        merged.push((times, deliveries));
    }
    let mut header = "| transaction |".to_string();
    for system in &systems {
        header += &format!(" {0} count | {0} p90 (ms) |", system.name());
    }
    if o.sqlite {
        header += " p90 rqc / SQLite |";
    }
    println!(
        "{header}\n|---|{}",
        "---|".repeat(header.matches('|').count() - 2)
    );
    for (k, name) in KINDS.iter().enumerate() {
        let mut line = format!("| {name} |");
        let mut p90s = Vec::new();
        for (times, _) in merged.iter_mut() {
            let p = p90(&mut times[k]);
            line += &format!(" {} | {} |", times[k].len(), ms(p));
            p90s.push(p);
        }
        if let [Some(a), Some(b)] = p90s[..] {
            line += &format!(" {:.2} |", a.as_secs_f64() / b.as_secs_f64());
        } else if o.sqlite {
            line += " - |";
        }
        println!("{line}");
    }
    if let [rqc, sqlite] = tpmc[..] {
        println!(
            "tpmC-like: rqc {rqc:.0}, SQLite {sqlite:.0}, rqc / SQLite {:.2}",
            rqc / sqlite
        );
    }

    let mut failed = false;
    for (s, system) in systems.iter().enumerate() {
        // What the conditions read, cut to those columns as read.
        let dump = match system {
            System::Rqc(db) => read_dump(db).expect("dump"),
            System::Sqlite(path, durability) => {
                tpcc_sql::read_dump(&mut tpcc_sql::connect(path, *durability))
            }
        };
        let violations = check(&dump, scale, &merged[s].1);
        for v in &violations {
            println!("violation on {}: {v}", system.name());
        }
        println!(
            "consistency conditions 3.3.2.1-12 on {}: {} violation(s)",
            system.name(),
            violations.len()
        );
        failed |= !violations.is_empty();
    }
    if failed {
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rqc_tests::tpcc::Txn;
    use rqc_tests::tpcc_conditions::Deliveries;

    /// SQLite's side of TPC-C 2.4.2.3: a New-Order whose last item id is
    /// unused rolls back whole (every row as before, stock and District's
    /// D_NEXT_O_ID included), and the district's next New-Order takes the
    /// id it would have had, so the conditions hold.
    #[test]
    fn sqlite_rolls_a_new_order_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let scale = Scale {
            warehouses: 1,
            customers: 30,
            items: 200,
        };
        let path = dir.path().join("tpcc.sqlite");
        let mut conn = tpcc_sql::create(&path, false, Durability::None);
        tpcc_sql::load(&mut conn, &rqc_tests::tpcc::population(scale, 3));
        let order = |items: [i64; 5], rollback| Txn::NewOrder {
            d: 4,
            c: 9,
            lines: items.iter().map(|&i| (i, 2)).collect(),
            rollback,
        };
        let placed = tpcc_sql::run(&mut conn, 1, &order([10, 11, 12, 13, 14], false), 1, None);
        assert_eq!(placed, tpcc_sql::Outcome::Committed(vec![]));
        let before = tpcc_sql::dump(&mut conn);
        let unused = scale.items + 1;
        let refused = tpcc_sql::run(
            &mut conn,
            1,
            &order([20, 21, 22, 23, unused], true),
            2,
            None,
        );
        assert_eq!(refused, tpcc_sql::Outcome::RolledBack);
        assert_eq!(tpcc_sql::dump(&mut conn), before, "a row changed");
        let next = tpcc_sql::run(&mut conn, 1, &order([20, 21, 22, 23, 24], false), 3, None);
        assert_eq!(next, tpcc_sql::Outcome::Committed(vec![]));
        let ids: Vec<i64> = conn
            .prepare("SELECT id FROM orders WHERE w_id = 1 AND d_id = 4 ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let last = scale.customers + 2;
        assert_eq!(ids, (1..=last).collect::<Vec<_>>(), "consecutive order ids");
        let next_o_id: i64 = conn
            .query_row(
                "SELECT next_o_id FROM district WHERE w_id = 1 AND id = 4",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(next_o_id, last + 1);
        let dump = tpcc_sql::dump(&mut conn);
        assert_eq!(check(&dump, scale, &Deliveries::default()), []);
    }
}
