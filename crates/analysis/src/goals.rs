//! Goal latches and the score range still achievable in a state (Sancho's "goal latches").
//!
//! A latch literal — a positive latch that is true, or a negative latch that is false — holds in
//! every later state. Whatever that literal forces in the next state (by three-valued
//! propagation) therefore holds in every later state too, since the literal is re-established
//! each step; a goal value that evaluates false under those facts is out of reach for good, and
//! one that evaluates true is guaranteed. Per role and goal value this leaves two bitsets over
//! the base propositions (latches that rule the value out when set, and when clear) and two for
//! guarantees, so a state's achievable range costs a few word operations per goal value.

use crate::implication::Implication;
use crate::{Latch, LatchKind};
use propnet::net::Net;
use serde::Serialize;
use structures::Bits;

/// What one latch literal does to one goal value from the next state on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// The role cannot get the value any more.
    RulesOut,
    /// The role gets the value if the game ends.
    Guarantees,
}

/// A latch literal with an effect on a goal value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct GoalLatch {
    /// The latch's base proposition index.
    pub base: usize,
    /// Positive: the effect starts once the base is true; negative: once it is false.
    pub kind: LatchKind,
    /// The role's index.
    pub role: usize,
    /// The goal value.
    pub value: u32,
    /// What happens to it.
    pub effect: Effect,
}

/// An inclusive range of goal values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ScoreRange {
    /// The lowest value still possible.
    pub min: u32,
    /// The highest value still possible.
    pub max: u32,
}

/// Bitsets over base propositions, per latch direction.
#[derive(Debug, Clone, Default)]
struct Masks {
    /// Positive latches that cause the effect when true.
    set: Vec<u64>,
    /// Negative latches that cause it when false.
    clear: Vec<u64>,
}

impl Masks {
    fn new(words: usize) -> Masks {
        Masks { set: vec![0; words], clear: vec![0; words] }
    }

    fn add(&mut self, base: usize, kind: LatchKind) {
        let m = if kind == LatchKind::Positive { &mut self.set } else { &mut self.clear };
        m.set_bit(base);
    }

    fn fires(&self, state: &[u64]) -> bool {
        let set = self.set.iter().zip(state).any(|(m, s)| m & s != 0);
        set || self.clear.iter().zip(state).any(|(m, s)| m & !s != 0)
    }
}

/// One goal value of one role and the latches that decide it.
#[derive(Debug, Clone)]
struct Value {
    value: u32,
    ruled_out: Masks,
    guaranteed: Masks,
}

/// The goal latches of a game, ready to bound the scores of any state.
#[derive(Debug, Clone)]
pub struct GoalLatches {
    /// Per role, its goal values in ascending order.
    roles: Vec<Vec<Value>>,
    /// Every latch literal's effects, for reports.
    pub latches: Vec<GoalLatch>,
}

