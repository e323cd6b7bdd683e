//! The generalised sequential probability ratio test (GSPRT) on a [`Tally`], as fishtest,
//! OpenBench and fastchess run it on pentanomial pair counts: H0 says the player's Elo
//! difference is `elo0`, H1 that it is `elo1` (logistic Elo). For each hypothesis the
//! distribution of a unit's outcomes is estimated by maximum likelihood under the constraint
//! that its mean is the hypothesis's score, and the log-likelihood ratio of the two estimates on
//! the units seen is compared with Wald's bounds ln(β / (1 − α)) and ln((1 − β) / α).

use crate::elo::score_from_elo;
use crate::tally::Tally;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// An SPRT's hypotheses and error rates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// The Elo difference H0 claims.
    pub elo0: f64,
    /// The Elo difference H1 claims.
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
}

/// What an SPRT says after the units seen so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Neither bound is reached: play on.
    Continue,
    /// The log-likelihood ratio fell to the lower bound.
    AcceptH0,
    /// The log-likelihood ratio rose to the upper bound.
    AcceptH1,
}

/// Why an SPRT's parameters were refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SprtError {
    /// The text is not two or four numbers separated by commas.
    #[error("an SPRT is elo0,elo1 or elo0,elo1,alpha,beta (numbers), not {0:?}")]
    Syntax(String),
    /// The hypotheses are not in order.
    #[error("elo0 ({0}) must be less than elo1 ({1})")]
    Order(f64, f64),
    /// An error rate is out of range.
    #[error("alpha and beta must each lie strictly between 0 and 1 with alpha + beta < 1, not {0} and {1}")]
    Rates(f64, f64),
}

/// Counts below this are raised to it before the estimates, so that every outcome has some
/// likelihood and the constrained estimates exist (the same floor fishtest and OpenBench use).
const FLOOR: f64 = 1e-3;

impl Sprt {
    /// A test of `elo0` against `elo1` with error rates `alpha` and `beta`.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, SprtError> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(SprtError::Order(elo0, elo1));
        }
        if !(alpha > 0.0 && beta > 0.0 && alpha + beta < 1.0) {
            return Err(SprtError::Rates(alpha, beta));
        }
        Ok(Sprt { elo0, elo1, alpha, beta })
    }

    /// Reads `elo0,elo1` (α = β = 0.05) or `elo0,elo1,alpha,beta`.
    pub fn parse(text: &str) -> Result<Sprt, SprtError> {
        let numbers: Vec<f64> = text
            .split(',')
            .map(|x| x.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| SprtError::Syntax(text.to_owned()))?;
        match numbers[..] {
            [elo0, elo1] => Sprt::new(elo0, elo1, 0.05, 0.05),
            [elo0, elo1, alpha, beta] => Sprt::new(elo0, elo1, alpha, beta),
            _ => Err(SprtError::Syntax(text.to_owned())),
        }
    }

    /// Wald's bounds on the log-likelihood ratio: [ln(β / (1 − α)), ln((1 − β) / α)].
    pub fn bounds(&self) -> [f64; 2] {
        [(self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln()]
    }

    /// The log-likelihood ratio of H1 against H0 on the units of `tally`; 0 with none.
    pub fn llr(&self, tally: &Tally) -> f64 {
        if tally.units() == 0 {
            return 0.0;
        }
        let outcomes: Vec<(f64, f64)> = tally.outcomes().map(|(a, n)| (a, (n as f64).max(FLOOR))).collect();
        let total: f64 = outcomes.iter().map(|&(_, n)| n).sum();
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        let (l0, l1) = (multiplier(&outcomes, s0), multiplier(&outcomes, s1));
        // Under the constraint that the mean is s, the estimate is p̂ᵢ / (1 + λ(aᵢ − s)), so the
        // ratio of the two estimates at outcome i needs only the two multipliers.
        outcomes.iter().map(|&(a, n)| n * ((1.0 + l0 * (a - s0)).ln() - (1.0 + l1 * (a - s1)).ln())).sum::<f64>()
            * (tally.units() as f64 / total)
    }

    /// What the test says at the log-likelihood ratio `llr`.
    pub fn verdict(&self, llr: f64) -> Verdict {
        let [lower, upper] = self.bounds();
        if llr >= upper {
            Verdict::AcceptH1
        } else if llr <= lower {
            Verdict::AcceptH0
        } else {
            Verdict::Continue
        }
    }
}

