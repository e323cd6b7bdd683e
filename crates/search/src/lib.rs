//! Game-tree search on a propnet, using the structure the analysis finds: for now the
//! exhaustive solver of single-player games with chapter 12's dead-state removal.

mod solve;

pub use solve::{solve, Solution, SolveError, SolveStats};
