//! Tiny hand-written games implementing [`StateMachine`], for the unit tests of this crate.
//!
//! - [`Nim`]: one pile, two players alternate taking 1 or 2 counters (the waiting player plays
//!   `noop`); whoever takes the last counter scores 100. Options inject faults: a pile size where
//!   the waiting player has no legal move, one where `is_terminal` fails, and an ambiguous goal for
//!   the second player.
//! - [`Counter`]: two players simultaneously add 1 or 2 to a shared counter until it reaches a
//!   target, so a state has four joint moves.

use crate::{MachineError, StateMachine};

/// Alternating one-pile Nim with optional rule faults.
#[derive(Debug, Clone)]
pub struct Nim {
    roles: Vec<String>,
    pile: u32,
    stuck_at: Option<u32>,
    broken_at: Option<u32>,
    ambiguous_goal: bool,
}

/// A Nim state: counters left and the index of the role to move.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NimState {
    /// Counters left.
    pub pile: u32,
    /// The role to move (0 white, 1 black).
    pub mover: usize,
}

/// A Nim move.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum NimMove {
    /// Take this many counters.
    Take(u32),
    /// The waiting player's move.
    Noop,
}

impl Nim {
    /// Nim starting from a pile of `pile`, roles `white` (moves first) and `black`.
    pub fn new(pile: u32) -> Self {
        Nim {
            roles: vec!["white".into(), "black".into()],
            pile,
            stuck_at: None,
            broken_at: None,
            ambiguous_goal: false,
        }
    }

    /// Makes the waiting player have no legal move when the pile holds `pile` counters.
    pub fn stuck_at(mut self, pile: u32) -> Self {
        self.stuck_at = Some(pile);
        self
    }

    /// Makes `is_terminal` fail when the pile holds `pile` counters.
    pub fn broken_at(mut self, pile: u32) -> Self {
        self.broken_at = Some(pile);
        self
    }

    /// Makes the rules derive both 0 and 100 for `black` in every terminal state.
    pub fn ambiguous_goal(mut self) -> Self {
        self.ambiguous_goal = true;
        self
    }
}

impl StateMachine for Nim {
    type State = NimState;
    type Move = NimMove;

    fn roles(&self) -> &[String] {
        &self.roles
    }

    fn initial_state(&mut self) -> NimState {
        NimState { pile: self.pile, mover: 0 }
    }

    fn legal_moves(&mut self, state: &NimState, role: usize) -> Result<Vec<NimMove>, MachineError> {
        if role == state.mover {
            return Ok((1..=state.pile.min(2)).map(NimMove::Take).collect());
        }
        if state.pile > 0 && self.stuck_at == Some(state.pile) {
            return Ok(Vec::new());
        }
        Ok(vec![NimMove::Noop])
    }

    fn next_state(&mut self, state: &NimState, moves: &[NimMove]) -> Result<NimState, MachineError> {
        if moves.len() != 2 {
            return Err(MachineError::WrongMoveCount { expected: 2, got: moves.len() });
        }
        for (role, mv) in moves.iter().enumerate() {
            if !self.legal_moves(state, role)?.contains(mv) {
                return Err(MachineError::IllegalMove { role: self.roles[role].clone(), mv: self.format_move(mv) });
            }
        }
        let taken = match moves[state.mover] {
            NimMove::Take(n) => n,
            NimMove::Noop => 0,
        };
        Ok(NimState { pile: state.pile - taken, mover: 1 - state.mover })
    }

    fn is_terminal(&mut self, state: &NimState) -> Result<bool, MachineError> {
        if self.broken_at == Some(state.pile) {
            return Err(MachineError::Rules(format!("broken at pile {}", state.pile)));
        }
        Ok(state.pile == 0)
    }

    fn goal_values(&mut self, state: &NimState, role: usize) -> Result<Vec<u32>, MachineError> {
        if state.pile > 0 {
            return Ok(vec![50]);
        }
        if self.ambiguous_goal && role == 1 {
            return Ok(vec![0, 100]);
        }
        // The player to move did not take the last counter.
        Ok(vec![if role == state.mover { 0 } else { 100 }])
    }

    fn format_move(&self, mv: &NimMove) -> String {
        match mv {
            NimMove::Take(n) => format!("(take {n})"),
            NimMove::Noop => "noop".into(),
        }
    }

    fn state_props(&self, state: &NimState) -> Vec<String> {
        vec![format!("(control {})", self.roles[state.mover]), format!("(pile {})", state.pile)]
    }
}

/// Two players simultaneously add 1 or 2 to a counter; terminal once it reaches `target`.
#[derive(Debug, Clone)]
pub struct Counter {
    roles: Vec<String>,
    target: u32,
}

impl Counter {
    /// The counter game ending at `target`, roles `left` and `right`.
    pub fn new(target: u32) -> Self {
        Counter { roles: vec!["left".into(), "right".into()], target }
    }
}

impl StateMachine for Counter {
    type State = u32;
    type Move = u32;

    fn roles(&self) -> &[String] {
        &self.roles
    }

    fn initial_state(&mut self) -> u32 {
        0
    }

    fn legal_moves(&mut self, _state: &u32, _role: usize) -> Result<Vec<u32>, MachineError> {
        Ok(vec![1, 2])
    }

    fn next_state(&mut self, state: &u32, moves: &[u32]) -> Result<u32, MachineError> {
        match moves {
            [a @ 1..=2, b @ 1..=2] => Ok(state + a + b),
            [_, _] => Err(MachineError::IllegalMove { role: "left or right".into(), mv: format!("{moves:?}") }),
            _ => Err(MachineError::WrongMoveCount { expected: 2, got: moves.len() }),
        }
    }

    fn is_terminal(&mut self, state: &u32) -> Result<bool, MachineError> {
        Ok(*state >= self.target)
    }

    fn goal_values(&mut self, state: &u32, role: usize) -> Result<Vec<u32>, MachineError> {
        let left = (state * 10).min(100);
        Ok(vec![if role == 0 { left } else { 100 - left }])
    }

    fn format_move(&self, mv: &u32) -> String {
        format!("(add {mv})")
    }

    fn state_props(&self, state: &u32) -> Vec<String> {
        vec![format!("(count {state})")]
    }
}
