//! `tpcc`'s terminals: the mix run back to back from one terminal of one system, timed per kind, and terminals in processes of their own that the driver runs slice by slice (`--processes`).
//!
//! A terminal process (`tpcc --terminal-process I …`, started by the
//! driver) opens the database the driver loaded and serves its standard
//! input, one command a line: `run MILLIS` runs its terminals (threads)
//! for that long and answers `done`; `report` answers each transaction's
//! time (`t KIND NANOS`) and each district's deliveries (`d W D N`), then
//! `end`, and the process exits. Its terminals are numbered
//! `I·threads + j`, so every terminal of every process draws its own
//! sequence and History ids never collide.

use crate::tpcc_sql;
use rqc::{Database, Durability};
use rqc_tests::tpcc::{Mix, Scale, Txn};
use rqc_tests::tpcc_conditions::Deliveries;
use rqc_tests::Rng;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

pub const KINDS: [&str; 8] = [
    "New-Order",
    "New-Order rolled back",
    "Payment",
    "Payment by name",
    "Order-Status",
    "Order-Status by name",
    "Delivery",
    "Stock-Level",
];

pub fn kind(txn: &Txn) -> usize {
    match txn {
        Txn::NewOrder {
            rollback: false, ..
        } => 0,
        Txn::NewOrder { rollback: true, .. } => 1,
        Txn::Payment { .. } => 2,
        Txn::PaymentByName { .. } => 3,
        Txn::OrderStatus { .. } => 4,
        Txn::OrderStatusByName { .. } => 5,
        Txn::Delivery { .. } => 6,
        Txn::StockLevel { .. } => 7,
    }
}

/// A system under test: rqc through its library, or SQLite through a
/// connection per terminal.
pub enum System<'a> {
    Rqc(&'a Database),
    Sqlite(&'a Path, Durability),
}

impl System<'_> {
    pub fn name(&self) -> &'static str {
        match self {
            System::Rqc(_) => "rqc",
            System::Sqlite(..) => "SQLite",
        }
    }
}

/// One terminal of one system: where its sequence of transactions is, and
/// what it measured so far.
pub struct Terminal {
    t: u64,
    w: i64,
    rng: Rng,
    /// Transactions drawn so far: the k-th has History id t + k·threads,
    /// so terminals never share one (the population's are negative).
    k: u64,
    pub times: [Vec<Duration>; KINDS.len()],
    pub deliveries: Deliveries,
    conn: Option<rusqlite::Connection>,
}

