//! A series of matches between the same players with the seats rotating, and the standings:
//! mean points with a 95% confidence interval, wins, draws and losses, and faults per player.

use crate::referee::{play_match, Clocks, Event, Fault, MatchRecord, Outcome};
use crate::{Game, Player, PlayerError};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use serde::Serialize;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// How a series is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SeriesOptions {
    /// How many matches.
    pub games: usize,
    /// The clocks of every match.
    pub clocks: Clocks,
    /// Seeds the referee's replacement moves.
    pub seed: u64,
}

/// One player's results over a series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Standing {
    /// The player's name, numbered when several players share it.
    pub player: String,
    /// Matches played.
    pub games: usize,
    /// Mean goal value over the matches.
    pub points: f64,
    /// A 95% confidence interval of the mean (Student's t, cut to 0..=100), from two matches on.
    pub ci95: Option<[f64; 2]>,
    /// Matches where it scored more than every other player (not counted in one-player games).
    pub wins: Option<usize>,
    /// Matches where it tied for the best score.
    pub draws: Option<usize>,
    /// The other matches.
    pub losses: Option<usize>,
    /// Moves (and start acknowledgements) that came late.
    pub late: usize,
    /// Moves that were not legal.
    pub illegal: usize,
    /// Requests the player failed to answer.
    pub errors: usize,
}

/// A whole series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    /// The game's name.
    pub game: String,
    /// The game's roles.
    pub roles: Vec<String>,
    /// How it was played.
    pub options: SeriesOptions,
    /// Every match, in order.
    pub matches: Vec<MatchRecord>,
    /// One entry per player, in the order the players were given.
    pub standings: Vec<Standing>,
}

/// How long a player over the protocol has to answer `INFO` before a series.
const REACH: Duration = Duration::from_secs(5);

/// Plays `options.games` matches of `game` between `players`, one per role. In match k, role r
/// is played by player (r + k) mod n, so every player takes every seat in turn. Fails at once
/// where a player over the protocol does not answer `INFO`.
pub fn run_series(
    game: &Arc<Game>,
    players: &mut [Box<dyn Player>],
    options: SeriesOptions,
    events: &mut dyn FnMut(Event<'_>),
) -> Result<Series, PlayerError> {
    let roles = game.roles();
    if players.len() != roles.len() {
        return Err(PlayerError::Seats { players: players.len(), roles: roles.len() });
    }
    // A player that is not there would lose every match by its errors: say so instead.
    for p in players.iter() {
        p.reachable(REACH)?;
    }
    let mut rng = SmallRng::seed_from_u64(options.seed);
    let n = players.len();
    let mut matches = Vec::with_capacity(options.games);
    for k in 0..options.games {
        let seats: Vec<usize> = (0..n).map(|r| (r + k) % n).collect();
        let halt = AtomicBool::new(false);
        matches.push(play_match(game, players, &seats, options.clocks, k + 1, &mut rng, events, &halt)?);
    }
    let names = names(players.iter().map(|p| p.name()));
    let standings = names.into_iter().enumerate().map(|(p, name)| standing(name, p, &matches)).collect();
    Ok(Series { game: game.name.clone(), roles, options, matches, standings })
}

/// The players' names, numbered (`alphabeta 1`, `alphabeta 2`) where they repeat.
pub fn names<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let names: Vec<&str> = names.collect();
    let count = |name: &str, among: &[&str]| among.iter().filter(|n| **n == name).count();
    (0..names.len())
        .map(|i| match count(names[i], &names) {
            1 => names[i].to_owned(),
            _ => format!("{} {}", names[i], count(names[i], &names[..i]) + 1),
        })
        .collect()
}

/// Player `p`'s results over `matches`.
fn standing(player: String, p: usize, matches: &[MatchRecord]) -> Standing {
    let mut s = Standing {
        player,
        games: matches.len(),
        points: 0.0,
        ci95: None,
        wins: None,
        draws: None,
        losses: None,
        late: 0,
        illegal: 0,
        errors: 0,
    };
    let mut points = Vec::with_capacity(matches.len());
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for record in matches {
        let Some(role) = record.seats.iter().position(|&q| q == p) else { continue };
        points.push(f64::from(record.goals[role]));
        match record.outcome(role) {
            Some(Outcome::Win) => wins += 1,
            Some(Outcome::Draw) => draws += 1,
            Some(Outcome::Loss) => losses += 1,
            None => {}
        }
        for f in record.faults.iter().filter(|f| f.role == role) {
            match f.fault {
                Fault::Late => s.late += 1,
                Fault::Illegal(_) => s.illegal += 1,
                Fault::Error(_) => s.errors += 1,
            }
        }
    }
    if matches.first().is_some_and(|m| m.seats.len() > 1) {
        (s.wins, s.draws, s.losses) = (Some(wins), Some(draws), Some(losses));
    }
    (s.points, s.ci95) = mean_and_interval(&points);
    s
}

/// The mean of `xs` and, from two values on, its 95% confidence interval (Student's t), cut to
/// the goal range.
fn mean_and_interval(xs: &[f64]) -> (f64, Option<[f64; 2]>) {
    match stats::mean_interval(xs, 0.95) {
        None => (0.0, None),
        // Goal values lie in 0..=100, and so does their mean: the normal approximation's tails do not.
        Some((mean, half)) => (mean, half.map(|h| [(mean - h).max(0.0), (mean + h).min(100.0)])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_is_students() {
        // 40, 60, 50 and 50 have mean 50 and sample variance 200 / 3; with 3 degrees of freedom
        // the half-width is 3.182 · √(200 / 3 / 4).
        let (mean, ci) = mean_and_interval(&[40.0, 60.0, 50.0, 50.0]);
        let half = 3.182446 * (200.0f64 / 3.0 / 4.0).sqrt();
        assert_eq!(mean, 50.0);
        let [lo, hi] = ci.unwrap();
        assert!((lo - (50.0 - half)).abs() < 1e-4 && (hi - (50.0 + half)).abs() < 1e-4);
        // 0, 100, 50, 50: the half-width (65) would reach past both ends of the goal range.
        assert_eq!(mean_and_interval(&[0.0, 100.0, 50.0, 50.0]), (50.0, Some([0.0, 100.0])));
        assert_eq!(mean_and_interval(&[70.0]), (70.0, None));
        assert_eq!(mean_and_interval(&[100.0; 40]), (100.0, Some([100.0, 100.0])));
    }

    #[test]
    fn repeated_names_are_numbered() {
        assert_eq!(names(["alphabeta", "random", "alphabeta"].into_iter()), ["alphabeta 1", "random", "alphabeta 2"]);
        assert_eq!(names(["legal", "random"].into_iter()), ["legal", "random"]);
    }
}
