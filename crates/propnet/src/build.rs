//! From ground rules to a propnet (chapter 13): a base proposition for every `true` atom, an
//! input proposition for every `does` atom, and for every other atom an OR over its rules, each
//! rule an AND of its literals (NOT gates for negated ones).
//!
//! What the optimiser would only remove again is not built: an atom with one rule is that rule's
//! AND (or NOT, or the node of its one literal), and rules of different atoms with the same body
//! share one AND. With the grounder leaving out literals that hold in every state, chess's net
//! is built with 1.7 million nodes instead of 5.0 million, and optimised to the same net.

use crate::ground::{AtomRef, GroundRule, Grounded};
use crate::net::{BaseProp, Kind, MoveProp, Net, NodeId};
use gdl::{Sym, TermId};
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};
use std::hash::BuildHasher;
use std::time::Instant;
use thiserror::Error;

/// Why a ground game cannot become a propnet.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BuildError {
    /// A goal value is not a number from 0 to 100.
    #[error("goal value {value} of role {role} is not a number from 0 to 100")]
    BadGoal {
        /// The role.
        role: String,
        /// The value as written.
        value: String,
    },
    /// The deadline passed.
    #[error("building the net ran out of time")]
    Timeout,
}

/// What the node of an atom concluded by a rule is.
enum Shape {
    /// The atom's one rule's one positive literal: that atom's node.
    Same(AtomRef),
    /// The atom's one rule's one negative literal: its NOT.
    Not,
    /// The atom's one rule's body of any other length.
    And,
    /// An OR over the atom's rules.
    Or,
}

