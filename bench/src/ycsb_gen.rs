//! YCSB's core workloads as operations: the key names, the record values,
//! the request distributions (Zipfian after Gray et al. as YCSB's
//! `ZipfianGenerator`, its `ScrambledZipfianGenerator` and
//! `SkewedLatestGenerator`) and workloads A–F drawn into a list of
//! operations that every system runs alike.

use rqc_tests::Rng;

/// YCSB's Zipfian constant.
pub const THETA: f64 = 0.99;
/// Fields per record, and bytes per field (YCSB's defaults).
pub const FIELDS: usize = 10;
pub const FIELD_BYTES: usize = 100;
/// Workload E's longest scan (`maxscanlength`), the RQL entry's `n <= 100`.
pub const MAX_SCAN: u64 = 100;

/// YCSB's `Utils.fnvhash64`: FNV-1 over the 8 bytes of `n`, made non-negative.
pub fn fnv64(mut n: u64) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for _ in 0..8 {
        h ^= n & 0xff;
        n >>= 8;
        h = h.wrapping_mul(1_099_511_628_211);
    }
    (h as i64).unsigned_abs()
}

/// The key of record `keynum`, as YCSB names it with `insertorder=hashed`:
/// "user" and the number's hash (at most 23 bytes; the table allows 32).
pub fn key(keynum: u64) -> String {
    format!("user{}", fnv64(keynum))
}

/// A uniform double in [0, 1).
pub fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A field's value: `FIELD_BYTES` printable ASCII characters.
pub fn value(rng: &mut Rng) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(FIELD_BYTES);
    while out.len() < FIELD_BYTES {
        let mut bits = rng.next_u64();
        for _ in 0..10 {
            if out.len() == FIELD_BYTES {
                break;
            }
            out.push(ALPHABET[(bits & 63) as usize] as char);
            bits >>= 6;
        }
    }
    out
}

/// ζ(n, θ) from `from` items to `to`, added to `sum` (YCSB's incremental `zeta`).
fn zeta(from: u64, to: u64, theta: f64, sum: f64) -> f64 {
    (from..to).fold(sum, |s, i| s + 1.0 / ((i + 1) as f64).powf(theta))
}

/// Items 0..n, item i drawn with probability ∝ 1/(i+1)^θ: Gray et al.,
/// "Quickly generating billion-record synthetic databases" (SIGMOD 1994),
/// as YCSB's `ZipfianGenerator`. The count may grow (`next_of`), ζ being
/// extended incrementally as YCSB does.
#[derive(Clone, Debug)]
pub struct Zipfian {
    items: u64,
    zetan: f64,
    zeta2: f64,
    alpha: f64,
    eta: f64,
}

impl Zipfian {
    pub fn new(items: u64) -> Zipfian {
        Zipfian::with_zeta(items, zeta(0, items, THETA, 0.0))
    }

    /// With ζ(items) given (YCSB precomputes it for 10^10 items).
    pub fn with_zeta(items: u64, zetan: f64) -> Zipfian {
        let zeta2 = zeta(0, 2, THETA, 0.0);
        let mut z = Zipfian {
            items,
            zetan,
            zeta2,
            alpha: 1.0 / (1.0 - THETA),
            eta: 0.0,
        };
        z.eta = z.eta_for(items);
        z
    }

    fn eta_for(&self, items: u64) -> f64 {
        (1.0 - (2.0 / items as f64).powf(1.0 - THETA)) / (1.0 - self.zeta2 / self.zetan)
    }

    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        let items = self.items;
        self.next_of(items, rng)
    }

    /// A draw over `items` items (at least the count so far).
    pub fn next_of(&mut self, items: u64, rng: &mut Rng) -> u64 {
        if items > self.items {
            self.zetan = zeta(self.items, items, THETA, self.zetan);
            self.items = items;
            self.eta = self.eta_for(items);
        }
        let u = unit(rng);
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(THETA) {
            return 1;
        }
        let drawn = (items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        drawn.min(items - 1)
    }
}

/// YCSB's `ScrambledZipfianGenerator`: a Zipfian draw over 10^10 items
/// (ζ precomputed as YCSB's `ZETAN`), hashed and taken modulo the item
/// count, so the popular items are spread over the key space.
#[derive(Clone, Debug)]
pub struct Scrambled {
    zipfian: Zipfian,
    items: u64,
}

