//! The logistic Elo scale and the normal quantiles the intervals use.

use statrs::distribution::{ContinuousCDF, Normal};

/// The Elo difference that makes `score` (0..=1) the expected score: −400·log₁₀(1/s − 1);
/// infinite at 0 and 1.
pub fn elo_from_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The expected score (0..=1) of a player `elo` points stronger: 1 / (1 + 10^(−elo/400)).
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The standard normal distribution's quantile at `p` (in 0..1): 1.96 at 0.975.
pub fn normal_quantile(p: f64) -> f64 {
    Normal::standard().inverse_cdf(p)
}

/// The standard normal distribution's cumulative probability at `x`.
pub(crate) fn normal_cdf(x: f64) -> f64 {
    Normal::standard().cdf(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_matches_its_published_points() {
        // 100 Elo is an expected score of 64.0%; 400 Elo, 10 to 1 (90.9%); 3 to 1 is 190.85.
        assert!((score_from_elo(100.0) - 0.6401).abs() < 1e-4);
        assert!((score_from_elo(400.0) - 10.0 / 11.0).abs() < 1e-12);
        assert!((elo_from_score(0.75) - 190.848).abs() < 1e-3);
        assert_eq!(elo_from_score(0.5), 0.0);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        for elo in [-350.0, -20.0, 0.0, 5.0, 250.0] {
            assert!((elo_from_score(score_from_elo(elo)) - elo).abs() < 1e-9);
        }
        assert!((normal_quantile(0.975) - 1.959964).abs() < 1e-6);
        assert!((normal_cdf(1.959964) - 0.975).abs() < 1e-6);
    }
}