/// Builds the (unoptimised) propnet of a ground game, or gives up within a few milliseconds of
/// `deadline`.
pub fn build(g: &Grounded, deadline: Option<Instant>) -> Result<Net, BuildError> {
    // The clock is read every 16,384 atoms or rules: a few milliseconds of work at most.
    let late = |k: usize| crate::past(deadline, k, 16_384);
    let mut net = Net {
        kinds: Vec::new(),
        inputs: Vec::new(),
        labels: Vec::new(),
        roles: g.roles.iter().map(|r| r.to_string()).collect(),
        bases: Vec::new(),
        moves: Vec::new(),
        goals: vec![Vec::new(); g.roles.len()],
        terminal: 0,
    };
    let rel = |name: Sym| g.relation(name);
    let count = |r: Option<u32>| r.map_or(0, |r| g.relations[r as usize].count);
    let text = |t: TermId| g.pool.to_string(t);

    // Base and input propositions for every `true` and `does` atom; a gate for every atom that
    // some rule concludes (below). Any other atom can never hold: it reads the constant false.
    let falsity = net.add(Kind::Const(false), Vec::new(), None);
    let mut atom_node: Vec<Vec<NodeId>> = g.relations.iter().map(|r| vec![falsity; r.count as usize]).collect();
    // Past the deadline at step `k`: the net so far is freed aside and the build gives up.
    macro_rules! give_up_if_late {
        ($k:expr) => {
            if late($k) {
                crate::drop_aside((net, atom_node));
                return Err(BuildError::Timeout);
            }
        };
    }
    let role_index: FxHashMap<TermId, usize> =
        g.roles.iter().enumerate().filter_map(|(i, &r)| g.pool.find_constant(r).map(|t| (t, i))).collect();
    for (r, relation) in g.relations.iter().enumerate() {
        for idx in 0..relation.count {
            give_up_if_late!(idx as usize);
            let atom = AtomRef { rel: r as u32, idx };
            let args = g.args(atom);
            atom_node[r][idx as usize] = match relation.name {
                Sym::TRUE => {
                    let i = net.bases.len() as u32;
                    let node = net.add(Kind::Base(i), Vec::new(), Some(g.atom_text(atom)));
                    net.bases.push(BaseProp::new(text(args[0]), node, falsity, false));
                    node
                }
                Sym::DOES => match role_index.get(&args[0]) {
                    Some(&role) => {
                        let j = net.moves.len() as u32;
                        let node = net.add(Kind::Input(j), Vec::new(), Some(g.atom_text(atom)));
                        net.moves.push(MoveProp { role, name: text(args[1]), node, legal: falsity });
                        node
                    }
                    None => falsity,
                },
                _ => continue,
            };
        }
    }
    // An atom concluded by one rule is that rule's body (an OR of one input would only be folded
    // away again: chess has nearly a million): an AND of its literals, the NOT of its one
    // negative literal, or the very node of its one positive literal.
    let mut rules_of: Vec<Vec<u32>> = g.relations.iter().map(|r| vec![0; r.count as usize]).collect();
    for (k, rule) in g.rules.iter().enumerate() {
        give_up_if_late!(k);
        let n = &mut rules_of[rule.head.rel as usize][rule.head.idx as usize];
        *n = n.saturating_add(1);
    }
    let shape = |rule: &GroundRule| match (
        rules_of[rule.head.rel as usize][rule.head.idx as usize],
        &rule.pos[..],
        &rule.neg[..],
    ) {
        (1, &[atom], []) => Shape::Same(atom),
        (1, [], [_]) => Shape::Not,
        (1, _, _) => Shape::And,
        _ => Shape::Or,
    };
    let mut same: FxHashMap<AtomRef, AtomRef> = FxHashMap::default();
    for (k, rule) in g.rules.iter().enumerate() {
        give_up_if_late!(k);
        let head = rule.head;
        let kind = match shape(rule) {
            Shape::Same(atom) => {
                same.insert(head, atom);
                continue;
            }
            Shape::Not => Kind::Not,
            Shape::And => Kind::And,
            Shape::Or => Kind::Or,
        };
        if atom_node[head.rel as usize][head.idx as usize] == falsity {
            let node = net.add(kind, Vec::new(), Some(g.atom_text(head)));
            atom_node[head.rel as usize][head.idx as usize] = node;
        }
    }
    // Atoms that are another atom take its node, following chains; a cycle of them never holds
    // (the least fixpoint), nor does a chain into one.
    let mut order: Vec<AtomRef> = same.keys().copied().collect();
    order.sort_unstable();
    let (mut chain, mut on_chain) = (Vec::new(), FxHashSet::default());
    for (k, atom) in order.into_iter().enumerate() {
        give_up_if_late!(k);
        let mut at = atom;
        let node = loop {
            match same.get(&at) {
                None => break atom_node[at.rel as usize][at.idx as usize],
                Some(_) if !on_chain.insert(at) => break falsity,
                Some(&next) => {
                    chain.push(at);
                    at = next;
                }
            }
        };
        on_chain.clear();
        for a in chain.drain(..) {
            atom_node[a.rel as usize][a.idx as usize] = node;
            same.remove(&a);
        }
    }
    let node_of = |a: AtomRef| atom_node[a.rel as usize][a.idx as usize];

    // The rules.
    let mut negation: FxHashMap<NodeId, NodeId> = FxHashMap::default();
    let mut conjunctions: FxHashMap<u64, NodeId> = FxHashMap::default();
    for (k, rule) in g.rules.iter().enumerate() {
        give_up_if_late!(k);
        let head = node_of(rule.head);
        let shape = shape(rule);
        match shape {
            Shape::Same(_) => continue,
            Shape::Not => {
                let n = node_of(rule.neg[0]);
                net.inputs[head as usize] = vec![n];
                negation.entry(n).or_insert(head);
                continue;
            }
            Shape::And | Shape::Or => {}
        }
        let mut body: Vec<NodeId> = rule.pos.iter().map(|&a| node_of(a)).collect();
        for &a in &rule.neg {
            let n = node_of(a);
            let not = *negation.entry(n).or_insert_with(|| net.add(Kind::Not, vec![n], None));
            body.push(not);
        }
        body.sort_unstable();
        body.dedup();
        if matches!(shape, Shape::And) {
            net.inputs[head as usize] = body;
            continue;
        }
        let conj = match body.as_slice() {
            [single] => *single,
            _ => {
                // Rules of different heads often have the same body (their heads differ only
                // in arguments the body reads through facts, which are left out): one AND each.
                let next = net.kinds.len() as NodeId;
                let seen = *conjunctions.entry(FxBuildHasher.hash_one(&body)).or_insert(next);
                if seen != next && net.inputs[seen as usize] == body {
                    seen
                } else {
                    net.add(Kind::And, body, None)
                }
            }
        };
        net.inputs[head as usize].push(conj);
    }

    // Outputs.
    let find =
        |name: Sym, args: &[TermId]| rel(name).and_then(|r| g.relations[r as usize].find(args).map(|idx| (r, idx)));
    for i in 0..net.bases.len() {
        let term = g.args(AtomRef { rel: rel(Sym::TRUE).unwrap_or(0), idx: i as u32 })[0];
        net.bases[i].next = find(Sym::NEXT, &[term]).map_or(falsity, |(r, idx)| node_of(AtomRef { rel: r, idx }));
    }
    let does = rel(Sym::DOES);
    let mut j = 0;
    for idx in 0..count(does) {
        let args = g.args(AtomRef { rel: does.unwrap_or(0), idx });
        if !role_index.contains_key(&args[0]) {
            continue;
        }
        net.moves[j].legal = find(Sym::LEGAL, args).map_or(falsity, |(r, idx)| node_of(AtomRef { rel: r, idx }));
        j += 1;
    }
    if let Some(goal) = rel(Sym::GOAL) {
        for idx in 0..g.relations[goal as usize].count {
            let atom = AtomRef { rel: goal, idx };
            let args = g.args(atom);
            let Some(&role) = role_index.get(&args[0]) else { continue };
            let value = Some(args[1]).filter(|&v| g.pool.is_constant(v)).and_then(|v| g.pool.functor(v).as_number());
            match value.filter(|&v| v <= 100) {
                Some(v) => net.goals[role].push((v, node_of(atom))),
                None => return Err(BuildError::BadGoal { role: net.roles[role].clone(), value: text(args[1]) }),
            }
        }
    }
    for goals in &mut net.goals {
        goals.sort_unstable();
    }
    net.terminal = find(Sym::TERMINAL, &[]).map_or(falsity, |(r, idx)| node_of(AtomRef { rel: r, idx }));

    // The initial state: `init` depends on nothing that changes, so any marking evaluates it;
    // only what the `init` atoms read is evaluated.
    if late(0) {
        crate::drop_aside(net);
        return Err(BuildError::Timeout);
    }
    let init_nodes: Vec<Option<NodeId>> = (0..net.bases.len())
        .map(|i| {
            let term = g.args(AtomRef { rel: rel(Sym::TRUE).unwrap_or(0), idx: i as u32 })[0];
            find(Sym::INIT, &[term]).map(|(r, idx)| node_of(AtomRef { rel: r, idx }))
        })
        .collect();
    let n = net.kinds.len();
    let roots = init_nodes.iter().flatten().copied();
    let Some(cone) = structures::Components::of_until(&net.inputs, n, roots, &mut |k| late(k)) else {
        crate::drop_aside(net);
        return Err(BuildError::Timeout);
    };
    let order: Vec<&[NodeId]> = (0..cone.len()).map(|c| cone.members(c)).collect();
    let mut values = vec![0u64; n];
    net.evaluate_words(&order, &vec![0; net.bases.len()], &vec![0; net.moves.len()], &mut values);
    for (base, node) in net.bases.iter_mut().zip(init_nodes) {
        base.init = node.is_some_and(|v| values[v as usize] & 1 != 0);
    }
    Ok(net)
}

