//! The reference reasoner: a [`StateMachine`] that answers every query by evaluating the GDL
//! rules directly (goal-directed, with tabling; see [`engine`]). It is the engine every faster
//! engine is checked against, so it favours being plainly right over being clever.

mod engine;
mod program;
mod terms;

pub use terms::{TermId, TermPool};

use engine::Engine;
use gdl::{Description, Sym};
use machine::{MachineError, StateMachine};
use program::Program;
use std::sync::Arc;

/// A game state: the sorted ids of the true base propositions.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct State(Arc<[TermId]>);

impl State {
    /// The true base propositions.
    pub fn props(&self) -> &[TermId] {
        &self.0
    }
}

/// The reference GDL interpreter for one game.
#[derive(Clone)]
pub struct Reasoner {
    engine: Engine,
    roles: Vec<String>,
    role_terms: Vec<TermId>,
}

impl Reasoner {
    /// A reasoner for a validated description (see [`gdl::load`]).
    pub fn new(desc: &Description) -> Reasoner {
        let mut pool = TermPool::default();
        let prog = Program::compile(desc, &mut pool);
        let role_terms = prog.roles.iter().map(|&r| pool.constant(r)).collect();
        let roles = prog.roles.iter().map(|r| r.as_str().to_owned()).collect();
        Reasoner { engine: Engine::new(Arc::new(prog), pool), roles, role_terms }
    }

    /// The store of ground terms (to print or build terms).
    pub fn pool(&self) -> &TermPool {
        &self.engine.pool
    }

    /// The ground base propositions declared by `base` (empty if the game declares none).
    pub fn declared_base(&mut self) -> Vec<TermId> {
        self.answers(Sym::BASE, &[TermId::NONE])
    }

    /// The moves of `role` declared by `input` (empty if the game declares none).
    pub fn declared_input(&mut self, role: usize) -> Vec<TermId> {
        let answers = self.answers(Sym::INPUT, &[self.role_terms[role], TermId::NONE]);
        answers.chunks(2).map(|a| a[1]).collect()
    }

    /// The arguments of every answer to a query, flattened.
    fn answers(&mut self, rel: Sym, key: &[TermId]) -> Vec<TermId> {
        self.engine.query(rel, key).terms
    }

    fn make_state(&self, mut props: Vec<TermId>) -> State {
        props.sort_unstable();
        props.dedup();
        State(props.into())
    }
}

impl StateMachine for Reasoner {
    type State = State;
    type Move = TermId;

    fn roles(&self) -> &[String] {
        &self.roles
    }

    fn initial_state(&mut self) -> State {
        let props = self.answers(Sym::INIT, &[TermId::NONE]);
        self.make_state(props)
    }

    fn legal_moves(&mut self, state: &State, role: usize) -> Result<Vec<TermId>, MachineError> {
        self.engine.set_state(state.props());
        let answers = self.answers(Sym::LEGAL, &[self.role_terms[role], TermId::NONE]);
        Ok(answers.chunks(2).map(|a| a[1]).collect())
    }

    fn next_state(&mut self, state: &State, moves: &[TermId]) -> Result<State, MachineError> {
        if moves.len() != self.roles.len() {
            return Err(MachineError::WrongMoveCount { expected: self.roles.len(), got: moves.len() });
        }
        for (role, &mv) in moves.iter().enumerate() {
            if !self.legal_moves(state, role)?.contains(&mv) {
                let mv = self.format_move(&mv);
                return Err(MachineError::IllegalMove { role: self.roles[role].clone(), mv });
            }
        }
        let joint: Vec<(TermId, TermId)> = self.role_terms.iter().copied().zip(moves.iter().copied()).collect();
        self.engine.set_moves(&joint);
        let props = self.answers(Sym::NEXT, &[TermId::NONE]);
        Ok(self.make_state(props))
    }

    fn is_terminal(&mut self, state: &State) -> Result<bool, MachineError> {
        self.engine.set_state(state.props());
        Ok(self.engine.query(Sym::TERMINAL, &[]).count > 0)
    }

    fn goal_values(&mut self, state: &State, role: usize) -> Result<Vec<u32>, MachineError> {
        self.engine.set_state(state.props());
        let answers = self.answers(Sym::GOAL, &[self.role_terms[role], TermId::NONE]);
        let mut values = Vec::new();
        for a in answers.chunks(2) {
            let v = a[1];
            let number = if self.pool().is_constant(v) { self.pool().functor(v).as_number() } else { None };
            match number {
                Some(n) => values.push(n),
                None => {
                    return Err(MachineError::Rules(format!(
                        "goal value {} for role {} is not a number",
                        self.pool().to_string(v),
                        self.roles[role]
                    )))
                }
            }
        }
        values.sort_unstable();
        values.dedup();
        Ok(values)
    }

    fn format_move(&self, mv: &TermId) -> String {
        self.pool().to_string(*mv)
    }

    fn state_props(&self, state: &State) -> Vec<String> {
        let mut props: Vec<String> = state.props().iter().map(|&p| self.pool().to_string(p)).collect();
        props.sort();
        props
    }
}
