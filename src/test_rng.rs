//! A small deterministic generator (xorshift64) for the unit tests'
//! random cases: the same cases on every run, no dependency.

/// The generator's state.
pub struct Rng(u64);

impl Rng {
    /// Starts from `seed` (not 0).
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    /// One item of `pool` (not empty).
    pub fn pick<'a, T>(&mut self, pool: &'a [T]) -> &'a T {
        &pool[self.below(pool.len())]
    }
}
