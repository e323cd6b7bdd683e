//! A material check on the move the tree picks, where the roles have pieces: each root move is
//! valued a few plies deep by the piece balance (the move, every reply, the mover's best answer
//! to it, and so on; a game that ends on the way by its scores), and the player keeps to the
//! moves that do best by that measure. A tree whose leaves are valued by noisy playouts can rate
//! a move that leaves a piece to be taken for nothing within a point of its neighbours, and then
//! play it on a handful of visits; a few plies of exact material cannot miss it. The check
//! deepens by alpha-beta from three plies to five (`MctsConfig::check_plies`) while its time
//! lasts, since five plies also see a threat of two moves: a piece that reaches the last rank
//! unless it is stopped at once.

use super::tree::Kind;
use super::{Mcts, SearchMachine};
use machine::MachineError;
use metagame::Balance;
use std::time::Instant;

/// Plies of the first, always completed, iteration: the mover's move, the reply, the answer.
const FIRST_PLIES: u32 = 3;

/// Plies of the deepest iteration unless configured otherwise (`MctsConfig::check_plies`;
/// Breakthrough's midgame: 10 ms for three, 20–500 ms for five on one core). Odd, so that each
/// iteration ends on the mover's own move and the balance at its horizon never counts a capture
/// the mover could answer at once.
pub(super) const CHECK_PLIES: u32 = 5;

/// How far below the best check value a move may be and still count as safe: less than the
/// value of one piece, more than the small weight the balance gives a recapture.
pub(super) const SAFE_MARGIN: f64 = 0.03;

impl<M: SearchMachine> Mcts<M> {
    /// Every legal root move of `role`, valued [`FIRST_PLIES`] to `MctsConfig::check_plies`
    /// plies deep by the piece balance since the root (0..=1 for `role`; ended games by their
    /// scores; a move short of the best by more than [`SAFE_MARGIN`] may get an upper bound
    /// instead), where `role` alone moves at the root and the knowledge knows the pieces; `None`
    /// elsewhere, or if `deadline` passes before the first iteration ends.
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

    /// [`material_check`](Self::material_check) worked out afresh: iterative deepening, the
    /// values of the deepest iteration finished before `deadline` (`None` if not even the first).
    /// Each iteration tries the root moves best first by the one before, and searches each after
    /// the first only for whether it comes within [`SAFE_MARGIN`] of the best so far: a move that
    /// does gets its exact value, one that does not an upper bound below the safe range, which
    /// is all the move's choice needs.
    fn check(&mut self, role: usize, deadline: Instant) -> Result<Option<Vec<f64>>, MachineError> {
        let Some(knowledge) = self.knowledge.clone().filter(|g| g.pieces().is_some()) else { return Ok(None) };
        let root = self.root_node();
        if root.kind != Kind::Mover(role) {
            return Ok(None);
        }
        let state = root.state.clone();
        let Some(words) = M::bits(&state).map(<[u64]>::to_vec) else { return Ok(None) };
        let Some((balance, _)) = knowledge.priors(&words, &words, 0.0) else { return Ok(None) };
        let mut joint: Vec<M::Move> = (0..self.roles).map(|r| root.role_move(r, 0)).collect();
        let moves: Vec<M::Move> = (0..root.move_count(role)).map(|i| root.role_move(role, i)).collect();
        let children = self.successors(&state, &mut joint, role, &moves)?;
        let mut found: Option<Vec<f64>> = None;
        let last = self.config.check_plies.max(1);
        let mut plies = FIRST_PLIES.min(last);
        while plies <= last {
            let mut order: Vec<usize> = (0..moves.len()).collect();
            if let Some(values) = &found {
                order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
            }
            let mut values = vec![0.0; moves.len()];
            let mut best = f64::NEG_INFINITY;
            for i in order {
                let alpha = best - SAFE_MARGIN - 1e-9;
                let Some(v) =
                    self.alpha_beta(&children[i], role, &balance, plies - 1, (alpha, f64::INFINITY), deadline)?
                else {
                    return Ok(found);
                };
                values[i] = v;
                best = best.max(v);
            }
            found = Some(values);
            plies += 2;
        }
        Ok(found)
    }

    /// `state`'s value for `role` after `plies` more plies of alpha-beta minimax on the balance
    /// within the window (alpha, beta): exact inside it, a bound at or beyond the edge it
    /// passes; `None` once `deadline` has passed. Where several roles choose at once the
    /// balance stands.
    fn alpha_beta(
        &mut self,
        state: &M::State,
        role: usize,
        balance: &Balance<'_>,
        plies: u32,
        (mut alpha, mut beta): (f64, f64),
        deadline: Instant,
    ) -> Result<Option<f64>, MachineError> {
        if self.machine.is_terminal(state)? {
            return Ok(Some(f64::from(self.machine.played_goal(state, role)?.min(100)) / 100.0));
        }
        let here = material::<M>(state, balance, role);
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
        let maximising = mover == role;
        let mut children = self.successors(state, &mut joint, mover, &legal[mover])?;
        // Captures first, for the mover: the cut-offs come from the strongest move.
        if plies > 1 {
            let mut keyed: Vec<(f64, M::State)> =
                children.into_iter().map(|s| (material::<M>(&s, balance, role), s)).collect();
            keyed.sort_by(|a, b| if maximising { b.0.total_cmp(&a.0) } else { a.0.total_cmp(&b.0) });
            children = keyed.into_iter().map(|(_, s)| s).collect();
        }
        let mut best: Option<f64> = None;
        for next in &children {
            let Some(v) = self.alpha_beta(next, role, balance, plies - 1, (alpha, beta), deadline)? else {
                return Ok(None);
            };
            if maximising {
                best = Some(best.map_or(v, |b: f64| b.max(v)));
                alpha = alpha.max(v);
            } else {
                best = Some(best.map_or(v, |b: f64| b.min(v)));
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        Ok(Some(best.unwrap_or(here)))
    }

    /// The states after each of `moves` played by `mover`, the others playing as in `joint`.
    fn successors(
        &mut self,
        state: &M::State,
        joint: &mut [M::Move],
        mover: usize,
        moves: &[M::Move],
    ) -> Result<Vec<M::State>, MachineError> {
        let mut next = Vec::with_capacity(moves.len());
        for &mv in moves {
            joint[mover] = mv;
            next.push(self.machine.next_state(state, joint)?);
        }
        Ok(next)
    }
}

/// `state`'s piece balance for `role` (0.5, even, where the machine has no bits to read).
fn material<M: SearchMachine>(state: &M::State, balance: &Balance<'_>, role: usize) -> f64 {
    M::bits(state).map_or(0.5, |bits| balance.value(bits, role))
}
