//! The results of units of matches: a seat-swapped pair in a two-player game (the pentanomial
//! model), a rotation of the seats in a game of more roles, or a single match. A unit's result
//! is the half-points its matches scored in all, so the tally holds counts of small integers and
//! its outcomes are exact.

use crate::elo::{elo_from_score, normal_cdf, normal_quantile};
use serde::Serialize;

/// Counts of the units of `matches` matches each by the half-points they scored (0 to
/// 2 × `matches`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tally {
    matches: u32,
    counts: Vec<u64>,
}

/// What a tally says of the player it counts for, with intervals at one confidence level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    /// The mean score per match (0..=1).
    pub score: f64,
    /// Its interval: the mean ± the normal quantile × the units' standard error, per match.
    pub score_interval: [f64; 2],
    /// The Elo difference the score implies (infinite at a score of 0 or 1).
    pub elo: f64,
    /// The interval of the score mapped to Elo.
    pub elo_interval: [f64; 2],
    /// The likelihood of superiority: the normal probability that the true score exceeds ½.
    pub los: f64,
}

impl Tally {
    /// An empty tally of units of `matches` matches each (2 for seat-swapped pairs).
    pub fn new(matches: u32) -> Tally {
        assert!(matches > 0, "a unit holds at least one match");
        Tally { matches, counts: vec![0; 2 * matches as usize + 1] }
    }

    /// A tally of units of `matches` matches with these counts, from 0 half-points up.
    pub fn from_counts(matches: u32, counts: &[u64]) -> Tally {
        let mut t = Tally::new(matches);
        assert_eq!(counts.len(), t.counts.len(), "one count per half-point total");
        t.counts.copy_from_slice(counts);
        t
    }

    /// Counts one unit that scored `half_points` (at most 2 × matches).
    pub fn add(&mut self, half_points: u32) {
        self.counts[half_points as usize] += 1;
    }

    /// Matches per unit.
    pub fn matches(&self) -> u32 {
        self.matches
    }

    /// Units counted.
    pub fn units(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The counts, from units that scored 0 half-points up; in pairs, the pentanomial counts
    /// LL, LD, WL + DD, WD, WW.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// The tally as the other player sees it.
    pub fn reversed(&self) -> Tally {
        Tally { matches: self.matches, counts: self.counts.iter().rev().copied().collect() }
    }

    /// Each possible outcome, as a score per match (0..=1), with its count.
    pub fn outcomes(&self) -> impl Iterator<Item = (f64, u64)> + '_ {
        let top = f64::from(2 * self.matches);
        self.counts.iter().enumerate().map(move |(h, &n)| (h as f64 / top, n))
    }

    /// The mean score per match, and the variance of a unit's score per match (the population
    /// variance of the units), or `None` with no units.
    pub fn mean_variance(&self) -> Option<(f64, f64)> {
        let n = self.units() as f64;
        if n == 0.0 {
            return None;
        }
        let mean = self.outcomes().map(|(s, c)| s * c as f64).sum::<f64>() / n;
        let variance = self.outcomes().map(|(s, c)| (s - mean).powi(2) * c as f64).sum::<f64>() / n;
        Some((mean, variance))
    }

    /// The score, its Elo difference and the likelihood of superiority, with intervals at
    /// `level` (0.95 for 95%); `None` with no units.
    pub fn estimate(&self, level: f64) -> Option<Estimate> {
        let (score, variance) = self.mean_variance()?;
        let error = (variance / self.units() as f64).sqrt();
        let z = normal_quantile(0.5 + level / 2.0);
        let score_interval = [(score - z * error).max(0.0), (score + z * error).min(1.0)];
        let los = match error {
            0.0 if score > 0.5 => 1.0,
            0.0 if score < 0.5 => 0.0,
            0.0 => 0.5,
            _ => normal_cdf((score - 0.5) / error),
        };
        Some(Estimate {
            score,
            score_interval,
            elo: elo_from_score(score),
            elo_interval: score_interval.map(elo_from_score),
            los,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Half the width of an estimate's Elo interval, as testers print "diff ± error".
    fn error(e: &Estimate) -> f64 {
        (e.elo_interval[1] - e.elo_interval[0]) / 2.0
    }

    #[test]
    fn single_games_match_published_values() {
        // fastchess's elo_test "EloWDL 2": 136 wins, 96 losses, 111 draws: 40.70 ± 30.43, LOS 99.60%.
        let t = Tally::from_counts(1, &[96, 111, 136]);
        let e = t.estimate(0.95).unwrap();
        assert!((e.elo - 40.70).abs() < 0.01, "{e:?}");
        assert!((error(&e) - 30.43).abs() < 0.01, "{e:?}");
        assert!((e.los - 0.9960).abs() < 0.00005, "{e:?}");
    }

    #[test]
    fn pairs_match_published_values() {
        // fastchess's elo_test, pentanomial 1 and 2 (LL, LD, WL, DD, WD, WW):
        // (34, 54, 31, 32, 64, 75): 55.58 ± 27.65, LOS 100.00%;
        // (332, 433, 457, 41, 333, 334): −8.64 ± 10.33, LOS 5.05%.
        let t = Tally::from_counts(2, &[34, 54, 31 + 32, 64, 75]);
        let e = t.estimate(0.95).unwrap();
        assert!((e.elo - 55.58).abs() < 0.01 && (error(&e) - 27.65).abs() < 0.01, "{e:?}");
        assert!(e.los > 0.99995, "{e:?}");
        let t = Tally::from_counts(2, &[332, 433, 457 + 41, 333, 334]);
        let e = t.estimate(0.95).unwrap();
        assert!((e.elo + 8.64).abs() < 0.01 && (error(&e) - 10.33).abs() < 0.01, "{e:?}");
        assert!((e.los - 0.0505).abs() < 0.00005, "{e:?}");
        assert_eq!(t.reversed().counts(), &[334, 333, 498, 433, 332]);
        assert!((t.reversed().estimate(0.95).unwrap().elo - 8.64).abs() < 0.01);
    }

    #[test]
    fn sure_results_have_sure_estimates() {
        let mut t = Tally::new(2);
        assert_eq!(t.estimate(0.95), None);
        t.add(4);
        t.add(4);
        let e = t.estimate(0.95).unwrap();
        assert_eq!((e.score, e.los, e.elo), (1.0, 1.0, f64::INFINITY));
        assert_eq!(e.score_interval, [1.0, 1.0]);
        let mut t = Tally::new(3);
        t.add(3);
        assert_eq!(t.estimate(0.95).unwrap().los, 0.5);
        assert_eq!(t.outcomes().map(|(s, _)| s).collect::<Vec<_>>()[3], 0.5);
    }
}
