//! Outlook: chapter 16's fuzzy goal degrees, or a confirmed latch heuristic, as the tree's
//! priors in games whose roles have no pieces to count (Connect Four, Pentago, the tic-tac-toe
//! family; Reversi's corners), once random games show that they predict the score.
//!
//! The fuzzy heuristic values every role by how nearly the state satisfies its goal formulas (in
//! a line game, chiefly how many lines it has nearly filled that nobody has blocked). A role's
//! *lead* is its value less the mean of the others', on the 0..1 scale. A latch heuristic's lead
//! is the latches a role holds less the most any other holds, over how many a role can hold
//! (Reversi: a corner is a quarter). Games played as the
//! search's playouts play them give, per game, one state drawn uniformly from those before its
//! end and every role's final score; per role, a logistic curve of the score on the lead is
//! fitted on half of the games by Newton's method (the scores, 0..1, taken as probabilities). The
//! outlook is kept only if, for every role, the lead correlates with the score in those games
//! beyond three standard errors of no correlation (and at least 0.1), and the fitted curve's
//! predictions correlate with the score in the other half beyond two; and only if evaluating a
//! state's successors costs no more than a fifth of a sampled game (played and replayed), since
//! the tree evaluates them for every node it seeds.

use analysis::LatchHeuristic;
use heuristic::FuzzyGoals;
use serde::Serialize;
use std::time::Duration;

/// The least (and one less the most) score taken as a base for [`Outlook::shifted`]: a base of
/// 0 or 1 has no finite log-odds to shift.
const MIN_BASE: f64 = 0.01;

/// One role's fitted curve: the predicted score is `1 / (1 + e^−(intercept + slope · lead))`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Curve {
    /// The log-odds at no lead.
    pub intercept: f64,
    /// How the log-odds grow with the lead (0..1 scale).
    pub slope: f64,
    /// Correlation of the lead with the score in the games fitted on.
    pub correlation: f64,
    /// Correlation of the curve's predictions with the score in the other games.
    pub holdout_correlation: f64,
}

impl Curve {
    /// The predicted score (0..1) at `lead`.
    pub(crate) fn predict(&self, lead: f64) -> f64 {
        1.0 / (1.0 + (-(self.intercept + self.slope * lead)).exp())
    }
}

/// What an outlook reads the roles' leads from.
#[derive(Debug, Clone)]
pub enum LeadSource {
    /// Chapter 16's fuzzy goal heuristic.
    Fuzzy(FuzzyGoals),
    /// A latch heuristic the goal forms confirmed ("owning these latches is good").
    Latches(LatchHeuristic),
}

impl LeadSource {
    /// `role`'s lead in `state` (propnet state words), on the 0..1 scale.
    fn lead(&mut self, state: &[u64], role: usize) -> f64 {
        match self {
            LeadSource::Fuzzy(fuzzy) => lead(fuzzy.values_of(state), role),
            LeadSource::Latches(h) => h.relative_lead(state, role),
        }
    }

    /// Every role's lead in `state`, the state valued once.
    pub(crate) fn leads(&mut self, state: &[u64]) -> Vec<f64> {
        match self {
            LeadSource::Fuzzy(fuzzy) => {
                let values = fuzzy.values_of(state);
                (0..values.len()).map(|r| lead(values, r)).collect()
            }
            LeadSource::Latches(h) => (0..h.latches.len()).map(|r| h.relative_lead(state, r)).collect(),
        }
    }

    /// The roles it values.
    pub(crate) fn roles(&self) -> usize {
        match self {
            LeadSource::Fuzzy(fuzzy) => fuzzy.roles().len(),
            LeadSource::Latches(h) => h.latches.len(),
        }
    }

    /// What it is, for people.
    pub fn describe(&self) -> &'static str {
        match self {
            LeadSource::Fuzzy(_) => "fuzzy goal heuristic",
            LeadSource::Latches(_) => "latch heuristic",
        }
    }
}

/// A heuristic's leads with every role's fitted curve, ready to value states.
///
/// Cloning shares the compiled heuristic and gives the clone scratch space of its own.
#[derive(Debug, Clone)]
pub struct Outlook {
    /// What the leads are read from.
    pub source: LeadSource,
    /// Per role, its curve.
    pub curves: Vec<Curve>,
    /// Games sampled.
    pub games: usize,
    /// The mean time to evaluate one state.
    pub eval_time: Duration,
    /// The share of a sampled game's time (played and replayed) that evaluating the states
    /// after a node's moves takes: at most a fifth.
    pub cost: f64,
}

