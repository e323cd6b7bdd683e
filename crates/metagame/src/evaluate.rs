//! Leaf evaluation for depth-limited search: what a state is worth to each role when the search
//! stops above the terminal states. [`Evaluator`] is the one interface; [`GoalEvaluator`] reads
//! the rules' goals, `Fuzzy` chapter 16's fuzzy goal heuristic, and `Blend` adds what the
//! knowledge says of the goals to another. [`leaf_evaluator`] builds the best of them a game's
//! knowledge allows.

use crate::Knowledge;
use analysis::GoalForms;
use heuristic::{Formulas, FuzzyGoals, Params};
use machine::StateMachine;
use propnet::{Limits, Net, PropnetMachine, PropnetState};
use std::sync::Arc;
use std::time::Instant;

/// Estimates how good a non-terminal state of a game played on the machine `M` is for each role.
pub trait Evaluator<M: StateMachine = PropnetMachine> {
    /// One estimate per role (indexed like the game's roles), in goal units: 0 to 100, where
    /// the role's actual goal value is the ideal answer; `m` is the search's machine, which
    /// made `state`.
    fn evaluate(&mut self, m: &mut M, state: &M::State) -> Vec<f64>;

    /// Every role's final score, if the evaluator knows `state`'s outcome to be decided before
    /// the game ends (a virtual terminal): the search then stops there with these as exact
    /// values. None by default.
    fn decided(&mut self, m: &mut M, state: &M::State) -> Option<Vec<u32>> {
        let _ = (m, state);
        None
    }
}

/// The score a role is given when the rules say nothing about it in a state: neither hope nor
/// fear, halfway between the usual worst and best goal values.
pub const UNKNOWN: f64 = 50.0;

/// The simplest useful evaluator: the goal values the rules derive in the state itself (GDL
/// defines `goal` in every state, not only terminal ones), [`UNKNOWN`] where they derive none,
/// and where they derive several the one [`machine::played_value`] takes.
#[derive(Debug, Clone, Copy, Default)]
pub struct GoalEvaluator;

impl<M: StateMachine> Evaluator<M> for GoalEvaluator {
    fn evaluate(&mut self, m: &mut M, state: &M::State) -> Vec<f64> {
        (0..m.roles().len())
            .map(|role| match m.goal_values(state, role) {
                Ok(values) if !values.is_empty() => f64::from(machine::played_value(&values)),
                _ => UNKNOWN,
            })
            .collect()
    }
}

/// Lets a searcher take an evaluator chosen at run time.
impl<M: StateMachine, E: Evaluator<M> + ?Sized> Evaluator<M> for Box<E> {
    fn evaluate(&mut self, m: &mut M, state: &M::State) -> Vec<f64> {
        (**self).evaluate(m, state)
    }

    fn decided(&mut self, m: &mut M, state: &M::State) -> Option<Vec<u32>> {
        (**self).decided(m, state)
    }
}

/// Chapter 16's fuzzy goal heuristic behind the evaluator interface.
struct Fuzzy(FuzzyGoals);

impl Evaluator for Fuzzy {
    fn evaluate(&mut self, _: &mut PropnetMachine, state: &PropnetState) -> Vec<f64> {
        self.0.values(state)
    }
}

/// Another evaluator with what the knowledge says of the goals: states whose scores the goal
/// latches or a goal form's virtual terminal decide end the search's line there with those
/// scores; the confirmed latch heuristics' value is blended into the estimate, owning the
/// latches random games tie to winning (Reversi's corners) counting for as much of it as that
/// tie is strong, its correlation with the final score; and no estimate lies outside the scores
/// the latches leave the role, so a state dead for it at some bar (chapter 12) is valued below
/// that bar, as search should see it.
struct Blend {
    base: Box<dyn Evaluator + Send>,
    knowledge: Arc<Knowledge>,
    /// The goal forms, where they decide states or confirm a latch heuristic.
    forms: Option<Arc<GoalForms>>,
    /// The latch heuristics' share of the estimate (0 where none is confirmed).
    weight: f64,
}

