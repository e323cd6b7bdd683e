//! The fast runtime: a net compiled into flat arrays ([`Program`]) and a [`StateMachine`] over it
//! ([`PropnetMachine`]) with a random-playout path that allocates nothing per step.
//!
//! Single-state queries keep one marking of the net up to date by forward differential
//! propagation (only what changes is pushed forward), so stepping to a nearby state or trying
//! another joint move from the same state costs little. Random playouts run bit-sliced: 64
//! or 256 playouts per pass, every gate one AND over as many words (see [`Strategy`] and the
//! module `batch`).
//!
//! [`StateMachine`]: ::machine::StateMachine

mod batch;
mod eval;
mod expand;
mod forward;
mod machine;
mod native;
mod packed;
mod paths;
mod program;
mod simd;
mod step;
mod turns;
mod watch;

pub use self::batch::{LaneEnd, MovePolicy, Step};

/// Computes every role's goal in a terminal state without the net's goal gates (an emulation
/// of the goal logic found by analysis), for playouts that would otherwise evaluate them.
pub trait GoalOracle: Send + Sync + std::fmt::Debug {
    /// Writes every role's goal in terminal `state` (state words) to `out` and returns true, or
    /// returns false where it does not know them (the net then computes them).
    fn goals(&self, state: &[u64], out: &mut [u32]) -> bool;
}
pub use self::machine::{Charge, PropnetMachine, PropnetState, Strategy};
pub use self::program::{Program, ProgramStats};
pub use self::step::Stepper;
pub use self::watch::Watch;

#[cfg(test)]
mod tests;
