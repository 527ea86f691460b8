//! A YCSB workload's table: per operation and per system, the count,
//! throughput of the timed operations, p50 and p99; rqc's median over each
//! peer's with the p25–p75 of the per-round ratios.

use crate::timing::quantile;
use crate::ycsb_gen::Kind;

/// One workload's timings: `samples[s][i]` is system `s`'s operation `i`
/// in ns; operations `k·batch..(k+1)·batch` were round `k`.
pub struct Timed {
    pub kinds: Vec<Kind>,
    pub systems: Vec<&'static str>,
    pub samples: Vec<Vec<f64>>,
    pub batch: usize,
}

/// Microseconds, to a precision that suits their size.
fn us(ns: f64) -> String {
    let us = ns / 1e3;
    if us < 10.0 {
        format!("{us:.2}")
    } else if us < 100.0 {
        format!("{us:.1}")
    } else {
        format!("{us:.0}")
    }
}

/// A count with thousands separators.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl Timed {
    /// System `s`'s samples of the operations `keep` selects.
    fn of(&self, s: usize, keep: impl Fn(Kind) -> bool) -> Vec<f64> {
        self.samples[s]
            .iter()
            .zip(&self.kinds)
            .filter(|(_, k)| keep(**k))
            .map(|(t, _)| *t)
            .collect()
    }

    /// Round by round, the median of `a`'s selected operations over `b`'s:
    /// (p25, p75) of those ratios (rounds without such operations skipped).
    fn round_spread(&self, a: usize, b: usize, keep: impl Fn(Kind) -> bool) -> (f64, f64) {
        let mut ratios = Vec::new();
        for start in (0..self.kinds.len()).step_by(self.batch) {
            let end = (start + self.batch).min(self.kinds.len());
            let pick = |s: usize| -> Vec<f64> {
                (start..end)
                    .filter(|&i| keep(self.kinds[i]))
                    .map(|i| self.samples[s][i])
                    .collect()
            };
            let (mut x, mut y) = (pick(a), pick(b));
            if !x.is_empty() {
                let r = quantile(&mut x, 0.5) / quantile(&mut y, 0.5);
                if r.is_finite() {
                    ratios.push(r);
                }
            }
        }
        (quantile(&mut ratios, 0.25), quantile(&mut ratios, 0.75))
    }

    /// The table, one line per operation of the workload and one for all.
    pub fn table(&self) -> String {
        let mut header = "| operation | count |".to_string();
        let mut rule = "|---|---:|".to_string();
        for name in &self.systems {
            header += &format!(" {name} ops/s | {name} p50 µs | {name} p99 µs |");
            rule += "---:|---:|---:|";
        }
        let (rqc, peers) = (self.systems[0], &self.systems[1..]);
        for peer in peers {
            header += &format!(" p50 {rqc} / {peer} (p25–p75 of rounds) |");
            rule += "---|";
        }
        let mut out = format!("{header}\n{rule}\n");
        // Each operation of the workload, then all of them (None).
        let mut lines: Vec<Option<Kind>> = Kind::ALL
            .into_iter()
            .filter(|k| self.kinds.contains(k))
            .map(Some)
            .collect();
        if lines.len() > 1 {
            lines.push(None);
        }
        for line_kind in lines {
            let keep = |k: Kind| line_kind.is_none_or(|l| l == k);
            let name = line_kind.map_or("all", Kind::name);
            let count = self.kinds.iter().filter(|k| keep(**k)).count();
            let mut line = format!("| {name} | {} |", thousands(count as u64));
            let mut medians = Vec::new();
            for s in 0..self.systems.len() {
                let mut xs = self.of(s, keep);
                let total: f64 = xs.iter().sum();
                let p50 = quantile(&mut xs, 0.5);
                let p99 = quantile(&mut xs, 0.99);
                medians.push(p50);
                line += &format!(
                    " {} | {} | {} |",
                    thousands((count as f64 / total * 1e9) as u64),
                    us(p50),
                    us(p99)
                );
            }
            for peer in 1..self.systems.len() {
                let (p25, p75) = self.round_spread(0, peer, keep);
                line += &format!(" {:.2} ({p25:.2}–{p75:.2}) |", medians[0] / medians[peer]);
            }
            out += &line;
            out.push('\n');
        }
        out
    }
}
