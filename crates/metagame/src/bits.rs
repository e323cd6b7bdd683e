//! Sets of small numbers (bases, moves) as words of bits.

/// Whether the bitset `set` holds `i`.
pub fn contains(set: &[u64], i: u32) -> bool {
    set.get(i as usize / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

/// Adds `i` to the bitset `set`, growing it as needed.
pub fn insert(set: &mut Vec<u64>, i: u32) {
    let k = i as usize / 64;
    if set.len() <= k {
        set.resize(k + 1, 0);
    }
    set[k] |= 1 << (i % 64);
}
