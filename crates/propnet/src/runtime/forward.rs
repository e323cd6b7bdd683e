//! Forward differential propagation (after Sancho): one marking of the whole net is kept up to
//! date, and only the propositions that change are pushed forward.
//!
//! Each acyclic gate counts its false inputs and is true exactly when the count is zero, so a
//! changed slot costs one counter update per reader and a gate is re-propagated only when its
//! value flips. Events are processed first in, first out, so every reader sees a slot's changes in
//! order and its counter stays within range. Recursive blocks cannot be maintained by counters
//! (a loop could keep itself true after losing its support), so a change reaching a block marks
//! it dirty; once the acyclic propagation has settled, dirty blocks are recomputed from scratch in
//! evaluation order, each once its inputs are final.

use super::eval;
use super::program::{Lit, Phase, Program};
use structures::{bits, Bits};

/// One marking of the net with its counters.
#[derive(Debug, Clone)]
pub(crate) struct Forward {
    /// Per slot, its current value.
    value: Vec<bool>,
    /// Per gate, how many of its literals are false (unused for block gates).
    false_inputs: Vec<u32>,
    /// Changed slots with their new value in bit 0, since the last `set_state` or `set_moves`
    /// began: a FIFO whose unprocessed part starts at `head`, kept once processed as the record
    /// of what the change touched (see [`changed`](Self::changed)).
    queue: Vec<u32>,
    head: usize,
    /// The bases as a bitset, to find the ones a new state changes word by word.
    bases: Vec<u64>,
    /// Per block, whether it must be recomputed.
    dirty: Vec<bool>,
    /// Dirty blocks (indices), unordered.
    dirty_list: Vec<u32>,
    /// The inputs currently set.
    moves: Vec<u32>,
    /// The next value of every base (bit i: base i's `next` literal), kept up to date.
    next: Vec<u64>,
    /// Whether each input is legal (bit j: input j's `legal` literal), kept up to date.
    legal: Vec<u64>,
    /// Whether the bases changed since the goal gates were last evaluated: they are not
    /// propagated (a goal is asked for rarely, and counting goals can be most of the net).
    goals_stale: bool,
}

impl Forward {
    /// The marking with every base and input false.
    pub fn new(p: &Program) -> Forward {
        let mut words = vec![[0u64; 1]; p.slots];
        for phase in Phase::EVALUATED {
            eval::run(p, phase, &mut words);
        }
        let value: Vec<bool> = words.iter().map(|&[w]| w & 1 == 1).collect();
        let lit = |l: Lit| value[(l >> 1) as usize] ^ (l & 1 == 1);
        let false_inputs =
            (0..p.slots - p.first_gate).map(|g| p.gate_inputs(g).iter().filter(|&&l| !lit(l)).count() as u32).collect();
        let bitset = |lits: &[Lit]| {
            let mut words = vec![0u64; bits::words(lits.len())];
            lits.iter().enumerate().filter(|&(_, &l)| lit(l)).for_each(|(i, _)| words.set_bit(i));
            words
        };
        let (next, legal) = (bitset(&p.next), bitset(&p.legal));
        Forward {
            value,
            false_inputs,
            queue: Vec::new(),
            head: 0,
            bases: vec![0; p.base_count().div_ceil(64)],
            dirty: vec![false; p.blocks.len()],
            dirty_list: Vec::new(),
            moves: Vec::new(),
            next,
            legal,
            goals_stale: false,
        }
    }

    /// Brings the goal gates up to date; call before reading a goal literal.
    pub fn refresh_goals(&mut self, p: &Program) {
        if !std::mem::replace(&mut self.goals_stale, false) {
            return;
        }
        let first = p.first_gate;
        for seg in &p.goal_phase {
            if seg.cyclic {
                for g in seg.gates.clone() {
                    self.value[first + g] = p.block_init[g];
                }
            }
            // One sweep settles an acyclic run; a block needs at most len + 1 (see `eval::run`).
            let sweeps = if seg.cyclic { seg.gates.len() + 1 } else { 1 };
            for _ in 0..sweeps {
                let mut changed = false;
                for g in seg.gates.clone() {
                    let v = p.gate_inputs(g).iter().all(|&l| self.lit(l));
                    changed |= v != self.value[first + g];
                    self.value[first + g] = v;
                }
                if !changed {
                    break;
                }
            }
        }
    }

    /// The value of every slot (of goal gates only after [`refresh_goals`](Self::refresh_goals)).
    pub fn values(&self) -> &[bool] {
        &self.value
    }

    /// The next value of every base as a bitset (bit i: base i), as the marking has it.
    pub fn next(&self) -> &[u64] {
        &self.next
    }

    /// Which inputs are legal as a bitset (bit j: input j), as the marking has it.
    pub fn legal(&self) -> &[u64] {
        &self.legal
    }

    /// The current value of literal `l` (of a goal literal only after
    /// [`refresh_goals`](Self::refresh_goals)).
    #[inline]
    pub fn lit(&self, l: Lit) -> bool {
        self.value[(l >> 1) as usize] ^ (l & 1 == 1)
    }

