//! The statistics of match results, as engine testers use them: a [`Tally`] of the results of
//! units of matches (a seat-swapped pair in a two-player game: the pentanomial model) with the
//! score's interval, the Elo difference and the likelihood of superiority it implies; the
//! generalised sequential probability ratio test ([`Sprt`]) on a tally; Bradley–Terry
//! [`ratings`] of many players by maximum likelihood; and Student's t interval of a mean
//! ([`mean_interval`]). Scores are on 0..=1 (a win 1, a draw ½, a loss 0) and Elo on the
//! logistic scale, where a score s is a difference of −400·log₁₀(1/s − 1).

#![warn(missing_docs)]

mod elo;
mod interval;
pub mod linear;
pub mod ratings;
pub mod sample;
mod sprt;
mod tally;

pub use elo::{elo_from_score, normal_quantile, score_from_elo};
pub use interval::mean_interval;
pub use ratings::{fit_ratings, Rating};
pub use sample::{confirmation_threshold, correlation, correlation_threshold, halves, moments};
pub use sprt::{Sprt, SprtError, Verdict};
pub use tally::{Estimate, Tally};
