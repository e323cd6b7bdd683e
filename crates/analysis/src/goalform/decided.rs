//! Virtual terminals (the Sancho blog's "virtually terminal" states): where a confirmed
//! comparison counts propositions that are positive latches, a count can only grow, and a
//! proposition that can never be true together with one already held can no longer be counted.
//! Once one role's count exceeds the most another can still reach, the standings at the end are
//! fixed, and with them the scores: search can treat the state as over (dots and boxes once a
//! player has more than half the boxes).
//!
//! "Never true together" is proved, not sampled: the pairs of propositions at the same place in
//! different roles' tallies (the same box owned by either player) are targets of the invariant
//! prover ([`crate::invariant`]). Without such proofs a role's most is its tally's size, which
//! still decides games with small counted sets.
//!
//! Counters held in the state decide the same way where their trend is proved ([`Trend`]): a
//! rising counter ends at least where it is and at most at its highest value, a falling one at
//! most where it is. A comparison of counters gets a decider only where some state could be
//! decided by those bounds: in dots and boxes, both score counters rise to 25, so only the boxes
//! decide, not the counters.

use super::{holds, FormRule, GoalForm, Standing, TallyKind, Trend};
use crate::invariant;
use propnet::net::Net;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

/// When a confirmed form's outcome is decided before the game ends.
#[derive(Debug, Clone, Serialize)]
pub struct Decider {
    /// The form (index into [`super::GoalForms::forms`]).
    pub form: usize,
    /// Pairs of propositions in different roles' tallies proved never true together.
    pub exclusive: usize,
    /// Per role, what bounds its tally at the end.
    #[serde(skip)]
    reach: Vec<Reach>,
}

/// What bounds a role's tally at the end of the game.
#[derive(Debug, Clone)]
enum Reach {
    /// A count of positive latches: its bases, each with the bases of other tallies it excludes.
    Latched(Vec<(usize, Vec<usize>)>),
    /// A counter: its bases and their values, and which way it moves.
    Counter(Vec<(usize, u32)>, Trend),
}

impl Reach {
    /// The least and the most the tally can be at the end of a game now in `state`, if known.
    fn bounds(&self, state: &[u64]) -> Option<(u32, u32)> {
        match self {
            Reach::Latched(bases) => {
                let least = bases.iter().filter(|(b, _)| holds(state, *b)).count() as u32;
                let lost =
                    bases.iter().filter(|(b, p)| !holds(state, *b) && p.iter().any(|&q| holds(state, q))).count();
                Some((least, (bases.len() - lost) as u32))
            }
            Reach::Counter(values, trend) => {
                let low = values.iter().map(|&(_, v)| v).min().unwrap_or(0);
                let high = values.iter().map(|&(_, v)| v).max().unwrap_or(0);
                let mut held = values.iter().filter(|(b, _)| holds(state, *b));
                let (_, now) = held.next()?;
                if held.next().is_some() {
                    return None;
                }
                match trend {
                    Trend::Rises => Some((*now, high)),
                    Trend::Falls => Some((low, *now)),
                    Trend::Unknown => Some((low, high)),
                }
            }
        }
    }
}

impl Decider {
    /// The decider of `forms[form]`, if its tallies can ever be decided before the end: counts
    /// of positive latches (`positive`, per base), with the exclusions proved from `samples`
    /// (reachable states) by `deadline`; or counters whose trends (proved before) let one role's
    /// least pass another's most in some state.
    pub(crate) fn new(
        net: &Net,
        forms: &[GoalForm],
        form: usize,
        positive: &[bool],
        samples: &[&[u64]],
        deadline: Option<Instant>,
    ) -> Option<Decider> {
        let f = &forms[form];
        if !matches!(f.rule, FormRule::Comparison { .. }) {
            return None;
        }
        if f.tallies.iter().all(|t| t.kind == TallyKind::Counter) {
            return Decider::of_counters(f, form);
        }
        if f.tallies.iter().any(|t| t.kind != TallyKind::Count) {
            return None;
        }
        if !f.tallies.iter().all(|t| t.bases.iter().all(|&b| positive[b])) {
            return None;
        }
        // Targets: propositions at one place in two roles' tallies.
        let mut at: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
        for (r, t) in f.tallies.iter().enumerate() {
            let Some(split) = t.split else { continue };
            for &b in &t.bases {
                at.entry(super::tally::place(net, b, split)).or_default().push((r, b));
            }
        }
        let mut targets = Vec::new();
        for members in at.values() {
            for (i, &(r, a)) in members.iter().enumerate() {
                for &(s, b) in &members[i + 1..] {
                    if r != s && a != b {
                        targets.push(((a, false), (b, false)));
                    }
                }
            }
        }
        let (proved, _) = invariant::prove(net, &targets, &[], samples, deadline);
        let mut partners: Vec<Vec<(usize, Vec<usize>)>> =
            f.tallies.iter().map(|t| t.bases.iter().map(|&b| (b, Vec::new())).collect()).collect();
        let mut exclusive = 0;
        for (&((a, _), (b, _)), _) in targets.iter().zip(&proved).filter(|(_, &p)| p) {
            exclusive += 1;
            for (x, y) in [(a, b), (b, a)] {
                for role in partners.iter_mut() {
                    if let Some((_, p)) = role.iter_mut().find(|(base, _)| *base == x) {
                        p.push(y);
                    }
                }
            }
        }
        Some(Decider { form, exclusive, reach: partners.into_iter().map(Reach::Latched).collect() })
    }