#[cfg(test)]
mod tests {
    use crate::net::{Kind, Net};

    fn raw(text: &str) -> Net {
        let (desc, _) = gdl::load("test", text).expect("valid");
        crate::build(&desc, &Default::default()).expect("builds")
    }

    const GAME: &str = "
        (role r)
        (cell 1) (cell 2) (cell 3)
        (init (on 1))
        (<= (legal r (go ?c)) (true (on ?x)) (cell ?c) (distinct ?x ?c))
        (<= (next (on ?c)) (does r (go ?c)))
        (<= (here ?c) (true (on ?c)) (cell ?c))
        (<= (pair ?c) (true (on ?c)) (true (on 1)))
        (<= (pair ?c) (true (on ?c)) (true (on 2)))
        (<= (twin ?c) (true (on ?c)) (true (on 1)))
        (<= (twin ?c) (true (on ?c)) (true (on 3)))
        (<= terminal (here 3))
        (<= (goal r 100) (pair 3))
        (<= (goal r 50) (twin 3) (not (pair 3)))
        (<= (goal r 0) (not (here 3)))";

    #[test]
    fn only_what_the_optimiser_would_keep_is_built() {
        let net = raw(GAME);
        let label = |n: usize| net.labels[n].as_deref().unwrap_or("");
        for (n, kind) in net.kinds.iter().enumerate() {
            let inputs = &net.inputs[n];
            // `(here 3)` has one rule, whose one literal left is `(true (on 3))`: it is that base.
            assert!(!(matches!(kind, Kind::Or) && inputs.len() == 1), "an OR of one input: {}", label(n));
            assert!(!label(n).contains("cell"), "a fact is read: {}", label(n));
        }
        assert!(net.labels.iter().all(|l| l.as_deref() != Some("(here 3)")));
        // `(pair 3)` and `(twin 3)` share the body `(true (on 3)) (true (on 1))`.
        let ands: Vec<Vec<u32>> = (0..net.kinds.len())
            .filter(|&n| net.kinds[n] == Kind::And)
            .map(|n| {
                let mut ins = net.inputs[n].clone();
                ins.sort_unstable();
                ins
            })
            .collect();
        let distinct: std::collections::BTreeSet<&Vec<u32>> = ands.iter().collect();
        assert_eq!(distinct.len(), ands.len(), "two ANDs of one input set: {ands:?}");
        // The initial state's fact, `(goal r 50)`'s body, and `(pair 3)`'s two (`(twin 3)`'s
        // second is `(true (on 3))` alone).
        assert_eq!(ands.len(), 4, "{ands:?}");
    }
}
