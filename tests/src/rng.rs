//! A small deterministic generator (xorshift64), so a seed names a whole
//! run: the suites, the crash test's child and parent, and the benchmark
//! draw the same values from it.

#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// A generator for `seed`; zero (a fixed point of xorshift) is moved off.
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> i64 {
        (self.next_u64() % n.max(1)) as i64
    }
}
