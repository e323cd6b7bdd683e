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
pub use runtime::{
    GoalOracle, LaneEnd, MovePolicy, Program, ProgramStats, PropnetMachine, PropnetState, Step, Stepper, Watch,
};

use std::time::Instant;
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
    let net = build::build(&grounded, limits.deadline);
    // A small game's rules are freed at once: a thread would cost more.
    if grounded.rules.len() > 1 << 16 {
        drop_aside(grounded);
    }
    Ok(net?)
}

/// Drops `x` on a thread of its own: a grounded game or a net of a million gates holds millions
/// of allocations, whose freeing takes a tenth of a second or more, time a build that has run out
/// of it does not have.
pub(crate) fn drop_aside<T: Send + 'static>(x: T) {
    let _ = std::thread::Builder::new().name("drop".into()).spawn(move || drop(x));
}

/// A value that, where `aside`, is freed by [`drop_aside`] when it goes out of scope: the
/// tables of a large net that a phase drops on every way out, those past its deadline included.
pub(crate) struct Aside<T: Send + 'static> {
    value: Option<T>,
    aside: bool,
}

impl<T: Send + 'static> Aside<T> {
    pub(crate) fn new(value: T, aside: bool) -> Aside<T> {
        Aside { value: Some(value), aside }
    }
}

impl<T: Send + 'static> std::ops::Deref for Aside<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value.as_ref().expect("held until dropped")
    }
}

impl<T: Send + 'static> std::ops::DerefMut for Aside<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.value.as_mut().expect("held until dropped")
    }
}

impl<T: Send + 'static> Drop for Aside<T> {
    fn drop(&mut self) {
        if let (Some(value), true) = (self.value.take(), self.aside) {
            drop_aside(value);
        }
    }
}

/// Grounds, builds and optimises the propnet of a validated description within `limits`: the
/// net that players, analyses and benchmarks run on. Each phase gives up within milliseconds of
/// the deadline.
pub fn compile(desc: &gdl::Description, limits: &Limits) -> Result<Net, Error> {
    let passes = optimize::Passes { deadline: limits.deadline, ..optimize::Passes::default() };
    match optimize::optimize_by(build(desc, limits)?, &passes) {
        Some((net, _)) => Ok(net),
        None => Err(BuildError::Timeout.into()),
    }
}

/// Whether `deadline` has passed, the clock read at step `k` of a loop only when `k` is a multiple
/// of `every` (reading it costs more than a step of most loops): how each phase of a build stops
/// within milliseconds of its deadline.
pub(crate) fn past(deadline: Option<Instant>, k: usize, every: usize) -> bool {
    k.is_multiple_of(every) && deadline.is_some_and(|d| Instant::now() >= d)
}
