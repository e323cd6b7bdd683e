//! Tournaments between GGP players, as computer chess tests its engines: every pairing plays
//! rounds of seat-swapped matches (both seatings of the same game and seed; a rotation of the
//! seats in games of more roles), several matches at once with each player pinned to cores of
//! its own, a pairing stops as soon as its SPRT decides, every player is rated, and each
//! finished match is appended to a journal at once, so that an interrupted tournament resumes
//! where it stopped without losing or replaying a match.

#![warn(missing_docs)]

pub mod command;
pub mod cpus;
mod entrant;
mod hall;
pub mod journal;
mod report;
mod run;

pub use entrant::{Entrant, Kind};
pub use journal::{Journal, Played, Settings};
pub use report::{PairingReport, Report, Standing};
pub use run::{run, Event, Tournament};

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use thiserror::Error;

/// Who plays whom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// The first player against each of the others.
    Gauntlet,
    /// Every player against every other.
    RoundRobin,
}

impl Format {
    /// The pairings of `players` players, each as (first, second).
    pub fn pairings(self, players: usize) -> Vec<(usize, usize)> {
        match self {
            Format::Gauntlet => (1..players).map(|j| (0, j)).collect(),
            Format::RoundRobin => (0..players).flat_map(|i| (i + 1..players).map(move |j| (i, j))).collect(),
        }
    }
}

/// Why a tournament could not be run.
#[derive(Debug, Error)]
pub enum TournamentError {
    /// A player spec cannot be used.
    #[error("player {spec:?}: {why}")]
    Player {
        /// The spec as given.
        spec: String,
        /// What is wrong with it.
        why: String,
    },
    /// The core list cannot be used.
    #[error("--cpus: {0}")]
    Cpus(String),
    /// The tournament cannot be set up as asked.
    #[error("{0}")]
    Setup(String),
    /// A file or process operation failed.
    #[error("cannot {what}")]
    Io {
        /// What was tried.
        what: String,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
    /// A started player never became ready.
    #[error("the player started by {command:?} cannot play: {why} (its output: {})", log.display())]
    Started {
        /// The command line run.
        command: String,
        /// What went wrong.
        why: String,
        /// Its log file.
        log: PathBuf,
    },
    /// The journal cannot be read or does not belong to this tournament.
    #[error("{file}:{line}: {why}")]
    Journal {
        /// The journal's path.
        file: String,
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// The referee could not run a match (broken rules, a player that cannot be seated).
    #[error(transparent)]
    Match(#[from] player::PlayerError),
}
