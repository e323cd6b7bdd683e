//! Latch detection on a propnet.
//!
//! *Structural* (Sancho's scan): a base proposition whose next value is `p ∨ …` is a positive
//! latch, one whose next value is `¬p ∧ …` a negative latch. *Exact* (chapter 12): enumerate
//! every marking of the base and input propositions that the next value depends on (its upstream
//! cone), when there are few enough, and check that the next value keeps `p`'s value. Both are
//! sound: the exact check ranges over every marking of the cone, reachable or not, and every
//! combination of one move per role, legal or not, a superset of what play can produce.

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
/// with at most `2^max_bits` markings (bases, plus one choice per role among its moves in the
/// cone or "another move").
pub fn exact_latches(net: &Net, max_bits: u32) -> Vec<Latch> {
    let schedule = net.schedule();
    let mut out = Vec::new();
    for (i, base) in net.bases.iter().enumerate() {
        let Some(cone) = Cone::new(net, base.next, max_bits) else { continue };
        for kind in [LatchKind::Positive, LatchKind::Negative] {
            if cone.keeps(net, &schedule, i, kind) {
                out.push(latch(net, i, kind, Method::Exact));
            }
        }
    }
    out
}

/// The base and input propositions a node depends on.
struct Cone {
    /// Every node in the cone, as a mask over the net.
    member: Vec<bool>,
    bases: Vec<usize>,
    /// Per role, its moves in the cone.
    moves: Vec<Vec<usize>>,
    root: NodeId,
}

impl Cone {
    fn new(net: &Net, root: NodeId, max_bits: u32) -> Option<Cone> {
        let mut member = vec![false; net.kinds.len()];
        let mut stack = vec![root];
        let (mut bases, mut moves) = (Vec::new(), vec![Vec::<usize>::new(); net.roles.len()]);
        // log2 of the number of markings so far; the walk stops as soon as it is too many.
        let mut bits = 0.0;
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut member[n as usize], true) {
                continue;
            }
            match net.kinds[n as usize] {
                Kind::Base(i) => {
                    bases.push(i as usize);
                    bits += 1.0;
                }
                Kind::Input(j) => {
                    let role = &mut moves[net.moves[j as usize].role];
                    bits += ((role.len() + 2) as f64).log2() - ((role.len() + 1) as f64).log2();
                    role.push(j as usize);
                }
                _ => stack.extend(net.inputs[n as usize].iter().copied()),
            }
            if bits > f64::from(max_bits) {
                return None;
            }
        }
        Some(Cone { member, bases, moves, root })
    }

    /// Whether `root` (the next value of base `b`) keeps `b`'s value in every marking of the cone
    /// where `b` has the latched value. The markings (free bases × one choice per role) are
    /// numbered and evaluated 64 at a time, marking `64·block + bit` in bit `bit` of every word.
    fn keeps(&self, net: &Net, schedule: &[Vec<NodeId>], b: usize, kind: LatchKind) -> bool {
        let latched = kind == LatchKind::Positive;
        let free: Vec<usize> = self.bases.iter().copied().filter(|&i| i != b).collect();
        let radices: Vec<u64> = self.moves.iter().map(|m| m.len() as u64 + 1).collect();
        let total: u64 = (1u64 << free.len()) * radices.iter().product::<u64>();
        let order: Vec<&[NodeId]> = schedule.iter().filter(|c| self.member[c[0] as usize]).map(Vec::as_slice).collect();
        let mut base = vec![0u64; net.bases.len()];
        base[b] = if latched { u64::MAX } else { 0 };
        let mut input = vec![0u64; net.moves.len()];
        let mut value = vec![0u64; net.kinds.len()];
        for block in 0..total.div_ceil(64) {
            free.iter().for_each(|&i| base[i] = 0);
            self.moves.iter().flatten().for_each(|&j| input[j] = 0);
            let lanes = (total - block * 64).min(64);
            for lane in 0..lanes {
                let mut index = block * 64 + lane;
                for &i in &free {
                    base[i] |= (index & 1) << lane;
                    index >>= 1;
                }
                for (role, &radix) in radices.iter().enumerate() {
                    if let Some(&j) = self.moves[role].get((index % radix) as usize) {
                        input[j] |= 1 << lane;
                    }
                    index /= radix;
                }
            }
            let valid = if lanes == 64 { u64::MAX } else { (1u64 << lanes) - 1 };
            net.evaluate_words(&order, &base, &input, &mut value);
            let next = value[self.root as usize] & valid;
            if next != if latched { valid } else { 0 } {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(name: &str) -> Net {
        let game = games::find(name).expect("bundled game");
        let (desc, _) = gdl::load(game.file, game.text).expect("valid");
        let net = propnet::build(&desc, &propnet::Limits::default()).expect("builds");
        propnet::optimize::optimize(&net).0
    }

    fn find(latches: &[Latch], name: &str, kind: LatchKind) -> bool {
        latches.iter().any(|l| l.name == name && l.kind == kind)
    }

    #[test]
    fn buttons_and_lights_step_one_is_a_negative_latch_and_no_light_latches() {
        let net = net("buttonsandlights");
        for latches in [exact_latches(&net, 20), structural_latches(&net)] {
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
        assert!(find(&exact_latches(&net, 20), "p", LatchKind::Positive));
    }

    #[test]
    fn tictactoe_marks_latch_and_blanks_latch_negatively() {
        let net = net("tictactoe");
        let exact = exact_latches(&net, 20);
        assert!(find(&exact, "(cell 1 1 x)", LatchKind::Positive), "{exact:?}");
        assert!(find(&exact, "(cell 2 3 o)", LatchKind::Positive), "{exact:?}");
        assert!(find(&exact, "(cell 3 3 b)", LatchKind::Negative), "{exact:?}");
        assert!(!exact.iter().any(|l| l.name.starts_with("(control")), "{exact:?}");
    }
}
