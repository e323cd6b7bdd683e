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

/// Transposes `W` 64×64 bit matrices at once, matrix k's row t being `m[t][k]` (bit c its
/// column c): afterwards bit t of `m[c][k]` is what bit c of `m[t][k]` was. Six rounds swap
/// ever smaller blocks across the diagonal, each a few word operations per row, applied to all
/// `W` matrices together (vector instructions where the processor has them).
#[inline(always)]
pub fn transpose<const W: usize>(m: &mut [[u64; W]; 64]) {
    let mut j = 32;
    let mut mask: u64 = 0x0000_0000_FFFF_FFFF;
    while j != 0 {
        for r in (0..64).filter(|r| r & j == 0) {
            let (a, b) = (m[r], m[r + j]);
            let t: [u64; W] = std::array::from_fn(|k| ((a[k] >> j) ^ b[k]) & mask);
            m[r] = std::array::from_fn(|k| a[k] ^ (t[k] << j));
            m[r + j] = std::array::from_fn(|k| b[k] ^ t[k]);
        }
        j >>= 1;
        mask ^= mask << j;
    }
}

/// The position of the set bit of `w` that has `r` set bits below it (`r` below
/// `w.count_ones()`, or this returns 64).
#[inline]
pub fn select(w: u64, r: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: the processor has BMI2, checked just above.
        return unsafe { select_bmi2(w, r) };
    }
    select_portable(w, r)
}

/// [`select`] without special instructions.
fn select_portable(w: u64, r: u32) -> u32 {
    let (mut w, mut r, mut at) = (w, r, 0);
    // Whole bytes first, then bit by bit within the byte.
    while at < 64 && (w & 0xff).count_ones() <= r {
        r -= (w & 0xff).count_ones();
        w >>= 8;
        at += 8;
    }
    while at < 64 {
        if w & 1 == 1 {
            if r == 0 {
                return at;
            }
            r -= 1;
        }
        w >>= 1;
        at += 1;
    }
    64
}

/// [`select`] by the parallel bit deposit: the `r`-th set bit of `w` receives bit `r` of `1 << r`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
#[inline]
unsafe fn select_bmi2(w: u64, r: u32) -> u32 {
    if r >= 64 {
        return 64;
    }
    std::arch::x86_64::_pdep_u64(1 << r, w).trailing_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn transposing_swaps_rows_and_columns(rows in proptest::collection::vec(any::<[u64; 3]>(), 64)) {
            let mut m: [[u64; 3]; 64] = rows.clone().try_into().unwrap();
            transpose(&mut m);
            for (t, row) in rows.iter().enumerate() {
                for (c, column) in m.iter().enumerate() {
                    for k in 0..3 {
                        prop_assert_eq!(column[k] >> t & 1, row[k] >> c & 1);
                    }
                }
            }
        }

        #[test]
        fn select_finds_the_bit_with_so_many_below(w in any::<u64>(), r in 0u32..70) {
            let expected = (0..64).filter(|&i| w >> i & 1 == 1).nth(r as usize).map_or(64, |i| i as u32);
            prop_assert_eq!(select(w, r), expected);
            prop_assert_eq!(select_portable(w, r), expected);
        }
    }

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
