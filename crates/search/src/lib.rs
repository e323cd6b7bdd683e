//! Game-tree search on a propnet, using the structure the analysis finds: optimal plans for
//! single-player games by iterative-deepening A* under a lower bound found in the net
//! (`puzzle`, `bound`), the exhaustive solver with chapter 12's dead-state removal
//! (`exhaustive`), kept as the reference the heuristic search is measured against, and
//! depth-limited adversarial search for play under a clock (`adversarial`), Monte Carlo tree
//! search for any game ([`mcts`]), with a tree per factor where several sub-games each decide the
//! game ([`factored`]), the local forced-win search of games whose moves act locally
//! ([`local`]), and the equilibrium of a state whose every joint move ends the game
//! ([`matrix`]).

#![warn(missing_docs)]

pub mod adversarial;
mod bound;
mod exhaustive;
pub mod factored;
pub mod local;
pub mod matrix;
pub mod mcts;
mod puzzle;

pub use adversarial::{Model, SearchError, SearchResult, Searcher};
pub use bound::{Bound, UNREACHABLE};
pub use exhaustive::exhaustive;
pub use local::{LocalResult, LocalSearch};
pub use matrix::NormalForm;
pub use mcts::Mcts;
pub use puzzle::{solve, SolveConfig};

use analysis::Factors;
use machine::{MachineError, StateMachine};
use propnet::{PropnetMachine, PropnetState};
use serde::Serialize;

/// How much work a search did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SolveStats {
    /// States searched: the initial state and every successor that was not pruned (summed over
    /// passes).
    pub nodes: u64,
    /// Successor states computed and then dropped as dead.
    pub pruned: u64,
    /// Complete passes: one per satisfactory threshold tried (exhaustive), one per bound tried
    /// (iterative deepening).
    pub passes: u32,
    /// The lower bound on the moves to the best score at the start, where the search used one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<u32>,
}

/// The outcome of solving a single-player game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Solution {
    /// The best score found, if any terminal state was reached.
    pub score: Option<u32>,
    /// The moves that reach it, in KIF.
    pub plan: Vec<String>,
    /// Whether the score is proved optimal (the search was not cut short); for [`solve`], also
    /// that no shorter plan reaches it.
    pub optimal: bool,
    /// Whether the plan plays one factor of several that matter, moves of others standing in
    /// for passes: the shortest such plan to its score, which is the best there is only where
    /// no goal value is higher.
    pub one_factor: bool,
    /// The work done.
    pub stats: SolveStats,
}

/// Why a game cannot be solved.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// The game has more than one role.
    #[error("solving needs a single-player game; this one has {0} roles")]
    NotSinglePlayer(usize),
    /// The rules misbehaved during the search.
    #[error(transparent)]
    Machine(#[from] MachineError),
}

/// The single role's legal moves in `state`, with those of factors search leaves aside
/// collapsed to one when `factors` is given.
pub(crate) fn legal_moves(
    m: &mut PropnetMachine,
    state: &PropnetState,
    factors: Option<&Factors>,
) -> Result<Vec<u32>, MachineError> {
    let mut moves = m.legal_moves(state, 0)?;
    if let Some(f) = factors {
        f.relevant_moves(&mut moves, |&j| j);
    }
    Ok(moves)
}

/// Why a search ended early.
pub(crate) enum Stop {
    /// The rules misbehaved.
    Machine(MachineError),
    /// The deadline passed.
    OutOfTime,
}

impl From<MachineError> for Stop {
    fn from(e: MachineError) -> Stop {
        Stop::Machine(e)
    }
}
