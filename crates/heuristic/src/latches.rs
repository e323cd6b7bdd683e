//! Chapter 16.4's refinement with latches: a proposition that an active latch keeps false for
//! good can never help to satisfy a goal again, so it gets the degree 0 rather than `1 − τ`;
//! one kept true for good gets 1 rather than τ.
//!
//! A latch literal is active when a positive latch is true or a negative latch false; it then
//! holds in every later state. Once active it keeps false for good the negative latch itself,
//! every proposition the positive latch inhibits (forced false in the next state, every state),
//! and every proposition it keeps at its value ([`analysis::kept_by_latches`]) that is false
//! now; it keeps true for good the positive latch itself and every kept proposition that is
//! true now. A proposition is only ever fixed at the value it has in the state, and everything
//! used is proved over a superset of the reachable states, so no proposition that can still
//! become true is set to 0.

use analysis::{kept_by_latches, Analysis, LatchKind};
use propnet::net::Net;
use structures::Bits;

/// What one latch literal forces once active.
#[derive(Debug, Clone)]
struct LatchRule {
    base: usize,
    /// Active when the base is true (a positive latch) or false (a negative one).
    positive: bool,
    /// Propositions false for good (degree 0 while false).
    never: Vec<usize>,
    /// Propositions true for good (degree 1 while true).
    always: Vec<usize>,
}

/// The latch rules of a game, restricted to the propositions the formulas read.
#[derive(Debug, Clone, Default)]
pub(crate) struct LatchRules {
    rules: Vec<LatchRule>,
}

impl LatchRules {
    /// The rules for the latches `analysis` found in `net`, keeping only effects on the base
    /// propositions marked in `reads`.
    pub fn new(net: &Net, analysis: &Analysis, reads: &[bool]) -> LatchRules {
        let groups = analysis.invariants.as_ref().map_or(&[][..], |i| &i.groups);
        let kept = kept_by_latches(net, &analysis.latches, reads, groups);
        let read = |&b: &usize| reads.get(b).copied().unwrap_or(false);
        let mut literals: Vec<(usize, LatchKind)> = analysis.latches.iter().map(|l| (l.base, l.kind)).collect();
        literals.sort_unstable();
        literals.dedup();
        let mut rules = Vec::new();
        for (base, kind) in literals {
            let positive = kind == LatchKind::Positive;
            let keeps = |value: bool| kept.iter().filter(move |k| (k.latch, k.kind, k.value) == (base, kind, value));
            let mut never: Vec<usize> = keeps(false).map(|k| k.base).collect();
            let mut always: Vec<usize> = keeps(true).map(|k| k.base).collect();
            if positive {
                always.push(base);
                never.extend(analysis.inhibitors.iter().filter(|i| i.inhibitor == base).map(|i| i.target));
            } else {
                never.push(base);
            }
            for list in [&mut never, &mut always] {
                list.retain(read);
                list.sort_unstable();
                list.dedup();
            }
            if !never.is_empty() || !always.is_empty() {
                rules.push(LatchRule { base, positive, never, always });
            }
        }
        LatchRules { rules }
    }

    /// How many latch literals have an effect.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Marks in `never` and `always` (bitsets over the base propositions) what the latch
    /// literals active in `state` (propnet state words) force.
    pub fn apply(&self, state: &[u64], never: &mut [u64], always: &mut [u64]) {
        if self.rules.is_empty() {
            return;
        }
        never.fill(0);
        always.fill(0);
        let set = |bits: &mut [u64], i: usize| bits.set_bit(i);
        let holds = |b: usize| state.bit(b);
        for rule in self.rules.iter().filter(|r| holds(r.base) == r.positive) {
            rule.never.iter().for_each(|&i| set(never, i));
            rule.always.iter().for_each(|&i| set(always, i));
        }
    }
}
