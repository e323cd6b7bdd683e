//! How the search models the other roles.
//!
//! Zero-sum must be established, not assumed: a game whose goals do not sum to a constant would
//! have the search believe the opponent hurts itself to hurt us. [`analysis::zero_sum`] proves it.

use analysis::zero_sum;
use propnet::net::Net;
use serde::Serialize;

/// How the other roles are assumed to choose their moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "model")]
pub enum Model {
    /// Two players whose goal values sum to `sum` in every terminal state: each maximising its own
    /// score is the other minimising it, so the search is exact minimax with alpha-beta pruning,
    /// and leaves weigh the opponent's estimate as well as ours.
    Minimax {
        /// The constant sum of the two goal values.
        sum: u32,
    },
    /// Every other role plays against us, jointly (the paranoid assumption): sound for any number
    /// of roles and any goals, pessimistic where the others really pursue their own ends.
    Paranoid,
}

impl Model {
    /// The model for the game of `net`: minimax when it is proved two-player zero-sum, else
    /// paranoid.
    pub fn of(net: &Net) -> Model {
        zero_sum(net).map_or(Model::Paranoid, |sum| Model::Minimax { sum })
    }
}
