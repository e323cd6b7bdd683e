//! Propositions a latch keeps at their value for good: with a latch literal active (a positive
//! latch true, a negative one false) and `q` at value `v`, `q` has the value `v` in the next
//! state too. The literal holds in every later state, so by induction `q` keeps `v` for the
//! rest of the game. This is what makes a blocked Tic-Tac-Toe line hopeless (chapter 16.4): once
//! `(cell 1 3 b)` is false, a negative latch, an unmarked `(cell 1 3 x)` never becomes true,
//! although nothing inhibits it whatever its value.
//!
//! Found by three-valued propagation of the two assumptions (sound over every marking and every
//! move), for the latches upstream of `q`'s next value only: no other latch can force it. With
//! proved state invariants the assumptions are closed under the groups first (a mark on a cell
//! means no other mark there), and a latch in a group with `q` or with what `q`'s next value
//! reads counts as upstream.

use crate::consequences::Consequences;
use crate::implication::Implication;
use crate::{Group, Latch, LatchKind};
use propnet::net::{Kind, Net};
use serde::Serialize;

/// A latch literal that, once active, keeps a base proposition at its current value for good.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Kept {
    /// The latch's base proposition index.
    pub latch: usize,
    /// Positive: active while the latch is true; negative: while it is false.
    pub kind: LatchKind,
    /// The base proposition kept.
    pub base: usize,
    /// The value it keeps once it has it while the literal is active.
    pub value: bool,
}

/// What the latch literals of `latches` keep, for the base propositions marked in `bases`, in
/// the states that satisfy the proved `groups`.
pub fn kept_by_latches(net: &Net, latches: &[Latch], bases: &[bool], groups: &[Group]) -> Vec<Kept> {
    let mut kinds: Vec<Vec<LatchKind>> = vec![Vec::new(); net.bases.len()];
    for l in latches {
        if !kinds[l.base].contains(&l.kind) {
            kinds[l.base].push(l.kind);
        }
    }
    let mut consequences = Consequences::new(net.bases.len(), groups);
    let mut imp = Implication::new(net);
    let mut out = Vec::new();
    let mut seen = vec![usize::MAX; net.kinds.len()];
    for q in (0..net.bases.len()).filter(|&q| bases.get(q).copied().unwrap_or(false)) {
        let next = net.bases[q].next;
        // The latches upstream of q's next value, and those in a group with it or with them.
        let mut upstream = Vec::new();
        let mut stack = vec![next, net.bases[q].node];
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut seen[n as usize], q) == q {
                continue;
            }
            match net.kinds[n as usize] {
                Kind::Base(i) => {
                    upstream.extend(consequences.partners(i as usize).filter(|&b| b != q && !kinds[b].is_empty()));
                }
                Kind::Input(_) | Kind::Const(_) => {}
                Kind::And | Kind::Or | Kind::Not => stack.extend(net.inputs[n as usize].iter().copied()),
            }
        }
        upstream.sort_unstable();
        upstream.dedup();
        for latch in upstream {
            for &kind in &kinds[latch] {
                for value in [false, true] {
                    let facts = [(latch, kind == LatchKind::Positive), (q, value)];
                    // A pair no reachable state has: nothing to keep.
                    let Some(facts) = consequences.close(&facts) else { continue };
                    imp.reset();
                    imp.assume_bases(&facts);
                    if imp.value(next) == Some(value) {
                        out.push(Kept { latch, kind, base: q, value });
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
    fn a_cell_that_is_no_longer_blank_keeps_an_unplayed_mark_out_for_good() {
        let net = net("tictactoe");
        let mut latches = structural_latches(&net);
        latches.extend(exact_latches(&net, 16, &[]));
        let everything = vec![true; net.bases.len()];
        let kept = kept_by_latches(&net, &latches, &everything, &[]);
        let (blank, x) = (base(&net, "(cell 1 3 b)"), base(&net, "(cell 1 3 x)"));
        let blocked = Kept { latch: blank, kind: LatchKind::Negative, base: x, value: false };
        assert!(kept.contains(&blocked), "{kept:?}");
        // Nothing keeps a blank cell blank: it can be marked any time.
        assert!(!kept.iter().any(|k| k.base == blank && k.value), "{kept:?}");
        // Only the bases asked about are examined.
        let only_x: Vec<bool> = (0..net.bases.len()).map(|i| i == x).collect();
        assert!(kept_by_latches(&net, &latches, &only_x, &[]).iter().all(|k| k.base == x));
        // With the cells' groups, an o on the cell keeps x out for good, though x's next value
        // reads only the blank and the moves.
        let o = base(&net, "(cell 1 3 o)");
        let by_o = Kept { latch: o, kind: LatchKind::Positive, base: x, value: false };
        assert!(!kept.contains(&by_o), "{kept:?}");
        let groups = crate::Exclusive::discover(&net, None, 1).groups;
        assert!(kept_by_latches(&net, &latches, &everything, &groups).contains(&by_o));
    }
}
