//! A hasher for tables keyed by hashes already mixed (xxh3 of a line):
//! the key's `u64` is its own hash.

use std::hash::Hasher;

/// Hashes a precomputed `u64` hash to itself.
#[derive(Default)]
pub struct PrecomputedHasher(u64);

impl Hasher for PrecomputedHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Keys write one `u64`; fold anything else in.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}
