//! Bradley–Terry ratings on the Elo scale, fitted by maximum likelihood to every match between
//! many players: player i scores against player j with expectation 1 / (1 + 10^((rⱼ − rᵢ)/400)),
//! a draw counting as half a win for each. One player is anchored at 0; the intervals come from
//! the curvature of the likelihood at its maximum (the inverse Fisher information), relative to
//! the anchor.

use crate::elo::normal_quantile;
use crate::linear::invert;
use serde::Serialize;

/// A player's rating.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rating {
    /// Elo relative to the anchor.
    pub elo: f64,
    /// Its interval at the level asked for (the anchor's is [0, 0]).
    pub interval: [f64; 2],
}

/// One match's result: player `.0` scored `.2` (0..=1) against player `.1`.
pub type Result = (usize, usize, f64);

/// Natural log-odds to Elo.
const ELO: f64 = 400.0 / std::f64::consts::LN_10;

/// Fits ratings of `players` players to `results`, with player `anchor` at 0 and intervals at
/// `level` (0.95 for 95%). `prior` virtual draws are added between every two players that met,
/// as BayesElo does, so that a player who won every match still gets a finite rating (0 for the
/// plain maximum-likelihood fit). A player cut off from the anchor (no chain of matches leads
/// from one to the other) keeps 0 with an unbounded interval.
pub fn fit_ratings(players: usize, results: &[Result], anchor: usize, prior: f64, level: f64) -> Vec<Rating> {
    // Points and matches for each ordered pair.
    let mut points = vec![vec![0.0; players]; players];
    let mut games = vec![vec![0.0; players]; players];
    for &(i, j, s) in results {
        if i == j {
            continue;
        }
        points[i][j] += s;
        points[j][i] += 1.0 - s;
        games[i][j] += 1.0;
        games[j][i] += 1.0;
    }
    for i in 0..players {
        for j in 0..players {
            if games[i][j] > 0.0 {
                points[i][j] += prior / 2.0;
                games[i][j] += prior;
            }
        }
    }
    let reached = connected(&games, anchor);
    let free: Vec<usize> = (0..players).filter(|&i| i != anchor && reached[i]).collect();
    let mut theta = vec![0.0f64; players];
    let mut covariance = vec![vec![0.0; free.len()]; free.len()];
    for _ in 0..100 {
        // Gradient and the negated Hessian of the log-likelihood over the free players.
        let mut gradient = vec![0.0; free.len()];
        let mut information = vec![vec![0.0; free.len()]; free.len()];
        let slot = |i: usize| free.iter().position(|&f| f == i);
        for (a, &i) in free.iter().enumerate() {
            for j in 0..players {
                if games[i][j] == 0.0 {
                    continue;
                }
                let expected = 1.0 / (1.0 + (theta[j] - theta[i]).exp());
                gradient[a] += points[i][j] - games[i][j] * expected;
                let w = games[i][j] * expected * (1.0 - expected);
                information[a][a] += w;
                if let Some(b) = slot(j) {
                    information[a][b] -= w;
                }
            }
        }
        let Some(inverse) = invert(information) else { break };
        let mut largest: f64 = 0.0;
        for (a, &i) in free.iter().enumerate() {
            // A Newton step, at most 2 natural units (about 350 Elo) at a time.
            let step: f64 = (0..free.len()).map(|b| inverse[a][b] * gradient[b]).sum();
            let step = step.clamp(-2.0, 2.0);
            theta[i] += step;
            largest = largest.max(step.abs());
        }
        covariance = inverse;
        if largest < 1e-10 {
            break;
        }
    }
    let z = normal_quantile(0.5 + level / 2.0);
    (0..players)
        .map(|i| match free.iter().position(|&f| f == i) {
            Some(a) => {
                let half = z * covariance[a][a].max(0.0).sqrt() * ELO;
                let elo = theta[i] * ELO;
                Rating { elo, interval: [elo - half, elo + half] }
            }
            None if i == anchor => Rating { elo: 0.0, interval: [0.0, 0.0] },
            None => Rating { elo: 0.0, interval: [f64::NEG_INFINITY, f64::INFINITY] },
        })
        .collect()
}

/// Which players a chain of matches joins to `from`.
fn connected(games: &[Vec<f64>], from: usize) -> Vec<bool> {
    let mut seen = vec![false; games.len()];
    let mut stack = vec![from];
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        stack.extend((0..games.len()).filter(|&j| games[i][j] > 0.0 && !seen[j]));
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elo::elo_from_score;

    fn matches(i: usize, j: usize, wins: usize, draws: usize, losses: usize) -> Vec<Result> {
        let mut r = vec![(i, j, 1.0); wins];
        r.extend(vec![(i, j, 0.5); draws]);
        r.extend(vec![(i, j, 0.0); losses]);
        r
    }

    #[test]
    fn two_players_get_the_elo_of_their_score() {
        // 30 wins and 10 losses: a score of 3/4, 400·log₁₀ 3 = 190.85 Elo; the interval is the
        // binomial one, ±1.96 · √(1 / (n p (1 − p))) in natural units.
        let r = fit_ratings(2, &matches(1, 0, 30, 0, 10), 0, 0.0, 0.95);
        assert_eq!(r[0], Rating { elo: 0.0, interval: [0.0, 0.0] });
        assert!((r[1].elo - elo_from_score(0.75)).abs() < 1e-6, "{r:?}");
        let half = 1.959964 * (1.0f64 / (40.0 * 0.75 * 0.25)).sqrt() * ELO;
        assert!((r[1].interval[1] - r[1].elo - half).abs() < 1e-3, "{r:?}");
        // The anchor only shifts the scale.
        let r = fit_ratings(2, &matches(1, 0, 30, 0, 10), 1, 0.0, 0.95);
        assert!((r[0].elo + elo_from_score(0.75)).abs() < 1e-6, "{r:?}");
    }

    #[test]
    fn consistent_results_give_additive_ratings() {
        // A scores 64% against B and B 64% against C, and A 75.97% against C: exactly 100 Elo
        // steps, which the fit recovers whatever the counts.
        let p = crate::elo::score_from_elo(100.0);
        let q = crate::elo::score_from_elo(200.0);
        let results = [(0, 1, p), (1, 2, p), (0, 2, q)];
        let results: Vec<Result> = results.iter().cycle().take(300).copied().collect();
        let r = fit_ratings(3, &results, 2, 0.0, 0.95);
        assert!((r[0].elo - 200.0).abs() < 1e-6 && (r[1].elo - 100.0).abs() < 1e-6, "{r:?}");
        assert!(r[0].interval[0] < 200.0 && r[0].interval[1] > 200.0);
    }

    #[test]
    fn the_prior_keeps_a_perfect_record_finite_and_strangers_unrated() {
        let r = fit_ratings(3, &matches(1, 0, 10, 0, 0), 0, 2.0, 0.95);
        // Ten wins and two virtual draws: 11 points of 12.
        assert!((r[1].elo - elo_from_score(11.0 / 12.0)).abs() < 1e-6, "{r:?}");
        assert_eq!(r[2].interval, [f64::NEG_INFINITY, f64::INFINITY]);
        assert!(invert(vec![vec![1.0, 1.0], vec![1.0, 1.0]]).is_none());
    }
}
