//! Inhibitors (chapter 12): `p` inhibits `q` when `p` true in a state forces `q` false in the
//! next state — `p` must be false to achieve or retain `q`. A goal inhibitor does the same to a
//! role's goal value: with `p` true, the role cannot have that value in the same state (with
//! `goal(white, 100) :- ¬q ∧ ¬r` both `q` and `r` are goal inhibitors), or in the next.
//!
//! *Structural*: three-valued propagation of `p = true` with everything else unknown, which
//! generalises the chapter's scan ("every path to q passes through ¬p") to any gate shape.
//! *Exact*: every marking of `q`'s next-value cone with `p` true, for small cones. Both range
//! over the states that satisfy the proved state invariants: the propagation starts from `p`
//! and what the groups force with it, and closes what it forces next under them too; the
//! enumeration leaves out markings that break a group.

use crate::cone::Checker;
use crate::consequences::Consequences;
use crate::implication::Implication;
use crate::{Group, Method};
use propnet::net::Net;
use serde::Serialize;
use std::time::Instant;

/// `inhibitor` true in a state forces `target` false in the next.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Inhibitor {
    /// The inhibiting base proposition's index in the net.
    pub inhibitor: usize,
    /// The inhibited base proposition's index.
    pub target: usize,
    /// What proved it.
    pub method: Method,
}

/// When a goal inhibitor rules its goal out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum When {
    /// In the state where it is true.
    Now,
    /// In the state after it.
    Next,
}

/// `base` true in a state forces `role`'s goal `value` false in that state, or in the next.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct GoalInhibitor {
    /// The inhibiting base proposition's index in the net.
    pub base: usize,
    /// The role's index.
    pub role: usize,
    /// The goal value ruled out.
    pub value: u32,
    /// Whether in the same state or the next.
    pub when: When,
}

/// The inhibitors and goal inhibitors that three-valued propagation proves, in the states that
/// satisfy the proved `groups` (pass none to range over every marking): with `p` true its group
/// partners are false, and what one step forces is closed under the groups in the next state.
/// Past `deadline` the propositions not yet asked about are left out (a group of hundreds makes
/// each question touch much of a large net).
pub fn structural_inhibitors(
    net: &Net,
    groups: &[Group],
    deadline: Option<Instant>,
) -> (Vec<Inhibitor>, Vec<GoalInhibitor>) {
    let mut imp = Implication::new(net);
    let mut consequences = Consequences::new(net.bases.len(), groups);
    let (mut pairs, mut goals) = (Vec::new(), Vec::new());
    for p in 0..net.bases.len() {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        // No reachable state has p true: there is nothing to say about one.
        let Some(now) = consequences.close(&[(p, true)]) else { continue };
        imp.reset();
        imp.assume_bases(&now);
        // The goals of this state that p alone rules out.
        let ruled_out = |imp: &Implication, goals: &mut Vec<GoalInhibitor>, when: When| {
            for (role, values) in net.goals.iter().enumerate() {
                for &(value, node) in values {
                    if imp.value(node) == Some(false) && !imp.is_constant(node) {
                        goals.push(GoalInhibitor { base: p, role, value, when });
                    }
                }
            }
        };
        ruled_out(&imp, &mut goals, When::Now);
        // The next state: what p forced, closed under the groups (the next state of a step of
        // play is reachable), everything else unknown. When no such state satisfies them, every
        // state with p true is terminal, and there is no next state to speak of.
        let Some(next) = consequences.close(&imp.forced_next()) else { continue };
        // A next value that is false whatever the state is not inhibited by anything.
        let inhibited = |&&(q, v): &&(usize, bool)| !v && q != p && !imp.is_constant(net.bases[q].next);
        pairs.extend(next.iter().filter(inhibited).map(|&(q, _)| Inhibitor {
            inhibitor: p,
            target: q,
            method: Method::Structural,
        }));
        imp.reset();
        imp.assume_bases(&next);
        ruled_out(&imp, &mut goals, When::Next);
    }
    pairs.sort_unstable();
    pairs.dedup();
    (pairs, goals)
}

