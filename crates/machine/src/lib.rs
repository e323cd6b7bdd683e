//! The game-engine interface shared by every latchkey engine.
//!
//! A [`StateMachine`] answers the questions a player asks about a game: who plays, where the game
//! starts, what each role may do, where a joint move leads, whether a state is terminal and what
//! each role scores there. The reference reasoner and the propnet both implement it, so everything
//! built on top (perft, conformance, search) is written once and differential-tested across them.

#![warn(missing_docs)]

pub mod conform;
mod error;
pub mod java_random;
pub mod perft;
pub mod playout;
pub mod record;
pub mod reference;
pub mod simulate;

#[cfg(test)]
mod mock;

pub use conform::{conform, ConformOptions, ConformReport};
pub use error::MachineError;
pub use java_random::JavaRandom;
pub use perft::{perft, perft_depth_first, PathCount, PathCounter, PathLevel, PerftLevel, PerftLimits, PerftResult};
pub use playout::{random_playout, random_trajectory, run_playouts, run_playouts_for, Playout, PlayoutStats};
pub use record::record;
pub use reference::{Reference, ReferenceError};
pub use simulate::{simulate, Declared, Fault, Finding, SimulateOptions, Simulation};

use std::fmt::Debug;
use std::hash::Hash;

/// The value a role plays for where the rules derive `values` (ascending) for it: the one
/// value, 0 where there is none, and the highest where there are several.
///
/// Several values in an ended game come from broken rules, mostly a rule meant for unfinished
/// games whose conditions forget the end: Pentago's "0 while no line is made and the board is
/// open" also holds once the second player makes a line, beside its "100 for a line". The highest
/// is then the value the finishing rule gives. The reference prover refuses such states, so
/// there is no ground truth; players and our referee use this one reading.
pub fn played_value(values: &[u32]) -> u32 {
    values.iter().copied().max().unwrap_or(0)
}

/// [`played_value`] of a goal query's answer: the value, or what the error says was derived.
pub fn played_score(goal: &Result<u32, MachineError>) -> u32 {
    match goal {
        Ok(v) => *v,
        Err(MachineError::AmbiguousGoal { values, .. }) => played_value(values),
        Err(_) => 0,
    }
}

/// One successor of a state: what [`StateMachine::successors`] lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Successor<S, Mv> {
    /// One move per role, indexed like the roles.
    pub joint: Vec<Mv>,
    /// The state the joint move leads to.
    pub state: S,
    /// Whether that state is terminal.
    pub terminal: bool,
}

/// What [`StateMachine::successors`] lists for machine `M`.
pub type Successors<M> = Vec<Successor<<M as StateMachine>::State, <M as StateMachine>::Move>>;

/// The successors of `state`, one [`StateMachine::next_state`] and
/// [`StateMachine::is_terminal`] at a time: the meaning of [`StateMachine::successors`].
pub fn successors_one_by_one<M: StateMachine>(m: &mut M, state: &M::State) -> Result<Successors<M>, MachineError> {
    let mut out = Vec::new();
    for joint in perft::legal_joint_moves(m, state)? {
        let next = m.next_state(state, &joint)?;
        let terminal = m.is_terminal(&next)?;
        out.push(Successor { joint, state: next, terminal });
    }
    Ok(out)
}

/// A deterministic, perfect-information game engine (GDL semantics).
///
/// Query methods take `&mut self` because engines keep per-thread scratch space (caches, markings);
/// share the underlying rules or net between threads and give each thread its own machine.
pub trait StateMachine {
    /// A game state: the set of base propositions that are true in it.
    type State: Clone + Eq + Hash + Debug;
    /// One role's move.
    type Move: Clone + Eq + Hash + Debug;

    /// Role names, lower case, in the order of the game's `role` facts.
    fn roles(&self) -> &[String];

    /// The state the game starts in (the `init` facts).
    fn initial_state(&mut self) -> Self::State;