impl Terminal {
    pub fn new(t: u64, scale: Scale, seed: u64) -> Terminal {
        Terminal {
            t,
            w: 1 + (t as i64) % scale.warehouses,
            rng: Rng::new(seed ^ (t + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            k: 0,
            times: Default::default(),
            deliveries: Deliveries::default(),
            conn: None,
        }
    }

    /// Runs the mix until `until`: each transaction timed from the binding
    /// of its arguments to its commit or rollback.
    pub fn run_until(&mut self, system: &System<'_>, mix: &Mix, threads: u64, until: Instant) {
        while Instant::now() < until {
            let txn = mix.draw(&mut self.rng);
            let h = (self.t + self.k * threads) as i64;
            self.k += 1;
            let started = Instant::now();
            match system {
                System::Rqc(db) => {
                    let (name, args) = txn.call(self.w, h);
                    match db.run(name, &args) {
                        Ok(output) => {
                            assert!(!txn.rolls_back(), "{name}({args:?}) committed");
                            if let Txn::Delivery { .. } = txn {
                                self.deliveries.record(self.w, output.rows());
                            }
                        }
                        // The unused item's reference refuses the order whole.
                        Err(e) if txn.rolls_back() && e.code() == "E0503" => {}
                        Err(e) => panic!("{name}({args:?}): {e}"),
                    }
                }
                System::Sqlite(path, durability) => {
                    let conn = self
                        .conn
                        .get_or_insert_with(|| tpcc_sql::connect(path, *durability));
                    match tpcc_sql::run(conn, self.w, &txn, h, None) {
                        tpcc_sql::Outcome::Committed(districts) => {
                            assert!(!txn.rolls_back(), "{txn:?} committed");
                            for d in districts {
                                *self.deliveries.0.entry((self.w, d)).or_default() += 1;
                            }
                        }
                        tpcc_sql::Outcome::RolledBack => {
                            assert!(txn.rolls_back(), "{txn:?} rolled back")
                        }
                    }
                }
            }
            self.times[kind(&txn)].push(started.elapsed());
        }
    }
}

/// Each kind's times and the deliveries, over some terminals.
pub type Measured = ([Vec<Duration>; KINDS.len()], Deliveries);

/// Adds `terminal`'s measures to `into`.
pub fn merge(into: &mut Measured, terminal: Terminal) {
    for (district, n) in terminal.deliveries.0 {
        *into.1 .0.entry(district).or_default() += n;
    }
    for (all, mine) in into.0.iter_mut().zip(terminal.times) {
        all.extend(mine);
    }
}

/// A terminal process the driver runs.
pub struct Remote {
    child: Child,
    commands: ChildStdin,
    answers: BufReader<ChildStdout>,
}

impl Remote {
    fn answer(&mut self) -> String {
        let mut line = String::new();
        let read = self
            .answers
            .read_line(&mut line)
            .expect("a terminal process's answer");
        assert!(
            read > 0,
            "a terminal process ended early: {:?}",
            self.child.try_wait()
        );
        line.trim_end().to_string()
    }

    fn send(&mut self, command: &str) {
        writeln!(self.commands, "{command}").expect("a command to a terminal process");
        self.commands
            .flush()
            .expect("a command to a terminal process");
    }
}

/// Starts `processes` terminal processes of this program, each given
/// `args` (the database and the driver's options) and its number.
pub fn spawn(processes: u64, args: &[String]) -> Vec<Remote> {
    let exe = std::env::current_exe().expect("this program");
    (0..processes)
        .map(|i| {
            let mut child = Command::new(&exe)
                .args(args)
                .args(["--terminal-process", &i.to_string()])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("a terminal process");
            let commands = child.stdin.take().expect("its input");
            let answers = BufReader::new(child.stdout.take().expect("its output"));
            let mut remote = Remote {
                child,
                commands,
                answers,
            };
            assert_eq!(remote.answer(), "ready", "a terminal process did not start");
            remote
        })
        .collect()
}

/// Runs every process's terminals for `length`, at once.
pub fn run_all(remotes: &mut [Remote], length: Duration) {
    for remote in remotes.iter_mut() {
        remote.send(&format!("run {}", length.as_millis()));
    }
    for remote in remotes.iter_mut() {
        assert_eq!(remote.answer(), "done");
    }
}

/// Every process's measures, merged; the processes exit.
pub fn report(remotes: Vec<Remote>) -> Measured {
    let mut measured = Measured::default();
    for mut remote in remotes {
        remote.send("report");
        loop {
            let line = remote.answer();
            let fields: Vec<i64> = line
                .split(' ')
                .skip(1)
                .map(|f| {
                    f.parse()
                        .unwrap_or_else(|_| panic!("a report line: {line}"))
                })
                .collect();
            match (line.split(' ').next(), &fields[..]) {
                (Some("end"), _) => break,
                (Some("t"), [k, nanos]) => {
                    measured.0[*k as usize].push(Duration::from_nanos(*nanos as u64))
                }
                (Some("d"), [w, d, n]) => *measured.1 .0.entry((*w, *d)).or_default() += n,
                _ => panic!("a report line: {line}"),
            }
        }
        let status = remote.child.wait().expect("a terminal process's end");
        assert!(status.success(), "a terminal process failed: {status}");
    }
    measured
}

/// The terminal process `index` of `processes`: serves the driver's
/// commands on `db` until `report`.
pub fn serve(db: &Database, scale: Scale, seed: u64, index: u64, threads: u64, processes: u64) {
    let mix = Mix::new(scale, seed, seed.wrapping_add(1));
    let stride = threads * processes;
    let mut terminals: Vec<Terminal> = (0..threads)
        .map(|j| Terminal::new(index * threads + j, scale, seed))
        .collect();
    let system = System::Rqc(db);
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready")
        .and_then(|()| out.flush())
        .expect("the driver");
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("the driver's command");
        if let Some(millis) = line.strip_prefix("run ") {
            let length = Duration::from_millis(millis.parse().expect("a length"));
            let until = Instant::now() + length;
            let (system, mix) = (&system, &mix);
            std::thread::scope(|scope| {
                for terminal in terminals.iter_mut() {
                    scope.spawn(move || terminal.run_until(system, mix, stride, until));
                }
            });
            writeln!(out, "done")
                .and_then(|()| out.flush())
                .expect("the driver");
        } else if line == "report" {
            let mut measured = Measured::default();
            for terminal in terminals.drain(..) {
                merge(&mut measured, terminal);
            }
            for (k, times) in measured.0.iter().enumerate() {
                for time in times {
                    writeln!(out, "t {k} {}", time.as_nanos()).expect("the driver");
                }
            }
            for ((w, d), n) in &measured.1 .0 {
                writeln!(out, "d {w} {d} {n}").expect("the driver");
            }
            writeln!(out, "end")
                .and_then(|()| out.flush())
                .expect("the driver");
            return;
        } else {
            panic!("an unknown command from the driver: {line}");
        }
    }
}

/// Opens the database a driver loaded (a directory, or an `etcd://` URL),
/// its program installed.
pub fn open(dir: &Path, durability: Durability) -> Database {
    let mut db = match dir.to_str().filter(|d| d.starts_with("etcd://")) {
        Some(url) => Database::connect(url).unwrap_or_else(|e| panic!("connect {url}: {e}")),
        None => Database::open_with(
            dir,
            rqc::OpenOptions {
                durability,
                ..rqc::OpenOptions::default()
            },
        )
        .expect("open"),
    };
    db.install_paths(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/tpcc")])
        .expect("install examples/tpcc");
    db
}
