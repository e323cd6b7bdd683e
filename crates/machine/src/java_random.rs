//! An exact reimplementation of `java.util.Random`, the generator the reference trajectories were
//! recorded with (see `/work/shared/reference/README.md`, "Move choice").
//!
//! Java's generator is a 48-bit linear congruential generator: `seed = seed * 0x5DEECE66D + 0xB`
//! modulo 2^48, and `next(bits)` returns the top `bits` bits of the new seed. `nextInt(bound)` takes
//! 31 bits and either scales them (power-of-two bounds) or reduces them modulo `bound`, rejecting
//! the draws that would bias the result.

/// The LCG multiplier of `java.util.Random`.
const MULTIPLIER: u64 = 0x5_DEEC_E66D;
/// The LCG increment of `java.util.Random`.
const ADDEND: u64 = 0xB;
/// The 48-bit state mask of `java.util.Random`.
const MASK: u64 = (1 << 48) - 1;

/// A `java.util.Random` producing exactly the values Java does for the same seed and calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaRandom {
    seed: u64,
}

impl JavaRandom {
    /// The generator Java's `new Random(seed)` creates.
    pub fn new(seed: i64) -> Self {
        // Java scrambles the seed with the multiplier; `as u64` keeps the two's-complement bits.
        JavaRandom { seed: (seed as u64 ^ MULTIPLIER) & MASK }
    }

    /// Java's `next(bits)`: advance the state and return its top `bits` bits (`bits` in 1..=32).
    ///
    /// Like Java, the result is the 32-bit pattern reinterpreted as `i32`, so `next(32)` may be
    /// negative; `bits` above 32 are treated as 32.
    pub fn next(&mut self, bits: u32) -> i32 {
        self.seed = self.seed.wrapping_mul(MULTIPLIER).wrapping_add(ADDEND) & MASK;
        let bits = bits.clamp(1, 32);
        // Java: (int) (seed >>> (48 - bits)); the cast keeps the low 32 bits.
        (self.seed >> (48 - bits)) as u32 as i32
    }

    /// Java's `nextInt()`: a uniformly distributed `i32`.
    pub fn next_i32(&mut self) -> i32 {
        self.next(32)
    }

    /// Java's `nextInt(bound)`: uniform in `0..bound`; `None` (state untouched) when `bound <= 0`,
    /// where Java throws `IllegalArgumentException`.
    pub fn next_int(&mut self, bound: i32) -> Option<i32> {
        if bound <= 0 {
            return None;
        }
        let r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            // Power of two: take the high bits, (int) ((bound * (long) r) >> 31).
            return Some(((i64::from(bound) * i64::from(r)) >> 31) as i32);
        }
        Some(self.reject_biased(r, bound))
    }

    /// Java's rejection loop for a bound that is not a power of two: redraw while the draw falls
    /// into the incomplete last block of `bound` values (detected by `i32` overflow, as in Java).
    fn reject_biased(&mut self, first: i32, bound: i32) -> i32 {
        let m = bound - 1;
        let mut u = first;
        loop {
            let r = u % bound;
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }

    /// An index into a list of `len` items, drawn as `nextInt(len)`; `None` when `len` is 0 or
    /// does not fit Java's `int`.
    pub fn next_index(&mut self, len: usize) -> Option<usize> {
        let bound = i32::try_from(len).ok()?;
        let r = self.next_int(bound)?;
        usize::try_from(r).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first `n` values of `new Random(seed).nextInt(bound)`.
    fn ints(seed: i64, bound: i32, n: usize) -> Vec<i32> {
        let mut r = JavaRandom::new(seed);
        (0..n).map(|_| r.next_int(bound).expect("positive bound")).collect()
    }

    // Expected values below were printed by OpenJDK's java.util.Random.

    #[test]
    fn next_int_small_bounds() {
        assert_eq!(ints(42, 10, 10), [0, 3, 8, 4, 0, 5, 5, 8, 9, 3]);
        assert_eq!(ints(1, 100, 10), [85, 88, 47, 13, 54, 4, 34, 6, 78, 48]);
    }

    #[test]
    fn next_int_power_of_two_fast_path() {
        assert_eq!(ints(0, 16, 10), [11, 13, 3, 9, 10, 4, 8, 1, 9, 12]);
        assert_eq!(ints(-5, 1 << 30, 6), [289159705, 390233360, 358728976, 368998164, 408982676, 743089692]);
        assert_eq!(ints(7, 1, 3), [0, 0, 0]);
    }

    #[test]
    fn next_int_large_bounds() {
        assert_eq!(
            ints(123456789, 1_000_000_007, 6),
            [426010958, 639209593, 981296483, 547328344, 838606290, 465137554]
        );
        assert_eq!(ints(99, i32::MAX, 5), [1551465787, 836448458, 745722429, 1525423011, 1751643300]);
    }

    #[test]
    fn rejection_loop_consumes_like_java() {
        // Bound 2^30 + 1 rejects about half of all draws, so the state after 8 calls only matches
        // Java's if every rejection consumed exactly one extra draw.
        let mut r = JavaRandom::new(3);
        let got: Vec<i32> = (0..8).map(|_| r.next_int((1 << 30) + 1).expect("positive bound")).collect();
        assert_eq!(got, [152454210, 144139128, 488197459, 757666882, 142793614, 64032981, 883832806, 290368137]);
        assert_eq!(r.next_i32(), -234435524);
    }

    #[test]
    fn next_i32_matches_java() {
        let mut r = JavaRandom::new(42);
        let got: Vec<i32> = (0..5).map(|_| r.next_i32()).collect();
        assert_eq!(got, [-1170105035, 234785527, -1360544799, 205897768, 1325939940]);
        let mut r = JavaRandom::new(i64::MIN);
        let got: Vec<i32> = (0..3).map(|_| r.next_i32()).collect();
        assert_eq!(got, [-1155484576, -723955400, 1033096058]);
    }

    #[test]
    fn invalid_bounds_are_refused_without_advancing() {
        let mut r = JavaRandom::new(5);
        assert_eq!(r.next_int(0), None);
        assert_eq!(r.next_int(-3), None);
        assert_eq!(r.next_index(0), None);
        assert_eq!(r, JavaRandom::new(5));
    }

    #[test]
    fn reproduces_recorded_move_choices() {
        // (number of legal moves, index chosen) per role per step, from the reference files
        // ticTacToe.jsonl seed 1 and connectFour.jsonl seed 2 (bounds 8 and 1 take the fast path).
        let tic_tac_toe = [
            (9, 6),
            (1, 0),
            (1, 0),
            (8, 3),
            (7, 6),
            (1, 0),
            (1, 0),
            (6, 4),
            (5, 3),
            (1, 0),
            (1, 0),
            (4, 0),
            (3, 1),
            (1, 0),
        ];
        let connect_four = [
            (8, 5),
            (1, 0),
            (1, 0),
            (8, 0),
            (8, 3),
            (1, 0),
            (1, 0),
            (8, 0),
            (8, 6),
            (1, 0),
            (1, 0),
            (8, 3),
            (8, 1),
            (1, 0),
        ];
        for (seed, choices) in [(1, &tic_tac_toe), (2, &connect_four)] {
            let mut r = JavaRandom::new(seed);
            for &(len, index) in choices {
                assert_eq!(r.next_index(len), Some(index), "seed {seed}");
            }
        }
    }
}
