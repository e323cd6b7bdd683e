//! Exhaustive checks over the upstream cone of a few nodes (chapter 12's "restrict attention to
//! the base and input propositions that determine the proposition being checked").
//!
//! A cone's markings are every assignment of its base propositions and one choice per role
//! among that role's moves in the cone or "some other move". They range over reachable and
//! unreachable states and legal and illegal moves alike, a superset of what play can produce,
//! so a property that holds in every marking holds in every game. Given proved state invariants
//! (groups of which at most or exactly one proposition holds, implications), markings that
//! break one are left out: no reachable state is among them.

use crate::Group;
use propnet::net::{Kind, Net, NodeId};

/// The base and input propositions some nodes depend on.
pub(crate) struct Cone {
    /// Every node in the cone, as a mask over the net.
    member: Vec<bool>,
    /// The base propositions in the cone.
    pub bases: Vec<usize>,
    /// Per role, its moves in the cone.
    moves: Vec<Vec<usize>>,
    /// The groups with two members or more in the cone: those members, each with the value at
    /// which it counts (see [`Group::literals`]), and whether one of them must count (the group
    /// holds exactly one, all of it in the cone).
    groups: Vec<(Vec<(usize, bool)>, bool)>,
}

/// What a check sees of one block of 64 markings.
pub(crate) struct Block<'a> {
    /// Each base proposition's word (bit k: its value in marking k).
    pub base: &'a [u64],
    /// Each node's word.
    pub value: &'a [u64],
}

/// A net and its evaluation order, shared by every cone check on it.
pub(crate) struct Checker<'a> {
    net: &'a Net,
    schedule: Vec<Vec<NodeId>>,
    groups: &'a [Group],
}

impl<'a> Checker<'a> {
    /// A checker over every marking.
    pub fn new(net: &'a Net) -> Checker<'a> {
        Checker::within(net, &[])
    }

    /// A checker over the markings that satisfy the proved `groups`.
    pub fn within(net: &'a Net, groups: &'a [Group]) -> Checker<'a> {
        Checker { net, schedule: net.schedule(), groups }
    }

    /// The cone of `roots`, if it has at most `2^max_bits` markings.
    pub fn cone(&self, roots: &[NodeId], max_bits: u32) -> Option<Cone> {
        let net = self.net;
        let mut member = vec![false; net.kinds.len()];
        let mut stack = roots.to_vec();
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
        bases.sort_unstable();
        let groups = self
            .groups
            .iter()
            .filter_map(|g| {
                let inside: Vec<(usize, bool)> = g.literals().filter(|(b, _)| bases.binary_search(b).is_ok()).collect();
                let complete = g.exactly_one && g.bases.len() == inside.len();
                (inside.len() >= 2).then_some((inside, complete))
            })
            .collect();
        Some(Cone { member, bases, moves, groups })
    }

    /// Whether `violations` finds nothing in any marking of `cone` that gives the bases in
    /// `fixed` their listed values. `violations` returns, for a block of 64 markings, the lanes
    /// where the property fails.
    pub fn holds(&self, cone: &Cone, fixed: &[(usize, bool)], mut violations: impl FnMut(&Block) -> u64) -> bool {
        let mut clean = true;
        self.scan(cone, fixed, |block, valid| {
            clean = violations(block) & valid == 0;
            clean
        });
        clean
    }

    /// Shows `visit` every block of 64 markings of `cone` that give the bases in `fixed` their
    /// listed values, with the mask of lanes that hold a marking, until `visit` returns false.
    pub fn scan(&self, cone: &Cone, fixed: &[(usize, bool)], mut visit: impl FnMut(&Block, u64) -> bool) {
        let net = self.net;
        let free: Vec<usize> = cone.bases.iter().copied().filter(|i| !fixed.iter().any(|(f, _)| f == i)).collect();
        let radices: Vec<u64> = cone.moves.iter().map(|m| m.len() as u64 + 1).collect();
        let total: u64 = (1u64 << free.len()) * radices.iter().product::<u64>();
        let order: Vec<&[NodeId]> =
            self.schedule.iter().filter(|c| cone.member[c[0] as usize]).map(Vec::as_slice).collect();
        let mut base = vec![0u64; net.bases.len()];
        for &(i, v) in fixed {
            base[i] = if v { u64::MAX } else { 0 };
        }
        let mut input = vec![0u64; net.moves.len()];
        let mut value = vec![0u64; net.kinds.len()];
        for block in 0..total.div_ceil(64) {
            free.iter().for_each(|&i| base[i] = 0);
            cone.moves.iter().flatten().for_each(|&j| input[j] = 0);
            let lanes = (total - block * 64).min(64);
            for lane in 0..lanes {
                let mut index = block * 64 + lane;
                for &i in &free {
                    base[i] |= (index & 1) << lane;
                    index >>= 1;
                }
                for (role, &radix) in radices.iter().enumerate() {
                    if let Some(&j) = cone.moves[role].get((index % radix) as usize) {
                        input[j] |= 1 << lane;
                    }
                    index /= radix;
                }
            }
            let mut valid = if lanes == 64 { u64::MAX } else { (1u64 << lanes) - 1 };
            for (members, exactly_one) in &cone.groups {
                let (mut one, mut two) = (0u64, 0u64);
                for &(b, counts) in members {
                    let x = if counts { base[b] } else { !base[b] };
                    two |= one & x;
                    one |= x;
                }
                valid &= !two & if *exactly_one { one } else { u64::MAX };
            }
            if valid == 0 {
                continue;
            }
            net.evaluate_words(&order, &base, &input, &mut value);
            if !visit(&Block { base: &base, value: &value }, valid) {
                return;
            }
        }
    }
}