    /// The legal moves of `role` (an index into [`roles`](Self::roles)) in `state`, without
    /// duplicates, in the engine's own order.
    fn legal_moves(&mut self, state: &Self::State, role: usize) -> Result<Vec<Self::Move>, MachineError>;

    /// The state reached when every role plays its move in `moves` (indexed like `roles`).
    ///
    /// Fails with [`MachineError::IllegalMove`] when a move is not legal for its role.
    fn next_state(&mut self, state: &Self::State, moves: &[Self::Move]) -> Result<Self::State, MachineError>;

    /// Whether `state` is terminal.
    fn is_terminal(&mut self, state: &Self::State) -> Result<bool, MachineError>;

    /// Every goal value the rules derive for `role` in `state`, sorted ascending.
    fn goal_values(&mut self, state: &Self::State, role: usize) -> Result<Vec<u32>, MachineError>;

    /// The goal value of `role` in `state`; an error unless the rules derive exactly one.
    fn goal(&mut self, state: &Self::State, role: usize) -> Result<u32, MachineError> {
        let values = self.goal_values(state, role)?;
        match values.as_slice() {
            [v] => Ok(*v),
            [] => Err(MachineError::NoGoal { role: self.roles()[role].clone() }),
            _ => Err(MachineError::AmbiguousGoal { role: self.roles()[role].clone(), values }),
        }
    }

    /// What `role` plays for in `state`: its goal value, or where the rules derive none or
    /// several, what [`played_value`] makes of them.
    fn played_goal(&mut self, state: &Self::State, role: usize) -> Result<u32, MachineError> {
        Ok(played_value(&self.goal_values(state, role)?))
    }

    /// The move printed in canonical KIF, e.g. `(mark 1 1)` or `noop`.
    fn format_move(&self, mv: &Self::Move) -> String;

    /// The move among `moves` that prints as `name` (canonical KIF, as `gdl::canonical_term`
    /// writes moves from outside), if there is one: how every caller reads a move given as text,
    /// here among legal moves it already has.
    fn move_named(&self, moves: &[Self::Move], name: &str) -> Option<Self::Move> {
        moves.iter().find(|mv| self.format_move(mv) == name).cloned()
    }

    /// The legal move of `role` in `state` that prints as `name` (see
    /// [`move_named`](Self::move_named)), if there is one.
    fn legal_move(&mut self, state: &Self::State, role: usize, name: &str) -> Result<Option<Self::Move>, MachineError> {
        let legal = self.legal_moves(state, role)?;
        Ok(self.move_named(&legal, name))
    }

    /// Runs `count` random playouts from the initial state, each at most `max_steps` joint moves,
    /// with moves drawn by a generator seeded with `seed`. Engines with a faster playout path than
    /// one query at a time override this.
    fn run_playouts(&mut self, count: u64, seed: u64, max_steps: u32) -> Result<PlayoutStats, MachineError>
    where
        Self: Sized,
    {
        playout::run_playouts(self, count, seed, max_steps)
    }

    /// Every joint move of the non-terminal `state` (in the order of
    /// [`perft::legal_joint_moves`]) with the state it leads to and whether that state is
    /// terminal: a node's expansion in one call. Engines that compute many successors at once
    /// override this; the answer is always [`successors_one_by_one`]'s. The list holds every
    /// joint move: where simultaneous moves multiply into more than a caller can hold, check
    /// [`perft::JointMoves::total`] first.
    fn successors(&mut self, state: &Self::State) -> Result<Successors<Self>, MachineError>
    where
        Self: Sized,
    {
        successors_one_by_one(self, state)
    }

    /// Counts the paths of the game tree down to `max_depth` within `limits`, as
    /// [`perft_depth_first`] does: the same counts, walked the engine's fastest way. Engines that
    /// expand many nodes at once override this; the default walks node by node.
    fn count_paths(&mut self, max_depth: u32, limits: &PerftLimits) -> Result<PathCount, MachineError>
    where
        Self: Sized,
    {
        perft_depth_first(self, max_depth, limits)
    }

