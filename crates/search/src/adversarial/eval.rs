//! Leaf evaluation for depth-limited search: what a state is worth to each role when the search
//! stops above the terminal states.

use machine::StateMachine;
use propnet::PropnetMachine;

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
