//! What the report says about the machine and how busy it was: the CPU,
//! the load average, and the share of CPU time other processes took while
//! the benchmark ran (the noise every figure carries).

/// CPU model, cores and memory.
pub fn describe() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let gib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .next()
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024 / 1024);
    format!("{cpu}, {cores} cores, {gib} GiB")
}

/// The 1-minute load average.
pub fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().and_then(|s| s.parse().ok()))
        .unwrap_or(f64::NAN)
}

/// CPU time so far, in clock ticks: (all processes busy, this process).
#[derive(Clone, Copy, Debug)]
pub struct CpuTicks {
    busy: u64,
    total: u64,
    ours: u64,
}

pub fn cpu_ticks() -> CpuTicks {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let fields: Vec<u64> = stat
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal …: idle and iowait are not busy.
    let total: u64 = fields.iter().take(8).sum();
    let idle = fields.get(3).copied().unwrap_or(0) + fields.get(4).copied().unwrap_or(0);
    let own = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command's closing parenthesis; utime and stime are 14 and 15.
    let after = own.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ours: u64 = after
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|f| f.parse::<u64>().ok())
        .sum();
    CpuTicks {
        busy: total.saturating_sub(idle),
        total,
        ours,
    }
}

/// Of the machine's CPU time between two readings, the share other
/// processes used (0.5 on 2 cores: one core's worth was busy elsewhere).
pub fn others_share(start: CpuTicks, end: CpuTicks) -> f64 {
    let total = end.total.saturating_sub(start.total).max(1) as f64;
    let busy = end.busy.saturating_sub(start.busy) as f64;
    let ours = end.ours.saturating_sub(start.ours) as f64;
    ((busy - ours) / total).max(0.0)
}

/// The commit measured (and whether the checkout had changes beside it),
/// if the source is a git checkout.
pub fn commit() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(["-C", env!("CARGO_MANIFEST_DIR")])
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["log", "-1", "--format=%h (%cs)"]) {
        Some(head) => match git(&["status", "--porcelain", "--untracked-files=no"]) {
            Some(changes) if !changes.is_empty() => format!("{head} with uncommitted changes"),
            _ => head,
        },
        None => "unknown".into(),
    }
}
