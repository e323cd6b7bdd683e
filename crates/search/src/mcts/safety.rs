//! A material check on the move the tree picks, where the roles have pieces: each root move is
//! valued a few plies deep by the piece balance (the move, every reply, the mover's best answer
//! to it, and so on; a game that ends on the way by its scores), and the player keeps to the
//! moves that do best by that measure. A tree whose leaves are valued by noisy playouts can rate
//! a move that leaves a piece to be taken for nothing within a point of its neighbours, and then
//! play it on a handful of visits; a few plies of exact material cannot miss it. The check
//! deepens by alpha-beta from three plies to five (`MctsConfig::check_plies`) while its time
//! lasts, since five plies also see a threat of two moves: a piece that reaches the last rank
//! unless it is stopped at once. The check is the adversarial search
//! ([`crate::adversarial::Searcher`]) on the tree's own machine, with the balance as its
//! evaluator and the other roles minimising it.

use super::tree::Kind;
use super::{Mcts, SearchMachine};
use crate::adversarial::{AlphaBetaConfig, Model, SearchError, Searcher};
use machine::MachineError;
use metagame::{Balance, Evaluator};
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

/// Transposition table slots of a check: its searches visit thousands to a few hundred
/// thousand states.
const TABLE_ENTRIES: usize = 1 << 16;

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

    /// [`material_check`](Self::material_check) worked out afresh: iterative deepening by two
    /// plies at a time, so that each iteration ends on `role`'s own move, the values of the
    /// deepest iteration finished before `deadline`, in the tree's order of the root's moves.
    fn check(&mut self, role: usize, deadline: Instant) -> Result<Option<Vec<f64>>, MachineError> {
        let Some(knowledge) = self.knowledge.clone().filter(|g| g.pieces().is_some()) else { return Ok(None) };
        let root = self.root_node();
        if root.kind != Kind::Mover(role) {
            return Ok(None);
        }
        let state = root.state.clone();
        let moves: Vec<M::Move> = (0..root.move_count(role)).map(|i| root.role_move(role, i)).collect();
        let Some(words) = M::bits(&state).map(<[u64]>::to_vec) else { return Ok(None) };
        let Some((balance, _)) = knowledge.priors(&words, &words, 0.0) else { return Ok(None) };
        let roles = self.roles;
        let legal = self.machine.legal_moves(&state, role)?;
        let last = self.config.check_plies.max(1);
        let depths = (FIRST_PLIES.min(last)..=last).step_by(2);
        let options = AlphaBetaConfig { max_depth: last, table_entries: TABLE_ENTRIES, ordering: true };
        let evaluator = Material { balance, roles };
        let searched = Searcher::new(&mut self.machine, role, Model::Paranoid, evaluator, options)
            .and_then(|mut s| s.move_values(&state, depths, SAFE_MARGIN * 100.0, deadline));
        let values = match searched {
            Ok(Some(values)) => values,
            Ok(None) | Err(SearchError::Terminal | SearchError::NoLegalMove | SearchError::NoSuchRole(_)) => {
                return Ok(None)
            }
            Err(SearchError::Machine(e)) => return Err(e),
        };
        // The tree's moves are the machine's legal moves, in an order of the tree's own.
        let value = |mv: &M::Move| legal.iter().position(|l| l == mv).map(|i| values[i] / 100.0);
        Ok(moves.iter().map(value).collect())
    }
}

/// The piece balance since the root as an evaluator: each role's share of the material change,
/// in goal points (50, even, where the machine has no bits to read).
struct Material<'a> {
    balance: Balance<'a>,
    roles: usize,
}

impl<M: SearchMachine> Evaluator<&mut M> for Material<'_> {
    fn evaluate(&mut self, _: &mut &mut M, state: &M::State) -> Vec<f64> {
        (0..self.roles).map(|role| 100.0 * M::bits(state).map_or(0.5, |bits| self.balance.value(bits, role))).collect()
    }
}