/// The inhibitors proved by enumerating, for each base `q` whose next-value cone has at most
/// `2^max_bits` markings, every marking where another base `p` of the cone is true, among the
/// markings that satisfy the proved `groups`.
pub fn exact_inhibitors(net: &Net, max_bits: u32, groups: &[Group]) -> Vec<Inhibitor> {
    let checker = Checker::within(net, groups);
    let mut out = Vec::new();
    for (q, base) in net.bases.iter().enumerate() {
        let Some(cone) = checker.cone(&[base.next], max_bits) else { continue };
        let next = base.next as usize;
        // One pass over the cone serves every candidate: p survives while no marking has p
        // true and q's next value true.
        let mut candidates: Vec<usize> = cone.bases.iter().copied().filter(|&p| p != q).collect();
        checker.scan(&cone, &[], |b, valid| {
            candidates.retain(|&p| b.base[p] & b.value[next] & valid == 0);
            !candidates.is_empty()
        });
        out.extend(candidates.into_iter().map(|p| Inhibitor { inhibitor: p, target: q, method: Method::Exact }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{base, net};

    #[test]
    fn exact_finds_every_structural_inhibitor_with_a_small_cone() {
        for game in ["tictactoe", "connectfour", "buttonsandlights", "untwistycorridor"] {
            let net = net(game);
            let exact = exact_inhibitors(&net, 12, &[]);
            let checker = Checker::new(&net);
            for s in structural_inhibitors(&net, &[], None).0 {
                if checker.cone(&[net.bases[s.target].next], 12).is_some() {
                    let found = exact.iter().any(|e| (e.inhibitor, e.target) == (s.inhibitor, s.target));
                    assert!(found, "{game}: {s:?} not found exactly");
                }
            }
        }
    }

    #[test]
    fn both_propositions_a_goal_needs_false_are_goal_inhibitors_in_the_same_state() {
        // Chapter 12's example: goal(white, 100) :- ¬q ∧ ¬r.
        let net = crate::testing::compiled(
            "(role white) (init s) (<= (legal white a)) (<= (legal white b))
             (<= (next q) (does white a)) (<= (next r) (does white b)) (<= (next s) (true s))
             (<= (goal white 100) (not (true q)) (not (true r))) (<= (goal white 0) (true q))
             (<= (goal white 0) (true r)) (<= terminal (true q)) (<= terminal (true r))",
        );
        let (_, goals) = structural_inhibitors(&net, &[], None);
        for name in ["q", "r"] {
            let b = base(&net, name);
            let now = GoalInhibitor { base: b, role: 0, value: 100, when: When::Now };
            assert!(goals.contains(&now), "{name}: {goals:?}");
        }
        // s rules nothing out.
        assert!(goals.iter().all(|g| g.base != base(&net, "s")), "{goals:?}");
    }

    #[test]
    fn in_states_where_a_cell_holds_one_thing_a_mark_inhibits_the_blank() {
        // Over every marking a cell may hold a mark and a blank at once, so nothing is shown;
        // over the states the proved groups allow, a marked cell stays unblank.
        let net = net("tictactoe");
        let groups = crate::Exclusive::discover(&net, None, 1).groups;
        let (x, b, o) = (base(&net, "(cell 1 1 x)"), base(&net, "(cell 1 1 b)"), base(&net, "(cell 1 1 o)"));
        let pair = |i: &Inhibitor| (i.inhibitor, i.target);
        for found in [structural_inhibitors(&net, &[], None).0, exact_inhibitors(&net, 16, &[])] {
            assert!(!found.iter().any(|i| pair(i) == (x, b)), "{found:?}");
        }
        let structural = structural_inhibitors(&net, &groups, None).0;
        for (p, q) in [(x, b), (x, o), (o, b), (o, x)] {
            assert!(structural.iter().any(|i| pair(i) == (p, q)), "{p} {q}: {structural:?}");
        }
        // The blank is the only base the mark's next value reads of the cell: the cone with the
        // groups finds nothing more, and nothing the structural method does not find.
        let exact = exact_inhibitors(&net, 16, &groups);
        assert!(exact.iter().all(|e| structural.iter().any(|s| pair(s) == pair(e))), "{exact:?}");
    }

    #[test]
    fn untwisty_corridor_p_inhibits_the_goal_light_and_the_goal() {
        let net = net("untwistycorridor");
        let (structural, goals) = structural_inhibitors(&net, &[], None);
        let (p, q8) = (base(&net, "p"), base(&net, "q8"));
        assert!(structural.iter().any(|i| i.inhibitor == p && i.target == q8), "{structural:?}");
        assert!(goals.iter().any(|g| g.base == p && g.value == 100 && g.when == When::Next), "{goals:?}");
        assert!(exact_inhibitors(&net, 16, &[]).iter().any(|i| i.inhibitor == p && i.target == q8));
    }
}
