//! Goal latches and the score range still achievable in a state (Sancho's "goal latches").
//!
//! A latch literal — a positive latch that is true, or a negative latch that is false — holds in
//! every later state. Whatever that literal forces in the next state (by three-valued
//! propagation) therefore holds in every later state too, since the literal is re-established
//! each step; a goal value that evaluates false under those facts is out of reach for good, and
//! one that evaluates true is guaranteed. With proved state invariants, the literal's group
//! partners are known too, and what is forced next is closed under the groups. Per role and goal
//! value this leaves two bitsets over the base propositions (latches that rule the value out when
//! set, and when clear) and two for guarantees, so a state's achievable range costs a few word
//! operations per goal value.

use crate::consequences::Consequences;
use crate::implication::Implication;
use crate::{Exclusive, Latch, LatchKind};
use propnet::net::Net;
use serde::Serialize;

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

/// What a role counts as a satisfactory outcome (chapter 12: "100 points, points above a
/// desired threshold, or a plurality of points in a zero sum game"); a dead state is one from
/// which none can be reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bar {
    /// A goal value of at least this much: the role's best value, or a lower threshold.
    AtLeast(u32),
    /// More than every other role gets.
    Plurality,
}

/// An inclusive range of goal values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ScoreRange {
    /// The lowest value still possible.
    pub min: u32,
    /// The highest value still possible.
    pub max: u32,
}

/// Bitsets over base propositions, per latch direction, kept sparse: only the words with a latch
/// in them, as (word index, bits), so that a test reads only those (ranges are asked for every
/// candidate move of a guided playout, and most games latch few of their bases).
#[derive(Debug, Clone, Default)]
struct Masks {
    /// Positive latches that cause the effect when true.
    set: Vec<(usize, u64)>,
    /// Negative latches that cause it when false.
    clear: Vec<(usize, u64)>,
}

impl Masks {
    fn add(&mut self, base: usize, kind: LatchKind) {
        let m = if kind == LatchKind::Positive { &mut self.set } else { &mut self.clear };
        let (w, bit) = (base / 64, 1u64 << (base % 64));
        match m.binary_search_by_key(&w, |&(k, _)| k) {
            Ok(k) => m[k].1 |= bit,
            Err(k) => m.insert(k, (w, bit)),
        }
    }

    /// Whether a latch fires in `state`; words past the state's end are not read.
    #[inline]
    fn fires(&self, state: &[u64]) -> bool {
        let set = self.set.iter().any(|&(w, m)| state.get(w).is_some_and(|s| m & s != 0));
        set || self.clear.iter().any(|&(w, m)| state.get(w).is_some_and(|s| m & !s != 0))
    }
}

/// One goal value of one role and the latches that decide it.
#[derive(Debug, Clone)]
struct Value {
    value: u32,
    ruled_out: Masks,
    guaranteed: Masks,
}

/// The latch literals that set off one effect (any of them), and the facts that then hold for
/// good.
type Trigger = (Vec<(usize, LatchKind)>, Vec<(usize, bool)>);

/// The goal latches of a game, ready to bound the scores of any state.
#[derive(Debug, Clone)]
pub struct GoalLatches {
    /// Per role, its goal values in ascending order.
    roles: Vec<Vec<Value>>,
    /// The constant sum of the two roles' goal values at the end, where it is proved.
    sum: Option<u32>,
    /// Every latch literal's effects, for reports.
    pub latches: Vec<GoalLatch>,
}

impl GoalLatches {
    /// The constant sum of the two roles' goal values at the end, where it is proved.
    pub fn sum(&self) -> Option<u32> {
        self.sum
    }