    /// The true base propositions of `state` in canonical KIF without the `true` wrapper,
    /// e.g. `(cell 1 1 b)`, sorted by byte order of the printed form.
    fn state_props(&self, state: &Self::State) -> Vec<String>;
}

/// A machine lent out: a search that takes a machine by value runs on one its caller keeps.
impl<M: StateMachine> StateMachine for &mut M {
    type State = M::State;
    type Move = M::Move;

    fn roles(&self) -> &[String] {
        (**self).roles()
    }

    fn initial_state(&mut self) -> M::State {
        (**self).initial_state()
    }

    fn legal_moves(&mut self, state: &M::State, role: usize) -> Result<Vec<M::Move>, MachineError> {
        (**self).legal_moves(state, role)
    }

    fn next_state(&mut self, state: &M::State, moves: &[M::Move]) -> Result<M::State, MachineError> {
        (**self).next_state(state, moves)
    }

    fn is_terminal(&mut self, state: &M::State) -> Result<bool, MachineError> {
        (**self).is_terminal(state)
    }

    fn goal_values(&mut self, state: &M::State, role: usize) -> Result<Vec<u32>, MachineError> {
        (**self).goal_values(state, role)
    }

    fn goal(&mut self, state: &M::State, role: usize) -> Result<u32, MachineError> {
        (**self).goal(state, role)
    }

    fn played_goal(&mut self, state: &M::State, role: usize) -> Result<u32, MachineError> {
        (**self).played_goal(state, role)
    }

    fn format_move(&self, mv: &M::Move) -> String {
        (**self).format_move(mv)
    }

    fn move_named(&self, moves: &[M::Move], name: &str) -> Option<M::Move> {
        (**self).move_named(moves, name)
    }

    fn legal_move(&mut self, state: &M::State, role: usize, name: &str) -> Result<Option<M::Move>, MachineError> {
        (**self).legal_move(state, role, name)
    }

    fn run_playouts(&mut self, count: u64, seed: u64, max_steps: u32) -> Result<PlayoutStats, MachineError> {
        (**self).run_playouts(count, seed, max_steps)
    }

    fn successors(&mut self, state: &M::State) -> Result<Successors<M>, MachineError> {
        (**self).successors(state)
    }

    fn count_paths(&mut self, max_depth: u32, limits: &PerftLimits) -> Result<PathCount, MachineError> {
        (**self).count_paths(max_depth, limits)
    }

    fn state_props(&self, state: &M::State) -> Vec<String> {
        (**self).state_props(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_role_plays_for_its_one_value_the_highest_of_several_and_0_for_none() {
        assert_eq!(played_value(&[70]), 70);
        assert_eq!(played_value(&[0, 100]), 100);
        assert_eq!(played_value(&[]), 0);
        let ambiguous = Err(MachineError::AmbiguousGoal { role: "black".into(), values: vec![100, 0] });
        assert_eq!(played_score(&ambiguous), 100);
        assert_eq!(played_score(&Err(MachineError::NoGoal { role: "black".into() })), 0);
        assert_eq!(played_score(&Ok(50)), 50);
    }

    #[test]
    fn a_lent_machine_answers_as_its_owner_does() {
        type Lent<'a> = &'a mut mock::Nim;
        let mut nim = mock::Nim::new(5);
        let owned = perft(&mut nim, 6, &PerftLimits::default()).expect("perft");
        assert_eq!(perft(&mut &mut nim, 6, &PerftLimits::default()).expect("perft"), owned);
        let start = nim.initial_state();
        let take = <Lent>::legal_move(&mut &mut nim, &start, 0, "(take 2)").expect("legal moves");
        assert_eq!(take, nim.legal_move(&start, 0, "(take 2)").expect("legal moves"));
        let lent = <Lent>::run_playouts(&mut &mut nim, 20, 7, 50).expect("plays");
        let owned = nim.run_playouts(20, 7, 50).expect("plays");
        assert_eq!((lent.states, lent.average_goals), (owned.states, owned.average_goals));
    }
}
