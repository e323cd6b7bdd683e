//! Vector instructions for wide markings: an acyclic run of gates evaluated with 256- or 512-bit
//! registers, each gate input one load and one or two logic instructions for all of a slot's
//! lanes, and markings whose slots start on cache lines.
//!
//! The portable loop in [`eval`](super::eval) reads a slot's words 128 bits at a time, an XOR
//! and an AND for each; here a 512-bit register holds eight words, read and combined by one
//! `vpternlogq`. Compilers left to vectorise the portable loop for these targets gather across
//! gate inputs instead, which is slower than not vectorising at all; hence the intrinsics.
//!
//! A marking larger than the processor's second-level cache (chess's is 36 MB at sixteen words a
//! slot) makes the pass wait on memory: most of its time went to reads of inputs evaluated far
//! earlier in the pass. The kernels then ask for the slot of an input a few dozen inputs on while
//! they combine this one, so that many such reads are under way at once.

use super::program::Program;

/// The marking size, in bytes, from which the kernels prefetch: below it the slots mostly sit in
/// the second-level cache already, and the prefetches cost reversi and checkers (1.3 MB and 0.3 MB
/// at eight words) a twentieth of their speed; skirmish (5 MB) neither gains nor loses. Only the
/// x86-64 kernels prefetch.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) const PREFETCH_MARKING: usize = 4 << 20;

/// The vector instructions wide markings are evaluated with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Simd {
    /// Whatever the compiler makes of the portable loop for the build's target.
    Portable,
    /// 256-bit registers (x86-64 with AVX2): slots of a multiple of four words.
    Avx2,
    /// 512-bit registers (x86-64 with AVX-512F): slots of a multiple of eight words.
    Avx512,
}

impl Simd {
    /// The widest this processor has (detected once, then a load of a cached flag).
    #[inline]
    pub(crate) fn best() -> Simd {
        Simd::available().last().unwrap_or(Simd::Portable)
    }

    /// Every kind this processor can run, narrowest first.
    pub(crate) fn available() -> impl Iterator<Item = Simd> + Clone {
        [Simd::Portable, Simd::Avx2, Simd::Avx512].into_iter().filter(|s| s.runs_here())
    }

    fn runs_here(self) -> bool {
        match self {
            Simd::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// Evaluates gates `start..end` (an acyclic run) into `vals` with these instructions, if
    /// they suit slots of `W` words and the processor has them; false (nothing done) if not.
    #[inline]
    pub(crate) fn straight<const W: usize>(self, p: &Program, start: usize, end: usize, vals: &mut [[u64; W]]) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            // Checking the processor here costs a load of a cached flag per run of gates, and
            // keeps a `Simd` the processor lacks from ever reaching the kernels.
            let far = std::mem::size_of_val(vals) >= PREFETCH_MARKING;
            if self == Simd::Avx512 && W.is_multiple_of(8) && W <= 8 * x86::MAX_REGS && self.runs_here() {
                // SAFETY: AVX-512F is there (checked), and the slots are whole registers.
                unsafe {
                    match far {
                        true => x86::avx512::<W, true>(p, start, end, vals),
                        false => x86::avx512::<W, false>(p, start, end, vals),
                    }
                };
                return true;
            }
            if self != Simd::Portable && W.is_multiple_of(4) && W <= 4 * x86::MAX_REGS && Simd::Avx2.runs_here() {
                // SAFETY: as above, with AVX2.
                unsafe {
                    match far {
                        true => x86::avx2::<W, true>(p, start, end, vals),
                        false => x86::avx2::<W, false>(p, start, end, vals),
                    }
                };
                return true;
            }
        }
        let _ = (p, start, end, vals);
        false
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::eval::neg_mask;
    use super::super::program::Program;
    use std::arch::x86_64::*;

    /// How many gate inputs ahead the kernels prefetch on large markings: on chess 32 and 64
    /// ran as fast as each other, 8 and 16 slower, 128 and more slower again.
    const PREFETCH_AHEAD: usize = 48;

    /// Registers one gate's lanes may take: slots of up to 32 words (2,048 lanes).
    pub(super) const MAX_REGS: usize = 4;

    /// A vector register of words and what a gate does with it. The methods are inlined into
    /// the kernels, which enable the instructions they use.
    trait Reg: Copy {
        /// Words a register holds.
        const WORDS: usize;
        /// # Safety
        /// The processor has the register's instructions (for every method).
        unsafe fn splat(word: i64) -> Self;
        /// `self & (x ^ mask)`: a gate's lanes so far, AND the literal read with `mask`.
        unsafe fn and_read(self, x: Self, mask: Self) -> Self;
        /// # Safety
        /// `at` holds `WORDS` words (for `store` too).
        unsafe fn load(at: *const u64) -> Self;
        unsafe fn store(self, at: *mut u64);
    }

    impl Reg for __m512i {
        const WORDS: usize = 8;
        #[inline(always)]
        unsafe fn splat(word: i64) -> Self {
            unsafe { _mm512_set1_epi64(word) }
        }
        #[inline(always)]
        unsafe fn and_read(self, x: Self, mask: Self) -> Self {
            // One `vpternlogq`: 0xf0 & (0xcc ^ 0xaa).
            unsafe { _mm512_ternarylogic_epi64::<0x60>(self, x, mask) }
        }
        #[inline(always)]
        unsafe fn load(at: *const u64) -> Self {
            unsafe { _mm512_loadu_si512(at.cast()) }
        }
        #[inline(always)]
        unsafe fn store(self, at: *mut u64) {
            unsafe { _mm512_storeu_si512(at.cast(), self) }
        }
    }

    impl Reg for __m256i {
        const WORDS: usize = 4;
        #[inline(always)]
        unsafe fn splat(word: i64) -> Self {
            unsafe { _mm256_set1_epi64x(word) }
        }
        #[inline(always)]
        unsafe fn and_read(self, x: Self, mask: Self) -> Self {
            unsafe { _mm256_and_si256(self, _mm256_xor_si256(x, mask)) }
        }
        #[inline(always)]
        unsafe fn load(at: *const u64) -> Self {
            unsafe { _mm256_loadu_si256(at.cast()) }
        }
        #[inline(always)]
        unsafe fn store(self, at: *mut u64) {
            unsafe { _mm256_storeu_si256(at.cast(), self) }
        }
    }

    /// Evaluates gates `start..end` with registers `R`, `W / R::WORDS` of them a slot: each
    /// gate input one load and one `and_read` a register, and with `PREFETCH` a prefetch of the
    /// slot [`PREFETCH_AHEAD`] inputs on.
    ///
    /// # Safety
    /// The processor has `R`'s instructions, `W` is a multiple of `R::WORDS` and at most
    /// `R::WORDS * MAX_REGS`, and `vals` has the program's slots, which every gate input and
    /// every gate's `out_slot` name (as `eval::run` asserts).
    #[inline(always)]
    unsafe fn kernel<R: Reg, const W: usize, const PREFETCH: bool>(
        p: &Program,
        start: usize,
        end: usize,
        vals: &mut [[u64; W]],
    ) {
        let regs = W / R::WORDS;
        let words = vals.as_mut_ptr().cast::<u64>();
        let mut lo = p.fanin_start[start] as usize;
        for g in start..end {
            let hi = p.fanin_start[g + 1] as usize;
            // SAFETY (every block below): the caller's promises.
            let mut acc = [unsafe { R::splat(-1) }; MAX_REGS];
            for (k, &l) in p.fanin[lo..hi].iter().enumerate() {
                // Every literal names a slot of `vals`, so the prefetched lines are the marking's.
                if let Some(&ahead) = p.fanin.get(lo + k + PREFETCH_AHEAD).filter(|_| PREFETCH) {
                    let at = unsafe { words.add((ahead >> 1) as usize * W) };
                    for line in (0..W).step_by(8) {
                        unsafe { _mm_prefetch::<_MM_HINT_T0>(at.add(line).cast()) };
                    }
                }
                let (at, mask) = ((l >> 1) as usize * W, unsafe { R::splat(neg_mask(l) as i64) });
                for (r, a) in acc[..regs].iter_mut().enumerate() {
                    *a = unsafe { a.and_read(R::load(words.add(at + R::WORDS * r)), mask) };
                }
            }
            let out = p.out_slot[g] as usize * W;
            for (r, a) in acc[..regs].iter().enumerate() {
                unsafe { a.store(words.add(out + R::WORDS * r)) };
            }
            lo = hi;
        }
    }

    /// [`kernel`] with 512-bit registers.
    ///
    /// # Safety
    /// As for [`kernel`], with AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn avx512<const W: usize, const PREFETCH: bool>(
        p: &Program,
        start: usize,
        end: usize,
        vals: &mut [[u64; W]],
    ) {
        unsafe { kernel::<__m512i, W, PREFETCH>(p, start, end, vals) }
    }

