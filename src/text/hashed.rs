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

/// A hasher for tables keyed by small integers (edit indexes): FxHash's
/// rotate, xor and multiply per word, a few instructions where the
/// default SipHash spends about a hundred. The keys come from the
/// payload's order, not its text, so there is nothing for an input to
/// collide on.
#[derive(Default)]
pub struct IndexHasher(u64);

impl IndexHasher {
    fn add(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for IndexHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

/// A map keyed by edit index, hashed with [`IndexHasher`].
pub type IndexMap<V> =
    std::collections::HashMap<usize, V, std::hash::BuildHasherDefault<IndexHasher>>;
