//! Programs whose gates share slots, for wide bit-sliced passes.
//!
//! A pass over a program writes every gate's slot, and at sixteen words a slot chess's marking
//! is 36 MB: every write misses the caches, and so do the reads of inputs written far earlier.
//! Yet most gates are read only by a few gates soon after them. A packed program gives a gate's
//! slot to a later gate once the last gate that reads it has run, as a register allocator
//! would: chess's turn programs then need about 42,000 gate slots instead of 318,000, a marking
//! the processor's caches mostly hold, and the slot a gate writes is usually one just read.
//!
//! What the runner reads after a pass keeps a slot of its own: the outputs (legal, next,
//! terminal, goals), laid out in gate order ahead of the shared slots, so that the legal outputs
//! that close the core phase stay one sweep. Recursive blocks keep theirs too (their gates are
//! read while the block iterates). Bases and inputs keep their slots, so a packed program runs
//! on the same start states and moves as the program it came from. Gates of a phase that is
//! skipped may find their slots taken by later phases: a packed program is only ever evaluated
//! phase by phase in order (core, then goal or move), as the runners do.
//!
//! [`Program::wide`] packs a program the first time a wide pass asks for it (0.2–0.3 s on
//! chess, a few milliseconds on most games), so a match whose player runs no wide playouts
//! never spends its start clock on it.

use super::program::{Lit, Program};
use std::sync::{Arc, OnceLock};

impl Program {
    /// This program with gate slots shared (see the module), its turn programs packed too; no
    /// native code, and no fan-out (it is evaluated whole, never propagated). `None` where
    /// outputs read inputs: the runner then evaluates the move phase before the core phase.
    pub(crate) fn packed(&self) -> Option<Program> {
        if self.outputs_read_inputs {
            return None;
        }
        let turns = self.turns.as_ref().map(|t| Arc::new(t.map(Program::with_shared_slots)));
        Some(Program { turns, ..self.with_shared_slots() })
    }

