//! The solver's backup: a node is proven once its result is decided by its children's proofs (a
//! mover's best proven move reaching the best achievable score, or every move proven; every joint
//! move of a simultaneous node proven equal), and proofs are ordered by score, then length.

use super::tree::{Kind, NodeRef, Proof};
use super::{Mcts, SearchMachine};

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
                match best.filter(|p| p.scores[m] >= best_possible || proofs.iter().all(Option::is_some)) {
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
}

/// Orders proven results for `role`: a higher score is better; among equal scores, a shorter
/// line if the score is the most the role can achieve (`best`), else a longer one.
pub(super) fn compare(a: &Proof, b: &Proof, role: usize, best: u8) -> std::cmp::Ordering {
    let by_depth = if a.scores[role] >= best { b.depth.cmp(&a.depth) } else { a.depth.cmp(&b.depth) };
    a.scores[role].cmp(&b.scores[role]).then(by_depth)
}
