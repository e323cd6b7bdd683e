//! Two-literal invariants of play, proved by induction over one step (chapter 16.1's latch
//! question, asked of a clause instead of a single proposition).
//!
//! A target such as "these two propositions are never true together" is rarely inductive on its
//! own: whether a step can break it depends on other facts about reachable states (a box is
//! owned by one player because its lines are all drawn once it is owned, and a drawn line cannot
//! be drawn again). So the targets are proved together with *support*: every two-literal clause
//! over the propositions their next values read that holds in every sampled state of random
//! games. The prover keeps the largest subset that one legal step preserves (see
//! [`crate::proof::invariants`]); support that random play only happened to respect is dropped
//! on the way, and a target proved this way holds in every reachable state.
//!
//! The same support proves facts about steps ("a counter never goes down": a value now excludes
//! every lower one next), which are checked against every step from a state where the support
//! holds, and so hold of every step of play.

use crate::{Candidate, Pair, Step};
use propnet::net::{Net, NodeId};
use std::time::Instant;
use structures::Bits;

/// Most support clauses tried alongside the targets.
const MAX_SUPPORT: usize = 20_000;

/// Which of `targets` hold in every reachable state, and which of `steps` (a literal before a
/// step or one after it, see [`crate::invariants`]) hold of every step from one, with support
/// drawn from `samples` (the words of reachable states, the initial one among them) as the
/// module header describes.
pub(crate) fn prove(
    net: &Net,
    targets: &[Pair],
    steps: &[Pair],
    samples: &[&[u64]],
    deadline: Option<Instant>,
) -> (Vec<bool>, Vec<bool>) {
    if targets.is_empty() && steps.is_empty() {
        return (Vec::new(), Vec::new());
    }
    // The targets' propositions, what their next values read, and what makes the moves those
    // read legal (whose turn it is, that a cell is empty).
    let mut read: Vec<usize> = targets.iter().chain(steps).flat_map(|&((a, _), (b, _))| [a, b]).collect();
    let next: Vec<NodeId> = read.iter().map(|&b| net.bases[b].next).collect();
    read.extend(net.bases_read(next.iter().copied()));
    read.extend(net.bases_read(net.moves_read(next.iter().copied()).into_iter().map(|m| net.moves[m].legal)));
    read.sort_unstable();
    read.dedup();
    // Per base read, its value in each sample as a bitset, to test thousands of clauses cheaply.
    let words = samples.len().div_ceil(64);
    let columns: Vec<Vec<u64>> = read
        .iter()
        .map(|&b| {
            let mut c = vec![0u64; words];
            for (k, s) in samples.iter().enumerate() {
                if s.bit(b) {
                    c.set_bit(k);
                }
            }
            c
        })
        .collect();
    let full = |k: usize| {
        if k + 1 < words || samples.len().is_multiple_of(64) {
            u64::MAX
        } else {
            (1 << (samples.len() % 64)) - 1
        }
    };
    // Whether the clause of the `i`th and `j`th bases read holds in every sample.
    let held = |(i, va): (usize, bool), (j, vb): (usize, bool)| {
        let lit = |c: &[u64], v: bool, k: usize| if v { c[k] } else { !c[k] };
        (0..words).all(|k| (lit(&columns[i], va, k) | lit(&columns[j], vb, k)) & full(k) == full(k))
    };
    let at = |b: usize| read.binary_search(&b).expect("a target's base is read");
    let mut candidates: Vec<Pair> =
        targets.iter().copied().filter(|&((a, va), (b, vb))| held((at(a), va), (at(b), vb))).collect();
    // A proposition that never changed in the samples is support alone.
    let constant: Vec<Option<bool>> =
        (0..read.len()).map(|i| [false, true].into_iter().find(|&v| held((i, v), (i, v)))).collect();
    candidates.extend(constant.iter().enumerate().filter_map(|(i, v)| Some(((read[i], (*v)?), (read[i], (*v)?)))));
    // Pairs among the targets' own propositions first: where what the moves' legality reads is
    // large (a whole board), the cap must not crowd out the facts closest to the targets.
    let mut core: Vec<usize> = targets.iter().chain(steps).flat_map(|&((a, _), (b, _))| [at(a), at(b)]).collect();
    core.sort_unstable();
    core.dedup();
    let in_core = |i: usize| core.binary_search(&i).is_ok();
    let core_pairs = core.iter().enumerate().flat_map(|(k, &i)| core[k + 1..].iter().map(move |&j| (i, j)));
    let other_pairs = (0..read.len())
        .flat_map(|i| (i + 1..read.len()).map(move |j| (i, j)))
        .filter(|&(i, j)| !(in_core(i) && in_core(j)));
    'support: for (i, j) in core_pairs.chain(other_pairs) {
        if constant[i].is_some() || constant[j].is_some() {
            continue;
        }
        for (va, vb) in [(false, false), (false, true), (true, false), (true, true)] {
            if held((i, va), (j, vb)) {
                candidates.push(((read[i], va), (read[j], vb)));
                if candidates.len() >= targets.len() + MAX_SUPPORT {
                    break 'support;
                }
            }
        }
    }
    let clauses: Vec<Candidate> = candidates.iter().copied().map(Candidate::pair).collect();
    let steps: Vec<Step> = steps.iter().copied().map(Step::from).collect();
    let (proved, stepped) = crate::invariants(net, &clauses, &steps, &[], false, deadline);
    let mut found: Vec<Pair> = candidates.iter().zip(&proved).filter(|(_, &p)| p).map(|(c, _)| *c).collect();
    found.sort_unstable();
    (targets.iter().map(|t| found.binary_search(t).is_ok()).collect(), stepped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{base, net};
    use machine::{random_trajectory, StateMachine};
    use propnet::PropnetMachine;
    use rand::rngs::SmallRng;
    use rand::SeedableRng;

    fn samples(net: &Net) -> Vec<Vec<u64>> {
        let mut m = PropnetMachine::new(net);
        let mut rng = SmallRng::seed_from_u64(3);
        let initial = m.initial_state();
        let mut out = Vec::new();
        for _ in 0..50 {
            let states = random_trajectory(&mut m, &initial, &mut rng, 200).expect("game");
            out.extend(states.iter().map(|s| s.words().to_vec()));
        }
        out
    }

    #[test]
    fn a_cell_holds_one_mark_and_sample_coincidences_are_not_proved() {
        let net = net("tictactoe");
        let samples = samples(&net);
        let words: Vec<&[u64]> = samples.iter().map(Vec::as_slice).collect();
        let (x, o, b) = (base(&net, "(cell 1 1 x)"), base(&net, "(cell 1 1 o)"), base(&net, "(cell 1 1 b)"));
        let (x2, o2) = (base(&net, "(cell 2 2 x)"), base(&net, "(cell 3 3 o)"));
        let targets = [
            ((x, false), (o, false)),  // never both marks
            ((x, false), (b, false)),  // never marked and blank
            ((x2, false), (o2, true)), // x in the centre means o in a corner: false, and unsampled
        ];
        assert_eq!(prove(&net, &targets, &[], &words, None).0, [true, true, false]);
    }
}
