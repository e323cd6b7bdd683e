//! Word-wide evaluation of program phases: each slot holds `W` words whose 64·W bits are as many
//! independent markings (lanes), so one pass over the gates evaluates 64·W states at once. Wider
//! slots cost the same loads and loop steps per gate input for more lanes: on speedChess one
//! pass costs 31 µs per 64 lanes one word wide and 10 µs four words wide (the portable loop).
//! Slots of four words or more are evaluated with vector registers where the processor has them
//! ([`simd`](super::simd)).

use super::program::{Lit, Phase, Program};
use super::simd::Simd;

/// All ones when `l` is negated, else zero: XOR it onto the slot's word to read the literal.
#[inline(always)]
pub(crate) fn neg_mask(l: Lit) -> u64 {
    u64::from(l & 1).wrapping_neg()
}

/// The lanes of literal `l`.
#[inline(always)]
pub(crate) fn read<const W: usize>(vals: &[[u64; W]], l: Lit) -> [u64; W] {
    let (x, m) = (vals[(l >> 1) as usize], neg_mask(l));
    std::array::from_fn(|k| x[k] ^ m)
}

/// Evaluates the gates of `phase` in order, reading and writing `vals` (one slot each): acyclic
/// runs by their native code where the program has it, the rest interpreted.
pub(crate) fn run<const W: usize>(p: &Program, phase: Phase, vals: &mut [[u64; W]]) {
    run_with(p, phase, vals, Simd::best());
}

/// [`run`] with acyclic runs that have no native code evaluated with `simd`'s instructions
/// (the portable loop where the processor lacks them).
pub(crate) fn run_with<const W: usize>(p: &Program, phase: Phase, vals: &mut [[u64; W]], simd: Simd) {
    assert!(vals.len() >= p.slots, "a marking of {} slots for a program of {}", vals.len(), p.slots);
    // Native code exists for one word per slot only (see `native`).
    let native = if W == 1 { p.native() } else { None };
    for (k, seg) in p.segments(phase).iter().enumerate() {
        if !seg.cyclic {
            match native {
                Some(code) => {
                    for run in code.runs(phase, k) {
                        // SAFETY: the code reads and writes the program's slots, one word each
                        // at `8 * slot` bytes (`W` is 1 here), and `vals` has them all (asserted
                        // above).
                        unsafe { run(vals.as_mut_ptr().cast::<u64>()) }
                    }
                }
                None => {
                    if !simd.straight(p, seg.gates.start, seg.gates.end, vals) {
                        run_straight(p, seg.gates.start, seg.gates.end, vals);
                    }
                }
            }
            continue;
        }
        // Least fixpoint: start every gate from its initial value and sweep until stable; the
        // gates are monotone (stratified GDL), so this converges lane by lane.
        for g in seg.gates.clone() {
            vals[p.out_slot[g] as usize] = [if p.block_init[g] { !0 } else { 0 }; W];
        }
        // Each gate of a monotone block changes at most once per lane, so it is stable after
        // len + 1 sweeps; only a net with a NOT inside recursion (never built from valid GDL)
        // could oscillate, and the cap keeps that from hanging.
        for _ in 0..=seg.gates.len() {
            let mut changed = 0u64;
            for g in seg.gates.clone() {
                let v = gate(p, g, vals);
                let out = p.out_slot[g] as usize;
                changed |= (0..W).fold(0, |c, k| c | (v[k] ^ vals[out][k]));
                vals[out] = v;
            }
            if changed == 0 {
                break;
            }
        }
    }
}

/// Evaluates an acyclic run of gates: the hot loop of every bit-sliced playout.
#[inline]
fn run_straight<const W: usize>(p: &Program, start: usize, end: usize, vals: &mut [[u64; W]]) {
    let mut lo = p.fanin_start[start] as usize;
    for g in start..end {
        let hi = p.fanin_start[g + 1] as usize;
        let mut v = [!0u64; W];
        for &l in &p.fanin[lo..hi] {
            // SAFETY: `Program::new` checks that every gate input names a slot below
            // `p.slots`, and `run` that `vals` has that many; the bounds check left out is a
            // tenth of the loop.
            let x = unsafe { vals.get_unchecked((l >> 1) as usize) };
            let m = neg_mask(l);
            for k in 0..W {
                v[k] &= x[k] ^ m;
            }
        }
        vals[p.out_slot[g] as usize] = v;
        lo = hi;
    }
}

/// The lanes of gate `g` computed from its inputs.
#[inline]
fn gate<const W: usize>(p: &Program, g: usize, vals: &[[u64; W]]) -> [u64; W] {
    p.gate_inputs(g).iter().fold([!0u64; W], |v, &l| {
        let x = read(vals, l);
        std::array::from_fn(|k| v[k] & x[k])
    })
}
