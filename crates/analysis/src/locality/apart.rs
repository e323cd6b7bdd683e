//! Moves never legal together, proved by induction: false in the initial state, and never made
//! true by one step from a state where it is false, over every marking of the small cones
//! involved (reachable or not, so the proof holds in every game).
//!
//! Turn-taking games give each role a pass (`noop`) that changes nothing alone; both passes
//! together would, on paper, clear the board. Knowing the passes are never legal together keeps
//! that impossible joint move out of the bound on what one step can change.

use crate::cone::Checker;
use propnet::net::{Kind, Net, NodeId};

/// Cones larger than `2^MAX_BITS` markings are not tried.
const MAX_BITS: u32 = 14;

/// Whether moves `a` and `c` (input indices) are provably never legal in the same state.
pub(crate) fn never_together(net: &Net, checker: &Checker, a: usize, c: usize) -> bool {
    let legal = [net.moves[a].legal, net.moves[c].legal];
    let bases = net.bases_read(legal);
    // Not both legal initially.
    let init: Vec<u64> = net.bases.iter().map(|b| u64::from(b.init)).collect();
    let none = vec![0u64; net.moves.len()];
    let order = order_of(net, &legal);
    let mut value = vec![0u64; net.kinds.len()];
    net.evaluate_words(&order.iter().map(Vec::as_slice).collect::<Vec<_>>(), &init, &none, &mut value);
    if value[legal[0] as usize] & value[legal[1] as usize] & 1 != 0 {
        return false;
    }
    // One step keeps it so: the next values of the bases the legality reads, then the legality
    // evaluated on them.
    let roots: Vec<NodeId> = legal.iter().copied().chain(bases.iter().map(|&b| net.bases[b].next)).collect();
    let Some(cone) = checker.cone(&roots, MAX_BITS) else { return false };
    let order: Vec<&[NodeId]> = order.iter().map(Vec::as_slice).collect();
    let mut next_base = vec![0u64; net.bases.len()];
    let mut after = vec![0u64; net.kinds.len()];
    checker.holds(&cone, &[], |block| {
        let now = block.value[legal[0] as usize] & block.value[legal[1] as usize];
        for &b in &bases {
            next_base[b] = block.value[net.bases[b].next as usize];
        }
        net.evaluate_words(&order, &next_base, &none, &mut after);
        !now & after[legal[0] as usize] & after[legal[1] as usize]
    })
}

/// The evaluation order of the nodes `roots` read.
fn order_of(net: &Net, roots: &[NodeId]) -> Vec<Vec<NodeId>> {
    let mut member = vec![false; net.kinds.len()];
    let mut stack = roots.to_vec();
    while let Some(n) = stack.pop() {
        if !std::mem::replace(&mut member[n as usize], true) && !matches!(net.kinds[n as usize], Kind::Base(_)) {
            stack.extend(net.inputs[n as usize].iter().copied());
        }
    }
    net.schedule().into_iter().filter(|c| member[c[0] as usize]).collect()
}