impl Scrambled {
    pub fn new(items: u64) -> Scrambled {
        Scrambled {
            zipfian: Zipfian::with_zeta(10_000_000_000, 26.469_028_201_783_02),
            items,
        }
    }

    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        fnv64(self.zipfian.next(rng)) % self.items
    }
}

/// The operations of YCSB's core workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Read,
    Update,
    Insert,
    Scan,
    ReadModifyWrite,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Read,
        Kind::Update,
        Kind::Insert,
        Kind::Scan,
        Kind::ReadModifyWrite,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Update => "update",
            Kind::Insert => "insert",
            Kind::Scan => "scan",
            Kind::ReadModifyWrite => "read-modify-write",
        }
    }
}

/// One operation, with its arguments drawn.
#[derive(Clone, Debug)]
pub struct Op {
    pub kind: Kind,
    pub key: String,
    /// The new field value (update, insert, read-modify-write).
    pub value: String,
    /// A scan's length, 1..=`MAX_SCAN`.
    pub n: u64,
}

/// A core workload: its proportions in percent and request distribution.
#[derive(Clone, Copy, Debug)]
pub struct Workload {
    pub name: char,
    pub mix: [(Kind, u64); 2],
    /// D's "latest": recently inserted records are the popular ones.
    pub latest: bool,
}

impl Workload {
    /// A to F as YCSB's `workloads/workloada` … `workloadf` declare them.
    pub const ALL: [Workload; 6] = [
        Workload::new('A', [(Kind::Read, 50), (Kind::Update, 50)], false),
        Workload::new('B', [(Kind::Read, 95), (Kind::Update, 5)], false),
        Workload::new('C', [(Kind::Read, 100), (Kind::Update, 0)], false),
        Workload::new('D', [(Kind::Read, 95), (Kind::Insert, 5)], true),
        Workload::new('E', [(Kind::Scan, 95), (Kind::Insert, 5)], false),
        Workload::new('F', [(Kind::Read, 50), (Kind::ReadModifyWrite, 50)], false),
    ];

    const fn new(name: char, mix: [(Kind, u64); 2], latest: bool) -> Workload {
        Workload { name, mix, latest }
    }

    pub fn named(name: char) -> Option<Workload> {
        Workload::ALL
            .into_iter()
            .find(|w| w.name == name.to_ascii_uppercase())
    }

    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .mix
            .iter()
            .filter(|(_, p)| *p > 0)
            .map(|(k, p)| format!("{p}% {}", k.name()))
            .collect();
        let dist = if self.latest {
            "latest"
        } else {
            "scrambled Zipfian"
        };
        format!("{}; {dist} requests (θ = {THETA})", parts.join(", "))
    }
}

/// The records so far, across workloads: keys 0..`records` exist (every
/// system ran the same inserts), so D's and E's inserts continue the
/// sequence where the load or the previous workload left it.
pub struct Keyspace {
    pub records: u64,
    rng: Rng,
}

impl Keyspace {
    pub fn new(records: u64, seed: u64) -> Keyspace {
        Keyspace {
            records,
            rng: Rng::new(seed ^ 0x5943_5342),
        }
    }