/// The Lagrange multiplier λ of the maximum-likelihood estimate of the outcomes' distribution
/// under the constraint that its mean is `s`: the root of Σ nᵢ(aᵢ − s) / (1 + λ(aᵢ − s)), which
/// falls strictly as λ grows over the range where every 1 + λ(aᵢ − s) stays positive. The
/// outcomes span 0 to 1 and `s` lies strictly inside, so the range is (−1 / (1 − s), 1 / s).
fn multiplier(outcomes: &[(f64, f64)], s: f64) -> f64 {
    let f = |l: f64| outcomes.iter().map(|&(a, n)| n * (a - s) / (1.0 + l * (a - s))).sum::<f64>();
    let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn ratios_match_published_values() {
        // fastchess's sprt_test, logistic model, α = β = 0.05.
        let sprt = Sprt::new(0.5, 2.5, 0.05, 0.05).unwrap();
        // Pentanomial (LL, LD, WL, DD, WD, WW) = (223, 9863, 20279, 1000, 10037, 246): −3.07.
        let llr = sprt.llr(&Tally::from_counts(2, &[223, 9863, 20279 + 1000, 10037, 246]));
        assert!((llr + 3.07).abs() < 0.01, "{llr}");
        // Single games: 21404 wins, 21184 losses, 40708 draws: −1.57.
        let llr = sprt.llr(&Tally::from_counts(1, &[21184, 40708, 21404]));
        assert!((llr + 1.57).abs() < 0.01, "{llr}");
        let sprt = Sprt::new(0.0, 2.0, 0.05, 0.05).unwrap();
        let llr = sprt.llr(&Tally::from_counts(2, &[871, 26175, 55003 + 980, 26678, 821]));
        assert!((llr + 4.98).abs() < 0.01, "{llr}");
        let llr = sprt.llr(&Tally::from_counts(1, &[57030, 106593, 57433]));
        assert!((llr + 2.59).abs() < 0.01, "{llr}");
        assert_eq!(sprt.llr(&Tally::new(2)), 0.0);
        let [lower, upper] = sprt.bounds();
        assert!((lower + 2.944).abs() < 1e-3 && (upper - 2.944).abs() < 1e-3);
    }

    #[test]
    fn parameters_are_checked() {
        assert_eq!(Sprt::parse("0,50").unwrap(), Sprt { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.05 });
        assert_eq!(Sprt::parse("-5, 5, 0.1, 0.2").unwrap().beta, 0.2);
        assert!(matches!(Sprt::parse("0"), Err(SprtError::Syntax(_))));
        assert!(matches!(Sprt::parse("0,x"), Err(SprtError::Syntax(_))));
        assert!(matches!(Sprt::parse("50,0"), Err(SprtError::Order(..))));
        assert!(matches!(Sprt::parse("0,50,0,0.05"), Err(SprtError::Rates(..))));
        assert!(matches!(Sprt::parse("0,50,0.6,0.5"), Err(SprtError::Rates(..))));
    }

    /// Runs `runs` tests of pairs of games between players `elo` apart (each game a win with
    /// chance `w`, a draw with chance `d`, the score's mean fixed by the Elo) until each decides
    /// (or 100,000 pairs), and returns the share that accepted H1 and the mean pairs taken.
    fn simulate(sprt: &Sprt, elo: f64, draws: f64, runs: usize, seed: u64) -> (f64, f64) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let score = score_from_elo(elo);
        let win = score - draws / 2.0;
        let game = |rng: &mut SmallRng| {
            let x: f64 = rng.random();
            if x < win {
                2
            } else if x < win + draws {
                1
            } else {
                0
            }
        };
        let (mut h1, mut pairs) = (0, 0);
        for _ in 0..runs {
            let mut tally = Tally::new(2);
            loop {
                tally.add(game(&mut rng) + game(&mut rng));
                match sprt.verdict(sprt.llr(&tally)) {
                    Verdict::Continue if tally.units() < 100_000 => continue,
                    Verdict::AcceptH1 => h1 += 1,
                    _ => {}
                }
                break;
            }
            pairs += tally.units();
        }
        (h1 as f64 / runs as f64, pairs as f64 / runs as f64)
    }

    #[test]
    fn error_rates_hold_in_simulation() {
        // A coin of known bias: games between players exactly elo0 apart must accept H1 about
        // α of the time, and players exactly elo1 apart accept H0 about β of the time. The
        // sequential test overshoots its bounds, so the rates come out at or somewhat below the
        // nominal ones; they must lie within 1.5 times of them.
        for (sprt, draws) in [
            (Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap(), 0.2),
            (Sprt::new(0.0, 100.0, 0.1, 0.05).unwrap(), 0.0),
            (Sprt::new(-10.0, 40.0, 0.05, 0.1).unwrap(), 0.4),
        ] {
            let runs = 3000;
            let (alpha, n0) = simulate(&sprt, sprt.elo0, draws, runs, 1);
            let (power, n1) = simulate(&sprt, sprt.elo1, draws, runs, 2);
            let beta = 1.0 - power;
            eprintln!("{sprt:?} draws {draws}: alpha {alpha:.4} ({n0:.0} pairs), beta {beta:.4} ({n1:.0} pairs)");
            assert!(alpha <= 1.5 * sprt.alpha && alpha >= sprt.alpha / 1.5, "alpha {alpha} for {sprt:?}");
            assert!(beta <= 1.5 * sprt.beta && beta >= sprt.beta / 1.5, "beta {beta} for {sprt:?}");
        }
    }
}