impl Outlook {
    /// `role`'s lead in `state` (propnet state words), on the 0..1 scale.
    pub fn lead(&mut self, state: &[u64], role: usize) -> f64 {
        self.source.lead(state, role)
    }

    /// `role`'s predicted score (0..1) at `lead`, from its curve alone.
    pub fn predict(&self, role: usize, lead: f64) -> f64 {
        self.curves[role].predict(lead)
    }

    /// `role`'s score (0..1) after its lead moves from `from` to `to`, where it was `base`
    /// before: the curve's change in log-odds added to `base`'s, so that a search's own
    /// estimate of the earlier state sets the level and the heuristic only the change.
    pub fn shifted(&self, role: usize, base: f64, from: f64, to: f64) -> f64 {
        let base = base.clamp(MIN_BASE, 1.0 - MIN_BASE);
        let logit = (base / (1.0 - base)).ln() + self.curves[role].slope * (to - from);
        1.0 / (1.0 + (-logit).exp())
    }
}

/// `role`'s fuzzy value less the mean of the others', on the 0..1 scale.
fn lead(values: &[f64], role: usize) -> f64 {
    let others = values.iter().enumerate().filter(|&(q, _)| q != role).map(|(_, v)| v);
    let mean = others.clone().sum::<f64>() / others.count().max(1) as f64;
    (values[role] - mean) / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Knowledge, Rejected};
    use machine::StateMachine;
    use std::time::Instant;

    /// The outlook of a bundled game, confirmed on games of `seconds`, if it holds.
    fn outlook(name: &str, seconds: u64) -> Result<Outlook, Rejected> {
        let (desc, net) = testkit::bundled(name);
        let config = analysis::AnalysisConfig::default();
        let found = analysis::Analysis::run(&net, &desc, &config, &mut |_| {});
        let fuzzy = Outlook::heuristic(&desc, &net, &found, Instant::now() + Duration::from_secs(20)).expect("fuzzy");
        let knowledge = Knowledge::new(&net, found.goals, true);
        let source = LeadSource::Fuzzy(fuzzy);
        Outlook::discover(&net, source, Some(&knowledge), Instant::now() + Duration::from_secs(seconds), 3)
    }

    #[test]
    fn in_connect_four_a_lead_in_nearly_filled_lines_goes_with_winning() {
        let o = outlook("connectFour", 20).expect("confirmed in Connect Four");
        eprintln!("{:?} over {} games, {:?} per state, cost {:.3}", o.curves, o.games, o.eval_time, o.cost);
        for c in &o.curves {
            assert!(c.slope > 0.0 && c.holdout_correlation > 0.1, "{c:?}");
        }
    }

    #[test]
    fn in_reversi_holding_more_corners_goes_with_winning() {
        let Some(net) = testkit::shared::net(env!("CARGO_MANIFEST_DIR"), "reversi") else { return };
        let soon = |s| Some(Instant::now() + Duration::from_secs(s));
        let mut forms = analysis::GoalForms::discover(&net, soon(10), 11);
        forms.use_latches(&net, &analysis::structural_latches(&net), true, soon(10), 11);
        let corners = forms.best_latch_heuristic().expect("owning the corners is confirmed good").clone();
        assert!(corners.latches.iter().all(|l| l.len() == 4), "{:?}", corners.latches);
        let source = LeadSource::Latches(corners);
        let o = Outlook::discover(&net, source, None, Instant::now() + Duration::from_secs(20), 3).expect("confirmed");
        eprintln!("{:?} over {} games", o.curves, o.games);
        for c in &o.curves {
            assert!(c.slope > 0.0 && c.holdout_correlation > 0.1, "{c:?}");
        }
        // A corner more than the other side is a quarter of the lead, whichever role holds it.
        let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(5);
        let mut m = propnet::PropnetMachine::new(&net);
        let initial = m.initial_state();
        let mut o = o;
        for state in machine::random_trajectory(&mut m, &initial, &mut rng, 200).expect("a game") {
            let (white, black) = (o.lead(state.words(), 0), o.lead(state.words(), 1));
            assert!((4.0 * white).fract().abs() < 1e-9 && (white + black).abs() < 1e-9, "{white} {black}");
        }
    }

    #[test]
    fn a_role_leads_by_its_value_less_the_others_mean() {
        assert!((lead(&[80.0, 20.0, 40.0], 0) - 0.5).abs() < 1e-12);
        assert!((lead(&[80.0, 20.0, 40.0], 1) + 0.4).abs() < 1e-12);
    }
}
