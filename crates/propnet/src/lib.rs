//! Propositional networks (chapter 13): GDL rules grounded and compiled into a circuit of
//! AND/OR/NOT gates between base, input and view propositions, optimised, and run fast.

#![warn(missing_docs)]

pub mod build;
pub mod cut;
pub mod dot;
pub mod ground;
pub mod kleene;
pub mod net;
pub mod optimize;
pub mod runtime;

pub use build::BuildError;
pub use ground::{GroundError, Limits};
pub use net::{Kind, Net, NodeId};
pub use runtime::{GoalOracle, LaneEnd, MovePolicy, Program, PropnetMachine, PropnetState, Step, Watch};

use thiserror::Error;

/// Why a propnet could not be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Error {
    /// Grounding gave up (too large or too slow).
    #[error(transparent)]
    Ground(#[from] GroundError),
    /// The ground rules do not make a playable net.
    #[error(transparent)]
    Build(#[from] BuildError),
}

/// Grounds a validated description and builds its (unoptimised) propnet within `limits`.
pub fn build(desc: &gdl::Description, limits: &Limits) -> Result<Net, Error> {
    let grounded = ground::ground(desc, limits)?;
    Ok(build::build(&grounded)?)
}

/// Grounds, builds and optimises the propnet of a validated description within `limits`: the
/// net that players, analyses and benchmarks run on. Past the deadline no optimisation pass
/// begins: the net is returned as far as it was optimised.
pub fn compile(desc: &gdl::Description, limits: &Limits) -> Result<Net, Error> {
    let passes = optimize::Passes { deadline: limits.deadline, ..optimize::Passes::default() };
    Ok(optimize::optimize_with(&build(desc, limits)?, &passes).0)
}