    /// `count` operations of `w`, drawn in order (inserts take the next
    /// key numbers, so later draws may ask for them).
    pub fn draw(&mut self, w: Workload, count: usize) -> Vec<Op> {
        let rng = &mut self.rng;
        let inserts = w
            .mix
            .iter()
            .find(|(k, _)| *k == Kind::Insert)
            .map_or(0, |(_, p)| *p);
        // YCSB's key chooser spans the records and twice the inserts expected.
        let expected = count as u64 * inserts * 2 / 100;
        let mut scrambled = Scrambled::new(self.records + expected);
        let mut latest = Zipfian::new(self.records.saturating_sub(1).max(1));
        let mut ops = Vec::with_capacity(count);
        for _ in 0..count {
            let roll = rng.below(100) as u64;
            let kind = if roll < w.mix[0].1 {
                w.mix[0].0
            } else {
                w.mix[1].0
            };
            let keynum = if kind == Kind::Insert {
                self.records += 1;
                self.records - 1
            } else if w.latest {
                // SkewedLatestGenerator: the last key number minus a Zipfian draw.
                let last = self.records - 1;
                last - latest.next_of(last.max(1), rng)
            } else {
                loop {
                    let k = scrambled.next(rng);
                    if k < self.records {
                        break k;
                    }
                }
            };
            let n = if kind == Kind::Scan {
                1 + rng.below(MAX_SCAN) as u64
            } else {
                0
            };
            let value = match kind {
                Kind::Update | Kind::Insert | Kind::ReadModifyWrite => value(rng),
                _ => String::new(),
            };
            ops.push(Op {
                kind,
                key: key(keynum),
                value,
                n,
            });
        }
        ops
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Item i's share is 1/((i+1)^θ ζ(n)): exactly for the first two
    /// items, within Gray et al.'s approximation beyond (item 2 comes out
    /// about 17% above its share, item 3 11%); the top 10% of the items
    /// take their share, ζ(100)/ζ(1000) ≈ 68.5%, of the draws.
    #[test]
    fn zipfian_draws_follow_the_power_law() {
        let n = 1_000;
        let mut z = Zipfian::new(n);
        let mut rng = Rng::new(7);
        let draws = 400_000;
        let mut counts = vec![0u64; n as usize];
        for _ in 0..draws {
            counts[z.next(&mut rng) as usize] += 1;
        }
        let zn = zeta(0, n, THETA, 0.0);
        for (i, within) in [(0usize, 0.05), (1, 0.05), (2, 0.25), (9, 0.25), (99, 0.25)] {
            let expected = draws as f64 / ((i + 1) as f64).powf(THETA) / zn;
            let seen = counts[i] as f64;
            assert!(
                (seen / expected - 1.0).abs() < within,
                "item {i}: {seen} draws, {expected:.0} expected"
            );
        }
        let top = counts[..100].iter().sum::<u64>() as f64 / draws as f64;
        let share = zeta(0, 100, THETA, 0.0) / zn;
        assert!(
            (top - share).abs() < 0.03,
            "top 10%: {top}, {share} expected"
        );
    }

    /// Scrambled: the hottest key takes about 1/ζ(10^10) ≈ 3.8% of the
    /// draws, and the hot keys are spread over the key space.
    #[test]
    fn scrambled_zipfian_is_skewed_and_spread() {
        let n = 10_000;
        let mut z = Scrambled::new(n);
        let mut rng = Rng::new(11);
        let draws = 200_000;
        let mut counts = vec![0u64; n as usize];
        for _ in 0..draws {
            counts[z.next(&mut rng) as usize] += 1;
        }
        let mut sorted = counts.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let hottest = sorted[0] as f64 / draws as f64;
        assert!((0.03..0.05).contains(&hottest), "hottest share {hottest}");
        // The 100 hottest keys: at least ζ(100)/ζ(10^10) ≈ 19.6% of the draws.
        let top_1pc: u64 = sorted[..100].iter().sum();
        assert!(top_1pc as f64 > 0.18 * draws as f64, "top 1%: {top_1pc}");
        let first_half: u64 = counts[..5_000].iter().sum();
        let share = first_half as f64 / draws as f64;
        assert!((0.2..0.8).contains(&share), "the hot keys bunched: {share}");
    }

    /// Workload D reads mostly what was inserted last; inserts continue
    /// the key sequence.
    #[test]
    fn latest_favours_the_newest_records() {
        let mut space = Keyspace::new(10_000, 3);
        let d = Workload::named('d').unwrap();
        let ops = space.draw(d, 20_000);
        let inserts = ops.iter().filter(|o| o.kind == Kind::Insert).count() as u64;
        assert_eq!(space.records, 10_000 + inserts);
        assert!((700..1_300).contains(&inserts), "{inserts} inserts");
        let keynums: std::collections::HashMap<String, u64> =
            (0..space.records).map(|k| (key(k), k)).collect();
        let (mut records, mut recent, mut reads) = (10_000, 0, 0);
        for o in &ops {
            if o.kind == Kind::Insert {
                records += 1;
            } else {
                reads += 1;
                recent += (keynums[&o.key] + 100 >= records) as usize;
            }
        }
        assert!(
            recent * 10 > reads * 4,
            "{recent} of {reads} reads of the 100 newest keys"
        );
    }

    #[test]
    fn keys_and_values_have_ycsbs_shape() {
        assert_eq!(key(0), format!("user{}", fnv64(0)));
        assert!((0..1_000).all(|k| key(k).len() <= 32));
        let v = value(&mut Rng::new(1));
        assert_eq!(v.len(), FIELD_BYTES);
        assert!(v.is_ascii());
    }
}
