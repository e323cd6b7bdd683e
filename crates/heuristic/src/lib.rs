//! Fuzzy-logic goal heuristics (chapter 16.2–16.4): how nearly a state satisfies each role's goal
//! formulas, from the rules alone.
//!
//! A `true(p)` atom has the degree τ when `p` holds and `1 − τ` when it does not; atoms that do
//! not depend on the state are 1 or 0; a conjunction is a t-norm of its conjuncts, a disjunction
//! (and an atom defined by several rules or instances) its dual t-conorm, a negation `1 − x`.
//! Each role's goal values then combine into one value from 0 to 100.
//!
//! [`Formulas`] instantiates the goal formulas as the rules write them; [`FuzzyGoals`] compiles
//! them for one set of [`Params`] into a flat circuit that evaluates a [`propnet::PropnetState`]
//! in one pass, optionally refined by the latches the `analysis` crate finds.

#![warn(missing_docs)]

mod circuit;
mod formulas;
mod latches;
mod params;

pub use circuit::{CircuitStats, FuzzyGoals, GoalDegree, Latched};
pub use formulas::Formulas;
pub use params::{Norm, ParamError, Params};

use thiserror::Error;

/// Why the heuristics of a game cannot be built.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Error {
    /// The parameters are out of range.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// The relaxed model of the rules could not be computed within limits.
    #[error(transparent)]
    Ground(#[from] propnet::GroundError),
    /// The instantiated formulas grew past the gate cap.
    #[error("the goal formulas need more than {0} gates")]
    TooLarge(usize),
    /// Instantiation passed its deadline.
    #[error("instantiating the goal formulas ran out of time")]
    Timeout,
    /// A rule has a shape the instantiation cannot handle.
    #[error("cannot instantiate the goal formulas: {0}")]
    Unsupported(String),
    /// A goal value is not a number from 0 to 100.
    #[error("goal value {value} of role {role} is not a number from 0 to 100")]
    BadGoal {
        /// The role.
        role: String,
        /// The value as written.
        value: String,
    },
}
