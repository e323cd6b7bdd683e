//! How an [`Outlook`] is found: the fuzzy goal heuristic built, games played as the playouts
//! play them, a logistic curve fitted per role and checked on the games held out (the rules are
//! in the `outlook` module's header).

use super::material::play_games;
use crate::{Curve, Knowledge, LeadSource, Outlook, Rejected};
use analysis::Analysis;
use heuristic::{Formulas, FuzzyGoals, Params};
use machine::StateMachine;
use propnet::Net;
use rand::Rng;
use stats::{confirmation_threshold, correlation, correlation_threshold, halves};
use std::time::{Duration, Instant};

/// Random games sampled, at most.
const MAX_GAMES: usize = 3000;

/// The most a node's successors' evaluations may cost, as a share of a sampled game's time.
const MAX_COST: f64 = 0.2;

/// Newton steps of the logistic fit (it converges in far fewer on these one-variable fits).
const NEWTON_STEPS: usize = 30;

/// Ridge on the fit's slope, per game: keeps the slope finite where the lead separates wins
/// from losses outright.
const RIDGE: f64 = 1e-3;

impl Outlook {
    /// The time to give [`discover`](Self::discover) where the clock allows (its games take
    /// about a second in Connect Four).
    pub const TIME: Duration = Duration::from_secs(2);

    /// Chapter 16's fuzzy goal heuristic of the game `desc` over `net` (τ = 0.9, product
    /// t-norm), refined by the latches in `found`, if its goal formulas can be instantiated by
    /// `deadline`: what [`discover`](Self::discover) fits.
    pub fn heuristic(desc: &gdl::Description, net: &Net, found: &Analysis, deadline: Instant) -> Option<FuzzyGoals> {
        let limits = propnet::Limits { deadline: Some(deadline), ..propnet::Limits::default() };
        let formulas = Formulas::new(desc, net, &limits).ok()?;
        let fuzzy = FuzzyGoals::compile(&formulas, &Params::default()).ok()?;
        Some(fuzzy.with_latches(net, found))
    }

    /// Plays games of `net` until `deadline` (at most [`MAX_GAMES`]) as `knowledge`'s playouts play
    /// them and fits the curves of the leads `source` (built for `net`) reads, as the `outlook`
    /// module's header describes; why not, if the games do not confirm them or they cost too much.
    pub fn discover(
        net: &Net,
        mut source: LeadSource,
        knowledge: Option<&Knowledge>,
        deadline: Instant,
        seed: u64,
    ) -> Result<Outlook, Rejected> {
        let roles = net.roles.len();
        if roles < 2 || source.roles() != roles {
            return Err(Rejected::OneRole);
        }
        // Per game: every role's lead at the sampled state and final score.
        let mut samples: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
        let (mut evaluating, mut successors) = (Duration::ZERO, 0usize);
        let started = Instant::now();
        play_games(net, knowledge, deadline, seed, MAX_GAMES, |m, trajectory, scores, rng| {
            let at = &trajectory[rng.random_range(0..trajectory.len())];
            let clock = Instant::now();
            let leads = source.leads(at.words());
            evaluating += clock.elapsed();
            successors += (0..roles).map(|r| m.legal_moves(at, r).map_or(0, |l| l.len())).max().unwrap_or(0);
            samples.push((leads, scores.iter().map(|&s| f64::from(s) / 100.0).collect()));
        });
        let games = samples.len();
        let spent = started.elapsed().saturating_sub(evaluating);
        let (fit, check) = halves(&samples);
        if fit.len() < 20 || check.len() < 20 {
            return Err(Rejected::FewGames(games));
        }
        // A node seeded evaluates the state after each of its mover's moves; a playout steps
        // through a game's worth of states.
        let eval_time = evaluating / games as u32;
        let node = eval_time.mul_f64(successors as f64 / games as f64);
        let game = spent / games as u32;
        let cost = node.as_secs_f64() / game.as_secs_f64().max(1e-9);
        if cost > MAX_COST {
            return Err(Rejected::Costly { node, game });
        }
        let column = |set: &[&(Vec<f64>, Vec<f64>)], r: usize, which: usize| -> Vec<f64> {
            set.iter().map(|s| if which == 0 { s.0[r] } else { s.1[r] }).collect()
        };
        let mut curves = Vec::with_capacity(roles);
        for r in 0..roles {
            let (x, y) = (column(&fit, r, 0), column(&fit, r, 1));
            let corr = correlation(&x, &y);
            let threshold = correlation_threshold(x.len());
            if corr < threshold {
                return Err(Rejected::Weak { role: r, correlation: corr, threshold });
            }
            let (intercept, slope) = logistic(&x, &y);
            let mut curve = Curve { intercept, slope, correlation: corr, holdout_correlation: 0.0 };
            let predicted: Vec<f64> = column(&check, r, 0).into_iter().map(|l| curve.predict(l)).collect();
            curve.holdout_correlation = correlation(&predicted, &column(&check, r, 1));
            let threshold = confirmation_threshold(check.len());
            if curve.holdout_correlation < threshold {
                return Err(Rejected::NotHeldOut { role: r, correlation: curve.holdout_correlation, threshold });
            }
            curves.push(curve);
        }
        Ok(Outlook { source, curves, games, eval_time, cost })
    }

