//! Latch heuristics (the Sancho blog, "Through a Murky Lense"): where a confirmed form counts
//! propositions some of which are positive latches (a disc on a Reversi corner is never
//! flipped), owning those latches is hypothesised to be good for the role whose count they add
//! to, and the hypothesis is kept only if random games bear it out.
//!
//! The check: random games from the initial state, each looked at once at a random point of its
//! second half (as the material estimates look at them); a role's *lead* there is how many of its latches it holds minus the most any other role holds of
//! theirs. Over every game and role, the lead must correlate with the role's final score by at
//! least three standard errors of a zero correlation (1/√n each, so a chance correlation passes
//! about once in 700 tries) and by at least 0.1, the same bar the material estimates use: below
//! it a lead explains under 1% of the score's variance, too little to steer a search by.

use super::{holds, GoalForm, TallyKind};
use machine::{random_trajectory, StateMachine};
use propnet::net::Net;
use propnet::PropnetMachine;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use stats::{correlation, correlation_threshold};
use std::time::Instant;

/// Random games the check plays, at most.
const MAX_GAMES: usize = 400;

/// Games it needs before it judges.
const MIN_GAMES: usize = 50;

/// Joint moves after which a game is abandoned.
const MAX_STEPS: usize = 2000;

/// "Owning these latches is good", with how random games judged it.
#[derive(Debug, Clone, Serialize)]
pub struct LatchHeuristic {
    /// The form whose tallies hold the latches (index into [`super::GoalForms::forms`]).
    pub form: usize,
    /// Per role, the positive latches among its tally's propositions.
    pub latches: Vec<Vec<usize>>,
    /// Random games it was checked on.
    pub games: usize,
    /// Correlation of a role's lead in the second half of a game with its final score, over
    /// every game and role.
    pub correlation: f64,
    /// The least correlation it needed.
    pub threshold: f64,
    /// Whether it passed.
    pub confirmed: bool,
}

impl LatchHeuristic {
    /// The hypothesis for `forms[form]`, if its tallies count positive latches (`positive`, per
    /// base), checked on random games until `deadline`.
    pub(crate) fn check(
        net: &Net,
        forms: &[GoalForm],
        form: usize,
        positive: &[bool],
        deadline: Option<Instant>,
        seed: u64,
    ) -> Option<LatchHeuristic> {
        let f = &forms[form];
        if net.roles.len() < 2 || f.tallies.iter().any(|t| t.kind != TallyKind::Count) {
            return None;
        }
        let owned: Vec<Vec<usize>> =
            f.tallies.iter().map(|t| t.bases.iter().copied().filter(|&b| positive[b]).collect()).collect();
        if owned.iter().all(Vec::is_empty) {
            return None;
        }
        let mut h =
            LatchHeuristic { form, latches: owned, games: 0, correlation: 0.0, threshold: 1.0, confirmed: false };
        let (mut leads, mut scores) = (Vec::new(), Vec::new());
        let mut m = PropnetMachine::new(net);
        let mut rng = SmallRng::seed_from_u64(seed);
        let initial = m.initial_state();
        while h.games < MAX_GAMES && deadline.is_none_or(|d| Instant::now() < d) {
            let Ok(states) = random_trajectory(&mut m, &initial, &mut rng, MAX_STEPS) else { break };
            let last = states.last().expect("the initial state");
            if !m.is_terminal(last).unwrap_or(false) {
                continue;
            }
            let Some(goals) = (0..net.roles.len()).map(|r| m.goal(last, r).ok()).collect::<Option<Vec<u32>>>() else {
                continue;
            };
            let n = states.len();
            let middle = states[n / 2 + rng.random_range(0..(n - n / 2))].words();
            for (r, &g) in goals.iter().enumerate() {
                leads.push(f64::from(h.lead(middle, r)));
                scores.push(f64::from(g));
            }
            h.games += 1;
        }
        if h.games < MIN_GAMES {
            return Some(h);
        }
        h.correlation = correlation(&leads, &scores);
        h.threshold = correlation_threshold(leads.len());
        h.confirmed = h.correlation >= h.threshold;
        Some(h)
    }

    /// How many of `role`'s latches hold in `state` minus the most any other role holds of its.
    pub fn lead(&self, state: &[u64], role: usize) -> i32 {
        let held = |bases: &[usize]| bases.iter().filter(|&&b| holds(state, b)).count() as i32;
        let others = self.latches.iter().enumerate().filter(|&(s, _)| s != role).map(|(_, l)| held(l)).max();
        held(&self.latches[role]) - others.unwrap_or(0)
    }

    /// The lead over how many latches one role can hold (−1..1): what an outlook fits the score
    /// to (a Reversi corner is a quarter).
    pub fn relative_lead(&self, state: &[u64], role: usize) -> f64 {
        let most = self.latches.iter().map(Vec::len).max().unwrap_or(0).max(1) as f64;
        f64::from(self.lead(state, role)) / most
    }

    /// The lead as a value in 0..1 for search (a half at no lead, 1 with every latch held and
    /// none by anyone else).
    pub fn value(&self, state: &[u64], role: usize) -> f64 {
        (0.5 + self.relative_lead(state, role) / 2.0).clamp(0.0, 1.0)
    }
}
