//! The two-step latch question of chapter 16.1 of the GGP book, over the rules: its answers
//! ([`Verdicts`]), and answer-set programming to find them.
//!
//! A game's rules become an ASP program over two time points ([`translate`]): the initial state
//! is replaced by a generator that makes any set of base propositions true at time 1, every role
//! picks exactly one legal move, and `next` defines the state at time 2. A base proposition is a
//! latch exactly when no answer set changes it between the two time points in the forbidden
//! direction, which [`prove_latches`] asks clingo for every base and both directions at once:
//! one grounding, then one solve call that enumerates counterexamples to the questions still
//! open until none is left.
//!
//! The translation is a pure function of the rules and the [`Facts`] (which bases and moves
//! exist), so it can be tested on its own output; only [`prove_latches`] talks to clingo, and
//! only with the `clingo` feature, since clingo is built from C++ sources with cmake. Without it,
//! `analysis` answers the same question with a SAT solver over the propnet.

#![warn(missing_docs)]

#[cfg(feature = "clingo")]
mod solve;
mod translate;
mod verdict;

#[cfg(feature = "clingo")]
pub use solve::{prove_latches, Report};
pub use translate::{parse_term, translate, Facts};
pub use verdict::{Verdict, Verdicts};

use thiserror::Error;

/// Why a proof could not be attempted.
#[derive(Debug, Clone, Error)]
pub enum Error {
    /// A proposition or move name that is not a single ground GDL term.
    #[error("cannot read {text:?} as a ground GDL term: {reason}")]
    Term {
        /// The text given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A rule the translation cannot express (only malformed GDL that validation rejects).
    #[error("cannot translate {rule}: {reason}")]
    Translate {
        /// The rule, in KIF.
        rule: String,
        /// What is wrong with it.
        reason: String,
    },
    /// clingo refused the program or failed while grounding or solving.
    #[error("clingo: {0}")]
    Clingo(String),
}