    /// Of the outlooks tried, the one whose curves predicted the games held out best (the least
    /// of its roles' correlations); the first's rejection where none was confirmed.
    pub fn best(tried: Vec<Result<Outlook, Rejected>>) -> Option<Result<Outlook, Rejected>> {
        let worst = |o: &Outlook| o.curves.iter().map(|c| c.holdout_correlation).fold(f64::INFINITY, f64::min);
        let mut confirmed: Vec<Outlook> = Vec::new();
        let mut first = None;
        for t in tried {
            match t {
                Ok(o) => confirmed.push(o),
                Err(why) => first = first.or(Some(why)),
            }
        }
        match confirmed.into_iter().max_by(|a, b| worst(a).total_cmp(&worst(b))) {
            Some(o) => Some(Ok(o)),
            None => first.map(Err),
        }
    }
}

/// The intercept and slope of the logistic curve of `ys` (0..1) on `xs` of least cross-entropy,
/// with a little ridge on the slope, by Newton's method from the flat curve.
fn logistic(xs: &[f64], ys: &[f64]) -> (f64, f64) {
    let ridge = RIDGE * xs.len() as f64;
    let (mut a, mut b) = (0.0, 0.0);
    for _ in 0..NEWTON_STEPS {
        let (mut ga, mut gb, mut haa, mut hab, mut hbb) = (0.0, ridge * b, 1e-9, 0.0, ridge);
        for (&x, &y) in xs.iter().zip(ys) {
            let p = 1.0 / (1.0 + (-(a + b * x)).exp());
            let w = p * (1.0 - p);
            ga += p - y;
            gb += (p - y) * x;
            haa += w;
            hab += w * x;
            hbb += w * x * x;
        }
        let det = haa * hbb - hab * hab;
        if det.abs() < 1e-12 {
            break;
        }
        let (da, db) = ((hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det);
        a -= da;
        b -= db;
        if da.abs() + db.abs() < 1e-9 {
            break;
        }
    }
    (a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_logistic_fit_finds_the_curve_that_made_the_data() {
        // Scores drawn as the expected value of a known curve: the fit recovers it.
        let (a, b) = (0.3, 4.0);
        let xs: Vec<f64> = (0..400).map(|i| f64::from(i) / 200.0 - 1.0).collect();
        let ys: Vec<f64> = xs.iter().map(|&x| 1.0 / (1.0 + (-(a + b * x)).exp())).collect();
        let (fa, fb) = logistic(&xs, &ys);
        assert!((fa - a).abs() < 0.05 && (fb - b).abs() < 0.2, "fitted {fa}, {fb}");
    }
}
