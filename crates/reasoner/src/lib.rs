//! The reference reasoner: a [`StateMachine`] that answers every query by evaluating the GDL
//! rules directly (goal-directed, with tabling; see [`engine`]). It is the engine every faster
//! engine is checked against, so it favours being plainly right over being clever.

#![warn(missing_docs)]

#[cfg(test)]
mod differential;
mod engine;
mod program;

pub use gdl::{TermId, TermPool};

use engine::Engine;
use gdl::{Description, Sym};
use machine::{MachineError, StateMachine};
use program::CompiledRules;
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
///
/// Its states and moves name terms in its own term store, so they mean something only to the
/// reasoner that produced them; build one reasoner per thread and keep each thread's states apart.
pub struct Reasoner {
    engine: Engine,
    roles: Vec<String>,
    role_terms: Vec<TermId>,
}

impl Reasoner {
    /// A reasoner for a validated description (see [`gdl::load`]).
    pub fn new(desc: &Description) -> Reasoner {
        let mut pool = TermPool::default();
        let prog = CompiledRules::compile(desc, &mut pool);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn reasoner(text: &str) -> Reasoner {
        let (desc, _) = gdl::load("test.kif", text).expect("valid test game");
        Reasoner::new(&desc)
    }

    fn legal(m: &mut Reasoner, s: &State, role: usize) -> Vec<String> {
        let mut moves: Vec<String> = m.legal_moves(s, role).unwrap().iter().map(|mv| m.format_move(mv)).collect();
        moves.sort();
        moves
    }

    fn play(m: &mut Reasoner, s: &State, moves: &[&str]) -> Result<State, MachineError> {
        let mut joint = Vec::new();
        for (role, text) in moves.iter().enumerate() {
            let legal = m.legal_moves(s, role)?;
            let mv = legal.into_iter().find(|mv| m.format_move(mv) == *text);
            joint.push(mv.ok_or_else(|| MachineError::IllegalMove { role: role.to_string(), mv: text.to_string() })?);
        }
        m.next_state(s, &joint)
    }

    /// A counter with recursion (`less`), negation, `or`, `distinct` and function terms.
    const COUNTER: &str = "
        (role p) (role q)
        (succ 0 1) (succ 1 2) (succ 2 3)
        (<= (less ?x ?y) (succ ?x ?y))
        (<= (less ?x ?z) (succ ?x ?y) (less ?y ?z))
        (init (count 0))
        (init (owner (of p)))
        (<= (legal p (add ?n)) (true (count ?c)) (less ?c ?n) (distinct ?n 3))
        (<= (legal p wait) (true (count ?c)))
        (<= (legal q noop) (role q))
        (<= (next (count ?n)) (does p (add ?n)))
        (<= (next (count ?c)) (true (count ?c)) (does p wait))
        (<= (next (owner ?o)) (true (owner ?o)))
        (<= big (true (count ?c)) (or (succ 1 ?c) (succ 2 ?c)))
        (<= terminal big)
        (<= (goal ?r 100) (role ?r) big (not (true (count 3))))
        (<= (goal ?r 0) (role ?r) (not big))";

    #[test]
    fn plays_a_small_game() {
        let mut m = reasoner(COUNTER);
        assert_eq!(m.roles(), ["p", "q"]);
        let s0 = m.initial_state();
        assert_eq!(m.state_props(&s0), ["(count 0)", "(owner (of p))"]);
        assert_eq!(legal(&mut m, &s0, 0), ["(add 1)", "(add 2)", "wait"]);
        assert_eq!(legal(&mut m, &s0, 1), ["noop"]);
        assert!(!m.is_terminal(&s0).unwrap());
        assert_eq!(m.goal(&s0, 0).unwrap(), 0);
        let s1 = play(&mut m, &s0, &["wait", "noop"]).unwrap();
        assert_eq!(s1, s0);
        let s2 = play(&mut m, &s0, &["(add 2)", "noop"]).unwrap();
        assert_eq!(m.state_props(&s2), ["(count 2)", "(owner (of p))"]);
        assert!(m.is_terminal(&s2).unwrap());
        assert_eq!(m.goal_values(&s2, 1).unwrap(), [100]);
        // Earlier states are still answered correctly after the cache moved on.
        assert_eq!(legal(&mut m, &s0, 0), ["(add 1)", "(add 2)", "wait"]);
    }

    #[test]
    fn illegal_and_malformed_joint_moves_are_errors() {
        let mut m = reasoner(COUNTER);
        let s0 = m.initial_state();
        let noop = m.legal_moves(&s0, 1).unwrap()[0];
        let err = m.next_state(&s0, &[noop, noop]).unwrap_err();
        assert_eq!(err, MachineError::IllegalMove { role: "p".into(), mv: "noop".into() });
        let wait = m.legal_moves(&s0, 0).unwrap()[0];
        assert_eq!(m.next_state(&s0, &[wait]), Err(MachineError::WrongMoveCount { expected: 2, got: 1 }));
    }

    #[test]
    fn faulty_goals_are_errors() {
        let text = "(role r) (init a) (<= (legal r go) (true a)) (<= (next b) (does r go)) (<= terminal (true b))
                    (<= (goal r 50) (true a)) (<= (goal r 100) (true a)) (<= (goal r high) (true b))";
        let mut m = reasoner(text);
        let s0 = m.initial_state();
        assert_eq!(m.goal(&s0, 0), Err(MachineError::AmbiguousGoal { role: "r".into(), values: vec![50, 100] }));
        let s1 = play(&mut m, &s0, &["go"]).unwrap();
        assert!(matches!(m.goal(&s1, 0), Err(MachineError::Rules(msg)) if msg.contains("high")));
        let s2 = m.make_state(vec![]);
        assert_eq!(m.goal(&s2, 0), Err(MachineError::NoGoal { role: "r".into() }));
    }

    #[test]
    fn declared_base_and_input() {
        let text = "(role r) (base (on a)) (base (on b)) (<= (input r (press ?x)) (light ?x)) (light a) (light b)
                    (init (on a)) (<= (legal r (press a)) (true (on a))) (<= terminal (true (on b))) (goal r 0)";
        let mut m = reasoner(text);
        assert_eq!(m.declared_base().len(), 2);
        assert_eq!(m.declared_input(0).len(), 2);
    }
}
