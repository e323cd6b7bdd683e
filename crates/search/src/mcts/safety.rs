//! A material check on the move the tree picks, where the roles have pieces: each root move is
//! valued three plies deep by the piece balance (the move, every reply, the mover's best answer
//! to it; a game that ends on the way by its scores), and the player keeps to the moves that
//! do best by that measure. A tree whose leaves are valued by noisy playouts can rate a move
//! that leaves a piece to be taken for nothing within a point of its neighbours, and then play
//! it on a handful of visits; three plies of exact material cannot miss it.

use super::pieces::Balance;
use super::tree::Kind;
use super::{Mcts, SearchMachine};
use machine::MachineError;
use std::time::Instant;

/// Plies of the check: the mover's move, the reply, the mover's answer.
const PLIES: u32 = 3;

/// How far below the best check value a move may be and still count as safe: less than the
/// value of one piece, more than the small weight the balance gives a recapture.
pub(super) const SAFE_MARGIN: f64 = 0.03;

impl<M: SearchMachine> Mcts<M> {
    /// Every legal root move of `role`, valued [`PLIES`] plies deep by the piece balance since
    /// the root (0..=1 for `role`; ended games by their scores), where `role` alone moves at the
    /// root and the guide knows the pieces; `None` elsewhere, or if `deadline` passes first.
    /// The values are kept for the root they were found at, so a check made before the
    /// search (at the move's start) costs nothing when the move is chosen.
    pub fn material_check(&mut self, role: usize, deadline: Instant) -> Result<Option<Vec<f64>>, MachineError> {
        if let Some(values) = self.checked(role) {
            return Ok(Some(values.to_vec()));
        }
        let values = self.check(role, deadline)?;
        if let Some(v) = &values {
            self.checked = Some((self.root_node().state.clone(), role, v.clone()));
        }
        Ok(values)
    }

    /// The values of the last [`material_check`](Self::material_check) for `role`, if it was
    /// made at the current root.
    pub(super) fn checked(&self, role: usize) -> Option<&[f64]> {
        let (state, r, values) = self.checked.as_ref()?;
        (*r == role && state == &self.root_node().state).then_some(values.as_slice())
    }

    /// [`material_check`](Self::material_check) worked out afresh.
    fn check(&mut self, role: usize, deadline: Instant) -> Result<Option<Vec<f64>>, MachineError> {
        let Some(guide) = self.guide.clone().filter(|g| g.has_pieces()) else { return Ok(None) };
        let root = self.root_node();
        if root.kind != Kind::Mover(role) {
            return Ok(None);
        }
        let state = root.state.clone();
        let Some(words) = M::bits(&state).map(<[u64]>::to_vec) else { return Ok(None) };
        let Some((balance, _)) = guide.priors(&words, &words) else { return Ok(None) };
        let mut joint: Vec<M::Move> = (0..self.roles).map(|r| root.role_move(r, 0)).collect();
        let moves: Vec<M::Move> = (0..root.move_count(role)).map(|i| root.role_move(role, i)).collect();
        let mut values = Vec::with_capacity(moves.len());
        for mv in moves {
            joint[role] = mv;
            let next = self.machine.next_state(&state, &joint)?;
            match self.worth(&next, role, &balance, PLIES - 1, deadline)? {
                Some(v) => values.push(v),
                None => return Ok(None),
            }
        }
        Ok(Some(values))
    }

    /// `state`'s value for `role` after `plies` more plies of minimax on the balance; `None`
    /// once `deadline` has passed. Where several roles choose at once the balance stands.
    fn worth(
        &mut self,
        state: &M::State,
        role: usize,
        balance: &Balance<'_>,
        plies: u32,
        deadline: Instant,
    ) -> Result<Option<f64>, MachineError> {
        if self.machine.is_terminal(state)? {
            return Ok(Some(f64::from(self.machine.goal(state, role).unwrap_or(0).min(100)) / 100.0));
        }
        let here = M::bits(state).map_or(0.5, |bits| balance.value(bits, role));
        if plies == 0 {
            return Ok(Some(here));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        let mut legal = Vec::with_capacity(self.roles);
        for r in 0..self.roles {
            legal.push(self.machine.legal_moves(state, r)?);
        }
        let choosing: Vec<usize> = (0..self.roles).filter(|&r| legal[r].len() > 1).collect();
        let mover = match choosing[..] {
            [m] => m,
            [] => role,
            _ => return Ok(Some(here)),
        };
        // A role without a legal move in a state that has not ended: the rules are broken
        // there, and the balance is all the check can say.
        let Some(mut joint) = legal.iter().map(|l| l.first().copied()).collect::<Option<Vec<M::Move>>>() else {
            return Ok(Some(here));
        };
        let mut best: Option<f64> = None;
        for &mv in &legal[mover] {
            joint[mover] = mv;
            let next = self.machine.next_state(state, &joint)?;
            let Some(v) = self.worth(&next, role, balance, plies - 1, deadline)? else { return Ok(None) };
            best = Some(match best {
                None => v,
                Some(b) if mover == role => b.max(v),
                Some(b) => b.min(v),
            });
        }
        Ok(Some(best.unwrap_or(here)))
    }
}