impl Blend {
    /// `base` with what `knowledge` says of the goals, or `base` alone if it decides no state
    /// and confirms no heuristic.
    fn around(base: Box<dyn Evaluator + Send>, knowledge: Option<Arc<Knowledge>>) -> Box<dyn Evaluator + Send> {
        let Some(knowledge) = knowledge else { return base };
        let forms = knowledge.forms.clone();
        let confirmed = forms.iter().flat_map(|f| f.latch_heuristics.iter().filter(|h| h.confirmed));
        let weight = confirmed.map(|h| h.correlation).reduce(f64::max).unwrap_or(0.0).clamp(0.0, 1.0);
        let forms = forms.filter(|f| weight > 0.0 || !f.deciders.is_empty());
        if knowledge.goals.is_empty() && forms.is_none() {
            return base;
        }
        Box::new(Blend { base, knowledge, forms, weight })
    }
}

impl Evaluator for Blend {
    fn evaluate(&mut self, m: &mut PropnetMachine, state: &PropnetState) -> Vec<f64> {
        let base = self.base.evaluate(m, state);
        let latched = self.forms.as_ref().filter(|_| self.weight > 0.0).and_then(|f| f.latch_value(state.words()));
        let mut values = match latched {
            Some(latched) => {
                base.iter().zip(latched).map(|(&b, h)| (1.0 - self.weight) * b + self.weight * 100.0 * h).collect()
            }
            None => base,
        };
        for (role, v) in values.iter_mut().enumerate() {
            if let Some(range) = self.knowledge.goals.range(state.words(), role) {
                *v = v.clamp(f64::from(range.min), f64::from(range.max));
            }
        }
        values
    }

    fn decided(&mut self, _: &mut PropnetMachine, state: &PropnetState) -> Option<Vec<u32>> {
        let words = state.words();
        self.knowledge.goals.determined(words).or_else(|| self.forms.as_ref()?.decided(words))
    }
}

/// The leaf evaluator for `net`'s game (described by `desc`) with `knowledge`: chapter 16's
/// fuzzy goal heuristic (τ = 0.9, product t-norm), or the goal values where the goal formulas
/// cannot be instantiated by `deadline`, with what the knowledge says of the goals (`Blend`).
pub fn leaf_evaluator(
    desc: &gdl::Description,
    net: &Net,
    knowledge: Option<Arc<Knowledge>>,
    deadline: Instant,
) -> Box<dyn Evaluator + Send> {
    let limits = Limits { deadline: Some(deadline), ..Limits::default() };
    let fuzzy = Formulas::new(desc, net, &limits)
        .ok()
        .and_then(|formulas| FuzzyGoals::compile(&formulas, &Params::default()).ok());
    let base: Box<dyn Evaluator + Send> = match fuzzy {
        Some(fuzzy) => Box::new(Fuzzy(fuzzy)),
        None => Box::new(GoalEvaluator),
    };
    Blend::around(base, knowledge)
}

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::GoalLatches;

    #[test]
    fn no_estimate_lies_outside_the_scores_the_latches_leave() {
        // The role scores while q holds; once p is set (for good) q goes out next.
        let (desc, _) = gdl::load(
            "t.kif",
            "(role r) (init q) (init (t 0)) (tick 0 1) (tick 1 2) (<= (legal r a)) (<= (legal r b))
             (<= (next p) (does r a)) (<= (next p) (true p)) (<= (next q) (true q) (not (true p)))
             (<= (next (t ?y)) (true (t ?x)) (tick ?x ?y)) (<= terminal (true (t 2)))
             (<= (goal r 100) (true q)) (<= (goal r 0) (not (true q)))",
        )
        .expect("valid rules");
        let net = propnet::compile(&desc, &Limits::default()).expect("a net");
        let goals = GoalLatches::new(&net, &analysis::structural_latches(&net), None);
        let knowledge = Arc::new(Knowledge::new(&net, goals, false));
        let mut plain = GoalEvaluator;
        let mut blended = Blend::around(Box::new(GoalEvaluator), Some(knowledge));
        let mut m = PropnetMachine::new(&net);
        let base = |name: &str| net.bases.iter().position(|b| b.name == name).expect("a base");
        let state = PropnetState::from_bases(net.bases.len(), [base("p"), base("q"), base("(t 0)")]);
        // The state's own goal says 100, but with p set the role can only get 0.
        assert_eq!(Evaluator::<PropnetMachine>::evaluate(&mut plain, &mut m, &state), [100.0]);
        assert_eq!(blended.evaluate(&mut m, &state), [0.0]);
        let initial = m.initial_state();
        assert_eq!(blended.evaluate(&mut m, &initial), [100.0]);
    }
}