    /// Every literal the runners read after a pass: legal, next, terminal and goals.
    fn outputs(&self) -> impl Iterator<Item = Lit> + '_ {
        let state = self.legal.iter().chain(&self.next).chain([&self.terminal]);
        state.chain(self.goals.iter().flatten().map(|(_, l)| l)).copied()
    }

    /// This program's gates given shared slots, most recently freed first.
    fn with_shared_slots(&self) -> Program {
        let first = self.first_gate;
        let ng = self.slots - first;
        let gate = |l: Lit| ((l >> 1) as usize).checked_sub(first);
        let mut own = vec![false; ng];
        for l in self.outputs() {
            if let Some(g) = gate(l) {
                own[g] = true;
            }
        }
        self.blocks.iter().flat_map(Clone::clone).for_each(|g| own[g] = true);
        // The last gate that reads each gate (itself where none does).
        let mut last: Vec<u32> = (0..ng as u32).collect();
        for g in 0..ng {
            for h in self.gate_inputs(g).iter().filter_map(|&l| gate(l)) {
                last[h] = g as u32;
            }
        }
        let owned = own.iter().filter(|&&o| o).count();
        let (mut next_own, mut top) = (first, first + owned);
        let mut free: Vec<u32> = Vec::new();
        let mut slot = vec![0u32; ng];
        for g in 0..ng {
            slot[g] = if own[g] {
                next_own += 1;
                (next_own - 1) as u32
            } else {
                free.pop().unwrap_or_else(|| {
                    top += 1;
                    (top - 1) as u32
                })
            };
            // Once g has read them, inputs read by no later gate give their slots back (each
            // once: a gate may read a slot twice, negated and not).
            for h in self.gate_inputs(g).iter().filter_map(|&l| gate(l)) {
                if last[h] == g as u32 && !own[h] {
                    last[h] = u32::MAX;
                    free.push(slot[h]);
                }
            }
            if last[g] == g as u32 && !own[g] {
                free.push(slot[g]);
            }
        }
        let relit = |l: Lit| match gate(l) {
            Some(g) => (slot[g] << 1) | (l & 1),
            None => l,
        };
        let relits = |ls: &[Lit]| ls.iter().map(|&l| relit(l)).collect::<Vec<Lit>>();
        let none = || vec![0; top + 1];
        // Field by field: `..self.clone()` would copy the fan-in and fan-out only to drop them.
        Program {
            roles: self.roles.clone(),
            base_names: self.base_names.clone(),
            base_order: self.base_order.clone(),
            init: self.init.clone(),
            move_names: self.move_names.clone(),
            move_role: self.move_role.clone(),
            role_moves: self.role_moves.clone(),
            legal: relits(&self.legal),
            next: relits(&self.next),
            next_copies: self.next_copies.clone(),
            goals: self.goals.iter().map(|gs| gs.iter().map(|&(v, l)| (v, relit(l))).collect()).collect(),
            terminal: relit(self.terminal),
            slots: top,
            first_gate: first,
            fanin_start: self.fanin_start.clone(),
            fanin: relits(&self.fanin),
            out_slot: slot,
            block_init: self.block_init.clone(),
            blocks: self.blocks.clone(),
            fanout_start: none(),
            fanout: Vec::new(),
            block_fanout_start: none(),
            block_fanout: Vec::new(),
            outputs_start: none(),
            outputs: Vec::new(),
            core: self.core.clone(),
            support: self.support,
            goal_phase: self.goal_phase.clone(),
            move_phase: self.move_phase.clone(),
            outputs_read_inputs: self.outputs_read_inputs,
            exclusive: self.exclusive,
            stats: self.stats,
            native: Err(super::native::Fallback::Disabled),
            turns: None,
            wide: OnceLock::from(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::eval;
    use super::super::program::Phase;
    use super::super::tests::{build, bundled, random_lanes, recipe};
    use super::*;
    use proptest::prelude::*;

    /// Evaluates every phase, in order, of `whole` and of `packed` over the same random lanes
    /// (`W` words a slot) and compares every output.
    fn outputs_agree<const W: usize>(whole: &Program, packed: &Program, seed: u64) -> Result<(), TestCaseError> {
        let start = random_lanes::<W>(whole, seed);
        let (mut want, mut got) = (start.clone(), start[..packed.slots.max(whole.first_gate)].to_vec());
        for phase in Phase::EVALUATED {
            eval::run(whole, phase, &mut want);
            eval::run(packed, phase, &mut got);
        }
        for (a, b) in whole.outputs().zip(packed.outputs()) {
            prop_assert_eq!(eval::read(&want, a), eval::read(&got, b), "an output differs");
        }
        Ok(())
    }

    /// A program and its packed form, and each turn program and its packed form.
    fn pairs<'a>(p: &'a Program, packed: &'a Program) -> Vec<(&'a Program, &'a Program)> {
        let turns = p.turns.iter().flat_map(|t| t.programs().zip(packed.turns.as_ref().expect("packed").programs()));
        std::iter::once((p, packed)).chain(turns).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

        /// On random nets (recursive blocks among them), packed programs compute every output
        /// in every lane as their programs do.
        #[test]
        fn packed_programs_compute_what_their_programs_do(r in recipe(), seed in any::<u64>()) {
            let p = Program::new(&build(&r));
            if let Some(packed) = p.packed() {
                prop_assert!(packed.slots <= p.slots);
                outputs_agree::<1>(&p, &packed, seed)?;
                outputs_agree::<8>(&p, &packed, seed)?;
            }
        }
    }

    /// On real games, with their turn programs, a packed program computes every output as its
    /// program does in fewer slots, and is what the wide passes run.
    #[test]
    fn a_packed_program_computes_the_outputs_in_fewer_slots() {
        for name in ["tictactoe", "connectfour", "breakthrough", "fifteenpuzzle"] {
            let p = Program::new(&bundled(name));
            let packed = p.wide();
            assert!(!std::ptr::eq(packed, &p), "{name}: not packed");
            let gate_slots = |q: &Program| q.slots - q.first_gate;
            assert!(
                gate_slots(packed) * 4 < gate_slots(&p) * 3,
                "{name}: {} gate slots packed, {} not",
                gate_slots(packed),
                gate_slots(&p)
            );
            for (seed, (whole, small)) in pairs(&p, packed).into_iter().enumerate() {
                outputs_agree::<8>(whole, small, seed as u64).expect("the same outputs");
            }
        }
    }
}
