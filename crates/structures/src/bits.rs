//! Sets of small numbers (bases, moves, lanes) as words of bits: the one way a slice of `u64`
//! is read and written bit by bit. A propnet state is such a set of its true bases.

/// Bit access on a slice of words: bit `i` is bit `i % 64` of word `i / 64`.
pub trait Bits {
    /// Whether bit `i` is set; false past the end.
    fn bit(&self, i: usize) -> bool;
    /// Sets bit `i`, which must lie within the words.
    fn set_bit(&mut self, i: usize);
    /// Clears bit `i`, which must lie within the words.
    fn clear_bit(&mut self, i: usize);
    /// Sets bit `i` if `on`, else clears it, without a branch; `i` must lie within the words.
    fn assign_bit(&mut self, i: usize, on: bool);
}

impl Bits for [u64] {
    #[inline]
    fn bit(&self, i: usize) -> bool {
        self.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    #[inline]
    fn set_bit(&mut self, i: usize) {
        self[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    fn clear_bit(&mut self, i: usize) {
        self[i / 64] &= !(1 << (i % 64));
    }

    #[inline]
    fn assign_bit(&mut self, i: usize, on: bool) {
        let w = &mut self[i / 64];
        *w = *w & !(1 << (i % 64)) | u64::from(on) << (i % 64);
    }
}

/// Adds `i` to the set `set`, growing it as needed.
pub fn insert(set: &mut Vec<u64>, i: usize) {
    let k = i / 64;
    if set.len() <= k {
        set.resize(k + 1, 0);
    }
    set.set_bit(i);
}

/// How many members `mask` and `set` share.
pub fn count(mask: &[u64], set: &[u64]) -> u32 {
    mask.iter().zip(set).map(|(m, s)| (m & s).count_ones()).sum()
}

/// The words a set of `n` bits takes.
pub fn words(n: usize) -> usize {
    n.div_ceil(64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_set_clear_and_grow_across_word_boundaries() {
        let mut set = vec![0u64; 2];
        for i in [0, 63, 64, 127] {
            assert!(!set.bit(i));
            set.set_bit(i);
            assert!(set.bit(i));
        }
        assert_eq!(set, [1 | 1 << 63, 1 | 1 << 63]);
        set.clear_bit(63);
        assert!(!set.bit(63) && set.bit(64));
        set.assign_bit(63, true);
        set.assign_bit(64, false);
        assert!(set.bit(63) && !set.bit(64));
        assert!(!set.bit(1000), "past the end reads as unset");
        insert(&mut set, 200);
        assert_eq!(set.len(), 4);
        assert!(set.bit(200));
        assert_eq!(words(0), 0);
        assert_eq!(words(64), 1);
        assert_eq!(words(65), 2);
        assert_eq!(count(&[0b1011, 1], &[0b0110, 1, 1]), 2);
    }
}