    /// Makes the marking's bases those of `state` (a bitset) and propagates the differences.
    pub fn set_state(&mut self, p: &Program, state: &[u64]) {
        self.begin();
        let nb = p.base_count();
        for (k, (held, &wanted)) in self.bases.iter_mut().zip(state).enumerate() {
            // Bits past the last base name no proposition (a state made for another net).
            let valid = if nb - k * 64 >= 64 { !0 } else { (1u64 << (nb - k * 64)) - 1 };
            let wanted = wanted & valid;
            let mut diff = *held ^ wanted;
            *held = wanted;
            while diff != 0 {
                let i = k * 64 + diff.trailing_zeros() as usize;
                diff &= diff - 1;
                let s = Program::base_slot(i);
                self.goals_stale = true;
                let v = !self.value[s];
                self.value[s] = v;
                self.queue.push(((s as u32) << 1) | v as u32);
            }
        }
        self.settle(p);
    }

    /// Starts a new change: forgets the record of the last.
    fn begin(&mut self) {
        self.queue.clear();
        self.head = 0;
    }

    /// The next event to propagate, if any.
    #[inline]
    fn pop(&mut self) -> Option<u32> {
        let e = self.queue.get(self.head).copied();
        self.head += usize::from(e.is_some());
        e
    }

    /// The slots whose value the last [`set_state`](Self::set_state) or
    /// [`set_moves`](Self::set_moves) changed, in the order they changed; a slot that changed
    /// more than once (and maybe back) comes as often. Each slot not named kept its value.
    pub fn changed(&self) -> impl Iterator<Item = usize> + '_ {
        self.queue.iter().map(|&e| (e >> 1) as usize)
    }

    /// Makes `moves` (input indices) the inputs that are set, and propagates.
    pub fn set_moves(&mut self, p: &Program, moves: &[u32]) {
        self.begin();
        for k in 0..self.moves.len() {
            let m = self.moves[k];
            if !moves.contains(&m) {
                self.flip(p.input_slot(m as usize), false);
            }
        }
        for &m in moves {
            if !self.moves.contains(&m) {
                self.flip(p.input_slot(m as usize), true);
            }
        }
        self.moves.clear();
        self.moves.extend_from_slice(moves);
        self.settle(p);
    }

    /// Sets slot `s` to `v` without propagating yet.
    fn flip(&mut self, s: usize, v: bool) {
        if self.value[s] != v {
            self.value[s] = v;
            self.queue.push(((s as u32) << 1) | v as u32);
        }
    }

    /// Propagates every queued change, then recomputes dirty blocks in order.
    fn settle(&mut self, p: &Program) {
        loop {
            while let Some(e) = self.pop() {
                self.propagate(p, (e >> 1) as usize, e & 1 == 1);
            }
            // Blocks are numbered in evaluation order, so the lowest dirty block's inputs are
            // final once the queue is empty.
            let Some((k, &b)) = self.dirty_list.iter().enumerate().min_by_key(|&(_, &b)| b) else { break };
            self.dirty_list.swap_remove(k);
            self.dirty[b as usize] = false;
            self.recompute_block(p, b as usize);
        }
    }

    /// Tells the readers of slot `s` that it became `v`.
    #[inline]
    fn propagate(&mut self, p: &Program, s: usize, v: bool) {
        for &o in p.outputs_of(s) {
            let set = if o & 2 == 0 { &mut self.next } else { &mut self.legal };
            set.assign_bit((o >> 2) as usize, v ^ (o & 1 == 1));
        }
        for &b in p.reading_blocks(s) {
            if !self.dirty[b as usize] {
                self.dirty[b as usize] = true;
                self.dirty_list.push(b);
            }
        }
        let first = p.first_gate;
        for &r in p.readers(s) {
            let g = (r >> 1) as usize;
            let now_true = v ^ (r & 1 == 1);
            let c = &mut self.false_inputs[g];
            let flipped = if now_true {
                *c -= 1;
                *c == 0
            } else {
                *c += 1;
                *c == 1
            };
            if flipped {
                let out = first + g;
                self.value[out] = now_true;
                self.queue.push(((out as u32) << 1) | now_true as u32);
            }
        }
    }

    /// Recomputes block `b` from its initial values to its least fixpoint and queues the gates
    /// that changed.
    fn recompute_block(&mut self, p: &Program, b: usize) {
        let first = p.first_gate;
        let range = p.blocks[b].clone();
        let old: Vec<bool> = self.value[first + range.start..first + range.end].to_vec();
        for g in range.clone() {
            self.value[first + g] = p.block_init[g];
        }
        // Monotone, so stable after len + 1 sweeps (see `eval::run`).
        for _ in 0..=range.len() {
            let mut changed = false;
            for g in range.clone() {
                let v = p.gate_inputs(g).iter().all(|&l| self.lit(l));
                changed |= v != self.value[first + g];
                self.value[first + g] = v;
            }
            if !changed {
                break;
            }
        }
        for (k, g) in range.enumerate() {
            let v = self.value[first + g];
            if v != old[k] {
                self.queue.push((((first + g) as u32) << 1) | v as u32);
            }
        }
        self.settle_queue_only(p);
    }

    /// Drains the event queue (blocks stay for [`settle`](Self::settle) to pick up).
    fn settle_queue_only(&mut self, p: &Program) {
        while let Some(e) = self.pop() {
            self.propagate(p, (e >> 1) as usize, e & 1 == 1);
        }
    }
}
