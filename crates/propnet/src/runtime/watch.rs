//! [`Watch`]: the bases whose next values a one-move look-ahead reports, prepared for one
//! program so that each candidate after the first costs only what its move changes.

use super::program::{Lit, Program};

/// No watched base (the end of a chain in [`Watch`]).
const NONE: u32 = u32::MAX;

/// Bases of one [`Program`] whose next values [`PropnetMachine::lookahead`] reports, with the
/// way back from a changed slot of the net to the watched bases whose next value reads it.
///
/// [`PropnetMachine::lookahead`]: super::PropnetMachine::lookahead
#[derive(Debug, Clone)]
pub struct Watch {
    bases: Vec<usize>,
    /// Per watched base, the literal of its next value.
    pub(super) lits: Vec<Lit>,
    /// Per slot of the program, the first watched base whose next literal reads it (or `NONE`).
    first: Vec<u32>,
    /// Per watched base, the next one whose literal reads the same slot (or `NONE`).
    also: Vec<u32>,
}

impl Watch {
    /// The watch over `bases` (indices of `program`'s base propositions, each below its base
    /// count, or this panics) for look-aheads on machines running `program`.
    pub fn new(program: &Program, bases: Vec<usize>) -> Watch {
        let lits: Vec<Lit> = bases.iter().map(|&b| program.next[b]).collect();
        let mut first = vec![NONE; program.slots];
        let mut also = vec![NONE; lits.len()];
        for (j, &l) in lits.iter().enumerate().rev() {
            let s = (l >> 1) as usize;
            also[j] = first[s];
            first[s] = j as u32;
        }
        Watch { bases, lits, first, also }
    }

    /// The watched bases, in the order their bits come.
    pub fn bases(&self) -> &[usize] {
        &self.bases
    }

    /// Whether the watch was made for a program of `slots` slots (a cheap check that a machine
    /// runs the program it was made for).
    pub(super) fn fits(&self, slots: usize) -> bool {
        self.first.len() == slots
    }

    /// The positions (in [`bases`](Self::bases)) of the watched bases whose next value reads
    /// slot `s`.
    pub(super) fn reading(&self, s: usize) -> impl Iterator<Item = usize> + '_ {
        let mut j = self.first[s];
        std::iter::from_fn(move || {
            let k = (j != NONE).then_some(j as usize)?;
            j = self.also[k];
            Some(k)
        })
    }
}
