//! Game-tree search on a propnet, using the structure the analysis finds: the exhaustive solver
//! of single-player games with chapter 12's dead-state removal, and depth-limited adversarial
//! search for play under a clock.

pub mod adversarial;
mod solve;

pub use adversarial::{Evaluator, GoalEvaluator, Model, SearchError, SearchResult, Searcher};
pub use solve::{solve, Solution, SolveError, SolveStats};

use machine::MachineError;

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