    /// The decider of counters, if some role's least can pass every other's most in some state:
    /// at best a rising counter's least is its highest value and a falling one's most its
    /// lowest; otherwise they are the counter's lowest and highest.
    fn of_counters(f: &GoalForm, form: usize) -> Option<Decider> {
        let reach: Vec<Reach> = f
            .tallies
            .iter()
            .map(|t| Reach::Counter(t.bases.iter().copied().zip(t.values.iter().copied()).collect(), t.trend))
            .collect();
        let extremes: Vec<(u32, u32)> = f
            .tallies
            .iter()
            .map(|t| {
                let (low, high) = (t.values.iter().min().copied(), t.values.iter().max().copied());
                let (low, high) = (low.unwrap_or(0), high.unwrap_or(0));
                match t.trend {
                    Trend::Rises => (high, high),
                    Trend::Falls => (low, low),
                    Trend::Unknown => (low, high),
                }
            })
            .collect();
        let possible = (0..reach.len()).any(|r| (0..reach.len()).all(|s| s == r || extremes[r].0 > extremes[s].1));
        let moves = f.tallies.iter().any(|t| t.trend != Trend::Unknown);
        (possible && moves).then_some(Decider { form, exclusive: 0, reach })
    }

    /// Per role, the least and the most its tally can be at the end of a game now in `state`
    /// (none for a counter that holds no value or several there).
    pub fn bounds(&self, state: &[u64]) -> Vec<Option<(u32, u32)>> {
        self.reach.iter().map(|r| r.bounds(state)).collect()
    }

    /// Every role's score, if the standings at the end are already fixed in `state` and the form
    /// knows what they are worth.
    pub fn decided(&self, form: &GoalForm, state: &[u64]) -> Option<Vec<u32>> {
        let FormRule::Comparison { values } = &form.rule else { return None };
        let bounds: Vec<(u32, u32)> = self.bounds(state).into_iter().collect::<Option<_>>()?;
        let roles = bounds.len();
        // A role ahead for good: its least beats everyone else's most.
        let ahead = (0..roles).find(|&r| (0..roles).all(|s| s == r || bounds[r].0 > bounds[s].1));
        let standings: Vec<Standing> = match ahead {
            Some(r) => (0..roles).map(|s| if s == r { Standing::Ahead } else { Standing::Behind }).collect(),
            // Nothing can change any more: the standings are today's.
            None if bounds.iter().all(|&(lo, hi)| lo == hi) => {
                let now: Vec<u32> = bounds.iter().map(|&(lo, _)| lo).collect();
                (0..roles).map(|r| Standing::of(&now, r)).collect()
            }
            None => return None,
        };
        standings.iter().enumerate().map(|(r, s)| values[r][s.index()]).collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::goalform::{GoalForms, TallyKind, Trend};
    use machine::{random_trajectory, StateMachine};
    use propnet::PropnetMachine;
    use rand::rngs::SmallRng;
    use rand::SeedableRng;

    /// Six rounds in which each player may score a point, x up to six and o up to three; the
    /// higher score wins. x's counter never goes down and o's cannot pass three, so x has won
    /// once it holds four.
    const RACE: &str = "
        (role x) (role o) (most x 6) (most o 3)
        (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
        (init (score x 0)) (init (score o 0)) (init (round 0))
        (<= (legal ?p score) (role ?p)) (<= (legal ?p wait) (role ?p))
        (<= (next (score ?p ?m)) (true (score ?p ?n)) (does ?p score) (most ?p ?top) (distinct ?n ?top)
            (succ ?n ?m))
        (<= (next (score ?p ?n)) (true (score ?p ?n)) (most ?p ?n))
        (<= (next (score ?p ?n)) (true (score ?p ?n)) (does ?p wait))
        (<= (next (round ?m)) (true (round ?n)) (succ ?n ?m))
        (<= terminal (true (round 6)))
        (<= (more ?a ?b) (succ ?b ?a))
        (<= (more ?a ?b) (succ ?c ?a) (more ?c ?b))
        (<= (ahead ?p) (true (score ?p ?a)) (true (score ?q ?b)) (distinct ?p ?q) (more ?a ?b))
        (<= (level ?p) (true (score ?p ?a)) (true (score ?q ?a)) (distinct ?p ?q))
        (<= (goal ?p 100) (ahead ?p))
        (<= (goal ?p 50) (level ?p))
        (<= (goal ?p 0) (role ?p) (not (ahead ?p)) (not (level ?p)))";

    #[test]
    fn a_rising_counter_past_the_others_highest_value_decides_the_game() {
        let net = testkit::compile(&testkit::load("race.kif", RACE));
        let mut forms = GoalForms::discover(&net, None, 3);
        forms.use_latches(&net, &crate::structural_latches(&net), false, None, 3);
        let form = forms.emulator().expect("the scores are compared");
        assert!(form.tallies.iter().all(|t| t.kind == TallyKind::Counter && t.trend == Trend::Rises));
        assert_eq!(forms.deciders.len(), 1, "the counters can decide the race");
        let mut m = PropnetMachine::new(&net);
        let mut rng = SmallRng::seed_from_u64(9);
        let initial = m.initial_state();
        let mut decided = 0;
        for _ in 0..200 {
            let states = random_trajectory(&mut m, &initial, &mut rng, 20).expect("a game");
            let last = states.last().expect("a state");
            let goals: Vec<u32> = (0..2).map(|r| m.goal(last, r).expect("a goal")).collect();
            for s in &states[..states.len() - 1] {
                if let Some(scores) = forms.decided(s.words()) {
                    decided += 1;
                    assert_eq!(scores, goals, "decided early, but play ended otherwise");
                    let x = form.tallies[0].read(s.words()).expect("a score");
                    assert!(x >= 4, "decided with x at {x}: o can still reach three");
                }
            }
        }
        assert!(decided > 50, "x reaches four before the end in many random games: {decided}");
    }
}
