//! The proof that a two-player game is zero-sum: its two goal values have the same sum in every
//! terminal state (what minimax needs, and what lets one role's achievable scores bound the
//! other's).
//!
//! The proof reads the goal and terminal nodes of the net. Each is unfolded some gates deep into
//! a formula over the nodes where unfolding stops (shared by all the formulas, so their
//! correlations are kept), and every assignment of those nodes is tried: whenever `terminal`
//! holds and each role has exactly one goal value, the two values must always have the same sum.
//! Unfolding passes through NOT gates and gates with at most k inputs, for k = 1, 2, … until the
//! proof succeeds or the formulas read too many nodes to try every assignment. A node is unfolded
//! everywhere or nowhere, so what the formulas know about it is never split between a variable
//! and its gate. Every reachable terminal state gives one of these assignments (GDL requires
//! exactly one goal value per role there), so the check is sound; it may fail to prove a game that
//! is zero-sum, which costs only what the proof would have given. In Connect Four `(goal red 0)`
//! is not the node `(goal black 100)` (both are 0 while the board is open), yet the two agree in
//! every state where `terminal` holds.

use propnet::net::{Kind, Net, NodeId};

/// At most this many nodes where unfolding stops (2^16 assignments are tried).
const MAX_VARIABLES: usize = 16;
/// Gates with more inputs than this are never unfolded (a line in Connect Four is a wide OR of
/// every way to make one; its value is all the proof needs).
const MAX_FANIN: usize = 8;
/// Gates deeper than this are never unfolded (this also stops at cycles).
const MAX_DEPTH: u32 = 16;

/// A goal or terminal node unfolded into a formula over a few nodes.
enum Formula {
    Const(bool),
    Var(usize),
    And(Vec<Formula>),
    Or(Vec<Formula>),
    Not(Box<Formula>),
}

impl Formula {
    /// The formula's value when variable i has bit i of `bits`.
    fn eval(&self, bits: u32) -> bool {
        match self {
            Formula::Const(c) => *c,
            Formula::Var(i) => bits >> i & 1 == 1,
            Formula::And(fs) => fs.iter().all(|f| f.eval(bits)),
            Formula::Or(fs) => fs.iter().any(|f| f.eval(bits)),
            Formula::Not(f) => !f.eval(bits),
        }
    }
}

/// Unfolds nodes into formulas through gates of at most `fanin` inputs, numbering the nodes where
/// it stops.
struct Unfold<'a> {
    net: &'a Net,
    fanin: usize,
    vars: Vec<NodeId>,
}

impl Unfold<'_> {
    fn formula(&mut self, node: NodeId, depth: u32) -> Formula {
        let inputs = &self.net.inputs[node as usize];
        let small = inputs.len() <= self.fanin || self.net.kinds[node as usize] == Kind::Not;
        let unfold = small && depth < MAX_DEPTH && self.vars.len() <= MAX_VARIABLES;
        match self.net.kinds[node as usize] {
            Kind::Const(c) => Formula::Const(c),
            Kind::And if unfold => Formula::And(inputs.iter().map(|&i| self.formula(i, depth + 1)).collect()),
            Kind::Or if unfold => Formula::Or(inputs.iter().map(|&i| self.formula(i, depth + 1)).collect()),
            Kind::Not if unfold => Formula::Not(Box::new(self.formula(inputs[0], depth + 1))),
            _ => {
                let i = self.vars.iter().position(|&v| v == node).unwrap_or_else(|| {
                    self.vars.push(node);
                    self.vars.len() - 1
                });
                Formula::Var(i)
            }
        }
    }
}

/// The constant sum of the two roles' goal values in every terminal state, when it is proved.
pub fn zero_sum(net: &Net) -> Option<u32> {
    if net.goals.len() != 2 {
        return None;
    }
    (1..=MAX_FANIN).map_while(|fanin| prove(net, fanin)).find_map(|proof| proof)
}

/// With the formulas unfolded through gates of at most `fanin` inputs: `None` when they read too
/// many nodes, else the proved sum, if any.
fn prove(net: &Net, fanin: usize) -> Option<Option<u32>> {
    let mut unfold = Unfold { net, fanin, vars: Vec::new() };
    let terminal = unfold.formula(net.terminal, 0);
    let goals: Vec<Vec<(u32, Formula)>> =
        net.goals.iter().map(|g| g.iter().map(|&(v, n)| (v, unfold.formula(n, 0))).collect()).collect();
    if unfold.vars.len() > MAX_VARIABLES {
        return None;
    }
    let mut sum = None;
    let single = |role: &[(u32, Formula)], bits: u32| {
        let mut held = role.iter().filter(|(_, f)| f.eval(bits)).map(|&(v, _)| v);
        match (held.next(), held.next()) {
            (Some(v), None) => Some(v),
            _ => None,
        }
    };
    for bits in 0..1u32 << unfold.vars.len() {
        if !terminal.eval(bits) {
            continue;
        }
        let (Some(a), Some(b)) = (single(&goals[0], bits), single(&goals[1], bits)) else { continue };
        match sum {
            None => sum = Some(a + b),
            Some(s) if s != a + b => return Some(None),
            Some(_) => {}
        }
    }
    Some(sum)
}
