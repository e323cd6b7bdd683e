//! Word-wide evaluation of program phases: each slot holds a `u64` whose 64 bits are 64
//! independent markings (lanes), so one pass over the gates evaluates 64 states at once.

use super::program::{Lit, Program, Segment};

/// All ones when `l` is negated, else zero: XOR it onto the slot's word to read the literal.
#[inline(always)]
pub(crate) fn neg_mask(l: Lit) -> u64 {
    u64::from(l & 1).wrapping_neg()
}

/// The 64 lanes of literal `l`.
#[inline(always)]
pub(crate) fn read(vals: &[u64], l: Lit) -> u64 {
    vals[(l >> 1) as usize] ^ neg_mask(l)
}

/// Evaluates the gates of `segments` in order, reading and writing `vals` (one word per slot).
pub(crate) fn run(p: &Program, segments: &[Segment], vals: &mut [u64]) {
    let first = p.first_gate;
    for seg in segments {
        if !seg.cyclic {
            run_straight(p, seg.gates.start, seg.gates.end, vals);
            continue;
        }
        // Least fixpoint: start every gate from its initial value and sweep until stable; the
        // gates are monotone (stratified GDL), so this converges lane by lane.
        for g in seg.gates.clone() {
            vals[first + g] = if p.block_init[g] { !0 } else { 0 };
        }
        // Each gate of a monotone block changes at most once per lane, so it is stable after
        // len + 1 sweeps; only a net with a NOT inside recursion (never built from valid GDL)
        // could oscillate, and the cap keeps that from hanging.
        for _ in 0..=seg.gates.len() {
            let mut changed = 0u64;
            for g in seg.gates.clone() {
                let v = gate(p, g, vals);
                changed |= v ^ vals[first + g];
                vals[first + g] = v;
            }
            if changed == 0 {
                break;
            }
        }
    }
}

/// Evaluates an acyclic run of gates.
#[inline]
fn run_straight(p: &Program, start: usize, end: usize, vals: &mut [u64]) {
    let first = p.first_gate;
    let mut lo = p.fanin_start[start] as usize;
    for g in start..end {
        let hi = p.fanin_start[g + 1] as usize;
        let mut v = !0u64;
        for &l in &p.fanin[lo..hi] {
            v &= read(vals, l);
        }
        vals[first + g] = v;
        lo = hi;
    }
}

/// The 64 lanes of gate `g` computed from its inputs.
#[inline]
fn gate(p: &Program, g: usize, vals: &[u64]) -> u64 {
    p.gate_inputs(g).iter().fold(!0u64, |v, &l| v & read(vals, l))
}
