//! The solver's backup: a node is proven once its result is decided by its children's proofs (a
//! mover's best proven move reaching the best achievable score, or every move proven; every joint
//! move of a simultaneous node proven equal), and proofs are ordered by score, then length. A
//! proof climbs the path that found it at once; a state's other parents take it up when
//! selection next passes through them.
//!
//! Where one role alone moves, the goal latches' ranges of the children also decide (chapter
//! 12's dead states, with the best a sibling guarantees as the bar): a move whose state cannot
//! reach the score another move is sure of is dominated and left alone, and a proven move at
//! least as good as every open move's best is the node's result.

use super::tree::{Kind, Node, NodeRef, Pool, Proof};
use super::{Leaf, Mcts, SearchMachine};
use machine::MachineError;

impl<M: SearchMachine> Mcts<M> {
    /// Proves `at` from its children if it can; whether it is proven now.
    pub(super) fn prove(&mut self, at: NodeRef) -> bool {
        let Some(node) = self.pool.get(at) else { return false };
        if node.proof.is_some() {
            return true;
        }
        let child_proof = |key: u64| node.child(key).and_then(|c| self.pool.get(c)).and_then(|c| c.proof.as_ref());
        let proof = match node.kind {
            Kind::End => None,
            Kind::Forced => child_proof(0).cloned(),
            Kind::Mover(m) => {
                let best_possible = node.range[m].1;
                let proofs: Vec<Option<&Proof>> = (0..node.move_count(m) as u64).map(child_proof).collect();
                let best = proofs.iter().flatten().copied().max_by(|a, b| compare(a, b, m, best_possible));
                let floor = best.map(|p| p.scores.clone());
                // The most an open move can still give the mover: its state's range, or the
                // node's where it has no node yet.
                let ceiling = (0..proofs.len()).filter(|&i| proofs[i].is_none()).map(|i| {
                    let child = node.child(i as u64).and_then(|c| self.pool.get(c));
                    child.filter(|_| self.dominance).map_or(best_possible, |c| c.range[m].1)
                });
                let ceiling = ceiling.max();
                match best.filter(|p| p.scores[m] >= best_possible || ceiling.is_none_or(|c| p.scores[m] >= c)) {
                    Some(p) => Some(p.clone()),
                    None => {
                        if let Some(node) = self.pool.get_mut(at) {
                            node.floor = floor;
                        }
                        return false;
                    }
                }
            }
            Kind::Simultaneous => {
                let all = node.joint_count == Some(node.children.len() as u64);
                let proofs: Option<Vec<&Proof>> =
                    all.then(|| node.children.iter().map(|&(k, _)| child_proof(k)).collect()).flatten();
                proofs.filter(|ps| ps.windows(2).all(|w| w[0].scores == w[1].scores)).and_then(|ps| {
                    let depth = ps.iter().map(|p| p.depth).max()?;
                    Some(Proof { scores: ps[0].scores.clone(), depth })
                })
            }
        };
        let Some(mut proof) = proof else { return false };
        proof.depth += 1;
        if let Some(node) = self.pool.get_mut(at) {
            node.proof = Some(proof);
        }
        true
    }

    /// Where `leaf`'s playout ended the game (or had its scores decided) at its first joint
    /// move with `scores`, nobody else having a choice there, and where those scores would
    /// prove the node (nobody chose, or the one role choosing got the most it can achieve
    /// there): finds a move of the node that does as well, adds its node and proves the node
    /// from it. A playout with tactics plays a decisive move wherever it sees one, so a node
    /// whose mover wins at once is proven by its first playout rather than when selection has
    /// come to try the winning move; the proof is the solver's own, from a child with a node.
    pub(super) fn prove_by_playout(&mut self, leaf: &Leaf<M>, scores: &[u8]) -> Result<(), MachineError> {
        let Some(at) = leaf.node else { return Ok(()) };
        let Some(node) = self.pool.get(at).filter(|n| n.proof.is_none()) else { return Ok(()) };
        let mover = match node.kind {
            Kind::Forced => None,
            Kind::Mover(m) if scores[m] >= node.range[m].1 => Some(m),
            _ => return Ok(()),
        };
        let state = node.state.clone();
        let mut choice = vec![0u32; self.roles];
        for i in 0..mover.map_or(1, |m| node.move_count(m)) {
            let Some(node) = self.pool.get(at) else { return Ok(()) };
            if let Some(m) = mover {
                choice[m] = i as u32;
            }
            let key = node.key(&choice);
            if node.child(key).is_some() {
                continue;
            }
            let joint: Vec<M::Move> = choice.iter().enumerate().map(|(r, &c)| node.role_move(r, c as usize)).collect();
            let next = self.machine.next_state(&state, &joint)?;
            let child = match self.pool.find(&next) {
                Some(found) => found,
                None => {
                    let described = self.describe(next)?;
                    let wins = described.proof.as_ref().is_some_and(|p| mover.is_none_or(|m| p.scores[m] >= scores[m]));
                    if !wins {
                        continue;
                    }
                    match self.pool.insert(described, self.root, self.tick) {
                        Ok(made) => made,
                        Err(_) => return Ok(()),
                    }
                }
            };
            if let Some(node) = self.pool.get_mut(at) {
                node.set_child(key, child);
            }
            if self.prove(at) {
                break;
            }
        }
        Ok(())
    }

    /// Proves the open node `at` from proofs its children gained by other paths, if it can;
    /// whether it is proven now. A proof goes up only the path of the iteration that found it,
    /// but a state reached by several orders of moves has other parents: each learns of it
    /// here, when selection next comes through (it never chooses a proven child again while
    /// another is open). It counts its proven children and tries only when there are more
    /// than the last time it looked.
    pub(super) fn prove_from_children(&mut self, at: NodeRef) -> bool {
        let Some(node) = self.pool.get(at).filter(|n| n.proof.is_none()) else { return false };
        let proven = node.children.iter().filter(|&&(_, c)| self.pool.get(c).is_some_and(|c| c.proof.is_some()));
        let proven = proven.count() as u32;
        if proven <= node.proven_children {
            return false;
        }
        if let Some(node) = self.pool.get_mut(at) {
            node.proven_children = proven;
        }
        self.prove(at)
    }
}

/// The least score `role`, moving alone at `node`, is sure of by one of the moves that have a
/// node: a proven move's score, or the least its state's goal latches leave it.
pub(super) fn sure<M: SearchMachine>(pool: &Pool<M>, node: &Node<M>, role: usize) -> u8 {
    let children = node.children.iter().filter_map(|&(_, c)| pool.get(c));
    children.map(|c| c.proof.as_ref().map_or(c.range[role].0, |p| p.scores[role])).max().unwrap_or(0)
}

/// Whether the move of `role`, which alone moves, to `child` (its node, if it has one) is open
/// and dominated: its state cannot reach `sure`, the score another move is sure of.
pub(super) fn dominated<M: SearchMachine>(child: Option<&Node<M>>, role: usize, sure: u8) -> bool {
    child.is_some_and(|c| c.proof.is_none() && c.range[role].1 < sure)
}

/// Orders proven results for `role`: a higher score is better; among equal scores, a shorter
/// line if the score is the most the role can achieve (`best`), else a longer one.
pub(super) fn compare(a: &Proof, b: &Proof, role: usize, best: u8) -> std::cmp::Ordering {
    let by_depth = if a.scores[role] >= best { b.depth.cmp(&a.depth) } else { a.depth.cmp(&b.depth) };
    a.scores[role].cmp(&b.scores[role]).then(by_depth)
}