    /// Works out the effect of every latch in `latches` (found by any method) on every goal, and
    /// with proved `invariants`, in the states that satisfy their groups, the effect of their
    /// latching sets too (a member true makes the set hold for good, and every other member of
    /// its group false for good: each member is reported as a positive literal).
    pub fn new(net: &Net, latches: &[Latch], invariants: Option<&Exclusive>) -> GoalLatches {
        let mut roles: Vec<Vec<Value>> = net
            .goals
            .iter()
            .map(|values| {
                let mut values: Vec<u32> = values.iter().map(|&(v, _)| v).collect();
                values.sort_unstable();
                values.dedup();
                let value = |v| Value { value: v, ruled_out: Masks::default(), guaranteed: Masks::default() };
                values.into_iter().map(value).collect()
            })
            .collect();
        let groups = invariants.map_or(&[][..], |i| &i.groups);
        let mut triggers: Vec<Trigger> =
            latches.iter().map(|l| (vec![(l.base, l.kind)], vec![(l.base, l.kind == LatchKind::Positive)])).collect();
        for set in invariants.map_or(&[][..], |i| &i.latches) {
            let outside = groups
                .iter()
                .filter(|g| !g.implies && set.iter().all(|b| g.bases.contains(b)))
                .flat_map(|g| g.bases.iter().filter(|b| !set.contains(b)).map(|&b| (b, false)));
            triggers.push((set.iter().map(|&b| (b, LatchKind::Positive)).collect(), outside.collect()));
        }
        triggers.sort_unstable();
        triggers.dedup();
        let mut imp = Implication::new(net);
        let mut consequences = Consequences::new(net.bases.len(), groups);
        let mut found = Vec::new();
        for (fires, held) in triggers {
            // The facts and what the groups force with them hold in every later state; what
            // they force next does too, with what the groups force with that.
            let Some(now) = consequences.close(&held) else { continue };
            imp.reset();
            imp.assume_bases(&now);
            let mut next = imp.forced_next();
            next.extend_from_slice(&held);
            // Where no state has them next, a state that has them has no successor (the facts
            // would hold in it): it ends the game, and its own goals are the last.
            let next = consequences.close(&next).unwrap_or(now);
            imp.reset();
            imp.assume_bases(&next);
            for (role, goals) in net.goals.iter().enumerate() {
                for &(value, goal) in goals {
                    let effect = match imp.value(goal) {
                        _ if imp.is_constant(goal) => continue,
                        Some(false) => Effect::RulesOut,
                        Some(true) => Effect::Guarantees,
                        None => continue,
                    };
                    let v = roles[role].iter_mut().find(|v| v.value == value).expect("listed value");
                    for &(base, kind) in &fires {
                        match effect {
                            Effect::RulesOut => v.ruled_out.add(base, kind),
                            Effect::Guarantees => v.guaranteed.add(base, kind),
                        }
                        found.push(GoalLatch { base, kind, role, value, effect });
                    }
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        GoalLatches { roles, sum: crate::zero_sum(net), latches: found }
    }

    /// Whether any latch affects any goal (if not, every range is the full one).
    pub fn is_empty(&self) -> bool {
        self.latches.is_empty()
    }

    /// The goal values `role` can still get in some later state of a game now in `state`
    /// (the words of a [`propnet::PropnetState`]); `None` if the latches leave none, which only
    /// happens in states that play cannot reach or in games with no goal for the role. In a
    /// proved zero-sum game a value is left only if the other role can still get the rest of the
    /// sum: what the latches do to one role's scores bounds the other's.
    pub fn range(&self, state: &[u64], role: usize) -> Option<ScoreRange> {
        // In a zero-sum game, the sum and the value the other role's latches guarantee it.
        let other = self.sum.map(|sum| (sum, self.guaranteed(state, 1 - role)));
        let open = |v: u32| {
            let Some((sum, fixed)) = other else { return true };
            let Some(rest) = sum.checked_sub(v) else { return false };
            match fixed {
                Some(g) => g.value == rest,
                None => self.roles[1 - role].iter().any(|w| w.value == rest && !w.ruled_out.fires(state)),
            }
        };
        let mut kept = self.alive(state, role).filter(|&v| open(v));
        let min = kept.next()?;
        Some(ScoreRange { min, max: kept.last().unwrap_or(min) })
    }

    /// The value a latch guarantees `role` in `state`, unless another rules it out.
    fn guaranteed(&self, state: &[u64], role: usize) -> Option<&Value> {
        self.roles[role].iter().find(|v| v.guaranteed.fires(state) && !v.ruled_out.fires(state))
    }

    /// The values `role` can still get in `state` by its own latches, ascending.
    fn alive<'s>(&'s self, state: &'s [u64], role: usize) -> impl Iterator<Item = u32> + 's {
        let fixed = self.guaranteed(state, role);
        let open = self.roles[role].iter().filter(move |v| fixed.is_none() && !v.ruled_out.fires(state));
        fixed.into_iter().chain(open).map(|v| v.value)
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

    /// Whether `state` is dead for `role` (chapter 12): no later state can give it an outcome
    /// that clears `bar`.
    pub fn is_dead(&self, state: &[u64], role: usize, bar: Bar) -> bool {
        let Some(mine) = self.range(state, role) else { return true };
        match bar {
            Bar::AtLeast(threshold) => mine.max < threshold,
            // Every other role is sure of at least what this one can still get.
            Bar::Plurality => (0..self.roles.len())
                .filter(|&r| r != role)
                .any(|r| self.range(state, r).is_some_and(|theirs| theirs.min >= mine.max)),
        }
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
    use structures::Bits;

    proptest::proptest! {
        /// The sparse masks fire exactly where a dense bitset per direction would.
        #[test]
        fn sparse_masks_fire_as_dense_ones_do(
            latches in proptest::collection::vec((0usize..200, proptest::bool::ANY), 0..12),
            state in proptest::collection::vec(proptest::num::u64::ANY, 4),
        ) {
            let mut masks = Masks::default();
            let (mut set, mut clear) = ([0u64; 4], [0u64; 4]);
            for &(base, positive) in &latches {
                let kind = if positive { LatchKind::Positive } else { LatchKind::Negative };
                masks.add(base, kind);
                let dense = if positive { &mut set } else { &mut clear };
                dense[base / 64] |= 1 << (base % 64);
            }
            let dense = (0..4).any(|w| set[w] & state[w] != 0 || clear[w] & !state[w] != 0);
            proptest::prop_assert_eq!(masks.fires(&state), dense);
        }
    }

    fn goal_latches(net: &Net) -> GoalLatches {
        let mut latches = structural_latches(net);
        latches.extend(exact_latches(net, 16, &[]));
        GoalLatches::new(net, &latches, None)
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
        assert!(g.is_dead(&with_p, 0, Bar::AtLeast(100)) && !g.is_dead(initial.words(), 0, Bar::AtLeast(100)));
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

    /// Each role scores: both or neither, 50 each; one alone, 100 to it and 0 to the other.
    /// Having scored is a positive latch.
    const SCORING: &str = "(role white) (role black) (init (step 0)) (succ 0 1) (succ 1 2) (succ 2 3)
        (<= (legal ?r score) (role ?r)) (<= (legal ?r wait) (role ?r))
        (<= (next (scored ?r)) (does ?r score)) (<= (next (scored ?r)) (true (scored ?r)))
        (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y)) (<= terminal (true (step 3)))
        (<= (other white black)) (<= (other black white))
        (<= (goal ?r 100) (role ?r) (other ?r ?o) (true (scored ?r)) (not (true (scored ?o))))
        (<= (goal ?r 50) (role ?r) (other ?r ?o) (true (scored ?r)) (true (scored ?o)))
        (<= (goal ?r 50) (role ?r) (other ?r ?o) (not (true (scored ?r))) (not (true (scored ?o))))
        (<= (goal ?r 0) (role ?r) (other ?r ?o) (not (true (scored ?r))) (true (scored ?o)))";

    #[test]
    fn a_state_is_dead_below_a_threshold_or_without_a_plurality_as_its_latches_say() {
        let net = crate::testing::compiled(SCORING);
        let g = goal_latches(&net);
        let (white, black) = (0, 1);
        let initial = PropnetState::from_bases(net.bases.len(), (0..net.bases.len()).filter(|&i| net.bases[i].init));
        let mut scored = initial.words().to_vec();
        scored.set_bit(base(&net, "(scored black)"));
        // Black has scored: white can get 50 at best, black at least 50.
        assert_eq!(g.range(&scored, white), Some(ScoreRange { min: 0, max: 50 }));
        assert_eq!(g.range(&scored, black), Some(ScoreRange { min: 50, max: 100 }));
        for (bar, dead) in [(Bar::AtLeast(100), true), (Bar::AtLeast(50), false), (Bar::Plurality, true)] {
            assert_eq!(g.is_dead(&scored, white, bar), dead, "{bar:?}");
            assert!(!g.is_dead(initial.words(), white, bar), "{bar:?}");
        }
        // Black is alive whatever the bar.
        for bar in [Bar::AtLeast(100), Bar::Plurality] {
            assert!(!g.is_dead(&scored, black, bar));
        }
    }

    #[test]
    fn in_a_zero_sum_game_one_roles_latched_scores_bound_the_others() {
        let masks = |bits: &[usize]| {
            let mut m = Masks::default();
            bits.iter().for_each(|&b| m.add(b, LatchKind::Positive));
            m
        };
        let value = |value, out: &[usize]| Value { value, ruled_out: masks(out), guaranteed: masks(&[]) };
        // Base 0 rules out the first role's 100; nothing latched touches the second role's goals.
        let roles = vec![
            vec![value(0, &[]), value(50, &[]), value(100, &[0])],
            vec![value(0, &[]), value(50, &[]), value(100, &[])],
        ];
        let plain = GoalLatches { roles: roles.clone(), sum: None, latches: Vec::new() };
        let summed = GoalLatches { roles, sum: Some(100), latches: Vec::new() };
        let state = [1u64];
        assert_eq!(plain.range(&state, 1), Some(ScoreRange { min: 0, max: 100 }));
        assert_eq!(summed.range(&state, 1), Some(ScoreRange { min: 50, max: 100 }));
        assert_eq!(summed.range(&state, 0), Some(ScoreRange { min: 0, max: 50 }));
        assert_eq!(summed.range(&[0], 1), Some(ScoreRange { min: 0, max: 100 }));
        assert!(summed.is_dead(&state, 0, Bar::Plurality) && !plain.is_dead(&state, 0, Bar::Plurality));
    }

    #[test]
    fn a_set_that_latches_inside_a_group_rules_a_goal_out_as_a_latch_would() {
        // The counter only goes up, 1 to 3; the role wins only if it never leaves 1. No value
        // but the last latches alone, but 2 and 3 together do.
        let net = crate::testing::compiled(
            "(role r) (init (c 1)) (init (t 0)) (succ 1 2) (succ 2 3) (tick 0 1) (tick 1 2) (tick 2 3)
             (<= (legal r go)) (<= (legal r wait))
             (<= (next (c ?y)) (true (c ?x)) (does r go) (succ ?x ?y)) (<= (next (c 3)) (true (c 3)) (does r go))
             (<= (next (c ?x)) (true (c ?x)) (does r wait)) (<= (next (t ?y)) (true (t ?x)) (tick ?x ?y))
             (<= terminal (true (t 3))) (<= (goal r 100) (true (c 1))) (<= (goal r 0) (not (true (c 1))))",
        );
        let invariants = crate::Exclusive::discover(&net, None, 1);
        let named = |set: &Vec<usize>| set.iter().map(|&b| net.bases[b].name.as_str()).collect::<Vec<_>>();
        let sets: Vec<Vec<&str>> = invariants.latches.iter().map(named).collect();
        assert!(sets.contains(&vec!["(c 2)", "(c 3)"]), "{sets:?}");
        assert!(!sets.iter().any(|s| s.len() == 3 && s[0].starts_with("(c")), "the whole group: {sets:?}");
        let two = base(&net, "(c 2)");
        let out = GoalLatch { base: two, kind: LatchKind::Positive, role: 0, value: 100, effect: Effect::RulesOut };
        assert!(!goal_latches(&net).latches.contains(&out));
        let mut latches = structural_latches(&net);
        latches.extend(exact_latches(&net, 16, &invariants.groups));
        let g = GoalLatches::new(&net, &latches, Some(&invariants));
        assert!(g.latches.contains(&out), "{:?}", g.latches);
        let initial = PropnetState::from_bases(net.bases.len(), (0..net.bases.len()).filter(|&i| net.bases[i].init));
        let mut moved = initial.words().to_vec();
        moved.clear_bit(base(&net, "(c 1)"));
        moved.set_bit(two);
        assert!(g.is_dead(&moved, 0, Bar::AtLeast(100)) && !g.is_dead(initial.words(), 0, Bar::AtLeast(100)));
    }

    #[test]
    fn a_latch_that_ends_the_game_decides_it_though_no_state_follows() {
        // a may win on its turn, which ends the game: `won` and a's turn are never together, so
        // no state can follow one that has `won`; its goals are the game's last.
        let net = crate::testing::compiled(
            "(role a) (role b) (init (control a))
             (<= (legal a win) (true (control a))) (<= (legal a wait) (true (control a)))
             (<= (legal a noop) (true (control b))) (<= (legal b noop))
             (<= (next won) (does a win)) (<= (next won) (true won))
             (<= (next (control a)) (true (control b))) (<= (next (control b)) (true (control a)))
             (<= terminal (true won)) (<= (goal a 100) (true won)) (<= (goal a 0) (not (true won)))
             (<= (goal b 0) (true won)) (<= (goal b 100) (not (true won)))",
        );
        let invariants = crate::Exclusive::discover(&net, None, 1);
        let (won, turn) = (base(&net, "won"), base(&net, "(control a)"));
        let pair = |g: &crate::Group| g.pair && g.bases.contains(&won) && g.bases.contains(&turn);
        assert!(invariants.groups.iter().any(pair), "{:?}", invariants.groups);
        let g = GoalLatches::new(&net, &structural_latches(&net), Some(&invariants));
        let wins = GoalLatch { base: won, kind: LatchKind::Positive, role: 0, value: 100, effect: Effect::Guarantees };
        assert!(g.latches.contains(&wins), "{:?}", g.latches);
    }
}
