//! Composite latches (chapter 12): base propositions whose disjunction or conjunction latches
//! although no one of them does alone — in a game where one of p or q always holds, `p ∨ q` is
//! a latch while neither p nor q is.
//!
//! Pairs are found here exactly: every marking of the two next values' joint cone. Only pairs
//! that read each other (each is in the other's next-value cone) are candidates; a pair that
//! does not interact can only latch jointly through a third proposition, which the pair's cone
//! would contain. Larger sets, disjunctions of members of a proved state invariant, are proved
//! with the invariants ([`crate::Exclusive`]).

use crate::cone::Checker;
use crate::{Group, Latch, LatchKind};
use propnet::net::Net;
use serde::Serialize;
use std::time::Instant;

/// How the propositions of a composite latch combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Junction {
    /// `p ∨ q`.
    Or,
    /// `p ∧ q`.
    And,
}

/// Base propositions whose combination is a latch.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct CompositeLatch {
    /// The base propositions' indices, ascending: two, or more for a set inside a state
    /// invariant.
    pub bases: Vec<usize>,
    /// How they combine.
    pub junction: Junction,
    /// Which way the combination latches.
    pub kind: LatchKind,
}

/// The composite latches among pairs of non-latches whose joint cone has at most `2^max_bits`
/// markings that satisfy the proved `groups` (pairs inside a group left out), stopping early at
/// `deadline`.
pub fn composite_latches(
    net: &Net,
    single: &[Latch],
    groups: &[Group],
    max_bits: u32,
    deadline: Option<Instant>,
) -> Vec<CompositeLatch> {
    let checker = Checker::within(net, groups);
    let latched: Vec<bool> = (0..net.bases.len()).map(|i| single.iter().any(|l| l.base == i)).collect();
    let reads: Vec<Vec<usize>> = net
        .bases
        .iter()
        .map(|b| checker.cone(&[b.next], max_bits).map(|c| c.bases.clone()).unwrap_or_default())
        .collect();
    let mut out = Vec::new();
    for p in (0..net.bases.len()).filter(|&p| !latched[p]) {
        if deadline.is_some_and(|d| Instant::now() > d) {
            break;
        }
        for &q in reads[p].iter().filter(|&&q| q > p && !latched[q] && reads[q].binary_search(&p).is_ok()) {
            let (np, nq) = (net.bases[p].next, net.bases[q].next);
            let Some(cone) = checker.cone(&[net.bases[p].node, net.bases[q].node, np, nq], max_bits) else {
                continue;
            };
            let (np, nq) = (np as usize, nq as usize);
            for junction in [Junction::Or, Junction::And] {
                // A pair inside a group says nothing the group does not: its conjunction never
                // holds, nor, where one of the group always holds, is its disjunction ever false.
                let inside = |g: &&Group| !g.implies && g.bases.contains(&p) && g.bases.contains(&q);
                if groups.iter().filter(inside).any(|g| junction == Junction::And || g.exactly_one) {
                    continue;
                }
                let combine = |a: u64, b: u64| if junction == Junction::Or { a | b } else { a & b };
                for kind in [LatchKind::Positive, LatchKind::Negative] {
                    let holds = checker.holds(&cone, &[], |b| {
                        let now = combine(b.base[p], b.base[q]);
                        let next = combine(b.value[np], b.value[nq]);
                        if kind == LatchKind::Positive {
                            now & !next
                        } else {
                            !now & next
                        }
                    });
                    if holds {
                        out.push(CompositeLatch { bases: vec![p, q], junction, kind });
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{base, net};
    use crate::{exact_latches, structural_latches};

    #[test]
    fn tictactoe_control_latches_as_a_pair_only() {
        let net = net("tictactoe");
        let mut single = structural_latches(&net);
        single.extend(exact_latches(&net, 16, &[]));
        let found = composite_latches(&net, &single, &[], 16, None);
        let (x, o) = (base(&net, "(control xplayer)"), base(&net, "(control oplayer)"));
        let pair = [x.min(o), x.max(o)];
        let or_positive = CompositeLatch { bases: pair.to_vec(), junction: Junction::Or, kind: LatchKind::Positive };
        assert!(found.contains(&or_positive), "{found:?}");
        assert!(!single.iter().any(|l| l.base == x || l.base == o));
        // No cell pair qualifies: every cell proposition latches alone.
        assert!(found.iter().all(|c| c.bases == pair), "{found:?}");
    }
}
