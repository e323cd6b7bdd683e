//! Game-tree search on a propnet, using the structure the analysis finds: Monte Carlo tree
//! search for any game ([`mcts`]) and the exhaustive solver of single-player games with
//! chapter 12's dead-state removal.

pub mod mcts;
mod solve;

pub use mcts::Mcts;
pub use solve::{solve, Solution, SolveError, SolveStats};
