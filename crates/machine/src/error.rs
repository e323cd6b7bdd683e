//! Errors an engine reports while answering game queries.

use thiserror::Error;

/// Why a state-machine query could not be answered.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MachineError {
    /// A joint move had the wrong number of moves.
    #[error("a joint move needs one move per role: expected {expected}, got {got}")]
    WrongMoveCount {
        /// How many roles the game has.
        expected: usize,
        /// How many moves the joint move had.
        got: usize,
    },
    /// A role's move is not among its legal moves in the state.
    #[error("illegal move {mv} for role {role}")]
    IllegalMove {
        /// The role.
        role: String,
        /// The move, printed.
        mv: String,
    },
    /// The rules derive no goal value for a role.
    #[error("the rules derive no goal value for role {role}")]
    NoGoal {
        /// The role.
        role: String,
    },
    /// The rules derive more than one goal value for a role.
    #[error("the rules derive several goal values for role {role}: {values:?}")]
    AmbiguousGoal {
        /// The role.
        role: String,
        /// Every value derived.
        values: Vec<u32>,
    },
    /// The rules misbehave in a way the query ran into (e.g. a goal value that is not a number).
    #[error("{0}")]
    Rules(String),
}
