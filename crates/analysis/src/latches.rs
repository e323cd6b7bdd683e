//! Latch detection on a propnet.
//!
//! *Structural* (Sancho's scan): a base proposition whose next value is `p ∨ …` is a positive
//! latch, one whose next value is `¬p ∧ …` a negative latch. *Exact* (chapter 12): enumerate
//! every marking of the base and input propositions that the next value depends on (its upstream
//! cone), when there are few enough, and check that the next value keeps `p`'s value. Both are
//! sound: the exact check ranges over every marking of the cone, reachable or not, and every
//! combination of one move per role, legal or not, a superset of what play can produce.

use crate::cone::Checker;
use crate::Group;
use propnet::net::{Kind, Net, NodeId};
use serde::Serialize;

/// Which way a latch holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LatchKind {
    /// Once true, true forever.
    Positive,
    /// Once false, false forever.
    Negative,
}

/// How a latch was proved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// From the shape of the gate computing the next value.
    Structural,
    /// By enumerating every marking of the next value's upstream cone.
    Exact,
    /// By an answer-set solver finding no two-step counterexample (chapter 16.1).
    Proof,
}

/// A base proposition proved to be a latch.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Latch {
    /// The base proposition's index in the net.
    pub base: usize,
    /// Its name in canonical KIF, e.g. `(cell 1 1 x)`.
    pub name: String,
    /// Which way it latches.
    pub kind: LatchKind,
    /// What proved it.
    pub method: Method,
}

fn latch(net: &Net, base: usize, kind: LatchKind, method: Method) -> Latch {
    Latch { base, name: net.bases[base].name.clone(), kind, method }
}

/// The latches visible in the shape of the gates that compute each base's next value.
pub fn structural_latches(net: &Net) -> Vec<Latch> {
    let mut out = Vec::new();
    for (i, base) in net.bases.iter().enumerate() {
        let n = base.next as usize;
        let inputs = &net.inputs[n];
        let negates_base = |m: &NodeId| net.kinds[*m as usize] == Kind::Not && net.inputs[*m as usize] == [base.node];
        let (positive, negative) = match net.kinds[n] {
            _ if base.next == base.node => (true, true),
            Kind::Const(value) => (value, !value),
            Kind::Or => (inputs.contains(&base.node), false),
            Kind::And => (false, inputs.iter().any(negates_base)),
            Kind::Not => (false, negates_base(&base.next)),
            Kind::Base(_) | Kind::Input(_) => (false, false),
        };
        if positive {
            out.push(latch(net, i, LatchKind::Positive, Method::Structural));
        }
        if negative {
            out.push(latch(net, i, LatchKind::Negative, Method::Structural));
        }
    }
    out
}

/// The latches proved by enumerating the upstream cone of each base's next value, for cones
/// with at most `2^max_bits` markings, over the markings that satisfy the proved `groups`.
pub fn exact_latches(net: &Net, max_bits: u32, groups: &[Group]) -> Vec<Latch> {
    let checker = Checker::within(net, groups);
    let mut out = Vec::new();
    for (i, base) in net.bases.iter().enumerate() {
        // The base itself belongs in the enumeration even when its next value does not read it.
        let Some(cone) = checker.cone(&[base.node, base.next], max_bits) else { continue };
        let next = base.next as usize;
        // One pass checks both directions: a marking with the base true and its next value
        // false refutes a positive latch, the opposite one a negative latch.
        let (mut positive, mut negative) = (true, true);
        checker.scan(&cone, &[], |b, valid| {
            positive &= b.base[i] & !b.value[next] & valid == 0;
            negative &= !b.base[i] & b.value[next] & valid == 0;
            positive || negative
        });
        for (holds, kind) in [(positive, LatchKind::Positive), (negative, LatchKind::Negative)] {
            if holds {
                out.push(latch(net, i, kind, Method::Exact));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::net;

    fn find(latches: &[Latch], name: &str, kind: LatchKind) -> bool {
        latches.iter().any(|l| l.name == name && l.kind == kind)
    }

    #[test]
    fn buttons_and_lights_step_one_is_a_negative_latch_and_no_light_latches() {
        let net = net("buttonsandlights");
        for latches in [exact_latches(&net, 20, &[]), structural_latches(&net)] {
            assert!(find(&latches, "(step 1)", LatchKind::Negative), "{latches:?}");
            for light in ["p", "q", "r"] {
                assert!(!latches.iter().any(|l| l.name == light), "{light} is no latch: {latches:?}");
            }
        }
    }

    #[test]
    fn untwisty_corridor_p_is_a_positive_latch() {
        let net = net("untwistycorridor");
        assert!(find(&structural_latches(&net), "p", LatchKind::Positive));
        assert!(find(&exact_latches(&net, 20, &[]), "p", LatchKind::Positive));
    }

    #[test]
    fn a_latch_only_in_states_that_satisfy_the_invariants_is_found_with_them() {
        let net = crate::testing::compiled(crate::testing::TAKING_TURNS);
        let groups = crate::Exclusive::discover(&net, None, 1).groups;
        assert_eq!(groups.len(), 1, "{groups:?}");
        assert!(!find(&exact_latches(&net, 16, &[]), "d", LatchKind::Positive));
        assert!(find(&exact_latches(&net, 16, &groups), "d", LatchKind::Positive));
    }

    #[test]
    fn tictactoe_marks_latch_and_blanks_latch_negatively() {
        let net = net("tictactoe");
        let exact = exact_latches(&net, 20, &[]);
        assert!(find(&exact, "(cell 1 1 x)", LatchKind::Positive), "{exact:?}");
        assert!(find(&exact, "(cell 2 3 o)", LatchKind::Positive), "{exact:?}");
        assert!(find(&exact, "(cell 3 3 b)", LatchKind::Negative), "{exact:?}");
        assert!(!exact.iter().any(|l| l.name.starts_with("(control")), "{exact:?}");
    }
}