    /// [`kernel`] with 256-bit registers.
    ///
    /// # Safety
    /// As for [`kernel`], with AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn avx2<const W: usize, const PREFETCH: bool>(
        p: &Program,
        start: usize,
        end: usize,
        vals: &mut [[u64; W]],
    ) {
        unsafe { kernel::<__m256i, W, PREFETCH>(p, start, end, vals) }
    }
}

/// A cache line of words.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct Line([u64; 8]);

/// A marking of `W` words a slot whose first slot starts a cache line: a slot of eight words or
/// more is then whole lines, read by whole-line loads (an allocation of the standard library
/// starts 16 bytes into a line, splitting every such load in two).
#[derive(Debug, Clone)]
pub(crate) struct Marking<const W: usize> {
    lines: Vec<Line>,
    slots: usize,
}

impl<const W: usize> Marking<W> {
    /// `slots` slots, every word zero.
    pub(crate) fn new(slots: usize) -> Marking<W> {
        Marking { lines: vec![Line([0; 8]); (slots * W).div_ceil(8)], slots }
    }
}

impl<const W: usize> std::ops::Deref for Marking<W> {
    type Target = [[u64; W]];

    fn deref(&self) -> &[[u64; W]] {
        // SAFETY: the lines hold at least `slots * W` initialised words, and a line's alignment
        // is a multiple of a word's.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast(), self.slots) }
    }
}

impl<const W: usize> std::ops::DerefMut for Marking<W> {
    fn deref_mut(&mut self) -> &mut [[u64; W]] {
        // SAFETY: as for `deref`, borrowed mutably.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast(), self.slots) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marking_starts_a_cache_line_and_reads_back_what_was_written() {
        let mut m = Marking::<3>::new(5);
        assert_eq!(m.as_ptr() as usize % 64, 0);
        assert_eq!(m.len(), 5);
        m[4] = [1, 2, 3];
        m[0][0] = 9;
        assert_eq!((m[4], m[0], m[2]), ([1, 2, 3], [9, 0, 0], [0, 0, 0]));
        let copy = m.clone();
        assert_eq!(&copy[..], &m[..]);
        assert_eq!(copy.as_ptr() as usize % 64, 0);
    }
}