impl GoalLatches {
    /// Works out the effect of every latch in `latches` (found by any method) on every goal.
    pub fn new(net: &Net, latches: &[Latch]) -> GoalLatches {
        let words = net.bases.len().div_ceil(64);
        let mut roles: Vec<Vec<Value>> = net
            .goals
            .iter()
            .map(|values| {
                let mut values: Vec<u32> = values.iter().map(|&(v, _)| v).collect();
                values.sort_unstable();
                values.dedup();
                let value = |v| Value { value: v, ruled_out: Masks::new(words), guaranteed: Masks::new(words) };
                values.into_iter().map(value).collect()
            })
            .collect();
        let mut literals: Vec<(usize, LatchKind)> = latches.iter().map(|l| (l.base, l.kind)).collect();
        literals.sort_unstable();
        literals.dedup();
        let mut imp = Implication::new(net);
        let mut found = Vec::new();
        for (base, kind) in literals {
            let held = kind == LatchKind::Positive;
            let node = net.bases[base].node;
            imp.reset();
            imp.assume(&[(node, held)]);
            let mut next: Vec<_> = imp.forced_next().into_iter().map(|(q, v)| (net.bases[q].node, v)).collect();
            next.push((node, held));
            imp.reset();
            imp.assume(&next);
            for (role, goals) in net.goals.iter().enumerate() {
                for &(value, goal) in goals {
                    let effect = match imp.value(goal) {
                        _ if imp.is_constant(goal) => continue,
                        Some(false) => Effect::RulesOut,
                        Some(true) => Effect::Guarantees,
                        None => continue,
                    };
                    let v = roles[role].iter_mut().find(|v| v.value == value).expect("listed value");
                    match effect {
                        Effect::RulesOut => v.ruled_out.add(base, kind),
                        Effect::Guarantees => v.guaranteed.add(base, kind),
                    }
                    found.push(GoalLatch { base, kind, role, value, effect });
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        GoalLatches { roles, latches: found }
    }

    /// Whether any latch affects any goal (if not, every range is the full one).
    pub fn is_empty(&self) -> bool {
        self.latches.is_empty()
    }

    /// The goal values `role` can still get in some later state of a game now in `state`
    /// (the words of a [`propnet::PropnetState`]); `None` if the latches leave none, which only
    /// happens in states that play cannot reach or in games with no goal for the role.
    pub fn range(&self, state: &[u64], role: usize) -> Option<ScoreRange> {
        let values = &self.roles[role];
        if let Some(v) = values.iter().find(|v| v.guaranteed.fires(state) && !v.ruled_out.fires(state)) {
            return Some(ScoreRange { min: v.value, max: v.value });
        }
        let mut alive = values.iter().filter(|v| !v.ruled_out.fires(state)).map(|v| v.value);
        let min = alive.next()?;
        Some(ScoreRange { min, max: alive.next_back().unwrap_or(min) })
    }

    /// The base propositions whose values the ranges depend on, in ascending order.
    pub fn bases(&self) -> Vec<usize> {
        let mut bases: Vec<usize> = self.latches.iter().map(|g| g.base).collect();
        bases.sort_unstable();
        bases.dedup();
        bases
    }

    /// Every role's [`range`](Self::range).
    pub fn ranges(&self, state: &[u64]) -> Vec<Option<ScoreRange>> {
        (0..self.roles.len()).map(|r| self.range(state, r)).collect()
    }

    /// The score of every role, if the latches set in `state` already decide them all.
    pub fn determined(&self, state: &[u64]) -> Option<Vec<u32>> {
        self.ranges(state).into_iter().map(|r| r.filter(|r| r.min == r.max).map(|r| r.min)).collect()
    }

    /// The highest goal value `role` can get in any state (its satisfactory score).
    pub fn best(&self, role: usize) -> Option<u32> {
        self.roles[role].last().map(|v| v.value)
    }

    /// Whether `state` is dead for `role`: its latches rule out every value at or above
    /// `threshold` (chapter 12's dead state, with "satisfactory" meaning at least `threshold`).
    pub fn is_dead(&self, state: &[u64], role: usize, threshold: u32) -> bool {
        self.range(state, role).is_none_or(|r| r.max < threshold)
    }

    /// The latch literals that alone make a state dead for `role` (no later state can give it
    /// its best value): those that rule the best value out or guarantee a lower one.
    pub fn dead_literals(&self, role: usize) -> Vec<(usize, LatchKind)> {
        let best = self.best(role);
        let kills = |g: &&GoalLatch| {
            g.role == role
                && match g.effect {
                    Effect::RulesOut => Some(g.value) == best,
                    Effect::Guarantees => Some(g.value) < best,
                }
        };
        let mut out: Vec<_> = self.latches.iter().filter(kills).map(|g| (g.base, g.kind)).collect();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{base, net};
    use crate::{exact_latches, structural_latches};
    use propnet::PropnetState;

    fn goal_latches(net: &Net) -> GoalLatches {
        let mut latches = structural_latches(net);
        latches.extend(exact_latches(net, 16));
        GoalLatches::new(net, &latches)
    }

    #[test]
    fn untwisty_corridor_p_rules_out_the_win_for_good() {
        let net = net("untwistycorridor");
        let g = goal_latches(&net);
        let p = base(&net, "p");
        assert!(g.latches.contains(&GoalLatch {
            base: p,
            kind: LatchKind::Positive,
            role: 0,
            value: 100,
            effect: Effect::RulesOut
        }));
        let initial = PropnetState::from_bases(net.bases.len(), (0..net.bases.len()).filter(|&i| net.bases[i].init));
        assert_eq!(g.range(initial.words(), 0), Some(ScoreRange { min: 0, max: 100 }));
        let mut with_p: Vec<u64> = initial.words().to_vec();
        with_p.set_bit(p);
        assert_eq!(g.range(&with_p, 0), Some(ScoreRange { min: 0, max: 0 }));
        assert_eq!(g.determined(&with_p), Some(vec![0]));
        assert!(g.is_dead(&with_p, 0, 100) && !g.is_dead(initial.words(), 0, 100));
    }

    #[test]
    fn tictactoe_marks_do_not_decide_the_score_alone() {
        let net = net("tictactoe");
        let g = goal_latches(&net);
        let initial = PropnetState::from_bases(net.bases.len(), (0..net.bases.len()).filter(|&i| net.bases[i].init));
        assert_eq!(g.determined(initial.words()), None);
        for r in g.ranges(initial.words()) {
            assert_eq!(r, Some(ScoreRange { min: 0, max: 100 }));
        }
    }
}
